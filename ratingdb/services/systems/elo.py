"""FIDE's Elo through the close's seam: rate the rated, pool the unrated, write the list (§7–§9).

The stages `close_period` runs for a rule set of system "elo" (ratingdb.services.systems.base). All rules
come from ratingdb.rating; this module gathers inputs in bulk, applies them and writes the results in
bulk. Must not import the CLI, the formats or the reports.

Scale (issue 8): a close of FIDE's size rates a million players. Inputs are read as plain driver
tuples, the common case (a rated player's change) runs through `BatchRater`, which gives the same
figures as `ratingdb.rating.rating_change` with a lookup table instead of per-game objects, and rows are
written as plain tuples (the shapes of services/rows.py) with executemany (SQLite) or COPY (PostgreSQL)
in batches, so memory stays bounded by the inputs.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, ClassVar, NamedTuple

from sqlalchemy import case, distinct, func, or_, select
from sqlalchemy.orm import Session

from ratingdb import calc_notes as notes
from ratingdb.engines.base import column_list
from ratingdb.errors import UnpublishableRating
from ratingdb.rating import (
    BatchRater,
    FlagCache,
    KCache,
    Period,
    PoolGame,
    RuleSet,
    adjust_rating,
    below_floor,
    excluded_by_difference,
    initial_rating,
    round_half_away_from_zero,
)
from ratingdb.rating.batch import PoolSide, Side
from ratingdb.rating.rulefile import RATING_MAX
from ratingdb.schema.models import CalcGame, CalcPlayer
from ratingdb.services.bulk import Driver, chunks
from ratingdb.services.exclusions import EXCLUDED_SQL
from ratingdb.services.rows import (
    CALC_GAME_COLUMNS,
    CALC_LIST_EVENT_COLUMNS,
    CALC_PLAYER_COLUMNS,
    LIST_ENTRY_COLUMNS,
    EntryInForce,
    positions,
)
from ratingdb.services.systems.base import Change, Close, CloseCounts, EventInfo, ListImport, RecordCounts

SCORE = {"1": 100, "=": 50, "0": 0}

# Positions in an EntryInForce row, read as a plain tuple on the hot paths.
(_PID, _RATING, _K, _GAMES_TOTAL, _R2400, _R2300, _LAST_ACTIVE, _POOL_FROM, _BIRTH_YEAR, _SEX,
 _VERSION) = positions(
    EntryInForce, "player_id", "rating", "k", "games_total", "reached_2400", "reached_2300", "last_active",
    "pool_from", "birth_year", "sex", "version_id",
)  # fmt: skip


class Elo:
    """One close under an Elo rule set: its stages, and what each leaves for the next."""

    name: ClassVar[str] = "elo"
    entry_model: ClassVar[Any] = None
    record_model: ClassVar[Any] = None

    def __init__(self, close: Close) -> None:
        self.close = close
        self.entries: dict[int, tuple[Any, ...]] = {}  # player → EntryInForce (a plain tuple)
        self.sides = _Sides({}, {}, {}, {})
        self.history: dict[int, list[PoolGame]] = {}
        # player → (rating, games, pool_from) on the new list, for who played
        self.new_state: dict[int, tuple[int | None, int, str | None]] = {}
        # §8.3.3 counts rated games and the games that produced an initial rating: a pool player's games
        # join the total only when they produce one (not the disregarded or dropped ones, not while waiting).
        self.toward_total: dict[int, int] = {}
        self.rated_events: set[int] = set()  # events with a game in the record: calc_list_event
        # What the summary counts (services/counts.py), kept as the rows are made: game → event of every
        # game in the record, the games that changed a rating, the players rated.
        self.recorded: dict[int, int] = {}
        self.changing: set[int] = set()
        self.players_rated = 0

    def read_inputs(self) -> None:
        """The list in force, each played game seen from both sides, blank entries for newcomers."""
        close = self.close
        driver = close.driver
        self.entries = _load_entries(driver, close.in_force.id)
        self.sides = _rated_sides(
            driver, close.period, close.rating_type, close.events, self.entries, close.in_force.id,
            close.rules,
        )  # fmt: skip
        _add_newcomers(driver, self.entries, set(self.sides.pool) | set(self.sides.substitutes))

    def rate_rated(self) -> None:
        """Each rated player's change by BatchRater (§8.3), written to calc_player and calc_game."""
        close = self.close
        driver, rules, list_id, rating_type = close.driver, close.rules, close.list_id, close.rating_type
        # Everything the rest reads is read now: from here on a writer thread writes while the rules run.
        self.history = _pool_history(driver, rating_type, close.period, sorted(self.sides.pool))
        rated_sides, substitutes, entries = self.sides.rated, self.sides.substitutes, self.entries
        new_state, rated_events, recorded = self.new_state, self.rated_events, self.recorded
        close.say(f"rating {len(rated_sides)} rated players")
        player_rows = driver.buffer("calc_player", CALC_PLAYER_COLUMNS)
        driver.buffer("calc_list_event", CALC_LIST_EVENT_COLUMNS)
        game_rows = driver.buffer("calc_game", CALC_GAME_COLUMNS)  # the longest: checked for a full batch
        rater = BatchRater(rules)
        next_period = str(close.period.shift(1))
        k_on = KCache(close.in_force.list_date, rules)
        for player_id in sorted(rated_sides):
            sides = rated_sides[player_id]
            entry = entries[player_id]
            rating = entry[_RATING]
            substitute_note = None
            if rating is None:
                rating = substitutes[player_id]
                substitute_note = notes.SUBSTITUTE % {"type": rating_type, "rating": rating}
            k_base = entry[_K]
            if k_base is None:
                k_base = k_on(entry[_R2400], entry[_R2300], entry[_BIRTH_YEAR], entry[_GAMES_TOTAL])
            result = rater.rate(rating, k_base, sides)
            new_rating: int | None = result.new_rating
            pool_from = entry[_POOL_FROM]
            note = None
            if below_floor(result.new_rating, rules.floor):
                if rules.below_floor == "floor":
                    new_rating = rules.floor
                    note = notes.BELOW_FLOOR_KEPT % {"rating": result.new_rating, "floor": rules.floor}
                else:
                    new_rating, pool_from = None, next_period
                    note = notes.BELOW_FLOOR_UNRATED % {"rating": result.new_rating, "floor": rules.floor}
            if substitute_note:
                note = substitute_note if note is None else f"{substitute_note}; {note}"
            new_state[player_id] = (new_rating, result.n, pool_from)
            k_used = result.k
            player_rows.append(  # a CalcPlayerRow
                (list_id, player_id, "change", rating, k_base, k_used, result.n, result.score, result.sum_dr,
                 result.k_sum_dr, result.change, None, None, None, result.new_rating, note)
            )  # fmt: skip
            rated_events.update(e[0] for e in result.events)
            for (game_id, event_id, opponent_id, own, opponent, score), d, pd in zip(
                sides, result.ds, result.pds, strict=True
            ):
                game_rows.append(  # a CalcGameRow
                    (list_id, player_id, game_id, event_id, "rated", opponent_id, own, opponent, d, pd, score)
                )
                recorded[game_id] = event_id
            if len(game_rows) >= driver.BATCH:
                driver.flush()
        self.changing = set(recorded)  # a rated player's every game changes a rating
        self.players_rated = len(rated_sides)
        self.sides = self.sides._replace(rated={})

    def pool_unrated(self) -> None:
        """Each unrated player's pool (§8.2): a first rating, or the games kept toward one."""
        close = self.close
        driver, rules, list_id, period = close.driver, close.rules, close.list_id, close.period
        events = close.events
        pool_sides, entries, history = self.sides.pool, self.entries, self.history
        new_state, toward_total, rated_events = self.new_state, self.toward_total, self.rated_events
        recorded, changing = self.recorded, self.changing
        player_rows = driver.pending["calc_player"][1]
        game_rows = driver.pending["calc_game"][1]
        close.say(f"pooling results of {len(pool_sides)} unrated players")
        for player_id in sorted(pool_sides):
            results = pool_sides[player_id]
            entry = entries[player_id]
            pooled_now = [
                PoolGame(opponent, score, period, event_id, (events[event_id].start_date, event_id))
                for _game, event_id, _opponent, _own, opponent, score in results
            ]
            earlier = [
                g
                for g in history.get(player_id, [])
                if entry[_POOL_FROM] is None or str(g.period) >= entry[_POOL_FROM]
            ]
            # §8.2.1 judges the player's first event; after a drop below the floor the pool starts again
            # without it (a Reading, docs/rules).
            pooled = initial_rating(
                earlier + pooled_now,
                period,
                first_event_rule=entry[_POOL_FROM] is None,
                method=rules.initial,
                floor=rules.floor,
            )
            rated = pooled.status == "rated"
            new_state[player_id] = (pooled.rating if rated else None, len(results), entry[_POOL_FROM])
            toward_total[player_id] = pooled.n if rated else 0
            note = {
                "rated": notes.POOL_RATED % {"n": pooled.n},
                "too_few_games": notes.POOL_TOO_FEW % {"n": pooled.n, "needed": pooled.games_needed},
                "below_floor": notes.POOL_BELOW_FLOOR
                % {"rating": _whole(pooled.unrounded), "floor": rules.floor},
            }[pooled.status]
            if pooled.dropped_first_event:
                note += "; " + notes.FIRST_EVENT_ZERO
            if aged := pooled.dropped_old_games:
                aged_note = notes.OLD_GAMES_DROPPED if aged > 1 else notes.OLD_GAME_DROPPED
                note += "; " + aged_note % {"n": aged, "months": rules.initial.window_months}
            player_rows.append(  # a CalcPlayerRow
                (list_id, player_id, "initial" if rated else "pool", None, None, None, pooled.n,
                 pooled.wins_x100, None, None, None, pooled.opponent_sum, pooled.p, pooled.dp, pooled.rating,
                 note)
            )  # fmt: skip
            for game_id, event_id, opponent_id, _own, opponent, score in results:
                rated_events.add(event_id)
                game_rows.append(  # a CalcGameRow
                    (list_id, player_id, game_id, event_id, "pool", opponent_id, None, opponent, None, None,
                     score)
                )  # fmt: skip
                recorded[game_id] = event_id
            if rated:  # a first rating's games change a rating too
                changing.update(result[0] for result in results)
            if len(game_rows) >= driver.BATCH:
                driver.flush()
        driver.add(
            "calc_list_event",
            ((list_id, e, events[e].ratings_list_id, events[e].note) for e in sorted(rated_events)),
        )
        driver.flush()
        self.sides = self.sides._replace(pool={})

    def write_list(self) -> None:
        """Every entry of the new list: the new state of who played, K and flag (§8.3.3, §9) for all."""
        close = self.close
        driver, list_id, adjustment, summary = close.driver, close.list_id, close.adjustment, close.summary
        entries, new_state, toward_total = self.entries, self.new_state, self.toward_total
        close.say("writing the new list")
        k_new = KCache(close.list_date, close.rules_of_new_list)
        entry_rows = driver.buffer("list_entry", LIST_ENTRY_COLUMNS)
        flag_on = FlagCache(close.period)
        closed = str(close.period)
        changes: list[Change] = close.changes
        newly_rated = 0
        # A player without games this period keeps the entry of the list in force with a new K and flag:
        # the database copies those rows (most of a FIDE-size list) with K and flag looked up by the few
        # distinct inputs the rules see, computed here. Not when an adjustment changes ratings, and not for
        # an entry whose reached-2400/2300 flags its rating contradicts (an imported list's): both below.
        unchanged = _UnchangedEntries(k_new, flag_on) if adjustment is None else None
        for player_id in sorted(entries):
            entry = entries[player_id]
            old = entry[_RATING]
            state = new_state.get(player_id)
            if state is None and unchanged is not None and unchanged.take(entry):
                continue
            rating, games, pool_from = state if state is not None else (old, 0, entry[_POOL_FROM])
            if adjustment is not None and rating is not None:
                adjusted = adjust_rating(rating, adjustment)
                summary.adjusted += adjusted != rating
                rating = adjusted
            if rating is not None and not 1 <= rating <= RATING_MAX:
                # The list's CHECK would refuse it with a driver error: a rule set whose K, floor or
                # adjustment allows such a rating (K 1000 at 3990) is to be corrected; nothing is published.
                raise UnpublishableRating(
                    f"the close computed a rating of {rating} for player {player_id}, outside the "
                    f"1–{RATING_MAX} a list holds (rule set {close.rules.name}) — correct the rule set's K "
                    "or floor; nothing was published"
                )
            games_total = entry[_GAMES_TOTAL] + toward_total.get(player_id, games)
            reached_2400 = bool(entry[_R2400] or (rating is not None and rating >= 2400))
            reached_2300 = bool(entry[_R2300] or (rating is not None and rating >= 2300))
            last_active = closed if games > 0 else entry[_LAST_ACTIVE]
            k: int | None = None
            flag: str | None = None
            if rating is not None:
                k = k_new(reached_2400, reached_2300, entry[_BIRTH_YEAR], games_total)
                flag = flag_on(last_active, entry[_SEX] == "F")
            entry_rows.append(  # a ListEntryRow
                (list_id, player_id, rating, games, k, flag,
                 rating - old if rating is not None and old is not None else None, games_total, reached_2400,
                 reached_2300, last_active, pool_from, entry[_VERSION])
            )  # fmt: skip
            if state is not None:
                changes.append((player_id, old, rating, games))
                newly_rated += games > 0 and rating is not None and old is None
            if len(entry_rows) >= driver.BATCH:
                driver.flush()
        driver.flush()
        if unchanged is not None:
            unchanged.copy(driver, close.in_force.id, list_id)
        driver.drain()
        summary.players_on_list = len(entries)
        self._count(newly_rated)

    def _count(self, newly_rated: int) -> None:
        """The summary's figures from what the close wrote, equal to close_counts' and event_counts' reading
        of the record (tests/integration/test_close_batch.py holds them equal)."""
        close, played = self.close, self.sides.played
        in_record: dict[int, int] = dict.fromkeys(close.events, 0)
        for event_id in self.recorded.values():
            in_record[event_id] += 1
        close.counts = CloseCounts(
            games_played=sum(played.values()),
            games_rated=len(self.recorded),
            games_changing_a_rating=len(self.changing),
            players_rated=self.players_rated,
            newly_rated=newly_rated,
        )
        close.event_figures = {e: (played.get(e, 0), in_record[e]) for e in close.events}

    # The reading side: an Elo list is its entries, its record calc_player and calc_game.

    @classmethod
    def claims(cls, session: Session, list_id: int) -> bool:
        return False  # the default: every list no other system claims

    @classmethod
    def record_counts(cls, session: Session, list_id: int) -> RecordCounts:
        """Rated games (a change or a pool toward a first rating), the games in a change or in a first
        rating published, and the players whose rating changed: one pass over calc_game, one over
        calc_player (the costliest of the close's counts)."""
        first_ratings = select(CalcPlayer.player_id).where(
            CalcPlayer.list_id == list_id, CalcPlayer.method == "initial"
        )
        changing_game = case(
            (or_(CalcGame.kind == "rated", CalcGame.player_id.in_(first_ratings)), CalcGame.game_id)
        )
        games, changing = session.execute(
            select(func.count(distinct(CalcGame.game_id)), func.count(distinct(changing_game))).where(
                CalcGame.list_id == list_id
            )
        ).one()
        players = session.scalar(
            select(func.count())
            .select_from(CalcPlayer)
            .where(CalcPlayer.list_id == list_id, CalcPlayer.method == "change")
        )
        return RecordCounts(games or 0, changing or 0, players or 0)

    @classmethod
    def event_games_rated(cls, session: Session, list_id: int, event_ids: Sequence[int]) -> dict[int, int]:
        return dict(
            session.execute(
                select(CalcGame.event_id, func.count(distinct(CalcGame.game_id)))
                .where(CalcGame.list_id == list_id, CalcGame.event_id.in_(event_ids))
                .group_by(CalcGame.event_id)
            ).all()
        )

    @classmethod
    def deviations(cls, session: Session, list_id: int) -> dict[int, float]:
        return {}  # an Elo rating has no deviation

    @classmethod
    def list_import(cls, session: Session, rating_type: str, period: Period) -> ListImport | None:
        return None  # an Elo list is any list file: the shared importer reads it


class _UnchangedEntries:
    """The entries of players without games this period, copied from the list in force by the database.

    `take` accepts an entry (and notes the inputs of its K and flag) when the copy gives what the
    close's own loop would write: the same rating, no games, games total, reached flags, last active
    period, pool start and the player's current version, with K and flag from `k_on` and
    `activity_flag` for its inputs. `copy` writes them all with one INSERT … SELECT.
    """

    def __init__(self, k_on: KCache, flag_on: FlagCache) -> None:
        self.k_on = k_on
        self.flag_on = flag_on
        self.k_keys: set[tuple[bool, bool, int | None, int]] = set()
        self.flag_keys: set[tuple[str | None, bool]] = set()
        self.count = 0

    def take(self, entry: tuple[Any, ...]) -> bool:
        rating = entry[_RATING]
        if rating is not None:
            r2400, r2300 = bool(entry[_R2400]), bool(entry[_R2300])
            if (rating >= 2400 and not r2400) or (rating >= 2300 and not r2300):
                return False  # the loop sets the flag the rating has earned
            self.k_keys.add((r2400, r2300, entry[_BIRTH_YEAR], min(entry[_GAMES_TOTAL], self.k_on.games_cap)))
            self.flag_keys.add((entry[_LAST_ACTIVE], entry[_SEX] == "F"))
        self.count += 1
        return True

    def copy(self, driver: Driver, in_force_id: int, list_id: int) -> None:
        cap = int(self.k_on.games_cap)
        temporary = "TEMPORARY TABLE"
        for name, columns in (
            ("ratingdb_close_k", "r2400 BOOLEAN, r2300 BOOLEAN, birth_year INTEGER, games INTEGER, "
             "k INTEGER, PRIMARY KEY (r2400, r2300, birth_year, games)"),
            ("ratingdb_close_flag", "last_active VARCHAR(7), female INTEGER, flag VARCHAR(2), "
             "PRIMARY KEY (last_active, female)"),
        ):  # fmt: skip
            driver.execute(driver.engine.drop_temporary_table(name))
            driver.execute(f"CREATE {temporary} {name} ({columns})")
        driver.write(
            "ratingdb_close_k",
            ("r2400", "r2300", "birth_year", "games", "k"),
            [(*key[:2], -1 if key[2] is None else key[2], key[3], self.k_on(*key)) for key in self.k_keys],
        )
        driver.write(
            "ratingdb_close_flag",
            ("last_active", "female", "flag"),
            [(key[0] or "", int(key[1]), self.flag_on(*key)) for key in self.flag_keys],
        )
        rated = "CASE WHEN e.rating IS NULL THEN NULL ELSE {} END"
        before, after = driver.engine.hash_joins()
        for statement in before:
            driver.execute(statement)
        copied = driver.execute(
            f"INSERT INTO list_entry ({column_list(LIST_ENTRY_COLUMNS)}) "
            f"SELECT ?, e.player_id, e.rating, 0, {rated.format('kk.k')}, {rated.format('ff.flag')}, "
            f"{rated.format('0')}, e.games_total, e.reached_2400, e.reached_2300, e.last_active, "
            "e.pool_from, p.current_version_id "
            "FROM list_entry e JOIN player p ON p.id = e.player_id "
            "LEFT JOIN ratingdb_close_k kk ON kk.r2400 = e.reached_2400 AND kk.r2300 = e.reached_2300 "
            "AND kk.birth_year = COALESCE(p.birth_year, -1) "
            f"AND kk.games = CASE WHEN e.games_total < {cap} THEN e.games_total ELSE {cap} END "
            "LEFT JOIN ratingdb_close_flag ff ON ff.last_active = COALESCE(e.last_active, '') "
            "AND ff.female = CASE WHEN p.sex = 'F' THEN 1 ELSE 0 END "
            "WHERE e.list_id = ? "
            "AND NOT EXISTS (SELECT 1 FROM list_entry n WHERE n.list_id = ? AND n.player_id = e.player_id) "
            # In player order: SQLite then reads the list in force through its primary key, not the
            # (list, rating) index, and inserts in key order (a third less of the copy's time at `large`).
            "ORDER BY e.player_id",
            (list_id, in_force_id, list_id),
        )
        for statement in after:
            driver.execute(statement)
        for name in ("ratingdb_close_k", "ratingdb_close_flag"):
            driver.execute(driver.engine.drop_temporary_table(name))
        if copied != self.count:
            raise RuntimeError(
                f"the close copied {copied} unchanged entries of the list in force, expected {self.count}"
            )


def _whole(value: Fraction | None) -> int | None:
    return None if value is None else round_half_away_from_zero(value.numerator, value.denominator)


def _load_entries(driver: Driver, list_id: int) -> dict[int, tuple[Any, ...]]:
    """The list in force, one EntryInForce per player (as a plain tuple, read by the _PID … _VERSION
    positions), with the player's facts as they are now: the new list shows each player's current
    version of their details."""
    rows = driver.rows(
        "SELECT e.player_id, e.rating, e.k, e.games_total, e.reached_2400, e.reached_2300, e.last_active, "
        "e.pool_from, p.birth_year, p.sex, p.current_version_id FROM list_entry e "
        "JOIN player p ON p.id = e.player_id "
        # In player order: SQLite then reads the entries through the primary key, in the order they were
        # written, not through the (list, rating) index, one row at a time across the table (half the time).
        "WHERE e.list_id = ? ORDER BY e.player_id",
        (list_id,),
    )
    return {row[_PID]: row for row in rows}


def _add_newcomers(driver: Driver, entries: dict[int, tuple[Any, ...]], players: set[int]) -> None:
    """Blank entries for players not on the list in force who start a pool (or a rating) now."""
    newcomers = sorted(players - set(entries))
    for chunk in chunks(newcomers, 500):
        marks = ", ".join("?" * len(chunk))
        for player_id, birth_year, sex, version_id in driver.rows(
            f"SELECT id, birth_year, sex, current_version_id FROM player WHERE id IN ({marks})", chunk
        ):
            entries[player_id] = (
                player_id, None, None, 0, False, False, None, None, birth_year, sex, version_id
            )  # fmt: skip


def _ratings(driver: Driver, list_id: int) -> dict[int, int]:
    return dict(
        driver.rows(
            # In player order, as _load_entries: through the primary key (a third of the time on SQLite).
            "SELECT player_id, rating FROM list_entry WHERE list_id = ? AND rating IS NOT NULL "
            "ORDER BY player_id",
            (list_id,),
        )
    )


class _Sides(NamedTuple):
    rated: dict[int, list[Side]]
    pool: dict[int, list[PoolSide]]
    substitutes: dict[int, int]
    played: dict[int, int]  # event → its games played (rated, with two players): counts.py's "games played"


def _rated_sides(
    driver: Driver,
    period: Period,
    rating_type: str,
    events: dict[int, EventInfo],
    entries: dict[int, tuple[Any, ...]],
    in_force_id: int,
    rules: RuleSet,
) -> _Sides:
    """Each played game of the period seen from both sides, with the ratings its event uses.

    Returns the sides of players rated on the list in force (games against opponents rated at the
    event's start) and those of unrated players (results against rated opponents, for their pool).
    """
    rated: dict[int, list[Side]] = defaultdict(list)
    pool: dict[int, list[PoolSide]] = defaultdict(list)
    substitutes: dict[int, int] = {}  # rapid/blitz: unrated player → the standard rating used as Ro
    if not events:
        return _Sides(rated, pool, substitutes, {})
    in_force = {pid: e[_RATING] for pid, e in entries.items() if e[_RATING] is not None}
    ratings = {in_force_id: in_force}
    for info in events.values():
        for list_id in (info.ratings_list_id, info.standard_list_id):
            if list_id is not None and list_id not in ratings:
                ratings[list_id] = _ratings(driver, list_id)
    empty: dict[int, int] = {}
    lookups = {
        e.id: (ratings[e.ratings_list_id], ratings[e.standard_list_id] if e.standard_list_id else empty)
        for e in events.values()
    }
    excludes = rules.exclusion_difference is not None
    rows = driver.rows(
        "SELECT g.id, g.event_id, g.white_id, g.black_id, g.white_result, g.black_result FROM game g "
        "WHERE g.event_id IN (SELECT id FROM event WHERE period = ? AND rating_type = ? "
        f"AND is_current = TRUE AND id NOT IN ({EXCLUDED_SQL})) "
        "AND g.rated = TRUE AND g.black_id IS NOT NULL ORDER BY g.event_id, g.round, g.id",
        (str(period), rating_type),
    )
    played = Counter(row[1] for row in rows)
    for game_id, event_id, white, black, white_result, black_result in rows:
        start, standard = lookups[event_id]
        white_own, black_own = start.get(white), start.get(black)
        # Rapid/blitz: an unrated player with a standard rating at the start is rated with it (§7).
        white_start = white_own if white_own is not None else standard.get(white)
        black_start = black_own if black_own is not None else standard.get(black)
        if (
            excludes
            and white_start is not None
            and black_start is not None
            and excluded_by_difference(white_start, black_start, rules)
        ):
            continue
        # §8.2.4: a player rated since the event started plays it with the current rating, but is
        # unrated for the opponents (their view keeps the start list).
        white_now = in_force.get(white)
        black_now = in_force.get(black)
        if white_now is None and white_own is None and white_start is not None:
            white_now = substitutes.setdefault(white, white_start)
        if black_now is None and black_own is None and black_start is not None:
            black_now = substitutes.setdefault(black, black_start)
        if black_start is not None:
            if white_now is None:
                pool[white].append((game_id, event_id, black, white_start, black_start, SCORE[white_result]))
            else:
                own = white_start if white_start is not None else white_now
                rated[white].append((game_id, event_id, black, own, black_start, SCORE[white_result]))
        if white_start is not None:
            if black_now is None:
                pool[black].append((game_id, event_id, white, black_start, white_start, SCORE[black_result]))
            else:
                own = black_start if black_start is not None else black_now
                rated[black].append((game_id, event_id, white, own, white_start, SCORE[black_result]))
    return _Sides(rated, pool, substitutes, played)


def _pool_history(
    driver: Driver, rating_type: str, period: Period, player_ids: list[int]
) -> dict[int, list[PoolGame]]:
    """Pool games recorded by earlier closes, all of them: §8.2.1 judges the player's first event even
    after it has left the 26-month window (§7.1.4), which `initial_rating` then applies.

    Found through the player's own games (game's player indexes), then the record of the list that
    closed each game's period by its primary key: the cost follows the player's games, not the number
    of lists or the size of the record.
    """
    history: dict[int, list[PoolGame]] = defaultdict(list)
    # Three plain steps rather than one join: on PostgreSQL the small tables' statistics are rarely
    # gathered (autovacuum waits for 50 changed rows), the planner took rating_list for one row and rescanned
    # the chunk's games once per event of every list: 17.8 s a chunk after 24 closes, against milliseconds.
    lists = {
        str(text): (int(list_id), Period.parse(str(text)))
        for text, list_id in driver.rows(
            "SELECT period, id FROM rating_list WHERE rating_type = ? AND is_current = TRUE "
            "AND origin = 'computed' AND period < ?",
            [rating_type, str(period)],
        )
    }
    for chunk in chunks(player_ids, 500):
        marks = ", ".join("?" * len(chunk))
        games = driver.rows(
            "SELECT g.id, g.player_id, e.period, e.id, e.start_date "
            "FROM (SELECT id, event_id, white_id AS player_id FROM game "
            f"      WHERE white_id IN ({marks}) AND rated = TRUE "
            "      UNION ALL SELECT id, event_id, black_id FROM game "
            f"      WHERE black_id IN ({marks}) AND rated = TRUE) g "
            "JOIN event e ON e.id = g.event_id "
            "WHERE e.period < ? AND e.rating_type = ?",
            [*chunk, *chunk, str(period), rating_type],
        )
        # (list, player, game) → the game's period, event and start, for the games of a computed list
        wanted: dict[tuple[int, int, int], tuple[Period, int, Any]] = {}
        for game_id, player_id, game_period, event_id, start in games:
            found = lists.get(str(game_period))
            if found is not None:
                wanted[(found[0], player_id, game_id)] = (found[1], event_id, start)
        for list_id in sorted({key[0] for key in wanted}):
            # The record of that list by its primary key (list, player, game).
            for player_id, game_id, opponent, score in driver.rows(
                "SELECT player_id, game_id, opponent_rating, score_x100 FROM calc_game "
                f"WHERE list_id = ? AND player_id IN ({marks}) AND kind = 'pool'",
                [list_id, *chunk],
            ):
                hit = wanted.get((list_id, player_id, game_id))
                if hit is not None:
                    game_period, event_id, start = hit
                    history[player_id].append(
                        PoolGame(opponent, score, game_period, event_id, (_date(start), event_id))
                    )
    return history


def _date(value: dt.date | str) -> dt.date:
    # SQLite hands dates back as text through the driver.
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)
