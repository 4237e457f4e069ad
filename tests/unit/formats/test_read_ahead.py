"""`read_list(..., ahead=True)`: a second process parses the file; the same rows and the same errors."""

from __future__ import annotations

import datetime as dt
import operator
from pathlib import Path

import pytest

from ratingdb.errors import ListFormatError
from ratingdb.formats import ListRating, ListRow, list_producer, read_list, write_fide_txt
from ratingdb.formats.lists import BYTES_PER_ROW

FIXTURES = Path(__file__).parents[2] / "fixtures" / "lists"
ALL_TYPES = ["standard", "rapid", "blitz"]


@pytest.mark.parametrize(
    ("name", "types"),
    [
        ("fide_combined.txt", ALL_TYPES),
        ("fide_combined.txt", ["rapid"]),
        ("fide_standard_nov25.txt", ["standard"]),
        ("fide_combined.xml", ALL_TYPES),
        ("list.csv", ["standard"]),
    ],
)
def test_a_list_read_ahead_gives_the_rows_read_here(name: str, types: list[str]) -> None:
    here = list(read_list(FIXTURES / name, rating_types=types, ahead=False))
    assert here
    assert list(read_list(FIXTURES / name, rating_types=types, ahead=True)) == here


@pytest.mark.parametrize(
    ("name", "types"),
    [
        ("bad_fide_rating.txt", ["standard"]),
        ("bad_fide_duplicate_id.txt", ["standard"]),
        ("bad_fide_k.xml", ALL_TYPES),
        ("bad_rating.csv", ["standard"]),
    ],
)
def test_an_error_read_ahead_comes_after_the_same_rows_with_the_same_sentence(
    name: str, types: list[str]
) -> None:
    def read(ahead: bool) -> tuple[list[ListRow], str]:
        rows: list[ListRow] = []
        with pytest.raises(ListFormatError) as error:
            for row in read_list(FIXTURES / name, rating_types=types, ahead=ahead):
                rows.append(row)
        return rows, str(error.value)

    assert read(ahead=True) == read(ahead=False)


def long_fide_list(path: Path, players: int, first_id: int, last_rating: str | None = None) -> list[ListRow]:
    """A FIDE text list of `players` rated players (lines 2 on); with `last_rating`, one more line whose
    rating column (col 114) holds that text. Returns the rows written."""
    rows = [
        ListRow(line, first_id + line, None, f"Player, {line}", "IRL", "M", None, 1990, None,
                {"standard": ListRating(1500 + line % 700 if line % 3 else None, line % 9, 20)})
        for line in range(2, players + 2)
    ]  # fmt: skip
    with path.open("w", encoding="utf-8") as out:
        write_fide_txt(rows, out, "standard", dt.date(2025, 11, 1))
        if last_rating is not None:  # FIDE's layout: the name at offset 15, the rating at 113
            out.write(str(first_id + players + 2).ljust(15) + "Broken, Row".ljust(98) + last_rating + "\n")
    return rows


def test_a_late_error_in_a_long_list_is_raised_after_every_row_before_it(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    long_fide_list(path, 30_000, 1_000, last_rating="abcd")
    seen = 0
    with pytest.raises(ListFormatError) as error:
        for _ in read_list(path, rating_types=["standard"], ahead=True):
            seen += 1
    assert seen == 30_000
    assert (error.value.line, error.value.column) == (30_002, 114)
    assert str(error.value) == "long.txt line 30002 col 114: rating 'abcd' is not a whole number"


def test_a_big_file_is_read_ahead_by_default_and_a_small_one_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[Path] = []
    real = list_producer.read_ahead

    def watched(path: Path, fmt: str, types: list[str]) -> object:
        started.append(path)
        return real(path, fmt, types)  # type: ignore[arg-type]

    monkeypatch.setattr(list_producer, "read_ahead", watched)
    small = list(read_list(FIXTURES / "list.csv", rating_types=["standard"]))
    assert started == []
    monkeypatch.setattr("ratingdb.formats.lists.AHEAD_BYTES", 1)
    assert list(read_list(FIXTURES / "list.csv", rating_types=["standard"])) == small
    assert started == [FIXTURES / "list.csv"]


@pytest.mark.parametrize("ahead", [False, True])
def test_a_list_says_about_how_many_rows_come_from_its_size(ahead: bool) -> None:
    # operator.length_hint: about the rows, from the file's size, never exact.
    for name, fmt in (("fide_standard_nov25.txt", "fide-txt"), ("fide_combined.xml", "fide-xml"),
                      ("list.csv", "csv")):  # fmt: skip
        path = FIXTURES / name
        rows = read_list(path, rating_types=["standard"] if fmt != "fide-xml" else ALL_TYPES, ahead=ahead)
        assert operator.length_hint(rows) == path.stat().st_size // BYTES_PER_ROW[fmt]  # type: ignore[index]
        assert len(list(rows)) > 0
        rows.close()  # type: ignore[attr-defined]


def test_a_frame_round_trips_rows_with_several_rating_types_and_a_missing_one() -> None:
    shared = ListRating(2100, 3, 20)
    rows = [
        ListRow(2, 1, None, "A, B", "IRL", "F", "WFM", 1990, "w", {"standard": shared, "rapid": shared}),
        ListRow(3, None, "N-1", "C, D", None, None, None, None, None, {"rapid": ListRating(None, 0, None)}),
    ]  # fmt: skip
    types = ["standard", "rapid"]
    assert list_producer.decode(list_producer.encode(rows, types), types) == rows


def test_the_reading_process_is_this_ratingdb_whatever_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder with a ratingdb of its own (another checkout, say) whose reader would fail: run from there,
    # the reading process still imports the ratingdb this one is.
    child = tmp_path / "ratingdb" / "formats" / "list_child.py"
    child.parent.mkdir(parents=True)
    for folder in (child.parent.parent, child.parent):
        (folder / "__init__.py").write_text("")
    child.write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path)
    here = list(read_list(FIXTURES / "list.csv", rating_types=["standard"], ahead=False))
    assert list(read_list(FIXTURES / "list.csv", rating_types=["standard"], ahead=True)) == here
