"""`report event` and the crosstable: an event from the stored calculation record (Ro, Rc, K × Σ, Rp).

Takes a Session; reads the record the close wrote and never re-rates. The performance rating is the
rules' `performance_rating` applied to the stored per-game opponent ratings. No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import UnknownEvent
from ratingdb.rating import performance_rating
from ratingdb.schema.models import (
    CalcEvent,
    CalcGame,
    CalcPlayer,
    Event,
    EventPlayer,
    Game,
    ListEntry,
    Player,
    RatingList,
)  # fmt: skip
from ratingdb.services.integrity import current_reviews
from ratingdb.titles import title_of

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
    status: str  # rated | newly rated | unrated | not rated | not rated yet (the period is open)
    new_rating: int | None  # the rating on the list the close published; None: unrated, or not closed
    player_id: int
    title: str | None
    club: str | None = None  # the club the file's federation column named (import-trf --federation-column)


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
    # The rating officer excluded it from rating (`event review`, FIDE's right not to rate a tournament).
    excluded_reason: str | None = None

    @property
    def late(self) -> bool:
        return self.period > self.natural_period


def event_ids(session: Session, rating_types: Sequence[str]) -> list[int]:
    """The ids of every current event of the given types (replaced versions left out), in date order."""
    return list(
        session.scalars(
            select(Event.id)
            .where(Event.rating_type.in_(rating_types), Event.is_current.is_(True))
            .order_by(Event.start_date, Event.end_date, Event.id)
        )
    )


def event_report(session: Session, event_id: int) -> EventReport:
    """Every player of the event with the stored calculation of the close that rated it."""
    event = session.get(Event, event_id)
    if event is None:
        raise UnknownEvent(f"there is no event {event_id}: `ratingdb events` lists them")
    rated_by = session.scalars(
        select(RatingList).where(
            RatingList.rating_type == event.rating_type,
            RatingList.period == event.period,
            RatingList.origin == "computed",
            RatingList.is_current.is_(True),
        )
    ).one_or_none()
    records: dict[int, CalcEvent] = {}
    methods: dict[int, str] = {}
    published: dict[int, int | None] = {}
    opponents: dict[int, list[int]] = defaultdict(list)
    ratings_from = None
    # The record is keyed by list and player: reach the event's rows through its players, named as
    # values (the engines push those into calc_event's view; a subquery they do not).
    players = list(session.scalars(select(EventPlayer.player_id).where(EventPlayer.event_id == event_id)))
    if rated_by is not None:
        for ce in session.scalars(
            select(CalcEvent).where(
                CalcEvent.list_id == rated_by.id,
                CalcEvent.player_id.in_(players),
                CalcEvent.event_id == event_id,
            )
        ):
            records[ce.player_id] = ce
        for player_id, method in session.execute(
            select(CalcPlayer.player_id, CalcPlayer.method)
            .join(CalcEvent, CalcEvent.player_id == CalcPlayer.player_id)
            .where(
                CalcPlayer.list_id == rated_by.id,
                CalcEvent.list_id == rated_by.id,
                CalcEvent.player_id.in_(players),
                CalcEvent.event_id == event_id,
            )
        ):
            methods[player_id] = method
        # The new rating of every player of the event is the one the close published (its whole period,
        # not this event alone), so it is read from the list, not from the calculation record.
        published = {
            player_id: rating
            for player_id, rating in session.execute(
                select(ListEntry.player_id, ListEntry.rating)
                .join(EventPlayer, EventPlayer.player_id == ListEntry.player_id)
                .where(ListEntry.list_id == rated_by.id, EventPlayer.event_id == event_id)
            )
        }
        for player_id, opponent_rating in session.execute(
            select(CalcGame.player_id, CalcGame.opponent_rating)
            .where(
                CalcGame.list_id == rated_by.id,
                CalcGame.player_id.in_(players),
                CalcGame.event_id == event_id,
            )
            .order_by(CalcGame.player_id, CalcGame.game_id)
        ):
            opponents[player_id].append(opponent_rating)
        first = next(iter(records.values()), None)
        if first is not None:
            ratings_from = session.get(RatingList, first.ratings_list_id).list_date  # type: ignore[union-attr]

    lines = []
    for start_rank, player_id, fide_id, national_id, name, title, club in session.execute(
        select(
            EventPlayer.start_rank,
            Player.id,
            Player.fide_id,
            Player.national_id,
            Player.name,
            Player.title,
            EventPlayer.club,
        )
        .join(Player, Player.id == EventPlayer.player_id)
        .where(EventPlayer.event_id == event_id)
        .order_by(EventPlayer.start_rank)
    ):
        record = records.get(player_id)
        if record is None:
            lines.append(
                EventLine(
                    start_rank, fide_id, national_id, name, ro=None, rc_x100=None, games=0, score_x100=None,
                    k=None, k_sum_dr_x100=None, performance=None,
                    status="not rated yet" if rated_by is None else "not rated",
                    new_rating=published.get(player_id), player_id=player_id, title=title, club=club,
                )
            )  # fmt: skip
            continue
        method = methods.get(player_id, "pool")
        played = opponents.get(player_id, [])
        lines.append(
            EventLine(
                start_rank, fide_id, national_id, name, ro=record.ro, rc_x100=record.rc_x100, games=record.n,
                score_x100=record.score_x100, k=record.k, k_sum_dr_x100=record.k_sum_dr_x100,
                # Presentation of stored games: Rp over the opponents' ratings the close used.
                performance=performance_rating(played, record.score_x100).rating if played else None,
                status=STATUS[method],
                new_rating=published.get(player_id),
                player_id=player_id, title=title, club=club,
            )
        )  # fmt: skip
    review = current_reviews(session, [event.id]).get(event.id)
    return EventReport(
        event.id,
        title_of(session, event.id),
        event.start_date,
        event.end_date,
        event.rating_type,
        event.period,
        event.natural_period,
        rated_by.list_date if rated_by else None,
        ratings_from,
        lines,
        review.reason if review is not None and review.excluded else None,
    )


# --- the crosstable -----------------------------------------------------------------------------------

# Points of a TRF result code: wins, forfeit wins and full-point byes 1; draws and half-point byes ½.
POINTS_X10 = {"1": 10, "+": 10, "W": 10, "F": 10, "=": 5, "D": 5, "H": 5}


@dataclass(frozen=True)
class RoundCell:
    """One round of a player's crosstable line."""

    opponent_place: int | None  # None: a bye (H, F, U, Z)
    colour: str | None  # "w", "b", or None when unknown or a bye
    result: str  # the TRF result code as recorded: 1 = 0 + - W D L H F U Z


@dataclass(frozen=True)
class CrossLine:
    place: int  # by points, then starting rank (the event's own tie-breaks are not stored)
    points_x10: int  # the points the file showed, else counted from the results
    line: EventLine
    rounds: tuple[RoundCell | None, ...]  # None: not paired in that round


def crosstable(session: Session, report: EventReport) -> list[CrossLine]:
    """The event's crosstable in order of points: each round's opponent (by place), colour and result."""
    event = session.get(Event, report.event_id)
    assert event is not None  # event_report found it
    file_points: dict[int, int | None] = {
        player_id: shown
        for player_id, shown in session.execute(
            select(EventPlayer.player_id, EventPlayer.points_x10).where(EventPlayer.event_id == event.id)
        )
    }
    rounds = max(event.rounds, 0)
    cells: dict[int, dict[int, tuple[int | None, str | None, str]]] = defaultdict(dict)
    for rnd, white, black, white_result, black_result, colour_known in session.execute(
        select(
            Game.round, Game.white_id, Game.black_id, Game.white_result, Game.black_result, Game.colour_known
        )
        .where(Game.event_id == event.id)
        .order_by(Game.round, Game.id)
    ):
        rounds = max(rounds, rnd)
        cells[white][rnd] = (black, "w" if colour_known and black is not None else None, white_result)
        if black is not None:
            cells[black][rnd] = (white, "b" if colour_known else None, black_result or "")

    def points(player_id: int) -> int:
        shown = file_points.get(player_id)
        if shown is not None:
            return shown
        return sum(POINTS_X10.get(result, 0) for _, _, result in cells[player_id].values())

    order = sorted(report.lines, key=lambda line: (-points(line.player_id), line.start_rank))
    place = {line.player_id: n for n, line in enumerate(order, 1)}

    def cell(player_id: int, rnd: int) -> RoundCell | None:
        if rnd not in cells[player_id]:
            return None
        opponent, colour, result = cells[player_id][rnd]
        return RoundCell(None if opponent is None else place.get(opponent), colour, result)

    return [
        CrossLine(
            place[line.player_id],
            points(line.player_id),
            line,
            tuple(cell(line.player_id, rnd) for rnd in range(1, rounds + 1)),
        )
        for line in order
    ]
