"""Issue 19, findings 3–5: what ratingdb prints and writes cannot be turned against its reader.

3. Names are data, never rich markup or terminal control: `Broken [/nope] markup` no longer crashes
   `list`, `[link=...]` is not a live link, ESC and bidi overrides are shown as U+FFFD.
4. CSV meant for people (reports, `sql`) cannot carry spreadsheet formulas; the round-trip list CSV keeps
   exact values.
5. `-o` cannot overwrite the database or its journal files, does not write through links, replaces an
   existing file only with --force, writes through a temporary file, and an OS error is one line.
Each attack runs on SQLite and PostgreSQL (the database-file attacks only exist on SQLite).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.cli.output import cell, echo, terminal_text
from ratingdb.formats.spreadsheet import spreadsheet_safe
from tests.fixtures.reports.club import HERE as CLUB

runner = CliRunner()

HOSTILE_LIST = (
    "fide_id,name,federation,rating\n"
    '900001,"Broken [/nope] markup",ENG,2100\n'
    '900002,"[link=https://evil.example]Click[/link]",ENG,2050\n'
    '900003,"=HYPERLINK(""https://evil.example"",""x"")",ENG,2000\n'
    '900004,"@SUM(1+1)",ENG,1990\n'
    "900005,\"-2+3+cmd|' /C calc'!A0\",ENG,1980\n"
    '900006,"Unrated, Una",ENG,\n'
)


def invoke(url: str, *args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", url, *map(str, args)])


def ok(url: str, *args: str | Path) -> str:
    result = invoke(url, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    """A folder for outputs only (the SQLite test database lives in tmp_path itself)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


@pytest.fixture
def hostile_url(db_url: str, tmp_path: Path) -> str:
    source = tmp_path / "hostile.csv"
    source.write_text(HOSTILE_LIST, encoding="utf-8")
    ok(db_url, "import-list", source, "--date", "2025-10-01", "--type", "standard")
    return db_url


def sqlite_file(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///"))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- 3. names are plain text on a terminal ------------------------------------------------------------


def test_markup_in_names_is_shown_literally_by_list_and_report_top(hostile_url: str) -> None:
    for command in (["list"], ["report", "top"]):
        out = ok(hostile_url, *command)
        assert "Broken [/nope] markup" in out, command
        assert "[link=https://evil.example]Click[/link]" in out, command


def test_markup_in_an_event_name_is_shown_literally_by_report_event(db_url: str, tmp_path: Path) -> None:
    ok(db_url, "import-list", CLUB / "club_2025-10.csv", "--date", "2025-10-01", "--type", "standard")
    trf = (CLUB / "club_autumn.trf").read_text("utf-8").replace("012 Club Autumn", "012 Quads [/oops]")
    (tmp_path / "quads.trf").write_text(trf, encoding="utf-8")
    summary = ok(db_url, "import-trf", tmp_path / "quads.trf", "--type", "standard").splitlines()
    assert summary[0].startswith("Imported quads.trf as event 1 'Quads [/oops]': standard, period 2025-10")
    out = ok(db_url, "report", "event", "1").splitlines()
    assert out[0] == "Event 1 'Quads [/oops]' (2025-10-03 … 2025-10-05), standard, period 2025-10"
    assert out[1] == "Not rated yet: period 2025-10 is not closed."


def test_sql_shows_escape_and_bidi_characters_as_replacement_characters(db_url: str) -> None:
    # The character of a code point: char() on SQLite, chr() on PostgreSQL, CHAR(n USING ucs2) on MySQL.
    chr_ = "char({})" if db_url.startswith("sqlite") else "chr({})"
    if db_url.startswith("mysql"):
        chr_ = "CHAR({} USING ucs2)"
    statement = f"SELECT 'Evil' || {chr_.format(27)} || '[2J' || {chr_.format(8238)} || 'Name' AS \"[b]name\""
    out = ok(db_url, "sql", statement)
    assert "\x1b" not in out and "\u202e" not in out
    assert out.splitlines() == [
        "┏━━━━━━━━━━━━━━━┓",
        "┃ [b]name       ┃",
        "┡━━━━━━━━━━━━━━━┩",
        "│ Evil\ufffd[2J\ufffdName │",
        "└───────────────┘",
    ]


def test_terminal_text_replaces_controls_and_bidi_but_keeps_letters() -> None:
    assert terminal_text("Ó Briain, Seán\x1b]8;;https://x\x07\u202eA\u2066\x85") == (
        "Ó Briain, Seán\ufffd]8;;https://x\ufffd\ufffdA\ufffd\ufffd"
    )
    assert cell("[red]x[/red]").plain == "[red]x[/red]"
    assert cell(None).plain == ""


# --- 4. CSV for people carries no formulas; the list CSV is exact ---------------------------------------


def test_report_and_sql_csv_neutralise_formulas(hostile_url: str) -> None:
    lines = ok(hostile_url, "report", "top", "-f", "csv").splitlines()
    names = [line.split(",", 4)[3] for line in lines[1:]]
    assert '"\'=HYPERLINK(""https://evil.example"",""x"")"' in lines[3]
    assert names[3:] == ["'@SUM(1+1)", "'-2+3+cmd|' /C calc'!A0"]
    sql = ok(
        hostile_url, "sql", "SELECT name, -5 AS n, '-7' AS t FROM player WHERE fide_id = 900004", "-f", "csv"
    )
    assert sql.splitlines() == ["name,n,t", "'@SUM(1+1),-5,-7"]


def test_the_list_csv_keeps_exact_values_for_re_import(hostile_url: str) -> None:
    out = ok(hostile_url, "list", "-f", "csv")
    assert '"=HYPERLINK(""https://evil.example"",""x"")"' in out
    assert ",@SUM(1+1)," in out
    assert "'=" not in out and "'@" not in out


def test_spreadsheet_safe_leaves_numbers_and_ordinary_text() -> None:
    assert [spreadsheet_safe(v) for v in ("-15", "+2.5", "Ash, Adam", -3, "\tx", "\r=1", "=1")] == [
        "-15",
        "+2.5",
        "Ash, Adam",
        -3,
        "'\tx",
        "'\r=1",
        "'=1",
    ]


# --- 5. -o cannot destroy the database, follows no link, replaces only with --force ---------------------


def test_output_to_the_database_or_its_journal_is_refused_and_the_database_is_intact(
    hostile_url: str,
) -> None:
    if not hostile_url.startswith("sqlite"):
        pytest.skip("a server database has no file to overwrite")
    database = sqlite_file(hostile_url)
    before = digest(database)
    for target, what in (
        (database, "the database"),
        (database.with_name(database.name + "-wal"), "a file of the database test.sqlite"),
        (database.with_name(database.name + "-journal"), "a file of the database test.sqlite"),
    ):
        for command in (
            ["list", "-f", "csv", "-o", target, "--force"],
            ["report", "top", "-o", target, "--force"],
            ["sql", "SELECT 1 AS x", "-f", "csv", "-o", target, "--force"],
            ["export-trf", "1", "-o", target, "--force"],
        ):
            result = invoke(hostile_url, *command)
            assert result.exit_code == 1, command
            assert result.stderr == f"Error: {target} is {what} — write the output to another file\n", command
    assert digest(database) == before
    assert "Broken [/nope] markup" in ok(hostile_url, "list")


def test_output_through_a_link_to_the_database_is_refused(hostile_url: str, out_dir: Path) -> None:
    if not hostile_url.startswith("sqlite"):
        pytest.skip("a server database has no file to overwrite")
    database = sqlite_file(hostile_url)
    link = out_dir / "innocent.csv"
    link.symlink_to(database)
    result = invoke(hostile_url, "list", "-f", "csv", "-o", link, "--force")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {link} is the database — write the output to another file\n"


def test_a_symbolic_link_is_not_written_through(hostile_url: str, out_dir: Path) -> None:
    target = out_dir / "elsewhere.txt"
    target.write_text("keep me\n")
    link = out_dir / "out.csv"
    link.symlink_to(target)
    result = invoke(hostile_url, "report", "top", "-f", "csv", "-o", link, "--force")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {link} is a symbolic link to {target} — ratingdb does not write through links: "
        "give the real path, or remove the link\n"
    )
    assert target.read_text() == "keep me\n"


def test_an_existing_file_is_replaced_only_with_force(hostile_url: str, out_dir: Path) -> None:
    out = out_dir / "top.csv"
    out.write_text("last month\n")
    out.chmod(0o640)
    result = invoke(hostile_url, "report", "top", "-f", "csv", "-o", out)
    assert result.exit_code == 1
    assert (
        result.stderr == f"Error: {out} already exists — add --force to replace it, or choose another name\n"
    )
    assert out.read_text() == "last month\n"
    assert ok(hostile_url, "report", "top", "-f", "csv", "-o", out, "--force") == ""
    assert (
        out.read_text().splitlines()[0]
        == "rank,fide_id,national_id,name,title,federation,sex,birth_year,rating,games,k,flag"
    )
    assert out.stat().st_mode & 0o777 == 0o640  # the replaced file keeps its permissions
    assert sorted(p.name for p in out_dir.iterdir()) == ["top.csv"]  # no temporary left


def test_a_missing_folder_is_one_line(hostile_url: str) -> None:
    result = invoke(hostile_url, "list", "-f", "csv", "-o", "/nonexistent/x.csv")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: cannot write /nonexistent/x.csv: the folder /nonexistent does not exist — create it first\n"
    )


def test_a_command_that_fails_leaves_no_file_and_no_temporary(hostile_url: str, out_dir: Path) -> None:
    chart = out_dir / "chart.png"
    # Una has no rating on any list: the chart writer refuses after the temporary file was opened.
    result = invoke(hostile_url, "report", "history", "900006", "--chart", chart)
    assert result.exit_code == 1
    assert result.stderr == "Error: the player has no rating on any list: there is nothing to plot\n"
    assert list(out_dir.iterdir()) == []


def test_summary_lines_print_names_with_controls_replaced(capsys: pytest.CaptureFixture[str]) -> None:
    # Import, close and replace-event summaries print names through echo(): what a stored name holds
    # (from an older database or another client) cannot move the cursor or reorder the line.
    echo("  player added: Evil\x1b[2J\u202eName [b]x[/b]")
    assert capsys.readouterr().out == "  player added: Evil\ufffd[2J\ufffdName [b]x[/b]\n"
