"""The calculator's --player lookup: a player's rating and K state from the newest list that has them.

Takes a Session from the caller and never commits; no rules here (K is derived by ratingdb.rating).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import MissingList, UnknownPlayer
from ratingdb.schema.models import ListEntry, Player, RatingList


@dataclass(frozen=True)
class PlayerState:
    """A player's entry on the newest list of one rating type that has them, with their birth year."""

    fide_id: int
    name: str
    rating_type: str
    list_date: dt.date
    rating: int | None  # None: unrated on that list
    k: int | None  # the K published on that list, if the list carries one
    games_total: int
    reached_2400: bool
    reached_2300: bool
    birth_year: int | None


def player_state(session: Session, fide_id: int, rating_type: str) -> PlayerState:
    """Rating, K, total games, the 2400/2300 flags and birth year from the newest list that has the player.

    UnknownPlayer when no player has this FIDE ID; MissingList when no list of `rating_type` has them.
    """
    player = session.scalars(select(Player).where(Player.fide_id == fide_id)).one_or_none()
    if player is None:
        raise UnknownPlayer(f"no player has FIDE ID {fide_id}")
    row = session.execute(
        select(ListEntry, RatingList.list_date)
        .join(RatingList, ListEntry.list_id == RatingList.id)
        .where(
            ListEntry.player_id == player.id,
            RatingList.rating_type == rating_type,
            RatingList.is_current.is_(True),
        )
        .order_by(RatingList.list_date.desc())
        .limit(1)
    ).first()
    if row is None:
        raise MissingList(f"{player.name} (FIDE ID {fide_id}) is on no {rating_type} list")
    entry, list_date = row
    return PlayerState(
        fide_id=fide_id,
        name=player.name,
        rating_type=rating_type,
        list_date=list_date,
        rating=entry.rating,
        k=entry.k,
        games_total=entry.games_total,
        reached_2400=entry.reached_2400,
        reached_2300=entry.reached_2300,
        birth_year=player.birth_year,
    )
