"""The monthly close: rate a period's events and publish the next list with its calculation record.

Takes a Session and never commits: the caller's transaction makes the list and its record appear
together or not at all. All rules come from ratingdb.rating; this module only gathers inputs in bulk,
calls the rules and writes the results in bulk.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from sqlalchemy import insert, select, text
from sqlalchemy.orm import Session

from ratingdb.errors import MissingList
from ratingdb.models import CalcEvent, CalcGame, CalcPlayer, Event, Game, ListEntry, Player, RatingList
from ratingdb.rating import (
    POOL_WINDOW_MONTHS,
    Period,
    PoolGame,
    RatedGame,
    RuleSet,
    activity_flag,
    below_floor,
    excluded_by_difference,
    initial_rating,
    is_active,
    k_factor,
    rating_change,
    round_half_away_from_zero,
    rule_set_for,
)
from ratingdb.services.lists import earliest_list, latest_list, list_on

SCORE = {"1": 100, "=": 50, "0": 0}
Progress = Callable[[str], None]


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
    rules: str | None = None
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


@dataclass
class _Entry:
    """The list-in-force state of one player (or a blank one for a player not on it)."""

    rating: int | None = None
    k: int | None = None
    games_total: int = 0
    reached_2400: bool = False
    reached_2300: bool = False
    last_active: str | None = None
    pool_from: str | None = None
    flag: str | None = None
    on_list: bool = False


@dataclass
class _EventInfo:
    id: int
    name: str
    start_date: dt.date
    ratings_list: RatingList
    standard_list: RatingList | None  # rapid/blitz: the standard list at the start (§7, last rule)
    note: str | None


@dataclass
class _Side:
    """One player's view of one rated game."""

    game_id: int
    event_id: int
    opponent_id: int
    own: int | None  # own rating used
    opponent: int | None  # opponent rating used (None: unrated opponent)
    score: int


def _lock(session: Session, rating_type: str) -> None:
    # Two closes at once: the second waits here, then finds the period closed. SQLite already holds
    # the write lock from BEGIN IMMEDIATE (see db.py).
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": f"ratingdb-close-{rating_type}"}
        )


def close_period(
    session: Session, period: Period, rating_type: str, *, progress: Progress | None = None
) -> CloseSummary:
    """Rate every event of `period` and publish the list dated the first day of the next month (§7–§8)."""
    say = progress or (lambda _message: None)
    _lock(session, rating_type)
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

    rules = rule_set_for(rating_type, period)  # type: ignore[arg-type]
    summary.rules = rules.name

    say(f"reading the list in force ({in_force.list_date.isoformat()})")
    entries = _load_entries(session, in_force.id)
    events = _load_events(session, period, rating_type, summary)
    say(f"reading {len(events)} events")
    ratings = _load_ratings(
        session, {e.ratings_list.id for e in events.values()} | _std_ids(events), in_force
    )
    sides = _rated_sides(session, events, ratings, entries, rules)

    rated_sides: dict[int, list[_Side]] = defaultdict(list)
    pool_sides: dict[int, list[_Side]] = defaultdict(list)
    for player_id, side in sides:
        if entries.get(player_id, _Entry()).rating is not None:
            if side.opponent is not None:
                rated_sides[player_id].append(side)
        elif side.opponent is not None:
            pool_sides[player_id].append(side)

    new_list = RatingList(
        rating_type=rating_type, list_date=list_date, origin="computed", period=str(period), rules=rules.name
    )
    session.add(new_list)
    session.flush()
    summary.list_id = new_list.id

    say(f"rating {len(rated_sides)} rated players")
    calc_players: list[dict[str, object]] = []
    calc_events: list[dict[str, object]] = []
    calc_games: list[dict[str, object]] = []
    new_state: dict[int, tuple[int | None, int, str | None]] = {}  # player → (rating, games, pool_from)

    for player_id, player_sides in rated_sides.items():
        entry = entries[player_id]
        assert entry.rating is not None
        k_base = (
            entry.k
            if entry.k is not None
            else _k_on(entry, _birth_year(session, player_id), in_force.list_date)
        )
        result = rating_change(
            entry.rating,
            k_base,
            [RatedGame(s.own or entry.rating, s.opponent or 0, s.score, s.event_id) for s in player_sides],
            rules,
        )
        new_rating: int | None = result.new_rating
        pool_from = entry.pool_from
        note = None
        if below_floor(result.new_rating):
            new_rating, pool_from = None, str(period.shift(1))
            note = (
                f"new rating {result.new_rating} is below the floor of 1400 (§7.2.1): unrated on the new list"
            )
        new_state[player_id] = (new_rating, result.n, pool_from)
        summary.games_rated += result.n
        calc_players.append(
            dict(
                list_id=new_list.id,
                player_id=player_id,
                method="change",
                ro=entry.rating,
                k_base=k_base,
                k=result.k,
                n=result.n,
                score_x100=sum(s.score for s in player_sides),
                sum_dr_x100=result.sum_dr,
                k_sum_dr_x100=result.k_sum_dr,
                change=result.change,
                opponent_sum=None,
                p_x100=None,
                dp=None,
                new_rating=result.new_rating,
                note=note,
            )
        )
        for ev in result.events:
            info = events[ev.event]  # type: ignore[index]
            calc_events.append(
                dict(
                    list_id=new_list.id,
                    player_id=player_id,
                    event_id=info.id,
                    ratings_list_id=info.ratings_list.id,
                    ro=ev.ro,
                    rc_x100=round_half_away_from_zero(ev.rc_sum * 100, ev.n),
                    n=ev.n,
                    score_x100=ev.score,
                    sum_dr_x100=ev.sum_dr,
                    k=ev.k,
                    k_sum_dr_x100=ev.k_sum_dr,
                    note=info.note,
                )
            )
        for side, line in zip(player_sides, result.games, strict=True):
            calc_games.append(
                dict(
                    list_id=new_list.id,
                    player_id=player_id,
                    game_id=side.game_id,
                    event_id=side.event_id,
                    kind="rated",
                    opponent_id=side.opponent_id,
                    own_rating=line.own_rating,
                    opponent_rating=line.opponent_rating,
                    d=line.d,
                    pd_x100=line.pd,
                    score_x100=line.score,
                )
            )

    say(f"pooling results of {len(pool_sides)} unrated players")
    history = _pool_history(session, rating_type, period, list(pool_sides))
    for player_id, player_sides in pool_sides.items():
        entry = entries.get(player_id, _Entry())
        this_period = [
            PoolGame(
                s.opponent or 0, s.score, period, s.event_id, (events[s.event_id].start_date, s.event_id)
            )
            for s in player_sides
        ]
        earlier = [
            g
            for g in history.get(player_id, [])
            if entry.pool_from is None or str(g.period) >= entry.pool_from
        ]
        # §8.2.1 judges the player's first event; after a drop below the floor the pool starts again
        # without it (Reading in the README).
        result = initial_rating(earlier + this_period, period, first_event_rule=entry.pool_from is None)
        rated = result.status == "rated"
        new_state[player_id] = (result.rating if rated else None, len(player_sides), entry.pool_from)
        note = {
            "rated": f"first rating from {result.n} pooled games (§8.2)",
            "too_few_games": f"{result.n} games in the pool, {result.games_needed} more needed (§8.2.2)",
            "below_floor": f"the pool gives {_whole(result.unrounded)}, below 1400: stays unrated (§7.2.1)",
        }[result.status]
        if result.dropped_first_event:
            note += "; first event scored zero and is disregarded (§8.2.1)"
        if result.dropped_old_games:
            note += (
                f"; {result.dropped_old_games} games older than {POOL_WINDOW_MONTHS} months dropped (§7.1.4)"
            )
        calc_players.append(
            dict(
                list_id=new_list.id,
                player_id=player_id,
                method="initial" if rated else "pool",
                ro=None,
                k_base=None,
                k=None,
                n=result.n,
                score_x100=result.wins_x100,
                sum_dr_x100=None,
                k_sum_dr_x100=None,
                change=None,
                opponent_sum=result.opponent_sum,
                p_x100=result.p,
                dp=result.dp,
                new_rating=result.rating,
                note=note,
            )
        )
        by_event: dict[int, list[_Side]] = defaultdict(list)
        for side in player_sides:
            by_event[side.event_id].append(side)
            calc_games.append(
                dict(
                    list_id=new_list.id,
                    player_id=player_id,
                    game_id=side.game_id,
                    event_id=side.event_id,
                    kind="pool",
                    opponent_id=side.opponent_id,
                    own_rating=None,
                    opponent_rating=side.opponent,
                    d=None,
                    pd_x100=None,
                    score_x100=side.score,
                )
            )
        for event_id, ev_sides in by_event.items():
            info = events[event_id]
            calc_events.append(
                dict(
                    list_id=new_list.id,
                    player_id=player_id,
                    event_id=event_id,
                    ratings_list_id=info.ratings_list.id,
                    ro=None,
                    rc_x100=round_half_away_from_zero(
                        sum(s.opponent or 0 for s in ev_sides) * 100, len(ev_sides)
                    ),
                    n=len(ev_sides),
                    score_x100=sum(s.score for s in ev_sides),
                    sum_dr_x100=None,
                    k=None,
                    k_sum_dr_x100=None,
                    note=info.note,
                )
            )

    say("writing the new list")
    players = _player_facts(session, set(entries) | set(new_state))
    list_rows = []
    for player_id in sorted(set(entries) | set(new_state)):
        entry = entries.get(player_id, _Entry())
        rating, games, pool_from = new_state.get(player_id, (entry.rating, 0, entry.pool_from))
        birth_year, sex, name = players[player_id]
        games_total = entry.games_total + games
        reached_2400 = entry.reached_2400 or (rating is not None and rating >= 2400)
        reached_2300 = entry.reached_2300 or (rating is not None and rating >= 2300)
        last_active = str(period) if games > 0 else entry.last_active
        k = flag = None
        if rating is not None:
            k = k_factor(
                reached_2400=reached_2400,
                reached_2300=reached_2300,
                birth_year=birth_year,
                games_total=games_total,
                list_date=list_date,
            ).k
            active = is_active(Period.parse(last_active), period) if last_active else False
            flag = activity_flag(female=sex == "F", active=active) or None
        change = rating - entry.rating if rating is not None and entry.rating is not None else None
        list_rows.append(
            dict(
                list_id=new_list.id,
                player_id=player_id,
                rating=rating,
                games=games,
                k=k,
                flag=flag,
                change=change,
                games_total=games_total,
                reached_2400=reached_2400,
                reached_2300=reached_2300,
                last_active=last_active,
                pool_from=pool_from,
            )
        )
        _summarise(summary, player_id, name, entry, rating, games)

    _bulk_insert(session, ListEntry, list_rows)
    _bulk_insert(session, CalcPlayer, calc_players)
    _bulk_insert(session, CalcEvent, calc_events)
    _bulk_insert(session, CalcGame, calc_games)
    summary.players_on_list = len(list_rows)
    summary.players_rated = len(rated_sides)
    summary.biggest_gains = sorted(summary.biggest_gains, key=_delta, reverse=True)[:5]
    summary.biggest_losses = sorted(summary.biggest_losses, key=_delta)[:5]
    return summary


def _whole(value: Fraction | None) -> int | None:
    return None if value is None else round_half_away_from_zero(value.numerator, value.denominator)


def _delta(change: PlayerChange) -> int:
    return (change.new or 0) - (change.old or 0)


def _summarise(
    summary: CloseSummary, player_id: int, name: str, entry: _Entry, rating: int | None, games: int
) -> None:
    change = PlayerChange(player_id, name, entry.rating, rating, games)
    if entry.rating is None and rating is not None:
        summary.newly_rated.append(change)
    elif entry.rating is not None and rating is None:
        summary.dropped_below_floor.append(change)
    elif entry.rating is not None and rating is not None and games:
        (summary.biggest_gains if rating > entry.rating else summary.biggest_losses).append(change)


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


def _load_entries(session: Session, list_id: int) -> dict[int, _Entry]:
    rows = session.execute(
        select(
            ListEntry.player_id,
            ListEntry.rating,
            ListEntry.k,
            ListEntry.games_total,
            ListEntry.reached_2400,
            ListEntry.reached_2300,
            ListEntry.last_active,
            ListEntry.pool_from,
            ListEntry.flag,
        ).where(ListEntry.list_id == list_id)
    )
    return {row[0]: _Entry(*row[1:], on_list=True) for row in rows}


def _load_events(
    session: Session, period: Period, rating_type: str, summary: CloseSummary
) -> dict[int, _EventInfo]:
    earliest = earliest_list(session, rating_type)
    assert earliest is not None  # the list in force exists
    std_earliest = earliest_list(session, "standard") if rating_type != "standard" else None
    events: dict[int, _EventInfo] = {}
    for ev in session.scalars(
        select(Event)
        .where(Event.period == str(period), Event.rating_type == rating_type)
        .order_by(Event.start_date, Event.id)
    ):
        # Ratings are frozen at the event's start (§3 of the spec): the list in force on its start date,
        # even when the event is rated one or two periods later.
        used = latest_list(session, rating_type, ev.start_date)
        note = None
        if used is None:
            used = earliest
            note = (
                f"the event started {ev.start_date.isoformat()}, before the earliest {rating_type} list "
                f"in the database; ratings taken from that list ({earliest.list_date.isoformat()})"
            )
        standard = None
        if std_earliest is not None:
            standard = latest_list(session, "standard", ev.start_date)
        events[ev.id] = _EventInfo(ev.id, ev.name, ev.start_date, used, standard, note)
        if ev.period > ev.natural_period:
            summary.late_events.append(
                f"{ev.name} (ended {ev.end_date.isoformat()}, period {ev.natural_period})"
            )
        if note:
            summary.notes.append(f"{ev.name}: {note}")
    summary.events = len(events)
    return events


def _std_ids(events: dict[int, _EventInfo]) -> set[int]:
    return {e.standard_list.id for e in events.values() if e.standard_list is not None}


def _load_ratings(
    session: Session, list_ids: Iterable[int], in_force: RatingList
) -> dict[int, dict[int, int]]:
    ratings: dict[int, dict[int, int]] = {}
    for list_id in set(list_ids) | {in_force.id}:
        rows = session.execute(
            select(ListEntry.player_id, ListEntry.rating).where(
                ListEntry.list_id == list_id, ListEntry.rating.is_not(None)
            )
        )
        ratings[list_id] = {player_id: rating for player_id, rating in rows}
    return ratings


def _rated_sides(
    session: Session,
    events: dict[int, _EventInfo],
    ratings: dict[int, dict[int, int]],
    entries: dict[int, _Entry],
    rules: RuleSet,
) -> list[tuple[int, _Side]]:
    """Each played game of the period seen from both sides, with the ratings its event uses."""
    if not events:
        return []
    in_force_rating = {pid: e.rating for pid, e in entries.items() if e.rating is not None}
    sides: list[tuple[int, _Side]] = []
    rows = session.execute(
        select(Game.id, Game.event_id, Game.white_id, Game.black_id, Game.white_result, Game.black_result)
        .where(Game.event_id.in_(list(events)), Game.rated.is_(True), Game.black_id.is_not(None))
        .order_by(Game.event_id, Game.round, Game.id)
    )
    for game_id, event_id, white, black, white_result, black_result in rows:
        info = events[event_id]
        start = ratings[info.ratings_list.id]
        standard = ratings[info.standard_list.id] if info.standard_list is not None else {}
        # Rapid/blitz: an unrated player with a standard rating at the start is rated with it (§7).
        white_start = start.get(white) or standard.get(white)
        black_start = start.get(black) or standard.get(black)
        if (
            white_start is not None
            and black_start is not None
            and excluded_by_difference(white_start, black_start, rules)
        ):
            continue
        # §8.2.4: a player rated since the event started plays it with the current rating, but is
        # unrated for the opponents (their view keeps the start list).
        white_own = white_start if white_start is not None else in_force_rating.get(white)
        black_own = black_start if black_start is not None else in_force_rating.get(black)
        sides.append((white, _Side(game_id, event_id, black, white_own, black_start, SCORE[white_result])))
        sides.append((black, _Side(game_id, event_id, white, black_own, white_start, SCORE[black_result])))
    return sides


def _pool_history(
    session: Session, rating_type: str, period: Period, player_ids: list[int]
) -> dict[int, list[PoolGame]]:
    """Pool games recorded by earlier closes within the window (§7.1.4)."""
    history: dict[int, list[PoolGame]] = defaultdict(list)
    if not player_ids:
        return history
    oldest = str(period.shift(-(POOL_WINDOW_MONTHS - 1)))
    for chunk in _chunks(player_ids, 5000):
        rows = session.execute(
            select(
                CalcGame.player_id,
                CalcGame.opponent_rating,
                CalcGame.score_x100,
                RatingList.period,
                Event.id,
                Event.start_date,
            )
            .join(RatingList, RatingList.id == CalcGame.list_id)
            .join(Event, Event.id == CalcGame.event_id)
            .where(
                CalcGame.player_id.in_(chunk),
                CalcGame.kind == "pool",
                RatingList.rating_type == rating_type,
                RatingList.period >= oldest,
                RatingList.period < str(period),
            )
        )
        for player_id, opponent, score, game_period, event_id, start in rows:
            history[player_id].append(
                PoolGame(opponent, score, Period.parse(game_period), event_id, (start, event_id))
            )
    return history


def _player_facts(session: Session, player_ids: set[int]) -> dict[int, tuple[int | None, str | None, str]]:
    facts: dict[int, tuple[int | None, str | None, str]] = {}
    ids = sorted(player_ids)
    for chunk in _chunks(ids, 5000):
        for pid, birth_year, sex, name in session.execute(
            select(Player.id, Player.birth_year, Player.sex, Player.name).where(Player.id.in_(chunk))
        ):
            facts[pid] = (birth_year, sex, name)
    return facts


def _birth_year(session: Session, player_id: int) -> int | None:
    return session.scalar(select(Player.birth_year).where(Player.id == player_id))


def _k_on(entry: _Entry, birth_year: int | None, list_date: dt.date) -> int:
    return k_factor(
        reached_2400=entry.reached_2400,
        reached_2300=entry.reached_2300,
        birth_year=birth_year,
        games_total=entry.games_total,
        list_date=list_date,
    ).k


def _chunks(items: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _bulk_insert(session: Session, model: type, rows: list[dict[str, object]]) -> None:
    for start in range(0, len(rows), 50_000):
        session.execute(insert(model), rows[start : start + 50_000])
