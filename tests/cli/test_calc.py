"""`ratingdb calc` through the CLI: the federation calculator examples, exact lines and JSON, and refusals."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from ratingdb import db
from ratingdb.cli import app
from tests import builders as b

runner = CliRunner()
CURRENT_RULES = (
    "Rules: standard-2025-10 (in force in 2026-11, from --rules); a difference above 400 counts as 400 "
    "for players rated below 2650 (§8.3.1)"
)


def calc(*args: str | Path) -> Result:
    """Run `ratingdb calc` with the rules of 2026-11 fixed, so the header does not depend on today."""
    return runner.invoke(app, ["calc", *map(str, args), "--rules", "2026-11"])


def lines(*args: str | Path) -> list[str]:
    result = calc(*args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def as_json(*args: str | Path) -> Any:
    result = calc(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def error(*args: str | Path) -> str:
    result = calc(*args)
    assert result.exit_code == 1
    assert result.stdout == ""
    return result.stderr


# --- One game -----------------------------------------------------------------------------------------


def test_1500_against_1700_at_k20_prints_e_and_the_three_outcomes() -> None:
    out = lines("1500", "--opponent", "1700", "--k", "20")
    # D = −200 → L = 1 − 0.76 = 0.24; 20 × 0.76 = 15.2, 20 × 0.26 = 5.2, 20 × −0.24 = −4.8
    assert out == [
        CURRENT_RULES,
        "Expected score: FIDE table 8.1.2",
        "Rating: 1500",
        "K: 20 — given with --k",
        "Game: 1500 against 1700",
        "D = 1500 − 1700 = −200",
        "E = 0.24 (table 8.1.2: |D| = 200 is in 198–206 → 0.76 for the higher-rated player; "
        "D < 0, so E = 1 − 0.76 = 0.24)",
        "Logistic curve, for comparison only: E = 1 / (1 + 10^(−D/400)) = 1 / (1 + 10^(0.5)) = 0.2403",
        "Win:  K × (S − E) = 20 × (1 − 0.24) = +15.2 → +15 → 1515",
        "Draw: K × (S − E) = 20 × (0.5 − 0.24) = +5.2 → +5 → 1505",
        "Loss: K × (S − E) = 20 × (0 − 0.24) = −4.8 → −5 → 1495",
    ]
    data = as_json("1500", "--opponent", "1700", "--k", "20")
    assert data["formula"] == "table"
    assert data["single_game"]["expected_table"] == 0.24
    assert data["single_game"]["outcomes"]["win"]["change_table"] == 15.2


def test_1500_against_1600_table_and_curve_agree() -> None:
    table = as_json("1500", "--opponent", "1600", "--k", "20")["single_game"]
    # 1 / (1 + 10^0.25) = 0.35994 → 0.36, the table's value
    assert (table["expected_table"], round(table["expected_curve"], 2)) == (0.36, 0.36)
    out = lines("1500", "--opponent", "1600", "--k", "20", "--formula", "logistic")
    assert (
        "E = 1 / (1 + 10^(−D/400)) = 1 / (1 + 10^(0.25)) = 0.3599 "
        "(logistic curve; table 8.1.2 gives 0.36, difference −0.0001)"
    ) in out


def test_1892_beating_2026_at_k40_by_the_table_and_by_the_curve() -> None:
    # Table: D −134 → E 0.32, 40 × 0.68 = 27.2 → +27 → 1919.
    assert "Win:  K × (S − E) = 40 × (1 − 0.32) = +27.2 → +27 → 1919" in lines(
        "1892", "--opponent", "2026", "--k", "40"
    )
    # Curve: E = 1 / (1 + 10^0.335) = 0.31618; 40 × 0.68382 = 27.35 → +27.4 → +27 → 1919.
    args = ("1892", "--opponent", "2026", "--k", "40", "--formula", "logistic")
    out = lines(*args)
    assert out[1] == (
        "Expected score: logistic curve 1 / (1 + 10^(−D/400)), labelled; FIDE rates with table 8.1.2 "
        "(E shown to 4 decimals, changes to 1 decimal, half away from zero)"
    )
    assert "Win:  K × (S − E) = 40 × (1 − 0.3162) ≈ +27.4 → +27 → 1919 (table 8.1.2: +27.2 → 1919)" in out
    win = as_json(*args)["single_game"]["outcomes"]["win"]
    assert (win["change_curve_shown"], win["change_table"], win["change"], win["new_rating"]) == (
        27.4,
        27.2,
        27,
        1919,
    )


@pytest.mark.parametrize(
    ("formula", "cap", "win", "loss"),
    [
        # Curve, D 400: 20 × (1 − 0.90909) = 1.82, 20 × −0.90909 = −18.18
        ("logistic", (),
         "Win:  K × (S − E) = 20 × (1 − 0.9091) ≈ +1.8 → +2 → 1502 (table 8.1.2: +1.6 → 1502)",
         "Loss: K × (S − E) = 20 × (0 − 0.9091) ≈ −18.2 → −18 → 1482 (table 8.1.2: −18.4 → 1482)"),
        # Curve, D 500: E 0.94676 → 1.06 and −18.94
        ("logistic", ("--no-cap",),
         "Win:  K × (S − E) = 20 × (1 − 0.9468) ≈ +1.1 → +1 → 1501 (table 8.1.2: +0.8 → 1501)",
         "Loss: K × (S − E) = 20 × (0 − 0.9468) ≈ −18.9 → −19 → 1481 (table 8.1.2: −19.2 → 1481)"),
        # Table, D 400 → 0.92: 1.6 and −18.4; D 500 → 0.96: 0.8 and −19.2
        ("table", (), "Win:  K × (S − E) = 20 × (1 − 0.92) = +1.6 → +2 → 1502",
         "Loss: K × (S − E) = 20 × (0 − 0.92) = −18.4 → −18 → 1482"),
        ("table", ("--no-cap",), "Win:  K × (S − E) = 20 × (1 − 0.96) = +0.8 → +1 → 1501",
         "Loss: K × (S − E) = 20 × (0 − 0.96) = −19.2 → −19 → 1481"),
    ],
)  # fmt: skip
def test_1500_beating_or_losing_to_1000_with_and_without_the_cap(
    formula: str, cap: tuple[str, ...], win: str, loss: str
) -> None:
    out = lines("1500", "--opponent", "1000", "--k", "20", "--formula", formula, *cap)
    assert win in out and loss in out


def test_the_cap_is_shown_and_no_cap_names_its_rule_set() -> None:
    assert "D = 1500 − 1000 = +500, counted as +400 (400-point rule, §8.3.1)" in lines(
        "1500", "--opponent", "1000", "--k", "20"
    )
    out = lines("1500", "--opponent", "1000", "--k", "20", "--no-cap")
    assert out[0] == (
        "Rules: standard-2025-10-no-cap (in force in 2026-11, from --rules, 400-point rule off by --no-cap); "
        "the 400-point rule is off"
    )
    assert "D = 1500 − 1000 = +500 (400-point rule off)" in out


def test_a_draw_against_an_opponent_1200_points_stronger_at_k40() -> None:
    args = ("1500", "--opponent", "2700", "--k", "40")
    # Capped at −400. Curve: 40 × (0.5 − 0.09091) = 16.36 → +16.4 → +16.
    # Table: 40 × (0.5 − 0.08) = 16.8 → +17.
    assert (
        "Draw: K × (S − E) = 40 × (0.5 − 0.0909) ≈ +16.4 → +16 → 1516 (table 8.1.2: +16.8 → 1517)"
        in lines(*args, "--formula", "logistic")
    )
    assert "Draw: K × (S − E) = 40 × (0.5 − 0.08) = +16.8 → +17 → 1517" in lines(*args)
    # Uncapped: table E 0.00 → 40 × 0.5 = 20; curve E 0.000999 → 19.96 → +20.0.
    assert "Draw: K × (S − E) = 40 × (0.5 − 0.00) = +20.0 → +20 → 1520" in lines(*args, "--no-cap")
    assert (
        "Draw: K × (S − E) = 40 × (0.5 − 0.0010) ≈ +20.0 → +20 → 1520 (table 8.1.2: +20.0 → 1520)"
        in lines(*args, "--no-cap", "--formula", "logistic")
    )


def test_1613_beating_1609_shows_both_sides_with_the_opponents_k() -> None:
    out = lines("1613", "--opponent", "1609", "--k", "32", "--opponent-k", "32")
    # D +4 → 0.51: 32 × 0.49 = 15.68 → +16 → 1629; the opponent 32 × (0 − 0.49) = −15.68 → −16 → 1593.
    assert "Win:  K × (S − E) = 32 × (1 − 0.51) = +15.68 → +16 → 1629" in out
    assert "Opponent 1609:" in out
    assert "  K: 32 — given with --opponent-k" in out
    assert "  If you win, 1609 loses: K × (S − E) = 32 × (0 − 0.49) = −15.68 → −16 → 1593" in out
    data = as_json("1613", "--opponent", "1609", "--k", "32", "--opponent-k", "32")["single_game"]
    assert data["outcomes"]["win"]["new_rating"] == 1629
    assert data["opponent"]["outcomes"]["loss"]["new_rating"] == 1593


def test_a_2400_beating_a_2400_at_k10_gains_5() -> None:
    # D 0 → 0.50: 10 × 0.5 = 5.
    assert "Win:  K × (S − E) = 10 × (1 − 0.50) = +5.0 → +5 → 2405" in lines(
        "2400", "-o", "2400", "--k", "10"
    )


def test_the_2650_exemption_and_the_older_rule_set() -> None:
    # 2700 v 2200: the current rules leave D 500 (→ 0.96); the 2024-03 rules cap it at 400 (→ 0.92).
    assert "D = 2700 − 2200 = +500 (not capped: 2700 is rated 2650 or above, §8.3.1)" in lines(
        "2700", "-o", "2200", "--k", "10"
    )
    result = runner.invoke(app, ["calc", "2700", "-o", "2200", "--k", "10", "--rules", "2024-03"])
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    assert out[0] == (
        "Rules: standard-2024-03 (in force in 2024-03, from --rules); "
        "a difference above 400 counts as 400 for every player (§8.3.1)"
    )
    assert "Win:  K × (S − E) = 10 × (1 − 0.92) = +0.8 → +1 → 2701" in out


def test_rules_of_a_period_before_fide_s_sets_are_the_stored_set_that_covers_it(db_url: str) -> None:
    # FIDE's built-in standard sets start at 2022-01; the officer stores the template for 2014-07 …
    # 2021-12 (seeds/history/history-standard-2014.toml), whose 400-point rule has no 2650 exemption.
    # 2700 v 2200, K 10: D 500 counts as 400 → E 0.92 (table 8.1.2, 392–411); a win is 10 × 0.08 = +0.8
    # → +1. The current rules would leave D 500 (→ 0.96, +0.4 → 0).
    template = Path(__file__).parents[2] / "seeds" / "history" / "history-standard-2014.toml"
    added = runner.invoke(app, ["--db", db_url, "rules", "add", str(template), "--reason", "replay 2019"])
    assert added.exit_code == 0, added.output
    result = runner.invoke(
        app, ["--db", db_url, "calc", "2700", "-o", "2200", "--k", "10", "--rules", "2019-06"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0] == (
        "Rules: history-standard-2014 (in force in 2019-06, from --rules); "
        "a difference above 400 counts as 400 for every player (§8.3.1)"
    )
    assert "Win:  K × (S − E) = 10 × (1 − 0.92) = +0.8 → +1 → 2701" in out
    before = runner.invoke(
        app, ["--db", db_url, "calc", "2700", "-o", "2200", "--k", "10", "--rules", "2013-06"]
    )
    assert (before.exit_code, before.stdout) == (1, "")
    assert before.stderr.startswith(
        "Error: no standard rule set covers period 2013-06 — FIDE's built-in standard rule sets start at "
        "2022-01: store one for earlier periods with `ratingdb rules add FILE --reason TEXT`"
    )


def test_rules_of_a_period_no_built_in_set_covers_without_a_database_say_how_to_give_one(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "none.sqlite"
    result = runner.invoke(
        app, ["--db", f"sqlite:///{missing}", "calc", "1500", "-o", "1600", "--k", "20", "--rules", "2019-06"]
    )
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: no built-in standard rule set covers period 2019-06, and there is no database to find a "
        f"stored one in (the SQLite database {missing} does not exist) — give it with --db URL\n"
    )
    assert not missing.exists()


# --- A period -------------------------------------------------------------------------------------------


def test_a_period_of_three_games_at_k20() -> None:
    args = ("1500", "--game", "1400:1", "--game", "1600:0.5", "--game", "1550:0", "--k", "20")
    out = lines(*args)
    # 1400: +100 → 0.64 → 20 × 0.36 = 7.2; 1600: −100 → 0.36 → 2.8; 1550: −50 → 0.43 → −8.6; Σ 1.4 → +1.
    assert out[4:] == [
        "Games: 3 (rated: 3)",
        "Game  Opponent    S      D       E    S − E  K × (S − E)",
        "   1      1400    1   +100    0.64    +0.36         +7.2",
        "   2      1600  0.5   −100    0.36    +0.14         +2.8",
        "   3      1550    0    −50    0.43    −0.43         −8.6",
        "Score: 1.5 / 3",
        "Σ(S − E) = +0.07",
        "Change: K × Σ(S − E) = 20 × 0.07 = +1.4 → +1 "
        "(rounded once for the period, half away from zero, §8.3.4)",
        "New rating: 1500 + 1 = 1501",
        # Ra = 4550 / 3 = 1516.67 → 1517; 50 % → dp 0.
        "Performance, FIDE table 8.1.1: Ra 1517, 50 % → dp 0 → 1517 "
        "— rule used: 50 % score: Ra + dp 0 from table 8.1.1",
        "Performance, linear approximation Ra + 400 × (W − L) / n: Ra 1517 + 0 = 1517 "
        "— rule used: Ra + 400 × (1 − 1) / 3",
    ]
    data = as_json(*args)["period"]
    assert [g["k_times_s_minus_e_table"] for g in data["games"]] == [7.2, 2.8, -8.6]
    assert (data["change_table_unrounded"], data["change"], data["new_rating"]) == (1.4, 1, 1501)


def test_a_csv_of_games_gives_the_same_period(tmp_path: Path) -> None:
    games = tmp_path / "games.csv"
    games.write_text("opponent,score\n1400,1\n1600,½\n1550,0\n", encoding="utf-8")
    assert "New rating: 1500 + 1 = 1501" in lines("1500", "--games-file", games, "--k", "20")


def test_a_bad_csv_row_is_refused_with_file_line_and_column(tmp_path: Path) -> None:
    games = tmp_path / "games.csv"
    games.write_text("1400,1\n1600,win-ish\n", encoding="utf-8")
    assert error("1500", "--games-file", games, "--k", "20") == (
        f"Error: {games} line 2 col 2: the score must be 1, 0.5 or 0, not 'win-ish'\n"
    )


def test_the_700_rule_is_applied_and_shown() -> None:
    twenty = [arg for _ in range(20) for arg in ("--game", "1500:0.5")]
    out = lines("1500", *twenty, "--k", "40")
    # 40 × 20 = 800 > 700 → floor(700 / 20) = 35
    assert "700 rule: K × n = 40 × 20 = 800 > 700 → K = floor(700 / 20) = 35 (§8.3.3)" in out
    # 20 × 40 = 800 > 700 → floor(700 / 40) = 17; a win against an equal player: 17 × 0.5 = 8.5 → +9.
    out = lines("1500", "--opponent", "1500", "--k", "20", "--period-games", "40")
    assert "700 rule: K × n = 20 × 40 = 800 > 700 → K = floor(700 / 40) = 17 (§8.3.3)" in out
    assert "Win:  K × (S − E) = 17 × (1 − 0.50) = +8.5 → +9 → 1509" in out


def test_performance_of_6_5_out_of_12_against_2789_is_2818() -> None:
    games = [f"2789:{s}" for s in ["1"] * 6 + ["0.5"] + ["0"] * 5]
    out = lines("2700", *[a for g in games for a in ("--game", g)], "--k", "10")
    # 6.5 / 12 = 54.2 % → 54 % → dp 29 → 2818; linear 2789 + 400 × (6 − 5) / 12 = 2789 + 33 = 2822.
    assert (
        "Performance, FIDE table 8.1.1: Ra 2789, 54 % → dp +29 → 2818 "
        "— rule used: 54 % score: Ra + dp 29 from table 8.1.1" in out
    )
    assert (
        "Performance, linear approximation Ra + 400 × (W − L) / n: Ra 2789 + 33 = 2822 "
        "— rule used: Ra + 400 × (6 − 5) / 12"
    ) in out


def test_one_win_against_1600_performs_2400_by_both_rules() -> None:
    data = as_json("1500", "--game", "1600:1", "--k", "20")["period"]["performance"]
    assert (data["table"]["rating"], data["linear"]["rating"]) == (2400, 2400)
    assert data["linear"]["rule"] == "100 % score: Ra + 800, as §1.4.8 (the formula alone gives +400)"


# --- K derived, unrated players, goals, the table ---------------------------------------------------------


def test_k_is_derived_from_games_birth_year_and_flags_with_the_rule_printed() -> None:
    # On the list of 2026-11: 2026 − 2010 = 16 ≤ 18, never 2300 → junior K 40.
    assert "K: 40 — junior (18 or younger in 2026) who never reached 2300 → K 40 (§8.3.3)" in lines(
        "1800", "-o", "1800", "--games", "100", "--birth-year", "2010"
    )
    assert "K: 10 — published rating reached 2400 at some time → K 10 (§8.3.3)" in lines(
        "2350", "-o", "2350", "--games", "12", "--reached-2400"
    )
    assert "K: 20 — 45 rated games and never reached 2400 → K 20 (§8.3.3)" in lines(
        "1800", "-o", "1800", "--games", "45", "--birth-year", "1980"
    )


def test_an_unrated_player_gets_the_fide_example_initial_rating() -> None:
    args = ["unrated"] + [
        a for g in ("1902:0.5", "1877:0.5", "1884:1", "2012:0", "1832:1") for a in ("-g", g)
    ]
    out = lines(*args)
    # Ra = (9507 + 3600) / 7 = 1872.43; p = (3 + 1) / 7 = 0.571 → 0.57 → dp 50; Ru = 1922.43 → 1922.
    assert out[2:16] == [
        "Rating: unrated",
        "Unrated player: initial rating from the games against rated opponents (§8.2)",
        "Game  Opponent    S",
        "   1      1902  0.5",
        "   2      1877  0.5",
        "   3      1884    1",
        "   4      2012    0",
        "   5      1832    1",
        "  H1      1800  0.5  hypothetical draw (§8.2.2)",
        "  H2      1800  0.5  hypothetical draw (§8.2.2)",
        "Ra = (Σ opponents + 2 × 1800) / (n + 2) = (9507 + 3600) / 7 = 1872.43",
        "p = (W + 1) / (n + 2) = (3 + 1) / 7 → 0.57 (to the hundredth, .005 up)",
        "dp = +50 (table 8.1.1)",
        "Ru = Ra + dp = 1872.43 + 50 = 1922.43 → 1922 (half away from zero)",
    ]
    assert "Initial rating: 1922" in out
    data = as_json(*args)["initial"]
    assert (data["status"], data["rating"], data["p"], data["dp"]) == ("rated", 1922, 0.57, 50)
    assert sum(1 for g in data["games"] if g["hypothetical"]) == 2


def test_an_unrated_player_with_two_games_is_told_how_many_are_missing() -> None:
    out = lines("unrated", "-g", "1900:1", "-g", "1700:0")
    assert "Not yet rated: 2 of the 5 games needed; 3 more games against rated opponents needed (§8.2)" in out


def test_goal_seeking_finds_the_opponents_that_make_a_win_worth_10() -> None:
    out = lines("1500", "--k", "20", "--target", "+10", "--result", "win")
    # 20 × (1 − E) rounds to 10 for E from 0.52 (9.6) to 0.48 (10.4): |D| ≤ 17.
    assert out[4:] == [
        "Target: a win worth +10 (a single game's change in whole points)",
        "Opponents rated 1483 to 1517:",
        "  against 1483: Win:  K × (S − E) = 20 × (1 − 0.52) = +9.6 → +10 → 1510",
        "  against 1517: Win:  K × (S − E) = 20 × (1 − 0.48) = +10.4 → +10 → 1510",
    ]
    goal = as_json("1500", "--k", "20", "--target", "-8", "--result", "loss")["goal"]
    # 20 × (0 − E) rounds to −8 for E 0.38 … 0.42: D −54 … −91 (table 8.1.2) → opponents 1554 … 1591.
    assert (goal["opponent_low"], goal["opponent_high"]) == (1554, 1591)


def test_an_unreachable_goal_says_what_a_result_can_be_worth() -> None:
    assert "No opponent rating makes a win worth +25 at K 20: a win is worth +2 to +18" in lines(
        "1500", "--k", "20", "--target", "25", "--result", "win"
    )


def test_the_expected_score_table_by_difference() -> None:
    out = lines("--expected-table")
    # Curve 1 / (1 + 10^(−D/400)): .5, .5715, .6401, .7597, .8490, .9091 → 50 57 64 76 85 91 %.
    assert out[2:4] == [
        "Expected score by rating difference D (no 400-point rule applied):",
        "    D  table 8.1.2 higher | lower  logistic curve higher | lower",
    ]
    for row in (
        "    0                50 % |  50 %                   50 % |  50 %",
        "   50                57 % |  43 %                   57 % |  43 %",
        "  100                64 % |  36 %                   64 % |  36 %",
        "  200                76 % |  24 %                   76 % |  24 %",
        "  300                85 % |  15 %                   85 % |  15 %",
        "  400                92 % |   8 %                   91 % |   9 %",
    ):
        assert row in out
    table = {row["difference"]: row for row in as_json("--expected-table")["expected_table"]}
    assert [table[d]["table_higher"] for d in (0, 50, 100, 200, 300, 400)] == [
        0.5,
        0.57,
        0.64,
        0.76,
        0.85,
        0.92,
    ]
    assert round(table[400]["curve_higher"], 3) == 0.909


# --- Refusals -----------------------------------------------------------------------------------------------


REFUSALS = [
    (
        ("1500", "--game", "1600:x", "--k", "20"),
        "--game '1600:x': the score must be 1, 0.5 (or ½, =) or 0, not 'x'",
    ),
    (
        ("abc", "-o", "1600", "--k", "20"),
        "'abc' is not a rating: give a whole number such as 1500, or 'unrated'",
    ),
    (
        ("1500", "-o", "1600"),
        "K is needed: give --k K, or --games N (with --birth-year and --reached-2400/--reached-2300) "
        "to derive it by the FIDE rules",
    ),
    (
        ("1500", "-o", "1600", "--k", "20", "--games", "40"),
        "give --k, or --games/--birth-year/--reached-2400/--reached-2300 to derive K, not both",
    ),
    (
        ("1500", "-o", "1600", "-g", "1600:1", "--k", "20"),
        "give either --opponent or --game/--games-file, not both",
    ),
    (
        ("1500", "--k", "20", "--target", "10"),
        "goal seeking needs both --target POINTS and --result win|draw|loss",
    ),
    (
        ("1500", "-o", "1600", "--k", "20", "--formula", "elo"),
        "'elo' is not a formula: use table or logistic",
    ),
    (("1500", "-o", "1600", "--k", "0"), "K must be a positive whole number, not 0"),
    (("-o", "1600", "--k", "20"), "give RATING (or 'unrated'), or --player FIDE_ID"),
]


@pytest.mark.parametrize(("args", "message"), REFUSALS)
def test_bad_input_is_refused_in_one_line(args: tuple[str, ...], message: str) -> None:
    assert error(*args) == f"Error: {message}\n"


def test_a_bad_rules_period_is_refused() -> None:
    result = runner.invoke(app, ["calc", "1500", "-o", "1600", "--k", "20", "--rules", "2024-3"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: '2024-3' is not a period: write it as YYYY-MM, e.g. 2025-10\n",
    )


def test_calc_has_help_text() -> None:
    result = runner.invoke(app, ["calc", "--help"])
    assert result.exit_code == 0
    assert "Rating calculator" in result.stdout


# --- --player from the database ----------------------------------------------------------------------


def test_player_takes_rating_and_k_state_from_the_newest_list(db_url: str) -> None:
    engine = db.make_engine(db_url)
    with db.transaction(engine) as s:
        junior = b.player(s, "Ann Junior", birth_year=2010, fide_id=4100001)
        adult = b.player(s, "Bob Adult", birth_year=1980, fide_id=4100002)
        b.imported_list(s, "standard", dt.date(2026, 10, 1), {junior: 1600, adult: (2100, 20)})
        b.imported_list(s, "standard", dt.date(2026, 11, 1), {junior: 1650, adult: (2110, 20)})
    engine.dispose()

    result = runner.invoke(
        app, ["--db", db_url, "calc", "--player", "4100001", "-o", "1650", "--rules", "2026-11"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    # Newest list 2026-11-01: 1650; no K on the list, so derived: 2026 − 2010 = 16, never 2300 → K 40.
    assert out[2:5] == [
        "Player: Ann Junior (FIDE ID 4100001), standard list dated 2026-11-01",
        "Rating: 1650",
        "K: 40 — junior (18 or younger in 2026) who never reached 2300 → K 40 (§8.3.3)",
    ]
    # D 0 → 0.50: 40 × 0.5 = 20.
    assert "Win:  K × (S − E) = 40 × (1 − 0.50) = +20.0 → +20 → 1670" in out

    result = runner.invoke(
        app, ["--db", db_url, "calc", "--player", "4100002", "-o", "2110", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rating"] == 2110
    assert data["k"]["base"] == 20 and data["k"]["source"] == "from the standard list dated 2026-11-01"


def test_an_unknown_player_is_refused(db_url: str) -> None:
    result = runner.invoke(app, ["--db", db_url, "calc", "--player", "999", "-o", "1600"])
    assert (result.exit_code, result.stderr) == (1, "Error: no player has FIDE ID 999\n")


def test_a_player_on_no_list_of_the_type_is_refused(db_url: str) -> None:
    engine = db.make_engine(db_url)
    with db.transaction(engine) as s:
        b.player(s, "Cleo Rapid", fide_id=4100003)
    engine.dispose()
    result = runner.invoke(app, ["--db", db_url, "calc", "--player", "4100003", "-o", "1600", "-t", "rapid"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: Cleo Rapid (FIDE ID 4100003) is on no rapid list\n",
    )
