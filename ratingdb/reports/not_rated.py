"""The games of a close's period that did not count for a player, and why: the note under a calculation.

A visitor who played five games and sees four in the calculation deserves the fifth with its reason.
Takes a Session; reads only the stored games, lists and calculation record (nothing is recomputed: a game
is "not counted" when the record has no row for it). No CLI or web imports.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import bindparam, case, or_, select, tuple_
from sqlalchemy.orm import Session, aliased

from ratingdb.i18n import N_
from ratingdb.reports.lists import AnySelect, Close
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


def player_not_rated_in(
    session: Session, player_id: int, lists: Sequence[Close]
) -> dict[int, list[NotRated]]:
    """The player's games not counted in each close that published one of `lists`, by the list's id.

    A player's page asks this of every close of the site, most often two dozen: one statement finds the
    sides of the player's games that the closes' records lack (most often none, and then that is all),
    with what the note needs of each; only when some are found are the ratings at the events' start read
    (two more). Built once, given its values at each call: building the queries of `_not_rated` anew,
    and the statements it sends, were most of what a player's page cost (bench/RESULTS.md, issue 28)."""
    ids = [lst.id for lst in lists if lst.period is not None]
    if not ids:
        return {}
    rows = session.execute(_player_query(), {"player": player_id, "lists": ids}).all()
    if not rows:
        return {}
    events = {r.event_id: _Event(r.event_id, r.period, r.rating_type, r.start_date) for r in rows}
    missing = [
        (
            _Game(r.id, r.event_id, r.round, r.white_id, r.black_id, r.white_result, r.black_result, r.rated),
            player_id,
            r.black_id if r.white_id == player_id else r.white_id,
            (r.white_result if r.white_id == player_id else r.black_result) or "",
        )
        for r in rows
    ]
    titles = {r.event_id: r.title for r in rows}
    names = {r.opponent_id: r.opponent for r in rows if r.opponent_id is not None}
    list_of = {r.event_id: r.list_id for r in rows}
    found = _explained(session, missing, events, list_of, titles, names)
    return {list_id: games for (list_id, _), games in found.items()}


@cache
def _player_query() -> AnySelect:
    """The sides of player `player`'s games, in the periods of the closes that published `lists`, that
    their calculation records lack, with the event's shown name and the opponent's (see
    player_not_rated_in)."""
    me: Any = bindparam("player")
    opponent = aliased(Player)
    white = Game.white_id == me
    in_record = (
        select(CalcGame.game_id)
        .where(CalcGame.list_id == RatingList.id, CalcGame.player_id == me, CalcGame.game_id == Game.id)
        .exists()
    )
    return (
        select(
            Game.id, Game.event_id, Game.round, Game.white_id, Game.black_id,
            Game.white_result, Game.black_result, Game.rated,
            RatingList.id.label("list_id"), Event.period, Event.rating_type, Event.start_date,
            shown_name().label("title"), opponent.id.label("opponent_id"), opponent.name.label("opponent"),
        )  # fmt: skip
        .join(Event, (Event.id == Game.event_id) & Event.is_current.is_(True))
        .join(
            RatingList,
            RatingList.id.in_(bindparam("lists", expanding=True))
            & (RatingList.period == Event.period)
            & (RatingList.rating_type == Event.rating_type),
        )
        .outerjoin(opponent, opponent.id == case((white, Game.black_id), else_=Game.white_id))
        .where(or_(white, Game.black_id == me), ~in_record)
        .order_by(Game.event_id, Game.round, Game.id)
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
    list_of: dict[int, int],
    titles: dict[int, str],
    names: dict[int, str],
) -> dict[tuple[int, int], list[NotRated]]:
    """The sides not counted (game, player, opponent, result), each with its reason, by (list id, player
    id): the ratings at the events' start are read for the rated games with an opponent."""
    missed_events = {g.event_id for g, *_ in missing}
    asked = {
        (g.event_id, pid)
        for g, me, other, _ in missing
        if other is not None and g.rated
        for pid in (me, other)
    }
    rated_at = _ratings_at_start(session, [events[i] for i in missed_events], asked)
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


def _ratings_at_start(
    session: Session, events: list[_Event], wanted: set[tuple[int, int]]
) -> Callable[[int, int], int | None]:
    """rating(event id, player id) on the list in force at the event's start (§3), or None, for the
    (event id, player id) pairs `wanted`."""
    lists: dict[str, list[tuple[dt.date, int]]] = defaultdict(list)
    for rating_type, list_date, list_id in session.execute(
        select(RatingList.rating_type, RatingList.list_date, RatingList.id)
        .where(RatingList.rating_type.in_({e.rating_type for e in events}), RatingList.is_current.is_(True))
        .order_by(RatingList.list_date)
    ):
        lists[rating_type].append((list_date, list_id))
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
