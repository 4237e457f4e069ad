"""Tables 8.1.2 and 8.1.1 and the exact rounding rules (§8.3.4), checked against the spec's values."""

from __future__ import annotations

import pytest

from ratingdb.rating import (
    RulesError,
    dp_for_fraction,
    expected_score,
    expected_score_logistic,
    round_fraction_to_hundredths,
    round_half_away_from_zero,
)


@pytest.mark.parametrize(
    ("d", "pd"),
    [
        (0, 50),
        (3, 50),  # first row: |D| 0–3 → .50
        (4, 51),  # second row starts at 4
        (92, 63),  # 91 < 92 ≤ 98
        (207, 77),  # 206 < 207 ≤ 215
        (400, 92),  # the spec: at D = 400 the table gives .92
        (413, 93),  # 411 < 413 ≤ 432
        (500, 96),  # 484 < 500 ≤ 517
        (735, 99),  # last row
        (736, 100),  # |D| > 735 → 1.00
        (1026, 100),
    ],
)
def test_the_h_column_of_table_8_1_2_is_read_by_upper_bounds(d: int, pd: int) -> None:
    assert expected_score(d) == pd


@pytest.mark.parametrize(("d", "pd"), [(-4, 49), (-345, 11), (-400, 8), (-413, 7), (-736, 0)])
def test_a_lower_rated_player_reads_one_minus_h(d: int, pd: int) -> None:
    # L = 1 − H(|D|): −345 → 1 − .89 = .11; −400 → 1 − .92 = .08.
    assert expected_score(d) == pd


def test_the_logistic_curve_is_close_to_but_not_the_table() -> None:
    # 1 / (1 + 10^(−400/400)) = 1 / 1.1 = 0.90909…
    assert expected_score_logistic(400) == pytest.approx(1 / 1.1)
    assert expected_score_logistic(0) == 0.5
    assert expected_score(400) == 92


@pytest.mark.parametrize(
    ("p", "dp"),
    [(100, 800), (99, 677), (57, 50), (54, 29), (51, 7), (50, 0), (49, -7), (43, -50), (14, -309), (0, -800)],
)
def test_table_8_1_1_gives_dp_and_mirrors_below_one_half(p: int, dp: int) -> None:
    assert dp_for_fraction(p) == dp


@pytest.mark.parametrize("p", [-1, 101])
def test_a_fraction_outside_zero_to_one_is_refused(p: int) -> None:
    with pytest.raises(RulesError, match="between 0 and 100"):
        dp_for_fraction(p)


@pytest.mark.parametrize(
    ("numerator", "denominator", "rounded"),
    [
        (-250, 100, -3),  # −2.50 → −3 (the 2813 player's period)
        (9248, 100, 92),  # +92.48 → +92
        (-2250, 100, -23),  # −22.50 → −23
        (250, 100, 3),
        (249, 100, 2),
        (-249, 100, -2),
        (0, 100, 0),
        (7, 2, 4),  # 3.5 → 4
        (7, -2, -4),  # a negative denominator is the same fraction −3.5
        (13457, 7, 1922),  # 1922.43 → 1922 (the initial-rating example)
    ],
)
def test_rounding_is_half_away_from_zero(numerator: int, denominator: int, rounded: int) -> None:
    assert round_half_away_from_zero(numerator, denominator) == rounded


def test_pythons_round_would_be_wrong_for_minus_two_and_a_half() -> None:
    # Why the rules never call round(): it rounds half to even.
    assert round(-2.5) == -2
    assert round_half_away_from_zero(-5, 2) == -3


def test_rounding_a_fraction_with_denominator_zero_is_refused() -> None:
    with pytest.raises(RulesError):
        round_half_away_from_zero(1, 0)


@pytest.mark.parametrize(
    ("numerator", "denominator", "hundredths"),
    [(4, 7, 57), (1, 200, 1), (1, 201, 0), (1, 1, 100), (0, 5, 0), (2, 3, 67)],
)
def test_p_is_rounded_to_the_hundredth_with_half_a_hundredth_going_up(
    numerator: int, denominator: int, hundredths: int
) -> None:
    # 4/7 = .5714 → .57; 1/200 = .005 → .01; 1/201 = .00497 → .00; 2/3 = .667 → .67
    assert round_fraction_to_hundredths(numerator, denominator) == hundredths
