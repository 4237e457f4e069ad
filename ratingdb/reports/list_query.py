"""One page of a published list: filtered, sorted and paged as the served list page and the API ask.

Pure: works on the ListLine rows ratingdb.reports.lists reads; no database, no web imports.
The filters are the ones the static site's script offers (name, federation, club, women / juniors / seniors,
active only, a rating range), so a served page and a static page show the same players for the same choice.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ratingdb.errors import ConfigError
from ratingdb.i18n import N_, translatable
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


class RankedList:
    """A list version's lines with their ranks, and what its pages show of the whole list, made once per
    version (a published version never changes): the served list page and the API then page through it
    without ranking the list again for each request. The orders other sorts give are made when first
    asked, and kept too."""

    def __init__(self, lines: Sequence[ListLine]) -> None:
        self.lines = lines
        self.ranked = ranked_lines(lines)
        self.rated = sum(1 for rank, _ in self.ranked if rank is not None)
        self.federations = sorted({line.federation for line in lines if line.federation})
        # The clubs the list's players belong to (ListLine.club): the page offers the club filter and
        # column only when there are any.
        self.clubs = sorted({line.club for line in lines if line.club})
        self._orders: dict[tuple[str, bool], list[Ranked]] = {("rank", False): self.ranked}
        self._folded: dict[int, str] | None = None

    def __len__(self) -> int:
        return len(self.ranked)

    def order(self, sort: str, descending: bool) -> list[Ranked]:
        """Every line in the order of `sort`: stable, so the list's order among equal values, and blanks
        (no rating, no birth year) always last, in either direction — as the static page's script sorts.
        Made once per sort (two threads asking at once both make it, and one is kept: no harm)."""
        found = self._orders.get((sort, descending))
        if found is None:
            keyed = [(_key(sort, r), r) for r in self.ranked]
            present = [(value, r) for (blank, value), r in keyed if not blank]
            present.sort(key=lambda item: item[0], reverse=descending)  # type: ignore[arg-type,return-value]
            found = [r for _, r in present] + [r for (blank, _), r in keyed if blank]
            self._orders[(sort, descending)] = found
        return found

    def folded(self, player_id: int, name: str) -> str:
        """The line's name folded for the name filter, kept for the next visitor who filters by name."""
        folded = self._folded
        if folded is None:
            folded = self._folded = {line.player_id: fold(line.name) for line in self.lines}
        return folded.get(player_id) or fold(name)


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
    club: str = ""

    def __post_init__(self) -> None:
        # Each sentence is the API's and, translated, the list page's (ratingdb.i18n.translatable).
        problem: tuple[str, dict[str, object]] | None = None
        if self.sort not in SORT_KEYS:
            problem = (
                N_("'%(sort)s' is not a column to sort by: use one of %(keys)s"),
                {"sort": self.sort, "keys": ", ".join(SORT_KEYS)},
            )
        elif self.group not in GROUPS:
            problem = (
                N_("'%(group)s' is not a group of players: use women, juniors or seniors"),
                {"group": self.group},
            )
        elif self.page < 1:
            problem = (N_("page %(page)s does not exist: pages start at 1"), {"page": self.page})
        elif not 1 <= self.per_page <= MAX_PER_PAGE:
            problem = (
                N_("per_page must be 1 to %(most)s, not %(given)s"),
                {"most": MAX_PER_PAGE, "given": self.per_page},
            )
        if problem is not None:
            message, values = problem
            raise translatable(ConfigError(message % values), message, **values)

    def pages(self, matched: int) -> int:
        return max(1, math.ceil(matched / self.per_page))

    @property
    def filtered(self) -> bool:
        """Whether any filter is set (without one, every line matches)."""
        return bool(
            self.name.strip()
            or self.federation
            or self.club
            or self.group
            or self.active
            or self.rating_min is not None
            or self.rating_max is not None
        )

    def matches(
        self, line: ListLine, year: int, aliases: Sequence[str] = (), folded: str | None = None
    ) -> bool:
        """Whether `line` passes the filters; the name filter also finds the player's `aliases` (the other
        spellings on record: a member types the name as they know it). `folded`: the line's name folded
        already (RankedList keeps them)."""
        if self.name:
            wanted = fold(self.name.strip())
            name = fold(line.name) if folded is None else folded
            if wanted not in name and not any(wanted in fold(a) for a in aliases):
                return False
        if self.federation and line.federation != self.federation:
            return False
        if self.club and line.club != self.club:
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
    ranked: RankedList, query: ListQuery, year: int, aliases: Mapping[int, Sequence[str]] | None = None
) -> tuple[int, list[Ranked]]:
    """How many lines match the query's filters (the name filter finds `aliases` too: player id → other
    spellings), and the lines of the page it asks for, in the order of its sort (RankedList.order)."""
    known = aliases or {}
    ordered = ranked.order(query.sort, query.descending)
    if query.filtered:
        matched = [
            r
            for r in ordered
            if query.matches(
                r[1],
                year,
                known.get(r[1].player_id, ()),
                ranked.folded(r[1].player_id, r[1].name) if query.name else None,
            )
        ]
    else:
        matched = ordered
    start = (query.page - 1) * query.per_page
    return len(matched), matched[start : start + query.per_page]
