"""`ratingdb calc --system glicko2`: Glickman's worked example step by step, JSON, rule sets and refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from ratingdb.cli import app

runner = CliRunner()
PAPER = ["1500", "--system", "glicko2", "--rd", "200", "--volatility", "0.06", "--tau", "0.5",
         "--game", "1400:30:1", "--game", "1550:100:0", "--game", "1700:300:0"]  # fmt: skip
CLUB_RULES = """\
name = "club-glicko"
rating_type = "club"
system = "glicko2"
effective_from = "2020-01"

[glicko2]
tau = 0.3
initial_rating = 1500
initial_deviation = 350
initial_volatility = 0.06
provisional_deviation = 110
"""


def calc(*args: str) -> Result:
    return runner.invoke(app, ["calc", *args])


def error(*args: str) -> str:
    result = calc(*args)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    return result.stderr


def test_the_papers_example_is_written_out_step_by_step() -> None:
    result = calc(*PAPER)
    assert result.exit_code == 0, result.output
    # Figures as Glickman's paper prints them (its E to three decimals: 0.639, 0.432, 0.303), unrounded
    # here; v 1.7790 and Δ −0.4839 are the unrounded values of the paper's 1.7785 and −0.4834.
    assert result.stdout.splitlines() == [
        "Rules: glicko2 (Glickman's example values, no rule set, τ from --tau); Glicko-2, τ = 0.5, "
        "newcomers 1500 / 350 / 0.06; no maximum deviation (the paper's)",
        'System: Glicko-2 (Glickman, "Example of the Glicko-2 system"): computed unrounded, shown to 4 '
        "decimals; the list rounds r and RD to hundredths, σ to millionths",
        "Rating: r = 1500, RD = 200, σ = 0.06",
        "Step 2: μ = (r − 1500) / 173.7178 = 0.0000; φ = RD / 173.7178 = 1.1513",
        "Game  Opponent      RD       μj      φj   g(φj)       E  S",
        "   1      1400      30  −0.5756  0.1727  0.9955  0.6395  1",
        "   2      1550     100   0.2878  0.5756  0.9531  0.4318  0",
        "   3      1700     300   1.1513  1.7269  0.7242  0.3028  0",
        "Step 3: v = [Σ g(φj)² E (1 − E)]⁻¹ = [0.2285 + 0.2229 + 0.1107]⁻¹ = 1.7790",
        "Step 4: Δ = v Σ g(φj)(s − E) = 1.7790 × (0.3589 − 0.4116 − 0.2193) = 1.7790 × −0.2720 = −0.4839",
        "Step 5: σ′ by the Illinois algorithm on f(x), a = ln σ², τ = 0.5, ε = 0.000001 (2 iterations): "
        "σ′ = 0.059996",
        "Step 6: φ* = √(φ² + σ′²) = √(1.1513² + 0.059996²) = 1.1529",
        "Step 7: φ′ = 1 / √(1/φ*² + 1/v) = 0.8722; μ′ = μ + φ′² Σ g(φj)(s − E) = 0.0000 + 0.8722² × −0.2720 "
        "= −0.2069",
        # The exact path, by hand with μ′ = −0.20694097 and φ′ = 0.87219919 unrounded (the unit test
        # tests/unit/rating/test_glicko2.py writes every step out): 173.7178 × −0.20694097 = −35.94933
        # → 1464.05067 → 1464.05 on the list; 173.7178 × 0.87219919 = 151.51652 → 151.52.
        "Step 8: r′ = 173.7178 × μ′ + 1500 = 173.7178 × −0.206941 + 1500 = 1464.0507; "
        "RD′ = 173.7178 × φ′ = 151.5165",
        "New rating: 1464.05 (−35.95), RD 151.52, σ 0.059996; provisional (RD above 110)",
        # The paper's path, by hand from its printed μ′ = −0.2069 and φ′ = 0.8722:
        # 173.7178 × −0.2069 = −35.9422 → 1464.0578 → 1464.06; 173.7178 × 0.8722 = 151.5167 → 151.52;
        # σ′ 0.0599960 cut to five decimals is the paper's 0.05999.
        "Paper's rounding: Glickman's example prints μ′ and φ′ to 4 decimals and converts those: "
        "r′ = 173.7178 × −0.2069 + 1500 = 1464.0578, RD′ = 173.7178 × 0.8722 = 151.5167",
        "Paper's figures: 1464.06, RD 151.52, σ 0.05999 (σ′ printed to 5 decimals, cut); the list "
        "publishes the exact result: 1464.05, RD 151.52, σ 0.059996",
    ]


def test_the_json_carries_every_figure_unrounded() -> None:
    result = calc(*PAPER, "--format", "json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    # Within the paper's printed precision: 1464.06, 151.52, 0.05999 (it rounds μ′ to −0.2069 first).
    assert round(data["new_rating_unrounded"], 4) == 1464.0507 and data["new_rating"] == 1464.05
    assert round(data["paper_rounded_rating"], 4) == 1464.0578  # 173.7178 × −0.2069 + 1500
    assert round(data["paper_rounded_deviation"], 4) == 151.5167  # 173.7178 × 0.8722
    assert data["paper_rounded_volatility"] == 0.05999
    assert round(data["new_deviation_unrounded"], 2) == 151.52 == data["new_deviation"]
    assert abs(data["new_volatility"] - 0.05999) < 0.00001
    assert [round(game["g"], 4) for game in data["games"]] == [0.9955, 0.9531, 0.7242]
    assert [round(game["e"], 3) for game in data["games"]] == [0.639, 0.432, 0.303]
    assert (round(data["new_mu"], 4), round(data["new_phi"], 4)) == (-0.2069, 0.8722)


def test_a_period_without_games_widens_the_deviation() -> None:
    result = calc("1500", "--system", "glicko2", "--rd", "200", "--volatility", "0.06")
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    # √(200² + (0.06 × 173.7178)²) = 200.27
    assert out[-4:] == [
        "No games: rating and volatility stay; the deviation widens (Step 6)",
        "Step 6: φ′ = φ* = √(φ² + σ²) = √(1.1513² + 0.0600²) = 1.1529",
        "Step 8: RD′ = 173.7178 × φ′ = 200.27",
        "New rating: 1500.00 (+0.00), RD 200.27, σ 0.060000; provisional (RD above 110)",
    ]


def test_an_unrated_player_starts_as_the_newcomer_and_step_6_is_the_papers_uncapped() -> None:
    result = calc("unrated", "--system", "glicko2", "--game", "1400:30:1")
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[2] == "Rating: unrated: Step 1 gives the newcomer's r = 1500, RD = 350, σ = 0.06"
    # By hand: φ = 350 / 173.7178 = 2.014762; v = 1 / (0.9955² × 0.6395 × 0.3605) = 4.3768;
    # φ* = √(2.014762² + 0.059999²) = 2.015655 (above 350 / 173.7178: the paper caps nothing);
    # φ′ = 1 / √(1 / 2.015655² + 1 / 4.3768) = 1.4515 → RD′ = 173.7178 × 1.451550 = 252.16.
    assert "Step 6: φ* = √(φ² + σ′²) = √(2.0148² + 0.059999²) = 2.0157" in out
    assert out[-3] == "New rating: 1631.37 (+131.37), RD 252.16, σ 0.059999; provisional (RD above 110)"
    assert not any("capped" in line or "clamped" in line for line in out)


def test_a_rule_set_with_a_maximum_clamps_the_final_deviation_and_says_so(
    tmp_path: Path, db_url: str
) -> None:
    rule_file = tmp_path / "club-glicko.toml"
    rule_file.write_text(CLUB_RULES + "maximum_deviation = 350\n", encoding="utf-8")
    assert runner.invoke(app, ["--db", db_url, "rules", "add", str(rule_file)]).exit_code == 0
    result = runner.invoke(app, ["--db", db_url, "calc", "1500", "--rules", "club-glicko", "--rd", "349.9"])
    assert result.exit_code == 0, result.output
    # No games: φ′ = √((349.9 / 173.7178)² + 0.06²) → RD′ = √(349.9² + (0.06 × 173.7178)²) = 350.0552,
    # above the maximum 350: the list would publish 350.00.
    assert result.stdout.splitlines() == [
        "Rules: club-glicko (from --rules); Glicko-2, τ = 0.3, newcomers 1500 / 350 / 0.06; maximum "
        "deviation 350 (the final RD′ clamped to it, as lichess does)",
        'System: Glicko-2 (Glickman, "Example of the Glicko-2 system"): computed unrounded, shown to 4 '
        "decimals; the list rounds r and RD to hundredths, σ to millionths",
        "Rating: r = 1500, RD = 349.9, σ = 0.06 (the initial volatility: give yours with --volatility)",
        "Step 2: μ = (r − 1500) / 173.7178 = 0.0000; φ = RD / 173.7178 = 2.0142",
        "No games: rating and volatility stay; the deviation widens (Step 6)",
        "Step 6: φ′ = φ* = √(φ² + σ²) = √(2.0142² + 0.0600²) = 2.0151",
        "Step 8: RD′ = 173.7178 × φ′ = 350.06",
        "Maximum deviation: RD′ 350.0552 is above the rule set's maximum 350: clamped to 350 "
        "(the rating is Step 8's)",
        "New rating: 1500.00 (+0.00), RD 350.00, σ 0.060000; provisional (RD above 110)",
    ]


def test_a_stored_glicko2_rule_set_gives_tau_and_its_type_chooses_glicko2(
    tmp_path: Path, db_url: str
) -> None:
    rule_file = tmp_path / "club-glicko.toml"
    rule_file.write_text(CLUB_RULES, encoding="utf-8")
    added = runner.invoke(app, ["--db", db_url, "rules", "add", str(rule_file)])
    assert added.exit_code == 0, added.output
    game = ["--rd", "200", "--game", "1400:30:1"]
    by_type = runner.invoke(
        app, ["--db", db_url, "calc", "1500", "--type", "club", *game, "--rules", "2026-01"]
    )
    assert by_type.exit_code == 0, by_type.output
    assert by_type.stdout.splitlines()[0] == (
        "Rules: club-glicko (in force in 2026-01, from --rules); Glicko-2, τ = 0.3, "
        "newcomers 1500 / 350 / 0.06; no maximum deviation (the paper's)"
    )
    by_name = runner.invoke(app, ["--db", db_url, "calc", "1500", "--rules", "club-glicko", *game])
    assert by_name.exit_code == 0 and by_name.stdout.splitlines()[0].startswith(
        "Rules: club-glicko (from --rules)"
    )
    assert "σ = 0.06 (the initial volatility: give yours with --volatility)" in by_name.stdout


def test_mistakes_are_refused_with_one_sentence() -> None:
    assert error("1500", "--system", "glicko2", "--game", "1400:1") == (
        "Error: Glicko-2 needs your rating deviation too: add --rd RD, e.g. --rd 200\n"
    )
    assert error("1500", "--system", "glicko2", "--rd", "200", "--game", "1400:1") == (
        "Error: --game '1400:1': Glicko-2 needs the opponent's deviation too: write RATING:RD:SCORE, "
        "e.g. 1400:30:1\n"
    )
    assert error("1500", "--system", "glicko2", "--rd", "200", "--game", "1400:0:1") == (
        "Error: --game '1400:0:1': the deviation must be above 0, not 0\n"
    )
    assert error("1500", "--system", "glicko2", "--rd", "200", "--game", "1400:30:2") == (
        "Error: --game '1400:30:2': the score must be 1, 0.5 (or ½, =) or 0, not '2'\n"
    )
    assert error("1500", "--system", "glicko2", "--rd", "200", "--k", "20") == (
        "Error: --k: an Elo option, not used by Glicko-2 (see calc --help)\n"
    )
    assert error("1500", "--rd", "200", "--game", "1400:1") == (
        "Error: --deviation: a Glicko-2 option: add --system glicko2\n"
    )
    assert (
        error("1500", "--system", "glicko3")
        == "Error: 'glicko3' is not a rating system: use elo, glicko2 or glicko\n"
    )
    assert error("1500", "--system", "glicko2", "--rd", "-5") == (
        "Error: a Glicko-2 deviation must be a positive number, not -5.0\n"
    )
    assert error("1500", "--system", "glicko2", "--rd", "200", "--tau", "0") == (
        "Error: Glicko-2 tau must be a positive number, not 0.0\n"
    )
    assert error("1500", "--system", "glicko2", "--rules", "standard-2025-10", "--rd", "200") == (
        "Error: rule set 'standard-2025-10' is not a Glicko-2 rule set: leave out --system glicko2\n"
    )
