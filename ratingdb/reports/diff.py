"""`report diff`: what changed between two versions of a list, and what a close changed.

Two lists of one type are compared by ratingdb.services.list_diff (the officer's period page uses it too).
Takes a Session; compares stored entries only. No CLI imports.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.rating import Period
from ratingdb.schema.models import ListEntry, Player, RatingList
from ratingdb.services.list_diff import list_changes
from ratingdb.services.lists import list_on


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
