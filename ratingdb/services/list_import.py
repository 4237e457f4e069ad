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

from ratingdb.errors import ImmutableList
from ratingdb.formats import ListRating, ListRow
from ratingdb.models import RatingList
from ratingdb.rating import GAMES_FOR_ESTABLISHED, Period, is_junior
from ratingdb.services.bulk import LIST_ENTRY_COLUMNS, Driver
from ratingdb.services.lists import list_on, new_list
from ratingdb.services.versions import record_change, seal

BATCH = 20_000
PLAYER_FIELDS = ("name", "federation", "sex", "title", "birth_year")


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
    for rating_type in rating_types:
        existing = list_on(session, rating_type, list_date)
        if existing is not None:
            raise ImmutableList(
                f"a {rating_type} list dated {list_date.isoformat()} already exists ({existing.origin}"
                f"{', from ' + existing.source if existing.source else ''}); published lists never change"
            )
        detail = f"imported the {rating_type} list dated {list_date.isoformat()} from {source}"
        change = record_change(session, "import-list", detail)
        lists[rating_type] = new_list(
            session, rating_type, list_date, change, origin="imported", source=source
        )
    summary.lists = {t: lst.id for t, lst in lists.items()}
    summary.entries = dict.fromkeys(rating_types, 0)
    summary.rated = dict.fromkeys(rating_types, 0)

    driver = Driver(session)
    try:
        done = 0
        for batch in _batches(iter(rows), BATCH):
            ids = _upsert_players(driver, batch, summary)
            entries: list[tuple[Any, ...]] = []
            for rating_type, lst in lists.items():
                before = len(entries)
                for row in batch:
                    rating = row.ratings.get(rating_type)
                    if rating is not None:
                        entries.append(_entry(lst.id, ids[row.line], row, rating, list_date))
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


def _entry(list_id: int, player_id: int, row: ListRow, r: ListRating, list_date: dt.date) -> tuple[Any, ...]:
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


def _upsert_players(driver: Driver, batch: list[ListRow], summary: ListImportSummary) -> dict[int, int]:
    """Line number → player id for the batch; new players inserted, changed details updated."""
    known = _known_players(driver, batch)
    ids: dict[int, int] = {}
    new_rows: list[ListRow] = []
    updates: list[tuple[Any, ...]] = []
    for r in batch:
        found = known.get(_key(r))
        if found is None:
            new_rows.append(r)
            continue
        player_id, current = found
        ids[r.line] = player_id
        # Keep what the database knows where the file is silent (an empty birth year, say).
        wanted = tuple(new if new is not None else old for new, old in zip(_details(r), current, strict=True))
        if wanted != current:
            updates.append((*wanted, player_id))
    if new_rows:
        driver.write(
            "player",
            ("fide_id", "national_id", *PLAYER_FIELDS),
            [(r.fide_id, r.national_id, *_details(r)) for r in new_rows],
        )
        created = _known_players(driver, new_rows)
        for r in new_rows:
            ids[r.line] = created[_key(r)][0]
        summary.new_players += len(new_rows)
    if updates:
        assignments = ", ".join(f"{name} = ?" for name in PLAYER_FIELDS)
        driver.execute_many(f"UPDATE player SET {assignments} WHERE id = ?", updates)
        summary.updated_players += len(updates)
    return ids


def _key(r: ListRow) -> tuple[str, object]:
    return ("fide", r.fide_id) if r.fide_id else ("national", r.national_id)


def _known_players(
    driver: Driver, rows: list[ListRow]
) -> dict[tuple[str, object], tuple[int, tuple[Any, ...]]]:
    """Registered players among `rows`, by FIDE ID (else national ID): id and current details."""
    found: dict[tuple[str, object], tuple[int, tuple[Any, ...]]] = {}
    columns = ", ".join(("id", "fide_id", "national_id", *PLAYER_FIELDS))
    for kind, column in (("fide", "fide_id"), ("national", "national_id")):
        keys = [k for k_kind, k in map(_key, rows) if k_kind == kind]
        for start in range(0, len(keys), 10_000):
            chunk = keys[start : start + 10_000]
            marks = ", ".join("?" * len(chunk))
            for row in driver.rows(f"SELECT {columns} FROM player WHERE {column} IN ({marks})", chunk):
                key = row[1] if kind == "fide" else row[2]
                found[(kind, key)] = (row[0], tuple(row[3:]))
    return found


def _details(r: ListRow) -> tuple[Any, ...]:
    # In PLAYER_FIELDS order; spelled out because it runs once per line of a 1.9-million-line list.
    return (r.name, r.federation, r.sex, r.title, r.birth_year)


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
