"""Rule-set options FIDE's own sets do not use: the logistic curve, other roundings, a fixed first rating."""

from __future__ import annotations

import dataclasses

import pytest

from ratingdb.rating import (
    LOSS,
    WIN,
    BatchRater,
    InitialMethod,
    Period,
    PoolGame,
    RatedGame,
    initial_rating,
    rating_change,
)
from ratingdb.rating import rule_set_for as fide

TABLE = fide("standard", Period(2025, 9))
LOGISTIC = dataclasses.replace(TABLE, name="logistic", expected="logistic")


def test_the_logistic_curve_gives_pd_to_the_hundredth() -> None:
    # A loss at D = +400, K 40: the curve gives 1/(1 + 10^−1) = .909 → .91, so −.91 × 40 = −36.4 → −36;
    # table 8.1.2 gives .92: −36.8 → −37.
    game = [RatedGame(2000, 1600, LOSS, "e")]
    curve, table = rating_change(2000, 40, game, LOGISTIC), rating_change(2000, 40, game, TABLE)
    assert (curve.k_sum_dr, curve.change, table.change) == (-3640, -36, -37)
    # The close's lookup table gives the same: from the curve, out to where PD reaches 1.00 (D 920).
    batch = BatchRater(LOGISTIC)
    assert (batch.span, batch.rate(2000, 40, [(1, 1, 2, 2000, 1600, LOSS)]).change) == (920, -36)


@pytest.mark.parametrize(("rounding", "change"), [("half_away", -17), ("down", -17), ("up", -16)])
def test_a_rule_set_may_round_the_change_down_or_up(rounding: str, change: int) -> None:
    # A loss at D +400 (PD .92) and a win at D 0 (PD .50): −.92 + .50 = −.42; × 40 = −16.8.
    rules = dataclasses.replace(TABLE, rounding=rounding)
    games = [RatedGame(2000, 1600, LOSS, "e"), RatedGame(2000, 2000, WIN, "e")]
    sides = [(1, 1, 2, 2000, 1600, LOSS), (2, 1, 3, 2000, 2000, WIN)]
    assert rating_change(2000, 40, games, rules).change == change
    assert BatchRater(rules).rate(2000, 40, sides).change == change


def test_a_fixed_start_rating_comes_once_the_pool_holds_enough_games() -> None:
    method = InitialMethod("fixed", min_games=5, window_months=12, max_rating=None, start_rating=1000)
    pool = [PoolGame(1500, WIN, Period(2025, 9), "a")] * 4
    waiting = initial_rating(pool, Period(2025, 9), method=method, floor=800)
    rated = initial_rating(
        [*pool, PoolGame(900, LOSS, Period(2025, 9), "a")], Period(2025, 9), method=method, floor=800
    )
    assert (waiting.status, waiting.games_needed) == ("too_few_games", 1)
    assert (rated.status, rated.rating) == ("rated", 1000)
