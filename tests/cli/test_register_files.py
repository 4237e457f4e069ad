"""A register that real files cannot quietly spoil (issue 47): the ID column is never guessed, and a
file's attributes of a player the ID and name identify are differences to list, not identity questions.

Each story runs on the real Irish files (copies of /work/shared/data/trf-samples' in tests/fixtures/trf):
the Bunratty Minor 2011 carries ICU numbers (1 to 5 digits) in the FIDE ID column; the Irish Junior
Championships 2011 too, with IRL and `m`/`w` in their columns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ratingdb import db
from ratingdb.federations import FIDE_FEDERATIONS
from ratingdb.reports.event import event_report
from tests.cli.test_export_trf_roundtrip import with_old_rules
from tests.cli.test_matching_stories import FIXTURES, JUNIOR, MINOR, ok, query, refused

MASTERS = FIXTURES / "icu-bunratty_masters_2011.tab"


@pytest.fixture
def empty(db_url: str, tmp_path: Path) -> str:
    """A register with no player, and a rule set covering 2011."""
    return with_old_rules(db_url, tmp_path)


def test_the_minor_with_the_default_id_column_into_an_empty_register_is_refused_naming_id_field_national(
    empty: str,
) -> None:
    # Rank 1 of the real file: O'Brien, Pat, ICU 12057 — five digits, and a FIDE ID has six to nine.
    assert refused(empty, "import-trf", MINOR, "--type", "standard") == (
        "Error: icu-bunratty_minor_2011.tab: 85 of the file's 85 IDs cannot be FIDE IDs (a FIDE ID has 6 "
        "to 9 "
        "digits and none of these is on an imported list; e.g. line 14 (rank 1) 'O'Brien, Pat' 12057) — if "
        "the ID column holds national IDs, import again with --id-field national; if some IDs are wrong, "
        "correct them in the file; nothing was written\n"
    )
    out = ok(
        empty,
        "import-trf",
        MINOR,
        "--type",
        "standard",
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
    )
    assert "Players: 0 matched by ID, 0 by name, 103 new, 0 resolved by options." in out
    assert query(empty, "SELECT COUNT(*) FROM player WHERE fide_id IS NOT NULL") == [(0,)]
    assert query(empty, "SELECT fide_id, national_id FROM player WHERE name = 'O''Brien, Pat'") == [
        (None, "12057")
    ]


def test_one_short_id_among_real_fide_ids_refuses_the_file_before_writing(empty: str, tmp_path: Path) -> None:
    # The Masters has no IDs; give rank 1 (Short, Nigel) his real FIDE ID 400041 and rank 2 a five-digit one.
    lines = MASTERS.read_bytes().decode("latin-1").split("\r\n")
    for i, line in enumerate(lines):
        if line.startswith("001    1 "):
            lines[i] = line[:57] + f"{400041:>11}" + line[68:]
        if line.startswith("001    2 "):
            lines[i] = line[:57] + f"{12345:>11}" + line[68:]
    path = tmp_path / "masters_ids.tab"
    path.write_bytes("\r\n".join(lines).encode("latin-1"))
    error = refused(empty, "import-trf", path, "--type", "standard")
    assert error.startswith(
        "Error: masters_ids.tab: 1 of the file's 2 IDs cannot be FIDE IDs (a FIDE ID has 6 to 9 digits and "
        "none of these is on an imported list; e.g. line 15 (rank 2) 'Kosten, Tony' 12345)"
    )


def test_a_short_id_on_an_imported_list_is_a_fide_id(empty: str, tmp_path: Path) -> None:
    # The list is the better evidence: a five-digit ID that an imported list gives a player is taken.
    listed = tmp_path / "list.csv"
    listed.write_text('fide_id,name,federation,rating\n12057,"O\'Brien, Pat",IRL,1500\n')
    ok(empty, "import-list", listed, "--type", "standard", "--date", "2011-01-01")
    error = refused(empty, "import-trf", MINOR, "--type", "standard")
    assert error.startswith("Error: icu-bunratty_minor_2011.tab: 84 of the file's 85 IDs cannot be FIDE IDs")
    assert "e.g. line 15 (rank 2) 'Dineen, Tim' 12252" in error


def junior_variant(folder: Path, name: str, change: Callable[[int, str], str]) -> Path:
    """The Junior Championships as another tournament (record 012 `name`), each player line changed by
    `change(rank, line)`."""
    out = []
    for line in JUNIOR.read_bytes().decode("latin-1").split("\r\n"):
        if line.startswith("012 "):
            line = f"012 {name}"
        if line.startswith("001 "):
            line = change(int(line[4:8]), line)
        out.append(line)
    path = folder / f"{name.lower().replace(' ', '_')}.tab"
    path.write_bytes("\r\n".join(out).encode("latin-1"))
    return path


def everyone_m(rank: int, line: str) -> str:
    return line[:9] + "m" + line[10:]


NATIONAL = ("--type", "standard", "--id-field", "national")
WOMEN = "SELECT COUNT(*) FROM player WHERE sex = 'F'"
NO_SEX = "SELECT COUNT(*) FROM player WHERE sex IS NULL"


def test_a_file_with_m_for_everyone_records_no_sex_and_a_later_file_lists_the_differences(
    empty: str, tmp_path: Path
) -> None:
    # The real file has 8 women (`w`); the same file with `m` on all 34 lines says nothing about sex.
    all_m = junior_variant(tmp_path, "Spring Open", everyone_m)
    out = ok(empty, "import-trf", all_m, *NATIONAL)
    assert (
        "  note: spring_open.tab: the sex column is M on all 34 lines, which says nothing about anyone's "
        "sex: 34 players registered without one"
    ) in out.splitlines()
    assert query(empty, NO_SEX) == [(34,)]
    # The real file (IRL, `m` and `w`) is imported, not refused: the 34 sexes it gives are listed.
    out = ok(empty, "import-trf", JUNIOR, *NATIONAL)
    assert "Players: 34 matched by ID, 0 by name, 0 new, 0 resolved by options." in out
    assert "Register differences: 34 details in the files differ from the register" in out
    assert (
        "  icu-irish_junior_champs_2011.tab line 23 (rank 9) 'Cormican, Ruth E' is Cormican, Ruth E "
        "(national "
        "6524, born 1994, IRL): sex F in the file, none registered — `ratingdb player edit 6524 --sex F "
        "--reason TEXT` takes the file's"
    ) in out.splitlines()
    assert query(empty, NO_SEX) == [(34,)]  # the register keeps its own until the officer takes them


def test_a_registered_f_is_never_overwritten_by_a_file_with_m_for_everyone(
    empty: str, tmp_path: Path
) -> None:
    ok(empty, "import-trf", JUNIOR, *NATIONAL)
    assert query(empty, WOMEN) == [(8,)]
    out = ok(empty, "import-trf", junior_variant(tmp_path, "Spring Open", everyone_m), *NATIONAL)
    assert (
        "  note: spring_open.tab: the sex column is M on all 34 lines, which says nothing about anyone's "
        "sex: the register's kept for 8 it contradicts"
    ) in out.splitlines()
    assert "Register differences" not in out
    assert query(empty, WOMEN) == [(8,)]


def test_a_birth_year_difference_on_a_matching_id_and_name_is_listed_not_refused(
    empty: str, tmp_path: Path
) -> None:
    ok(empty, "import-trf", JUNIOR, *NATIONAL)

    def born_1968(rank: int, line: str) -> str:  # Finnegan, Mark (rank 1) is born 1967/09/12 in the file
        return line[:69] + "1968" + line[73:] if rank == 1 else line

    later = junior_variant(tmp_path, "Summer Open", born_1968)
    expected = (
        "  summer_open.tab line 15 (rank 1) 'Finnegan, Mark' is Finnegan, Mark (national 4191, born 1967, "
        "IRL): born 1968 in the file, 1967 registered — `ratingdb player edit 4191 --birth-year 1968 "
        "--reason "
        "TEXT` takes the file's"
    )
    # `player differences` says so before the import, writing nothing.
    shown = ok(empty, "player", "differences", later, "--id-field", "national")
    assert shown.splitlines() == [
        "Register differences: 1 detail in the files differs from the register, which keeps its own (the "
        "lines are imported):",
        expected,
    ]
    assert query(empty, "SELECT COUNT(*) FROM event") == [(1,)]
    out = ok(empty, "import-trf", later, *NATIONAL)
    assert "Players: 34 matched by ID, 0 by name, 0 new, 0 resolved by options." in out
    assert expected in out.splitlines()
    assert query(empty, "SELECT birth_year FROM player WHERE national_id = '4191'") == [(1967,)]


FIDE_CODE_OR_EMPTY = "SELECT COUNT(*) FROM player WHERE federation IS NOT NULL AND federation NOT IN ({})"


def not_fide_federations(url: str) -> int:
    codes = ", ".join(f"'{c}'" for c in sorted(FIDE_FEDERATIONS))
    return int(query(url, FIDE_CODE_OR_EMPTY.format(codes))[0][0])


def test_club_codes_in_the_federation_column_are_refused_naming_clubs_or_mixed_and_become_clubs(
    empty: str,
) -> None:
    # The real Masters: 7 ENG, 2 BRA, 1 FIN beside Irish club codes (KIL 4, GON 3, COR 3, …).
    assert refused(empty, "import-trf", MASTERS, "--type", "standard") == (
        "Error: icu-bunratty_masters_2011.tab: the federation column holds values that are not FIDE "
        "federations on 22 lines (KIL 4, GON 3, COR 3, ELM 2, DUB 2, RAT 2, ENN 1, ADA 1, … (12 codes)) "
        "beside "
        "FIDE codes (ENG 7, BRA 2, FIN 1) — if the column holds clubs, import again with --federation-column "
        "clubs; if the FIDE codes are federations and the rest clubs, with --federation-column mixed (check "
        "the FIDE codes: a club may write one, as BRA is Brazil's); nothing was written\n"
    )
    ok(empty, "import-trf", MASTERS, "--type", "standard", "--federation-column", "mixed")
    # The Minor: every value a club (its BRA, CHA, PHI too).
    minor = ("import-trf", MINOR, "--type", "standard", "--id-field", "national", "--section", "Minor")
    assert "the federation column holds values that are not FIDE federations on 79 lines" in refused(
        empty, *minor
    )
    ok(empty, *minor, "--federation-column", "clubs")
    assert not_fide_federations(empty) == 0
    assert query(
        empty,
        "SELECT federation, COUNT(*) FROM player WHERE federation IS NOT NULL GROUP BY federation "
        "ORDER BY federation",
    ) == [("BRA", 2), ("ENG", 7), ("FIN", 1)]
    # Short, Nigel (ENG) has no club; Baburin, Alexander's club is KIL; the Minor's O'Brien, Pat RAT.
    assert query(
        empty,
        "SELECT p.name, p.federation, ep.club FROM event_player ep JOIN player p ON p.id = ep.player_id "
        "WHERE p.name IN ('Short, Nigel', 'Baburin, Alexander', 'O''Brien, Pat') ORDER BY p.name",
    ) == [("Baburin, Alexander", None, "KIL"), ("O'Brien, Pat", None, "RAT"), ("Short, Nigel", "ENG", None)]
    # The choice is kept with the event's other import choices.
    stored = query(empty, "SELECT import_choices FROM event ORDER BY id")
    assert [json.loads(s)["federation_column"] for (s,) in stored] == ["mixed", "clubs"]


def test_a_club_code_never_overwrites_a_registered_federation(empty: str) -> None:
    ok(empty, "import-trf", JUNIOR, *NATIONAL)
    out = ok(empty, "import-trf", MINOR, *NATIONAL, "--federation-column", "clubs")
    # Ó Muireagáin (ROS in the Minor) and Cormican, Fiona (GAL): IRL kept, no federation difference.
    assert "federation" not in "".join(line for line in out.splitlines() if "Register differences" in line)
    assert not any("federation ROS" in line or "federation GAL" in line for line in out.splitlines())
    assert query(
        empty,
        "SELECT national_id, federation FROM player WHERE national_id IN ('12275', '12194') "
        "ORDER BY national_id",
    ) == [("12194", "IRL"), ("12275", "IRL")]
    assert query(
        empty,
        "SELECT ep.club FROM event_player ep JOIN player p ON p.id = ep.player_id "
        "WHERE p.national_id = '12275' AND ep.event_id = 2",
    ) == [("ROS",)]


def test_the_event_report_shows_each_lines_club(empty: str, engine: Engine) -> None:
    ok(empty, "import-trf", MASTERS, "--type", "standard", "--federation-column", "mixed")
    with db.transaction(engine, dry_run=True) as session:
        lines = {line.name: line.club for line in event_report(session, 1).lines}
    assert (lines["Baburin, Alexander"], lines["Short, Nigel"]) == ("KIL", None)


def with_baird(folder: Path) -> Path:
    """A file of our own: the Junior Championships as 'Autumn Open', rank 1 being Baird, David with the
    federation's real (low) number 26, as the Bunratty Major carries him."""

    def baird(rank: int, line: str) -> str:
        return (
            line[:14] + f"{'Baird, David':<33}" + line[47:57] + f"{26:>11}" + line[68:] if rank == 1 else line
        )

    return junior_variant(folder, "Autumn Open", baird)


def test_numbers_made_up_by_default_meet_the_federations_own(empty: str, tmp_path: Path) -> None:
    # Without a setting, the Masters' 34 players without an ID get 1 … 34: Wilson, Alexandra is 26.
    ok(empty, "import-trf", MASTERS, "--type", "standard", "--federation-column", "mixed")
    error = refused(empty, "import-trf", with_baird(tmp_path), *NATIONAL)
    assert error.startswith(
        "Error: autumn_open.tab line 15 (rank 1) 'Baird, David' national 26: that ID is registered to "
        "Wilson, Alexandra (national 26, ENG)"
    )


@pytest.mark.parametrize("order", ["masters first", "own file first"])
def test_with_a_prefix_set_once_no_line_is_refused_for_a_number_the_register_made_up(
    empty: str, tmp_path: Path, order: str
) -> None:
    assert ok(empty, "federation", "show") == (
        "National IDs: ratingdb issues numeric national IDs after the highest registered, from 1 on.\n"
    )
    assert ok(
        empty, "federation", "set", "--national-ids", "prefix", "--national-id-prefix", "R", "--reason", "ICU"
    ) == (
        "National IDs: ratingdb issues national IDs R1, R2, … (prefix R) (was: ratingdb issues numeric "
        "national IDs after the highest registered, from 1 on).\n"
    )
    masters = ("import-trf", MASTERS, "--type", "standard", "--federation-column", "mixed")
    minor = ("import-trf", MINOR, *NATIONAL, "--federation-column", "clubs", "--section", "Minor")
    own = ("import-trf", with_baird(tmp_path), *NATIONAL)
    for args in (masters, own, minor) if order == "masters first" else (own, minor, masters):
        ok(empty, *args)
    assert query(empty, "SELECT name FROM player WHERE national_id = '26'") == [("Baird, David",)]
    made_up = query(empty, "SELECT national_id FROM player WHERE national_id LIKE 'R%'")
    # The Masters' 34 players and the Minor's 18 without an ICU number: R1 … R52, one each.
    assert sorted(int(n[1:]) for (n,) in made_up) == list(range(1, 53))


def test_with_no_national_ids_issued_a_player_without_any_id_is_registered_without_one(empty: str) -> None:
    ok(empty, "federation", "set", "--national-ids", "none", "--reason", "the ICU numbers every player")
    out = ok(empty, "import-trf", MASTERS, "--type", "standard", "--federation-column", "mixed")
    assert "  Short, Nigel (ENG)" in out.splitlines()
    assert query(empty, "SELECT COUNT(*) FROM player WHERE national_id IS NULL AND fide_id IS NULL") == [
        (34,)
    ]
