"""`report event`: a tournament report from the stored calculation record (Ro, Rc, K × Σ, Rp).

Takes a Session; reads the record the close wrote and never re-rates. The performance rating is the
rules' `performance_rating` applied to the stored per-game opponent ratings. No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import UnknownEvent
from ratingdb.models import CalcEvent, CalcGame, CalcPlayer, Event, EventPlayer, Player, RatingList
from ratingdb.rating import performance_rating

STATUS = {"change": "rated", "initial": "newly rated", "pool": "unrated"}


@dataclass(frozen=True)
class EventLine:
    """One player of the event: what the close recorded for them in this event."""

    start_rank: int
    fide_id: int | None
    national_id: str | None
    name: str
    ro: int | None  # rating used (from the list at the event's start); None: unrated
    rc_x100: int | None  # average rating of the rated opponents × 100
    games: int  # games that counted (rated, or pooled toward a first rating)
    score_x100: int | None
    k: int | None  # K used in the period (after the 700 rule)
    k_sum_dr_x100: int | None  # K × Σ(score − PD) in this event, unrounded
    performance: int | None  # Title Regulations §1.4.8 over the games that counted
    status: str  # rated | newly rated | unrated | not rated
    new_rating: int | None  # the first rating, for a player newly rated by this close


@dataclass(frozen=True)
class EventReport:
    event_id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    rating_type: str
    period: str
    natural_period: str
    list_date: dt.date | None  # the list the close published; None while the period is open
    ratings_from: dt.date | None  # the list whose ratings the event used
    lines: list[EventLine]

    @property
    def late(self) -> bool:
        return self.period > self.natural_period


def event_report(session: Session, event_id: int) -> EventReport:
    """Every player of the event with the stored calculation of the close that rated it."""
    event = session.get(Event, event_id)
    if event is None:
        raise UnknownEvent(f'there is no event {event_id} (see `ratingdb sql "SELECT * FROM v_event"`)')
    rated_by = session.scalars(
        select(RatingList).where(
            RatingList.rating_type == event.rating_type,
            RatingList.period == event.period,
            RatingList.origin == "computed",
            RatingList.is_current.is_(True),
        )
    ).one_or_none()
    records: dict[int, CalcEvent] = {}
    methods: dict[int, tuple[str, int | None]] = {}
    opponents: dict[int, list[int]] = defaultdict(list)
    ratings_from = None
    if rated_by is not None:
        for ce in session.scalars(
            select(CalcEvent).where(CalcEvent.list_id == rated_by.id, CalcEvent.event_id == event_id)
        ):
            records[ce.player_id] = ce
        for player_id, method, new_rating in session.execute(
            select(CalcPlayer.player_id, CalcPlayer.method, CalcPlayer.new_rating)
            .join(CalcEvent, CalcEvent.player_id == CalcPlayer.player_id)
            .where(
                CalcPlayer.list_id == rated_by.id,
                CalcEvent.list_id == rated_by.id,
                CalcEvent.event_id == event_id,
            )
        ):
            methods[player_id] = (method, new_rating)
        for player_id, opponent_rating in session.execute(
            select(CalcGame.player_id, CalcGame.opponent_rating)
            .where(CalcGame.list_id == rated_by.id, CalcGame.event_id == event_id)
            .order_by(CalcGame.player_id, CalcGame.game_id)
        ):
            opponents[player_id].append(opponent_rating)
        first = next(iter(records.values()), None)
        if first is not None:
            ratings_from = session.get(RatingList, first.ratings_list_id).list_date  # type: ignore[union-attr]

    lines = []
    for start_rank, player_id, fide_id, national_id, name in session.execute(
        select(EventPlayer.start_rank, Player.id, Player.fide_id, Player.national_id, Player.name)
        .join(Player, Player.id == EventPlayer.player_id)
        .where(EventPlayer.event_id == event_id)
        .order_by(EventPlayer.start_rank)
    ):
        record = records.get(player_id)
        if record is None:
            lines.append(
                EventLine(
                    start_rank, fide_id, national_id, name, ro=None, rc_x100=None, games=0, score_x100=None,
                    k=None, k_sum_dr_x100=None, performance=None, status="not rated", new_rating=None,
                )
            )  # fmt: skip
            continue
        method, new_rating = methods.get(player_id, ("pool", None))
        played = opponents.get(player_id, [])
        lines.append(
            EventLine(
                start_rank, fide_id, national_id, name, ro=record.ro, rc_x100=record.rc_x100, games=record.n,
                score_x100=record.score_x100, k=record.k, k_sum_dr_x100=record.k_sum_dr_x100,
                # Presentation of stored games: Rp over the opponents' ratings the close used.
                performance=performance_rating(played, record.score_x100).rating if played else None,
                status=STATUS[method],
                new_rating=new_rating if method == "initial" else None,
            )
        )  # fmt: skip
    return EventReport(
        event.id,
        event.name,
        event.start_date,
        event.end_date,
        event.rating_type,
        event.period,
        event.natural_period,
        rated_by.list_date if rated_by else None,
        ratings_from,
        lines,
    )
