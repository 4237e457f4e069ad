"""Read-only queries of Glicko-2 lists: a player's stored calculation, written out; a list's figures.

Takes a Session; reads only. Never recomputes: every figure comes from glicko2_entry and the calculation
record (glicko2_calc_player, glicko2_calc_game) that the close stored (migration 0019).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, TextIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.calculator.glicko2_text import decimals as _f
from ratingdb.rating import Period
from ratingdb.rating.glicko2 import EPSILON, SCALE, Glicko2Parameters
from ratingdb.reports.lists import AnySelect, ListLine, as_list_row, computed_list, list_lines
from ratingdb.schema.models import (
    Event,
    Game,
    Glicko2CalcGame,
    Glicko2CalcPlayer,
    Glicko2Entry,
    Player,
    RatingList,
)
from ratingdb.services.glicko2_lists import Glicko2Shown, glicko2_figures, list_parameters
from ratingdb.titles import shown_name


@dataclass(frozen=True)
class Glicko2GameRecord:
    """One game of a player's Glicko-2 period, as the close used it."""

    round: int
    event_id: int
    event: str
    opponent: str
    opponent_fide_id: int | None
    opponent_rating_x100: int
    opponent_deviation_x100: int
    g: float
    e: float
    score_x100: int
    opponent_id: int | None = None  # the site links the opponent's page by it
    opponent_national_id: str | None = None


@dataclass(frozen=True)
class Glicko2Calculation:
    player: Player
    rating_type: str
    period: Period
    list_date: dt.date
    params: Glicko2Parameters
    record: Glicko2CalcPlayer | None  # None: not on the list in force and no games
    entry: Glicko2Entry | None  # None: unrated on the new list
    games: list[Glicko2GameRecord]

    @property
    def clamped_to(self) -> float | None:
        """The rule set's maximum deviation if the close clamped RD′ to it; None: it did not.

        Read from the record, not stored: Step 7's φ′ (unclamped) above the maximum, and the list
        publishing the maximum. A record of the earlier reading (φ* capped, `phi_star_capped`) is not this.
        """
        rec, entry, maximum = self.record, self.entry, self.params.maximum_deviation
        if rec is None or entry is None or maximum is None or rec.phi_star_capped:
            return None
        if SCALE * rec.new_phi > maximum and entry.deviation_x100 == round(maximum * 100):
            return maximum
        return None


def glicko2_list(
    session: Session, rating_type: str, period: Period
) -> tuple[RatingList, Glicko2Parameters] | None:
    """The list the close of `period` published and its Glicko-2 parameters; None if it is not Glicko-2."""
    new_list = computed_list(session, rating_type, period)
    params = list_parameters(session, new_list)
    return None if params is None else (new_list, params)


def glicko2_calculation(
    session: Session, player: Player, new_list: RatingList, params: Glicko2Parameters
) -> Glicko2Calculation:
    """The stored Glicko-2 calculation of `player` in the close that published `new_list`."""
    found = list_glicko2_calculations(session, new_list, params, player=player)
    if player.id in found:
        return found[player.id]
    period, date = Period.parse(new_list.period or ""), new_list.list_date
    return Glicko2Calculation(player, new_list.rating_type, period, date, params, None, None, [])


def list_glicko2_calculations(
    session: Session, new_list: RatingList, params: Glicko2Parameters, *, player: Player | None = None
) -> dict[int, Glicko2Calculation]:
    """The stored calculation of every player the Glicko-2 close that published `new_list` rated or
    widened (or of `player` only), by player id: three queries for the whole list, as the site needs."""

    def only(query: AnySelect, column: Any) -> AnySelect:
        return query if player is None else query.where(column == player.id)

    period = Period.parse(new_list.period or "")
    entries = {
        e.player_id: e
        for e in session.scalars(
            only(select(Glicko2Entry).where(Glicko2Entry.list_id == new_list.id), Glicko2Entry.player_id)
        )
    }
    opponent = Player.__table__.alias("opponent")
    games: dict[int, list[Glicko2GameRecord]] = defaultdict(list)
    for player_id, *fields in session.execute(
        only(
            select(
                Glicko2CalcGame.player_id,
                Game.round,
                Event.id,
                shown_name(),
                opponent.c.name,
                opponent.c.fide_id,
                Glicko2CalcGame.opponent_rating_x100,
                Glicko2CalcGame.opponent_deviation_x100,
                Glicko2CalcGame.g,
                Glicko2CalcGame.e,
                Glicko2CalcGame.score_x100,
                opponent.c.id,
                opponent.c.national_id,
            )  # fmt: skip
            .join(Game, Game.id == Glicko2CalcGame.game_id)
            .join(Event, Event.id == Glicko2CalcGame.event_id)
            .join(opponent, opponent.c.id == Glicko2CalcGame.opponent_id)
            .where(Glicko2CalcGame.list_id == new_list.id)
            .order_by(Glicko2CalcGame.player_id, Event.start_date, Event.id, Game.round, Game.id),
            Glicko2CalcGame.player_id,
        )
    ):
        games[player_id].append(Glicko2GameRecord(*fields))
    found: dict[int, Glicko2Calculation] = {}
    for record, who in session.execute(
        only(
            select(Glicko2CalcPlayer, Player)
            .join(Player, Player.id == Glicko2CalcPlayer.player_id)
            .where(Glicko2CalcPlayer.list_id == new_list.id)
            .order_by(Glicko2CalcPlayer.player_id),
            Glicko2CalcPlayer.player_id,
        )
    ):
        found[who.id] = Glicko2Calculation(
            who,
            new_list.rating_type,
            period,
            new_list.list_date,
            params,
            record,
            entries.get(who.id),
            games.get(who.id, []),
        )
    return found


def provisional_text(params: Glicko2Parameters, deviation: float) -> str:
    """ "provisional (RD above 110)" or "established (RD at most 110)"; "" without a threshold."""
    if params.provisional_deviation is None:
        return ""
    if params.is_provisional(deviation):
        return f"provisional (RD above {params.provisional_deviation:g})"
    return f"established (RD at most {params.provisional_deviation:g})"


def glicko2_summary(calc: Glicko2Calculation) -> list[str]:
    """The steps of the stored calculation in sentences (Glickman's step numbers), before the games."""
    rec, entry, p = calc.record, calc.entry, calc.params
    if rec is None:
        return ["Not rated on the list in force and no games in this period: unrated on the new list."]
    before = (
        f"Before: r {rec.rating_x100 / 100:.2f}, RD {rec.deviation_x100 / 100:.2f}, "
        f"σ {rec.volatility_x1e6 / 1e6:.6f}" + (" (a newcomer: Step 1)" if rec.newcomer else "")
    )
    lines = [before, f"Step 2: μ = {_f(rec.mu)}, φ = {_f(rec.phi)}"]
    # A record closed before issue 48 capped φ* at the initial deviation (Step 6); it says so.
    cap = f", capped at the initial deviation {p.initial_deviation:g}" if rec.phi_star_capped else ""
    if rec.games == 0:
        lines.append(
            f"No games: the deviation widens (Step 6): φ′ = φ* = √(φ² + σ²) = {_f(rec.phi_star)}{cap}, "
            f"RD′ = {SCALE} × φ′ = {_f(SCALE * rec.phi_star, 2)}"
        )
    else:
        assert rec.v is not None and rec.delta is not None
        lines += [
            f"Step 3: v = [Σ g(φj)² E (1 − E)]⁻¹ = {_f(rec.v)} over {rec.games} games (below)",
            f"Step 4: Δ = v Σ g(φj)(s − E) = {_f(rec.delta)}",
            f"Step 5: σ′ = {_f(rec.new_sigma, 6)} (Illinois algorithm, τ = {p.tau:g}, ε = {EPSILON:.6f}, "
            f"{rec.iterations} iteration{'s' * (rec.iterations != 1)})",
            f"Step 6: φ* = √(φ² + σ′²) = {_f(rec.phi_star)}{cap}",
            f"Step 7: φ′ = 1 / √(1/φ*² + 1/v) = {_f(rec.new_phi)}; "
            f"μ′ = μ + φ′² Σ g(φj)(s − E) = {_f(rec.new_mu)}",
            f"Step 8: r′ = {SCALE} × μ′ + 1500 = {_f(SCALE * rec.new_mu + 1500)}; "
            f"RD′ = {SCALE} × φ′ = {_f(SCALE * rec.new_phi)}",
        ]
    if calc.clamped_to is not None:
        lines.append(
            f"Maximum deviation: RD′ {_f(SCALE * rec.new_phi, 2)} is above the rule set's maximum "
            f"{calc.clamped_to:g}: clamped to {calc.clamped_to:g}"
        )
    if rec.note:
        lines.append(f"Note: {rec.note}")
    if entry is not None:
        state = provisional_text(p, entry.deviation_x100 / 100)
        lines.append(
            f"New list: rating {entry.rating_x100 / 100:.2f}, RD {entry.deviation_x100 / 100:.2f}, "
            f"σ {entry.volatility_x1e6 / 1e6:.6f}"
            + (f"; {state}" if state else "")
            + " (rounded once: hundredths, σ to millionths)"
        )
    return lines


def glicko2_lines(
    session: Session, rating_list: RatingList, params: Glicko2Parameters, *, rated_only: bool = False
) -> tuple[list[ListLine], dict[int, Glicko2Shown]]:
    """A Glicko-2 list's entries, best first by the published rating in hundredths (list_entry's
    whole-point rating ties), unrated last; and the figures by player id."""
    figures = glicko2_figures(session, rating_list.id, params)
    with contextlib.closing(list_lines(session, rating_list, rated_only=rated_only)) as entries:
        lines = list(entries)

    def order(line: ListLine) -> tuple[bool, int, str, int]:
        shown = figures.get(line.player_id)
        return (shown is None, -shown.figures.rating_x100 if shown else 0, line.name, line.player_id)

    return sorted(lines, key=order), figures


def write_glicko2_list_file(
    lines: list[ListLine], figures: dict[int, Glicko2Shown], out: TextIO, rating_type: str
) -> None:
    """The Glicko-2 CSV list (ratingdb.formats.glicko2_list), which re-imports to the same figures."""
    from ratingdb.formats.glicko2_list import Glicko2Figures, write_glicko2_list

    def figures_of(player_id: int) -> Glicko2Figures | None:
        shown = figures.get(player_id)
        if shown is None:
            return None
        return Glicko2Figures(
            shown.figures.rating_x100, shown.figures.deviation_x100, shown.figures.volatility_x1e6
        )

    rows = (
        (as_list_row(i, line, rating_type), figures_of(line.player_id)) for i, line in enumerate(lines, 2)
    )
    write_glicko2_list(rows, out)
