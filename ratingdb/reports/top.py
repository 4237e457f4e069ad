"""`report top`: the top lists federations publish (open, women, juniors, girls, seniors) from one list.

Takes a Session; reads only published list entries. No rules are recomputed; no CLI imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.schema.models import ListEntry, PlayerVersion, RatingList
from ratingdb.services.systems import list_system

Category = Literal["open", "women", "juniors", "girls", "seniors50", "seniors65"]
CATEGORIES: Final[tuple[Category, ...]] = get_args(Category)

# FIDE's own top-list categories, by age in the list's year (list year − birth year).
JUNIOR_MAX_AGE: Final = 20
SENIOR_50_MIN_AGE: Final = 50
SENIOR_65_MIN_AGE: Final = 65
INACTIVE_FLAGS: Final = ("i", "wi")


@dataclass(frozen=True)
class TopLine:
    rank: int
    fide_id: int | None
    national_id: str | None
    name: str
    title: str | None
    federation: str | None
    sex: str | None
    birth_year: int | None
    rating: int
    games: int
    k: int | None
    flag: str | None
    player_id: int


def check_category(category: str) -> Category:
    for known in CATEGORIES:
        if category == known:
            return known
    raise ConfigError(f"'{category}' is not a category: use one of {', '.join(CATEGORIES)}")


def top_list(
    session: Session,
    rating_list: RatingList,
    *,
    category: Category = "open",
    federation: str | None = None,
    active_only: bool = False,
    limit: int | None = 100,
) -> list[TopLine]:
    """The best rated players of `rating_list` in `category`, ranked 1, 2, 3 … (ties broken by name).

    Age categories need a birth year: players without one are left out of them.
    """
    year = rating_list.list_date.year
    query = select(
        PlayerVersion.fide_id,
        PlayerVersion.national_id,
        PlayerVersion.name,
        PlayerVersion.title,
        PlayerVersion.federation,
        PlayerVersion.sex,
        PlayerVersion.birth_year,
        ListEntry.rating,
        ListEntry.games,
        ListEntry.k,
        ListEntry.flag,
        ListEntry.player_id,
    )
    # A system with its own figures (Glicko-2) ranks by its rating in hundredths (list_entry holds it to
    # the whole point).
    system = list_system(session, rating_list.id)
    order: list[Any] = [ListEntry.rating.desc()]
    if (figures := system.entry_model) is not None:
        query = query.outerjoin(
            figures, (figures.list_id == ListEntry.list_id) & (figures.player_id == ListEntry.player_id)
        )
        order.append(figures.rating_x100.desc())
    query = query.order_by(*order, PlayerVersion.name, ListEntry.player_id)
    query = _rated_on(query, rating_list, federation=federation, active_only=active_only)
    if category in ("women", "girls"):
        query = query.where(PlayerVersion.sex == "F")
    if category in ("juniors", "girls"):
        query = query.where(PlayerVersion.birth_year >= year - JUNIOR_MAX_AGE)
    if category == "seniors50":
        query = query.where(PlayerVersion.birth_year <= year - SENIOR_50_MIN_AGE)
    if category == "seniors65":
        query = query.where(PlayerVersion.birth_year <= year - SENIOR_65_MIN_AGE)
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"--limit must be at least 1, not {limit}")
        query = query.limit(limit)
    rows: list[tuple[Any, ...]] = [tuple(row) for row in session.execute(query)]
    return [TopLine(rank, *row) for rank, row in enumerate(rows, 1)]


def _rated_on(query: Any, rating_list: RatingList, *, federation: str | None, active_only: bool) -> Any:
    """`query` narrowed to the rated players of the list, of `federation`, active only if asked.

    Names, federations and birth years are read as the list published them (categories included).
    """
    query = query.join(PlayerVersion, PlayerVersion.id == ListEntry.player_version_id).where(
        ListEntry.list_id == rating_list.id, ListEntry.rating.is_not(None)
    )
    if federation is not None:
        query = query.where(PlayerVersion.federation == federation.strip().upper())
    if active_only:
        query = query.where((ListEntry.flag.is_(None)) | (ListEntry.flag.not_in(INACTIVE_FLAGS)))
    return query


def why_empty(
    session: Session,
    rating_list: RatingList,
    *,
    category: Category,
    federation: str | None = None,
    active_only: bool = False,
) -> str:
    """Why `top_list` found nobody: no rated player at all, or none with the birth year or sex it needs."""
    who = "rated players" + (f" of {federation.strip().upper()}" if federation else "")
    who += " who are active" if active_only else ""
    counts = select(
        func.count(),
        func.count(PlayerVersion.birth_year),
        func.sum(case((PlayerVersion.sex.is_(None), 0), else_=1)),
    ).select_from(ListEntry)
    rated, with_birth_year, with_sex = session.execute(
        _rated_on(counts, rating_list, federation=federation, active_only=active_only)
    ).one()
    if rated == 0:
        return f"the list has no {who}"
    year = rating_list.list_date.year
    if category in ("juniors", "girls", "seniors50", "seniors65"):
        if with_birth_year == 0:
            return f"none of its {rated} {who} has a birth year, which the {category} category needs"
        if with_birth_year < rated:
            missing = rated - with_birth_year
            return (
                f"no player with a birth year fits it in {year}; {missing} of its {rated} {who} have no "
                "birth year and cannot be placed"
            )
    if category in ("women", "girls") and (with_sex or 0) == 0:
        return f"none of its {rated} {who} has the sex recorded, which the {category} category needs"
    return f"none of its {rated} {who} is in the {category} category in {year}"
