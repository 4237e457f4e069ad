"""Corrections after publication: reopen periods (withdrawing their lists) and replace an event's file.

Nothing published is changed: a reopen withdraws list versions (docs/versioning.md), and the re-close
publishes new ones. Takes a Session, never commits. Must not import the CLI, formats readers or reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, DuplicateEvent, ImmutableList, MissingList
from ratingdb.formats import TrfEvent
from ratingdb.models import CalcPlayer, RatingList
from ratingdb.rating import CLOSING_DAYS, Period, latest_period_for_event, period_for_event
from ratingdb.services.events import (
    Content,
    _event,
    content_driver,
    event_from_file,
    file_content,
    store_content,
)
from ratingdb.services.events import stored_content as stored_event_content
from ratingdb.services.lists import CURRENT, ensure_period_open, list_on, lock_periods
from ratingdb.services.matching import Matching, MatchReport, drop_lines
from ratingdb.services.versions import record_change, withdraw


@dataclass(frozen=True)
class Withdrawn:
    list_id: int
    list_date: str
    version: int
    origin: str
    period: str | None


def reopen(
    session: Session, period: Period, rating_type: str, reason: str, *, include_imported: bool = False
) -> list[Withdrawn]:
    """Withdraw the list published by closing `period` and every later list of the type (each was computed
    from the one before it), so the periods are open again. One audit row carries the reason."""
    if not reason.strip():
        raise ConfigError("a reopen needs a reason: give it with --reason TEXT (it is kept in the audit log)")
    lock_periods(session, rating_type)
    published = list_on(session, rating_type, period.published_list_date)
    if published is None:
        raise MissingList(
            f"nothing is published for {rating_type} period {period}: there is no current list dated "
            f"{period.published_list_date.isoformat()}, so the period is open already"
        )
    lists = session.scalars(
        select(RatingList)
        .where(RatingList.rating_type == rating_type, CURRENT, RatingList.list_date >= published.list_date)
        .order_by(RatingList.list_date)
    ).all()
    imported = [lst for lst in lists if lst.origin == "imported"]
    if imported and not include_imported:
        names = ", ".join(f"{lst.list_date.isoformat()} ({lst.source or 'imported'})" for lst in imported)
        raise ImmutableList(
            f"reopening {rating_type} period {period} would withdraw imported lists: {names}; an imported "
            "list stays the truth unless you say otherwise with --include-imported"
        )
    dates = ", ".join(f"{lst.list_date.isoformat()} v{lst.version}" for lst in lists)
    change = record_change(
        session,
        "reopen",
        f"reopened {rating_type} period {period}: withdrew the lists {dates}",
        reason=reason.strip(),
    )
    withdrawn = []
    for lst in lists:
        withdraw(session, lst, change)
        withdrawn.append(Withdrawn(lst.id, lst.list_date.isoformat(), lst.version, lst.origin, lst.period))
    return withdrawn


def lists_using_standard_ratings(session: Session, period: Period) -> list[tuple[str, str]]:
    """Current rapid/blitz lists closed from `period` on that rated someone with a standard rating (§7):
    after a reopen of the standard lists they may rest on a withdrawn standard rating. (type, date)."""
    found = session.execute(
        select(RatingList.rating_type, RatingList.list_date)
        .where(
            RatingList.rating_type != "standard",
            RatingList.origin == "computed",
            CURRENT,
            RatingList.period >= str(period),
            select(CalcPlayer.list_id)
            .where(
                CalcPlayer.list_id == RatingList.id, CalcPlayer.note.like("%rated with the standard rating%")
            )
            .exists(),
        )
        .order_by(RatingList.rating_type, RatingList.list_date)
    ).all()
    return [(kind, day.isoformat()) for kind, day in found]


@dataclass
class Replacement:
    """What `replace_event` changed, for the officer to read."""

    event_id: int
    name: str
    period: str
    dates: tuple[str, str] | None = None  # old → new, when they changed
    players_added: list[str] = field(default_factory=list)
    players_removed: list[str] = field(default_factory=list)
    results_changed: list[str] = field(default_factory=list)
    games_added: int = 0
    games_removed: int = 0
    new_players: list[str] = field(default_factory=list)
    new_event_id: int = 0  # the corrected version's id; the replaced event stays, withdrawn
    matching: MatchReport = field(default_factory=MatchReport)  # how each line was resolved

    @property
    def unchanged(self) -> bool:
        return not (
            self.dates or self.players_added or self.players_removed or self.results_changed
            or self.games_added or self.games_removed
        )  # fmt: skip


def replace_event(
    session: Session,
    event_id: int,
    trf: TrfEvent,
    *,
    reason: str | None = None,
    closing_days: int = CLOSING_DAYS,
    matching: Matching | None = None,
) -> Replacement:
    """The corrected file takes the place of event `event_id` of an open period, in the same period.

    It is stored as a new version of the event (a new id that `replaces` the old one); the old version
    is withdrawn, not deleted, since the lists withdrawn by the reopen explain ratings with its games.
    Its lines are matched to players as `import-trf` matches them (ratingdb.services.matching, with the
    same choices: `matching`).
    """
    matching = matching or Matching(sources=trf.source_name)
    matching.sources = matching.sources or trf.source_name
    report = MatchReport()
    trf = drop_lines(trf, matching, report)
    event = _event(session, event_id)
    if not event.is_current:
        raise ImmutableList(
            f"event {event_id} '{event.name}' was replaced or withdrawn already (see the audit log): "
            "correct its current version instead"
        )
    period = Period.parse(event.period)
    lock_periods(session, event.rating_type)
    ensure_period_open(
        session,
        event.rating_type,
        period,
        f"cannot replace event {event_id} ({event.name})",
        advice=f"reopen it first: `ratingdb reopen {period} --type {event.rating_type} --reason TEXT`",
    )
    if trf.rating_type is not None and trf.rating_type != event.rating_type:
        raise ConfigError(
            f"{trf.source_name} is a {trf.rating_type} tournament, event {event_id} is {event.rating_type}: "
            "delete the event and import the file with its own type instead"
        )
    natural = period_for_event(trf.end_date, official=event.official, closing_days=closing_days)
    latest = latest_period_for_event(trf.end_date, official=event.official, closing_days=closing_days)
    if not natural <= period <= latest:
        raise ConfigError(
            f"{trf.source_name} ends {trf.end_date.isoformat()}, which belongs to period {natural} (rated at "
            f"the latest in {latest}); event {event_id} is in period {period}: delete it and import the file "
            "into its own period instead"
        )
    if trf.sha256 == event.source_hash:
        raise DuplicateEvent(
            f"{trf.source_name} is the file event {event_id} was imported from: nothing to replace"
        )
    result = _compare(event_id, event.name, str(period), stored_event_content(session, event), trf)
    result.matching = report
    change = record_change(
        session,
        "replace-event",
        f"replaced event {event_id} '{result.name}' (period {period}, from {event.source_name}, sha256 "
        f"{event.source_hash}) by a new version from {trf.source_name} (sha256 {trf.sha256}): "
        f"{describe(result)}",
        reason=reason,
    )
    # The old version stays, withdrawn: withdrawn lists explain their ratings with its games.
    withdraw(session, event, change)
    new = event_from_file(
        trf,
        rating_type=event.rating_type,
        official=event.official,
        period=period,
        natural_period=natural,
        version=event.version + 1,
        created_by=change.id,
        replaces=event.id,
    )
    session.add(new)
    session.flush()
    result.new_event_id = new.id
    driver = content_driver(session)
    try:
        store_content(session, driver, new.id, trf, result.new_players, matching, report)
        driver.flush()
    finally:
        driver.restore()
    return result


def _compare(event_id: int, name: str, period: str, old: Content, trf: TrfEvent) -> Replacement:
    new = file_content(trf)
    result = Replacement(event_id, name, period)
    if old.dates != new.dates:
        result.dates = tuple(f"{a.isoformat()} … {b.isoformat()}" for a, b in (old.dates, new.dates))  # type: ignore[assignment]
    # Each new line's player, found among the old lines by ID (or by name where neither side has one).
    old_rank_of: dict[int, int] = {}
    for rank, who in new.players.items():
        match = next((r for r, p in old.players.items() if p.same_player(who)), None)
        if match is None:
            result.players_added.append(who.name)
        else:
            old_rank_of[rank] = match
    kept = set(old_rank_of.values())
    result.players_removed = [p.name for r, p in sorted(old.players.items()) if r not in kept]

    def label(rank: int | None) -> str:
        return "bye" if rank is None else old.players[rank].name

    before = {(rnd, w, b): (wr, br) for rnd, w, b, wr, br in old.games}
    after: dict[tuple[int, int, int | None], tuple[str, str | None]] = {}
    for rnd, w, b, wr, br in new.games:
        if w in old_rank_of and (b is None or b in old_rank_of):
            after[(rnd, old_rank_of[w], None if b is None else old_rank_of[b])] = (wr, br)
        else:
            result.games_added += 1
    for key in sorted(set(before) & set(after), key=str):
        if before[key] != after[key]:
            rnd, white, black = key
            result.results_changed.append(
                f"round {rnd}: {label(white)} – {label(black)} {_result(before[key])} → {_result(after[key])}"
            )
    result.games_added += len(set(after) - set(before))
    result.games_removed = len(set(before) - set(after))
    return result


def _result(pair: tuple[object, object]) -> str:
    """A pairing's result as people write it: 1-0, ½-½, +-, or the code alone for a bye."""
    white, black = ("½" if code == "=" else code for code in pair)
    return f"{white}-{black}" if black is not None else str(white)


def describe(r: Replacement) -> str:
    """The changes in one sentence (the audit log's)."""
    if r.unchanged:
        return "no change in dates, players or results"
    parts = []
    if r.dates:
        parts.append(f"dates {r.dates[0]} → {r.dates[1]}")
    if r.results_changed:
        parts.append(f"{len(r.results_changed)} result(s) changed ({'; '.join(r.results_changed)})")
    if r.players_added:
        parts.append(f"players added: {', '.join(r.players_added)}")
    if r.players_removed:
        parts.append(f"players removed: {', '.join(r.players_removed)}")
    if r.games_added or r.games_removed:
        parts.append(f"pairings added {r.games_added}, removed {r.games_removed}")
    return "; ".join(parts)
