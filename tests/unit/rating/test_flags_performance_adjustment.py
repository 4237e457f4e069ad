"""The floor and flags (§7.2.1, §7.2.2), performance ratings (§1.4.8) and one-off adjustments."""

from __future__ import annotations

from fractions import Fraction

import pytest

from ratingdb.rating import (
    FIDE_2024_03,
    METHOD_LINEAR,
    METHOD_TABLE,
    Adjustment,
    Period,
    RulesError,
    activity_flag,
    adjust_rating,
    below_floor,
    is_active,
    performance_linear,
    performance_rating,
)


def test_a_rating_below_1400_is_below_the_floor_and_1400_is_not() -> None:
    assert below_floor(1399)
    assert not below_floor(1400)


def test_a_player_is_active_with_a_rated_game_in_the_12_periods_ending_with_the_close() -> None:
    assert is_active(Period(2025, 10), Period(2025, 10))
    assert is_active(Period(2024, 11), Period(2025, 10))  # 11 months back: inside the 12 periods
    assert not is_active(Period(2024, 10), Period(2025, 10))  # 12 months back: outside
    assert not is_active(None, Period(2025, 10))


@pytest.mark.parametrize(
    ("female", "active", "flag"),
    [(False, True, ""), (False, False, "i"), (True, True, "w"), (True, False, "wi")],
)
def test_the_activity_flag_matches_fides_list_files(female: bool, active: bool, flag: str) -> None:
    assert activity_flag(female=female, active=active) == flag


def test_six_and_a_half_of_twelve_against_2789_is_a_2818_performance() -> None:
    # Ra 2789; 6.5 / 12 = 54.2 % → 54 % → dp 29; Rp = 2789 + 29 = 2818
    opponents = [2789 + delta for delta in (-100, 100, -50, 50, 0, 0, 10, -10, 20, -20, 30, -30)]
    result = performance_rating(opponents, 650)
    assert (result.rating, result.ra, result.percentage, result.dp) == (2818, 2789, 54, 29)
    assert result.method == METHOD_TABLE


def test_a_perfect_score_performs_800_above_the_average() -> None:
    result = performance_rating([2000, 2100], 200)
    assert (result.rating, result.rule) == (2850, "100 % score: Ra + 800")


def test_a_zero_score_performs_800_below_the_average() -> None:
    result = performance_rating([2000, 2100], 0)
    assert (result.rating, result.rule) == (1250, "0 % score: Ra − 800")


def test_the_average_opponent_rating_rounds_half_up() -> None:
    assert performance_rating([2000, 2001], 100).ra == 2001  # 2000.5 → 2001


def test_an_impossible_score_or_no_games_is_refused() -> None:
    with pytest.raises(RulesError):
        performance_rating([2000], 150)
    with pytest.raises(RulesError, match="at least one game"):
        performance_rating([], 0)


def test_the_linear_approximation_is_labelled_and_differs_from_the_table() -> None:
    # 5 wins, 3 draws, 4 losses of 12 (6.5 points): 400 × (5 − 4) / 12 = 33.3 → 33
    result = performance_linear([2789] * 12, wins=5, losses=4)
    assert (result.rating, result.dp, result.percentage) == (2822, 33, 54)
    assert result.method == METHOD_LINEAR
    assert result.rule == "Ra + 400 × (5 − 4) / 12"


def test_the_linear_approximation_uses_800_for_a_perfect_score_and_says_so() -> None:
    result = performance_linear([2000] * 5, wins=5, losses=0)
    assert result.rating == 2800
    assert "800" in result.rule
    assert performance_linear([2000] * 5, wins=0, losses=5).rating == 1200


def test_the_linear_approximation_refuses_more_results_than_games() -> None:
    with pytest.raises(RulesError):
        performance_linear([2000] * 3, wins=2, losses=2)


@pytest.mark.parametrize(
    ("rating", "adjusted"),
    [
        (1600, 1760),  # 1600 + 0.4 × 400 = 1760
        (1000, 1400),  # 1000 + 0.4 × 1000 = 1400
        (1999, 1999),  # 0.4 × 1 = 0.4 → 0
        (1001, 1401),  # 0.4 × 999 = 399.6 → 400
        (2000, 2000),
        (2500, 2500),
    ],
)
def test_the_march_2024_adjustment_raises_ratings_below_2000(rating: int, adjusted: int) -> None:
    assert adjust_rating(rating, FIDE_2024_03) == adjusted


def test_an_adjustment_can_round_down_or_up() -> None:
    down = Adjustment("down", 2000, Fraction(2, 5), "down")
    up = Adjustment("up", 2000, Fraction(2, 5), "up")
    assert adjust_rating(1001, down) == 1400  # 399.6 → 399
    assert adjust_rating(1999, up) == 2000  # 0.4 → 1
