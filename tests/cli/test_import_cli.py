"""import-trf, import-list, export-trf and list exports through the CLI, on a real database.

Each refusal asserts the exact error line, exit code 1, and that the database is unchanged.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.formats import read_trf

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trf"
runner = CliRunner()

ROUND_ROBIN_LIST = (
    "fide_id,name,federation,sex,birth_year,rating,k\n"
    '200001,"Kowalski, Jan",IRL,M,1980,2210,20\n'
    '200002,"Novak, Petra",IRL,F,1980,2150,20\n'
    '200003,"Horvat, Ivan",IRL,M,1980,2105,20\n'
    '200004,"Szabo, Eva",IRL,F,2009,1980,40\n'
)


def run(db_url: str, *args: str | Path) -> object:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def counts(db_url: str) -> dict[str, int]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        result = {
            t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one()
            for t in ("player", "event", "event_player", "game", "rating_list", "list_entry")
        }
    engine.dispose()
    return result


@pytest.fixture
def oct_list(tmp_path: Path) -> Path:
    path = tmp_path / "oct.csv"
    path.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    return path


def test_a_round_robin_imports_with_every_game_and_new_players_listed(db_url: str) -> None:
    result = run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Imported round_robin.trf as event 1 'Club round robin': standard, period 2025-10; 4 players, "
        "6 pairings (6 played games).",
        "  4 players with a rating in the file, but no standard list is in force at the event's start: they "
        "are rated as unrated (import the list first to rate them as rated).",
        "Players: 0 matched by ID, 0 by name, 4 new, 0 resolved by options.",
        "Registered 4 new players:",
        "  Kowalski, Jan (FIDE 200001, born 1980, IRL)",
        "  Novak, Petra (FIDE 200002, born 1980, IRL)",
        "  Horvat, Ivan (FIDE 200003, born 1980, IRL)",
        "  Szabo, Eva (FIDE 200004, born 2009, IRL)",
    ]
    assert counts(db_url)["game"] == 6


def test_a_swiss_keeps_forfeits_and_byes_as_unrated_data(db_url: str) -> None:
    result = run(db_url, "import-trf", FIXTURES / "swiss_forfeits_byes.trf", "--type", "standard")
    assert result.exit_code == 0, result.output
    engine = create_engine(db_url)
    with engine.connect() as conn:
        codes = conn.execute(
            text("SELECT white_result, black_result, rated FROM game ORDER BY round, id")
        ).all()
    engine.dispose()
    rated = [(w, b) for w, b, r in codes if r]
    unrated = sorted((w, b or "") for w, b, r in codes if not r)
    # Read off the fixture: played games are 1/0/= on both lines; + -, W L, H, Z, U, F are kept unrated.
    assert all(w in "10=" and b in "10=" for w, b in rated)
    assert ("+", "-") in unrated and ("H", "") in unrated and ("F", "") in unrated and ("U", "") in unrated
    assert ("W", "L") in unrated and ("Z", "") in unrated


def test_a_malformed_file_is_refused_whole_with_file_line_column_and_reason(db_url: str) -> None:
    before = counts(db_url)
    result = run(
        db_url,
        "import-trf",
        FIXTURES / "round_robin.trf",
        FIXTURES / "bad_result_code.trf",
        "--type",
        "standard",
    )
    assert result.exit_code == 1
    # Round 2 of line 10 (Novak): result column 99 + 10 × (2 − 1) = 109.
    assert (
        result.stderr == "Error: bad_result_code.trf line 10 col 109: result 'x' is not a TRF result code\n"
    )
    assert counts(db_url) == before


def test_a_file_without_a_rating_type_is_refused(db_url: str, tmp_path: Path) -> None:
    untimed = tmp_path / "round_robin.trf"
    text = (FIXTURES / "round_robin.trf").read_text(encoding="utf-8")
    untimed.write_text(text.replace("122 60 min + 30 s\n", ""), encoding="utf-8")
    result = run(db_url, "import-trf", untimed)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: round_robin.trf: the rating type is unknown (the file has no time control, record 222 or "
        "122, and record 092 names no type): give it with --type standard|rapid|blitz\n"
    )
    assert counts(db_url)["event"] == 0


def test_importing_the_same_event_twice_names_the_existing_event(db_url: str, tmp_path: Path) -> None:
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    copy = tmp_path / "renamed.trf"
    shutil.copyfile(FIXTURES / "round_robin.trf", copy)
    before = counts(db_url)
    result = run(db_url, "import-trf", copy, "--type", "standard")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: renamed.trf was imported before as event 1 'Club round robin' (from round_robin.trf); "
        "an event is imported once\n"
    )
    assert counts(db_url) == before


def test_an_event_of_a_closed_period_is_refused_with_the_way_forward(db_url: str, oct_list: Path) -> None:
    assert run(db_url, "import-list", oct_list, "--date", "2025-10-01").exit_code == 0
    assert run(db_url, "close-period", "2025-10").exit_code == 0
    before = counts(db_url)
    result = run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: cannot add round_robin.trf (Club round robin): standard period 2025-10 is closed (its list "
        "dated 2025-11-01 is published); a late event can go into a later, open period with --period (at "
        "most the third list after it ends, §9.1); to rate it in 2025-10 itself, reopen that period first: "
        "`ratingdb reopen 2025-10 --type standard --reason TEXT`\n"
    )
    assert counts(db_url) == before
    late = run(
        db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard", "--period", "2025-11"
    )
    assert late.exit_code == 0, late.output
    assert "period 2025-11 (late: its own period is 2025-10)" in late.stdout


def test_a_period_earlier_than_the_events_own_is_refused(db_url: str) -> None:
    result = run(
        db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard", "--period", "2025-09"
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: round_robin.trf: period 2025-09 is before the event's own period 2025-10 (it ended "
        "2025-10-05); an event can be rated late, never early\n"
    )


def test_a_period_beyond_the_third_list_is_refused(db_url: str) -> None:
    # Ended 2025-10-05 → own period 2025-10 (list 2025-11-01); third list after it: 2026-01-01 → 2025-12.
    result = run(
        db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard", "--period", "2026-01"
    )
    assert result.exit_code == 1
    assert "at the latest in period 2025-12" in result.stderr


def test_a_csv_list_exported_reimports_to_the_same_entries(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    assert run(db_url, "import-list", oct_list, "--date", "2025-10-01").exit_code == 0
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    assert run(db_url, "close-period", "2025-10").exit_code == 0
    exported = tmp_path / "nov.csv"
    result = run(db_url, "list", "2025-11-01", "--format", "csv", "-o", exported)
    assert result.exit_code == 0, result.output
    # Re-import the computed November list as if it came from elsewhere, as the December list.
    assert run(db_url, "import-list", exported, "--date", "2025-12-01").exit_code == 0
    again = tmp_path / "dec.csv"
    assert run(db_url, "list", "2025-12-01", "--format", "csv", "-o", again).exit_code == 0
    assert again.read_text() == exported.read_text()
    # Szabo 1980, K 40, lost all three: −0.21 − 0.33 − 0.28 = −0.82 × 40 = −32.8 → −33 → 1947.
    assert '200004,,"Szabo, Eva",IRL,F,,2009,1947,3,40,w,3,false,false' in exported.read_text().splitlines()


def test_a_fide_text_export_reimports_to_the_same_entries(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    assert run(db_url, "import-list", oct_list, "--date", "2025-10-01").exit_code == 0
    txt = tmp_path / "oct.txt"
    assert run(db_url, "list", "2025-10-01", "--format", "fide-txt", "-o", txt).exit_code == 0
    result = run(
        db_url, "import-list", txt, "--date", "2025-11-01", "--format", "fide-txt", "--type", "standard"
    )
    assert result.exit_code == 0, result.output
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    run(db_url, "list", "2025-10-01", "--format", "csv", "-o", a)
    run(db_url, "list", "2025-11-01", "--format", "csv", "-o", b)
    # FIDE's text layout has no games_total / reached_* columns: the re-import derives them from K, so
    # everything the FIDE file carries (the first eleven CSV columns) must come back the same.
    assert _first_columns(a, 11) == _first_columns(b, 11)


def test_an_existing_list_date_is_refused(db_url: str, oct_list: Path) -> None:
    assert run(db_url, "import-list", oct_list, "--date", "2025-10-01").exit_code == 0
    before = counts(db_url)
    result = run(db_url, "import-list", oct_list, "--date", "2025-10-01")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: a standard list dated 2025-10-01 already exists (imported, from oct.csv); "
        "published lists never change\n"
    )
    assert counts(db_url) == before


def test_export_trf_writes_the_event_back_with_the_same_games(db_url: str, tmp_path: Path) -> None:
    assert (
        run(db_url, "import-trf", FIXTURES / "swiss_forfeits_byes.trf", "--type", "standard").exit_code == 0
    )
    out = tmp_path / "back.trf"
    result = run(db_url, "export-trf", "1", "-o", out)
    assert result.exit_code == 0, result.output
    original, back = read_trf(FIXTURES / "swiss_forfeits_byes.trf"), read_trf(out)
    key = lambda g: (g.round, g.white, g.black, g.white_result, g.black_result, g.rated)  # noqa: E731
    assert sorted(map(key, back.games), key=str) == sorted(map(key, original.games), key=str)
    assert [(p.rank, p.name, p.fide_id) for p in back.players] == [
        (p.rank, p.name, p.fide_id) for p in original.players
    ]


def test_export_of_an_unknown_event_is_refused(db_url: str) -> None:
    result = run(db_url, "export-trf", "99")
    assert result.exit_code == 1
    assert result.stderr == "Error: there is no event 99: `ratingdb events` lists them\n"


def test_trf26_national_lines_give_national_ids_and_later_files_match_on_them(
    db_url: str, tmp_path: Path
) -> None:
    # The TRF26 file has no --type: record 222 "5400+30" is 90 + 30 × 60 / 60 = 120 min → standard.
    result = run(db_url, "import-trf", FIXTURES / "trf26_national.trf")
    assert result.exit_code == 0, result.output
    assert "  Janssens, Tom (national 55555, born 2012, BEL)" in result.stdout
    engine = create_engine(db_url)
    with engine.connect() as conn:
        ids = dict(conn.execute(text("SELECT name, national_id FROM player")).all())
    assert ids["Janssens, Tom"] == "55555" and ids["Peeters, Anke"] == "BE-777"
    # A second file with only the national ID (no FIDE ID) is matched to the same player.
    second = (
        (FIXTURES / "trf26_national.trf")
        .read_text(encoding="utf-8")
        .replace("Provincial Open 2025", "Rematch")
    )
    path = tmp_path / "rematch.trf"
    path.write_text(second, encoding="utf-8")
    again = run(db_url, "import-trf", path)
    assert again.exit_code == 0, again.output
    assert "Registered" not in again.stdout
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM player")).scalar_one() == 4
    engine.dispose()


def test_a_latin1_file_keeps_its_accented_names(db_url: str) -> None:
    result = run(db_url, "import-trf", FIXTURES / "latin1_crlf.trf", "--type", "rapid")
    assert result.exit_code == 0, result.output
    engine = create_engine(db_url)
    with engine.connect() as conn:
        names = set(conn.execute(text("SELECT name FROM player")).scalars())
    engine.dispose()
    assert {"Müller, Jutta", "Ó Briain, Seán"} <= names


def _first_columns(path: Path, n: int) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return [row[:n] for row in csv.reader(fh)]


def test_a_fide_combined_list_imports_all_three_types_or_one(db_url: str) -> None:
    combined = FIXTURES.parent / "lists" / "fide_combined.txt"
    result = run(db_url, "import-list", combined, "--date", "2025-11-01")
    assert result.exit_code == 0, result.output
    # Read off the fixture: Carlsen rated in all three, Test (junior) standard and blitz, Idle standard only.
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT l.rating_type, p.fide_id, e.rating, e.k FROM list_entry e "
                "JOIN rating_list l ON l.id = e.list_id JOIN player p ON p.id = e.player_id "
                "WHERE p.fide_id = 1503014 ORDER BY l.rating_type"
            )
        ).all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [
        ("blitz", 1503014, 2883, 10),
        ("rapid", 1503014, 2766, 10),
        ("standard", 1503014, 2839, 10),
    ]
    one = run(db_url, "import-list", combined, "--date", "2025-12-01", "--type", "rapid")
    assert one.exit_code == 0, one.output
    assert one.stdout.startswith("Imported the rapid list dated 2025-12-01 from fide_combined.txt (fide-txt)")


def test_the_closing_days_are_a_federation_setting(db_url: str) -> None:
    # Ends 2025-10-05. With 28 closing days the 2025-11-01 list closes on 2025-10-04, so the event
    # misses it and goes to the next list (period 2025-11).
    result = run(
        db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard", "--closing-days", "28"
    )
    assert result.exit_code == 0, result.output
    assert "standard, period 2025-11;" in result.stdout


def test_a_wrong_import_in_an_open_period_can_be_deleted_and_is_audited(db_url: str) -> None:
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    result = run(db_url, "delete-event", "1", "--yes")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Done: deleted event 1 'Club round robin' (standard, period 2025-10, ")
    after = counts(db_url)
    # The four players the import registered have nothing else, so they go with the event.
    assert (after["event"], after["game"], after["event_player"], after["player"]) == (0, 0, 0, 0)
    engine = create_engine(db_url)
    with engine.connect() as conn:
        action, detail = conn.execute(
            text("SELECT action, detail FROM audit_log WHERE action NOT IN ('import-list', 'import-trf')")
        ).one()
        assert action == "delete-event" and "6 pairings" in detail and "round_robin.trf" in detail
        assert detail.endswith(
            "; removed 4 player(s) it had registered: Kowalski, Jan (FIDE 200001, born 1980, IRL); "
            "Novak, Petra (FIDE 200002, born 1980, IRL); Horvat, Ivan (FIDE 200003, born 1980, IRL); "
            "Szabo, Eva (FIDE 200004, born 2009, IRL)"
        )
    engine.dispose()
    # The same file can now be imported again (its hash is free).
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0


def test_an_event_of_a_closed_period_cannot_be_deleted(db_url: str, oct_list: Path) -> None:
    assert run(db_url, "import-list", oct_list, "--date", "2025-10-01").exit_code == 0
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    assert run(db_url, "close-period", "2025-10").exit_code == 0
    before = counts(db_url)
    result = run(db_url, "delete-event", "1", "--yes")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: cannot delete event 1 (Club round robin): standard period 2025-10 is closed (its list dated "
        "2025-11-01 is published); to remove it, reopen the period first: `ratingdb reopen 2025-10 --type "
        "standard --reason TEXT`, then delete the event and close the period again\n"
    )
    assert counts(db_url) == before


def test_delete_event_without_yes_and_no_terminal_is_refused_and_changes_nothing(db_url: str) -> None:
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    before = counts(db_url)
    result = run(db_url, "delete-event", "1")  # CliRunner's stdin is not a terminal, as in a script
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "Error: delete event 1 and all its games needs a confirmation and there is no terminal to ask — "
        "add --yes\n",
    )
    assert counts(db_url) == before


def test_delete_event_answered_no_at_the_terminal_changes_nothing(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    before = counts(db_url)
    monkeypatch.setattr("ratingdb.cli.common.has_terminal", lambda: True)
    result = runner.invoke(app, ["--db", db_url, "delete-event", "1"], input="n\n")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "Delete event 1 and all its games? [y/N]: n\n",
        "Nothing was changed.\n",
    )
    assert counts(db_url) == before
    result = runner.invoke(app, ["--db", db_url, "delete-event", "1"], input="y\n")
    assert result.exit_code == 0 and "Done: deleted event 1 " in result.stdout


def test_the_rating_note_finds_players_by_national_id_with_id_field_national(
    db_url: str, tmp_path: Path
) -> None:
    """Issue 25: with --id-field national the note said every rated player had no rating on the list.

    The list has Ann 2000 and Ben 1900 by national ID; the file has both at 2000 with those IDs in its
    ID column: both are on the list, and only Ben's rating differs."""
    from tests.cli.test_corrections import trf

    (tmp_path / "nat.csv").write_text(
        'national_id,name,federation,sex,birth_year,rating,k\n1,"Alpha, Ann",IRL,F,1980,2000,20\n'
        '2,"Bravo, Ben",IRL,M,1980,1900,20\n',
        encoding="utf-8",
    )
    (tmp_path / "nat.trf").write_text(trf("Club Open", "2025/10/10", 1, 2, "1"), encoding="utf-8")
    assert run(db_url, "import-list", tmp_path / "nat.csv", "--date", "2025-10-01").exit_code == 0
    result = run(db_url, "import-trf", tmp_path / "nat.trf", "--type", "standard", "--id-field", "national")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:] == [
        "  1 player with a rating in the file that differs from the standard list of 2025-10-01 (the list's "
        "is used):",
        "    Bravo, Ben: file 2000, list 1900",
        "Players: 2 matched by ID, 0 by name, 0 new, 0 resolved by options.",
    ]


def test_a_fide_text_export_leaves_out_players_without_a_fide_id_and_reimports(
    db_url: str, tmp_path: Path
) -> None:
    """Issue 25: players without a FIDE ID were written with a blank ID, and the file did not re-import.

    FIDE's text format names players by FIDE ID only: the export writes the entries that have one, says
    who was left out, and re-imports to those entries (a birth year FIDE does not know is B-day 0, as in
    FIDE's own files); a list where nobody has a FIDE ID is refused."""
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(
        "fide_id,national_id,name,federation,sex,birth_year,rating,k\n"
        '200001,11,"Kowalski, Jan",IRL,M,1980,2210,20\n'
        '200002,,"Novak, Petra",IRL,F,,2150,20\n'
        ',13,"Byrne, Aoife",IRL,F,2012,1500,40\n',
        encoding="utf-8",
    )
    assert run(db_url, "import-list", mixed, "--date", "2025-10-01").exit_code == 0
    txt = tmp_path / "oct.txt"
    result = run(db_url, "list", "2025-10-01", "--format", "fide-txt", "-o", txt)
    assert (result.exit_code, result.stderr) == (  # type: ignore[attr-defined]
        0,
        "Note: left out 1 player without a FIDE ID (Byrne, Aoife): FIDE's text format names players by "
        "FIDE ID only — --format csv writes every entry, with national IDs\n",
    )
    assert [line.split()[0] for line in txt.read_text().splitlines()[1:]] == ["200001", "200002"]
    assert txt.read_text().splitlines()[2].endswith("2150  0   20 0")  # Novak: no birth year → B-day 0
    result = run(
        db_url, "import-list", txt, "--date", "2025-10-01", "--format", "fide-txt", "--type", "blitz"
    )  # as another type: the list guard would (rightly) stop a standard list that drops a player
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    run(db_url, "list", "2025-10-01", "--format", "csv", "-o", a)
    run(db_url, "list", "2025-10-01", "--type", "blitz", "--format", "csv", "-o", b)
    assert [row for row in _first_columns(a, 11) if row[0]] == _first_columns(b, 11)

    national = tmp_path / "national.csv"
    national.write_text(
        'national_id,name,federation,sex,birth_year,rating,k\n13,"Byrne, Aoife",IRL,F,2012,1500,40\n'
    )
    assert run(db_url, "import-list", national, "--date", "2025-10-01", "--type", "rapid").exit_code == 0
    refused = run(db_url, "list", "2025-10-01", "--type", "rapid", "--format", "fide-txt")
    assert (refused.exit_code, refused.stdout, refused.stderr) == (  # type: ignore[attr-defined]
        1,
        "",
        "Error: no player on the rapid list dated 2025-10-01 has a FIDE ID, and FIDE's text format names "
        "players by FIDE ID only — export it as CSV (--format csv), which keeps national IDs and "
        "re-imports\n",
    )
