"""The Glicko-2 calculator: ratingdb.rating.glicko2 with every step written out; no SQLAlchemy/Typer/I/O.

`calculate_glicko2` rates one player's period (or a period without games) and keeps the update for
JSON and the steps, numbered as in Glickman's "Example of the Glicko-2 system", for text. Figures are
computed unrounded and shown to four decimals (σ to six), the new rating and deviation to hundredths as
the published list rounds them (ratingdb.rating.glicko2.published).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

from ratingdb.errors import ConfigError
from ratingdb.rating import RulesError
from ratingdb.rating.glicko2 import (
    DRAW,
    EPSILON,
    LOSS,
    SCALE,
    WIN,
    Glicko2Game,
    Glicko2Parameters,
    Glicko2Rating,
    Glicko2Update,
    paper_rounded,
    published,
    update,
)

MINUS: Final = "\u2212"
_SCORES: Final = {"1": WIN, "1.0": WIN, "w": WIN, "0.5": DRAW, ".5": DRAW, "½": DRAW, "=": DRAW, "d": DRAW,
                  "1/2": DRAW, "0": LOSS, "0.0": LOSS, "l": LOSS}  # fmt: skip
_SCORE_TEXT: Final = {WIN: "1", DRAW: "0.5", LOSS: "0"}


def decimals(value: float, places: int = 4) -> str:
    """A float to `places` decimals with the true minus sign (−0.4839)."""
    text = f"{value:.{places}f}"
    if text.startswith("-"):
        return MINUS + text[1:] if text.strip("-0.") else text[1:]
    return text


_f = decimals


def _number(text: str, what: str, game: str) -> float:
    try:
        value = float(text.strip().replace(MINUS, "-"))
    except ValueError:
        raise ConfigError(f"--game '{game}': '{text}' is not {what}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"--game '{game}': '{text}' is not {what}")
    return value


def parse_glicko2_game(text: str) -> Glicko2Game:
    """`RATING:RD:SCORE` as --game takes it under Glicko-2 (1400:30:1); ConfigError otherwise."""
    parts = text.split(":")
    if len(parts) != 3:
        raise ConfigError(
            f"--game '{text}': Glicko-2 needs the opponent's deviation too: "
            "write RATING:RD:SCORE, e.g. 1400:30:1"
        )
    rating = _number(parts[0], "a rating (e.g. 1400)", text)
    deviation = _number(parts[1], "a deviation (e.g. 30)", text)
    if deviation <= 0:
        raise ConfigError(f"--game '{text}': the deviation must be above 0, not {parts[1].strip()}")
    score = _SCORES.get(parts[2].strip().lower())
    if score is None:
        raise ConfigError(
            f"--game '{text}': the score must be 1, 0.5 (or ½, =) or 0, not '{parts[2].strip()}'"
        )
    return Glicko2Game(rating, deviation, score)


@dataclass(frozen=True)
class Glicko2Calculation:
    """One player's Glicko-2 period, with how the rule set was chosen, for lines() and as_dict()."""

    rules_name: str
    rules_reason: str
    params: Glicko2Parameters
    newcomer: bool  # the player had no rating: Step 1's values
    result: Glicko2Update
    player_label: str | None = None
    rating_note: str | None = None  # e.g. where σ came from when it was not given

    def lines(self) -> list[str]:
        p, u = self.params, self.result
        before = u.before
        text = [
            f"Rules: {self.rules_name} ({self.rules_reason}); Glicko-2, τ = {p.tau:g}, newcomers "
            f"{p.initial_rating:g} / {p.initial_deviation:g} / {p.initial_volatility:g}",
            'System: Glicko-2 (Glickman, "Example of the Glicko-2 system"): computed unrounded, shown to '
            "4 decimals; the list rounds r and RD to hundredths, σ to millionths",
        ]
        if self.player_label is not None:
            text.append(f"Player: {self.player_label}")
        start = "unrated: Step 1 gives the newcomer's " if self.newcomer else ""
        note = f" ({self.rating_note})" if self.rating_note else ""
        text.append(
            f"Rating: {start}r = {before.rating:g}, RD = {before.deviation:g}, "
            f"σ = {before.volatility:g}{note}"
        )
        text.append(f"Step 2: μ = (r − 1500) / {SCALE} = {_f(u.mu)}; φ = RD / {SCALE} = {_f(u.phi)}")
        if not u.played:
            widened = math.sqrt(u.phi * u.phi + before.volatility * before.volatility)
            cap = f" = {_f(widened)}, capped at the initial deviation {p.initial_deviation:g} / {SCALE}"
            text += [
                "No games: rating and volatility stay; the deviation widens (Step 6)",
                f"Step 6: φ′ = φ* = √(φ² + σ²) = √({_f(u.phi)}² + {_f(before.volatility)}²)"
                f"{cap if u.phi_star_capped else ''} = {_f(u.phi_star)}",
                f"Step 8: RD′ = {SCALE} × φ′ = {_f(u.after.deviation, 2)}",
            ]
            text.append(self._new_line())
            return text
        assert u.v is not None and u.delta is not None
        header = ("Game", "Opponent", "RD", "μj", "φj", "g(φj)", "E")
        widths = (4, 8, 6, 7, 6, 6, 6)
        text.append("  ".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True)) + "  S")
        for number, s in enumerate(u.games, start=1):
            text.append(
                f"{number:>4}  {s.opponent_rating:>8g}  {s.opponent_deviation:>6g}  {_f(s.mu_j):>7}  "
                f"{_f(s.phi_j):>6}  {_f(s.g):>6}  {_f(s.e):>6}  {_SCORE_TEXT[s.score]}"
            )
        terms = " + ".join(_f(s.g * s.g * s.e * (1 - s.e)) for s in u.games)
        text.append(f"Step 3: v = [Σ g(φj)² E (1 − E)]⁻¹ = [{terms}]⁻¹ = {_f(u.v)}")
        improvement = sum(s.g * (s.score - s.e) for s in u.games)
        parts = " + ".join(_f(s.g * (s.score - s.e)) for s in u.games).replace(f"+ {MINUS}", f"{MINUS} ")
        text.append(
            f"Step 4: Δ = v Σ g(φj)(s − E) = {_f(u.v)} × ({parts}) = {_f(u.v)} × {_f(improvement)} "
            f"= {_f(u.delta)}"
        )
        text.append(
            f"Step 5: σ′ by the Illinois algorithm on f(x), a = ln σ², τ = {p.tau:g}, ε = {EPSILON:.6f} "
            f"({u.iterations} iteration{'s' * (u.iterations != 1)}): σ′ = {_f(u.sigma, 6)}"
        )
        widened = math.sqrt(u.phi * u.phi + u.sigma * u.sigma)
        cap = f" = {_f(widened)}, capped at the initial deviation {p.initial_deviation:g} / {SCALE}"
        text.append(
            f"Step 6: φ* = √(φ² + σ′²) = √({_f(u.phi)}² + {_f(u.sigma, 6)}²)"
            f"{cap if u.phi_star_capped else ''} = {_f(u.phi_star)}"
        )
        text.append(
            f"Step 7: φ′ = 1 / √(1/φ*² + 1/v) = {_f(u.new_phi)}; μ′ = μ + φ′² Σ g(φj)(s − E) "
            f"= {_f(u.mu)} + {_f(u.new_phi)}² × {_f(improvement)} = {_f(u.new_mu)}"
        )
        text.append(
            f"Step 8: r′ = {SCALE} × μ′ + 1500 = {SCALE} × {_f(u.new_mu, 6)} + 1500 = {_f(u.after.rating)}; "
            f"RD′ = {SCALE} × φ′ = {_f(u.after.deviation)}"
        )
        text.append(self._new_line())
        paper, shown = published(paper_rounded(u)), published(u.after)
        if (paper.rating_x100, paper.deviation_x100) != (shown.rating_x100, shown.deviation_x100):
            text.append(
                "Paper's rounding: Glickman's example prints its steps to 4 decimals; Step 8 from "
                f"μ′ = {_f(round(u.new_mu, 4))}, φ′ = {_f(round(u.new_phi, 4))} gives "
                f"{paper.rating_x100 / 100:.2f}, RD {paper.deviation_x100 / 100:.2f}, "
                f"σ {math.floor(u.sigma * 10**5) / 10**5:.5f}; a list publishes the exact result above"
            )
        return text

    def _new_line(self) -> str:
        shown = published(self.result.after)
        rating, deviation = shown.rating_x100 / 100, shown.deviation_x100 / 100
        change = rating - self.result.before.rating
        sign = "+" if change >= 0 else MINUS
        provisional = ""
        if self.params.provisional_deviation is not None:
            above = self.params.is_provisional(deviation)
            provisional = (
                f"; provisional (RD above {self.params.provisional_deviation:g})"
                if above
                else f"; established (RD at most {self.params.provisional_deviation:g})"
            )
        return (
            f"New rating: {rating:.2f} ({sign}{abs(change):.2f}), RD {deviation:.2f}, "
            f"σ {shown.volatility_x1e6 / 1e6:.6f}{provisional}"
        )

    def as_dict(self) -> dict[str, Any]:
        p, u = self.params, self.result
        shown, paper = published(u.after), paper_rounded(u)
        return {
            "system": "glicko2",
            "rules": self.rules_name,
            "rules_reason": self.rules_reason,
            "tau": p.tau,
            "player": self.player_label,
            "newcomer": self.newcomer,
            "rating": u.before.rating,
            "deviation": u.before.deviation,
            "volatility": u.before.volatility,
            "mu": u.mu,
            "phi": u.phi,
            "games": [
                {
                    "game": n,
                    "opponent_rating": s.opponent_rating,
                    "opponent_deviation": s.opponent_deviation,
                    "mu_j": s.mu_j,
                    "phi_j": s.phi_j,
                    "g": s.g,
                    "e": s.e,
                    "score": s.score,
                }
                for n, s in enumerate(u.games, start=1)
            ],  # fmt: skip
            "v": u.v,
            "delta": u.delta,
            "new_volatility": u.sigma,
            "iterations": u.iterations,
            "phi_star": u.phi_star,
            "phi_star_capped": u.phi_star_capped,
            "new_phi": u.new_phi,
            "new_mu": u.new_mu,
            "new_rating_unrounded": u.after.rating,
            "new_deviation_unrounded": u.after.deviation,
            "new_rating": shown.rating_x100 / 100,
            "new_deviation": shown.deviation_x100 / 100,
            "new_volatility_published": shown.volatility_x1e6 / 1e6,
            "provisional": p.is_provisional(shown.deviation_x100 / 100),
            # Step 8 from μ′, φ′ rounded to 4 decimals as Glickman's example prints them (not published)
            "paper_rounded_rating": paper.rating,
            "paper_rounded_deviation": paper.deviation,
            "paper_rounded_volatility": paper.volatility,
        }


def calculate_glicko2(
    rating: Glicko2Rating | None,
    games: list[Glicko2Game],
    params: Glicko2Parameters,
    *,
    rules_name: str,
    rules_reason: str,
    player_label: str | None = None,
    rating_note: str | None = None,
) -> Glicko2Calculation:
    """The period of a player rated `rating` (None: a newcomer, Step 1) with `games` under `params`."""
    try:
        start = params.newcomer if rating is None else rating
        result = update(start, games, params)
    except RulesError as exc:
        raise ConfigError(str(exc)) from exc
    return Glicko2Calculation(
        rules_name, rules_reason, params, rating is None, result, player_label, rating_note
    )
