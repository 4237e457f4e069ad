"""Small builders for database tests: players, imported lists and events written through the models.

Used where a test needs exact ratings and games without a file; the import paths have their own tests.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
from collections.abc import Iterable, Mapping

from sqlalchemy.orm import Session

from ratingdb.rating import period_for_event
from ratingdb.schema.models import Event, EventPlayer, Game, ListEntry, Player, RatingList
from ratingdb.services.players import Details, register_player
from ratingdb.services.versions import record_change

_ids = itertools.count(1)


def player(
    session: Session, name: str, *, birth_year: int | None = 1990, sex: str = "M", fide_id: int | None = None
) -> Player:
    details = Details(
        name=name,
        birth_year=birth_year,
        sex=sex,
        fide_id=fide_id if fide_id is not None else next(_ids) + 900000,
    )
    return register_player(session, details, record_change(session, "test", f"registered {name}").id)


def imported_list(
    session: Session,
    rating_type: str,
    list_date: dt.date,
    entries: Mapping[Player, int | None | tuple[int | None, int]],
    *,
    games_total: int = 100,
    reached_2400: Iterable[Player] = (),
    version: int = 1,
) -> RatingList:
    """A list as imported: entries map a player to a rating or (rating, K)."""
    lst = RatingList(
        rating_type=rating_type,
        list_date=list_date,
        origin="imported",
        source="test",
        sealed=False,
        version=version,
    )
    session.add(lst)
    session.flush()
    high = set(reached_2400)
    for p, value in entries.items():
        rating, k = value if isinstance(value, tuple) else (value, None)
        session.add(
            ListEntry(
                list_id=lst.id,
                player_id=p.id,
                rating=rating,
                games=0,
                k=k,
                flag=None,
                change=None,
                games_total=games_total if rating is not None else 0,
                reached_2400=p in high or (rating or 0) >= 2400,
                reached_2300=(rating or 0) >= 2300,
                last_active=None,
                pool_from=None,
                player_version_id=p.current_version_id,
            )
        )
    session.flush()
    lst.sealed = True  # as every command does once a list's rows are written
    session.flush()
    return lst


def event(
    session: Session,
    name: str,
    start: dt.date,
    end: dt.date,
    games: Iterable[tuple[Player, Player, str]],
    *,
    rating_type: str = "standard",
    period: str | None = None,
) -> Event:
    """An event with played games given as (white, black, result for white: '1', '=', '0', '+', '-')."""
    natural = str(period_for_event(end))
    ev = Event(
        name=name,
        start_date=start,
        end_date=end,
        rating_type=rating_type,
        official=False,
        rounds=0,
        period=period or natural,
        natural_period=natural,
        source_name=f"{name}.trf",
        source_hash=hashlib.sha256(name.encode()).hexdigest(),
    )
    session.add(ev)
    session.flush()
    opposite = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+"}
    ranks: dict[int, int] = {}
    for rnd, (white, black, result) in enumerate(games, start=1):
        for p in (white, black):
            if p.id not in ranks:
                ranks[p.id] = len(ranks) + 1
                session.add(EventPlayer(event_id=ev.id, start_rank=ranks[p.id], player_id=p.id))
        session.add(
            Game(
                event_id=ev.id,
                round=rnd,
                date=start,
                white_id=white.id,
                black_id=black.id,
                white_result=result,
                black_result=opposite[result],
                rated=result in ("1", "=", "0"),
                colour_known=True,
            )
        )
    ev.rounds = len(ranks)
    session.flush()
    return ev
