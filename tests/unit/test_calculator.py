"""The calculator composed from ratingdb.rating: the federation calculator examples, K, goals, tables."""

from __future__ import annotations

import ast
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ratingdb.calculator.elo as calculator
from ratingdb.calculator import elo_text
from ratingdb.calculator.elo import (
    CalcRequest,
    Calculation,
    Game,
    KState,
    calculate,
    choose_k,
    expected_table,
    parse_game,
    parse_score,
    parse_target,
)
from ratingdb.errors import ConfigError
from ratingdb.rating import DRAW, LOSS, WIN, Period, rule_set_for, without_cap

CURRENT = rule_set_for("standard", Period(2025, 10))  # 400-point rule with the 2650 exemption
OLD = rule_set_for("standard", Period(2024, 3))  # 400-point rule for everyone
NO_CAP = without_cap(CURRENT)
LIST_DATE = date(2026, 11, 1)


def calc(rating: int | None, rules=CURRENT, **kwargs) -> Calculation:  # type: ignore[no-untyped-def]
    return calculate(
        CalcRequest(rating=rating, rules=rules, rules_reason="test", list_date=LIST_DATE, **kwargs)
    )


def one_game(rating: int, opponent: int, k: int, rules=CURRENT, formula="table"):  # type: ignore[no-untyped-def]
    single = calc(rating, rules, opponent=opponent, k=k, formula=formula).single
    assert single is not None
    return single


def outcomes(single) -> dict[str, calculator.Outcome]:  # type: ignore[no-untyped-def]
    return {o.result: o for o in single.player.outcomes}


def shown(value: Decimal) -> Decimal:
    """The curve value as the calculator shows it: one decimal, half away from zero."""
    return value.quantize(Decimal("0.1"), rounding="ROUND_HALF_UP")


# --- One game: expected score and the three outcomes --------------------------------------------------


def test_1500_against_1700_expects_0_24_by_the_table() -> None:
    single = one_game(1500, 1700, 20)
    # D = −200: |D| 200 is in 198–206 → H 0.76, so L = 0.24.
    assert single.player.expectation.table == 24
    o = outcomes(single)
    # 20 × (1 − 0.24) = 15.20; 20 × (0.5 − 0.24) = 5.20; 20 × (0 − 0.24) = −4.80
    assert [o["win"].table_x100, o["draw"].table_x100, o["loss"].table_x100] == [1520, 520, -480]
    assert [o["win"].new_rating, o["draw"].new_rating, o["loss"].new_rating] == [1515, 1505, 1495]


def test_1500_against_1600_gives_0_36_by_table_and_curve_alike() -> None:
    e = one_game(1500, 1600, 20).player.expectation
    assert e.table == 36
    # 1 / (1 + 10^0.25) = 1 / 2.7783 = 0.35993
    assert e.curve.quantize(Decimal("0.01")) == Decimal("0.36")


def test_1892_beating_2026_at_k40_gains_27_by_the_table_and_by_the_curve() -> None:
    table = outcomes(one_game(1892, 2026, 40))["win"]
    # D = −134 → H 0.68 (130–137), E = 0.32; 40 × (1 − 0.32) = 27.20 → +27.
    assert (table.table_x100, table.change, table.new_rating) == (2720, 27, 1919)
    curve = outcomes(one_game(1892, 2026, 40, formula="logistic"))["win"]
    # E = 1 / (1 + 10^0.335) = 1 / 3.16272 = 0.31618; 40 × 0.68382 = 27.353 → shown +27.4, whole +27.
    assert shown(curve.curve) == Decimal("27.4")
    assert (curve.change, curve.new_rating) == (27, 1919)


def test_1500_beating_or_losing_to_1000_with_and_without_the_cap() -> None:
    capped, uncapped = outcomes(one_game(1500, 1000, 20)), outcomes(one_game(1500, 1000, 20, NO_CAP))
    # Table: capped D 400 → 0.92: 20 × 0.08 = 1.60 and 20 × −0.92 = −18.40;
    # uncapped D 500 → 0.96: 20 × 0.04 = 0.80 and 20 × −0.96 = −19.20.
    assert (capped["win"].table_x100, uncapped["win"].table_x100) == (160, 80)
    assert (capped["loss"].table_x100, uncapped["loss"].table_x100) == (-1840, -1920)
    # Curve: E(400) = 0.90909 → 20 × 0.09091 = 1.818 and −18.18; E(500) = 0.94676 → 1.065 and −18.935.
    assert (shown(capped["win"].curve), shown(uncapped["win"].curve)) == (Decimal("1.8"), Decimal("1.1"))
    assert (shown(capped["loss"].curve), shown(uncapped["loss"].curve)) == (
        Decimal("-18.2"),
        Decimal("-18.9"),
    )


def test_a_draw_against_an_opponent_1200_points_stronger_at_k40() -> None:
    curve = outcomes(one_game(1500, 2700, 40, formula="logistic"))["draw"]
    table = outcomes(one_game(1500, 2700, 40))["draw"]
    # Capped D −400: curve E 0.09091 → 40 × 0.40909 = 16.36 → +16.4 (+16);
    # table E 0.08 → 40 × 0.42 = 16.80 (+17).
    assert (shown(curve.curve), curve.change) == (Decimal("16.4"), 16)
    assert (table.table_x100, table.change) == (1680, 17)
    # Uncapped D −1200: table E 0.00 → 40 × 0.5 = 20; curve E 0.000999 → 19.96 → +20.
    no_cap_table = outcomes(one_game(1500, 2700, 40, NO_CAP))["draw"]
    no_cap_curve = outcomes(one_game(1500, 2700, 40, NO_CAP, formula="logistic"))["draw"]
    assert (no_cap_table.table_x100, no_cap_table.change) == (2000, 20)
    assert (shown(no_cap_curve.curve), no_cap_curve.change) == (Decimal("20.0"), 20)


def test_1613_beating_1609_at_k32_and_the_opponents_side() -> None:
    single = calc(1613, opponent=1609, k=32, opponent_k=32).single
    assert single is not None and single.opponent is not None
    mine, theirs = single.player.outcomes[0], single.opponent.outcomes[0]
    # D = +4 → 0.51: 32 × (1 − 0.51) = 15.68 → +16 → 1629; the opponent 32 × (0 − 0.49) = −15.68 → 1593.
    assert (mine.result, mine.table_x100, mine.new_rating) == ("win", 1568, 1629)
    assert (theirs.result, theirs.table_x100, theirs.new_rating) == ("loss", -1568, 1593)


def test_a_2400_beating_a_2400_at_k10_gains_5() -> None:
    # D = 0 → 0.50: 10 × 0.50 = 5.
    assert outcomes(one_game(2400, 2400, 10))["win"].change == 5


@pytest.mark.parametrize(
    ("own", "opp", "score", "k", "x100"),
    [
        (2650, 2150, WIN, 10, 40),  # 2650 is exempt: real D 500 → 0.96 → 10 × 0.04
        (2649, 2149, WIN, 10, 80),  # capped at 400 → 0.92 → 10 × 0.08
        (2700, 1964, WIN, 10, 0),  # D 736 → 1.00
        (1500, 2000, DRAW, 20, 840),  # D −400 → 0.08 → 20 × 0.42
        (2000, 2092, DRAW, 30, 390),  # D −92 → 0.37 → 30 × 0.13
    ],
)
def test_the_spec_worked_single_games_come_out_exactly(
    own: int, opp: int, score: int, k: int, x100: int
) -> None:
    o = {o.score: o for o in one_game(own, opp, k).player.outcomes}
    assert o[score].table_x100 == x100


def test_the_older_rule_set_caps_a_2700_player_too() -> None:
    # 2700 against 2200: D 500. Current rules: 2700 ≥ 2650 uses 500 → 0.96; 2024-03 rules cap it → 0.92.
    assert one_game(2700, 2200, 10).player.expectation.table == 96
    assert one_game(2700, 2200, 10, OLD).player.expectation.table == 92


def test_the_steps_are_written_with_the_players_own_numbers() -> None:
    lines = elo_text.lines(calc(1500, opponent=1600, k=20))
    assert "D = 1500 − 1600 = −100" in lines
    assert "Win:  K × (S − E) = 20 × (1 − 0.36) = +12.8 → +13 → 1513" in lines
    assert (
        "Logistic curve, for comparison only: E = 1 / (1 + 10^(−D/400)) = 1 / (1 + 10^(0.25)) = 0.3599"
        in lines
    )


def test_a_rapid_game_600_apart_with_a_player_above_2600_is_not_rated() -> None:
    rapid = rule_set_for("rapid", Period(2025, 1))
    single = calc(2650, rapid, opponent=2000, k=20).single
    assert single is not None and single.excluded is not None
    assert elo_text.single_lines(single)[-1] == (
        "This game is not rated: the difference is 600 or more and a player is rated above 2600 "
        "(rapid and blitz rules from 1 December 2024)."
    )


# --- A period -------------------------------------------------------------------------------------------


def test_a_period_of_three_games_is_rounded_once() -> None:
    games = (Game(1400, WIN), Game(1600, DRAW), Game(1550, LOSS))
    period = calc(1500, games=games, k=20).period
    assert period is not None
    # 1400: D +100 → 0.64, 20 × 0.36 = 7.2; 1600: D −100 → 0.36, 20 × 0.14 = 2.8; 1550: D −50 → 0.43, −8.6.
    assert [period.k.k * row.dr_table() for row in period.rows] == [720, 280, -860]
    # 7.2 + 2.8 − 8.6 = 1.4 → +1 → 1501
    assert (period.change_table_x100, period.change, period.new_rating) == (140, 1, 1501)


def test_the_700_rule_reduces_k_by_the_games_of_the_period() -> None:
    # 40 × 20 = 800 > 700 → floor(700 / 20) = 35; 20 × 40 = 800 > 700 → floor(700 / 40) = 17.
    assert choose_k(k=40, state=None, list_date=LIST_DATE, n=20).k == 35
    assert choose_k(k=20, state=None, list_date=LIST_DATE, n=40).k == 17
    # 20 × 35 = 700 is not above 700.
    assert elo_text.rule_700(choose_k(k=20, state=None, list_date=LIST_DATE, n=35)) is None
    twenty = tuple(Game(1500, DRAW) for _ in range(20))
    k = calc(1500, games=twenty, k=40).k
    assert k is not None
    assert elo_text.rule_700(k) == "700 rule: K × n = 40 × 20 = 800 > 700 → K = floor(700 / 20) = 35 (§8.3.3)"


def test_period_games_apply_the_700_rule_to_a_single_game() -> None:
    single = calc(1500, opponent=1500, k=20, period_games=40).single
    assert single is not None
    # K 17 after the 700 rule: a win against an equal opponent is 17 × 0.5 = 8.5 → +9.
    assert (single.player.k.k, single.player.outcomes[0].table_x100, single.player.outcomes[0].change) == (
        17,
        850,
        9,
    )


def test_performance_by_the_fide_table_and_the_linear_approximation() -> None:
    # 6 wins, 1 draw, 5 losses against 2789: 6.5 / 12 = 54.17 % → 54 % → dp 29 → 2818.
    games = tuple([Game(2789, WIN)] * 6 + [Game(2789, DRAW)] + [Game(2789, LOSS)] * 5)
    perf = calc(2700, games=games, k=10).period.performance  # type: ignore[union-attr]
    assert perf is not None
    assert (perf.table.ra, perf.table.percentage, perf.table.dp, perf.table.rating) == (2789, 54, 29, 2818)
    # 2789 + 400 × (6 − 5) / 12 = 2789 + 33.33 → 2822
    assert perf.linear.rating == 2822
    single_win = calc(1500, games=(Game(1600, WIN),), k=20).period.performance  # type: ignore[union-attr]
    assert single_win is not None
    # 100 %: 1600 + 800 = 2400 by both, and the linear rule says it used ±800.
    assert (single_win.table.rating, single_win.linear.rating) == (2400, 2400)
    assert single_win.linear.rule == "100 % score: Ra + 800, as §1.4.8 (the formula alone gives +400)"


# --- Unrated players ------------------------------------------------------------------------------------


def test_the_fide_initial_rating_example_gives_1922() -> None:
    games = (Game(1902, DRAW), Game(1877, DRAW), Game(1884, WIN), Game(2012, LOSS), Game(1832, WIN))
    result = calc(None, games=games)
    assert result.initial is not None and result.k is None
    # Ra = (9507 + 3600) / 7 = 1872.43; p = 4/7 → 0.57 → dp 50; 1922.43 → 1922
    assert result.initial.result.rating == 1922
    lines = elo_text.lines(result)
    assert "  H1      1800  0.5  hypothetical draw (§8.2.2)" in lines
    assert "Ra = (Σ opponents + 2 × 1800) / (n + 2) = (9507 + 3600) / 7 = 1872.43" in lines
    assert "Ru = Ra + dp = 1872.43 + 50 = 1922.43 → 1922 (half away from zero)" in lines
    assert "Initial rating: 1922" in lines


def test_an_unrated_player_with_three_games_is_told_what_is_missing() -> None:
    lines = elo_text.lines(calc(None, games=(Game(1900, WIN), Game(1900, LOSS), Game(1900, DRAW))))
    assert (
        "Not yet rated: 3 of the 5 games needed; 2 more games against rated opponents needed (§8.2)" in lines
    )


def test_an_unrated_player_needs_results_not_just_an_opponent() -> None:
    with pytest.raises(ConfigError, match="an unrated player is rated from results"):
        calc(None, opponent=1800)


def test_an_initial_rating_below_1400_is_not_published() -> None:
    # Ra = (5 × 1400 + 3600) / 7 = 1514.29; 0 + 1 of 7 → 0.14 → dp −309 → 1205.29 → 1205 < 1400.
    result = calc(None, games=tuple(Game(1400, LOSS) for _ in range(5)))
    assert result.initial is not None and result.initial.result.status == "below_floor"
    assert "Below 1400: no rating is published; the results stay in the pool (§7.2.1)" in elo_text.lines(
        result
    )


# --- K derived by §8.3.3 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "k"),
    [
        (KState(10, 1990, reached_2400=True), 10),  # reached 2400 → 10 even with few games
        (KState(100, 2010), 40),  # 2026 − 2010 = 16 ≤ 18, never 2300 → junior 40
        (KState(100, 2010, reached_2300=True), 20),  # junior who reached 2300 → not 40
        (KState(29, 1990), 40),  # fewer than 30 games
        (KState(30, 1990), 20),
    ],
)
def test_k_is_derived_in_the_order_of_the_rules(state: KState, k: int) -> None:
    assert choose_k(k=None, state=state, list_date=LIST_DATE, n=1).k == k


def test_k_is_required_for_a_rated_player() -> None:
    with pytest.raises(ConfigError, match="K is needed"):
        calc(1500, opponent=1600)


# --- Goal seeking and the expected-score table ---------------------------------------------------------


def test_a_win_worth_10_at_k20_needs_an_opponent_within_17_points() -> None:
    goal = calc(1500, k=20, target=10, result="win").goal
    assert goal is not None
    # 20 × (1 − E) rounds to 10 for E 0.52 (9.6), 0.51, 0.50, 0.49, 0.48 (10.4): |D| ≤ 17 (table 8.1.2).
    assert (goal.low, goal.high, goal.open_low, goal.open_high) == (1483, 1517, False, False)


def test_an_impossible_goal_says_what_is_possible() -> None:
    goal = calc(1500, k=20, target=25, result="win").goal
    assert goal is not None and goal.low is None
    # Capped at 400: a win gives 20 × 0.08 = 1.6 → +2 at least and 20 × 0.92 = 18.4 → +18 at most.
    assert (goal.achievable_min, goal.achievable_max) == (2, 18)


@settings(max_examples=25, deadline=None)
@given(
    rating=st.integers(1400, 2800),
    k=st.sampled_from([10, 20, 40]),
    result=st.sampled_from(["win", "draw", "loss"]),
    target=st.integers(-40, 40),
)
def test_every_opponent_in_a_goal_range_reaches_the_target(
    rating: int, k: int, result: str, target: int
) -> None:
    goal = calc(rating, k=k, target=target, result=result).goal
    assert goal is not None
    if goal.low is None or goal.high is None:
        # E moves in steps of 0.01, so K × (S − E) in steps of at most 0.4: every whole number between the
        # extremes is reached, and a missed target lies outside them.
        assert not goal.achievable_min <= target <= goal.achievable_max
        return
    for opponent in {goal.low, goal.high, (goal.low + goal.high) // 2}:
        single = one_game(rating, opponent, k)
        assert {o.result: o for o in single.player.outcomes}[result].change == target


def test_the_expected_score_table_by_difference() -> None:
    rows = {row.difference: row for row in expected_table()}
    diffs = (0, 50, 100, 200, 300, 400)
    assert [rows[d].table_higher for d in diffs] == [50, 57, 64, 76, 85, 92]
    # 1 / (1 + 10^(−D/400)) for D = 0, 50, … 400: .5, .5715, .6401, .7597, .8490, .9091
    curve = [int((rows[d].curve_higher * 100).quantize(Decimal(1), rounding="ROUND_HALF_UP")) for d in diffs]
    assert curve == [50, 57, 64, 76, 85, 91]


@given(rating=st.integers(0, 3500), opponent=st.integers(0, 3500), k=st.integers(1, 40))
def test_a_win_is_worth_exactly_k_more_than_a_loss(rating: int, opponent: int, k: int) -> None:
    o = outcomes(one_game(rating, opponent, k))
    # K × (1 − E) − K × (0 − E) = K, in hundredths.
    assert o["win"].table_x100 - o["loss"].table_x100 == 100 * k
    assert o["win"].change >= o["draw"].change >= o["loss"].change


# --- Input parsing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "score"), [("1", WIN), ("0.5", DRAW), ("½", DRAW), ("=", DRAW), ("1/2", DRAW), ("0", LOSS)]
)
def test_scores_are_read_in_the_usual_spellings(text: str, score: int) -> None:
    assert parse_score(text) == score


def test_a_bad_game_is_refused_in_one_sentence() -> None:
    assert parse_game("1600:0.5") == Game(1600, DRAW)
    with pytest.raises(ConfigError) as exc:
        parse_game("1600:x")
    assert str(exc.value) == "--game '1600:x': the score must be 1, 0.5 (or ½, =) or 0, not 'x'"
    with pytest.raises(ConfigError, match="write the game as OPPONENT:SCORE"):
        parse_game("1600")


def test_targets_take_either_minus_sign() -> None:
    assert (parse_target("+10"), parse_target("-5"), parse_target("−5"), parse_target("7")) == (10, -5, -5, 7)
    with pytest.raises(ConfigError):
        parse_target("ten")


def _ratingdb_imports(module: str) -> set[str]:
    """What a module of ratingdb.calculator imports, read from its source (nothing is imported)."""
    path = Path(calculator.__file__).with_name(f"{module}.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    assert not {m for m in imported if m.split(".")[0] in ("sqlalchemy", "typer", "rich", "click")}
    return {m for m in imported if m.startswith("ratingdb")}


def test_the_calculator_imports_no_database_or_cli_code() -> None:
    assert _ratingdb_imports("elo") == {"ratingdb.errors", "ratingdb.rating"}
    assert _ratingdb_imports("glicko2") == {"ratingdb.errors", "ratingdb.rating", "ratingdb.rating.glicko2"}


def test_explaining_a_calculation_reads_the_calculation_and_computes_nothing_new() -> None:
    # The text modules write out what the computing modules hold: they import those and the rules'
    # constants, never the errors (a request that makes no sense is refused while computing).
    assert _ratingdb_imports("elo_text") == {"ratingdb.calculator.elo", "ratingdb.rating"}
    assert _ratingdb_imports("glicko2_text") == {"ratingdb.calculator.glicko2", "ratingdb.rating.glicko2"}
