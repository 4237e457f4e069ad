"""Initial ratings from a pool (§7.1.4, §8.2): the FIDE example 1922 and the pool's edge rules."""

from __future__ import annotations

from fractions import Fraction

import pytest

from ratingdb.rating import DRAW, LOSS, WIN, Period, PoolGame, RulesError, initial_rating

CLOSE = Period(2025, 11)


def _pool(
    results: list[tuple[int, int]], event: object = "e", period: Period = CLOSE, order: int = 0
) -> list[PoolGame]:
    return [PoolGame(opponent, score, period, event, (order,)) for opponent, score in results]


FIDE_EXAMPLE = [(1902, DRAW), (1877, DRAW), (1884, WIN), (2012, LOSS), (1832, WIN)]


def test_the_fide_example_gives_1922() -> None:
    result = initial_rating(_pool(FIDE_EXAMPLE), CLOSE)
    # Ra = (1902 + 1877 + 1884 + 2012 + 1832 + 2 × 1800) / 7 = 13107 / 7 = 1872.43
    assert result.opponent_sum == 9507
    assert result.ra == Fraction(13107, 7)
    assert result.ra_rounded == Fraction(187243, 100)
    # p = (3 + 1) / 7 = .571 → .57 → dp 50; Ru = 1872.43 + 50 = 1922.43 → 1922
    assert (result.n, result.wins_x100, result.p, result.dp) == (5, 300, 57, 50)
    assert result.unrounded == Fraction(13107, 7) + 50
    assert (result.status, result.rating, result.games_needed) == ("rated", 1922, 0)


def test_four_games_are_too_few_and_say_how_many_are_missing() -> None:
    result = initial_rating(_pool(FIDE_EXAMPLE[:4]), CLOSE)
    assert (result.status, result.rating, result.games_needed, result.n) == ("too_few_games", None, 1, 4)
    assert result.unrounded is None


def test_an_empty_pool_needs_five_games() -> None:
    result = initial_rating([], CLOSE)
    assert (result.status, result.games_needed, result.p) == ("too_few_games", 5, 50)
    assert result.ra == 1800  # (0 + 2 × 1800) / 2


def test_an_initial_rating_is_capped_at_2200() -> None:
    # Ra = (5 × 2300 + 3600) / 7 = 15100 / 7 = 2157.14; p = 6/7 = .857 → .86 → dp 309; 2466.14 → 2200
    result = initial_rating(_pool([(2300, WIN)] * 5), CLOSE)
    assert (result.p, result.dp) == (86, 309)
    assert (result.status, result.rating) == ("rated", 2200)


def test_an_initial_rating_below_1400_is_not_published() -> None:
    # Ra = (5 × 1400 + 3600) / 7 = 10600 / 7 = 1514.29; p = (0.5 + 1) / 7 = .214 → .21 → dp −230
    # Ru = 1514.29 − 230 = 1284.29 → 1284 < 1400
    result = initial_rating(_pool([(1400, LOSS)] * 4 + [(1400, DRAW)]), CLOSE)
    assert (result.p, result.dp) == (21, -230)
    assert result.unrounded == Fraction(10600, 7) - 230
    assert (result.status, result.rating) == ("below_floor", None)


def test_five_losses_in_the_first_event_leave_an_empty_pool() -> None:
    result = initial_rating(_pool([(1400, LOSS)] * 5), CLOSE)
    assert result.dropped_first_event
    assert (result.status, result.n, result.games_needed) == ("too_few_games", 0, 5)


def test_a_zero_score_in_the_first_event_is_disregarded() -> None:
    first = _pool([(1900, LOSS)] * 3, event="first", order=1)
    later = _pool(FIDE_EXAMPLE, event="later", order=2)
    # The pool is given later-first: the first event is found by event_order, not by position.
    result = initial_rating(later + first, CLOSE)
    assert result.dropped_first_event
    assert (result.n, result.rating) == (5, 1922)


def test_a_zero_score_in_a_later_event_counts() -> None:
    first = _pool(FIDE_EXAMPLE, event="first", order=1)
    later = _pool([(1900, LOSS)] * 3, event="later", order=2)
    result = initial_rating(first + later, CLOSE)
    assert not result.dropped_first_event
    assert result.n == 8


def test_the_first_event_rule_can_be_switched_off() -> None:
    first = _pool([(1900, LOSS)] * 3, event="first", order=1)
    result = initial_rating(first, CLOSE, first_event_rule=False)
    assert (result.dropped_first_event, result.n) == (False, 3)


def test_results_older_than_26_months_drop_out_of_the_pool() -> None:
    # Closing 2025-11: the window is the 26 periods 2023-10 … 2025-11.
    kept = _pool([(1900, WIN)], event="a", period=Period(2023, 10), order=1)
    dropped = _pool([(1900, WIN)], event="b", period=Period(2023, 9), order=0)
    recent = _pool(FIDE_EXAMPLE, event="c", order=2)
    result = initial_rating(dropped + kept + recent, CLOSE)
    assert result.dropped_old_games == 1
    assert result.n == 6
    assert Period(2023, 9) not in {game.period for game in result.games}


def test_a_pool_game_from_a_later_period_is_refused() -> None:
    with pytest.raises(RulesError, match="cannot count in the close of 2025-11"):
        initial_rating(_pool(FIDE_EXAMPLE, period=Period(2025, 12)), CLOSE)


def test_a_first_event_that_left_the_window_still_decides_which_event_is_first() -> None:
    # Issue 20. 1/1 in 2024-03 (the first event), 0/2 in 2024-04, ½ ½ ½ in 2026-05, all against 1800.
    # Closing 2026-05 the window is 2024-04 … 2026-05: the first event drops out by age, and 2024-04,
    # not being the first event, counts despite its zero. Ra = (5 × 1800 + 3600) / 7 = 1800,
    # p = (1.5 + 1) / 7 = .357 → .36 → dp −102, Ru = 1698.
    close = Period(2026, 5)
    first = _pool([(1800, WIN)], event="march", period=Period(2024, 3), order=1)
    zero = _pool([(1800, LOSS)] * 2, event="april", period=Period(2024, 4), order=2)
    draws = _pool([(1800, DRAW)] * 3, event="may", period=close, order=3)
    result = initial_rating(first + zero + draws, close)
    assert (result.dropped_first_event, result.dropped_old_games) == (False, 1)
    assert (result.n, result.wins_x100, result.p, result.dp, result.rating) == (5, 150, 36, -102, 1698)
    # Given only the games inside the window, the April zero would be taken for the first event.
    assert initial_rating(zero + draws, close).dropped_first_event
