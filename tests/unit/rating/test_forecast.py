"""Log-loss and Brier score of expected scores (ratingdb.rating.forecast), worked by hand."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from ratingdb.rating.forecast import Forecasts, band, brier, log_loss
from ratingdb.reports.forecasts import ALL_BANDS, score


def test_a_hand_worked_period_of_three_games() -> None:
    # A draw forecast at 0.5, a win forecast at 0.8, a loss forecast at 0.8:
    #   log-loss: −[0.5 ln 0.5 + 0.5 ln 0.5] = ln 2 = 0.693147; −ln 0.8 = 0.223144; −ln 0.2 = 1.609438
    #   Brier:    (0.5 − 0.5)² = 0;                 (0.8 − 1)² = 0.04;  (0.8 − 0)² = 0.64
    #   means:    (0.693147 + 0.223144 + 1.609438) / 3 = 0.841910;  (0 + 0.04 + 0.64) / 3 = 0.226667
    assert round(log_loss(0.5, 0.5), 6) == 0.693147 and brier(0.5, 0.5) == 0
    assert round(log_loss(0.8, 1), 6) == 0.223144 and round(brier(0.8, 1), 6) == 0.04
    assert round(log_loss(0.8, 0), 6) == 1.609438 and round(brier(0.8, 0), 6) == 0.64
    f = Forecasts()
    for p, s in ((0.5, 0.5), (0.8, 1.0), (0.8, 0.0)):
        f.add(p, s)
    assert f.games == 3
    assert f.mean_log_loss is not None and round(f.mean_log_loss, 6) == 0.841910
    assert f.mean_brier is not None and round(f.mean_brier, 6) == 0.226667
    assert Forecasts().mean_brier is None  # no games, no score


def test_games_are_scored_in_their_band_and_in_all_and_unforecast_games_are_left_out() -> None:
    # Players 1 (1850) and 2 (1750) meet twice, player 3 is unrated: its game has no forecast.
    ratings = {1: 1850, 2: 1750}

    def forecast(white: int, black: int) -> tuple[float, float] | None:
        if white not in ratings or black not in ratings:
            return None
        return (0.64 if white == 1 else 0.36), (ratings[white] + ratings[black]) / 2  # mean 1800

    found: dict[str, Forecasts] = {}
    score(found, [(1, 2, 1.0), (2, 1, 0.5), (3, 1, 0.0)], forecast)
    assert sorted(found) == ["1800–1999", ALL_BANDS] and found[ALL_BANDS].games == 2
    # (0.64 − 1)² = 0.1296, (0.36 − 0.5)² = 0.0196: mean 0.0746.
    assert round(found["1800–1999"].mean_brier or 0, 6) == 0.0746


def test_bands_are_200_points_wide() -> None:
    assert (band(1850), band(1999.5), band(2000), band(1400)) == (
        "1800–1999",
        "1800–1999",
        "2000–2199",
        "1400–1599",
    )


@given(st.floats(0.001, 0.999), st.sampled_from([0.0, 0.5, 1.0]))
def test_both_sides_of_a_game_score_alike(p: float, s: float) -> None:
    assert math.isclose(log_loss(p, s), log_loss(1 - p, 1 - s), rel_tol=1e-9)
    assert math.isclose(brier(p, s), brier(1 - p, 1 - s), rel_tol=1e-9, abs_tol=1e-15)
