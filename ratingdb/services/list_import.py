"""Record a list published elsewhere (FIDE's, a previous system's) as an imported list; stream, never hold it.

Also the safe ways to change imported lists: `update_list` publishes a corrected version of the list in
force, `withdraw_list` withdraws an imported list nothing was computed from. A new list that would drop
many players of the list in force, or leave imported events unrated for good, is refused.

Takes a Session, never commits. Reading the file is ratingdb.formats' job; the rule state a list
implies (reached 2400/2300, games toward 30) is derived here from K and birth year as formats.md says.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import Any

from sqlalchemy import ColumnElement, FromClause, exists, func, insert, literal, select
from sqlalchemy.orm import Session

from ratingdb.engines.base import column_list
from ratingdb.errors import (
    DuplicatePlayer,
    ImmutableList,
    ListInUse,
    ListWouldShrink,
    MissingList,
    NothingToUpdate,
)
from ratingdb.formats import ListRating, ListRow
from ratingdb.rating import GAMES_FOR_ESTABLISHED, Period, is_junior
from ratingdb.schema.models import Event, ListEntry, Player, RatingList, table
from ratingdb.services.bulk import LIST_ENTRY_COLUMNS, Driver, no_cycle_collection
from ratingdb.services.list_matching import ListMatching
from ratingdb.services.lists import CURRENT, latest_list, list_on, lock_periods, new_list, require_list
from ratingdb.services.players import DETAIL_COLUMNS, Details, change_players, register_players
from ratingdb.services.rows import ListEntryRow
from ratingdb.services.versions import next_list_version, record_change, seal, withdraw

BATCH = 20_000
# A new list may leave out at most this share of the list in force's players without --replace-list:
# FIDE's own monthly lists lose far fewer (deaths, transfers), a one-row "correction" loses nearly all.
MAX_LEAVING_PERCENT = 5
# ... nor have this much fewer ratings, in number or as a share of its players: a file without its rating
# column (or a column read as another) keeps every player and loses every rating.
MAX_RATINGS_LOST_PERCENT = 5


@dataclass
class ListImportSummary:
    """What a list import wrote, per rating type: the list's id, its entries and the rated ones; the
    players it registered and those whose details it updated."""

    list_date: dt.date
    lists: dict[str, int] = field(default_factory=dict)  # rating type → list id
    entries: dict[str, int] = field(default_factory=dict)  # rating type → entries written
    rated: dict[str, int] = field(default_factory=dict)
    new_players: int = 0
    updated_players: int = 0
    # --update only, per rating type: the list's date, the version written, the file's rows new to the
    # list, its rows that changed an entry, the entries kept as they were.
    dates: dict[str, dt.date] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    added: dict[str, int] = field(default_factory=dict)
    changed: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)


@dataclass
class WithdrawnList:
    rating_type: str
    list_date: dt.date
    version: int
    source: str | None
    entries: int
    in_force: dt.date | None  # the list in force once it is withdrawn


def import_list(
    session: Session,
    rows: Iterable[ListRow],
    *,
    list_date: dt.date,
    rating_types: Sequence[str],
    source: str,
    replace: bool = False,
    reason: str | None = None,
    progress: Callable[[int], None] | None = None,
    before_seal: Callable[[dict[str, RatingList]], None] | None = None,
    matching: ListMatching | None = None,
    survey: Iterable[ListRow] | None = None,
) -> ListImportSummary:
    """Record `rows` as the imported list(s) dated `list_date`, creating or updating players.

    With `matching.match_certain`, `survey` is the same file read again: a first pass over it, writing
    nothing, finds the rows --match-certain decides (services/list_matching.py) before any is written.

    Refused when it would leave imported events unrated for good, and — unless `replace` — when it would
    drop more than MAX_LEAVING_PERCENT of the players of the list it follows (the list in force then),
    when its rated players or their share fall by more than MAX_RATINGS_LOST_PERCENT against that list,
    or when none of its players is rated.
    `before_seal` is handed the new lists by type once their entries are written, to add the rows a
    rating system keeps beside them (a Glicko-2 list's deviations) before they are sealed.
    """
    if list_date.day != 1:
        raise ImmutableList(f"a list is dated the first day of a month, not {list_date.isoformat()}")
    summary = ListImportSummary(list_date=list_date)
    lists: dict[str, RatingList] = {}
    follows: dict[str, RatingList] = {}
    for rating_type in sorted(rating_types):
        # The close's lock: no event slips into a period this list closes while the checks below run.
        lock_periods(session, rating_type)
    for rating_type in rating_types:
        existing = list_on(session, rating_type, list_date)
        if existing is not None:
            raise ImmutableList(
                f"a {rating_type} list dated {list_date.isoformat()} already exists ({existing.origin}"
                f"{', from ' + existing.source if existing.source else ''}); published lists never change"
            )
        previous = latest_list(session, rating_type, list_date - dt.timedelta(days=1))
        if previous is not None:
            _refuse_stranding(session, rating_type, previous, list_date)
            follows[rating_type] = previous
    changes: list[int] = []
    for rating_type in rating_types:
        detail = f"imported the {rating_type} list dated {list_date.isoformat()} from {source}"
        if replace and rating_type in follows:
            detail += (
                f" as a new full list (--replace-list) after the one dated {follows[rating_type].list_date}"
            )
        change = record_change(session, "import-list", detail, reason=reason)
        changes.append(change.id)
        lists[rating_type] = new_list(
            session, rating_type, list_date, change, origin="imported", source=source
        )
    # Players the file registers or whose details it changes: versions made by the import's first change.
    matching = matching or ListMatching(source)
    if matching.match_certain:
        if survey is None:
            raise ValueError("--match-certain needs the file read twice: pass `survey`")
        matching.certain = _certain_rows(session, survey, matching)
    _write_entries(session, rows, lists, {}, summary, progress, changes[0], matching)
    if not replace:
        for rating_type, previous in follows.items():
            _refuse_shrinking(session, summary, source, previous, lists[rating_type])
        for rating_type in rating_types:
            _refuse_losing_ratings(session, summary, rating_type, follows.get(rating_type))
    # After the refusals of the list as a whole: a row's owner is worth asking about only in a list kept.
    matching.finish(session, changes[0])
    if before_seal is not None:
        before_seal(lists)
    for lst in lists.values():
        seal(session, lst)
    return summary


def update_list(
    session: Session,
    rows: Iterable[ListRow],
    *,
    rating_types: Sequence[str],
    source: str,
    reason: str,
    list_date: dt.date | None = None,
    progress: Callable[[int], None] | None = None,
    matching: ListMatching | None = None,
    before_seal: Callable[[dict[str, RatingList], dict[str, RatingList]], dict[str, int]] | None = None,
) -> ListImportSummary:
    """Publish a new version of each type's list in force: its rows with the file's rows applied.

    Players in the file are added or their given fields changed; every other entry, and every field a
    row leaves empty, stays as it was. The old version is withdrawn by the same audited change.
    `list_date`, when given, must name the list in force. Refused for a list something was computed from.
    `before_seal` is handed the new versions and the versions they replace, by type, once the entries are
    written, as import_list's is (a Glicko-2 list's deviations); it returns, by type, how many of the file's
    entries it changed that list_entry shows unchanged (a deviation corrected, the rating kept).
    """
    targets: dict[str, RatingList] = {}
    for rating_type in sorted(rating_types):
        lock_periods(session, rating_type)  # a close cannot start from the list while it is replaced
    for rating_type in rating_types:
        in_force = latest_list(session, rating_type)
        if in_force is None:
            raise MissingList(
                f"there is no {rating_type} list to update: import one first "
                f"(`ratingdb import-list FILE --date YYYY-MM-01 --type {rating_type}`)"
            )
        target = in_force if list_date is None else require_list(session, rating_type, list_date)
        _refuse_if_used(session, target, "update")
        targets[rating_type] = target
    lists: dict[str, RatingList] = {}
    changes: list[int] = []
    for rating_type, target in targets.items():
        version = next_list_version(session, rating_type, target.list_date)
        change = record_change(
            session,
            "import-list-update",
            f"updated the {rating_type} list dated {target.list_date.isoformat()} from {source}: version "
            f"{target.version} replaced by version {version}, the same list with the file's rows applied",
            reason=reason,
        )
        withdraw(session, target, change)
        changes.append(change.id)
        lists[rating_type] = new_list(
            session, rating_type, target.list_date, change, origin="imported", source=source
        )
    summary = ListImportSummary(list_date=min(t.list_date for t in targets.values()))
    bases = {t: lst.id for t, lst in targets.items()}
    matching = matching or ListMatching(source)
    _write_entries(session, rows, lists, bases, summary, progress, changes[0], matching)
    matching.finish(session, changes[0])
    for rating_type, lst in lists.items():
        _keep_unchanged(session, targets[rating_type].id, lst.id)
        total = _size(session, lst.id)
        summary.kept[rating_type] = total - summary.entries[rating_type]
        summary.entries[rating_type] = total
        summary.versions[rating_type] = lst.version
        summary.dates[rating_type] = lst.list_date
    if before_seal is not None:
        for rating_type, n in before_seal(lists, targets).items():
            summary.changed[rating_type] += n
    if not (any(summary.added.values()) or any(summary.changed.values()) or summary.updated_players):
        # Re-running an update is safe: the caller's rollback takes back the versions begun above.
        shown = "; ".join(f"{t} {x.list_date.isoformat()}, version {x.version}" for t, x in targets.items())
        raise NothingToUpdate(f"every row of {source} already matches the list in force ({shown})")
    for lst in lists.values():
        seal(session, lst)
    return summary


def withdraw_list(session: Session, rating_type: str, list_date: dt.date, *, reason: str) -> WithdrawnList:
    """Withdraw the imported list of (type, date), audited with `reason`; refused if anything used it."""
    lock_periods(session, rating_type)  # a close cannot start from the list while it is withdrawn
    target = require_list(session, rating_type, list_date)
    _refuse_if_used(session, target, "withdraw")
    entries = _size(session, target.id)
    change = record_change(
        session,
        "withdraw-list",
        f"withdrew the {rating_type} list dated {list_date.isoformat()} (version {target.version}, "
        f"imported{' from ' + target.source if target.source else ''}, {entries} entries)",
        reason=reason,
    )
    withdraw(session, target, change)
    in_force = latest_list(session, rating_type)
    return WithdrawnList(
        rating_type,
        list_date,
        target.version,
        target.source,
        entries,
        in_force.list_date if in_force is not None else None,
    )


def _refuse_if_used(session: Session, target: RatingList, verb: str) -> None:
    """Refuse to change a list that a later list follows, or a computed one, saying what to do instead."""
    rating_type, day = target.rating_type, target.list_date.isoformat()
    what = f"cannot {verb} the {rating_type} list dated {day}"
    later = session.scalars(
        select(RatingList)
        .where(RatingList.rating_type == rating_type, RatingList.list_date > target.list_date, CURRENT)
        .order_by(RatingList.list_date)
        .limit(1)
    ).one_or_none()
    if later is not None and later.origin == "computed":
        raise ListInUse(
            f"{what}: closing {later.period} computed the list dated {later.list_date.isoformat()} from "
            f"it — reopen that period first (`ratingdb reopen {later.period} --type {rating_type} "
            f"--reason TEXT`), then {verb} this list"
        )
    if later is not None:
        raise ListInUse(
            f"{what}: the list dated {later.list_date.isoformat()} (imported, from {later.source}) follows "
            f"it and only the newest list can be changed — withdraw the later list first "
            f"(`ratingdb withdraw-list {later.list_date.isoformat()} --type {rating_type} --reason TEXT`)"
        )
    if target.origin == "computed":
        raise ListInUse(
            f"{what}: it was computed by closing {target.period}, so its ratings come from that period's "
            f"games — correct the events and reopen the period "
            f"(`ratingdb reopen {target.period} --type {rating_type} --reason TEXT`)"
        )


def _refuse_stranding(session: Session, rating_type: str, previous: RatingList, list_date: dt.date) -> None:
    """A list dated `list_date` closes every period from `previous` up to it: none may hold events."""
    held = session.execute(
        select(Event.period, func.count())
        .where(
            Event.rating_type == rating_type,
            Event.is_current.is_(True),  # a withdrawn version is never rated: it strands nothing
            Event.period >= str(Period.of(previous.list_date)),
            Event.period < str(Period.of(list_date)),
        )
        .group_by(Event.period)
        .order_by(Event.period)
    ).all()
    if not held:
        return
    periods = [str(p) for p, _ in held]
    events = sum(n for _, n in held)
    names = periods[0] if len(periods) == 1 else ", ".join(periods[:-1]) + " and " + periods[-1]
    raise ListWouldShrink(
        f"the {rating_type} list dated {list_date.isoformat()} would skip "
        f"{'period' if len(periods) == 1 else 'periods'} {names}, which "
        f"{'holds' if len(periods) == 1 else 'hold'} {_count(events, 'imported event')} that would never "
        f"be rated (the list in force is {previous.list_date.isoformat()}) — close "
        f"{'the period' if len(periods) == 1 else 'those periods'} first (`ratingdb close-period "
        f"{periods[0]} --type {rating_type}`), or delete the events that should not be rated "
        f"(`ratingdb delete-event ID`)"
    )


def _refuse_shrinking(
    session: Session, summary: ListImportSummary, source: str, previous: RatingList, new: RatingList
) -> None:
    on_previous = _size(session, previous.id)
    old, fresh = _entry_tables()
    leaving = (
        session.scalar(select(func.count()).select_from(old).where(_not_on(old, fresh, previous.id, new.id)))
        or 0
    )
    if leaving * 100 <= on_previous * MAX_LEAVING_PERCENT:
        return
    rating_type = new.rating_type
    raise ListWouldShrink(
        f"this list has {_count(summary.entries[rating_type], 'player')}; the {rating_type} list in force "
        f"({previous.list_date.isoformat()}) has {on_previous}; {leaving} would leave the list — to correct "
        f"or add players use `ratingdb import-list {source} --update --type {rating_type} --reason TEXT`; "
        f"to load a genuinely new full list use --replace-list"
    )


def _refuse_losing_ratings(
    session: Session, summary: ListImportSummary, rating_type: str, previous: RatingList | None
) -> None:
    """The ratings must not vanish: the count of rated players and their share are compared with the list
    in force (a list without one is refused only when it rates nobody)."""
    entries, rated = summary.entries[rating_type], summary.rated[rating_type]
    this = f"this list has {_count(entries, 'player')}, {rated} rated{_share(rated, entries)}"
    advice = (
        "check that the file has its rating column and that it is read as the rating (e.g. the CSV column "
        "`rating`); to load a list with these ratings as it is, use --replace-list"
    )
    if previous is None:
        if entries and not rated:
            raise ListWouldShrink(f"{this}: every player would be unrated — {advice}")
        return
    before = _size(session, previous.id)
    rated_before = (
        session.scalar(
            select(func.count())
            .select_from(ListEntry)
            .where(ListEntry.list_id == previous.id, ListEntry.rating.is_not(None))
        )
        or 0
    )
    keep = 100 - MAX_RATINGS_LOST_PERCENT
    fewer = rated * 100 < rated_before * keep
    lower_share = rated * before * 100 < rated_before * entries * keep
    if not (fewer or lower_share):
        return
    raise ListWouldShrink(
        f"{this}; the {rating_type} list in force ({previous.list_date.isoformat()}) has {before}, "
        f"{rated_before} rated{_share(rated_before, before)}: "
        + (f"{rated_before - rated} ratings would vanish" if fewer else "the rated share would fall")
        + f" (more than {MAX_RATINGS_LOST_PERCENT} %) — {advice}"
    )


def _share(rated: int, entries: int) -> str:
    return f" ({100 * rated / entries:.1f} %)" if entries else ""


def _size(session: Session, list_id: int) -> int:
    return (
        session.scalar(select(func.count()).select_from(ListEntry).where(ListEntry.list_id == list_id)) or 0
    )


def _entry_tables() -> tuple[FromClause, FromClause]:
    entry = table(ListEntry)
    return entry.alias("old"), entry.alias("fresh")


def _not_on(old: FromClause, fresh: FromClause, old_id: int, new_id: int) -> ColumnElement[bool]:
    """Rows of list `old_id` whose player has no row on list `new_id`."""
    return (old.c.list_id == old_id) & ~exists().where(
        fresh.c.list_id == new_id, fresh.c.player_id == old.c.player_id
    )


def _keep_unchanged(session: Session, old_id: int, new_id: int) -> None:
    """Copy to list `new_id` every entry of `old_id` whose player the file did not name."""
    old, fresh = _entry_tables()
    copied = select(literal(new_id), *(old.c[c] for c in LIST_ENTRY_COLUMNS[1:])).where(
        _not_on(old, fresh, old_id, new_id)
    )
    session.execute(insert(table(ListEntry)).from_select(list(LIST_ENTRY_COLUMNS), copied))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _write_entries(
    session: Session,
    rows: Iterable[ListRow],
    lists: dict[str, RatingList],
    bases: dict[str, int],
    summary: ListImportSummary,
    progress: Callable[[int], None] | None,
    audit_id: int,
    matching: ListMatching,
) -> None:
    """Write the file's rows to `lists`; where `bases` names a type's list in force, correct its entries.

    Each entry records the version of the player's details it publishes: the version the file's row
    made (a changed name, say) or the current one. Every row goes through the matching step
    (services/list_matching.py); the caller's `matching.finish` then refuses the rows needing a decision.
    """
    matching.begin(session)
    summary.lists = {t: lst.id for t, lst in lists.items()}
    summary.entries = dict.fromkeys(lists, 0)
    summary.rated = dict.fromkeys(lists, 0)
    summary.added = dict.fromkeys(bases, 0)
    summary.changed = dict.fromkeys(bases, 0)
    # The writer thread writes a batch's players and entries while the next batch is read and matched, up
    # to its first query.
    driver = Driver(session, background=True)
    # Registered players the list has named so far, one byte per player id (a FIDE list names millions).
    seen = bytearray()
    try:
        # Each batch's rows, tuples and lists die by reference counting once the next batch replaces them;
        # the cycle collector scanned the rows in flight (some hundred thousand objects) after every 700
        # new ones, about a tenth of the import's CPU at 1.9 M lines (perf) for no garbage.
        with no_cycle_collection():
            done = 0
            for batch in _batches(matching.rows(rows), BATCH):
                ids = _upsert_players(driver, batch, summary, audit_id, seen, matching)
                entries: list[tuple[Any, ...]] = []
                for rating_type, lst in lists.items():
                    base = bases.get(rating_type)
                    named = [player_id for player_id, _ in ids.values()] if base is not None else []
                    on_base = _entries_on(driver, base, named) if base is not None else {}
                    list_id, list_date = lst.id, lst.list_date  # read once: ORM attributes cost per access
                    # An active entry's last activity (_entry): made once a list, not once an entry.
                    before = str(Period.of(list_date).shift(-1))
                    for row in batch:
                        rating = row.ratings.get(rating_type)
                        if rating is None:
                            continue
                        player_id, version_id = ids[row.line]
                        prior = on_base.get(player_id)
                        if prior is None:
                            entry = _entry(list_id, player_id, version_id, row, rating, list_date, before)
                            if base is not None:
                                summary.added[rating_type] += 1
                        else:
                            entry = _corrected(list_id, prior, row, rating, version_id)
                            summary.changed[rating_type] += entry[1:] != prior[1:]
                        entries.append(entry)
                        summary.entries[rating_type] += 1
                        summary.rated[rating_type] += entry[_RATING] is not None
                entries.sort(key=_LIST_AND_PLAYER)  # key order: the primary key's B-tree fills page by page
                driver.queue("list_entry", LIST_ENTRY_COLUMNS, entries)
                done += len(batch)
                if progress is not None:
                    progress(done)
    finally:
        driver.restore()


def _certain_rows(session: Session, rows: Iterable[ListRow], matching: ListMatching) -> dict[int, Player]:
    """--match-certain's first pass: the file's rows checked as the import checks them (the same options),
    nothing written; line → the registered player each certain row is."""
    probe = ListMatching(
        matching.source, matches=matching.matches, new=matching.new, accept_names=matching.accept_names
    )
    probe.begin(session)
    driver = Driver(session)
    try:
        for batch in _batches(probe.rows(rows), BATCH):
            probe.check(driver, batch, _known_players(driver, batch), _key)
    finally:
        driver.restore()
    return probe.certain_matches(session)


def _batches(rows: Iterator[ListRow], size: int) -> Iterator[list[ListRow]]:
    while batch := list(islice(rows, size)):
        yield batch


def _entry(
    list_id: int, player_id: int, version_id: int, row: ListRow, r: ListRating, list_date: dt.date,
    before: str,
) -> tuple[Any, ...]:  # fmt: skip
    """The new entry of a player the list in force does not hold: a ListEntryRow as a plain tuple (a FIDE
    list has a million rows). `before` is the period before the list's date."""
    games_total, reached_2400, reached_2300 = derived_state(r, row.birth_year, list_date)
    rated = r.rating is not None
    flag = row.flag if rated and row.flag in ("i", "w", "wi") else None
    inactive = flag in ("i", "wi")
    # An active entry on an imported list counts as activity in the period before it (§7.2.2).
    last_active = None if (inactive or not rated) else before
    return (
        list_id,
        player_id,
        r.rating,
        r.games or 0,
        r.k if rated else None,
        flag,
        None,
        games_total,
        reached_2400,
        reached_2300,
        last_active,
        None,
        version_id,
    )


_RATING = LIST_ENTRY_COLUMNS.index("rating")
_LIST_AND_PLAYER = itemgetter(0, 1)


def _entries_on(driver: Driver, list_id: int, player_ids: list[int]) -> dict[int, tuple[Any, ...]]:
    """Player id → the row (LIST_ENTRY_COLUMNS) of those of `player_ids` that list `list_id` holds."""
    found: dict[int, tuple[Any, ...]] = {}
    columns = column_list(LIST_ENTRY_COLUMNS)
    for start in range(0, len(player_ids), 10_000):
        chunk = player_ids[start : start + 10_000]
        among, values = driver.among("player_id", chunk)
        for row in driver.rows(
            f"SELECT {columns} FROM list_entry WHERE list_id = ? AND {among}", [list_id, *values]
        ):
            found[row[1]] = tuple(row)
    return found


def _corrected(
    list_id: int, prior: tuple[Any, ...], row: ListRow, r: ListRating, version_id: int
) -> tuple[Any, ...]:
    """The entry `prior` with what the file's row gives; a field the row leaves empty keeps its value.

    Reaching 2400 / 2300 is for life (§8.3.3): a corrected rating can set those marks, never clear them.
    The entry shows the player's details as the row left them (`version_id`).
    """
    given: dict[str, Any] = {
        column: value
        for column, value in (
            ("rating", r.rating),
            ("games", r.games),
            ("k", r.k),
            ("flag", row.flag),
            ("games_total", r.games_total),
        )
        if value is not None
    }
    e = ListEntryRow._make(prior)._replace(list_id=list_id, player_version_id=version_id, **given)
    rating = e.rating or 0
    reached_2400 = r.reached_2400 if r.reached_2400 is not None else bool(e.reached_2400) or rating >= 2400
    reached_2300 = (
        r.reached_2300
        if r.reached_2300 is not None
        else bool(e.reached_2300) or reached_2400 or rating >= 2300
    )
    # As on an imported list: only rated players carry an activity flag.
    flag = None if e.rating is None else e.flag
    return e._replace(reached_2400=reached_2400, reached_2300=reached_2300, flag=flag)


def derived_state(r: ListRating, birth_year: int | None, list_date: dt.date) -> tuple[int, bool, bool]:
    """(games_total, reached_2400, reached_2300) from explicit columns, else implied by K (formats.md).

    K 10 → reached 2400; K 20 for a junior → reached 2300; K 20 for an adult → at least 30 games;
    K 40 for an adult → fewer than 30, taken as the games seen on the list.
    """
    rating = r.rating or 0
    junior = is_junior(birth_year, list_date.year)
    reached_2400 = r.reached_2400 if r.reached_2400 is not None else (r.k == 10 or rating >= 2400)
    reached_2300 = (
        r.reached_2300
        if r.reached_2300 is not None
        else (reached_2400 or rating >= 2300 or (r.k == 20 and junior))
    )
    if r.games_total is not None:
        games_total = r.games_total
    elif r.rating is None:
        games_total = r.games or 0
    elif r.k == 40:
        games_total = min(r.games or 0, GAMES_FOR_ESTABLISHED - 1)
    else:
        # K 10/20, or no K given for a rated player: established (at least 30 games).
        games_total = max(r.games or 0, GAMES_FOR_ESTABLISHED)
    return games_total, reached_2400, reached_2300


def _upsert_players(
    driver: Driver,
    batch: list[ListRow],
    summary: ListImportSummary,
    audit_id: int,
    seen: bytearray,
    matching: ListMatching,
) -> dict[int, tuple[int, int]]:
    """Line number → (player id, version id) for the batch; new players registered, changed details
    made a new version (the file is silent about nothing it leaves empty: the database keeps those)."""
    known = _known_players(driver, batch)
    matching.known_certain(batch, known, _key)
    matching.check(driver, batch, known, _key)
    ids: dict[int, tuple[int, int]] = {}
    new_rows: list[ListRow] = []
    changes: list[tuple[int, Details]] = []
    changed_lines: list[tuple[int, int]] = []  # (line, player id)
    for r in batch:
        found = known.get(_key(r))
        if found is None:
            new_rows.append(r)
            continue
        player_id, version_id, current = found
        if player_id < len(seen) and seen[player_id]:
            raise DuplicatePlayer(
                f"line {r.line} of the list names registered player {player_id} a second time (through a "
                "merged duplicate's ID): list each player once"
            )
        if player_id >= len(seen):
            seen.extend(bytes(player_id + 1 - len(seen) + 65_536))
        seen[player_id] = 1
        if current is None:
            ids[r.line] = (player_id, version_id)
            continue
        kept = (new if new is not None else old for new, old in zip(_details(r), current[:7], strict=True))
        wanted = Details._make((*kept, current.deceased))
        if wanted != current:
            changes.append((player_id, wanted))
            changed_lines.append((r.line, player_id))
        else:
            ids[r.line] = (player_id, version_id)
    if new_rows:
        registered = register_players(driver, [Details(*_details(r)) for r in new_rows], audit_id)
        for r, reg in zip(new_rows, registered, strict=True):
            ids[r.line] = reg
        summary.new_players += len(new_rows)
    if changes:
        _refuse_taken_ids(driver, changes)
        new_versions = change_players(driver, changes, audit_id)
        for line, player_id in changed_lines:
            ids[line] = (player_id, new_versions[player_id])
        summary.updated_players += len(changes)
    return ids


def _refuse_taken_ids(driver: Driver, changes: list[tuple[int, Details]]) -> None:
    """A row that gives a registered player an ID another player holds names one person twice."""
    for column in ("fide_id", "national_id"):
        index = DETAIL_COLUMNS.index(column)
        wanted = {d[index]: pid for pid, d in changes if d[index] is not None}
        keys = list(wanted)
        for start in range(0, len(keys), 10_000):
            chunk = keys[start : start + 10_000]
            among, values = driver.among(column, chunk)
            for holder, value, name in driver.rows(
                f"SELECT id, {column}, name FROM player WHERE {among}", values
            ):
                if holder != wanted[value]:
                    what = "FIDE ID" if column == "fide_id" else "national ID"
                    raise DuplicatePlayer(
                        f"the list gives {what} {value} to player {wanted[value]}, but player {holder} "
                        f"({name}) has it: if they are one person, run `ratingdb player merge` first"
                    )


def _key(r: ListRow) -> tuple[str, object]:
    return ("fide", r.fide_id) if r.fide_id else ("national", r.national_id)


def _known_players(
    driver: Driver, rows: list[ListRow]
) -> dict[tuple[str, object], tuple[int, int, Details | None]]:
    """Registered players among `rows`, by FIDE ID (else national ID): id, current version, details.

    The ID of a merged duplicate gives the player kept, with details None: a list that still names the
    duplicate does not change the kept player's details (nor give it the duplicate's IDs).
    """
    found: dict[tuple[str, object], tuple[int, int, Details | None]] = {}
    merged: dict[tuple[str, object], int] = {}
    columns = ", ".join(("id", "current_version_id", *DETAIL_COLUMNS, "merged_into"))
    by_kind: dict[str, list[Any]] = {
        "fide": [r.fide_id for r in rows if r.fide_id],
        "national": [r.national_id for r in rows if not r.fide_id],  # as _key: FIDE ID first
    }
    for kind, column in (("fide", "fide_id"), ("national", "national_id")):
        keys = by_kind[kind]
        for start in range(0, len(keys), 10_000):
            chunk = keys[start : start + 10_000]
            among, values = driver.among(column, chunk)
            for row in driver.rows(f"SELECT {columns} FROM player WHERE {among}", values):
                details = Details._make((*row[2:9], bool(row[9])))
                key = details.fide_id if kind == "fide" else details.national_id
                if row[10] is None:
                    found[(kind, key)] = (row[0], row[1], details)
                else:
                    merged[(kind, key)] = row[10]
    for merged_key, target in merged.items():
        for _ in range(10):  # a chain of merges is short; ten steps end any loop
            (player_id, version_id, into), *_ = driver.rows(
                "SELECT id, current_version_id, merged_into FROM player WHERE id = ?", (target,)
            )
            if into is None:
                break
            target = into
        found[merged_key] = (player_id, version_id, None)
    return found


def _details(r: ListRow) -> tuple[Any, ...]:
    # In Details order up to the IDs; spelled out because it runs once per line of a 1.9-million-line list.
    return (r.name, r.federation, r.sex, r.title, r.birth_year, r.fide_id, r.national_id)


@dataclass
class ListAssumptions:
    """What an import assumes where a list is silent, counted per rating type as the rows stream past.

    `established`: rated players with neither K nor games_total, taken as 30 or more rated games;
    `from_k`: rated players without games_total whose games toward 30 follow from K (derived_state).
    """

    established: dict[str, int] = field(default_factory=dict)
    from_k: dict[str, int] = field(default_factory=dict)

    def watch(self, rows: Iterable[ListRow]) -> Iterator[ListRow]:
        for row in rows:
            for rating_type, r in row.ratings.items():
                if r.rating is not None and r.games_total is None:
                    counts = self.established if r.k is None else self.from_k
                    counts[rating_type] = counts.get(rating_type, 0) + 1
            yield row
