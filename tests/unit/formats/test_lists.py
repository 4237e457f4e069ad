"""List readers and writers (CSV, FIDE text, FIDE XML) on fixture files, malformed files and round trips."""

from __future__ import annotations

import dataclasses
import io
import re
import shutil
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratingdb.errors import ListFormatError
from ratingdb.formats import (
    ListRating,
    ListRow,
    detect_list_format,
    read_list,
    write_csv_list,
    write_fide_txt,
)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "lists"
ALL_TYPES = ["standard", "rapid", "blitz"]

# The combined header exactly as spec/formats.md prints it.
SPEC_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit"
    "           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)


def rows(name: str, types: list[str], **kwargs: object) -> list[ListRow]:
    return list(read_list(FIXTURES / name, rating_types=types, **kwargs))  # type: ignore[arg-type]


def refused(name: str, types: list[str]) -> str:
    with pytest.raises(ListFormatError) as error:
        rows(name, types)
    return str(error.value)


def test_the_combined_fixture_is_laid_out_by_the_spec_header() -> None:
    text = (FIXTURES / "fide_combined.txt").read_text()
    header, carlsen = text.splitlines()[:2]
    assert header == SPEC_HEADER
    # Offsets come from the header tokens: SRtng starts at index 113, RRtng at 126, B-day at 152.
    starts = {m.group(): m.start() for m in re.finditer(r"\S+", SPEC_HEADER)}
    assert (starts["SRtng"], starts["RRtng"], starts["B-day"]) == (113, 126, 152)
    assert carlsen[113:117] == "2839"
    assert carlsen[126:130] == "2766"
    assert carlsen[152:156] == "1990"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("fide_combined.txt", "fide-txt"),
        ("fide_standard_nov25.txt", "fide-txt"),
        ("fide_standard.xml", "fide-xml"),
        ("fide_combined.xml", "fide-xml"),
        ("list.csv", "csv"),
        ("list_minimal.csv", "csv"),  # with a BOM, columns in another order
    ],
)
def test_the_list_format_is_detected_from_the_content(name: str, expected: str) -> None:
    assert detect_list_format(FIXTURES / name) == expected


def test_detection_ignores_a_misleading_extension(tmp_path: Path) -> None:
    disguised = tmp_path / "list.txt"
    shutil.copy(FIXTURES / "list.csv", disguised)
    assert detect_list_format(disguised) == "csv"


def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(ListFormatError) as error:
        detect_list_format(other)
    assert (
        str(error.value) == "notes.txt line 1: cannot tell whether this is a CSV, FIDE text or FIDE XML list"
    )


def test_a_combined_fide_list_read_for_one_type_carries_that_type_only() -> None:
    carlsen, junior, idle, newcomer, latecomer = rows("fide_combined.txt", ["standard"])
    assert carlsen == ListRow(
        line=2,
        fide_id=1503014,
        national_id=None,
        name="Carlsen, Magnus",
        federation="NOR",
        sex="M",
        title="GM",
        birth_year=1990,
        flag=None,
        ratings={"standard": ListRating(2839, 0, 10)},
    )
    assert (junior.title, junior.flag, junior.ratings) == ("WFM", "w", {"standard": ListRating(1850, 4, 40)})
    assert (idle.title, idle.flag) == ("FM", "i")
    # Rating 0 is unrated; B-day 0 is an unknown birth year.
    assert (newcomer.ratings["standard"], newcomer.birth_year, newcomer.flag) == (
        ListRating(None, 0, 40),
        None,
        "wi",
    )
    assert latecomer.ratings == {"standard": ListRating(1999, 12, 20)}


def test_a_combined_fide_list_read_for_all_types_carries_all_three() -> None:
    carlsen, junior, idle, newcomer, _ = rows("fide_combined.txt", ALL_TYPES)
    assert carlsen.ratings == {
        "standard": ListRating(2839, 0, 10),
        "rapid": ListRating(2766, 9, 10),
        "blitz": ListRating(2883, 18, 10),
    }
    assert junior.ratings["rapid"] == ListRating(None, None, None)  # blank block
    assert idle.ratings["rapid"] == ListRating(None, 0, None)  # "0 0 0": unrated, K 0 read as none
    assert newcomer.ratings["rapid"] == ListRating(1500, 5, 40)


def test_a_per_type_fide_list_with_crlf_reads_its_one_block() -> None:
    carlsen, junior, idle = rows("fide_standard_nov25.txt", ["standard"])
    assert carlsen.ratings == {"standard": ListRating(2839, 0, 10)}
    assert (junior.name, junior.birth_year, junior.flag) == ("Test, Junior", 2010, "w")
    assert idle.line == 4


def test_a_per_type_list_refuses_more_than_one_type() -> None:
    assert refused("fide_standard_nov25.txt", ALL_TYPES) == (
        "fide_standard_nov25.txt line 1: a per-type FIDE list holds one rating type: ask for exactly one"
    )


def test_a_per_type_fide_xml_list_is_read() -> None:
    carlsen, junior, idle = rows("fide_standard.xml", ["standard"])
    assert carlsen == ListRow(3, 1503014, None, "Carlsen, Magnus", "NOR", "M", "GM", 1990, None, {
        "standard": ListRating(2839, 0, 10)
    })  # fmt: skip
    assert (junior.line, junior.fide_id, junior.flag, junior.ratings) == (
        18,
        2501171,
        "w",
        {"standard": ListRating(1850, 4, 40)},
    )
    assert (idle.title, idle.flag, idle.birth_year) == ("FM", "i", 1955)


def test_a_per_type_xml_file_read_for_rapid_puts_its_ratings_under_rapid() -> None:
    carlsen = rows("fide_standard.xml", ["rapid"])[0]
    assert carlsen.ratings == {"rapid": ListRating(2839, 0, 10)}


def test_a_combined_fide_xml_list_is_read_for_all_types() -> None:
    carlsen, newcomer = rows("fide_combined.xml", ALL_TYPES)
    assert carlsen.ratings == {
        "standard": ListRating(2839, 0, 10),
        "rapid": ListRating(2766, 9, 10),
        "blitz": ListRating(2883, 18, 10),
    }
    assert newcomer.ratings == {
        "standard": ListRating(None, 0, 40),
        "rapid": ListRating(1500, 5, 40),
        "blitz": ListRating(None, None, None),
    }
    assert (newcomer.birth_year, newcomer.flag) == (None, "wi")


def test_a_csv_list_is_read_with_every_column() -> None:
    junior, carol, idle, newcomer = rows("list.csv", ["standard"])
    assert junior == ListRow(
        line=2,
        fide_id=2501171,
        national_id="IRL-100",
        name="Test, Junior",
        federation="IRL",
        sex="F",
        title="WFM",
        birth_year=2010,
        flag="w",
        ratings={"standard": ListRating(1850, 4, 40, games_total=12, reached_2400=False, reached_2300=False)},
    )
    assert (carol.fide_id, carol.national_id) == (None, "IRL-200")
    assert idle.ratings["standard"] == ListRating(2105, 0, 10, 300, True, True)
    assert newcomer.ratings["standard"].rating is None  # empty rating: unrated


def test_a_csv_list_with_a_bom_and_few_columns_in_another_order_is_read() -> None:
    carol, una = rows("list_minimal.csv", ["blitz"])
    assert carol == ListRow(2, None, "IRL-200", "Club, Carol", None, None, None, None, None, {
        "blitz": ListRating(1420, None, None)
    })  # fmt: skip
    assert una.ratings == {"blitz": ListRating(None, None, None)}


@pytest.mark.parametrize(
    ("name", "types", "message"),
    [
        ("bad_fide_rating.txt", ["standard"], "line 4 col 114: rating 'abc' is not a whole number"),
        (
            "bad_fide_duplicate_id.txt",
            ["standard"],
            "line 5 col 1: FIDE ID 2501171 appears more than once in the file",
        ),
        ("bad_fide_k.xml", ALL_TYPES, "line 4 col 213: K 'forty' is not a whole number"),
        (
            "bad_unknown_column.csv",
            ["standard"],
            "line 1 col 4: column 'colour' is not a list column (fide_id, national_id, name, federation, "
            "sex, title, birth_year, rating, games, k, flag, games_total, reached_2400, reached_2300)",
        ),
        ("bad_rating.csv", ["standard"], "line 3 col 3: rating 'abc' is not a whole number"),
        ("bad_no_id.csv", ["standard"], "line 2: the row has neither a FIDE ID nor a national ID"),
        (
            "bad_duplicate_id.csv",
            ["standard"],
            "line 3 col 1: FIDE ID 2501171 appears more than once in the file",
        ),
    ],
)
def test_a_malformed_list_is_refused_naming_file_line_column_and_reason(
    name: str, types: list[str], message: str
) -> None:
    assert refused(name, types) == f"{name} {message}"


def test_a_csv_list_holds_one_rating_type() -> None:
    assert (
        refused("list.csv", ALL_TYPES)
        == "list.csv line 1: a CSV list holds one rating type: ask for exactly one"
    )


def test_the_header_is_checked_before_any_row_is_yielded(tmp_path: Path) -> None:
    broken = tmp_path / "broken.txt"
    broken.write_text("ID Number      Fed SRtng\n1503014        NOR 2839\n")
    stream = read_list(broken, format="fide-txt", rating_types=["standard"])
    with pytest.raises(ListFormatError) as error:
        next(iter(stream))
    assert str(error.value) == "broken.txt line 1: the header has no 'Name' column"


def test_a_fide_rating_list_is_written_in_fides_layout_and_reads_back_the_same(tmp_path: Path) -> None:
    original = rows("fide_standard_nov25.txt", ["standard"])
    out = io.StringIO()
    write_fide_txt(original, out, "standard", date(2025, 11, 1))
    header, carlsen, junior, _ = out.getvalue().splitlines()
    # The combined header of the spec up to FOA (index 109), then one block: NOV25 at 113.
    assert header == SPEC_HEADER[:113] + "NOV25 Gms K  B-day Flag"
    assert carlsen[:7] == "1503014"
    assert carlsen[15:30] == "Carlsen, Magnus"
    assert (carlsen[76:79], carlsen[80], carlsen[84:86]) == ("NOR", "M", "GM")
    assert (carlsen[113:117], carlsen[119], carlsen[123:125], carlsen[126:130]) == ("2839", "0", "10", "1990")
    assert (junior[84:87], junior[132]) == ("WFM", "w")  # the women's title is written as the title
    written = tmp_path / "standard.txt"
    written.write_text(out.getvalue())
    assert list(read_list(written, rating_types=["standard"])) == original


# -- round trips ------------------------------------------------------------------------------------------

names = st.text(
    # Control characters and bidirectional overrides are refused by the readers (limits.control_character).
    alphabet=st.characters(
        codec="utf-8",
        exclude_categories=("Cc", "Cs", "Zl", "Zp", "Zs"),
        exclude_characters="\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
    ),
    min_size=1,
    max_size=20,
).map(lambda s: f"{s}, {s[::-1]}")


@st.composite
def list_rows(draw: st.DrawFn, with_history: bool) -> list[ListRow]:
    # At least one row: a list file without players is refused (issue 26), as a TRF file without 001 lines.
    ids = draw(st.lists(st.integers(1, 999_999_999), unique=True, min_size=1, max_size=8))
    result = []
    for i, fide_id in enumerate(ids):
        rating = ListRating(
            rating=draw(st.none() | st.integers(1000, 3000)),
            games=draw(st.none() | st.integers(0, 99)),
            k=draw(st.sampled_from([None, 10, 20, 40])),
            games_total=draw(st.none() | st.integers(0, 5000)) if with_history else None,
            reached_2400=draw(st.none() | st.booleans()) if with_history else None,
            reached_2300=draw(st.none() | st.booleans()) if with_history else None,
        )
        result.append(
            ListRow(
                line=i + 2,
                fide_id=fide_id,
                national_id=draw(st.none() | st.just(f"N{fide_id}")) if with_history else None,
                name=draw(names),
                federation=draw(st.none() | st.from_regex(r"[A-Z]{3}", fullmatch=True)),
                sex=draw(st.sampled_from([None, "M", "F"])),
                title=draw(st.sampled_from([None, "GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM"])),
                birth_year=draw(st.none() | st.integers(1900, 2020)),
                flag=draw(st.sampled_from([None, "i", "w", "wi"])),
                ratings={"rapid": rating},
            )
        )
    return result


@settings(max_examples=60, deadline=None)
@given(list_rows(with_history=True))
def test_a_csv_list_round_trips_to_the_same_rows(
    tmp_path_factory: pytest.TempPathFactory, original: list[ListRow]
) -> None:
    path = tmp_path_factory.mktemp("csv") / "out.csv"
    with path.open("w", encoding="utf-8", newline="") as out:
        write_csv_list(original, out, "rapid")
    assert list(read_list(path, rating_types=["rapid"])) == original


@settings(max_examples=60, deadline=None)
@given(list_rows(with_history=False))
def test_a_fide_text_list_round_trips_to_the_same_rows(
    tmp_path_factory: pytest.TempPathFactory, original: list[ListRow]
) -> None:
    path = tmp_path_factory.mktemp("txt") / "out.txt"
    with path.open("w", encoding="utf-8") as out:
        write_fide_txt(original, out, "rapid", date(2026, 1, 1))
    again = list(read_list(path, rating_types=["rapid"]))
    assert [dataclasses.replace(r, line=0) for r in again] == [
        dataclasses.replace(r, line=0) for r in original
    ]
