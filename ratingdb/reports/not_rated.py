"""The games of a close's period that did not count for a player, and why: the note under a calculation.

A visitor who played five games and sees four in the calculation deserves the fifth with its reason.
Takes a Session; reads only the stored games, lists and calculation record (nothing is recomputed: a game
is "not counted" when the record has no row for it). No CLI or web imports.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import NamedTuple

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from ratingdb.i18n import N_
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
    if new_list.period is None:
        return {}
    events = {
        e.id: e
        for e in session.scalars(
            select(Event).where(
                Event.period == new_list.period,
                Event.rating_type == new_list.rating_type,
                Event.is_current.is_(True),
            )
        )
    }
    if not events:
        return {}
    titles: dict[int, str] = {
        event_id: title
        for event_id, title in session.execute(select(Event.id, shown_name()).where(Event.id.in_(events)))
    }
    query = select(Game).where(Game.event_id.in_(events))
    if player_id is not None:
        query = query.where(or_(Game.white_id == player_id, Game.black_id == player_id))
    games = list(session.scalars(query.order_by(Game.event_id, Game.round, Game.id)))
    counted_query = select(CalcGame.player_id, CalcGame.game_id).where(CalcGame.list_id == new_list.id)
    if player_id is not None:
        counted_query = counted_query.where(CalcGame.game_id.in_([g.id for g in games]))
    counted = {(pid, gid) for pid, gid in session.execute(counted_query)}
    rated_at = _ratings_at_start(session, new_list.rating_type, events.values(), games)
    everyone = {g.white_id for g in games} | {g.black_id for g in games if g.black_id is not None}
    names: dict[int, str] = {
        pid: name
        for pid, name in session.execute(select(Player.id, Player.name).where(Player.id.in_(everyone)))
    }
    found: dict[int, list[NotRated]] = defaultdict(list)
    for g in games:
        sides = [(g.white_id, g.black_id, g.white_result)]
        if g.black_id is not None:
            sides.append((g.black_id, g.white_id, g.black_result or ""))
        for me, other, result in sides:
            if (player_id is not None and me != player_id) or (me, g.id) in counted:
                continue
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
            found[me].append(
                NotRated(
                    g.event_id,
                    titles[g.event_id],
                    g.round,
                    names.get(other) if other else None,
                    other,
                    result,
                    reason,
                )
            )
    return dict(found)


def _ratings_at_start(
    session: Session, rating_type: str, events: Iterable[Event], games: list[Game]
) -> Callable[[int, int], int | None]:
    """rating(event id, player id) on the list in force at the event's start (§3), or None."""
    lists = [
        (list_date, list_id)
        for list_date, list_id in session.execute(
            select(RatingList.list_date, RatingList.id)
            .where(RatingList.rating_type == rating_type, RatingList.is_current.is_(True))
            .order_by(RatingList.list_date)
        )
    ]
    by_event: dict[int, int | None] = {}
    for e in events:
        index = bisect.bisect_right(lists, (e.start_date, float("inf"))) - 1
        by_event[e.id] = lists[index][1] if index >= 0 else (lists[0][1] if lists else None)
    players = {g.white_id for g in games} | {g.black_id for g in games if g.black_id is not None}
    ratings: dict[tuple[int, int], int | None] = {}
    for list_id in {i for i in by_event.values() if i is not None}:
        for pid, value in session.execute(
            select(ListEntry.player_id, ListEntry.rating).where(
                ListEntry.list_id == list_id, ListEntry.player_id.in_(players)
            )
        ):
            ratings[(list_id, pid)] = value

    def rated_at(event_id: int, pid: int) -> int | None:
        list_id = by_event.get(event_id)
        return None if list_id is None else ratings.get((list_id, pid))

    return rated_at
