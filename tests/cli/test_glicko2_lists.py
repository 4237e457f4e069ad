"""Glicko-2 lists end to end on every engine: a starting list, a close through the seam, the displays.

The worked example of Glickman's paper is played as a tournament (tests/fixtures/trf/glicko_example.trf):
"Example, Paper" (1500, RD 200, σ 0.06) beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a
1700 (RD 300); the other three also play each other, which changes nothing for the example's player.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner, Result

from ratingdb import db
from ratingdb.cli import app
from ratingdb.rating.glicko2 import (
    LOSS,
    WIN,
    Glicko2Game,
    Glicko2Parameters,
    Glicko2Rating,
    published,
    update,
)

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
        "Error: club.csv line 2: the row is rated but has no deviation: "
        "give rating, deviation and volatility\n"
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


def test_a_deviation_above_the_rule_sets_limit_is_refused_naming_the_row(db_url: str, tmp_path: Path) -> None:
    ok(db_url, "rules", "add", RULES)  # initial deviation 350, no maximum: a list's RD is at most 350
    header = START.read_text(encoding="utf-8").splitlines()[0]
    bad = tmp_path / "club.csv"
    bad.write_text(
        f'{header}\n200101,"Example, Paper",IRL,M,1980,1500,200,0.06\n200102,"Opponent, Aoife",IRL,M,1980,'
        "1400,400,0.06\n",
        "utf-8",
    )
    assert refused(db_url, "import-list", bad, "--type", "club", "--date", "2025-10-01") == (
        "Error: club.csv line 3 col 7: deviation 400 is above 350, the initial deviation of rule set "
        "'club-glicko'\n"
    )
    assert ok(db_url, "lists", "--format", "csv") == [
        "type,date,version,state,origin,period,rules,players,withdrawn_at,reason"
    ]
    # A rule set with a maximum deviation (of another type, here) takes deviations up to it.
    limited = tmp_path / "club-glicko-500.toml"
    limited.write_text(
        RULES.read_text(encoding="utf-8").replace('name = "club-glicko"', 'name = "club-glicko-500"')
        .replace('rating_type = "club"', 'rating_type = "club2"') + "maximum_deviation = 500\n",
        "utf-8",
    )  # fmt: skip
    ok(db_url, "rules", "add", limited)
    assert ok(db_url, "import-list", bad, "--type", "club2", "--date", "2025-10-01")[0].startswith(
        "Imported the club2 list dated 2025-10-01"
    )
    bad.write_text(f'{header}\n200102,"Opponent, Aoife",IRL,M,1980,1400,500.01,0.06\n', "utf-8")
    assert refused(db_url, "import-list", bad, "--type", "club2", "--update", "--reason", "RD") == (
        "Error: club.csv line 2 col 7: deviation 500.01 is above 500, the maximum deviation of rule set "
        "'club-glicko-500'\n"
    )


def test_a_close_under_a_maximum_says_which_deviations_widened_and_which_it_held(
    db_url: str, tmp_path: Path
) -> None:
    limited = tmp_path / "club-glicko.toml"
    limited.write_text(RULES.read_text(encoding="utf-8") + "maximum_deviation = 400\n", "utf-8")
    ok(db_url, "rules", "add", limited)
    header = START.read_text(encoding="utf-8").splitlines()[0]
    start = tmp_path / "club.csv"
    start.write_text(
        f'{header}\n200101,"Example, Paper",IRL,M,1980,1500,200,0.06\n200102,"Opponent, Aoife",IRL,M,1980,'
        "1400,400,0.06\n",
        "utf-8",
    )
    ok(db_url, "import-list", start, "--type", "club", "--date", "2025-10-01")
    closed = ok(db_url, "close-period", "2025-10", "--type", "club")
    # No games: Paper widens to √(200² + (0.06 × 173.7178)²) = 200.27; Aoife's √(400² + 10.42²) = 400.14
    # is above the maximum 400 and stays at 400.
    assert "    note: 1 rated player without games: deviation widened (Glicko-2 Step 6)" in closed
    assert (
        "    note: 1 rated player without games: deviation at the rule set's maximum 400 "
        "(it widens no further)" in closed
    )
    listed = ok(db_url, "list", "2025-11-01", "--type", "club", "--format", "csv")
    assert '200101,,"Example, Paper",IRL,M,,1980,1500,200.27,0.06' in listed
    assert '200102,,"Opponent, Aoife",IRL,M,,1980,1400,400,0.06' in listed
    counts = ok(db_url, "report", "period", "2025-10", "--type", "club", "--format", "json")
    assert '"deviations_widened": 1' in "".join(counts) and '"deviations_at_maximum": 1' in "".join(counts)


def close_october(db_url: str) -> list[str]:
    start(db_url)
    ok(db_url, "import-trf", EVENT, "--type", "club")
    return ok(db_url, "close-period", "2025-10", "--type", "club")


def test_the_close_reproduces_the_papers_example_and_widens_the_idle_player(db_url: str) -> None:
    closed = close_october(db_url)
    listed = ok(db_url, "list", "2025-11-01", "--type", "club", "--format", "csv")
    rd = {line.split(",")[0]: f"{float(line.split(',')[-2]):.2f}" for line in listed[1:]}
    # Each move with its deviation: the starting list's (30, 100, 300; the paper's 200) → the new list's,
    # the paper's 151.52 among them.
    assert rd["200101"] == "151.52"
    assert closed == [
        "Closed club period 2025-10: published the list dated 2025-11-01 (rules club-glicko).",
        "  events rated: 1; games played: 6; games rated: 6; games that changed a rating: 6",
        "  players on the list: 5; players rated: 4",
        "  newly rated: 0",
        f"    biggest gain: Opponent, Brian 1550 → 1557 (+7, 3 games, RD 100.00 → {rd['200103']})",
        f"    biggest gain: Opponent, Aoife 1400 → 1403 (+3, 3 games, RD 30.00 → {rd['200102']})",
        f"    biggest loss: Opponent, Ciara 1700 → 1531 (-169, 3 games, RD 300.00 → {rd['200104']})",
        "    biggest loss: Example, Paper 1500 → 1464 (-36, 3 games, RD 200.00 → 151.52)",
        "    note: 1 rated player without games: deviation widened (Glicko-2 Step 6)",
    ]
    # The close publishes the exact result, rounded once as the list is written. By hand (every step in
    # tests/unit/rating/test_glicko2.py): μ′ = −0.20694097, φ′ = 0.87219919, so r′ = 173.7178 ×
    # −0.20694097 + 1500 = 1464.05067 → 1464.05, RD′ = 173.7178 × 0.87219919 = 151.51652 → 151.52,
    # σ′ 0.05999598 → 0.059996 (the paper prints 1464.06, converting μ′ rounded to −0.2069 first).
    # Ida did not play: √(80² + (0.06 × 173.7178)²) = 80.68.
    assert '200101,,"Example, Paper",IRL,M,,1980,1464.05,151.52,0.059996' in listed
    assert '200105,,"Idle, Ida",IRL,F,,1980,1612.5,80.68,0.06' in listed
    # FIDE's fixed-width text has no deviation or volatility: the list's system writes CSV only.
    assert refused(db_url, "list", "2025-11-01", "--type", "club", "--format", "fide-txt") == (
        "Error: the club list dated 2025-11-01 is a Glicko-2 list, which is not written as fide-txt: "
        "use --format csv\n"
    )
    table = ok(db_url, "list", "2025-11-01", "--type", "club")
    assert "(computed, Glicko-2); ? = provisional, RD above 110" in table[0]
    paper = next(line for line in table if "Example, Paper" in line)
    assert "1464.05" in paper and "151.52" in paper and "?" in paper
    # The change to hundredths as the ratings are: 1464.05 − 1500.00 = −35.95 (not list_entry's whole
    # 1464 − 1500 = −36); Ida's rating stays 1612.50 while only her deviation widens: 0.00.
    assert "-35.95" in [cell.strip() for cell in paper.split("│")]
    assert "0.00" in [cell.strip() for cell in next(line for line in table if "Idle, Ida" in line).split("│")]
    calc = ok(db_url, "calculation", "200101", "2025-10", "--type", "club")
    assert calc[:11] == [
        "Example, Paper (FIDE 200101), born 1980, IRL: club (Glicko-2), period 2025-10, "
        "list dated 2025-11-01",
        "Before: r 1500.00, RD 200.00, σ 0.060000",
        "Step 2: μ = 0.0000, φ = 1.1513",
        "Step 3: v = [Σ g(φj)² E (1 − E)]⁻¹ = 1.7790 over 3 games (below)",
        "Step 4: Δ = v Σ g(φj)(s − E) = −0.4839",
        "Step 5: σ′ = 0.059996 (Illinois algorithm, τ = 0.5, ε = 0.000001, 2 iterations)",
        "Step 6: φ* = √(φ² + σ′²) = 1.1529",
        "Step 7: φ′ = 1 / √(1/φ*² + 1/v) = 0.8722; μ′ = μ + φ′² Σ g(φj)(s − E) = −0.2069",
        "Step 8: r′ = 173.7178 × μ′ + 1500 = 1464.0507; RD′ = 173.7178 × φ′ = 151.5165",
        "New list: rating 1464.05, RD 151.52, σ 0.059996; provisional (RD above 110) "
        "(rounded once: hundredths, σ to millionths)",
        "┏━━━━━━━┳━━━━┳━━━━━━━━━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━┓",
    ]
    # The paper's table: g(φj) 0.9955, 0.9531, 0.7242; E 0.639, 0.432, 0.303 (here to four decimals).
    assert any(
        "1400.00" in line and "30.00" in line and "0.9955" in line and "0.6395" in line for line in calc
    )
    assert any(
        "1700.00" in line and "300.00" in line and "0.7242" in line and "0.3028" in line for line in calc
    )
    idle = ok(db_url, "calculation", "200105", "2025-10", "--type", "club")
    assert idle[1:4] == [
        "Before: r 1612.50, RD 80.00, σ 0.060000",
        "Step 2: μ = 0.6476, φ = 0.4605",  # 112.5 / 173.7178, 80 / 173.7178
        "No games: the deviation widens (Step 6): φ′ = φ* = √(φ² + σ²) = 0.4644, RD′ = 173.7178 × φ′ = 80.68",
    ]
    # The calculator takes the player's figures from the newest club list: the next period's what-if.
    whatif = ok(
        db_url, "calc", "--type", "club", "--player", "200101", "-g", "1500:350:1", "--rules", "2025-11"
    )
    assert whatif[2:4] == [
        "Player: Example, Paper (FIDE ID 200101), club list dated 2025-11-01",
        "Rating: r = 1464.05, RD = 151.52, σ = 0.059996",
    ]
    player = "\n".join(ok(db_url, "player", "200101"))
    assert "1464.05" in player and "151.52" in player
    november = next(row for row in player.splitlines() if "2025-11-01" in row)
    assert "-35.95" in [cell.strip() for cell in november.split("│")]
    top = ok(db_url, "report", "top", "--type", "club", "--format", "csv")
    assert top[0].endswith(",glicko2,rd,provisional")
    assert top[4] == '4,200101,,"Example, Paper",,IRL,M,1980,1464,3,,,1464.05,151.52,?'
    period = ok(db_url, "report", "period", "2025-10", "--type", "club")
    assert period[1].startswith(
        "players on list: 5; games played: 6; games rated: 6; games that changed a rating: 6; players "
        "rated: 4; newly rated: 0;"
    )
    moves = ok(db_url, "report", "period", "2025-10", "--type", "club", "--format", "csv")
    assert moves[1:5] == [
        f'gain,200103,,"Opponent, Brian",1550,1557,7,3,RD 100.00 → {rd["200103"]}',
        f'gain,200102,,"Opponent, Aoife",1400,1403,3,3,RD 30.00 → {rd["200102"]}',
        f'loss,200104,,"Opponent, Ciara",1700,1531,-169,3,RD 300.00 → {rd["200104"]}',
        'loss,200101,,"Example, Paper",1500,1464,-36,3,RD 200.00 → 151.52',
    ]


def test_each_close_widens_the_players_who_do_not_play_and_rates_newcomers_from_step_1(db_url: str) -> None:
    close_october(db_url)
    # November: one game between the paper's player and a newcomer; everybody else only widens.
    november = FIXTURES / "trf" / "glicko_november.trf"
    imported = run(db_url, "import-trf", november, "--type", "club")
    assert imported.exit_code == 0, imported.output
    closed = ok(db_url, "close-period", "2025-11", "--type", "club")
    assert "  players on the list: 6; players rated: 2" in closed
    assert "  newly rated: 1" in closed
    # Step 1's 350 → 259.71: Step 6's φ* = √(2.014762² + 0.059999²) = 2.015655, as the paper has it (until
    # issue 48 ratingdb capped it at 350 / 173.7178 = 2.014762 and published 1658.61, RD 259.64).
    assert "    newly rated: Newcomer, Nora unrated → 1659 (RD 259.71)" in closed
    assert "    note: 4 rated players without games: deviation widened (Glicko-2 Step 6)" in closed
    listed = ok(db_url, "list", "2025-12-01", "--type", "club", "--format", "csv")
    # Ida again: √(80.68² + 10.42²) = 81.35 (from the published 80.68), still σ 0.06.
    assert '200105,,"Idle, Ida",IRL,F,,1980,1612.5,81.35,0.06' in listed
    # The next period starts from the published figures: the close equals the rules on them.
    params = Glicko2Parameters(0.5, 1500, 350, 0.06, 110)
    paper = Glicko2Rating(1464.05, 151.52, 0.059996)
    nora = published(update(params.newcomer, [Glicko2Game(1464.05, 151.52, WIN)], params).after)
    lost = published(update(paper, [Glicko2Game(1500, 350, LOSS)], params).after)
    assert (nora.rating_x100, nora.deviation_x100, nora.volatility_x1e6) == (165869, 25971, 59999)
    assert '200106,,"Newcomer, Nora",IRL,F,,1990,1658.69,259.71,0.059999' in listed
    assert (lost.rating_x100, lost.deviation_x100, lost.volatility_x1e6) == (142594, 14580, 59996)
    assert '200101,,"Example, Paper",IRL,M,,1980,1425.94,145.8,0.059996' in listed
    calc = ok(db_url, "calculation", "200106", "2025-11", "--type", "club")
    assert calc[1] == "Before: r 1500.00, RD 350.00, σ 0.060000 (a newcomer: Step 1)"


def test_a_published_glicko2_list_is_sealed_and_a_reopen_publishes_a_new_version(db_url: str) -> None:
    close_october(db_url)
    engine = db.make_engine(db_url)
    try:
        for statement in (
            "UPDATE glicko2_entry SET rating_x100 = 200000",
            "DELETE FROM glicko2_calc_player",
            "UPDATE glicko2_calc_game SET e = 0.5",
        ):
            with pytest.raises(DBAPIError, match="published lists are immutable"), engine.begin() as conn:
                conn.execute(text(statement))
    finally:
        engine.dispose()
    before = ok(db_url, "list", "2025-11-01", "--type", "club", "--format", "csv")
    reopened = run(db_url, "reopen", "2025-10", "--type", "club", "--reason", "result check")
    assert reopened.exit_code == 0, reopened.output
    again = ok(db_url, "close-period", "2025-10", "--type", "club")
    assert again[0] == "Closed club period 2025-10: published the list dated 2025-11-01 (rules club-glicko)."
    assert ok(db_url, "list", "2025-11-01", "--type", "club", "--format", "csv") == before
    assert ok(db_url, "list", "2025-11-01", "--type", "club", "--version", "1", "--format", "csv") == before
    versions = ok(db_url, "lists", "--type", "club", "--format", "csv")
    assert sorted(line.split(",")[:5] for line in versions[1:]) == [
        ["club", "2025-10-01", "1", "current", "imported (club-2025-10-01.csv)"],
        ["club", "2025-11-01", "1", "withdrawn", "computed"],
        ["club", "2025-11-01", "2", "current", "computed"],
    ]
    assert refused(db_url, "close-period", "2025-11", "--type", "club", "--adjust", "2000:0.4") == (
        "Error: --adjust changes Elo ratings (spec §10): a Glicko-2 list has no such adjustment; "
        "close without it\n"
    )


def test_an_update_corrects_a_glicko2_starting_list_and_an_elo_file_is_not_read_as_one(
    db_url: str, tmp_path: Path
) -> None:
    start(db_url)
    before = ok(db_url, "list", "2025-10-01", "--type", "club", "--format", "csv")
    # A federation corrects one wrong deviation of its starting list with a one-line file, as it corrects
    # an Elo list: Idle's RD 80 → 90; the other four keep their rating, deviation and volatility.
    fix = tmp_path / "idle.csv"
    header = START.read_text(encoding="utf-8").splitlines()[0]
    fix.write_text(f'{header}\n200105,"Idle, Ida",IRL,F,1980,1612.5,90,0.06\n', "utf-8")
    assert ok(
        db_url, "import-list", fix, "--type", "club", "--update", "--reason", "Idle's RD was wrong"
    ) == [
        "Updated the club list dated 2025-10-01 from idle.csv (csv): version 2 replaces version 1; 5 "
        "entries: 1 from the file (1 changed, 0 added), 4 kept as they were.",
        "Players: 0 new, 0 updated.",
    ]
    after = ok(db_url, "list", "2025-10-01", "--type", "club", "--format", "csv")
    assert [line for line in after if line not in before] == [
        line.replace("1612.5,80,", "1612.5,90,") for line in before if "1612.5,80," in line
    ]
    assert ok(db_url, "list", "2025-10-01", "--type", "club", "--version", "1", "--format", "csv") == before
    versions = ok(db_url, "lists", "--type", "club", "--format", "csv")
    assert sorted(line.split(",")[2:4] for line in versions[1:]) == [["1", "withdrawn"], ["2", "current"]]
    # The close rates from the corrected version: Idle widens from 90, √(90² + (0.06 × 173.7178)²) = 90.60.
    ok(db_url, "import-trf", EVENT, "--type", "club")
    ok(db_url, "close-period", "2025-10", "--type", "club")
    listed = ok(db_url, "list", "2025-11-01", "--type", "club", "--format", "csv")
    assert '200105,,"Idle, Ida",IRL,F,,1980,1612.5,90.6,0.06' in listed
    # A list a close rated from is not updated: its period is reopened instead (as for an Elo list).
    message = refused(
        db_url, "import-list", fix, "--type", "club", "--update", "--reason", "again", "--date", "2025-10-01"
    )
    assert message.startswith("Error: ") and "reopen" in message, message
    # A ratingdb (Elo) CSV list for a Glicko-2 type: its K and games columns are not Glicko-2 columns.
    elo = FIXTURES / "lists" / "list.csv"
    message = refused(db_url, "import-list", elo, "--type", "club", "--date", "2025-12-01")
    assert message.startswith("Error: list.csv line 1 col ") and "is not a Glicko-2 list column" in message


def test_report_systems_scores_the_glicko2_forecasts_of_the_period(db_url: str) -> None:
    close_october(db_url)
    # The six games of tests/fixtures/trf/glicko_example.trf from white's side, with the list in force
    # (r, RD): Paper 1500/200, Aoife 1400/30, Brian 1550/100, Ciara 1700/300. Glickman's E written out here
    # (not the module's): E = 1 / (1 + exp(−g(φⱼ)(μ − μⱼ))), g(φ) = 1 / √(1 + 3φ²/π²), μ = (r − 1500) /
    # 173.7178, φ = RD / 173.7178.
    listed = {"paper": (1500, 200), "aoife": (1400, 30), "brian": (1550, 100), "ciara": (1700, 300)}
    games = [("paper", "aoife", 1.0), ("ciara", "brian", 0.0), ("brian", "paper", 1.0),
             ("aoife", "ciara", 0.5), ("paper", "ciara", 0.0), ("aoife", "brian", 1.0)]  # fmt: skip

    def e(white: str, black: str) -> float:
        mu, mu_j, phi_j = (
            (listed[white][0] - 1500) / 173.7178,
            (listed[black][0] - 1500) / 173.7178,
            listed[black][1] / 173.7178,
        )
        return 1 / (1 + math.exp(-(mu - mu_j) / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)))

    forecasts = [(e(w, b), s) for w, b, s in games]
    assert round(forecasts[0][0], 3) == 0.639 and round(forecasts[4][0], 3) == 0.303  # the paper's E
    log_loss = sum(-(s * math.log(p) + (1 - s) * math.log(1 - p)) for p, s in forecasts) / 6
    brier = sum((p - s) ** 2 for p, s in forecasts) / 6
    report = ok(
        db_url,
        "report",
        "systems",
        "--from",
        "2025-10",
        "--to",
        "2025-10",
        "--type",
        "club",
        "--format",
        "csv",
    )
    assert report[0] == "rating_type,system,band,games,log_loss,brier"
    assert report[-1] == f"club,glicko2,all,6,{round(log_loss, 4)},{round(brier, 4)}"
    assert refused(db_url, "report", "systems", "--from", "2025-11", "--to", "2025-10") == (
        "Error: --to 2025-10 is before --from 2025-11\n"
    )
