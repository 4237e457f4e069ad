"""The Glicko-2 calculator, explaining: a calculator.glicko2 calculation written out; no SQLAlchemy/Typer/I/O.

`lines(calculation)` gives the steps numbered as in Glickman's "Example of the Glicko-2 system" (what
`ratingdb calc --system glicko2` prints), `as_dict(calculation)` the figures for JSON. Figures are
shown to four decimals (σ to six), the new rating and deviation to hundredths as the published list
rounds them (ratingdb.rating.glicko2.published). Imports only ratingdb.calculator.glicko2 and
ratingdb.rating.glicko2.
"""

from __future__ import annotations

from typing import Any, Final

from ratingdb.calculator.glicko2 import MINUS, Glicko2Calculation
from ratingdb.rating.glicko2 import DRAW, EPSILON, LOSS, PAPER_PLACES, SCALE, WIN, paper_rounded, published

__all__ = ["as_dict", "decimals", "lines"]

_SCORE_TEXT: Final = {WIN: "1", DRAW: "0.5", LOSS: "0"}


def decimals(value: float, places: int = 4) -> str:
    """A float to `places` decimals with the true minus sign (−0.4839)."""
    text = f"{value:.{places}f}"
    if text.startswith("-"):
        return MINUS + text[1:] if text.strip("-0.") else text[1:]
    return text


_f = decimals


def lines(calculation: Glicko2Calculation) -> list[str]:
    p, u = calculation.params, calculation.result
    before = u.before
    text = [
        f"Rules: {calculation.rules_name} ({calculation.rules_reason}); Glicko-2, τ = {p.tau:g}, newcomers "
        f"{p.initial_rating:g} / {p.initial_deviation:g} / {p.initial_volatility:g}; "
        f"{maximum_text(p.maximum_deviation)}",
        'System: Glicko-2 (Glickman, "Example of the Glicko-2 system"): computed unrounded, shown to '
        "4 decimals; the list rounds r and RD to hundredths, σ to millionths",
    ]
    if calculation.player_label is not None:
        text.append(f"Player: {calculation.player_label}")
    start = "unrated: Step 1 gives the newcomer's " if calculation.newcomer else ""
    note = f" ({calculation.rating_note})" if calculation.rating_note else ""
    text.append(
        f"Rating: {start}r = {before.rating:g}, RD = {before.deviation:g}, σ = {before.volatility:g}{note}"
    )
    text.append(f"Step 2: μ = (r − 1500) / {SCALE} = {_f(u.mu)}; φ = RD / {SCALE} = {_f(u.phi)}")
    if not u.played:
        text += [
            "No games: rating and volatility stay; the deviation widens (Step 6)",
            f"Step 6: φ′ = φ* = √(φ² + σ²) = √({_f(u.phi)}² + {_f(before.volatility)}²) = {_f(u.phi_star)}",
            f"Step 8: RD′ = {SCALE} × φ′ = {_f(SCALE * u.new_phi, 2)}",
        ]
        text += _maximum_lines(calculation)
        text.append(_new_line(calculation))
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
    text.append(f"Step 6: φ* = √(φ² + σ′²) = √({_f(u.phi)}² + {_f(u.sigma, 6)}²) = {_f(u.phi_star)}")
    text.append(
        f"Step 7: φ′ = 1 / √(1/φ*² + 1/v) = {_f(u.new_phi)}; μ′ = μ + φ′² Σ g(φj)(s − E) "
        f"= {_f(u.mu)} + {_f(u.new_phi)}² × {_f(improvement)} = {_f(u.new_mu)}"
    )
    text.append(
        f"Step 8: r′ = {SCALE} × μ′ + 1500 = {SCALE} × {_f(u.new_mu, 6)} + 1500 = {_f(u.after.rating)}; "
        f"RD′ = {SCALE} × φ′ = {_f(SCALE * u.new_phi)}"
    )
    text += _maximum_lines(calculation)
    text.append(_new_line(calculation))
    # Glickman's example converts its printed (four-decimal) μ′ and φ′, so it prints 1464.06 where the
    # exact arithmetic gives 1464.0507; both paths are written out, the list publishes the exact one.
    rounded, shown = paper_rounded(u), published(u.after)
    paper = published(rounded)
    if (paper.rating_x100, paper.deviation_x100) != (shown.rating_x100, shown.deviation_x100):
        mu4, phi4 = round(u.new_mu, PAPER_PLACES), round(u.new_phi, PAPER_PLACES)
        text.append(
            "Paper's rounding: Glickman's example prints μ′ and φ′ to 4 decimals and converts those: "
            f"r′ = {SCALE} × {_f(mu4)} + 1500 = {_f(rounded.rating)}, "
            f"RD′ = {SCALE} × {_f(phi4)} = {_f(rounded.deviation)}"
        )
        text.append(
            f"Paper's figures: {paper.rating_x100 / 100:.2f}, RD {paper.deviation_x100 / 100:.2f}, "
            f"σ {rounded.volatility:.5f} (σ′ printed to 5 decimals, cut); the list publishes the exact "
            f"result: {shown.rating_x100 / 100:.2f}, RD {shown.deviation_x100 / 100:.2f}, "
            f"σ {shown.volatility_x1e6 / 10**6:.6f}"
        )
    return text


def maximum_text(maximum: float | None) -> str:
    """The rule set's maximum deviation as the first line names it."""
    if maximum is None:
        return "no maximum deviation (the paper's)"
    return f"maximum deviation {maximum:g} (the final RD′ clamped to it, as lichess does)"


def _maximum_lines(calculation: Glicko2Calculation) -> list[str]:
    """What the rule set's maximum deviation did to RD′ (nothing is written when it did nothing)."""
    p, u = calculation.params, calculation.result
    if not u.clamped:
        return []
    assert p.maximum_deviation is not None
    return [
        f"Maximum deviation: RD′ {_f(SCALE * u.new_phi)} is above the rule set's maximum "
        f"{p.maximum_deviation:g}: clamped to {p.maximum_deviation:g} (the rating is Step 8's)"
    ]


def _new_line(calculation: Glicko2Calculation) -> str:
    shown = published(calculation.result.after)
    rating, deviation = shown.rating_x100 / 100, shown.deviation_x100 / 100
    change = rating - calculation.result.before.rating
    sign = "+" if change >= 0 else MINUS
    provisional = ""
    if calculation.params.provisional_deviation is not None:
        above = calculation.params.is_provisional(deviation)
        provisional = (
            f"; provisional (RD above {calculation.params.provisional_deviation:g})"
            if above
            else f"; established (RD at most {calculation.params.provisional_deviation:g})"
        )
    return (
        f"New rating: {rating:.2f} ({sign}{abs(change):.2f}), RD {deviation:.2f}, "
        f"σ {shown.volatility_x1e6 / 1e6:.6f}{provisional}"
    )


def as_dict(calculation: Glicko2Calculation) -> dict[str, Any]:
    p, u = calculation.params, calculation.result
    shown, paper = published(u.after), paper_rounded(u)
    return {
        "system": "glicko2",
        "rules": calculation.rules_name,
        "rules_reason": calculation.rules_reason,
        "tau": p.tau,
        "player": calculation.player_label,
        "newcomer": calculation.newcomer,
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
        "maximum_deviation": p.maximum_deviation,
        "clamped": u.clamped,
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
