"""The monthly close: rate a period's events and publish the next list with its calculation record.

Takes a Session and never commits: the caller's transaction makes the list and its record appear
together or not at all. All rules come from ratingdb.rating; this module only gathers inputs in bulk,
applies the rules and writes the results in bulk. It must not import the CLI, the formats or reports.

Scale (issue 8): a close of FIDE's size rates a million players. Inputs are read as plain driver
tuples, the common case (a rated player's change) runs through `BatchRater`, which gives the same
figures as `ratingdb.rating.rating_change` with a lookup table instead of per-game objects (a property
test holds the two equal), and rows are written as tuples with executemany (SQLite) or COPY
(PostgreSQL) in batches, so memory stays bounded by the inputs.
"""

from __future__ import annotations

import datetime as dt
import heapq
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, MissingList
from ratingdb.models import Event, RatingList
from ratingdb.rating import (
    Adjustment,
    Period,
    PoolGame,
    RulesError,
    RuleSet,
    activity_flag,
    adjust_rating,
    below_floor,
    excluded_by_difference,
    expected_score_under,
    initial_rating,
    is_active,
    k_after_700_rule,
    k_factor,
    round_half_away_from_zero,
    round_with,
    upgraded_games,
)
from ratingdb.services.bulk import LIST_ENTRY_COLUMNS, Driver, column_list
from ratingdb.services.lists import ListsOnDates, latest_list, list_on, lock_periods
from ratingdb.services.lists import new_list as new_list_for
from ratingdb.services.rules import RuleSetInForce, record_list_rules, rule_set_in_force
from ratingdb.services.versions import record_change, seal

SCORE = {"1": 100, "=": 50, "0": 0}
Progress = Callable[[str], None]

Side = tuple[int, int, int, int, int, int]
"""One player's view of one rated game: (game id, event id, opponent id, own rating used, opponent
rating used, score in hundredths). Plain tuples, because a FIDE-size close holds two million of them."""
PoolSide = tuple[int, int, int, int | None, int, int]
"""The same for an unrated player's result toward a pool: the own rating is None (or §8.2.4's)."""


@dataclass(frozen=True)
class PlayerChange:
    player_id: int
    name: str
    old: int | None
    new: int | None
    games: int


@dataclass
class CloseSummary:
    """What a close did (or found: `already_closed`)."""

    period: Period
    rating_type: str
    list_date: dt.date
    already_closed: bool = False
    existing_origin: str | None = None
    list_id: int | None = None
    version: int = 1  # the list's version: above 1 after a reopen (docs/versioning.md)
    rules: str | None = None
    floor: int | None = None  # the rule set's floor (§7.2.1)
    events: int = 0
    late_events: list[str] = field(default_factory=list)
    games_rated: int = 0
    players_on_list: int = 0
    players_rated: int = 0
    newly_rated: list[PlayerChange] = field(default_factory=list)
    dropped_below_floor: list[PlayerChange] = field(default_factory=list)
    biggest_gains: list[PlayerChange] = field(default_factory=list)
    biggest_losses: list[PlayerChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    adjusted: int = 0  # ratings changed by a one-off adjustment (spec §10)


class BatchChange(NamedTuple):
    """A rated player's period as `rating_change` computes it, in plain numbers (hundredths)."""

    k: int  # after the 700 rule
    n: int
    score: int
    sum_dr: int
    k_sum_dr: int
    change: int  # rounded once, half away from zero
    new_rating: int
    ds: list[int]  # per game, in the order given: D after the cap
    pds: list[int]  # per game: PD in hundredths
    events: list[list[int]]  # per event, first-seen order: [event, n, score, sum_dr, ro, rc_sum]


class BatchRater:
    """Period changes of many players under one rule set, with PD from a lookup array (§8.3.1–§8.3.4).

    Equal to `ratingdb.rating.rating_change` game for game (tests/unit/test_close_batch.py): the table
    is filled from the rule set's own expected score for every capped D until PD reaches 1.00 (beyond
    ±735 with table 8.1.2), so the rules stay in ratingdb.rating and only the per-game objects are saved.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.cap = rules.cap
        self.cap_exempt_from = rules.cap_exempt_from
        span = 1
        while expected_score_under(span, rules) < 100:
            span += 1
        self.span = span
        self.pd = [expected_score_under(d, rules) for d in range(-self.span, self.span + 1)]

    def rate(self, rating: int, k: int, sides: Sequence[Side]) -> BatchChange:
        """The change of a player rated `rating` with base K `k` over all rated games of the period."""
        n = len(sides)
        rules = self.rules
        k_used = k_after_700_rule(k, n, rules.k_times_games_max)
        cap, exempt, span, table = self.cap, self.cap_exempt_from, self.span, self.pd
        top = 2 * span
        ds: list[int] = []
        pds: list[int] = []
        events: dict[int, list[int]] = {}
        score_total = sum_dr = 0
        one_upgrade = rules.one_upgrade_per_tournament
        if one_upgrade:  # FIDE 2022–2024: one capped game per event, the higher-rated side's only
            upgraded = upgraded_games([(side[3] - side[4], side[1]) for side in sides], rules)
        for index, (_game, event, _opponent, own, opponent, score) in enumerate(sides):
            d = own - opponent
            # §8.3.1: the cap, unless the rated player's own rating (for this event) is exempt.
            if cap is not None and (exempt is None or own < exempt):
                if one_upgrade:
                    if d > cap and index in upgraded:
                        d = cap
                elif d > cap:
                    d = cap
                elif d < -cap:
                    d = -cap
            i = d + span
            pd = table[0 if i < 0 else top if i > top else i]
            ds.append(d)
            pds.append(pd)
            dr = score - pd
            score_total += score
            sum_dr += dr
            sums = events.get(event)
            if sums is None:
                events[event] = [event, 1, score, dr, own, opponent]
            else:
                sums[1] += 1
                sums[2] += score
                sums[3] += dr
                sums[5] += opponent
        k_sum_dr = k_used * sum_dr
        change = round_with(k_sum_dr, 100, rules.rounding)
        return BatchChange(
            k_used, n, score_total, sum_dr, k_sum_dr, change, rating + change, ds, pds, list(events.values())
        )


@dataclass
class _EventInfo:
    id: int
    name: str
    start_date: dt.date
    ratings_list_id: int  # the list in force at the event's start (§3)
    standard_list_id: int | None  # rapid/blitz: the standard list at the start (§7, last rule)
    note: str | None


# Columns of the list in force as read (one tuple per player): index names for readability.
(_PID, _RATING, _K, _GAMES_TOTAL, _R2400, _R2300, _LAST_ACTIVE, _POOL_FROM, _BIRTH_YEAR, _SEX,
 _VERSION) = range(11)  # fmt: skip

CALC_PLAYER_COLUMNS = (
    "list_id", "player_id", "method", "ro", "k_base", "k", "n", "score_x100", "sum_dr_x100", "k_sum_dr_x100",
    "change", "opponent_sum", "p_x100", "dp", "new_rating", "note",
)  # fmt: skip
CALC_LIST_EVENT_COLUMNS = ("list_id", "event_id", "ratings_list_id", "note")
CALC_GAME_COLUMNS = (
    "list_id", "player_id", "game_id", "event_id", "kind", "opponent_id", "own_rating", "opponent_rating",
    "d", "pd_x100", "score_x100",
)  # fmt: skip


def close_period(
    session: Session,
    period: Period,
    rating_type: str,
    *,
    progress: Progress | None = None,
    adjustment: Adjustment | None = None,
) -> CloseSummary:
    """Rate every event of `period` and publish the list dated the first day of the next month (§7–§8).

    `adjustment`, when given, is a one-off change of the new list's ratings (spec §10, like FIDE's
    March 2024 compression), applied after the period's changes and the floor, and recorded in the
    audit log with its parameters and the number of ratings it changed.
    """
    say = progress or (lambda _message: None)
    lock_periods(session, rating_type)
    chosen = _rule_set(session, rating_type, period)
    list_date = period.published_list_date
    summary = CloseSummary(period=period, rating_type=rating_type, list_date=list_date)

    existing = list_on(session, rating_type, list_date)
    if existing is not None:
        summary.already_closed = True
        summary.existing_origin = existing.origin
        summary.list_id = existing.id
        return summary

    in_force = list_on(session, rating_type, period.first_day)
    if in_force is None:
        raise MissingList(_missing_list_message(session, rating_type, period))

    rules = chosen.rules
    summary.rules, summary.floor = rules.name, rules.floor
    driver = Driver(session, background=True, binary=True)
    try:
        return _publish(session, driver, period, rating_type, in_force, chosen, summary, say, adjustment)
    finally:
        driver.restore()


def _publish(
    session: Session,
    driver: Driver,
    period: Period,
    rating_type: str,
    in_force: RatingList,
    chosen: RuleSetInForce,
    summary: CloseSummary,
    say: Progress,
    adjustment: Adjustment | None,
) -> CloseSummary:
    """The close proper, once the period is known to be open and its list in force exists."""
    rules = chosen.rules
    list_date = period.published_list_date
    say(f"reading the list in force ({in_force.list_date.isoformat()})")
    entries = _load_entries(driver, in_force.id)
    events = _load_events(session, period, rating_type, summary)
    say(f"reading {len(events)} events")
    rated_sides, pool_sides, substitutes, summary.games_rated = _rated_sides(
        driver, period, rating_type, events, entries, in_force.id, rules
    )
    _add_newcomers(driver, entries, set(pool_sides) | set(substitutes))

    change = record_change(
        session, "close-period", f"closed {rating_type} period {period}: list {list_date.isoformat()}"
    )
    new_list = new_list_for(
        session, rating_type, list_date, change, origin="computed", period=str(period), rules=rules.name
    )
    list_id = new_list.id
    record_list_rules(session, list_id, chosen.stored)
    summary.version = new_list.version
    summary.list_id = list_id

    # Everything the rest reads is read now: from here on a writer thread writes while the rules run.
    history = _pool_history(driver, rating_type, period, sorted(pool_sides))
    k_new = _KCache(list_date, _rules_of_list(session, rating_type, period.shift(1), rules))
    say(f"rating {len(rated_sides)} rated players")
    player_rows = driver.buffer("calc_player", CALC_PLAYER_COLUMNS)
    driver.buffer("calc_list_event", CALC_LIST_EVENT_COLUMNS)
    rated_events: set[int] = set()  # events with a game in the record: calc_list_event (calc_event's view)
    game_rows = driver.buffer("calc_game", CALC_GAME_COLUMNS)  # the longest: checked for a full batch
    new_state: dict[int, tuple[int | None, int, str | None]] = {}  # player → (rating, games, pool_from)
    # §8.3.3 counts rated games and the games that produced an initial rating: a pool player's games
    # join the total only when they produce one (not the disregarded or dropped ones, not while waiting).
    toward_total: dict[int, int] = {}
    rater = BatchRater(rules)
    next_period = str(period.shift(1))
    k_on = _KCache(in_force.list_date, rules)
    for player_id in sorted(rated_sides):
        sides = rated_sides[player_id]
        entry = entries[player_id]
        rating = entry[_RATING]
        substitute_note = None
        if rating is None:
            rating = substitutes[player_id]
            substitute_note = f"no {rating_type} rating: rated with the standard rating {rating} (§7)"
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
                note = f"new rating {result.new_rating} is below the floor of {rules.floor}: kept at it"
            else:
                new_rating, pool_from = None, next_period
                note = (
                    f"new rating {result.new_rating} is below the floor of {rules.floor} (§7.2.1): "
                    "unrated on the new list"
                )
        if substitute_note:
            note = substitute_note if note is None else f"{substitute_note}; {note}"
        new_state[player_id] = (new_rating, result.n, pool_from)
        k_used = result.k
        player_rows.append(
            (list_id, player_id, "change", rating, k_base, k_used, result.n, result.score, result.sum_dr,
             result.k_sum_dr, result.change, None, None, None, result.new_rating, note)
        )  # fmt: skip
        rated_events.update(e[0] for e in result.events)
        for (game_id, event_id, opponent_id, own, opponent, score), d, pd in zip(
            sides, result.ds, result.pds, strict=True
        ):
            game_rows.append(
                (list_id, player_id, game_id, event_id, "rated", opponent_id, own, opponent, d, pd, score)
            )
        if len(game_rows) >= driver.BATCH:
            driver.flush()
    summary.players_rated = len(rated_sides)
    del rated_sides

    say(f"pooling results of {len(pool_sides)} unrated players")
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
        # without it (Reading in the README).
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
            "rated": f"first rating from {pooled.n} pooled games (§8.2)",
            "too_few_games": f"{pooled.n} games in the pool, {pooled.games_needed} more needed (§8.2.2)",
            "below_floor": (
                f"the pool gives {_whole(pooled.unrounded)}, below {rules.floor}: stays unrated (§7.2.1)"
            ),
        }[pooled.status]
        if pooled.dropped_first_event:
            note += "; first event scored zero and is disregarded (§8.2.1)"
        if aged := pooled.dropped_old_games:
            window = rules.initial.window_months
            note += f"; {aged} game{'s' * (aged > 1)} older than {window} months dropped (§7.1.4)"
        player_rows.append(
            (list_id, player_id, "initial" if rated else "pool", None, None, None, pooled.n, pooled.wins_x100,
             None, None, None, pooled.opponent_sum, pooled.p, pooled.dp, pooled.rating, note)
        )  # fmt: skip
        for game_id, event_id, opponent_id, _own, opponent, score in results:
            rated_events.add(event_id)
            game_rows.append(
                (
                    list_id,
                    player_id,
                    game_id,
                    event_id,
                    "pool",
                    opponent_id,
                    None,
                    opponent,
                    None,
                    None,
                    score,
                )
            )
        if len(game_rows) >= driver.BATCH:
            driver.flush()
    driver.add(
        "calc_list_event",
        ((list_id, e, events[e].ratings_list_id, events[e].note) for e in sorted(rated_events)),
    )
    driver.flush()
    del pool_sides

    say("writing the new list")
    entry_rows = driver.buffer("list_entry", LIST_ENTRY_COLUMNS)
    flag_on = _FlagCache(period)
    closed = str(period)
    changes: list[tuple[int, int | None, int | None, int]] = []  # (player, old, new, games) for the summary
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
        games_total = entry[_GAMES_TOTAL] + toward_total.get(player_id, games)
        reached_2400 = bool(entry[_R2400] or (rating is not None and rating >= 2400))
        reached_2300 = bool(entry[_R2300] or (rating is not None and rating >= 2300))
        last_active = closed if games > 0 else entry[_LAST_ACTIVE]
        k: int | None = None
        flag: str | None = None
        if rating is not None:
            k = k_new(reached_2400, reached_2300, entry[_BIRTH_YEAR], games_total)
            flag = flag_on(last_active, entry[_SEX] == "F")
        entry_rows.append(
            (list_id, player_id, rating, games, k, flag,
             rating - old if rating is not None and old is not None else None, games_total, reached_2400,
             reached_2300, last_active, pool_from, entry[_VERSION])
        )  # fmt: skip
        if state is not None:
            changes.append((player_id, old, rating, games))
        if len(entry_rows) >= driver.BATCH:
            driver.flush()
    driver.flush()
    if unchanged is not None:
        unchanged.copy(driver, in_force.id, list_id)
    driver.drain()
    if adjustment is not None:
        detail = (
            f"close of {rating_type} period {period} (list {list_date.isoformat()}) applied the adjustment "
            f"'{adjustment.name}': ratings below {adjustment.threshold} raised by {adjustment.factor} × "
            f"({adjustment.threshold} − R), rounding {adjustment.rounding}; "
            f"{summary.adjusted} ratings changed"
        )
        record_change(session, "adjust-list", detail)
        summary.notes.append(detail)
    seal(session, new_list)
    _summarise(driver, summary, changes)
    summary.players_on_list = len(entries)
    return summary


def _rule_set(session: Session, rating_type: str, period: Period) -> RuleSetInForce:
    """The rule set, FIDE's or a stored one, the close of `period` follows; a sentence if none."""
    try:
        return rule_set_in_force(session, rating_type, period)
    except RulesError as exc:
        raise ConfigError(f"cannot close {rating_type} period {period}: {exc}") from None


def _rules_of_list(session: Session, rating_type: str, served: Period, closing: RuleSet) -> RuleSet:
    """The rule set whose K table sets K on the list used in period `served` (its own, if one covers it).

    K on a list is the K used in the period that list is in force (§8.3.3), so the list published on
    1 October 2022 takes the K of the rules from October 2022 (spec §12), not of the period closed.
    """
    if closing.covers(rating_type, served):
        return closing
    try:
        return rule_set_in_force(session, rating_type, served).rules
    except RulesError:
        return closing


class _UnchangedEntries:
    """The entries of players without games this period, copied from the list in force by the database.

    `take` accepts an entry (and notes the inputs of its K and flag) when the copy gives what the
    close's own loop would write: the same rating, no games, games total, reached flags, last active
    period, pool start and the player's current version, with K and flag from `k_on` and
    `activity_flag` for its inputs. `copy` writes them all with one INSERT … SELECT.
    """

    def __init__(self, k_on: _KCache, flag_on: _FlagCache) -> None:
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
        drop = "DROP TEMPORARY TABLE" if driver.dialect == "mysql" else "DROP TABLE"  # MySQL: no commit
        for name, columns in (
            ("ratingdb_close_k", "r2400 BOOLEAN, r2300 BOOLEAN, birth_year INTEGER, games INTEGER, "
             "k INTEGER, PRIMARY KEY (r2400, r2300, birth_year, games)"),
            ("ratingdb_close_flag", "last_active VARCHAR(7), female INTEGER, flag VARCHAR(2), "
             "PRIMARY KEY (last_active, female)"),
        ):  # fmt: skip
            driver.execute(f"{drop} IF EXISTS {name}")
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
            "AND NOT EXISTS (SELECT 1 FROM list_entry n WHERE n.list_id = ? AND n.player_id = e.player_id)",
            (list_id, in_force_id, list_id),
        )
        for name in ("ratingdb_close_k", "ratingdb_close_flag"):
            driver.execute(f"{drop} {name}")
        if copied != self.count:
            raise RuntimeError(
                f"the close copied {copied} unchanged entries of the list in force, expected {self.count}"
            )


class _FlagCache:
    """The activity flag on a list closing `period` (§9) by `activity_flag`, remembered per distinct input
    (last active period, woman or not): a million entries share a few hundred."""

    def __init__(self, period: Period) -> None:
        self.period = period
        self.known: dict[tuple[str | None, bool], str | None] = {}

    def __call__(self, last_active: str | None, female: bool) -> str | None:
        key = (last_active, female)
        if key not in self.known:
            active = is_active(Period.parse(last_active), self.period) if last_active else False
            self.known[key] = activity_flag(female=female, active=active) or None
        return self.known[key]


class _KCache:
    """K on a list (§8.3.3) by `k_factor`, remembered per distinct input: a million players share a few."""

    def __init__(self, list_date: dt.date, rules: RuleSet) -> None:
        self.list_date = list_date
        self.k_rules = rules.k_rules
        # Only "fewer than N games" matters to the K rules, so every total from N up shares one key.
        self.games_cap = max((r.fewer_games_than or 0 for r in rules.k_rules), default=0)
        self.known: dict[tuple[bool, bool, int | None, int], int] = {}

    def __call__(
        self, reached_2400: bool, reached_2300: bool, birth_year: int | None, games_total: int
    ) -> int:
        key = (bool(reached_2400), bool(reached_2300), birth_year, min(games_total, self.games_cap))
        k = self.known.get(key)
        if k is None:
            k = self.known[key] = k_factor(
                reached_2400=key[0],
                reached_2300=key[1],
                birth_year=birth_year,
                games_total=key[3],
                list_date=self.list_date,
                rules=self.k_rules,
            ).k
        return k


def _whole(value: Fraction | None) -> int | None:
    return None if value is None else round_half_away_from_zero(value.numerator, value.denominator)


def _summarise(
    driver: Driver, summary: CloseSummary, changes: list[tuple[int, int | None, int | None, int]]
) -> None:
    """The summary's lists, in player order; names are read only for the players it shows."""
    newly = [c for c in changes if c[1] is None and c[2] is not None]
    dropped = [c for c in changes if c[1] is not None and c[2] is None]
    moved = [c for c in changes if c[1] is not None and c[2] is not None and c[3]]
    gains = [c for c in moved if c[2] > c[1]]  # type: ignore[operator]
    losses = [c for c in moved if c[2] < c[1]]  # type: ignore[operator]  # no change is no loss
    # nlargest / nsmallest equal sorted(...)[:5], ties kept in player order.
    top = heapq.nlargest(5, gains, key=lambda c: c[2] - c[1])  # type: ignore[operator]
    bottom = heapq.nsmallest(5, losses, key=lambda c: c[2] - c[1])  # type: ignore[operator]
    names = _names(driver, {c[0] for c in newly + dropped + top + bottom})

    def change(c: tuple[int, int | None, int | None, int]) -> PlayerChange:
        return PlayerChange(c[0], names[c[0]], c[1], c[2], c[3])

    summary.newly_rated = [change(c) for c in newly]
    summary.dropped_below_floor = [change(c) for c in dropped]
    summary.biggest_gains = [change(c) for c in top]
    summary.biggest_losses = [change(c) for c in bottom]


def _names(driver: Driver, player_ids: set[int]) -> dict[int, str]:
    names: dict[int, str] = {}
    for chunk in _chunks(sorted(player_ids), 500):
        marks = ", ".join("?" * len(chunk))
        names.update(driver.rows(f"SELECT id, name FROM player WHERE id IN ({marks})", chunk))
    return names


def _load_entries(driver: Driver, list_id: int) -> dict[int, tuple[Any, ...]]:
    """The list in force, one tuple per player (indexed by the _PID … _VERSION names), with the player's
    facts as they are now: the new list shows each player's current version of their details."""
    rows = driver.rows(
        "SELECT e.player_id, e.rating, e.k, e.games_total, e.reached_2400, e.reached_2300, e.last_active, "
        "e.pool_from, p.birth_year, p.sex, p.current_version_id FROM list_entry e "
        "JOIN player p ON p.id = e.player_id "
        "WHERE e.list_id = ?",
        (list_id,),
    )
    return {row[_PID]: row for row in rows}


def _add_newcomers(driver: Driver, entries: dict[int, tuple[Any, ...]], players: set[int]) -> None:
    """Blank entries for players not on the list in force who start a pool (or a rating) now."""
    newcomers = sorted(players - set(entries))
    for chunk in _chunks(newcomers, 500):
        marks = ", ".join("?" * len(chunk))
        for player_id, birth_year, sex, version_id in driver.rows(
            f"SELECT id, birth_year, sex, current_version_id FROM player WHERE id IN ({marks})", chunk
        ):
            entries[player_id] = (
                player_id, None, None, 0, False, False, None, None, birth_year, sex, version_id
            )  # fmt: skip


def _load_events(
    session: Session, period: Period, rating_type: str, summary: CloseSummary
) -> dict[int, _EventInfo]:
    # Every list of the type (and standard lists for rapid/blitz) once: a few hundred rows at most.
    lists = ListsOnDates(session, {rating_type, "standard"})

    events: dict[int, _EventInfo] = {}
    for event_id, name, start, end, event_period, natural in session.execute(
        select(Event.id, Event.name, Event.start_date, Event.end_date, Event.period, Event.natural_period)
        .where(Event.period == str(period), Event.rating_type == rating_type, Event.is_current.is_(True))
        .order_by(Event.start_date, Event.id)
    ):
        # Ratings are frozen at the event's start (§3 of the spec): the list in force on its start date,
        # even when the event is rated one or two periods later.
        found = lists.for_event(rating_type, start)
        assert found is not None  # the list in force exists
        used, note = found
        standard = lists.on("standard", start) if rating_type != "standard" else None
        events[event_id] = _EventInfo(event_id, name, start, used, standard, note)
        if event_period > natural:
            summary.late_events.append(f"{name} (ended {end.isoformat()}, period {natural})")
        if note:
            summary.notes.append(f"{name}: {note}")
    summary.events = len(events)
    return events


def _ratings(driver: Driver, list_id: int) -> dict[int, int]:
    return dict(
        driver.rows(
            "SELECT player_id, rating FROM list_entry WHERE list_id = ? AND rating IS NOT NULL", (list_id,)
        )
    )


class _Sides(NamedTuple):
    rated: dict[int, list[Side]]
    pool: dict[int, list[PoolSide]]
    substitutes: dict[int, int]
    games: int  # played games that changed a rating or joined a pool


def _rated_sides(
    driver: Driver,
    period: Period,
    rating_type: str,
    events: dict[int, _EventInfo],
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
    counted = 0
    if not events:
        return _Sides(rated, pool, substitutes, counted)
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
        "AND is_current = TRUE) "
        "AND g.rated = TRUE AND g.black_id IS NOT NULL ORDER BY g.event_id, g.round, g.id",
        (str(period), rating_type),
    )
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
        if white_start is not None or black_start is not None:
            counted += 1
    return _Sides(rated, pool, substitutes, counted)


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
    periods: dict[str, Period] = {}
    for chunk in _chunks(player_ids, 500):
        marks = ", ".join("?" * len(chunk))
        rows = driver.rows(
            "SELECT c.player_id, c.opponent_rating, c.score_x100, l.period, e.id, e.start_date "
            "FROM (SELECT id, event_id, white_id AS player_id FROM game "
            f"      WHERE white_id IN ({marks}) AND rated = TRUE "
            "      UNION ALL SELECT id, event_id, black_id FROM game "
            f"      WHERE black_id IN ({marks}) AND rated = TRUE) g "
            "JOIN event e ON e.id = g.event_id "
            "JOIN rating_list l ON l.period = e.period AND l.rating_type = ? AND l.is_current = TRUE "
            "JOIN calc_game c ON c.list_id = l.id AND c.player_id = g.player_id AND c.game_id = g.id "
            "WHERE c.kind = 'pool' AND e.period < ? AND e.rating_type = ? AND l.origin = 'computed'",
            [*chunk, *chunk, rating_type, str(period), rating_type],
        )
        for player_id, opponent, score, game_period, event_id, start in rows:
            if game_period not in periods:
                periods[game_period] = Period.parse(game_period)
            history[player_id].append(
                PoolGame(opponent, score, periods[game_period], event_id, (_date(start), event_id))
            )
    return history


def _date(value: dt.date | str) -> dt.date:
    # SQLite hands dates back as text through the driver.
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)


def _chunks(items: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _missing_list_message(session: Session, rating_type: str, period: Period) -> str:
    wanted = period.first_day.isoformat()
    newest = latest_list(session, rating_type)
    if newest is None:
        return (
            f"there is no {rating_type} list in the database: import the list in force for period {period} "
            f"with `ratingdb import-list FILE --date {wanted} --type {rating_type}`"
        )
    if newest.list_date < period.first_day:
        last_closed = Period.of(newest.list_date)
        return (
            f"the {rating_type} list in force for period {period} (dated {wanted}) is missing: the newest "
            f"list is dated {newest.list_date.isoformat()}, so close period {last_closed} first "
            f"(or import the {wanted} list with "
            f"`ratingdb import-list FILE --date {wanted} --type {rating_type}`)"
        )
    return (
        f"the {rating_type} list in force for period {period} (dated {wanted}) is missing: import it with "
        f"`ratingdb import-list FILE --date {wanted} --type {rating_type}`"
    )
