"""`events`: the imported events with their IDs, periods, sizes and whether a close has rated them.

Read-only queries over event, event_player, game and rating_list. Takes a Session; no CLI imports.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from ratingdb.rating import Period
from ratingdb.schema.models import Event, EventPlayer, Game, RatingList
from ratingdb.services.exclusions import excluded_ids
from ratingdb.titles import shown_name


@dataclass(frozen=True)
class EventSummary:
    """One imported event as `ratingdb events` lists it."""

    id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    rating_type: str
    period: str  # the period that rates it
    late: bool  # rated in a later period than its own (§9.1)
    players: int
    games: int  # games played over the board (forfeits and byes are not counted)
    rated: bool  # the close of its period has published a list that rates this version
    source_name: str  # the file it was imported from
    current: bool = True  # False: a version withdrawn by replace-event or delete-event


def find_events(
    session: Session,
    *,
    period: Period | None = None,
    rating_type: str | None = None,
    name: str | None = None,
    withdrawn: bool = False,
) -> list[EventSummary]:
    """Events by start date, narrowed to a period, a rating type and names containing `name`.

    Only the current version of each event unless `withdrawn`: a version withdrawn by `replace-event`
    or `delete-event` is kept for the withdrawn lists it explains, but is no longer rated.
    """
    players = (
        select(func.count())
        .select_from(EventPlayer)
        .where(EventPlayer.event_id == Event.id)
        .scalar_subquery()
    )
    games = (
        select(func.count()).select_from(Game).where(Game.event_id == Event.id, Game.rated).scalar_subquery()
    )
    # An event the officer excluded (`event review`) is not rated by its period's close.
    rated = exists().where(
        RatingList.is_current.is_(True),  # a withdrawn list (its period reopened) does not count
        RatingList.origin == "computed",
        RatingList.rating_type == Event.rating_type,
        RatingList.period == Event.period,
        Event.id.not_in(excluded_ids()),
    )
    query = select(
        Event.id,
        shown_name(),
        Event.start_date,
        Event.end_date,
        Event.rating_type,
        Event.period,
        Event.natural_period,
        players,
        games,
        rated,
        Event.source_name,
        Event.is_current,
    ).order_by(Event.start_date, Event.id)
    if not withdrawn:
        query = query.where(Event.is_current.is_(True))
    if period is not None:
        query = query.where(Event.period == str(period))
    if rating_type is not None:
        query = query.where(Event.rating_type == rating_type)
    if name:
        query = query.where(func.lower(shown_name()).contains(name.lower(), autoescape=True))
    return [
        EventSummary(
            id=row[0],
            name=row[1],
            start_date=row[2],
            end_date=row[3],
            rating_type=row[4],
            period=row[5],
            late=row[5] > row[6],
            players=row[7],
            games=row[8],
            # A withdrawn version is not rated by the list in force, even if its period is closed.
            rated=bool(row[9]) and bool(row[11]),
            source_name=row[10],
            current=bool(row[11]),
        )
        for row in session.execute(query)
    ]
