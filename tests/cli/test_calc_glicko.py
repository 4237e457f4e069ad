"""`ratingdb calc --system glicko`: the example of "The Glicko system" step by step, rule sets, refusals."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ratingdb.cli import app

runner = CliRunner()
PAPER = ["1500", "--system", "glicko", "--rd", "200", "--game", "1400:30:1", "--game", "1550:100:0",
         "--game", "1700:300:0"]  # fmt: skip


def test_the_papers_example_is_written_out_step_by_step() -> None:
    result = runner.invoke(app, ["calc", *PAPER])
    assert result.exit_code == 0, result.output
    # The paper: q = 0.0057565; g = 0.9955, 0.9531, 0.7242; E = 0.639, 0.432, 0.303 (here to four
    # decimals, unrounded: 0.6395, 0.4318, 0.3028); d² = 53670.85 from the paper's rounded table, 53685.74
    # unrounded (d = 231.70); r′ = 1500 + 131.95 × −0.2720 = 1464.11 → the paper's 1464; RD′ =
    # √((1/200² + 1/53685.74)⁻¹) = 151.40 → the paper's 151.4 (tests/unit/rating/test_glicko.py by hand).
    assert result.stdout.splitlines() == [
        "Rules: glicko (Glickman's example values, no rule set); Glicko, newcomers 1500 / 350, maximum "
        "deviation 350, c = 34.64",
        'System: Glicko (Glickman, "The Glicko system"): computed unrounded; the list rounds r and RD to '
        "hundredths",
        "Step 1: r = 1500, RD = 200 at the onset of the period",
        "Step 2: q = ln 10 / 400 = 0.0057565; g(RD) = 1 / √(1 + 3q²RD²/π²), E = 1 / (1 + "
        "10^(−g(RDj)(r − rj)/400))",
        "Game  Opponent      RD  g(RDj)       E  S",
        "   1      1400      30  0.9955  0.6395  1",
        "   2      1550     100  0.9531  0.4318  0",
        "   3      1700     300  0.7242  0.3028  0",
        "d² = [q² Σ g(RDj)² E (1 − E)]⁻¹ = [0.0057565² × (0.2285 + 0.2229 + 0.1107)]⁻¹ = 53685.74 "
        "(d = 231.70)",
        "r′ = r + q / (1/RD² + 1/d²) Σ g(RDj)(s − E) = 1500 + 131.95 × −0.2720 = 1464.11",
        "RD′ = √((1/RD² + 1/d²)⁻¹) = √((1/200.00² + 1/53685.74)⁻¹) = 151.40",
        "New rating: 1464.11 (−35.89), RD 151.40",
    ]
    as_json = json.loads(runner.invoke(app, ["calc", *PAPER, "--format", "json"]).stdout)
    assert (round(as_json["new_rating_unrounded"]), round(as_json["new_deviation_unrounded"], 1)) == (
        1464,
        151.4,
    )


def test_a_stored_glicko_rule_set_is_chosen_by_its_type(tmp_path: Path, db_url: str) -> None:
    rule_file = tmp_path / "club.toml"
    rule_file.write_text(
        'name = "club-glicko1"\nrating_type = "club"\nsystem = "glicko"\neffective_from = "2020-01"\n\n'
        "[glicko]\ninitial_rating = 1500\ninitial_deviation = 350\nmaximum_deviation = 350\nc = 63.2\n",
        "utf-8",
    )
    assert runner.invoke(app, ["--db", db_url, "rules", "add", str(rule_file)]).exit_code == 0
    result = runner.invoke(app, ["--db", db_url, "calc", "unrated", "--type", "club", "--game", "1500:350:1"])
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0].startswith("Rules: club-glicko1 (in force in ") and out[0].endswith(
        ", the current period); Glicko, newcomers 1500 / 350, maximum deviation 350, c = 63.20"
    )
    assert out[2] == "Step 1: unrated: the newcomer's r = 1500, RD = 350"
    # A newcomer beats a newcomer: g(350) = 1 / √(1 + 3 × 0.0057565² × 350² / π²) = 0.669069, E = 0.5;
    # d² = 1 / (0.0057565² × 0.669069² × 0.25) = 269,654; RD′ = √((1/350² + 1/269654)⁻¹) = 290.23;
    # r′ = 1500 + 0.0057565 × 290.23² × 0.669069 × 0.5 = 1662.21.
    assert out[-1] == "New rating: 1662.21 (+162.21), RD 290.23"


def test_mistakes_are_refused_with_one_sentence() -> None:
    def error(*args: str) -> str:
        result = runner.invoke(app, ["calc", *args])
        assert result.exit_code == 1 and result.stdout == "", result.output
        return result.stderr

    assert error("1500", "--system", "glicko", "--game", "1400:30:1") == (
        "Error: Glicko needs your rating deviation too: add --rd RD, e.g. --rd 200\n"
    )
    assert error("1500", "--system", "glicko", "--rd", "200", "--volatility", "0.06") == (
        "Error: --volatility: not an option of Glicko (see calc --help)\n"
    )
    assert error("1500", "--system", "glicko4") == (
        "Error: 'glicko4' is not a rating system: use elo, glicko2 or glicko\n"
    )
