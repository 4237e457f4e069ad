"""The rows the close and the list import read and write in bulk: one NamedTuple per shape, defined once.

Each shape's fields are its table's columns in the order bulk writes give them (`Row._fields` is the
column list). Where a million rows pass (the close's loops, a FIDE list import) the same shape is built
as a plain tuple in this order and read by the index constants `positions` gives: making a NamedTuple
costs about five times a tuple. Imports nothing from ratingdb.
"""

from __future__ import annotations

from typing import NamedTuple


class ListEntryRow(NamedTuple):
    """One player's entry on a list (table list_entry)."""

    list_id: int
    player_id: int
    rating: int | None
    games: int
    k: int | None
    flag: str | None
    change: int | None
    games_total: int
    reached_2400: bool
    reached_2300: bool
    last_active: str | None
    pool_from: str | None
    player_version_id: int


class EntryInForce(NamedTuple):
    """An entry of the list in force as the close reads it, with the player's facts as they are now."""

    player_id: int
    rating: int | None
    k: int | None
    games_total: int
    reached_2400: bool
    reached_2300: bool
    last_active: str | None
    pool_from: str | None
    birth_year: int | None
    sex: str | None
    version_id: int


class CalcPlayerRow(NamedTuple):
    """One player's line of a close's calculation record (table calc_player)."""

    list_id: int
    player_id: int
    method: str  # change, initial or pool
    ro: int | None
    k_base: int | None
    k: int | None
    n: int
    score_x100: int
    sum_dr_x100: int | None
    k_sum_dr_x100: int | None
    change: int | None
    opponent_sum: int | None
    p_x100: int | None
    dp: int | None
    new_rating: int | None
    note: str | None


class CalcGameRow(NamedTuple):
    """One game as one player's calculation used it (table calc_game)."""

    list_id: int
    player_id: int
    game_id: int
    event_id: int
    kind: str  # rated or pool
    opponent_id: int
    own_rating: int | None
    opponent_rating: int
    d: int | None
    pd_x100: int | None
    score_x100: int


class CalcListEventRow(NamedTuple):
    """An event a close rated, with the list its ratings came from (table calc_list_event)."""

    list_id: int
    event_id: int
    ratings_list_id: int
    note: str | None


def positions(shape: type[tuple[object, ...]], *names: str) -> tuple[int, ...]:
    """The indexes of `names` in `shape`'s fields, for loops that read its rows as plain tuples."""
    fields: tuple[str, ...] = shape._fields  # type: ignore[attr-defined]
    return tuple(fields.index(name) for name in names)


LIST_ENTRY_COLUMNS = ListEntryRow._fields
CALC_PLAYER_COLUMNS = CalcPlayerRow._fields
CALC_GAME_COLUMNS = CalcGameRow._fields
CALC_LIST_EVENT_COLUMNS = CalcListEventRow._fields
