"""Glicko (Glickman's first system, chess.com's) through the close's seam, its lists and its record read.

The stages `close_period` runs for a rule set of system "glicko" (ratingdb.services.systems.base). The
rules are ratingdb.rating.glicko; this module reads the list in force and the period's games, applies
them and writes the list (list_entry with the whole-point rating, glicko_entry with rating and deviation
to hundredths) and the calculation record (glicko_calc_player, glicko_calc_game); it reads a Glicko
list's figures back and imports a Glicko CSV list (the Glicko-2 CSV without the volatility column).
Must not import the CLI or the reports.

Readings taken (docs/guide/glicko.md says each):
- The rating period is the month closed. Every rated player's deviation grows by Step 1 once per period
  (t = 1): RD = min(√(RD² + c²), maximum), so a player idle for t periods reaches the paper's
  √(RD² + c²t) by the periods' lists, and the list publishes the grown deviation of an idle player.
- Every game of the period is rated against the opponent's rating and deviation at the onset of the
  period (after Step 1), as the paper's Step 2 reads, also for an event that started in an earlier period.
- A player not rated on the list in force starts as the rule set's newcomer (initial rating and
  deviation, no growth) and is rated from the first game; there is no pool. A rated entry of an imported
  list without Glicko figures (an Elo list taken as the starting list) starts at its rating with the
  initial deviation. An unrated player without games stays unrated.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from ratingdb import calc_notes
from ratingdb.errors import ConfigError, RatingDbError
from ratingdb.rating import Period, RulesError, RuleSet
from ratingdb.rating.glicko import (
    GlickoGame,
    GlickoParameters,
    GlickoRating,
    GlickoRuleSet,
    GlickoUpdate,
    PublishedGlicko,
    published,
    update,
)
from ratingdb.schema.models import GlickoCalcGame, GlickoCalcPlayer, GlickoEntry, RatingList
from ratingdb.services.bulk import Driver, chunks
from ratingdb.services.exclusions import EXCLUDED_SQL
from ratingdb.services.rows import CALC_LIST_EVENT_COLUMNS, LIST_ENTRY_COLUMNS
from ratingdb.services.rules import list_rule_set, rule_set_in_force
from ratingdb.services.systems.base import Close, ListImport, RecordCounts

if TYPE_CHECKING:
    from ratingdb.formats import ListRow
    from ratingdb.formats.glicko2_list import Glicko2Figures
    from ratingdb.services.list_import import ListImportSummary

SCORE: Final = {"1": 1.0, "=": 0.5, "0": 0.0}
ENTRY_COLUMNS: Final = ("list_id", "player_id", "rating_x100", "deviation_x100")
CALC_PLAYER_COLUMNS: Final = (
    "list_id", "player_id", "games", "newcomer", "rating_x100", "deviation_x100", "onset_deviation",
    "grown_to_maximum", "d2", "improvement", "new_rating", "new_deviation", "note",
)  # fmt: skip
CALC_GAME_COLUMNS: Final = (
    "list_id", "player_id", "game_id", "event_id", "opponent_id", "opponent_rating_x100",
    "opponent_deviation", "g", "e", "score_x100",
)  # fmt: skip


def parameters(rules: RuleSet) -> GlickoParameters | None:
    """The Glicko parameters of a rule set of system "glicko"; None for another system's."""
    return rules.glicko if isinstance(rules, GlickoRuleSet) else None


def type_parameters(session: Session, rating_type: str, period: Period) -> GlickoParameters | None:
    """The Glicko parameters of the rule set rating `rating_type` in `period`; None: not Glicko then."""
    try:
        return parameters(rule_set_in_force(session, rating_type, period).rules)
    except RulesError:
        return None


class Glicko:
    """One close under a Glicko rule set: its stages, and what each leaves for the next."""

    name: ClassVar[str] = "glicko"
    entry_model: ClassVar[Any] = GlickoEntry
    record_model: ClassVar[Any] = GlickoCalcPlayer

    def __init__(self, close: Close) -> None:
        if close.adjustment is not None:
            raise ConfigError(
                "--adjust changes Elo ratings (spec §10): a Glicko list has no such adjustment; "
                "close without it"
            )
        params = parameters(close.rules)
        assert params is not None, close.rules
        self.close = close
        self.params = params
        close.summary.floor = None  # Glicko has no floor
        # player → (rating, r × 100, RD × 100 or None, games_total, last_active, version id)
        self.entries: dict[int, tuple[Any, ...]] = {}
        self.sides: dict[int, list[tuple[int, int, int, float]]] = {}  # player → (game, event, opponent, s)
        self.start: dict[int, PublishedGlicko] = {}  # player → published figures before the period
        self.onset: dict[int, GlickoUpdate] = {}  # player → Step 1 (its `onset` figures)
        self.updates: dict[int, GlickoUpdate] = {}
        self.notes: dict[int, str] = {}

    def read_inputs(self) -> None:
        """The list in force with its Glicko figures, and each played game of the period."""
        close = self.close
        driver = close.driver
        for row in driver.rows(
            "SELECT e.player_id, e.rating, g.rating_x100, g.deviation_x100, e.games_total, e.last_active, "
            "p.current_version_id FROM list_entry e JOIN player p ON p.id = e.player_id "
            "LEFT JOIN glicko_entry g ON g.list_id = e.list_id AND g.player_id = e.player_id "
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
                self.entries[player_id] = (None, None, None, 0, None, version_id)

    def _before(self, player_id: int) -> tuple[PublishedGlicko, bool] | None:
        """The player's published figures before the period and whether Step 1 grows them (a newcomer's
        do not); None: unrated and without games."""
        rating, r100, d100 = self.entries[player_id][:3]
        if r100 is not None:
            return PublishedGlicko(r100, d100), True
        if rating is not None:
            self.notes[player_id] = calc_notes.GLICKO_NO_DEVIATION % {
                "rating": rating,
                "deviation": f"{self.params.initial_deviation:g}",
            }
            return published(GlickoRating(rating, self.params.initial_deviation)), True
        if player_id in self.sides:
            self.notes[player_id] = calc_notes.GLICKO2_NEWCOMER
            return published(self.params.newcomer), False
        return None

    def rate_rated(self) -> None:
        """Step 1 for everyone rated (the deviation grows), Step 2 for everyone with games."""
        close = self.close
        driver, list_id = close.driver, close.list_id
        grows: dict[int, bool] = {}
        for player_id in self.entries:
            before = self._before(player_id)
            if before is not None:
                self.start[player_id], grows[player_id] = before
        for player_id, start in self.start.items():
            # Step 1 with t = 1 (one period since the list in force); a newcomer starts at the onset.
            t = 1 if grows[player_id] else 0
            self.onset[player_id] = update(start.rating, [], self.params, periods=t)
        close.say(f"rating {len(self.sides)} players, growing the deviation of the others")
        player_rows = driver.buffer("glicko_calc_player", CALC_PLAYER_COLUMNS)
        game_rows = driver.buffer("glicko_calc_game", CALC_GAME_COLUMNS)
        rated_events: set[int] = set()
        for player_id in sorted(self.start):
            start = self.start[player_id]
            sides = self.sides.get(player_id, [])
            games = [
                GlickoGame(self.onset[opponent].onset.rating, self.onset[opponent].onset.deviation, score)
                for _game, _event, opponent, score in sides
            ]
            step1 = self.onset[player_id]
            u = update(step1.onset, games, self.params, periods=0)  # Step 2 from the onset
            self.updates[player_id] = u
            is_new = not grows[player_id]
            player_rows.append(
                (list_id, player_id, len(games), is_new, start.rating_x100, start.deviation_x100,
                 step1.onset.deviation, step1.grown_to_maximum, u.d2, u.improvement, u.after.rating,
                 u.after.deviation, self.notes.get(player_id))
            )  # fmt: skip
            for (game_id, event_id, opponent, score), step in zip(sides, u.games, strict=True):
                rated_events.add(event_id)
                game_rows.append(
                    (list_id, player_id, game_id, event_id, opponent, self.start[opponent].rating_x100,
                     step.opponent_deviation, step.g, step.e, round(score * 100))
                )  # fmt: skip
            if len(game_rows) >= driver.BATCH:
                driver.flush()
        driver.flush()
        driver.buffer("calc_list_event", CALC_LIST_EVENT_COLUMNS)
        driver.add("calc_list_event", ((list_id, e, close.in_force.id, None) for e in sorted(rated_events)))
        driver.flush()

    def pool_unrated(self) -> None:
        """Nothing: Glicko rates a newcomer from the first game (Step 1's 1500 / 350), there is no pool."""

    def write_list(self) -> None:
        """list_entry (the whole-point rating) and glicko_entry (the published figures) for every player."""
        close = self.close
        driver, list_id, closed = close.driver, close.list_id, str(close.period)
        close.say("writing the new list")
        entry_rows = driver.buffer("list_entry", LIST_ENTRY_COLUMNS)
        glicko_rows = driver.buffer("glicko_entry", ENTRY_COLUMNS)
        grown = at_maximum = 0
        for player_id in sorted(self.entries):
            old, _r, _d, games_total, last_active, version = self.entries[player_id]
            u = self.updates.get(player_id)
            games = len(self.sides.get(player_id, []))
            rating, deviation = None, None
            if u is not None:
                shown = published(u.after)
                rating, deviation = shown.whole_rating, shown.deviation_x100 / 100
                glicko_rows.append((list_id, player_id, shown.rating_x100, shown.deviation_x100))
                if not games:  # Step 1 only: grown by c, or reached (held at) the maximum
                    if self.onset[player_id].grown_to_maximum:
                        at_maximum += 1
                    elif shown.deviation_x100 > self.start[player_id].deviation_x100:
                        grown += 1
            change = rating - old if rating is not None and old is not None else None
            entry_rows.append(
                (list_id, player_id, rating, games, None, None, change, games_total + games, False, False,
                 closed if games else last_active, None, version)
            )  # fmt: skip
            if games or (old is None) != (rating is None):
                close.changes.append((player_id, old, rating, games))
                before_rd = self.start[player_id].deviation_x100 / 100 if old is not None else None
                close.deviations[player_id] = (before_rd, deviation)
            if len(entry_rows) >= driver.BATCH:
                driver.flush()
        driver.flush()
        driver.drain()
        close.summary.players_on_list = len(self.entries)
        maximum = f"{self.params.maximum_deviation:g}"
        if grown:
            close.summary.notes.append(
                f"{_players(grown)} without games: deviation grown by c (Glicko Step 1)"
            )
        if at_maximum:
            close.summary.notes.append(
                f"{_players(at_maximum)} without games: deviation at the rule set's maximum {maximum} "
                "(it grows no further)"
            )

    # The reading side: a Glicko list has glicko_entry rows, its record glicko_calc_player/_game.

    @classmethod
    def claims(cls, session: Session, list_id: int) -> bool:
        found = session.scalar(select(GlickoEntry.list_id).where(GlickoEntry.list_id == list_id).limit(1))
        return found is not None

    @classmethod
    def record_counts(cls, session: Session, list_id: int) -> RecordCounts:
        """Every game in the record changed a rating (there is no pool); players rated: those with games."""
        games = session.scalar(
            select(func.count(distinct(GlickoCalcGame.game_id))).where(GlickoCalcGame.list_id == list_id)
        )
        players = session.scalar(
            select(func.count())
            .select_from(GlickoCalcPlayer)
            .where(GlickoCalcPlayer.list_id == list_id, GlickoCalcPlayer.games > 0)
        )
        return RecordCounts(games or 0, games or 0, players or 0)

    @classmethod
    def event_games_rated(cls, session: Session, list_id: int, event_ids: Sequence[int]) -> dict[int, int]:
        return dict(
            session.execute(
                select(GlickoCalcGame.event_id, func.count(distinct(GlickoCalcGame.game_id)))
                .where(GlickoCalcGame.list_id == list_id, GlickoCalcGame.event_id.in_(event_ids))
                .group_by(GlickoCalcGame.event_id)
            ).all()
        )

    @classmethod
    def deviations(cls, session: Session, list_id: int) -> dict[int, float]:
        return {
            player_id: d100 / 100
            for player_id, d100 in session.execute(
                select(GlickoEntry.player_id, GlickoEntry.deviation_x100).where(
                    GlickoEntry.list_id == list_id
                )
            )
        }

    @classmethod
    def list_import(cls, session: Session, rating_type: str, period: Period) -> ListImport | None:
        """A list file of a type rated by Glicko then: the Glicko CSV list (rating and deviation)."""
        params = type_parameters(session, rating_type, period)
        if params is None:
            return None
        rules = rule_set_in_force(session, rating_type, period).rules
        return GlickoListImport(params.maximum_deviation, rules.name)


def _players(n: int) -> str:
    return f"{n} rated player{'s' * (n != 1)}"


def _key(fide_id: int | None, national_id: str | None) -> tuple[str, object]:
    return ("fide", fide_id) if fide_id is not None else ("national", national_id)


@dataclass(frozen=True)
class GlickoListImport:
    """A Glicko CSV list (rating, deviation): a new list. A deviation above the rule set's maximum is
    refused with its row (the close would otherwise lower it)."""

    maximum: float  # the rule set's maximum deviation
    rules: str  # the rule set's name

    def new_list(
        self, session: Session, path: Path, *, list_date: dt.date, rating_type: str, replace: bool,
        reason: str | None, progress: Callable[[int], None] | None,
    ) -> ListImportSummary:  # fmt: skip
        # The reader and the list import are loaded here, as services.glicko2_lists loads them: `list` and
        # the other reads, which loop over every system, need neither (tests/cli/test_startup.py).
        from ratingdb.formats.glicko2_list import DeviationLimit, read_deviation_list
        from ratingdb.services.list_import import import_list

        figures: dict[tuple[str, object], Glicko2Figures] = {}
        limit = DeviationLimit(self.maximum, "maximum", self.rules)

        def rows() -> Iterator[ListRow]:
            read = read_deviation_list(path, rating_type, limit, volatility=False, system="Glicko")
            for row, found in read:
                if found is not None:
                    figures[_key(row.fide_id, row.national_id)] = found
                yield row

        def write_figures(lists: dict[str, RatingList]) -> None:
            list_id = lists[rating_type].id
            driver = Driver(session)
            try:
                written = []
                for player_id, fide_id, national_id in driver.rows(
                    "SELECT e.player_id, p.fide_id, p.national_id FROM list_entry e "
                    "JOIN player p ON p.id = e.player_id WHERE e.list_id = ? AND e.rating IS NOT NULL",
                    (list_id,),
                ):
                    found = figures.get(("fide", fide_id)) if fide_id is not None else None
                    if found is None:
                        found = figures.get(("national", national_id))
                    if found is None:
                        raise RatingDbError(f"no Glicko figures for player {player_id} of the imported list")
                    written.append((list_id, player_id, found.rating_x100, found.deviation_x100))
                if len(written) != len(figures):
                    raise RatingDbError(
                        f"{len(figures)} rated rows in {path.name}, {len(written)} rated entries"
                    )
                driver.write("glicko_entry", ENTRY_COLUMNS, sorted(written))
            finally:
                driver.restore()

        return import_list(
            session, rows(), list_date=list_date, rating_types=[rating_type], source=path.name,
            replace=replace, reason=reason, progress=progress, before_seal=write_figures,
        )  # fmt: skip

    def corrected_list(
        self, session: Session, path: Path, *, rating_type: str, reason: str, list_date: dt.date | None,
        progress: Callable[[int], None] | None,
    ) -> ListImportSummary:  # fmt: skip
        raise ConfigError(
            "a Glicko list is not corrected by --update yet: import the corrected list as a new list "
            "with --replace, before any close rates from it"
        )


# A Glicko list's figures as the pages and the API read them.


@dataclass(frozen=True)
class GlickoShown:
    """A player's figures on a Glicko list, as published, and whether the rating is provisional."""

    figures: PublishedGlicko
    provisional: bool
    change_x100: int | None = None  # hundredths since the list the close rated from; None: a newcomer

    @property
    def rating(self) -> float:
        return self.figures.rating_x100 / 100

    @property
    def deviation(self) -> float:
        return self.figures.deviation_x100 / 100


def list_parameters(session: Session, lst: RatingList) -> GlickoParameters | None:
    """The Glicko parameters a list is shown with (its own rule set's, else its type's); None for a list
    that is not a Glicko one."""
    if not Glicko.claims(session, lst.id):
        return None
    stored = list_rule_set(session, lst.id)
    if stored is not None:
        from ratingdb.rating import parse_rule_set

        return parameters(parse_rule_set(stored.content, source=stored.name))
    return type_parameters(session, lst.rating_type, Period.of(lst.list_date))


def glicko_figures(
    session: Session, list_id: int, params: GlickoParameters, player_id: int | None = None
) -> dict[int, GlickoShown]:
    """Player id → the Glicko figures of a list (of one player if given; rated players only)."""
    before = GlickoCalcPlayer
    query = (
        select(GlickoEntry, before.rating_x100, before.newcomer)
        .outerjoin(
            before, (before.list_id == GlickoEntry.list_id) & (before.player_id == GlickoEntry.player_id)
        )
        .where(GlickoEntry.list_id == list_id)
    )
    if player_id is not None:
        query = query.where(GlickoEntry.player_id == player_id)
    return {
        row.player_id: GlickoShown(
            PublishedGlicko(row.rating_x100, row.deviation_x100),
            params.is_provisional(row.deviation_x100 / 100),
            None if was_x100 is None or newcomer else row.rating_x100 - was_x100,
        )
        for row, was_x100, newcomer in session.execute(query)
    }


def player_glicko(session: Session, player_id: int) -> dict[tuple[str, dt.date], GlickoShown]:
    """(rating type, list date) → the player's Glicko figures on each current Glicko list."""
    found: dict[tuple[str, dt.date], GlickoShown] = {}
    for lst in session.scalars(
        select(RatingList)
        .join(GlickoEntry, GlickoEntry.list_id == RatingList.id)
        .where(GlickoEntry.player_id == player_id, RatingList.is_current.is_(True))
    ):
        params = list_parameters(session, lst)
        if params is not None:
            for shown in glicko_figures(session, lst.id, params, player_id).values():
                found[(lst.rating_type, lst.list_date)] = shown
    return found
