"""An empty or unrecognised list file is refused whole, as the TRF reader refuses a file without 001
lines (issue 26: a header-only CSV, `<playerslist/>`, `<Player>` in the wrong case or a file whose every
column is empty became a list of 0 players in force). A 5 MB CSV field names its line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratingdb.errors import ListFormatError
from ratingdb.formats import read_list

FIXTURES = Path(__file__).parents[2] / "fixtures" / "lists"
TXT_HEADER = (FIXTURES / "fide_combined.txt").read_text(encoding="utf-8").splitlines()[0] + "\n"
NO_ROW = "does not look like a rating list: no row after the header — give the file with the list's players"
NO_PLAYER = (
    "does not look like a rating list: no <player> element in <playerslist> (element names are lowercase) "
    "— give the file with the list's players"
)


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("header.csv", "fide_id,name,rating\n", NO_ROW),
        ("empty-columns.csv", "fide_id,name,rating\n,,\n  , ,\n\n", NO_ROW),
        ("empty.xml", "<playerslist/>", NO_PLAYER),
        (
            "case.xml",
            "<playerslist><Player><fideid>1</fideid><name>A, B</name></Player></playerslist>",
            NO_PLAYER,
        ),
        (
            "header.txt",
            TXT_HEADER,
            "does not look like a rating list: no player line after the header — give the file with the "
            "list's players",
        ),
    ],
)
@pytest.mark.parametrize("ahead", [False, True])
def test_a_list_file_without_players_is_refused(
    tmp_path: Path, name: str, content: str, reason: str, ahead: bool
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    types = ["standard", "rapid", "blitz"] if name.endswith(".txt") else ["standard"]
    with pytest.raises(ListFormatError) as refused:
        list(read_list(path, rating_types=types, ahead=ahead))
    assert str(refused.value) == f"{name}: {reason}"


def test_a_field_longer_than_the_csv_limit_names_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    path.write_text(
        'fide_id,name,rating\n1,"A, B",2000\n2,"' + "x" * 5_000_000 + '",1900\n', encoding="utf-8"
    )
    with pytest.raises(ListFormatError) as refused:
        list(read_list(path, rating_types=["standard"], ahead=False))
    assert str(refused.value) == (
        "big.csv line 3 col 2: the field is longer than 131,072 characters, more than any list column holds"
    )


def test_a_list_of_one_player_is_read(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text('fide_id,name,rating\n1,"A, B",2000\n', encoding="utf-8")
    [row] = read_list(path, rating_types=["standard"], ahead=False)
    assert (row.fide_id, row.name, row.ratings["standard"].rating) == (1, "A, B", 2000)
