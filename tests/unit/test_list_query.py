"""A list page's filters, sorts and paging (ratingdb.reports.list_query), on a list written out by hand.

RankedList ranks a version once and keeps each sort's order; a filter then keeps the sorted lines that
match. These tests say what a visitor must see either way: the static page's script sorts stably with
blanks last, and a filtered page shows the matching lines in the order of the sort.
"""

from __future__ import annotations

import pytest

from ratingdb.reports.list_query import ListQuery, RankedList, query_lines
from ratingdb.reports.lists import ListLine


def line(
    player_id: int, name: str, rating: int | None, born: int | None, federation: str = "IRL"
) -> ListLine:
    return ListLine(
        None, None, name, federation, "M", None, born, rating, 0, None, None, None, 0, False, False, player_id
    )


# In list order (best first, the unrated last), as a published list stores them.
LINES = [
    line(1, "Ó Briain, Seán", 2210, 1990),
    line(2, "Byrne, Anna", 2105, None, "ENG"),
    line(3, "Ahern, Cian", 2105, 2008),
    line(4, "Doyle, Ciara", 1980, 1950),
    line(5, "Collins, Tom", None, 1995),
]


def names(shown: list[tuple[int | None, ListLine]]) -> list[tuple[int | None, str]]:
    return [(rank, ln.name) for rank, ln in shown]


def test_the_ranks_count_the_rated_lines_in_list_order_and_leave_the_unrated_blank() -> None:
    ranked = RankedList(LINES)
    assert [rank for rank, _ in ranked.ranked] == [1, 2, 3, 4, None]
    assert (len(ranked), ranked.rated, ranked.federations) == (5, 4, ["ENG", "IRL"])


@pytest.mark.parametrize(
    ("sort", "descending", "expected"),
    [
        # No sort: the list's order.
        ("rank", False, [1, 2, 3, 4, 5]),
        # Worst first, the unrated still last.
        ("rank", True, [4, 3, 2, 1, 5]),
        # Accents folded: "Ó Briain" sorts as "o briain", after Doyle.
        ("name", False, [3, 2, 5, 4, 1]),
        # Byrne and Ahern tie on 2105: the list's order between them (Byrne first) in both directions.
        ("rating", False, [4, 2, 3, 1, 5]),
        ("rating", True, [1, 2, 3, 4, 5]),
        # No birth year (Byrne) is last in both directions.
        ("born", False, [4, 1, 5, 3, 2]),
        ("born", True, [3, 5, 1, 4, 2]),
    ],
)
def test_a_sort_is_stable_with_blanks_last_in_either_direction(
    sort: str, descending: bool, expected: list[int]
) -> None:
    ranked = RankedList(LINES)
    _, shown = query_lines(ranked, ListQuery(sort=sort, descending=descending), 2026)
    assert [ln.player_id for _, ln in shown] == expected
    # The order is kept: asked again, the same lines come back without sorting again.
    assert ranked.order(sort, descending) is ranked.order(sort, descending)


def test_a_filtered_sorted_page_shows_the_matching_lines_in_the_sorts_order_with_their_list_ranks() -> None:
    ranked = RankedList(LINES)
    # In 2026, seniors (65 or older): Doyle, born 1950; juniors (20 or younger): Ahern, born 2008.
    assert names(query_lines(ranked, ListQuery(group="seniors"), 2026)[1]) == [(4, "Doyle, Ciara")]
    assert names(query_lines(ranked, ListQuery(group="juniors"), 2026)[1]) == [(3, "Ahern, Cian")]
    # Rated 2000 or more, by name, two a page: Ahern, Byrne | Ó Briain.
    query = ListQuery(rating_min=2000, sort="name", per_page=2, page=2)
    assert query_lines(ranked, query, 2026) == (3, [(1, LINES[0])])
    # The name filter folds accents and case, and finds an alias.
    assert names(query_lines(ranked, ListQuery(name="o bri"), 2026)[1]) == [(1, "Ó Briain, Seán")]
    found = query_lines(ranked, ListQuery(name="mac giolla"), 2026, {4: ["Mac Giolla Dhubh, Ciara"]})
    assert names(found[1]) == [(4, "Doyle, Ciara")]
    # A name of spaces only filters nothing.
    assert query_lines(ranked, ListQuery(name="  "), 2026)[0] == 5
