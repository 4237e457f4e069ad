"""The monthly close: rate a period's events and publish the next list with its calculation record.

Takes a Session and never commits: the caller's transaction makes the list and its record appear
together or not at all. The close runs as named stages over one `Close` (services/systems/base.py):

    resolve       lock the type's periods, find the rule sets and the list in force (once each)
    read_inputs   the period's events, then the rating system's own inputs (list in force, games)
    open_list     the new list and its audit entry
    rate_rated    ┐
    pool_unrated  ├ the rating system the rule set names (services/systems/, FIDE's Elo: elo.py)
    write_list    ┘
    finish        the adjustment's record, the seal, the summary

Must not import the CLI, the formats or reports.
"""

from __future__ import annotations

import heapq

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, MissingList
from ratingdb.rating import Adjustment, Period, RulesError, RuleSet
from ratingdb.rating.errors import UncoveredPeriod
from ratingdb.schema.models import Event, EventReview
from ratingdb.services.bulk import Driver, chunks
from ratingdb.services.counts import close_counts
from ratingdb.services.event_warnings import close_warnings
from ratingdb.services.exclusions import excluded_ids
from ratingdb.services.lists import ListsOnDates, latest_list, list_on, lock_periods
from ratingdb.services.lists import new_list as new_list_for
from ratingdb.services.rules import RuleSetInForce, record_list_rules, rule_set_in_force, uncovered_advice
from ratingdb.services.systems import (
    Close,
    CloseSummary,
    EventInfo,
    ExcludedEvent,
    PlayerChange,
    rating_system,
)
from ratingdb.services.systems.base import Change, Progress
from ratingdb.services.versions import record_change, seal
from ratingdb.titles import shown_name


def close_period(
    session: Session,
    period: Period,
    rating_type: str,
    *,
    progress: Progress | None = None,
    adjustment: Adjustment | None = None,
) -> CloseSummary:
    """Rate every event of `period` and publish the list dated the first day of the next month (§7–§8).

    `adjustment`, when given, is a one-off change of the new list's ratings (like FIDE's
    March 2024 compression), applied after the period's changes and the floor, and recorded in the
    audit log with its parameters and the number of ratings it changed.
    """
    say = progress or (lambda _message: None)
    lock_periods(session, rating_type)
    chosen = rule_sets_for_close(session, rating_type, [period])[0]
    list_date = period.published_list_date
    summary = CloseSummary(period=period, rating_type=rating_type, list_date=list_date)

    existing = list_on(session, rating_type, list_date)
    if existing is not None:
        summary.already_closed = True
        summary.existing_origin = existing.origin
        summary.list_id = existing.id
        return summary

    in_force = list_on(session, rating_type, period.first_day)
    if in_force is None:
        raise MissingList(_missing_list_message(session, rating_type, period))

    rules = chosen.rules
    summary.rules, summary.floor = rules.name, rules.floor
    system = rating_system(rules)
    rules_of_new_list = _rules_of_list(session, rating_type, period.shift(1), rules)
    driver = Driver(session, background=True, binary=True)
    try:
        close = Close(
            session, driver, period, rating_type, rules, chosen.stored, rules_of_new_list, in_force, summary,
            say, adjustment,
        )  # fmt: skip
        stages = system(close)
        read_inputs(close)
        stages.read_inputs()
        open_list(close)
        stages.rate_rated()
        stages.pool_unrated()
        stages.write_list()
        finish(close)
        return summary
    finally:
        driver.restore()


def rule_sets_for_close(session: Session, rating_type: str, periods: list[Period]) -> list[RuleSetInForce]:
    """The rule set, FIDE's or a stored one, each close of `periods` follows; a sentence if one has none."""
    found = []
    for period in periods:
        try:
            found.append(rule_set_in_force(session, rating_type, period))
        except UncoveredPeriod as exc:
            raise ConfigError(
                f"cannot close {rating_type} period {period}: {exc} — {uncovered_advice(rating_type, period)}"
            ) from None
        except RulesError as exc:
            raise ConfigError(f"cannot close {rating_type} period {period}: {exc}") from None
    return found


def read_inputs(close: Close) -> None:
    """The period's events, with the lists their ratings come from (the system reads the rest)."""
    close.say(f"reading the list in force ({close.in_force.list_date.isoformat()})")
    close.events = _load_events(close.session, close.period, close.rating_type, close.summary)
    close.say(f"reading {len(close.events)} events")


def open_list(close: Close) -> None:
    """The new list (a new version after a reopen), its audit entry and the rule set it follows."""
    session, rating_type, period = close.session, close.rating_type, close.period
    list_date = close.list_date
    excluded = "".join(
        f"; event {e.event_id} '{e.name}' excluded by the rating officer: {e.reason}"
        for e in close.summary.excluded
    )
    change = record_change(
        session,
        "close-period",
        f"closed {rating_type} period {period}: list {list_date.isoformat()}{excluded}",
    )
    new_list = new_list_for(
        session, rating_type, list_date, change, origin="computed", period=str(period), rules=close.rules.name
    )
    record_list_rules(session, new_list.id, close.stored_rules)
    close.new_list, close.list_id = new_list, new_list.id
    close.summary.version = new_list.version
    close.summary.list_id = new_list.id


def finish(close: Close) -> None:
    """Once the list is written: the adjustment's record, the seal, the summary's lists."""
    close.driver.drain()
    adjustment, summary = close.adjustment, close.summary
    if adjustment is not None:
        detail = (
            f"close of {close.rating_type} period {close.period} (list {close.list_date.isoformat()}) "
            f"applied the adjustment '{adjustment.name}': ratings below {adjustment.threshold} raised by "
            f"{adjustment.factor} × ({adjustment.threshold} − R), rounding {adjustment.rounding}; "
            f"{summary.adjusted} ratings changed"
        )
        record_change(close.session, "adjust-list", detail)
        summary.notes.append(detail)
    assert close.new_list is not None  # open_list ran
    seal(close.session, close.new_list)
    _summarise(close.driver, summary, close.changes, close.deviations)
    summary.counts = close.counts or close_counts(
        close.session, close.list_id, close.in_force.id, str(close.period), close.rating_type
    )
    summary.warnings = close_warnings(close.session, close.list_id, figures=close.event_figures)


def _rules_of_list(session: Session, rating_type: str, served: Period, closing: RuleSet) -> RuleSet:
    """The rule set whose K table sets K on the list used in period `served` (its own, if one covers it).

    K on a list is the K used in the period that list is in force (§8.3.3), so the list published on
    1 October 2022 takes the K of the rules from October 2022 (FIDE 2022), not of the period closed.
    """
    if closing.covers(rating_type, served):
        return closing
    try:
        return rule_set_in_force(session, rating_type, served).rules
    except RulesError:
        return closing


def _summarise(
    driver: Driver,
    summary: CloseSummary,
    changes: list[Change],
    deviations: dict[int, tuple[float | None, float | None]],
) -> None:
    """The summary's lists, in player order; names are read only for the players it shows."""
    newly = [c for c in changes if c[1] is None and c[2] is not None]
    dropped = [c for c in changes if c[1] is not None and c[2] is None]
    moved = [c for c in changes if c[1] is not None and c[2] is not None and c[3]]
    gains = [c for c in moved if c[2] > c[1]]  # type: ignore[operator]
    losses = [c for c in moved if c[2] < c[1]]  # type: ignore[operator]  # no change is no loss
    # nlargest / nsmallest equal sorted(...)[:5], ties kept in player order.
    top = heapq.nlargest(5, gains, key=lambda c: c[2] - c[1])  # type: ignore[operator]
    bottom = heapq.nsmallest(5, losses, key=lambda c: c[2] - c[1])  # type: ignore[operator]
    names = _names(driver, {c[0] for c in newly + dropped + top + bottom})

    def change(c: Change) -> PlayerChange:
        return PlayerChange(c[0], names[c[0]], c[1], c[2], c[3], *deviations.get(c[0], (None, None)))

    summary.newly_rated = [change(c) for c in newly]
    summary.dropped_below_floor = [change(c) for c in dropped]
    summary.biggest_gains = [change(c) for c in top]
    summary.biggest_losses = [change(c) for c in bottom]


def _names(driver: Driver, player_ids: set[int]) -> dict[int, str]:
    names: dict[int, str] = {}
    for chunk in chunks(sorted(player_ids), 500):
        marks = ", ".join("?" * len(chunk))
        names.update(driver.rows(f"SELECT id, name FROM player WHERE id IN ({marks})", chunk))
    return names


def _load_events(
    session: Session, period: Period, rating_type: str, summary: CloseSummary
) -> dict[int, EventInfo]:
    # Every list of the type (and standard lists for rapid/blitz) once: a few hundred rows at most.
    lists = ListsOnDates(session, {rating_type, "standard"})

    summary.excluded = [
        ExcludedEvent(event_id, name, reason)
        for event_id, name, reason in session.execute(
            select(Event.id, shown_name(), EventReview.reason)
            .join(EventReview, EventReview.event_id == Event.id)
            .where(
                Event.period == str(period),
                Event.rating_type == rating_type,
                Event.is_current.is_(True),
                Event.id.in_(excluded_ids()),
                EventReview.is_current.is_(True),
            )
            .order_by(Event.start_date, Event.id)
        )
    ]
    events: dict[int, EventInfo] = {}
    for event_id, name, start, end, event_period, natural in session.execute(
        select(Event.id, shown_name(), Event.start_date, Event.end_date, Event.period, Event.natural_period)
        .where(
            Event.period == str(period),
            Event.rating_type == rating_type,
            Event.is_current.is_(True),
            Event.id.not_in(excluded_ids()),
        )
        .order_by(Event.start_date, Event.id)
    ):
        # Ratings are frozen at the event's start (FIDE's practice): the list in force on its start date,
        # even when the event is rated one or two periods later.
        found = lists.for_event(rating_type, start)
        assert found is not None  # the list in force exists
        used, note = found
        standard = lists.on("standard", start) if rating_type != "standard" else None
        events[event_id] = EventInfo(event_id, name, start, used, standard, note)
        if event_period > natural:
            summary.late_events.append(f"{name} (ended {end.isoformat()}, period {natural})")
        if note:
            summary.notes.append(f"{name}: {note}")
    summary.events = len(events)
    return events


def _missing_list_message(session: Session, rating_type: str, period: Period) -> str:
    wanted = period.first_day.isoformat()
    newest = latest_list(session, rating_type)
    if newest is None:
        return (
            f"there is no {rating_type} list in the database: import the list in force for period {period} "
            f"with `ratingdb import-list FILE --date {wanted} --type {rating_type}`"
        )
    if newest.list_date < period.first_day:
        last_closed = Period.of(newest.list_date)
        return (
            f"the {rating_type} list in force for period {period} (dated {wanted}) is missing: the newest "
            f"list is dated {newest.list_date.isoformat()}, so close period {last_closed} first "
            f"(or import the {wanted} list with "
            f"`ratingdb import-list FILE --date {wanted} --type {rating_type}`)"
        )
    return (
        f"the {rating_type} list in force for period {period} (dated {wanted}) is missing: import it with "
        f"`ratingdb import-list FILE --date {wanted} --type {rating_type}`"
    )


__all__ = ["CloseSummary", "PlayerChange", "close_period", "rule_sets_for_close"]
