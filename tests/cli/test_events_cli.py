"""`ratingdb events`: the imported events with their IDs, on the club database of the fixtures (both engines).

The club's events (tests/fixtures/reports/club.py): Club Autumn, 4 players, 2 rounds of 2 boards;
Newcomer Cup, Fay against 5 players, 5 games; Late Open, Ash–Birch, one game, rated late in 2025-11.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ratingdb.cli import app
from tests.cli.test_corrections import LIST, trf
from tests.fixtures.reports.club import build_club

runner = CliRunner()
HEADER = "id,name,start_date,end_date,type,period,late,players,games,rated,file"


def events(url: str, *args: str) -> list[str]:
    result = runner.invoke(app, ["--db", url, "events", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_events_lists_every_event_with_whether_its_close_has_rated_it(db_url: str) -> None:
    build_club(db_url, through="2025-10")
    assert events(db_url, "-f", "csv") == [
        HEADER,
        "1,Club Autumn,2025-10-03,2025-10-05,standard,2025-10,no,4,4,yes,club_autumn.trf",
        "2,Newcomer Cup,2025-10-10,2025-10-14,standard,2025-10,no,6,5,yes,newcomer_cup.trf",
        "3,Late Open,2025-10-18,2025-10-20,standard,2025-11,yes,2,1,no,late_open.trf",
    ]


def test_events_narrowed_by_period_type_and_name(db_url: str) -> None:
    build_club(db_url, through="2025-10")
    assert events(db_url, "--period", "2025-11", "-f", "csv")[1:] == [
        "3,Late Open,2025-10-18,2025-10-20,standard,2025-11,yes,2,1,no,late_open.trf",
    ]
    assert [e["id"] for e in json.loads("\n".join(events(db_url, "--name", "CUP", "-f", "json")))] == [2]
    assert events(db_url, "--type", "rapid") == ["No events match (rapid)."]
    assert events(db_url, "--period", "2025-12", "--name", "open") == [
        "No events match (period 2025-12, name containing 'open')."
    ]


def test_events_table_shows_dates_late_and_rated(db_url: str) -> None:
    build_club(db_url, through="2025-10")
    rows = [line.split("│")[1:-1] for line in events(db_url) if line.startswith("│")]
    assert [[cell.strip() for cell in row] for row in rows][2] == [
        "3", "Late Open", "2025-10-18 … 2025-10-20", "standard", "2025-11 (late)", "2", "1", "no",
        "late_open.trf",
    ]  # fmt: skip


def test_events_on_an_empty_database_says_how_to_import_one(db_url: str) -> None:
    assert events(db_url) == ["No events yet: import one with `ratingdb import-trf FILE`."]


def test_events_refuses_a_bad_period_and_type(db_url: str) -> None:
    result = runner.invoke(app, ["--db", db_url, "events", "--period", "2025-13"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: '2025-13' is not a period: write it as YYYY-MM, e.g. 2025-10\n",
    )
    result = runner.invoke(app, ["--db", db_url, "events", "--type", "bullet"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: 'bullet' is not a rating type: use one of standard, rapid, blitz\n",
    )


def test_events_hides_withdrawn_versions_unless_all(db_url: str, tmp_path: Path) -> None:
    """A replaced event (issue 25) is listed once, as its current version; `--all` shows both."""
    (tmp_path / "oct.csv").write_text(LIST, encoding="utf-8")
    (tmp_path / "e1.trf").write_text(trf("Club Open", "2025/10/10", 1, 2, "1"), encoding="utf-8")
    (tmp_path / "e1-fixed.trf").write_text(trf("Club Open", "2025/10/10", 1, 2, "0"), encoding="utf-8")
    for args in (
        ["import-list", str(tmp_path / "oct.csv"), "--date", "2025-10-01"],
        ["import-trf", str(tmp_path / "e1.trf"), "--type", "standard"],
        ["close-period", "2025-10"],
        ["reopen", "2025-10", "--reason", "result the wrong way round"],
        ["replace-event", "1", str(tmp_path / "e1-fixed.trf")],
        ["close-period", "2025-10"],
    ):
        assert runner.invoke(app, ["--db", db_url, *args]).exit_code == 0, args
    assert events(db_url, "-f", "csv") == [
        HEADER,
        "2,Club Open,2025-10-10,2025-10-10,standard,2025-10,no,2,1,yes,e1-fixed.trf",
    ]
    assert events(db_url, "--all", "-f", "csv") == [
        HEADER + ",version",
        "1,Club Open,2025-10-10,2025-10-10,standard,2025-10,no,2,1,no,e1.trf,withdrawn",
        "2,Club Open,2025-10-10,2025-10-10,standard,2025-10,no,2,1,yes,e1-fixed.trf,current",
    ]
