"""The figures every account of a close gives, defined once: the close's summary, `report period`, the site.

Counted from what the close wrote (the period's games, its calculation record, the two lists), so the CLI
at the close and a report read a year later give the same numbers under the same names. Takes a Session
and reads only; must not import the CLI, the web app or the reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from sqlalchemy import Select, and_, case, distinct, func, or_, select
from sqlalchemy.orm import Session, aliased

from ratingdb import engines
from ratingdb.schema.models import (
    CalcGame,
    CalcPlayer,
    Event,
    Game,
    Glicko2CalcGame,
    Glicko2CalcPlayer,
    ListEntry,
)
from ratingdb.services.exclusions import not_excluded

__all__ = ["COUNT_NAMES", "CloseCounts", "EventCounts", "close_counts", "event_counts"]


class CloseCounts(NamedTuple):
    """What one close rated (docs/guide/reports.md defines each figure in the same words)."""

    games_played: int = 0  # games played over the board in the period's events (not byes or forfeits, §5.1)
    games_rated: int = 0  # of those, the games the calculation record counts for anyone: a rating change
    # or a pool toward a first rating
    games_changing_a_rating: int = 0  # the games in a rated player's change or in a first rating published
    players_rated: int = 0  # players whose rating the close recalculated from games (Elo: rated players;
    # Glicko-2: everyone with games)
    newly_rated: int = 0  # players with a rating on the new list and none on the list in force


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
    glicko2_games = session.scalar(
        select(func.count(distinct(Glicko2CalcGame.game_id))).where(Glicko2CalcGame.list_id == list_id)
    )
    first_ratings = select(CalcPlayer.player_id).where(
        CalcPlayer.list_id == list_id, CalcPlayer.method == "initial"
    )
    # Both Elo figures in one pass over the list's calculation record (the costliest of these queries).
    changing_game = case(
        (or_(CalcGame.kind == "rated", CalcGame.player_id.in_(first_ratings)), CalcGame.game_id)
    )
    elo_games, changing = session.execute(
        select(func.count(distinct(CalcGame.game_id)), func.count(distinct(changing_game))).where(
            CalcGame.list_id == list_id
        )
    ).one()
    elo_players = session.scalar(
        select(func.count())
        .select_from(CalcPlayer)
        .where(CalcPlayer.list_id == list_id, CalcPlayer.method == "change")
    )
    glicko2_players = session.scalar(
        select(func.count())
        .select_from(Glicko2CalcPlayer)
        .where(Glicko2CalcPlayer.list_id == list_id, Glicko2CalcPlayer.games > 0)
    )
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
        games_rated=(elo_games or 0) + (glicko2_games or 0),
        games_changing_a_rating=(changing or 0) + (glicko2_games or 0),
        players_rated=(elo_players or 0) + (glicko2_players or 0),
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
        for table in (CalcGame, Glicko2CalcGame):
            for event_id, n in session.execute(
                select(table.event_id, func.count(distinct(table.game_id)))
                .where(table.list_id == list_id, table.event_id.in_(ids))
                .group_by(table.event_id)
            ):
                rated[event_id] = rated.get(event_id, 0) + n
    return {
        event_id: EventCounts(
            totals.get(event_id, (0, 0))[0], rated.get(event_id, 0), totals.get(event_id, (0, 0))[1]
        )
        for event_id in ids
    }
