"""Closing one or more periods: the use case around the close, one transaction per period.

Every front end closes through here with its unit of work (ratingdb.db.UnitOfWork): `ratingdb
close-period`, the desk's Close button and `ratingdb.api.close_period` / `close_periods`. Here, not in an
adapter, are what spans the transactions: the check that every period has its rule set before any is
closed, a checked copy of the database before each close that will publish (RATINGDB_BACKUPS, SQLite:
ratingdb.backup.pre_close_copy), one transaction per period (a dry run: one transaction for all, rolled
back, since each close reads the list the one before it published), what was committed when the work was
interrupted (`CloseInterrupted`), what each close changed and how a new version of a list differs from
the withdrawn one it replaces. The close of one period in one transaction is services.close's.

What happens is said to an `observer` as it happens (the CLI prints each period as it is closed) and
returned as values; each front end words them. Must not import the CLI, the web app or the reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sqlalchemy.orm import Session

from ratingdb import backup
from ratingdb.db import UnitOfWork, is_dry_run
from ratingdb.errors import ConfigError
from ratingdb.rating import Adjustment, Period
from ratingdb.schema.models import RatingList
from ratingdb.services import close as one_close
from ratingdb.services.integrity import RiskScreen, screen_events
from ratingdb.services.list_diff import VersionChange, close_changes, version_diff, withdrawn_version
from ratingdb.services.lists import is_closed
from ratingdb.services.systems import CloseSummary
from ratingdb.services.systems.base import Progress


@dataclass(frozen=True)
class PreCloseCopy:
    """The checked copy of the database made before the close of `period` (RATINGDB_BACKUPS=`keep`)."""

    period: Period
    path: Path
    keep: int


@dataclass(frozen=True)
class WithdrawnDiff:
    """After a reopen: how the new version of a list differs from the withdrawn `version` it replaces."""

    version: int
    changes: list[VersionChange]

    @property
    def ratings(self) -> list[VersionChange]:
        """The changes of a rating (the others changed only K or the flag), biggest first."""
        return [c for c in self.changes if c.rating_before != c.rating_after]


@dataclass
class ClosedPeriod:
    """One period's close: its summary, the copy made before it, and what it changed (when asked)."""

    summary: CloseSummary
    copy: PreCloseCopy | None = None
    against_withdrawn: WithdrawnDiff | None = None
    # (FIDE ID, national ID, name, old, new, change) of every rating the close changed (services.list_diff
    # close_changes), when `changes` was asked for and the period was not closed already.
    changes: list[tuple[object, ...]] = field(default_factory=list)
    # A dry run: the integrity screen of the period's events, taken before the close (services.integrity).
    screen: RiskScreen | None = None


class CloseInterrupted(KeyboardInterrupt):
    """Ctrl-C while closing `periods`: those in `committed` are closed and stay, the one being closed was
    rolled back, the rest are open. Closing a closed period changes nothing, so closing `left` again is
    safe even if the interruption fell just after a commit. An interrupt still: a script that does not
    catch it stops as on any Ctrl-C."""

    def __init__(self, rating_type: str, periods: Sequence[Period], committed: Sequence[Period]) -> None:
        super().__init__(f"interrupted while closing {rating_type} periods")
        self.rating_type = rating_type
        self.periods = list(periods)
        self.committed = list(committed)

    @property
    def left(self) -> list[Period]:
        """The periods still open (the first of them was being closed)."""
        return self.periods[len(self.committed) :]


class CloseObserver(Protocol):
    """What a front end is told while the periods close, each as it happens."""

    def copied(self, copy: PreCloseCopy) -> None:
        """A copy of the database was made before the close of `copy.period`."""

    def closing(self, period: Period) -> AbstractContextManager[Progress | None]:
        """Around the close of `period`: the progress callback its steps are said to, if any."""

    def closed(self, closed: ClosedPeriod) -> None:
        """`closed.summary.period` is closed (committed, or done in the dry run)."""


class Unobserved:
    """The observer of a front end told nothing as it happens (the desk, the API: they read the result)."""

    def copied(self, copy: PreCloseCopy) -> None:
        pass

    def closing(self, period: Period) -> AbstractContextManager[Progress | None]:
        return nullcontext()

    def closed(self, closed: ClosedPeriod) -> None:
        pass


def periods_through(first: Period, last: Period | None = None) -> list[Period]:
    """`first` and every period after it up to `last`, in order (just `first` without `last`)."""
    last = first if last is None else last
    if last < first:
        raise ConfigError(f"{last} is before {first}: name the last period to close")
    periods = [first]
    while periods[-1] < last:
        periods.append(periods[-1].shift(1))
    return periods


def close_periods(
    work: UnitOfWork,
    rating_type: str,
    periods: Sequence[Period],
    *,
    adjustment: Adjustment | None = None,
    dry_run: bool = False,
    changes: bool = False,
    keep_copies: int | None = None,
    observer: CloseObserver | None = None,
) -> list[ClosedPeriod]:
    """Close `periods` of `rating_type` in order, each in a transaction of its own, and publish their lists.

    Before any is closed, every period must have its rule set (one transaction for the check; a single
    period without a copy is checked by its close, under its lock). Before each close that will publish,
    a checked copy of an SQLite database, keeping the newest `keep_copies` (None: RATINGDB_BACKUPS; 0:
    none; another engine: none, its backups are `ratingdb backup`'s). A `dry_run` closes them all in one
    transaction that is rolled back, and copies nothing. `changes`: each ClosedPeriod lists every rating
    its close changed. Ctrl-C raises CloseInterrupted, saying which periods were committed.
    """
    if adjustment is not None and len(periods) > 1:
        raise ConfigError("an adjustment applies to one close: close that period on its own")
    keep = backup.copies_before_close() if keep_copies is None else keep_copies
    told = observer or Unobserved()
    if len(periods) > 1 or keep:
        with work.transaction() as session:
            one_close.rule_sets_for_close(session, rating_type, list(periods))
    done: list[ClosedPeriod] = []
    committed: list[Period] = []
    dry = work.transaction(dry_run=True) if dry_run else nullcontext()
    try:
        with dry as dry_session:
            for period in periods:
                copy = None if dry_run else copy_before_close(work, period, rating_type, keep)
                if copy is not None:
                    told.copied(copy)
                one = nullcontext(dry_session) if dry_run else work.transaction()
                with told.closing(period) as progress, one as session:
                    assert session is not None
                    # A dry run shows what the officer decides before the close: the events' screen.
                    screened = screen_events(session, rating_type, period=period) if dry_run else None
                    closed = _close(session, period, rating_type, adjustment, progress, changes)
                    closed.copy, closed.screen = copy, screened
                if not dry_run:
                    committed.append(period)
                done.append(closed)
                told.closed(closed)
    except KeyboardInterrupt:
        raise CloseInterrupted(rating_type, periods, committed) from None
    return done


def close_in(
    session: Session,
    period: Period,
    rating_type: str,
    *,
    adjustment: Adjustment | None = None,
    keep_copies: int | None = None,
) -> ClosedPeriod:
    """Close one period in the caller's transaction (a script's `database.transaction()`), with the same
    copy before it as `close_periods` (of the database as last committed; none in a dry run)."""
    copy = None
    if not is_dry_run(session):
        keep = backup.copies_before_close() if keep_copies is None else keep_copies
        if keep and not is_closed(session, rating_type, period):
            url = session.get_bind().engine.url.render_as_string(hide_password=False)
            copy = _copy(url, period, rating_type, keep)
    closed = _close(session, period, rating_type, adjustment, None, changes=False)
    closed.copy = copy
    return closed


def copy_before_close(work: UnitOfWork, period: Period, rating_type: str, keep: int) -> PreCloseCopy | None:
    """A checked copy of the database before a close that will publish (SQLite, `keep` above 0): in
    `<database>-backups/`, the newest `keep` kept. None when there is nothing to copy: the period is
    closed already (the close will change nothing; the kept copies stay), `keep` is 0, another engine."""
    if not keep:
        return None
    with work.transaction() as session:
        if is_closed(session, rating_type, period):
            return None
    return _copy(work.url, period, rating_type, keep)


def _copy(url: str, period: Period, rating_type: str, keep: int) -> PreCloseCopy | None:
    path = backup.pre_close_copy(url, keep, f"{period}-{rating_type}")
    return None if path is None else PreCloseCopy(period, path, keep)


def _close(
    session: Session,
    period: Period,
    rating_type: str,
    adjustment: Adjustment | None,
    progress: Progress | None,
    changes: bool,
) -> ClosedPeriod:
    summary = one_close.close_period(session, period, rating_type, progress=progress, adjustment=adjustment)
    closed = ClosedPeriod(summary, against_withdrawn=against_withdrawn(session, summary))
    if changes and not summary.already_closed:
        closed.changes = close_changes(session, rating_type, period)
    return closed


def against_withdrawn(session: Session, summary: CloseSummary) -> WithdrawnDiff | None:
    """After a reopen: how the list the close published differs from the version it replaces (None for a
    first version, or a period closed already)."""
    if summary.already_closed or summary.version == 1 or summary.list_id is None:
        return None
    current = session.get(RatingList, summary.list_id)
    before = withdrawn_version(session, current) if current is not None else None
    if current is None or before is None:
        return None
    return WithdrawnDiff(before.version, version_diff(session, before, current))
