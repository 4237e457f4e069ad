"""Read-only queries behind `list`, `player` and `calculation`: published lists and the calculation record.

Takes a Session; reads only. Never recomputes a rating: everything comes from stored lists and records.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Generator
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, MissingList, UnknownPlayer
from ratingdb.models import (
    AuditEntry,
    CalcEvent,
    CalcGame,
    CalcPlayer,
    Event,
    Game,
    ListEntry,
    Player,
    RatingList,
)
from ratingdb.rating import Period
from ratingdb.services.lists import latest_list, list_version, require_list


@dataclass(frozen=True)
class ListLine:
    """One entry of a list with the player's details (the columns of the CSV list format)."""

    fide_id: int | None
    national_id: str | None
    name: str
    federation: str | None
    sex: str | None
    title: str | None
    birth_year: int | None
    rating: int | None
    games: int
    k: int | None
    flag: str | None
    change: int | None
    games_total: int
    reached_2400: bool
    reached_2300: bool


def find_list(
    session: Session, rating_type: str, list_date: dt.date | None, version: int | None = None
) -> RatingList:
    """The current list of that date (or that version of it), or the newest current list of the type."""
    if version is not None:
        if list_date is None:
            raise ConfigError("--version needs the list's date: `ratingdb list DATE --version N`")
        found = list_version(session, rating_type, list_date, version)
        if found is None:
            raise MissingList(
                f"the {rating_type} list dated {list_date.isoformat()} has no version {version} "
                "(`ratingdb lists` shows every version)"
            )
        return found
    if list_date is not None:
        return require_list(session, rating_type, list_date)
    newest = latest_list(session, rating_type)
    if newest is None:
        raise MissingList(
            f"there is no {rating_type} list yet: import one with `ratingdb import-list` or close a period"
        )
    return newest


def list_lines(
    session: Session, rating_list: RatingList, *, rated_only: bool = False
) -> Generator[ListLine, None, None]:
    """The entries of a list, best rating first, unrated last (streamed)."""
    query = (
        select(
            Player.fide_id,
            Player.national_id,
            Player.name,
            Player.federation,
            Player.sex,
            Player.title,
            Player.birth_year,
            ListEntry.rating,
            ListEntry.games,
            ListEntry.k,
            ListEntry.flag,
            ListEntry.change,
            ListEntry.games_total,
            ListEntry.reached_2400,
            ListEntry.reached_2300,
        )
        .join(Player, Player.id == ListEntry.player_id)
        .where(ListEntry.list_id == rating_list.id)
        .order_by(ListEntry.rating.is_(None), ListEntry.rating.desc(), Player.name, Player.id)
    )
    if rated_only:
        query = query.where(ListEntry.rating.is_not(None))
    result = session.execute(query.execution_options(yield_per=10_000))
    try:
        for row in result:
            yield ListLine(**row._asdict())
    finally:
        result.close()  # a server-side cursor on PostgreSQL: close it even when the reader stops early


def find_player(session: Session, ident: str) -> Player:
    """A player by FIDE ID, else by national ID."""
    text = ident.strip()
    found = None
    if text.isdigit():
        found = session.scalars(select(Player).where(Player.fide_id == int(text))).one_or_none()
    if found is None:
        found = session.scalars(select(Player).where(Player.national_id == text)).one_or_none()
    if found is None:
        raise UnknownPlayer(f"no player has FIDE ID or national ID '{ident}'")
    return found


@dataclass(frozen=True)
class HistoryLine:
    rating_type: str
    list_date: dt.date
    origin: str
    rating: int | None
    change: int | None
    games: int
    k: int | None
    flag: str | None


def player_history(session: Session, player: Player, rating_type: str | None = None) -> list[HistoryLine]:
    """The player's entries on every list, oldest first."""
    query = (
        select(
            RatingList.rating_type,
            RatingList.list_date,
            RatingList.origin,
            ListEntry.rating,
            ListEntry.change,
            ListEntry.games,
            ListEntry.k,
            ListEntry.flag,
        )
        .join(RatingList, RatingList.id == ListEntry.list_id)
        .where(ListEntry.player_id == player.id, RatingList.is_current.is_(True))
        .order_by(RatingList.rating_type, RatingList.list_date)
    )
    if rating_type is not None:
        query = query.where(RatingList.rating_type == rating_type)
    return [HistoryLine(*row) for row in session.execute(query)]


@dataclass(frozen=True)
class GameRecord:
    round: int
    opponent: str
    opponent_fide_id: int | None
    opponent_rating: int
    own_rating: int | None
    d: int | None
    pd_x100: int | None
    score_x100: int


@dataclass(frozen=True)
class EventRecord:
    event_id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    ratings_from: dt.date
    ro: int | None
    rc_x100: int
    n: int
    score_x100: int
    sum_dr_x100: int | None
    k: int | None
    k_sum_dr_x100: int | None
    note: str | None
    games: list[GameRecord]


@dataclass(frozen=True)
class Calculation:
    player: Player
    rating_type: str
    period: Period
    list_date: dt.date
    record: CalcPlayer | None
    entry: ListEntry | None
    events: list[EventRecord]


def calculation(session: Session, player: Player, period: Period, rating_type: str) -> Calculation:
    """The stored calculation of `player` in the close of `period`, per event and per game."""
    new_list = require_list(session, rating_type, period.published_list_date)
    if new_list.origin != "computed":
        raise MissingList(
            f"the {rating_type} list dated {new_list.list_date.isoformat()} was imported, not computed here: "
            "it has no calculation record"
        )
    record = session.get(CalcPlayer, (new_list.id, player.id))
    entry = session.get(ListEntry, (new_list.id, player.id))
    opponent = Player.__table__.alias("opponent")
    used = RatingList.__table__.alias("used")
    events: list[EventRecord] = []
    event_rows = session.execute(
        select(CalcEvent, Event.name, Event.start_date, Event.end_date, used.c.list_date)
        .join(Event, Event.id == CalcEvent.event_id)
        .join(used, used.c.id == CalcEvent.ratings_list_id)
        .where(CalcEvent.list_id == new_list.id, CalcEvent.player_id == player.id)
        .order_by(Event.start_date, Event.id)
    ).all()
    for ce, name, start, end, ratings_from in event_rows:
        games = [
            GameRecord(*row)
            for row in session.execute(
                select(
                    Game.round,
                    opponent.c.name,
                    opponent.c.fide_id,
                    CalcGame.opponent_rating,
                    CalcGame.own_rating,
                    CalcGame.d,
                    CalcGame.pd_x100,
                    CalcGame.score_x100,
                )
                .join(Game, Game.id == CalcGame.game_id)
                .join(opponent, opponent.c.id == CalcGame.opponent_id)
                .where(
                    CalcGame.list_id == new_list.id,
                    CalcGame.player_id == player.id,
                    CalcGame.event_id == ce.event_id,
                )
                .order_by(Game.round, Game.id)
            )
        ]
        events.append(
            EventRecord(
                ce.event_id,
                name,
                start,
                end,
                ratings_from,
                ce.ro,
                ce.rc_x100,
                ce.n,
                ce.score_x100,
                ce.sum_dr_x100,
                ce.k,
                ce.k_sum_dr_x100,
                ce.note,
                games,
            )
        )
    return Calculation(player, rating_type, period, new_list.list_date, record, entry, events)


@dataclass(frozen=True)
class ListVersionLine:
    list_id: int
    rating_type: str
    list_date: dt.date
    version: int
    state: str  # current | withdrawn
    origin: str
    period: str | None
    rules: str | None
    source: str | None
    players: int
    withdrawn_at: dt.datetime | None
    withdrawn_reason: str | None


def list_versions(session: Session, rating_type: str | None = None) -> list[ListVersionLine]:
    """Every version of every list, newest date first, with why a withdrawn one was withdrawn."""
    players = (
        select(func.count()).where(ListEntry.list_id == RatingList.id).correlate(RatingList).scalar_subquery()
    )
    query = (
        select(
            RatingList.id,
            RatingList.rating_type,
            RatingList.list_date,
            RatingList.version,
            RatingList.is_current,
            RatingList.origin,
            RatingList.period,
            RatingList.rules,
            RatingList.source,
            players,
            AuditEntry.created_at,
            AuditEntry.reason,
        )
        .outerjoin(AuditEntry, AuditEntry.id == RatingList.withdrawn_by)
        .order_by(RatingList.rating_type, RatingList.list_date.desc(), RatingList.version.desc())
    )
    if rating_type is not None:
        query = query.where(RatingList.rating_type == rating_type)
    return [
        ListVersionLine(
            lid, kind, date, version, "current" if current else "withdrawn", origin, period, rules, source,
            count, withdrawn_at, reason,
        )
        for lid, kind, date, version, current, origin, period, rules, source, count, withdrawn_at, reason
        in session.execute(query)
    ]  # fmt: skip
