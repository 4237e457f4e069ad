"""The rows a list reader yields (ListRow, ListRating) and the list formats; imports: stdlib only."""

# Apart from ratingdb.formats.lists so that ratingdb.formats.list_producer, which `read_list(...,
# ahead=True)` calls, rebuilds rows without importing the readers back (no import cycle).

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["ListFormat", "ListRating", "ListRow"]

ListFormat = Literal["csv", "fide-txt", "fide-xml"]


@dataclass(frozen=True, slots=True)
class ListRating:
    """One rating type of one list row; rating None means unrated."""

    rating: int | None
    games: int | None
    k: int | None
    games_total: int | None = None
    reached_2400: bool | None = None
    reached_2300: bool | None = None


@dataclass(slots=True)
class ListRow:
    """One player of a list file. `ratings` holds every requested rating type, rated or not.

    FIDE lists: `title` is the Tit column, else the women's title (WTit); K 0 reads as None. Treated as
    a value, but not frozen: a frozen dataclass is six times dearer to build (3.3 µs against 0.55), and a
    FIDE list builds two million of them.
    """

    line: int
    fide_id: int | None
    national_id: str | None
    name: str
    federation: str | None
    sex: Literal["M", "F"] | None
    title: str | None
    birth_year: int | None
    flag: str | None  # None, "i", "w" or "wi"
    ratings: Mapping[str, ListRating]
