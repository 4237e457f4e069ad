"""Glicko-2 through the close's seam: rate every player of the period at once, widen the others (Step 6).

The stages `close_period` runs for a rule set of system "glicko2" (ratingdb.services.systems.base). The
rules are ratingdb.rating.glicko2; this module reads the list in force and the period's games, applies
them and writes the list (list_entry with the whole-point rating, glicko2_entry with rating, deviation
and volatility as published) and the calculation record (glicko2_calc_player, glicko2_calc_game).
Must not import the CLI, the formats or the reports.

Readings taken, each also in the README's Glicko-2 section:
- The rating period is the month closed; every game of the period is rated against the opponent's
  figures on the list in force (Glickman rates a period at once, from the ratings before it), also for
  an event that started in an earlier period.
- A player not rated on the list in force starts as the rule set's newcomer (Step 1) and is rated from
  the first game; there is no pool. A rated entry of an imported list without Glicko-2 figures (an Elo
  list taken as the starting list) starts at its rating with the initial deviation and volatility.
- A rated player without games widens (Step 6); an unrated one without games stays unrated.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from ratingdb import calc_notes
from ratingdb.errors import ConfigError
from ratingdb.rating import Period, RuleSet
from ratingdb.rating.glicko2 import (
    Glicko2Game,
    Glicko2Parameters,
    Glicko2Rating,
    Glicko2RuleSet,
    Glicko2Update,
    published,
    update,
)
from ratingdb.schema.models import Glicko2CalcGame, Glicko2CalcPlayer, Glicko2Entry
from ratingdb.services.bulk import chunks
from ratingdb.services.exclusions import EXCLUDED_SQL
from ratingdb.services.glicko2_lists import glicko2_parameters, import_glicko2_list, update_glicko2_list
from ratingdb.services.rows import CALC_LIST_EVENT_COLUMNS, LIST_ENTRY_COLUMNS
from ratingdb.services.systems.base import Close, ListImport, RecordCounts

if TYPE_CHECKING:
    from ratingdb.services.list_import import ListImportSummary

SCORE: Final = {"1": 1.0, "=": 0.5, "0": 0.0}
ENTRY_COLUMNS: Final = ("list_id", "player_id", "rating_x100", "deviation_x100", "volatility_x1e6")
CALC_PLAYER_COLUMNS: Final = (
    "list_id", "player_id", "games", "newcomer", "rating_x100", "deviation_x100", "volatility_x1e6",
    "mu", "phi", "v", "delta", "new_sigma", "phi_star", "phi_star_capped", "new_phi", "new_mu", "iterations",
    "note",
)  # fmt: skip
CALC_GAME_COLUMNS: Final = (
    "list_id", "player_id", "game_id", "event_id", "opponent_id", "opponent_rating_x100",
    "opponent_deviation_x100", "g", "e", "score_x100",
)  # fmt: skip


def parameters(rules: RuleSet) -> Glicko2Parameters:
    """The Glicko-2 parameters of a rule set of system "glicko2"."""
    assert isinstance(rules, Glicko2RuleSet), rules
    return rules.glicko2


class Glicko2:
    """One close under a Glicko-2 rule set: its stages, and what each leaves for the next."""

    name: ClassVar[str] = "glicko2"
    entry_model: ClassVar[Any] = Glicko2Entry
    record_model: ClassVar[Any] = Glicko2CalcPlayer

    def __init__(self, close: Close) -> None:
        if close.adjustment is not None:
            raise ConfigError(
                "--adjust changes Elo ratings (spec §10): a Glicko-2 list has no such adjustment; "
                "close without it"
            )
        self.close = close
        self.params = parameters(close.rules)
        close.summary.floor = None  # Glicko-2 has no floor
        # player → (rating, deviation, volatility in the list's units or None, games_total, last_active,
        # version id, rated on the list in force)
        self.entries: dict[int, tuple[Any, ...]] = {}
        self.sides: dict[int, list[tuple[int, int, int, float]]] = {}  # player → (game, event, opponent, s)
        self.updates: dict[int, Glicko2Update] = {}
        self.start: dict[int, tuple[int, int, int]] = {}  # player → published (r, RD, σ) before the period
        self.notes: dict[int, str] = {}

    def read_inputs(self) -> None:
        """The list in force with its Glicko-2 figures, and each played game of the period."""
        close = self.close
        driver = close.driver
        for row in driver.rows(
            "SELECT e.player_id, e.rating, g.rating_x100, g.deviation_x100, g.volatility_x1e6, "
            "e.games_total, e.last_active, p.current_version_id "
            "FROM list_entry e JOIN player p ON p.id = e.player_id "
            "LEFT JOIN glicko2_entry g ON g.list_id = e.list_id AND g.player_id = e.player_id "
            "WHERE e.list_id = ?",
            (close.in_force.id,),
        ):
            self.entries[row[0]] = row[1:]
        games = driver.rows(
            "SELECT g.id, g.event_id, g.white_id, g.black_id, g.white_result, g.black_result FROM game g "
            "WHERE g.event_id IN (SELECT id FROM event WHERE period = ? AND rating_type = ? "
            f"AND is_current = TRUE AND id NOT IN ({EXCLUDED_SQL})) "
            "AND g.rated = TRUE AND g.black_id IS NOT NULL ORDER BY g.event_id, g.round, g.id",
            (str(close.period), close.rating_type),
        )
        for game_id, event_id, white, black, white_result, black_result in games:
            self.sides.setdefault(white, []).append((game_id, event_id, black, SCORE[white_result]))
            self.sides.setdefault(black, []).append((game_id, event_id, white, SCORE[black_result]))
        newcomers = sorted(set(self.sides) - set(self.entries))
        for chunk in chunks(newcomers, 500):
            condition, params = driver.among("id", chunk)
            for player_id, version_id in driver.rows(
                f"SELECT id, current_version_id FROM player WHERE {condition}", params
            ):
                self.entries[player_id] = (None, None, None, None, 0, None, version_id)

    def _before(self, player_id: int) -> tuple[int, int, int] | None:
        """The player's published (r × 100, RD × 100, σ × 10⁶) before the period; None: not rated."""
        rating, r100, d100, s1e6 = self.entries[player_id][:4]
        if r100 is not None:
            return (r100, d100, s1e6)
        if rating is None:
            return None
        p = published(Glicko2Rating(rating, self.params.initial_deviation, self.params.initial_volatility))
        self.notes[player_id] = calc_notes.GLICKO2_NO_DEVIATION % {
            "rating": rating,
            "deviation": f"{self.params.initial_deviation:g}",
            "volatility": f"{self.params.initial_volatility:g}",
        }
        return (p.rating_x100, p.deviation_x100, p.volatility_x1e6)

    # phi_star_capped is False since Step 6 follows the paper (issue 48); a lists' record closed before
    # keeps its True where φ* was capped at the initial deviation. The maximum deviation's clamp of RD′ is
    # the record's new_phi (Step 7, unclamped) against the published deviation (glicko2_entry).

    def rate_rated(self) -> None:
        """Every player with games (newcomers from Step 1), and every rated player without, widened."""
        close = self.close
        driver, list_id = close.driver, close.list_id
        newcomer = published(self.params.newcomer)
        for player_id in self.entries:
            before = self._before(player_id)
            if before is None and player_id in self.sides:
                before = (newcomer.rating_x100, newcomer.deviation_x100, newcomer.volatility_x1e6)
                self.notes[player_id] = calc_notes.GLICKO2_NEWCOMER
            if before is not None:
                self.start[player_id] = before
        close.say(f"rating {len(self.sides)} players, widening the deviation of the others")
        player_rows = driver.buffer("glicko2_calc_player", CALC_PLAYER_COLUMNS)
        game_rows = driver.buffer("glicko2_calc_game", CALC_GAME_COLUMNS)
        rated_events: set[int] = set()
        for player_id in sorted(self.start):
            r100, d100, s1e6 = self.start[player_id]
            player = Glicko2Rating(r100 / 100, d100 / 100, s1e6 / 1e6)
            sides = self.sides.get(player_id, [])
            games = []
            for _game, _event, opponent, score in sides:
                o100, od100, _os = self.start[opponent]
                games.append(Glicko2Game(o100 / 100, od100 / 100, score))
            u = update(player, games, self.params)
            self.updates[player_id] = u
            is_new = self.entries[player_id][0] is None and self.entries[player_id][1] is None
            player_rows.append(
                (list_id, player_id, len(games), is_new, r100, d100, s1e6, u.mu, u.phi, u.v, u.delta, u.sigma,
                 u.phi_star, False, u.new_phi, u.new_mu, u.iterations, self.notes.get(player_id))
            )  # fmt: skip
            for (game_id, event_id, opponent, score), step in zip(sides, u.games, strict=True):
                o100, od100, _os = self.start[opponent]
                rated_events.add(event_id)
                game_rows.append(
                    (list_id, player_id, game_id, event_id, opponent, o100, od100, step.g, step.e,
                     round(score * 100))
                )  # fmt: skip
            if len(game_rows) >= driver.BATCH:
                driver.flush()
        driver.flush()
        driver.buffer("calc_list_event", CALC_LIST_EVENT_COLUMNS)
        driver.add("calc_list_event", ((list_id, e, close.in_force.id, None) for e in sorted(rated_events)))
        driver.flush()

    def pool_unrated(self) -> None:
        """Nothing: Glicko-2 rates a newcomer from the first game (Step 1), there is no pool."""

    def write_list(self) -> None:
        """list_entry (the whole-point rating) and glicko2_entry (the published figures) for every player."""
        close = self.close
        driver, list_id, closed = close.driver, close.list_id, str(close.period)
        close.say("writing the new list")
        entry_rows = driver.buffer("list_entry", LIST_ENTRY_COLUMNS)
        glicko_rows = driver.buffer("glicko2_entry", ENTRY_COLUMNS)
        for player_id in sorted(self.entries):
            old, _r, _d, _s, games_total, last_active, version = self.entries[player_id]
            u = self.updates.get(player_id)
            games = len(self.sides.get(player_id, []))
            rating, deviation = None, None
            if u is not None:
                shown = published(u.after)
                rating, deviation = shown.whole_rating, shown.deviation_x100 / 100
                glicko_rows.append(
                    (list_id, player_id, shown.rating_x100, shown.deviation_x100, shown.volatility_x1e6)
                )
            change = rating - old if rating is not None and old is not None else None
            entry_rows.append(
                (list_id, player_id, rating, games, None, None, change, games_total + games, False, False,
                 closed if games else last_active, None, version)
            )  # fmt: skip
            if games or (old is None) != (rating is None):
                close.changes.append((player_id, old, rating, games))
                before = self.start.get(player_id) if old is not None else None  # a newcomer's is Step 1's
                close.deviations[player_id] = (None if before is None else before[1] / 100, deviation)
            if len(entry_rows) >= driver.BATCH:
                driver.flush()
        driver.flush()
        driver.drain()
        close.summary.players_on_list = len(self.entries)
        close.summary.notes += deviation_notes(self.updates.values(), self.params)

    # The reading side: a Glicko-2 list has glicko2_entry rows, its record glicko2_calc_player/_game.

    @classmethod
    def claims(cls, session: Session, list_id: int) -> bool:
        return (
            session.scalar(select(Glicko2Entry.list_id).where(Glicko2Entry.list_id == list_id).limit(1))
            is not None
        )

    @classmethod
    def record_counts(cls, session: Session, list_id: int) -> RecordCounts:
        """Every game in the record changed a rating (there is no pool); players rated: those with games."""
        games = session.scalar(
            select(func.count(distinct(Glicko2CalcGame.game_id))).where(Glicko2CalcGame.list_id == list_id)
        )
        players = session.scalar(
            select(func.count())
            .select_from(Glicko2CalcPlayer)
            .where(Glicko2CalcPlayer.list_id == list_id, Glicko2CalcPlayer.games > 0)
        )
        return RecordCounts(games or 0, games or 0, players or 0)

    @classmethod
    def event_games_rated(cls, session: Session, list_id: int, event_ids: Sequence[int]) -> dict[int, int]:
        return dict(
            session.execute(
                select(Glicko2CalcGame.event_id, func.count(distinct(Glicko2CalcGame.game_id)))
                .where(Glicko2CalcGame.list_id == list_id, Glicko2CalcGame.event_id.in_(event_ids))
                .group_by(Glicko2CalcGame.event_id)
            ).all()
        )

    @classmethod
    def deviations(cls, session: Session, list_id: int) -> dict[int, float]:
        return {
            player_id: d100 / 100
            for player_id, d100 in session.execute(
                select(Glicko2Entry.player_id, Glicko2Entry.deviation_x100).where(
                    Glicko2Entry.list_id == list_id
                )
            )
        }

    @classmethod
    def list_import(cls, session: Session, rating_type: str, period: Period) -> ListImport | None:
        """A list file of a type rated by Glicko-2 then: the Glicko-2 CSV list (services.glicko2_lists)."""
        return Glicko2ListImport() if glicko2_parameters(session, rating_type, period) is not None else None


class Glicko2ListImport:
    """A Glicko-2 CSV list (rating, deviation, volatility): a new list or a correction."""

    def new_list(
        self, session: Session, path: Path, *, list_date: dt.date, rating_type: str, replace: bool,
        reason: str | None, progress: Callable[[int], None] | None,
    ) -> ListImportSummary:  # fmt: skip
        return import_glicko2_list(
            session, path, list_date=list_date, rating_type=rating_type, replace=replace, reason=reason,
            progress=progress,
        )  # fmt: skip

    def corrected_list(
        self, session: Session, path: Path, *, rating_type: str, reason: str, list_date: dt.date | None,
        progress: Callable[[int], None] | None,
    ) -> ListImportSummary:  # fmt: skip
        # The file's rows with their figures, every other entry's rating, deviation and volatility kept
        # from the version it replaces.
        return update_glicko2_list(
            session, path, rating_type=rating_type, reason=reason, list_date=list_date, progress=progress
        )


def deviation_notes(updates: Iterable[Glicko2Update], params: Glicko2Parameters) -> list[str]:
    """What happened to the deviations of the period, in the close's words: widened (Step 6), clamped to
    the maximum after widening or after the period's games, lowered to it (listed above it)."""
    widened = clamped_idle = lowered = clamped_played = 0
    for u in updates:
        if u.played:
            clamped_played += u.clamped
        elif u.after.deviation < u.before.deviation:
            lowered += 1  # a deviation listed above the maximum (imported before it was refused)
        elif u.clamped:
            clamped_idle += 1
        elif u.after.deviation > u.before.deviation:
            widened += 1
    maximum = f"{params.maximum_deviation:g}" if params.maximum_deviation is not None else ""
    notes = []
    if widened:
        notes.append(f"{_players(widened)} without games: deviation widened (Glicko-2 Step 6)")
    if clamped_idle:
        notes.append(
            f"{_players(clamped_idle)} without games: deviation at the rule set's maximum {maximum} "
            "(it widens no further)"
        )
    if lowered:
        notes.append(
            f"{_players(lowered)} without games: deviation listed above the rule set's maximum {maximum}, "
            f"lowered to it"
        )
    if clamped_played:
        notes.append(
            f"{_players(clamped_played, 'player')}: the new deviation clamped to the rule set's maximum "
            f"{maximum}"
        )
    return notes


def _players(n: int, what: str = "rated player") -> str:
    return f"{n} {what}{'s' * (n != 1)}"
