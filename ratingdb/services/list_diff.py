"""What changed between two lists of one type: entered, left, became unrated, changed, and a histogram.

Takes a Session; compares stored entries only, and writes nothing. A service, below the reports, because
the officer's period page (services/submissions.py, period_view) shows what a dry-run close would change
with it; `report diff` (ratingdb.reports.diff) and the close's summary use it too, and the close of
several periods (services.closing) what a close changed and how a new version differs from the withdrawn
one. No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import Select, and_, select
from sqlalchemy.orm import Session, aliased

from ratingdb import engines
from ratingdb.errors import ConfigError
from ratingdb.rating import Period
from ratingdb.schema.models import ListEntry, Player, PlayerVersion, RatingList
from ratingdb.services.lists import list_on


@dataclass(frozen=True)
class DiffLine:
    fide_id: int | None
    national_id: str | None
    name: str
    before: int | None
    after: int | None

    @property
    def change(self) -> int | None:
        return None if self.before is None or self.after is None else self.after - self.before


@dataclass(frozen=True)
class Bin:
    """Changes from `low` to `high` inclusive, e.g. +1 … +10 or −20 … −11."""

    low: int
    high: int
    count: int

    @property
    def label(self) -> str:
        return f"{self.low:+d}..{self.high:+d}"


@dataclass
class ListDiff:
    rating_type: str
    date_a: dt.date
    date_b: dt.date
    entered: list[DiffLine] = field(default_factory=list)  # rated on B, not rated on A
    left: list[DiffLine] = field(default_factory=list)  # rated on A, not on list B at all
    became_unrated: list[DiffLine] = field(default_factory=list)  # rated on A, on B without a rating
    changed: list[DiffLine] = field(default_factory=list)  # rated on both, another rating
    unchanged: int = 0
    histogram: list[Bin] = field(default_factory=list)


def list_diff(session: Session, list_a: RatingList, list_b: RatingList, *, bin_width: int = 10) -> ListDiff:
    """Compare two lists of one type; changes are binned symmetrically: +1..+10, −1..−10, +11..+20 …"""
    if list_a.rating_type != list_b.rating_type:
        raise ConfigError("the two lists are of different rating types")
    if bin_width < 1:
        raise ConfigError(f"the histogram's bin width must be at least 1, not {bin_width}")
    diff = ListDiff(list_a.rating_type, list_a.list_date, list_b.list_date)
    on_b, only_a = _compared(list_a, list_b)
    # Rated on A and unrated on B is two things: still on B (below the floor, §7.2.1) or gone from it.
    with engines.of(session).whole_lists_joined(session):  # whatever the planner knows of a new list
        left, both = session.execute(only_a).all(), session.execute(on_b).all()
    diff.left = [DiffLine(*row, None) for row in left if row[3] is not None]
    bins: Counter[int] = Counter()
    for line in (DiffLine(*row) for row in both):
        if line.before is None and line.after is not None:
            diff.entered.append(line)
        elif line.before is not None and line.after is None:
            diff.became_unrated.append(line)
        elif line.change:
            diff.changed.append(line)
            bins[_bin_of(line.change, bin_width)] += 1
        elif line.change == 0:
            diff.unchanged += 1
    _sort(diff.changed, diff.entered, diff.became_unrated, diff.left)
    if bins:
        # Every bin between the extremes, empty ones too, so the histogram reads as one.
        for index in range(min(bins), max(bins) + 1):
            if index == 0:
                continue
            low, high = _bounds(index, bin_width)
            diff.histogram.append(Bin(low, high, bins[index]))
    return diff


def list_changes(session: Session, list_a: RatingList, list_b: RatingList) -> list[DiffLine]:
    """The lines of `list_diff`'s changed, entered, became_unrated and left, in that order and each sorted
    as it sorts them, without the rest: the players whose rating is the same on both lists are left out by
    the database. What a close changed (`close-period --dry-run`, `--format`): at `large` 44,000 lines of
    189,000 players, whom list_diff reads and sorts out one by one (2.3 s of CPU of the dry run)."""
    if list_a.rating_type != list_b.rating_type:
        raise ConfigError("the two lists are of different rating types")
    on_b, only_a = _compared(list_a, list_b, changed_only=True)
    changed: list[DiffLine] = []
    entered: list[DiffLine] = []
    became_unrated: list[DiffLine] = []
    for line in (DiffLine(*row) for row in session.execute(on_b)):
        # Both unrated, or the same rating, is not returned: one of the two is a rating and they differ.
        if line.before is None:
            entered.append(line)
        elif line.after is None:
            became_unrated.append(line)
        else:
            changed.append(line)
    left = [DiffLine(*row, None) for row in session.execute(only_a)]
    _sort(changed, entered, became_unrated, left)
    return [*changed, *entered, *became_unrated, *left]


def _compared(
    list_a: RatingList, list_b: RatingList, *, changed_only: bool = False
) -> tuple[
    Select[int | None, str | None, str, int | None, int | None],
    Select[int | None, str | None, str, int | None],
]:
    """The two queries of a comparison: the players on B (with A's rating if any), then those only on A,
    as (FIDE ID, national ID, name, rating on A[, rating on B]); each named as the list that has them
    published them. `changed_only`: only the rows whose rating differs (of those only on A, the rated)."""
    a, b = aliased(ListEntry), aliased(ListEntry)
    on_b = (
        select(PlayerVersion.fide_id, PlayerVersion.national_id, PlayerVersion.name, a.rating, b.rating)
        .join(PlayerVersion, PlayerVersion.id == b.player_version_id)
        .outerjoin(a, and_(a.player_id == b.player_id, a.list_id == list_a.id))
        .where(b.list_id == list_b.id)
    )
    only_a = (
        select(PlayerVersion.fide_id, PlayerVersion.national_id, PlayerVersion.name, a.rating)
        .join(PlayerVersion, PlayerVersion.id == a.player_version_id)
        .outerjoin(b, and_(b.player_id == a.player_id, b.list_id == list_b.id))
        .where(a.list_id == list_a.id, b.player_id.is_(None))
    )
    if changed_only:
        on_b = on_b.where(a.rating.is_distinct_from(b.rating))  # NULL-safe on every engine
        only_a = only_a.where(a.rating.is_not(None))
    # In the players' order: the sorts that follow keep it among lines of one change and one name (two
    # players of one name), so both functions give one order on every engine; and each list is read along
    # its primary key and looked up in the other in that order (SQLite, at `large`: 0.1 s of CPU against
    # 0.5 s in the order of the ratings' index, which it took before).
    return on_b.order_by(b.player_id), only_a.order_by(a.player_id)


def _sort(
    changed: list[DiffLine], entered: list[DiffLine], unrated: list[DiffLine], left: list[DiffLine]
) -> None:
    """Each kind in its order: biggest gain, highest new rating, highest old rating first; then by name,
    then as the queries gave them (in the players' order)."""
    entered.sort(key=lambda x: (-(x.after or 0), x.name))
    left.sort(key=lambda x: (-(x.before or 0), x.name))
    unrated.sort(key=lambda x: (-(x.before or 0), x.name))
    changed.sort(key=lambda x: (-(x.change or 0), x.name))


def _bin_of(change: int, width: int) -> int:
    # Bin 1 is +1..+width, bin −1 is −width..−1; no change is never binned.
    magnitude = (abs(change) + width - 1) // width
    return magnitude if change > 0 else -magnitude


def _bounds(index: int, width: int) -> tuple[int, int]:
    if index > 0:
        return (index - 1) * width + 1, index * width
    return index * width, (index + 1) * width - 1


@dataclass(frozen=True)
class VersionChange:
    """A player whose published numbers differ between a withdrawn version of a list and its successor."""

    fide_id: int | None
    national_id: str | None
    name: str
    rating_before: int | None
    rating_after: int | None
    k_before: int | None
    k_after: int | None
    flag_before: str | None
    flag_after: str | None
    on_before: bool = True
    on_after: bool = True

    @property
    def change(self) -> int | None:
        if self.rating_before is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_before


def withdrawn_version(session: Session, current: RatingList) -> RatingList | None:
    """The version of the same list that `current` replaced: the newest withdrawn one before it."""
    return session.scalars(
        select(RatingList)
        .where(
            RatingList.rating_type == current.rating_type,
            RatingList.list_date == current.list_date,
            RatingList.version < current.version,
            RatingList.is_current.is_(None),
        )
        .order_by(RatingList.version.desc())
        .limit(1)
    ).one_or_none()


def version_diff(session: Session, before: RatingList, after: RatingList) -> list[VersionChange]:
    """Every player whose rating, K or flag differs between two versions of a list (the correction notice),
    biggest rating change first."""
    columns = (ListEntry.player_id, ListEntry.rating, ListEntry.k, ListEntry.flag)
    old = {row[0]: row[1:] for row in session.execute(select(*columns).where(ListEntry.list_id == before.id))}
    new = {row[0]: row[1:] for row in session.execute(select(*columns).where(ListEntry.list_id == after.id))}
    differing = [pid for pid in old.keys() | new.keys() if old.get(pid) != new.get(pid)]
    players = (
        {p.id: p for p in session.scalars(select(Player).where(Player.id.in_(differing)))}
        if differing
        else {}
    )
    changes = []
    missing = (None, None, None)
    for pid in differing:
        p = players[pid]
        (r0, k0, f0), (r1, k1, f1) = old.get(pid, missing), new.get(pid, missing)
        changes.append(
            VersionChange(p.fide_id, p.national_id, p.name, r0, r1, k0, k1, f0, f1, pid in old, pid in new)
        )
    changes.sort(key=lambda c: (-abs(c.change or 0), c.name))
    return changes


def close_changes(session: Session, rating_type: str, period: Period) -> list[tuple[object, ...]]:
    """Every rating the close of `period` changed, as (FIDE ID, national ID, name, old, new, change):
    the list it published against the list in force at the period's start. Changed ratings first
    (biggest gain first), then the newly rated, those who became unrated and those who left the list."""
    before = list_on(session, rating_type, period.first_day)
    after = list_on(session, rating_type, period.published_list_date)
    if before is None or after is None:
        return []
    return [
        (d.fide_id, d.national_id, d.name, d.before, d.after, d.change)
        for d in list_changes(session, before, after)
    ]
