"""Queries about lists and periods that several services share; take a Session, never commit."""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb import calc_notes, engines
from ratingdb.errors import LockWaitTimeout, MissingList, PeriodAlreadyClosed
from ratingdb.rating import Period
from ratingdb.schema.models import AuditEntry, RatingList
from ratingdb.services.versions import next_list_version

CURRENT = RatingList.is_current.is_(True)

# How long a close or an import waits for another one of the same rating type to finish (where the
# engine's lock can time out: MySQL's GET_LOCK).
LOCK_WAIT_SECONDS = 3600
# Set in a Session's info by a check that is rolled back whatever happens (services.submissions
# .check_file): it neither waits for nor holds the close lock, which an upload or a close needs.
NO_PERIOD_LOCK = "ratingdb-no-period-lock"


def list_on(session: Session, rating_type: str, list_date: dt.date) -> RatingList | None:
    """The current list of `rating_type` dated exactly `list_date`, if any (withdrawn versions aside)."""
    return session.scalars(
        select(RatingList).where(
            RatingList.rating_type == rating_type, RatingList.list_date == list_date, CURRENT
        )
    ).one_or_none()


class ListsOnDates:
    """Every current list of some rating types, by date: which one was in force on a day (spec §3).

    The close rates each event with the ratings of the list in force on its start date (frozen ratings),
    and the norm report reads an event's ratings the same way; both ask this one lookup. Read in one query
    (a few hundred lists at most) and answered by bisection.
    """

    def __init__(self, session: Session, rating_types: Iterable[str]) -> None:
        self._lists: dict[str, list[tuple[dt.date, int]]] = defaultdict(list)
        for kind, list_date, list_id in session.execute(
            select(RatingList.rating_type, RatingList.list_date, RatingList.id)
            .where(RatingList.rating_type.in_(set(rating_types)), CURRENT)
            .order_by(RatingList.list_date)
        ):
            self._lists[kind].append((list_date, list_id))

    def on(self, kind: str, day: dt.date) -> int | None:
        """The id of the newest list of `kind` dated on or before `day`."""
        found = self._lists[kind]
        index = bisect.bisect_right(found, (day, float("inf"))) - 1
        return found[index][1] if index >= 0 else None

    def date_of(self, kind: str, list_id: int) -> dt.date:
        return next(day for day, found in self._lists[kind] if found == list_id)

    def for_event(self, kind: str, start: dt.date) -> tuple[int, str | None] | None:
        """The list whose ratings an event that started on `start` uses, and a note if it is not the one
        in force then: an event older than every list takes the earliest (said in the note). None when
        the database holds no list of `kind`."""
        used = self.on(kind, start)
        if used is not None:
            return used, None
        if not self._lists[kind]:
            return None
        earliest_date, earliest_id = self._lists[kind][0]
        return earliest_id, calc_notes.BEFORE_EARLIEST_LIST % {
            "start": start.isoformat(),
            "type": kind,
            "date": earliest_date.isoformat(),
        }


def list_version(session: Session, rating_type: str, list_date: dt.date, version: int) -> RatingList | None:
    """One version of the list of (type, date), current or withdrawn."""
    return session.scalars(
        select(RatingList).where(
            RatingList.rating_type == rating_type,
            RatingList.list_date == list_date,
            RatingList.version == version,
        )
    ).one_or_none()


def new_list(
    session: Session,
    rating_type: str,
    list_date: dt.date,
    change: AuditEntry,
    *,
    origin: str,
    period: str | None = None,
    source: str | None = None,
    rules: str | None = None,
) -> RatingList:
    """A new, unsealed current list: the next version of (type, date), created by `change`.

    The caller writes its rows and then seals it (services.versions.seal) in the same transaction.
    """
    lst = RatingList(
        rating_type=rating_type,
        list_date=list_date,
        origin=origin,
        period=period,
        source=source,
        rules=rules,
        version=next_list_version(session, rating_type, list_date),
        is_current=True,
        created_by=change.id,
        sealed=False,
    )
    session.add(lst)
    session.flush()
    return lst


def latest_list(session: Session, rating_type: str, on_or_before: dt.date | None = None) -> RatingList | None:
    """The newest current list of `rating_type` (dated on or before `on_or_before` when given)."""
    query = select(RatingList).where(RatingList.rating_type == rating_type, CURRENT)
    if on_or_before is not None:
        query = query.where(RatingList.list_date <= on_or_before)
    return session.scalars(query.order_by(RatingList.list_date.desc()).limit(1)).one_or_none()


def earliest_list(session: Session, rating_type: str) -> RatingList | None:
    return session.scalars(
        select(RatingList)
        .where(RatingList.rating_type == rating_type, CURRENT)
        .order_by(RatingList.list_date)
        .limit(1)
    ).one_or_none()


def require_list(session: Session, rating_type: str, list_date: dt.date) -> RatingList:
    """The list of that date, or a MissingList error naming what exists."""
    found = list_on(session, rating_type, list_date)
    if found is not None:
        return found
    dates = session.scalars(
        select(RatingList.list_date)
        .where(RatingList.rating_type == rating_type, CURRENT)
        .order_by(RatingList.list_date)
    ).all()
    raise MissingList(f"there is no {rating_type} list dated {list_date.isoformat()} ({_known_lists(dates)})")


SHOWN_LISTS = 6


def _known_lists(dates: Sequence[dt.date]) -> str:
    """The list dates for an error message: all of them, or the newest few and how many there are."""
    if not dates:
        return "lists in the database: none"
    if len(dates) <= SHOWN_LISTS:
        return "lists in the database: " + ", ".join(d.isoformat() for d in dates)
    newest = ", ".join(d.isoformat() for d in dates[-SHOWN_LISTS:])
    return (
        f"{len(dates)} lists in the database, {dates[0].isoformat()} to {dates[-1].isoformat()}; "
        f"the newest {SHOWN_LISTS}: {newest}"
    )


def lock_periods(session: Session, rating_type: str) -> None:
    """Serialise closes and event changes of one rating type until the transaction ends.

    Two closes at once: the second waits, then finds the period closed. An import during a close waits
    too, then finds its period closed instead of slipping an unrated event into it. How the lock is held
    and let go of is the engine's (ratingdb.engines, hold_lock): SQLite's write lock from BEGIN IMMEDIATE,
    PostgreSQL's advisory lock, MySQL's named lock.
    """
    if session.info.get(NO_PERIOD_LOCK):
        return  # a check of a file (services.submissions.check_file): rolled back, it need not wait
    if not engines.of(session).hold_lock(session, f"ratingdb-close-{rating_type}", LOCK_WAIT_SECONDS):
        raise LockWaitTimeout(
            f"another close or import of {rating_type} ratings has held the lock for "
            f"{LOCK_WAIT_SECONDS // 60} minutes: wait for it to finish, then run the command again"
        )


def is_closed(session: Session, rating_type: str, period: Period) -> bool:
    """A period is closed while the list it publishes exists as a current version (computed or imported)."""
    return list_on(session, rating_type, period.published_list_date) is not None


def ensure_period_open(session: Session, rating_type: str, period: Period, what: str, *, advice: str) -> None:
    """Refuse to add to or change a closed period, saying what to do instead (`advice`)."""
    if is_closed(session, rating_type, period):
        raise PeriodAlreadyClosed(
            f"{what}: {rating_type} period {period} is closed (its list dated "
            f"{period.published_list_date.isoformat()} is published); {advice}"
        )
