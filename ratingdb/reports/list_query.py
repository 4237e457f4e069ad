"""One page of a published list: filtered, sorted and paged as the served list page and the API ask.

Pure: works on the ListLine rows ratingdb.reports.lists reads; no database, no web imports.
The filters are the ones the static site's script offers (name, federation, women / juniors / seniors,
active only, a rating range), so a served page and a static page show the same players for the same choice.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ratingdb.errors import ConfigError
from ratingdb.reports.lists import ListLine

Ranked = tuple[int | None, ListLine]  # the rank on the whole list (None: unrated), the line
Group = Literal["", "women", "juniors", "seniors"]
SORT_KEYS: Final = ("rank", "name", "federation", "born", "rating", "change", "games")
GROUPS: Final = ("", "women", "juniors", "seniors")
JUNIOR_AGE: Final = 20  # "juniors (20 or younger)", the static page's filter
SENIOR_AGE: Final = 65
PER_PAGE: Final = 100
MAX_PER_PAGE: Final = 1000


def ranked_lines(lines: Sequence[ListLine]) -> list[Ranked]:
    """Each line with its rank on the list: 1, 2, … for the rated ones in list order, None for the unrated."""
    rank = 0
    out: list[Ranked] = []
    for line in lines:
        if line.rating is not None:
            rank += 1
            out.append((rank, line))
        else:
            out.append((None, line))
    return out


def fold(text: str) -> str:
    """Lower case without accents: "Ó Briain" matches "o briain" (as the static page's script does)."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)).lower()


@dataclass(frozen=True)
class ListQuery:
    """What a visitor asked of a list: filters, a sort and a page (1-based)."""

    page: int = 1
    per_page: int = PER_PAGE
    sort: str = "rank"
    descending: bool = False
    name: str = ""
    federation: str = ""
    group: str = ""
    active: bool = False
    rating_min: int | None = None
    rating_max: int | None = None

    def __post_init__(self) -> None:
        if self.sort not in SORT_KEYS:
            raise ConfigError(f"'{self.sort}' is not a column to sort by: use one of {', '.join(SORT_KEYS)}")
        if self.group not in GROUPS:
            raise ConfigError(f"'{self.group}' is not a group of players: use women, juniors or seniors")
        if self.page < 1:
            raise ConfigError(f"page {self.page} does not exist: pages start at 1")
        if not 1 <= self.per_page <= MAX_PER_PAGE:
            raise ConfigError(f"per_page must be 1 to {MAX_PER_PAGE}, not {self.per_page}")

    def pages(self, matched: int) -> int:
        return max(1, math.ceil(matched / self.per_page))

    def matches(self, line: ListLine, year: int, aliases: Sequence[str] = ()) -> bool:
        """Whether `line` passes the filters; the name filter also finds the player's `aliases` (the other
        spellings on record: a member types the name as they know it)."""
        if self.name:
            wanted = fold(self.name.strip())
            if wanted not in fold(line.name) and not any(wanted in fold(a) for a in aliases):
                return False
        if self.federation and line.federation != self.federation:
            return False
        if self.group == "women" and line.sex != "F":
            return False
        born = line.birth_year
        if self.group == "juniors" and (born is None or year - born > JUNIOR_AGE):
            return False
        if self.group == "seniors" and (born is None or year - born < SENIOR_AGE):
            return False
        if self.active and line.flag in ("i", "wi"):
            return False
        if self.rating_min is not None and (line.rating is None or line.rating < self.rating_min):
            return False
        if self.rating_max is not None and (line.rating is None or line.rating > self.rating_max):
            return False
        return True


def _key(sort: str, ranked: Ranked) -> tuple[bool, object]:
    rank, line = ranked
    value: object = {
        "rank": rank,
        "name": fold(line.name),
        "federation": line.federation,
        "born": line.birth_year,
        "rating": line.rating,
        "change": line.change,
        "games": line.games,
    }[sort]
    return (value is None, value if value is not None else 0)


def query_lines(
    ranked: Sequence[Ranked], query: ListQuery, year: int, aliases: Mapping[int, Sequence[str]] | None = None
) -> tuple[int, list[Ranked]]:
    """How many lines match the query's filters (the name filter finds `aliases` too: player id → other
    spellings), and the lines of the page it asks for.

    A sort keeps the list's order among equal values, and blanks (no rating, no birth year) always last,
    in either direction — as the static page's script sorts.
    """
    known = aliases or {}
    matched = [r for r in ranked if query.matches(r[1], year, known.get(r[1].player_id, ()))]
    if query.sort != "rank" or query.descending:
        present = [r for r in matched if not _key(query.sort, r)[0]]
        blank = [r for r in matched if _key(query.sort, r)[0]]
        present.sort(key=lambda r: _key(query.sort, r)[1], reverse=query.descending)  # type: ignore[arg-type,return-value]
        matched = present + blank
    start = (query.page - 1) * query.per_page
    return len(matched), matched[start : start + query.per_page]
