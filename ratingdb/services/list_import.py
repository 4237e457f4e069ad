"""Record a list published elsewhere (FIDE's, a previous system's) as an imported list; stream, never hold it.

Takes a Session, never commits. Reading the file is ratingdb.formats' job; the rule state a list
implies (reached 2400/2300, games toward 30) is derived here from K and birth year as formats.md says.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from sqlalchemy.orm import Session

from ratingdb.errors import DuplicatePlayer, ImmutableList
from ratingdb.formats import ListRating, ListRow
from ratingdb.models import RatingList
from ratingdb.rating import GAMES_FOR_ESTABLISHED, Period, is_junior
from ratingdb.services.bulk import LIST_ENTRY_COLUMNS, Driver
from ratingdb.services.lists import list_on, new_list
from ratingdb.services.players import DETAIL_COLUMNS, Details, change_players, register_players
from ratingdb.services.versions import record_change, seal

BATCH = 20_000


@dataclass
class ListImportSummary:
    list_date: dt.date
    lists: dict[str, int] = field(default_factory=dict)  # rating type → list id
    entries: dict[str, int] = field(default_factory=dict)  # rating type → entries written
    rated: dict[str, int] = field(default_factory=dict)
    new_players: int = 0
    updated_players: int = 0


def import_list(
    session: Session,
    rows: Iterable[ListRow],
    *,
    list_date: dt.date,
    rating_types: Sequence[str],
    source: str,
    progress: Callable[[int], None] | None = None,
) -> ListImportSummary:
    """Record `rows` as the imported list(s) dated `list_date`, creating or updating players."""
    if list_date.day != 1:
        raise ImmutableList(f"a list is dated the first day of a month, not {list_date.isoformat()}")
    summary = ListImportSummary(list_date=list_date)
    lists: dict[str, RatingList] = {}
    changes: list[int] = []
    for rating_type in rating_types:
        existing = list_on(session, rating_type, list_date)
        if existing is not None:
            raise ImmutableList(
                f"a {rating_type} list dated {list_date.isoformat()} already exists ({existing.origin}"
                f"{', from ' + existing.source if existing.source else ''}); published lists never change"
            )
        detail = f"imported the {rating_type} list dated {list_date.isoformat()} from {source}"
        change = record_change(session, "import-list", detail)
        changes.append(change.id)
        lists[rating_type] = new_list(
            session, rating_type, list_date, change, origin="imported", source=source
        )
    # Players the file registers or whose details it changes: versions made by the import's first change.
    audit_id = changes[0]
    summary.lists = {t: lst.id for t, lst in lists.items()}
    summary.entries = dict.fromkeys(rating_types, 0)
    summary.rated = dict.fromkeys(rating_types, 0)

    driver = Driver(session)
    # Registered players the list has named so far, one byte per player id (a FIDE list names millions).
    seen = bytearray()
    try:
        done = 0
        for batch in _batches(iter(rows), BATCH):
            ids = _upsert_players(driver, batch, summary, audit_id, seen)
            entries: list[tuple[Any, ...]] = []
            for rating_type, lst in lists.items():
                before = len(entries)
                for row in batch:
                    rating = row.ratings.get(rating_type)
                    if rating is not None:
                        entries.append(_entry(lst.id, *ids[row.line], row, rating, list_date))
                        summary.rated[rating_type] += rating.rating is not None
                summary.entries[rating_type] += len(entries) - before
            driver.write("list_entry", LIST_ENTRY_COLUMNS, entries)
            done += len(batch)
            if progress is not None:
                progress(done)
    finally:
        driver.restore()
    for lst in lists.values():
        seal(session, lst)
    return summary


def _batches(rows: Iterator[ListRow], size: int) -> Iterator[list[ListRow]]:
    while batch := list(islice(rows, size)):
        yield batch


def _entry(
    list_id: int, player_id: int, version_id: int, row: ListRow, r: ListRating, list_date: dt.date
) -> tuple[Any, ...]:
    games_total, reached_2400, reached_2300 = derived_state(r, row.birth_year, list_date)
    rated = r.rating is not None
    flag = row.flag if rated and row.flag in ("i", "w", "wi") else None
    inactive = flag in ("i", "wi")
    # An active entry on an imported list counts as activity in the period before it (§7.2.2).
    last_active = None if (inactive or not rated) else str(Period.of(list_date).shift(-1))
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
    driver: Driver, batch: list[ListRow], summary: ListImportSummary, audit_id: int, seen: bytearray
) -> dict[int, tuple[int, int]]:
    """Line number → (player id, version id) for the batch; new players registered, changed details
    made a new version (the file is silent about nothing it leaves empty: the database keeps those)."""
    known = _known_players(driver, batch)
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
            marks = ", ".join("?" * len(chunk))
            for holder, value, name in driver.rows(
                f"SELECT id, {column}, name FROM player WHERE {column} IN ({marks})", chunk
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
    for kind, column in (("fide", "fide_id"), ("national", "national_id")):
        keys = [k for k_kind, k in map(_key, rows) if k_kind == kind]
        for start in range(0, len(keys), 10_000):
            chunk = keys[start : start + 10_000]
            marks = ", ".join("?" * len(chunk))
            for row in driver.rows(f"SELECT {columns} FROM player WHERE {column} IN ({marks})", chunk):
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
