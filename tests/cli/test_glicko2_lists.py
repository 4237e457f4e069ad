"""Glicko-2 lists end to end on every engine: a starting list, a close through the seam, the displays.

The worked example of Glickman's paper is played as a tournament (tests/fixtures/trf/glicko_example.trf):
"Example, Paper" (1500, RD 200, σ 0.06) beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a
1700 (RD 300); the other three also play each other, which changes nothing for the example's player.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result

from ratingdb.cli import app

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RULES = FIXTURES / "glicko2" / "club-glicko.toml"
START = FIXTURES / "glicko2" / "club-2025-10-01.csv"
EVENT = FIXTURES / "trf" / "glicko_example.trf"


def run(db_url: str, *args: str | Path) -> Result:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def ok(db_url: str, *args: str | Path) -> list[str]:
    result = run(db_url, *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def refused(db_url: str, *args: str | Path) -> str:
    result = run(db_url, *args)
    assert result.exit_code == 1, result.output
    return result.stderr


def start(db_url: str) -> None:
    ok(db_url, "rules", "add", RULES)
    assert ok(db_url, "import-list", START, "--type", "club", "--date", "2025-10-01")[0] == (
        "Imported the club list dated 2025-10-01 from club-2025-10-01.csv (csv): 5 entries, 5 rated."
    )


def test_a_starting_list_keeps_rating_deviation_and_volatility_and_exports_the_same(
    db_url: str, tmp_path: Path
) -> None:
    start(db_url)
    table = ok(db_url, "list", "2025-10-01", "--type", "club", "--format", "csv")
    assert table == [
        "fide_id,national_id,name,federation,sex,title,birth_year,rating,deviation,volatility",
        '200104,,"Opponent, Ciara",IRL,M,,1980,1700,300,0.06',
        '200105,,"Idle, Ida",IRL,F,,1980,1612.5,80,0.06',
        '200103,,"Opponent, Brian",IRL,M,,1980,1550,100,0.06',
        '200101,,"Example, Paper",IRL,M,,1980,1500,200,0.06',
        '200102,,"Opponent, Aoife",IRL,M,,1980,1400,30,0.06',
    ]
    # The export is the import format: it reads back to the same figures as a list of another date.
    exported = tmp_path / "club.csv"
    exported.write_text("\n".join(table) + "\n", encoding="utf-8")
    ok(db_url, "import-list", exported, "--type", "club", "--date", "2025-12-01", "--replace-list")
    again = ok(db_url, "list", "2025-12-01", "--type", "club", "--format", "csv")
    assert again == table


def test_a_starting_list_refuses_a_row_that_leaves_out_the_deviation(db_url: str, tmp_path: Path) -> None:
    ok(db_url, "rules", "add", RULES)
    bad = tmp_path / "club.csv"
    bad.write_text('fide_id,name,rating,deviation,volatility\n200101,"Example, Paper",1500,,0.06\n', "utf-8")
    assert refused(db_url, "import-list", bad, "--type", "club", "--date", "2025-10-01") == (
        "Error: club.csv line 2: the row is rated but has no deviation: give rating, deviation and volatility\n"
    )
    bad.write_text('fide_id,name,rating,deviation\n200101,"Example, Paper",1500,200\n', "utf-8")
    assert refused(db_url, "import-list", bad, "--type", "club", "--date", "2025-10-01") == (
        "Error: club.csv line 1: the Glicko-2 list has no 'volatility' column\n"
    )
    bad.write_text(
        'fide_id,name,rating,deviation,volatility\n200101,"Example, Paper",1500,-3,0.06\n', "utf-8"
    )
    assert refused(db_url, "import-list", bad, "--type", "club", "--date", "2025-10-01") == (
        "Error: club.csv line 2 col 4: deviation -3 is out of range: above 0 and at most 1000\n"
    )
    assert ok(db_url, "lists", "--format", "csv") == [
        "type,date,version,state,origin,period,rules,players,withdrawn_at,reason"
    ]
