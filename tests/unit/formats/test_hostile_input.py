"""Readers never crash: real sample files with random edits give a result or a FormatError (file, line,
column, reason); what they return is within what every engine stores; hostile sizes are refused early."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratingdb.errors import FormatError, ListFormatError, NotATrfFile, TrfError
from ratingdb.formats import ListRow, TrfEvent, detect_list_format, limits, parse_trf, read_list, read_trf
from ratingdb.schema import checks, models

FIXTURES = Path(__file__).parents[2] / "fixtures"
TRF_SAMPLES = sorted((FIXTURES / "trf").iterdir()) + sorted((FIXTURES / "reports").glob("*.trf"))
LIST_SAMPLES = sorted((FIXTURES / "lists").iterdir())
ALL_TYPES = ["standard", "rapid", "blitz"]
# A fixed budget keeps CI at a few seconds; RATINGDB_FUZZ_EXAMPLES=20000 searches harder by hand.
EXAMPLES = int(os.environ.get("RATINGDB_FUZZ_EXAMPLES", "300"))

# Edits a mutation fuzz found crashes with (a non-ASCII digit, a huge number in a date), and their kin.
NASTY = [
    "³", "٣", "\x00", "\x1b[2J", "\u202e", "\x85", "9" * 30, "9" * 5000, "-1", "1e9", "NaN", "inf", " ",
    "\t", "\r", "\n", "0", "99999999999", "2999", "\xff", "é", ",", '"', "<", "&", "]]>", "/", ".",
    "1/2", "99/99/99", "0000/00/00", "9999.12.31",
]  # fmt: skip

edit = st.tuples(
    st.sampled_from(["replace", "insert", "delete", "duplicate-line", "nasty"]),
    st.floats(0, 1),
    st.integers(1, 40),
    st.binary(min_size=1, max_size=8),
    st.sampled_from(NASTY),
)


def mutate(data: bytes, edits: list[tuple[str, float, int, bytes, str]]) -> bytes:
    for kind, where, length, payload, nasty in edits:
        at = int(where * len(data))
        if kind == "replace":
            data = data[:at] + payload + data[at + len(payload) :]
        elif kind == "insert":
            data = data[:at] + payload + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + length :]
        elif kind == "duplicate-line":
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            line = data[start : end + 1 if end >= 0 else len(data)]
            data = data[:start] + line + data[start:]
        else:
            data = data[:at] + nasty.encode("utf-8") + data[at + length % 6 :]
    return data


def check_text(value: str | None, longest: int) -> None:
    if value is not None:
        assert len(value) <= longest and limits.control_character(value) is None, value


def admitted(table: str, **values: object) -> None:
    """The database's CHECKs on `table` (ratingdb.schema.checks) admit every value a reader returned."""
    for column, value in values.items():
        assert checks.admits(table, column, value), (table, column, value)


def check_event(event: TrfEvent) -> None:
    check_text(event.name, limits.EVENT_NAME)
    check_text(event.city, limits.CITY)
    check_text(event.federation, limits.FEDERATION)
    check_text(event.time_control, limits.TIME_CONTROL)
    admitted(
        "event", name=event.name, city=event.city, federation=event.federation, rounds=event.rounds,
        time_control=event.encoded_time_control or event.time_control, source_name=event.source_name,
    )  # fmt: skip
    for seq, record in enumerate(event.header_records, 1):
        admitted("event_record", seq=seq, text=record)
    assert 1900 <= event.start_date.year <= event.end_date.year < 2100
    assert event.rounds <= limits.ROUNDS_MAX
    assert event.players
    for p in event.players:
        check_text(p.name, limits.PLAYER_NAME)
        check_text(p.national_id, limits.NATIONAL_ID)
        check_text(p.federation, limits.FEDERATION)
        assert p.fide_id is None or 0 < p.fide_id <= limits.FIDE_ID_MAX
        assert p.points is None or p.points.is_finite()
        admitted(
            "player", name=p.name, federation=p.federation, title=p.title, birth_year=p.birth_year,
            fide_id=p.fide_id, national_id=p.national_id,
        )  # fmt: skip
        admitted(
            "event_player", start_rank=p.rank, file_rating=p.fide_rating, final_rank=p.final_rank,
            national_rating=p.national_rating, national_federation=p.national_federation,
        )  # fmt: skip
    for g in event.games:
        admitted("game", round=g.round, white_result=g.white_result, black_result=g.black_result)
        assert g.white != g.black


def check_row(row: ListRow) -> None:
    check_text(row.name, limits.PLAYER_NAME)
    check_text(row.national_id, limits.NATIONAL_ID)
    check_text(row.federation, limits.FEDERATION)
    assert row.fide_id is None or row.fide_id <= limits.FIDE_ID_MAX
    admitted(
        "player", name=row.name, federation=row.federation, title=row.title, birth_year=row.birth_year,
        fide_id=row.fide_id, national_id=row.national_id, sex=row.sex,
    )  # fmt: skip
    for r in row.ratings.values():
        assert r.rating is None or 0 < r.rating <= limits.RATING_MAX
        assert r.k is None or 0 < r.k <= limits.K_MAX
        assert r.games is None or r.games <= limits.GAMES_MAX
        admitted("list_entry", rating=r.rating, k=r.k, games=r.games, games_total=r.games_total)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TRF_SAMPLES), st.lists(edit, min_size=1, max_size=4))
def test_a_mutated_tournament_file_is_read_or_refused_with_a_trf_error(
    sample: Path, edits: list[tuple[str, float, int, bytes, str]]
) -> None:
    data = mutate(sample.read_bytes(), edits)
    try:
        event = parse_trf(sample.name, data)
    except TrfError as exc:
        assert exc.file == sample.name and "\n" not in str(exc)
        return
    check_event(event)


def read_all(path: Path) -> Iterator[ListRow]:
    fmt = detect_list_format(path)
    for types in (["standard"], ALL_TYPES):
        try:
            yield from read_list(path, format=fmt, rating_types=types)
            return
        except ListFormatError as exc:
            if "exactly one" not in exc.reason and "no rapid rating column" not in exc.reason:
                raise


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LIST_SAMPLES), st.lists(edit, min_size=1, max_size=4))
def test_a_mutated_list_file_is_read_or_refused_with_a_list_format_error(
    sample: Path, edits: list[tuple[str, float, int, bytes, str]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / sample.name
        path.write_bytes(mutate(sample.read_bytes(), edits))
        try:
            for row in read_all(path):
                check_row(row)
        except ListFormatError as exc:
            assert exc.file == sample.name and "\n" not in str(exc)


def trf_error(text: str) -> str:
    with pytest.raises(TrfError) as caught:
        parse_trf("t.trf", text.encode("utf-8"))
    return str(caught.value)


ROUND_ROBIN = (FIXTURES / "trf" / "round_robin.trf").read_text(encoding="utf-8")


def test_a_superscript_digit_in_a_rating_is_a_format_error_not_a_crash() -> None:
    line = next(x for x in ROUND_ROBIN.splitlines() if x.startswith("001"))
    bad = ROUND_ROBIN.replace(line, line[:48] + "21³0" + line[52:])
    number = ROUND_ROBIN.splitlines().index(line) + 1
    assert trf_error(bad).endswith(f"line {number} col 49: FIDE rating '21³0' is not a whole number")


def test_a_date_with_a_huge_year_is_a_format_error_not_a_crash() -> None:
    bad = "\n".join(
        "042 99999999999999999999/01/01" if x.startswith("042") else x for x in ROUND_ROBIN.splitlines()
    )
    assert "is not a date" in trf_error(bad)


def test_a_control_character_in_a_name_is_refused_with_line_and_column() -> None:
    line = next(x for x in ROUND_ROBIN.splitlines() if x.startswith("001"))
    number = ROUND_ROBIN.splitlines().index(line) + 1
    bad = ROUND_ROBIN.replace(line, line[:16] + "\x1b" + line[17:])
    assert trf_error(bad) == f"t.trf line {number} col 17: the control character U+001B is not allowed"


def test_a_player_line_the_database_would_refuse_is_refused_with_line_and_column() -> None:
    line = next(x for x in ROUND_ROBIN.splitlines() if x.startswith("001"))
    number = ROUND_ROBIN.splitlines().index(line) + 1
    for start, text, reason in (
        (14, " " * 33, "col 15: the player record has no name"),
        (48, "4000", "col 49: FIDE rating 4000 is more than 3999"),
        (69, "0950/01/01", "col 70: birth date '0950/01/01' does not have a four-digit year"),
    ):
        bad = ROUND_ROBIN.replace(line, line[:start] + text + line[start + len(text) :])
        assert trf_error(bad) == f"t.trf line {number} {reason}"


def test_a_federation_that_is_not_a_code_is_refused() -> None:
    bad = "\n".join("032 IRELAND" if x.startswith("032") else x for x in ROUND_ROBIN.splitlines())
    assert trf_error(bad).endswith("col 5: federation 'IRELAND' (032) is not a three-letter code such as IRL")


def test_a_file_that_is_not_a_trf_says_so(tmp_path: Path) -> None:
    start = tmp_path / "start.csv"
    start.write_text('fide_id,name,rating\n25900001,"Ó Briain, Seán",2100\n', encoding="utf-8")
    with pytest.raises(NotATrfFile) as caught:
        read_trf(start)
    assert str(caught.value) == "start.csv does not look like a TRF file: no 001 player lines"


def test_a_tournament_file_above_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.trf"
    path.write_text(ROUND_ROBIN, encoding="utf-8")
    size = path.stat().st_size
    with pytest.raises(TrfError) as caught:
        read_trf(path, max_bytes=size - 1)
    assert str(caught.value) == (
        f"huge.trf: the file has {size:,} bytes, more than the {size - 1:,} a tournament report may have "
        "(RATINGDB_TRF_MAX_BYTES) — check that it is the right file"
    )
    assert read_trf(path, max_bytes=size).players


def test_a_tournament_line_longer_than_any_trf_line_is_refused() -> None:
    assert trf_error(ROUND_ROBIN + "###" + "x" * (4 * limits.LINE_MAX)).endswith(
        f"the line is longer than the {limits.LINE_MAX:,} characters of any TRF"
    )


def list_error(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    with pytest.raises(ListFormatError) as caught:
        list(read_list(path, rating_types=["standard"]))
    return str(caught.value)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("1,\"A, B\",IRL,99999999999",
         "line 2 col 4: rating 99999999999 is more than 3,999, the most ratingdb accepts"),
        ("1,\"A, B\",IRELAND,2000",
         "line 2 col 3: federation 'IRELAND' is not a three-letter code such as IRL"),
        (f"1,\"{'N' * 300}\",IRL,2000",
         "line 2 col 2: the name is 300 characters long; at most 120 are kept"),
        ("1,\"A\x00B\",IRL,2000", "line 2 col 3: the control character U+0000 is not allowed"),
        ("1,\"A\u202eB\",IRL,2000", "line 2 col 3: the control character U+202E is not allowed"),
        ("1" + "0" * 23 + ",\"A, B\",IRL,2000",
         f"line 2 col 1: FIDE ID 1{'0' * 23} is more than 99,999,999,999, the most ratingdb accepts"),
        ("1,\"A, B\",IRL,2٣00", "line 2 col 4: rating '2٣00' is not a whole number"),
    ],
)  # fmt: skip
def test_a_csv_list_with_values_no_engine_would_store_is_refused(
    tmp_path: Path, row: str, message: str
) -> None:
    assert list_error(tmp_path, "l.csv", f"fide_id,name,federation,rating\n{row}\n") == f"l.csv {message}"


def test_a_huge_xml_name_is_refused_while_it_streams(tmp_path: Path) -> None:
    head = b"<playerslist>\n<player><fideid>1</fideid><name>"
    body = head + b"N" * 5_000_000 + b"</name></player></playerslist>\n"
    expected = "l.xml line 2 col 27: <name> is longer than 1,000 characters"
    assert list_error(tmp_path, "l.xml", body) == expected


def test_a_fide_text_line_longer_than_any_list_line_is_refused(tmp_path: Path) -> None:
    text = "ID Number      Name                          Fed Sex Tit  WTit OTit  FOA NOV25 Gms K B-day Flag\n"
    assert list_error(tmp_path, "l.txt", text + "1" * (4 * limits.LINE_MAX + 10) + "\n") == (
        f"l.txt line 2: the line is longer than the {limits.LINE_MAX:,} characters of a list line"
    )


def test_the_limits_match_the_schema() -> None:
    def length(model: type[models.Base], column: str) -> int:
        return models.table(model).c[column].type.length  # type: ignore[attr-defined,no-any-return]

    assert limits.PLAYER_NAME == length(models.Player, "name")
    assert limits.NATIONAL_ID == length(models.Player, "national_id")
    assert limits.FEDERATION == length(models.Player, "federation") == length(models.Event, "federation")
    assert limits.EVENT_NAME == length(models.Event, "name")
    assert limits.CITY == length(models.Event, "city")
    assert limits.TIME_CONTROL == length(models.Event, "time_control")


def test_format_errors_name_file_line_and_column() -> None:
    exc = FormatError("f.csv", 3, 7, "reason")
    assert (exc.file, exc.line, exc.column, str(exc)) == ("f.csv", 3, 7, "f.csv line 3 col 7: reason")


def test_an_xml_list_naming_an_unknown_encoding_is_a_list_format_error(tmp_path: Path) -> None:
    # Found by the mutation fuzz above: expat asks Python's codecs for the declared encoding.
    sample = (FIXTURES / "lists" / "fide_combined.xml").read_bytes()
    path = tmp_path / "fide_combined.xml"
    path.write_bytes(sample.replace(b'encoding="utf-8"', b'encoding="uf-8"', 1))
    with pytest.raises(ListFormatError) as caught:
        list(read_list(path, format="fide-xml", rating_types=ALL_TYPES))
    assert str(caught.value) == (
        "fide_combined.xml line 1: the XML declaration names an unknown encoding (unknown encoding: uf-8): "
        "use UTF-8 or ISO-8859-1"
    )
