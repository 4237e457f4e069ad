"""Record a list published elsewhere (FIDE's, a previous system's) as an imported list; stream, never hold it.

Takes a Session, never commits. Reading the file is ratingdb.formats' job; the rule state a list
implies (reached 2400/2300, games toward 30) is derived here from K and birth year as formats.md says.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from ratingdb.errors import ImmutableList
from ratingdb.formats import ListRating, ListRow
from ratingdb.models import ListEntry, Player, RatingList
from ratingdb.rating import GAMES_FOR_ESTABLISHED, Period, is_junior
from ratingdb.services.lists import list_on

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
        lst = RatingList(rating_type=rating_type, list_date=list_date, origin="imported", source=source)
        session.add(lst)
        lists[rating_type] = lst
    session.flush()
    summary.lists = {t: lst.id for t, lst in lists.items()}
    summary.entries = dict.fromkeys(rating_types, 0)
    summary.rated = dict.fromkeys(rating_types, 0)

    done = 0
    for batch in _batches(iter(rows), BATCH):
        ids = _upsert_players(session, batch, summary)
        for rating_type, lst in lists.items():
            entries = []
            for row in batch:
                rating = row.ratings.get(rating_type)
                if rating is None:
                    continue
                entries.append(_entry(lst.id, ids[row.line], row, rating, list_date))
                summary.rated[rating_type] += rating.rating is not None
            if entries:
                # Core insert on the table: one executemany (the ORM bulk path split these rows into
                # many small statements; measured with bench/import_list.py).
                session.execute(insert(ListEntry.__table__), entries)
            summary.entries[rating_type] += len(entries)
        done += len(batch)
        if progress is not None:
            progress(done)
    return summary


def _batches(rows: Iterator[ListRow], size: int) -> Iterator[list[ListRow]]:
    while batch := list(islice(rows, size)):
        yield batch


def _entry(
    list_id: int, player_id: int, row: ListRow, r: ListRating, list_date: dt.date
) -> dict[str, object]:
    state = derived_state(r, row.birth_year, list_date)
    rated = r.rating is not None
    flag = row.flag if rated and row.flag in ("i", "w", "wi") else None
    inactive = flag in ("i", "wi")
    return dict(
        list_id=list_id,
        player_id=player_id,
        rating=r.rating,
        games=r.games or 0,
        k=r.k if rated else None,
        flag=flag,
        change=None,
        games_total=state[0],
        reached_2400=state[1],
        reached_2300=state[2],
        # An active entry on an imported list counts as activity in the period before it (§7.2.2).
        last_active=None if (inactive or not rated) else str(Period.of(list_date).shift(-1)),
        pool_from=None,
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


def _upsert_players(session: Session, batch: list[ListRow], summary: ListImportSummary) -> dict[int, int]:
    """Line number → player id for the batch; new players inserted, changed details updated."""
    fide_ids = [r.fide_id for r in batch if r.fide_id]
    national_ids = [r.national_id for r in batch if r.national_id and not r.fide_id]
    columns = (Player.id, Player.fide_id, Player.national_id, *(getattr(Player, f) for f in PLAYER_FIELDS))
    known: dict[tuple[str, object], tuple[object, ...]] = {}
    if fide_ids:
        for row in session.execute(select(*columns).where(Player.fide_id.in_(fide_ids))):
            known[("fide", row.fide_id)] = tuple(row)
    if national_ids:
        for row in session.execute(select(*columns).where(Player.national_id.in_(national_ids))):
            known[("national", row.national_id)] = tuple(row)
    ids: dict[int, int] = {}
    new_rows: list[ListRow] = []
    updates: list[dict[str, object]] = []
    for r in batch:
        key = ("fide", r.fide_id) if r.fide_id else ("national", r.national_id)
        found = known.get(key)
        if found is None:
            new_rows.append(r)
            continue
        player_id = int(found[0])  # type: ignore[call-overload]
        ids[r.line] = player_id
        wanted = _details(r)
        current = dict(zip(PLAYER_FIELDS, found[3:], strict=True))
        # Keep what the database knows where the file is silent (an empty birth year, say).
        changed = {k: v for k, v in wanted.items() if v is not None and v != current[k]}
        if changed:
            updates.append({"id": player_id, **{**current, **changed}})
    if new_rows:
        created = session.scalars(
            insert(Player).returning(Player.id, sort_by_parameter_order=True),
            [dict(fide_id=r.fide_id, national_id=r.national_id, **_details(r)) for r in new_rows],
        ).all()
        for r, player_id in zip(new_rows, created, strict=True):
            ids[r.line] = player_id
        summary.new_players += len(new_rows)
    if updates:
        session.execute(update(Player), updates)
        summary.updated_players += len(updates)
    return ids


def _details(r: ListRow) -> dict[str, object]:
    return {
        "name": r.name,
        "federation": r.federation,
        "sex": r.sex,
        "title": r.title,
        "birth_year": r.birth_year,
    }
