"""`ratingdb report top|event|period|diff|history` through the CLI on the club database of the fixtures.

Happy paths assert the exact CSV lines or JSON; unhappy paths the exact error line and exit code 1.
Expected values are worked out by hand in tests/fixtures/reports/club.py.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from tests import builders as b
from tests.conftest import ENGINES, new_database_url
from tests.fixtures.reports.club import CLUB_AUTUMN, LATE_OPEN, NEWCOMER_CUP, build_club

runner = CliRunner()


@pytest.fixture(scope="module", params=ENGINES)
def club_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # The reports only read, so this module's tests share one club database per engine.
    for url in new_database_url(request.param, request, tmp_path_factory.mktemp("club")):
        build_club(url)
        yield url


def report(url: str, *args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", url, "report", *map(str, args)])


def ok_lines(url: str, *args: str | Path) -> list[str]:
    result = report(url, *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_every_report_command_has_help_text() -> None:
    for command in ("top", "event", "period", "diff", "history"):
        result = runner.invoke(app, ["report", command, "--help"])
        assert result.exit_code == 0
        assert "--format" in result.stdout


def test_report_top_as_csv(club_url: str) -> None:
    assert ok_lines(club_url, "top", "--date", "2025-11-01", "--format", "csv") == [
        "rank,fide_id,national_id,name,title,federation,sex,birth_year,rating,games,k,flag",
        '1,300001,,"Ash, Adam",,IRL,M,1980,2185,2,20,',
        '2,300005,,"Elm, Eli",,IRL,M,1955,2100,0,20,i',
        '3,300002,,"Birch, Bea",,IRL,F,2007,1998,2,40,w',
        '4,300004,,"Dove, Dana",,ENG,F,1960,1920,2,20,w',
        # Fay's first list: 5 games from her pool, K 40 (fewer than 30 games).
        '5,300006,,"Fir, Fay",,IRL,F,2005,1886,5,40,w',
    ]


def test_report_top_girls_active_only_as_json(club_url: str) -> None:
    lines = ok_lines(
        club_url, "top", "--date", "2025-11-01", "--category", "girls", "--active-only", "-f", "json"
    )
    assert [(x["rank"], x["name"], x["rating"]) for x in json.loads("\n".join(lines))] == [
        (1, "Birch, Bea", 1998),
        (2, "Fir, Fay", 1886),
    ]


def test_report_top_uses_the_newest_list_by_default_and_limits(club_url: str) -> None:
    # The newest list is 2026-01-01: Ash 2180 after the late event, Elm 2100, Birch 2008.
    assert ok_lines(club_url, "top", "--limit", "3", "-f", "csv")[1:] == [
        '1,300001,,"Ash, Adam",,IRL,M,1980,2180,0,20,',
        '2,300005,,"Elm, Eli",,IRL,M,1955,2100,0,20,i',
        '3,300002,,"Birch, Bea",,IRL,F,2007,2008,0,20,w',
    ]


def test_report_top_writes_to_a_file(club_url: str, tmp_path: Path) -> None:
    out = tmp_path / "top.csv"
    assert ok_lines(club_url, "top", "--federation", "ENG", "-f", "csv", "-o", out) == []
    assert out.read_text("utf-8").splitlines()[1:] == ['1,300004,,"Dove, Dana",,ENG,F,1960,1920,0,20,w']


def test_report_top_refuses_an_unknown_category(club_url: str) -> None:
    result = report(club_url, "top", "--category", "veterans")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: 'veterans' is not a category: use one of open, women, juniors, girls, seniors50, seniors65\n"
    )


def test_report_event_as_csv(club_url: str) -> None:
    # Rc, K × Σ and Rp as worked out in club.py and tests/integration/test_reports.py.
    assert ok_lines(club_url, "event", str(CLUB_AUTUMN), "-f", "csv") == [
        "start_rank,fide_id,national_id,name,ro,rc,games,score,k,k_sum_dr,performance,status,new_rating",
        # new_rating: the list of 2025-11-01 the close published (club.py); Cedar fell below the floor.
        '1,300001,,"Ash, Adam",2200,1652.5,2,1.0,20,-15.4,1653,rated,2185',
        '2,300002,,"Birch, Bea",2000,1652.5,2,1.5,40,-2.4,1846,rated,1998',
        '3,300003,,"Cedar, Cal",1405,2100.0,2,0.0,40,-6.4,1300,rated,',
        '4,300004,,"Dove, Dana",1900,2100.0,2,1.5,20,19.8,2293,rated,1920',
    ]


def test_report_event_of_an_open_period_says_not_rated_yet(db_url: str) -> None:
    build_club(db_url, through="2025-10")  # the Late Open is rated in 2025-11, still open
    assert ok_lines(db_url, "event", str(LATE_OPEN), "-f", "csv") == [
        "start_rank,fide_id,national_id,name,ro,rc,games,score,k,k_sum_dr,performance,status,new_rating",
        '1,300001,,"Ash, Adam",,,0,,,,,not rated yet,',
        '2,300002,,"Birch, Bea",,,0,,,,,not rated yet,',
    ]
    assert ok_lines(db_url, "event", str(LATE_OPEN))[:2] == [
        "Event 3 'Late Open' (2025-10-18 … 2025-10-20), standard, period 2025-11 "
        "(late: its own period is 2025-10)",
        "Not rated yet: period 2025-11 is not closed.",
    ]


def test_report_event_as_json_flags_the_newly_rated_player(club_url: str) -> None:
    document = json.loads("\n".join(ok_lines(club_url, "event", str(NEWCOMER_CUP), "-f", "json")))
    assert {k: document[k] for k in ("name", "period", "late", "list_date", "ratings_from")} == {
        "name": "Newcomer Cup",
        "period": "2025-10",
        "late": False,
        "list_date": "2025-11-01",
        "ratings_from": "2025-10-01",
    }
    fay = document["players"][0]
    assert (fay["name"], fay["rc"], fay["score"], fay["performance"], fay["status"], fay["new_rating"]) == (
        "Fir, Fay",
        1921.0,
        2.5,
        1921,
        "newly rated",
        1886,
    )


def test_report_event_table_names_the_event_and_its_lists(club_url: str) -> None:
    lines = ok_lines(club_url, "event", str(CLUB_AUTUMN))
    assert lines[:2] == [
        "Event 1 'Club Autumn' (2025-10-03 … 2025-10-05), standard, period 2025-10",
        "Rated on the list dated 2025-11-01, ratings from the list dated 2025-10-01.",
    ]


def test_report_event_refuses_an_unknown_event(club_url: str) -> None:
    result = report(club_url, "event", "42")
    assert result.exit_code == 1
    assert result.stderr == "Error: there is no event 42: `ratingdb events` lists them\n"


def test_report_period_as_csv(club_url: str) -> None:
    assert ok_lines(club_url, "period", "2025-10", "-f", "csv") == [
        "section,fide_id,national_id,name,before,after,change,games,detail",
        'newly rated,300006,,"Fir, Fay",,1886,,5,',
        'below floor,300003,,"Cedar, Cal",1405,,,2,',
        'active again,300004,,"Dove, Dana",1900,1920,20,2,flag wi → w',
        'gain,300004,,"Dove, Dana",1900,1920,20,2,',
        'loss,300001,,"Ash, Adam",2200,2185,-15,2,',
        'loss,300003,,"Cedar, Cal",1405,1399,-6,2,',
        'loss,300002,,"Birch, Bea",2000,1998,-2,2,',
        'event,,,Club Autumn,,,,4,"event 1, 2025-10-03 … 2025-10-05, 4 players, games played: 4"',
        'event,,,Newcomer Cup,,,,5,"event 2, 2025-10-10 … 2025-10-14, 6 players, games played: 5"',
    ]


def test_report_period_shows_late_events_and_k_changes(club_url: str) -> None:
    assert ok_lines(club_url, "period", "2025-11", "-f", "csv")[-1] == (
        'late event,,,Late Open,,,,1,"event 3, 2025-10-18 … 2025-10-20, 2 players, games played: 1, '
        'late (its own period is 2025-10)"'
    )
    assert ok_lines(club_url, "period", "2025-12", "-f", "csv")[1:] == [
        'k change,300002,,"Birch, Bea",40,20,,,53 rated games and never reached 2400 → K 20 (§8.3.3)'
    ]


def test_report_period_as_json_counts_each_section(club_url: str) -> None:
    document = json.loads("\n".join(ok_lines(club_url, "period", "2025-10", "-f", "json")))
    assert document["counts"] == {
        "players_on_list": 6,
        # Club Autumn: 4 games between rated players; Newcomer Cup: Fir's 5 games toward the first rating
        # this close published (1886), so every game played was rated and changed a rating.
        "games_played": 9,
        "games_rated": 9,
        "games_changing_a_rating": 9,
        "players_rated": 4,
        "newly_rated": 1,
        "dropped_below_floor": 1,
        "became_inactive": 0,
        "active_again": 1,
        "k_changes": 0,
        "events": 2,
        "late_events": 0,
    }
    assert document["newly_rated"] == [
        {
            "fide_id": 300006,
            "national_id": None,
            "name": "Fir, Fay",
            "before": None,
            "after": 1886,
            "change": None,
            "games": 5,
            "flag_before": None,
            "flag_after": "w",
        }
    ]


def test_report_period_refuses_an_open_period(club_url: str) -> None:
    result = report(club_url, "period", "2026-01")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: there is no standard list dated 2026-02-01 (lists in the database: 2025-10-01, 2025-11-01, "
        "2025-12-01, 2026-01-01)\n"
    )


def test_report_period_refuses_a_bad_period(club_url: str) -> None:
    result = report(club_url, "period", "2025-13")
    assert result.exit_code == 1
    assert result.stderr == "Error: '2025-13' is not a period: write it as YYYY-MM, e.g. 2025-10\n"


def test_report_diff_as_csv(club_url: str) -> None:
    assert ok_lines(club_url, "diff", "2025-10-01", "2025-11-01", "-f", "csv") == [
        "section,fide_id,national_id,name,before,after,change,count",
        'entered,300006,,"Fir, Fay",,1886,,',
        'became unrated,300003,,"Cedar, Cal",1405,,,',
        'changed,300004,,"Dove, Dana",1900,1920,20,',
        'changed,300002,,"Birch, Bea",2000,1998,-2,',
        'changed,300001,,"Ash, Adam",2200,2185,-15,',
        # A label starting with "-" or "+" is a formula to a spreadsheet: it gets an apostrophe.
        "histogram,,,'-20..-11,-20,-11,,1",
        "histogram,,,'-10..-1,-10,-1,,1",
        "histogram,,,'+1..+10,1,10,,0",
        "histogram,,,'+11..+20,11,20,,1",
    ]


def test_report_diff_as_json_counts(club_url: str) -> None:
    document = json.loads("\n".join(ok_lines(club_url, "diff", "2025-10-01", "2025-11-01", "-f", "json")))
    assert document["counts"] == {"entered": 1, "left": 0, "became_unrated": 1, "changed": 3, "unchanged": 1}
    assert [x["name"] for x in document["became_unrated"]] == ["Cedar, Cal"]
    assert document["histogram"][0] == {"low": -20, "high": -11, "count": 1}


def test_report_diff_table_tells_left_from_unrated_and_heads_the_histogram(club_url: str) -> None:
    lines = ok_lines(club_url, "diff", "2025-10-01", "2025-11-01")
    assert lines[:2] == [
        "standard list 2025-10-01 → 2025-11-01",
        "entered: 1; left the list: 0; became unrated: 1; changed: 3; unchanged: 1",
    ]
    assert [cell.strip() for cell in lines[4].split("┃")[1:-1]] == ["change", "players", "# = 1 player"]
    assert [cell.strip() for cell in lines[6].split("│")[1:-1]] == ["-20..-11", "1", "#"]


def test_report_diff_names_a_player_who_left_the_list(db_url: str, tmp_path: Path) -> None:
    # Two imported lists: Bo is rated on the first and absent from the second; Cy stays, unrated.
    header = "fide_id,name,federation,sex,birth_year,rating,k,flag,games_total,reached_2400,reached_2300\n"
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text(
        header + '1,"Al, Al",IRL,M,1980,2000,20,,100,false,false\n'
        '2,"Bo, Bo",IRL,M,1980,1900,20,,100,false,false\n'
        '3,"Cy, Cy",IRL,M,1980,1500,20,,100,false,false\n'
    )
    second.write_text(
        header
        + '1,"Al, Al",IRL,M,1980,2010,20,,100,false,false\n3,"Cy, Cy",IRL,M,1980,,20,,100,false,false\n'
    )
    # The second is a new full list that leaves a player out: --replace-list says so on purpose.
    for path, date, *extra in ((first, "2025-10-01"), (second, "2025-11-01", "--replace-list")):
        result = runner.invoke(app, ["--db", db_url, "import-list", str(path), "--date", date, *extra])
        assert result.exit_code == 0, result.output
    assert ok_lines(db_url, "diff", "2025-10-01", "2025-11-01", "-f", "csv")[:4] == [
        "section,fide_id,national_id,name,before,after,change,count",
        'left,2,,"Bo, Bo",1900,,,',
        'became unrated,3,,"Cy, Cy",1500,,,',
        'changed,1,,"Al, Al",2000,2010,10,',
    ]


def test_report_diff_refuses_a_missing_list(club_url: str) -> None:
    result = report(club_url, "diff", "2025-09-01", "2025-11-01")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: there is no standard list dated 2025-09-01 (lists in the database: 2025-10-01, 2025-11-01, "
        "2025-12-01, 2026-01-01)\n"
    )


def test_report_history_as_csv_marks_the_k_change(club_url: str) -> None:
    assert ok_lines(club_url, "history", "300002", "-f", "csv") == [
        "type,list_date,origin,rating,change,games,k,flag,k_change",
        "standard,2025-10-01,imported,2000,,0,40,w,",
        "standard,2025-11-01,computed,1998,-2,2,40,w,",
        "standard,2025-12-01,computed,2008,10,1,40,w,",
        "standard,2026-01-01,computed,2008,0,0,20,w,40→20",
    ]


def test_report_history_draws_a_png_chart(club_url: str, tmp_path: Path) -> None:
    chart = tmp_path / "birch.png"
    lines = ok_lines(club_url, "history", "300002", "--chart", chart)
    assert lines[-1] == f"Wrote the chart to {chart}."
    with Image.open(chart) as image:
        assert (image.format, image.size) == ("PNG", (900, 450))


def test_report_history_refuses_a_chart_of_another_format(club_url: str, tmp_path: Path) -> None:
    result = report(club_url, "history", "300002", "--chart", tmp_path / "birch.gif")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path / 'birch.gif'}: a chart is written as .png or .svg\n"
    assert not (tmp_path / "birch.gif").exists()


def test_report_history_of_an_unknown_player_is_refused(club_url: str) -> None:
    result = report(club_url, "history", "999")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: no player has FIDE ID or national ID '999': `ratingdb player find NAME` searches by name\n"
    )


def test_a_report_refuses_an_unknown_format(club_url: str) -> None:
    result = report(club_url, "diff", "2025-10-01", "2025-11-01", "-f", "xml")
    assert result.exit_code == 1
    assert result.stderr == "Error: 'xml' is not an output format: use table, csv or json\n"


def test_a_missing_list_error_says_when_it_shows_only_the_newest_lists(db_url: str) -> None:
    engine = db.make_engine(db_url)
    with db.transaction(engine) as s:
        p = b.player(s, "Ash, Adam")
        for month in range(1, 9):  # eight lists, 2025-01-01 … 2025-08-01
            b.imported_list(s, "standard", dt.date(2025, month, 1), {p: 2000})
    engine.dispose()
    result = report(db_url, "diff", "2024-12-01", "2025-08-01")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: there is no standard list dated 2024-12-01 (8 lists in the database, 2025-01-01 to "
        "2025-08-01; the newest 6: 2025-03-01, 2025-04-01, 2025-05-01, 2025-06-01, 2025-07-01, 2025-08-01)\n",
    )


def test_report_top_says_why_a_category_is_empty(db_url: str) -> None:
    engine = db.make_engine(db_url)
    with db.transaction(engine) as s:
        ash, birch = b.player(s, "Ash, Adam", birth_year=None), b.player(s, "Birch, Bea", birth_year=None)
        b.imported_list(s, "standard", dt.date(2025, 10, 1), {ash: 2200, birch: 2000})
        elm = b.player(s, "Elm, Eli", birth_year=1955)
        b.imported_list(s, "standard", dt.date(2025, 11, 1), {ash: 2200, birch: 2000, elm: 2100})
    engine.dispose()
    assert ok_lines(db_url, "top", "--category", "juniors", "--date", "2025-10-01") == [
        "No players in category juniors on the standard list dated 2025-10-01: none of its 2 rated players "
        "has a birth year, which the juniors category needs."
    ]
    # Elm (born 1955) is 70 in 2025: not a junior; the other two cannot be placed.
    assert ok_lines(db_url, "top", "--category", "juniors") == [
        "No players in category juniors on the standard list dated 2025-11-01: no player with a birth year "
        "fits it in 2025; 2 of its 3 rated players have no birth year and cannot be placed."
    ]
    result = report(db_url, "top", "--category", "juniors", "--federation", "eng", "-f", "csv")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "rank,fide_id,national_id,name,title,federation,sex,birth_year,rating,games,k,flag\n",
        "No players in category juniors on the standard list dated 2025-11-01: the list has no rated players "
        "of ENG.\n",
    )
