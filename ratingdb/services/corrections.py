"""Corrections after publication: reopen periods (withdrawing their lists) and replace an event's file.

Nothing published is changed: a reopen withdraws list versions (docs/versioning.md), and the re-close
publishes new ones. Takes a Session, never commits. Must not import the CLI, formats readers or reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, DuplicateEvent, ImmutableList, MissingList
from ratingdb.formats import TrfEvent
from ratingdb.rating import Period
from ratingdb.schema.models import CalcPlayer, RatingList
from ratingdb.services.choices import DEFAULTS, ImportChoices
from ratingdb.services.event_labels import carry_label
from ratingdb.services.events import (
    Content,
    EventImportSummary,
    Replacing,
    _event,
    file_content,
    read_events,
)
from ratingdb.services.events import stored_content as stored_event_content
from ratingdb.services.integrity import carry_review
from ratingdb.services.lists import CURRENT, ensure_period_open, list_on, lock_periods
from ratingdb.services.matching import MatchReport
from ratingdb.services.versions import record_change, withdraw
from ratingdb.titles import shown_section_of, title_of


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
    kept_choices: list[str] = field(default_factory=list)  # the import's choices applied again, as options
    imported: EventImportSummary = field(default_factory=EventImportSummary)  # as import-trf reports it

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
    choices: ImportChoices | None = None,
) -> Replacement:
    """The corrected file takes the place of event `event_id` of an open period.

    It is read and stored as `import-trf` stores a file (ratingdb.services.events.read_events, the one
    path from file to event), with the choices the event was imported with except those `choices` makes
    (ImportChoices.over): the same ID column, the same lines settled by hand, the same type, period and
    section unless given. It becomes a new version of the event (a new id that `replaces` the old one);
    the old version is withdrawn, not deleted, since the lists withdrawn by the reopen explain ratings
    with its games.
    """
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
    imported_with = ImportChoices.from_stored(event.import_choices)
    as_imported = replace(
        imported_with,
        rating_type=event.rating_type,
        official=event.official,
        period=period,
        section=shown_section_of(session, event.id) or "",
    )
    given = choices or ImportChoices()
    # A line given a choice here (or undone) is settled by it alone: its stored choice goes.
    resolved = given.lines_over(as_imported).over(DEFAULTS)
    if given.rating_type is not None and given.rating_type != event.rating_type:
        raise ConfigError(
            f"--type {given.rating_type}: event {event_id} is a {event.rating_type} event, and a correction "
            "keeps its type — delete the event and import the file with its own type instead"
        )
    # The override the event was imported with holds for its correction too, unless switched off.
    if trf.rating_type is not None and trf.rating_type != event.rating_type and not resolved.type_override:
        advice = (
            "leave out --no-type-override if the file is wrong"
            if given.type_override is False
            else "add --type-override if the file is wrong"
        )
        raise ConfigError(
            f"{trf.source_name} is a {trf.rating_type} tournament, event {event_id} is {event.rating_type}: "
            f"delete the event and import the file with its own type instead (or {advice})"
        )
    if trf.sha256 == event.source_hash:
        raise DuplicateEvent(
            f"{trf.source_name} is the file event {event_id} was imported from: nothing to replace"
        )
    result = Replacement(event_id, title_of(session, event_id), str(period))
    audit: list[int] = []
    switches = replace(imported_with, matches=None, new=None, accept_names=None, drops=None)
    result.kept_choices = [o for o in switches.as_options() if _not_given(o, given)]
    result.kept_choices += _lines_only(imported_with, given).as_options()
    if event.official and given.official is None:  # kept on the event row, not with the choices
        result.kept_choices.insert(0, "--official")

    def accept(corrected: TrfEvent) -> dict[str, int]:
        old = stored_event_content(session, event)
        _compare(result, old, file_content(corrected, resolved.id_field or "fide"))
        change = record_change(
            session,
            "replace-event",
            f"replaced event {event_id} '{result.name}' (period {period}, from {event.source_name}, sha256 "
            f"{event.source_hash}) by a new version from {corrected.source_name} (sha256 "
            f"{corrected.sha256}): {describe(result)}",
            reason=reason,
        )
        # The old version stays, withdrawn: withdrawn lists explain their ratings with its games.
        withdraw(session, event, change)
        audit.append(change.id)
        return {"version": event.version + 1, "created_by": change.id, "replaces": event.id}

    result.imported = read_events(session, [trf], resolved, Replacing(event, accept))
    new = result.imported.events[0]
    result.new_event_id, result.period = new.id, new.period
    carry_label(session, event, new.id, audit[0])  # shown as the event was (`event edit`)
    carry_review(session, event.id, new.id, audit[0])  # rated or excluded as decided (`event review`)
    result.new_players = result.imported.new_players
    result.matching = result.imported.matching
    return result


def _lines_only(stored: ImportChoices, given: ImportChoices) -> ImportChoices:
    """The stored line choices of the lines `given` does not name (those apply again)."""
    named = given.line_ranks()
    return ImportChoices(
        matches={r: i for r, i in (stored.matches or {}).items() if r not in named},
        new=frozenset(r for r in stored.new or () if r not in named),
        accept_names=frozenset(r for r in stored.accept_names or () if r not in named),
        drops=frozenset(r for r in stored.drops or () if r not in named),
    )


def _not_given(option: str, given: ImportChoices) -> bool:
    """Whether a stored choice (written as its option) is one that `given` does not make anew."""
    name = option.split()[0]
    made = {
        "--id-field": given.id_field,
        "--federation-column": given.federation_column,
        "--type-override": given.type_override,
        "--closing-days": given.closing_days,
        "--distinct-event": given.distinct,
        "--match": given.matches,
        "--new": given.new,
        "--accept-name": given.accept_names,
        "--drop": given.drops,
    }
    return made.get(name) is None


def _compare(result: Replacement, old: Content, new: Content) -> None:
    """Fill `result` with what differs between the stored event and the corrected file."""
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
