"""The figures every account of a close gives, defined once: the close's summary, `report period`, the site.

Counted from what the close wrote (the period's games, its calculation record, the two lists), so the CLI
at the close and a report read a year later give the same numbers under the same names. Takes a Session
and reads only; must not import the CLI, the web app or the reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from sqlalchemy import Select, and_, case, func, select
from sqlalchemy.orm import Session, aliased

from ratingdb import engines
from ratingdb.schema.models import Event, Game, ListEntry
from ratingdb.services.exclusions import not_excluded
from ratingdb.services.systems import CloseCounts, systems

__all__ = ["COUNT_NAMES", "CloseCounts", "EventCounts", "close_counts", "event_counts"]


# How each figure is named wherever it is shown (CLI, report, site): one name each.
COUNT_NAMES = {
    "games_played": "games played",
    "games_rated": "games rated",
    "games_changing_a_rating": "games that changed a rating",
    "players_rated": "players rated",
    "newly_rated": "newly rated",
}


class EventCounts(NamedTuple):
    """One event of a closed (or, before the close, an open) period."""

    games_played: int  # played over the board
    games_rated: int  # in the calculation record of the close (0 before it)
    not_played: int  # pairings that are no game: byes, forfeits, games of less than one move


def _events(period: str, rating_type: str) -> Select[int]:
    return select(Event.id).where(
        Event.period == period, Event.rating_type == rating_type, Event.is_current.is_(True), not_excluded()
    )


def close_counts(
    session: Session, list_id: int, in_force_id: int, period: str, rating_type: str
) -> CloseCounts:
    """The figures of the close that published `list_id` (period `period`) from the list `in_force_id`."""
    played = session.scalar(
        select(func.count())
        .select_from(Game)
        .where(
            Game.event_id.in_(_events(period, rating_type)), Game.rated.is_(True), Game.black_id.is_not(None)
        )
    )
    # Each system counts what its own record holds (one system's record has rows for the list).
    record = [system.record_counts(session, list_id) for system in systems()]
    new, old = aliased(ListEntry), aliased(ListEntry)
    with engines.of(session).whole_lists_joined(session):  # whatever the planner knows of a new list
        newly = session.scalar(
            select(func.count())
            .select_from(new)
            .outerjoin(old, and_(old.player_id == new.player_id, old.list_id == in_force_id))
            .where(new.list_id == list_id, new.games > 0, new.rating.is_not(None), old.rating.is_(None))
        )
    return CloseCounts(
        games_played=played or 0,
        games_rated=sum(r.games_rated for r in record),
        games_changing_a_rating=sum(r.games_changing_a_rating for r in record),
        players_rated=sum(r.players_rated for r in record),
        newly_rated=newly or 0,
    )


def event_counts(session: Session, event_ids: Iterable[int], list_id: int | None) -> dict[int, EventCounts]:
    """Per event: games played, games rated by the close of `list_id` (None: no close), pairings unplayed."""
    ids = sorted(set(event_ids))
    if not ids:
        return {}
    played_game = and_(Game.rated.is_(True), Game.black_id.is_not(None))
    totals = {
        event_id: (int(played or 0), int(pairings or 0) - int(played or 0))  # MariaDB sums as DECIMAL
        for event_id, pairings, played in session.execute(
            select(
                Game.event_id,
                func.count(),
                func.sum(case((played_game, 1), else_=0)),
            )
            .where(Game.event_id.in_(ids))
            .group_by(Game.event_id)
        )
    }
    rated: dict[int, int] = {}
    if list_id is not None:
        for system in systems():
            for event_id, n in system.event_games_rated(session, list_id, ids).items():
                rated[event_id] = rated.get(event_id, 0) + n
    return {
        event_id: EventCounts(
            totals.get(event_id, (0, 0))[0], rated.get(event_id, 0), totals.get(event_id, (0, 0))[1]
        )
        for event_id in ids
    }
