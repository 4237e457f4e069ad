"""A list's entries kept in columns for the served histories (ratingdb.reports.lists.ListColumns): every
figure read back as it was stored, None included, whatever integers the column needs."""

from __future__ import annotations

import datetime as dt

from ratingdb.reports.lists import HistoryLine, ListColumns

DATE = dt.date(2025, 11, 1)


def test_each_entry_is_read_back_as_stored_and_a_player_not_on_the_list_has_none() -> None:
    rows = [
        (3, 1850, 12, 9, 20, None),
        (7, None, None, 0, None, "i"),  # unrated, no change, no K: the three Nones
        (12, 2410, -31, 11, 10, "wi"),
        (40, 1000, 0, 4, 40, "i"),
    ]
    columns = ListColumns(rows)
    for player_id, rating, change, games, k, flag in rows:
        assert columns.line(player_id, "standard", DATE, "computed") == HistoryLine(
            "standard", DATE, "computed", rating, change, games, k, flag
        )
    assert [columns.line(p, "standard", DATE, "computed") for p in (1, 5, 41)] == [None, None, None]
    assert columns.ratings.itemsize == 2 and columns.flag_values == [None, "i", "wi"]


def test_a_figure_beyond_sixteen_bits_widens_its_column_and_none_stays_none() -> None:
    # -32768 is the 16-bit column's None: a figure equal to it (or beyond) takes 32 bits, then 64.
    rows = [(1, -32768, 40_000, 1, None, None), (2, None, -(2**31), 2, 20, None), (3, 5, None, 3, 30, None)]
    columns = ListColumns(rows)
    assert (columns.ratings.itemsize, columns.changes.itemsize, columns.ks.itemsize) == (4, 8, 2)
    assert [columns.line(p, "blitz", DATE, "imported") for p in (1, 2, 3)] == [
        HistoryLine("blitz", DATE, "imported", *row[1:]) for row in rows
    ]
    assert ListColumns([]).line(1, "blitz", DATE, "imported") is None
