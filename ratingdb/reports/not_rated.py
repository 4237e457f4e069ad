"""The games of a close's period that did not count for a player, and why: the note under a calculation.

A visitor who played five games and sees four in the calculation deserves the fifth with its reason.
Takes a Session; reads only the stored games, lists and calculation record (nothing is recomputed: a game
is "not counted" when the record has no row for it). No CLI or web imports.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import bindparam, case, func, or_, select, tuple_
from sqlalchemy.orm import Session, aliased

from ratingdb.i18n import N_
from ratingdb.reports.lists import AnySelect, Close, ListColumns
from ratingdb.schema.models import CalcGame, Event, Game, ListEntry, Player, RatingList
from ratingdb.titles import shown_name

# The reasons, in English; a page shows them in its language (marked for the catalogue: ratingdb.i18n).
BYE = N_("no game was played (a bye or an unpaired round): nothing to rate (§5.1)")
FORFEIT = N_("not played over the board (a forfeit): not rated (§5.1)")
OPPONENT_UNRATED = N_(
    "the opponent had no rating at the event's start: a rated player's game against an unrated opponent "
    "is not rated; it counts toward the opponent's first rating (§8.2)"
)
BOTH_UNRATED = N_(
    "neither player had a rating at the event's start: a game between unrated players is not rated"
)
APART = N_("both were rated, but further apart than the rules allow (the rating-difference exclusion)")


class _Event(NamedTuple):
    id: int
    period: str
    rating_type: str
    start_date: dt.date


class _Game(NamedTuple):
    id: int
    event_id: int
    round: int
    white_id: int
    black_id: int | None
    white_result: str
    black_result: str | None
    rated: bool


class NotRated(NamedTuple):
    event_id: int
    event: str
    round: int
    opponent: str | None
    opponent_id: int | None
    result: str  # the TRF code recorded for the player
    reason: str


def games_not_rated(
    session: Session, new_list: RatingList, player_id: int | None = None
) -> dict[int, list[NotRated]]:
    """Per player (or for one): the games of the period the close of `new_list` rated that are not in its
    calculation record, by event and round."""
    return {pid: games for (_, pid), games in _not_rated(session, [new_list], player_id).items()}


def close_of_events(session: Session, lists: Sequence[Close]) -> dict[int, int]:
    """Each current event of the periods of the closes that published `lists`: event id → that list's id
    (the close that rates it). A served site reads it once per data version for its player pages."""
    closes = {(lst.period, lst.rating_type): lst.id for lst in lists if lst.period is not None}
    if not closes:
        return {}
    query = select(Event.id, Event.period, Event.rating_type).where(
        Event.is_current.is_(True), Event.period.in_({period for period, _ in closes})
    )
    return {
        event_id: closes[(period, rating_type)]
        for event_id, period, rating_type in session.execute(query)
        if (period, rating_type) in closes
    }


InForce = Mapping[str, Sequence[tuple[dt.date, int]]]  # rating type → its current lists' (date, id), by date


def player_not_rated_in(
    session: Session,
    player_id: int,
    close_of: Mapping[int, int],
    in_force: InForce,
    counted: Mapping[int, Collection[int]] | None = None,
    kept: Mapping[int, ListColumns] | None = None,
) -> dict[int, list[NotRated]]:
    """The player's games not counted in the closes whose events `close_of` maps (close_of_events), by the
    list's id; `in_force`: the current lists of each type. The served site keeps both for a data version.

    A player's page asks this of every close of the site, most often two dozen. How many games the player
    has in each event is counted (one statement on the player's index) and compared with how many the
    close of the event counts; only the events where they differ (none for one player in three with
    records) have their games read, with the events' names (one more), and the ratings at their start
    (one more). `counted`: event id → the ids of the player's games in it that its close's record counts,
    when the caller has read them (the page has their calculations; else one statement reads them).
    `kept`: lists in memory by id (a served site keeps its current lists: ListColumns), whose ratings at
    an event's start are looked up there rather than read. Reading every game of the player and comparing
    each was most of what this cost (bench/RESULTS.md, issue 28)."""
    ids = sorted(set(close_of.values()))
    if not ids:
        return {}
    # On the connection: the ORM's steps for a statement of columns cost more than its rows.
    connection = session.connection()
    played = [
        (event_id, n)
        for event_id, n in connection.execute(_player_events(), {"player": player_id})
        if event_id in close_of
    ]
    if not played:
        return {}
    if counted is None:
        read: dict[int, set[int]] = defaultdict(set)
        for event_id, game_id in connection.execute(_player_counted(), {"player": player_id, "lists": ids}):
            read[event_id].add(game_id)
        counted = read
    short = sorted(event_id for event_id, n in played if n != len(counted.get(event_id, ())))
    if not short:
        return {}
    missing: list[tuple[_Game, int, int | None, str]] = []
    names: dict[int, str] = {}
    events: dict[int, _Event] = {}
    titles: dict[int, str] = {}
    for g in connection.execute(_player_games(), {"player": player_id, "events": short}):
        if g.id in counted.get(g.event_id, ()):
            continue
        white = g.white_id == player_id
        other = g.black_id if white else g.white_id
        result = (g.white_result if white else g.black_result) or ""
        missing.append((_Game(*g[:8]), player_id, other, result))
        if other is not None:
            names[other] = g.opponent
        events[g.event_id] = _Event(g.event_id, g.period, g.rating_type, g.start_date)
        titles[g.event_id] = g.title
    found = _explained(session, missing, events, close_of, titles, names, in_force, kept)
    return {list_id: games for (list_id, _), games in found.items()}


def _player_side() -> Any:
    me: Any = bindparam("player")
    return or_(Game.white_id == me, Game.black_id == me)


@cache
def _player_events() -> AnySelect:
    """(event id, how many games) of player `player` in each event they played in."""
    return select(Game.event_id, func.count()).where(_player_side()).group_by(Game.event_id)


@cache
def _player_games() -> AnySelect:
    """Player `player`'s games in the events `events`, in the order of the notes, with the opponent's name
    and the event's period, type, start and shown name (player_not_rated_in)."""
    opponent = aliased(Player)
    white = Game.white_id == bindparam("player")
    return (
        select(
            Game.id,
            Game.event_id,
            Game.round,
            Game.white_id,
            Game.black_id,
            Game.white_result,
            Game.black_result,
            Game.rated,
            opponent.name.label("opponent"),
            Event.period,
            Event.rating_type,
            Event.start_date,
            shown_name().label("title"),
        )  # fmt: skip
        .join(Event, Event.id == Game.event_id)
        .outerjoin(opponent, opponent.id == case((white, Game.black_id), else_=Game.white_id))
        .where(_player_side(), Game.event_id.in_(bindparam("events", expanding=True)))
        .order_by(Game.event_id, Game.round, Game.id)
    )


@cache
def _player_counted() -> AnySelect:
    """(event id, game id) of player `player`'s games that the records of the lists `lists` count."""
    return select(CalcGame.event_id, CalcGame.game_id).where(
        CalcGame.list_id.in_(bindparam("lists", expanding=True)), CalcGame.player_id == bindparam("player")
    )


def _not_rated(
    session: Session, lists: Sequence[Close], player_id: int | None
) -> dict[tuple[int, int], list[NotRated]]:
    """The games not counted of the closes that published `lists`, by (list id, player id)."""
    closes = {(lst.period, lst.rating_type): lst for lst in lists if lst.period is not None}
    if not closes:
        return {}
    # Columns, not ORM objects: a player's page reads every event and game of theirs in the site's periods,
    # and building Event and Game objects for them was most of what this cost (bench/RESULTS.md, issue 28).
    of_periods = select(Event.id, Event.period, Event.rating_type, Event.start_date).where(
        tuple_(Event.period, Event.rating_type).in_(list(closes))
        if len(closes) > 1
        else (Event.period == lists[0].period) & (Event.rating_type == lists[0].rating_type),
        Event.is_current.is_(True),
    )
    if player_id is not None:
        # One player's page asks this of every close: only the events the player played in (found by the
        # game's player indexes), most often few, instead of every game of the periods.
        played = select(Game.event_id).where(or_(Game.white_id == player_id, Game.black_id == player_id))
        of_periods = of_periods.where(Event.id.in_(played))
    events: dict[int, _Event] = {e.id: _Event(*e) for e in session.execute(of_periods)}
    if not events:
        return {}
    list_of = {event_id: closes[(e.period, e.rating_type)].id for event_id, e in events.items()}
    query = select(
        Game.id, Game.event_id, Game.round, Game.white_id, Game.black_id,
        Game.white_result, Game.black_result, Game.rated,
    ).where(Game.event_id.in_(events))  # fmt: skip
    if player_id is not None:
        query = query.where(or_(Game.white_id == player_id, Game.black_id == player_id))
    games = [_Game(*g) for g in session.execute(query.order_by(Game.event_id, Game.round, Game.id))]
    ids = sorted(set(list_of.values()))
    counted_query = select(CalcGame.list_id, CalcGame.player_id, CalcGame.game_id).where(
        CalcGame.list_id == ids[0] if len(ids) == 1 else CalcGame.list_id.in_(ids)
    )
    if player_id is not None:
        counted_query = counted_query.where(CalcGame.player_id == player_id)
    counted = {(list_id, pid, gid) for list_id, pid, gid in session.execute(counted_query)}
    # The sides not counted, in the games' order; most often none, and then nothing more is read.
    missing: list[tuple[_Game, int, int | None, str]] = []
    for g in games:
        sides = [(g.white_id, g.black_id, g.white_result)]
        if g.black_id is not None:
            sides.append((g.black_id, g.white_id, g.black_result or ""))
        for me, other, result in sides:
            if (player_id is None or me == player_id) and (list_of[g.event_id], me, g.id) not in counted:
                missing.append((g, me, other, result))
    if not missing:
        return {}
    missed_events = {g.event_id for g, *_ in missing}
    titles: dict[int, str] = {
        event_id: title
        for event_id, title in session.execute(
            select(Event.id, shown_name()).where(Event.id.in_(missed_events))
        )
    }
    others = {other for _, _, other, _ in missing if other is not None}
    names: dict[int, str] = {
        pid: name
        for pid, name in session.execute(select(Player.id, Player.name).where(Player.id.in_(others)))
    }
    return _explained(session, missing, events, list_of, titles, names)


def _explained(
    session: Session,
    missing: list[tuple[_Game, int, int | None, str]],
    events: dict[int, _Event],
    list_of: Mapping[int, int],
    titles: dict[int, str],
    names: dict[int, str],
    in_force: InForce | None = None,
    kept: Mapping[int, ListColumns] | None = None,
) -> dict[tuple[int, int], list[NotRated]]:
    """The sides not counted (game, player, opponent, result), each with its reason, by (list id, player
    id): the ratings at the events' start are read for the rated games with an opponent (or looked up in
    the lists `kept`)."""
    missed_events = {g.event_id for g, *_ in missing}
    asked = {
        (g.event_id, pid)
        for g, me, other, _ in missing
        if other is not None and g.rated
        for pid in (me, other)
    }
    rated_at = _ratings_at_start(session, [events[i] for i in missed_events], asked, in_force, kept)
    found: dict[tuple[int, int], list[NotRated]] = defaultdict(list)
    for g, me, other, result in missing:
        if other is None:
            reason = BYE
        elif not g.rated:
            reason = FORFEIT
        else:
            mine, theirs = rated_at(g.event_id, me), rated_at(g.event_id, other)
            if mine is not None and theirs is None:
                reason = OPPONENT_UNRATED
            elif mine is None and theirs is None:
                reason = BOTH_UNRATED
            else:
                reason = APART
        name = names.get(other) if other else None
        found[(list_of[g.event_id], me)].append(
            NotRated(g.event_id, titles[g.event_id], g.round, name, other, result, reason)
        )
    return dict(found)


def _current_lists(session: Session, rating_types: Iterable[str]) -> dict[str, list[tuple[dt.date, int]]]:
    """The current lists of each of `rating_types`: (date, id), by date (the lists that can be in force)."""
    lists: dict[str, list[tuple[dt.date, int]]] = defaultdict(list)
    for rating_type, list_date, list_id in session.execute(
        select(RatingList.rating_type, RatingList.list_date, RatingList.id)
        .where(RatingList.rating_type.in_(set(rating_types)), RatingList.is_current.is_(True))
        .order_by(RatingList.list_date)
    ):
        lists[rating_type].append((list_date, list_id))
    return dict(lists)


def _ratings_at_start(
    session: Session,
    events: list[_Event],
    wanted: set[tuple[int, int]],
    current: InForce | None = None,
    kept: Mapping[int, ListColumns] | None = None,
) -> Callable[[int, int], int | None]:
    """rating(event id, player id) on the list in force at the event's start (§3), or None, for the
    (event id, player id) pairs `wanted`; `current`: the current lists of each type, when known; `kept`:
    lists in memory by id, looked up instead of read."""
    if current is None:
        current = _current_lists(session, {e.rating_type for e in events})
    lists: Mapping[str, Sequence[tuple[dt.date, int]]] = defaultdict(list, current)
    by_event: dict[int, int | None] = {}
    for e in events:
        of_type = lists[e.rating_type]
        index = bisect.bisect_right(of_type, (e.start_date, float("inf"))) - 1
        by_event[e.id] = of_type[index][1] if index >= 0 else (of_type[0][1] if of_type else None)
    asked: dict[int, set[int]] = defaultdict(set)  # list id → the players whose rating on it is asked
    for event_id, pid in wanted:
        in_force = by_event.get(event_id)
        if in_force is not None:
            asked[in_force].add(pid)
    ratings: dict[tuple[int, int], int | None] = {}
    if kept is not None:
        for list_id in [i for i in asked if i in kept]:
            columns = kept[list_id]
            ratings.update(((list_id, pid), columns.rating(pid)) for pid in asked.pop(list_id))
    if asked:
        # One statement for every list (a player's page asks of up to one list a close): the lists' entries
        # of all the players asked, the pairs not asked dropped here. A statement costs more to make and
        # run than the few extra rows it reads (bench/RESULTS.md, issue 28, "threads").
        everyone = set().union(*asked.values())
        for list_id, pid, value in session.execute(
            select(ListEntry.list_id, ListEntry.player_id, ListEntry.rating).where(
                ListEntry.list_id.in_(asked), ListEntry.player_id.in_(everyone)
            )
        ):
            if pid in asked[list_id]:
                ratings[(list_id, pid)] = value

    def rated_at(event_id: int, pid: int) -> int | None:
        list_id = by_event.get(event_id)
        return None if list_id is None else ratings.get((list_id, pid))

    return rated_at
