"""Live ratings: the list in force plus the changes of the events already imported for open periods.

Provisional — not an official rating. Computed by the close itself (ratingdb.services.close), never by a
second implementation: each open period that has events is closed inside a SAVEPOINT, the new list and
its calculation record are read as plain values, and the savepoint is rolled back, so the database is
left exactly as it was (the caller's transaction is also rolled back by every caller: ratingdb.web,
`ratingdb live`). What the next close publishes equals what this shows, as long as nothing else is
imported meanwhile (tests/integration/test_live.py closes the period and compares).

Takes a Session on a connection that may write (the close writes before it is rolled back): on a
PostgreSQL standby there is none, so the web app runs it on the primary. Imports no CLI or web code.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb import engines
from ratingdb.errors import MissingList
from ratingdb.rating import Period
from ratingdb.reports.lists import (
    Calculation,
    EventRecord,
    calculation_summary,
    list_calculations,
    list_lines,
)
from ratingdb.schema.models import Event, ListEntry
from ratingdb.services.bulk import no_cycle_collection
from ratingdb.services.close import close_period
from ratingdb.services.lists import latest_list, list_on
from ratingdb.services.versions import data_version
from ratingdb.titles import shown_name

PROVISIONAL: Final = "provisional — not an official rating"


@dataclass(frozen=True)
class LiveEvent:
    event_id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    period: str


@dataclass(frozen=True)
class LiveCalculation:
    """One open period's calculation of one player, as the close would record it."""

    period: str
    list_date: dt.date  # the list that close would publish
    summary: list[str]  # the sentences `ratingdb calculation` prints
    events: list[EventRecord]
    # The whole record, for a page that writes the sentences in its language: its record and new entry are
    # values (services.rows.CalcPlayerRow, PublishedEntry), which the rollbacks leave as they were read.
    calculation: Calculation


@dataclass(frozen=True)
class LiveEntry:
    player_id: int
    name: str
    fide_id: int | None
    national_id: str | None
    title: str | None
    federation: str | None
    official: int | None  # the rating on the list in force
    rating: int | None  # the live (provisional) rating
    games: int  # games rated in the open periods
    k: int | None
    flag: str | None
    calculations: list[LiveCalculation] = field(default_factory=list)

    @property
    def change(self) -> int | None:
        if self.rating is None or self.official is None:
            return None
        return self.rating - self.official


@dataclass(frozen=True)
class LiveList:
    """The live list of one rating type: every entry, in the order the published list would have."""

    rating_type: str
    in_force: dt.date  # the date of the list in force (official)
    periods: list[str]  # the open periods whose events are included, oldest first
    events: list[LiveEvent]
    entries: list[LiveEntry]
    as_of: int  # the data version when computed (data_version): a public change makes it stale

    @cached_property
    def _by_player(self) -> dict[int, LiveEntry]:
        return {e.player_id: e for e in self.entries}

    def entry(self, player_id: int) -> LiveEntry | None:
        return self._by_player.get(player_id)


def live_list(session: Session, rating_type: str) -> LiveList:
    """The live list of `rating_type`; the database is left unchanged (a savepoint rolled back)."""
    # The close, the calculation record read back and the list make some hundred thousand objects that
    # all live until the list is made (most as long as it is kept): the collector ran some 700 times over
    # them for nothing, a quarter of the live list's CPU at national (bench/live.py).
    with no_cycle_collection():
        return _live_list(session, rating_type)


def _live_list(session: Session, rating_type: str) -> LiveList:
    as_of = data_version(session)
    in_force = latest_list(session, rating_type)
    if in_force is None:
        raise MissingList(
            f"there is no {rating_type} list yet, so no live ratings: import one with `ratingdb import-list`"
        )
    # The ratings alone: list_lines would also read and sort every name.
    official: dict[int, int | None] = {
        player_id: rating
        for player_id, rating in session.execute(
            select(ListEntry.player_id, ListEntry.rating).where(ListEntry.list_id == in_force.id)
        )
    }
    first_open = Period.of(in_force.list_date)
    found = session.execute(
        select(Event.id, shown_name(), Event.start_date, Event.end_date, Event.period)
        .where(Event.rating_type == rating_type, Event.is_current.is_(True), Event.period >= str(first_open))
        .order_by(Event.period, Event.start_date, Event.id)
    ).all()
    events = [LiveEvent(*row) for row in found]
    last = max((Period.parse(e.period) for e in events), default=None)
    periods: list[Period] = []
    if last is not None:
        period = first_open
        while str(period) <= str(last):
            periods.append(period)
            period = period.shift(1)
    joined = engines.of(session).whole_lists_joined
    savepoint = session.begin_nested()
    try:
        calcs: dict[int, list[LiveCalculation]] = {}
        for period in periods:
            close_period(session, period, rating_type)
            published = list_on(session, rating_type, period.published_list_date)
            assert published is not None  # the close just published it
            # The record and the list this transaction wrote: the planner knows nothing of them (on
            # PostgreSQL a list written since the statistics were gathered is taken for one row, and its
            # record was read by nested loops over the whole list: 11 s of server CPU at national).
            with joined(session):
                written = list_calculations(session, published)
            for player_id, calc in written.items():
                calcs.setdefault(player_id, []).append(
                    LiveCalculation(
                        str(period),
                        published.list_date,
                        calculation_summary(calc),
                        calc.events,
                        calc,
                    )
                )
        newest = list_on(session, rating_type, periods[-1].published_list_date) if periods else in_force
        assert newest is not None
        with joined(session):
            lines = list(list_lines(session, newest))
        entries = [
            LiveEntry(
                line.player_id,
                line.name,
                line.fide_id,
                line.national_id,
                line.title,
                line.federation,
                official.get(line.player_id),
                line.rating,
                sum(_games(c) for c in calcs.get(line.player_id, [])),
                line.k,
                line.flag,
                calcs.get(line.player_id, []),
            )
            for line in lines
        ]
    finally:
        savepoint.rollback()
    return LiveList(rating_type, in_force.list_date, [str(p) for p in periods], events, entries, as_of)


def _games(calc: LiveCalculation) -> int:
    return sum(ev.n for ev in calc.events)
