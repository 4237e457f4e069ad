"""A table printed without rich's layout engine is exactly what rich prints (ratingdb.cli.common).

`plain_table_text` writes the tables whose layout has one answer (no styles, short columns, narrower than
the console) itself; these tests print each generated table both ways and compare the text, so the fast
path can never change what a command prints.
"""

from __future__ import annotations

import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ratingdb.cli.common import data_table, plain_table_text


class _Encoded(io.StringIO):
    """A text output that says which encoding it writes (rich draws ASCII boxes for one without them)."""

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def _console(width: int, encoding: str = "utf-8") -> Any:
    from rich.console import Console

    return Console(file=_Encoded(encoding), width=width)


def _by_rich(width: int, encoding: str, columns: list[str], rows: list[list[Any]], title: str | None) -> str:
    console = _console(width, encoding)
    console.print(data_table(columns, rows, title=title))
    return str(console.file.getvalue())


# Letters of several widths: ASCII, accents (composed and combining), CJK (two cells), an emoji, spaces,
# controls (shown as �), a line separator the controls leave, and the characters of a rating list.
_LETTERS = st.sampled_from(list("aZ9 ,.-→éü\u0301中文😀\t\n\x1b\u2028\u202e—"))
_TEXT = st.text(_LETTERS, max_size=14)
_VALUE = st.one_of(st.none(), _TEXT, st.integers(-3000, 10**9))


@st.composite
def _tables(draw: st.DrawFn) -> tuple[list[str], list[list[Any]], str | None]:
    columns = draw(st.lists(st.text(_LETTERS, max_size=12), min_size=1, max_size=6))
    rows = draw(st.lists(st.lists(_VALUE, min_size=len(columns), max_size=len(columns)), max_size=8))
    title = draw(st.one_of(st.none(), st.text(_LETTERS, max_size=60)))
    return columns, rows, title


@settings(max_examples=400, deadline=None)
@given(_tables(), st.integers(10, 200), st.sampled_from(["utf-8", "ascii"]))
def test_a_plain_table_is_what_rich_prints(
    table: tuple[list[str], list[list[Any]], str | None], width: int, encoding: str
) -> None:
    columns, rows, title = table
    fast = plain_table_text(_console(width, encoding), columns, rows, title=title)
    if fast is not None:
        assert fast == _by_rich(width, encoding, columns, rows, title)


def test_the_rating_changes_of_a_close_take_the_plain_path_and_match_rich() -> None:
    columns = ["period", "fide_id", "national_id", "name", "old", "new", "change"]
    rows: list[list[Any]] = [
        ["2025-10", 100000000 + n, None if n % 3 else f"N{n:05d}", f"Player, {n:07d}", 1500 + n, None, None]
        for n in range(300)
    ]
    rows[7][3] = "Łukasz Żółć"
    rows[8][3] = "王 秀英"
    title = "300 rating changes (standard)"
    fast = plain_table_text(_console(160), columns, rows, title=title)
    assert fast is not None
    assert fast == _by_rich(160, "utf-8", columns, rows, title)


def test_a_styled_or_too_wide_table_is_left_to_rich() -> None:
    from rich.console import Console

    styled = Console(file=io.StringIO(), width=160, force_terminal=True, color_system="standard")
    assert plain_table_text(styled, ["a"], [["x"]]) is None
    assert plain_table_text(_console(20), ["name"], [["a long name, longer than the console"]]) is None
    assert plain_table_text(_console(160), ["note"], [["a value that wraps: " * 3]]) is None
