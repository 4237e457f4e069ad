"""The rating change of a rated player for a period (§8.3.2–§8.3.4): FIDE's worked checks."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ratingdb.rating import (
    DRAW,
    LOSS,
    WIN,
    Period,
    RatedGame,
    RulesError,
    k_after_700_rule,
    rating_change,
    rule_set_for,
)

RULES_NOW = rule_set_for("standard", Period(2025, 10))


@pytest.mark.parametrize(
    ("own", "opp", "score", "k", "k_dr"),
    [
        (2000, 2000, WIN, 10, 500),  # 10 × (1 − .50) = +5.00
        (2004, 2000, WIN, 10, 490),  # D 4 → .51: 10 × .49 = +4.90
        (2207, 2000, WIN, 10, 230),  # D 207 → .77: 10 × .23 = +2.30
        (2392, 2000, WIN, 10, 80),  # D 392 → .92: 10 × .08 = +0.80
        (1655, 2000, LOSS, 10, -110),  # D −345 → .11: 10 × −.11 = −1.10
        (1500, 2000, DRAW, 20, 840),  # D −500 capped −400 → .08: 20 × .42 = +8.40
        (2650, 2150, WIN, 10, 40),  # 2650 uses the real 500 → .96: +0.40
        (2649, 2149, WIN, 10, 80),  # capped at 400 → .92: +0.80
        (2700, 1964, WIN, 10, 0),  # D 736 → 1.00: +0.00
        (2700, 1900, LOSS, 10, -1000),  # D 800 → 1.00: 10 × −1 = −10.00
        (2200, 2700, LOSS, 20, -160),  # D −500 capped −400 → .08: 20 × −.08 = −1.60
        (2000, 2092, DRAW, 30, 390),  # D −92 → 1 − .63 = .37: 30 × .13 = +3.90
    ],
)
def test_single_games_match_fides_published_output(own: int, opp: int, score: int, k: int, k_dr: int) -> None:
    result = rating_change(own, k, [RatedGame(own, opp, score)], RULES_NOW)
    assert result.k_sum_dr == k_dr


def test_the_2650_game_is_asymmetric_since_october_2025() -> None:
    # The 2813 player: D 413 → .93, win → +0.07 × K.
    # The 2400 player: D −413 capped −400 → .08, loss → −0.08 × K.
    winner = rating_change(2813, 10, [RatedGame(2813, 2400, WIN)], RULES_NOW)
    loser = rating_change(2400, 10, [RatedGame(2400, 2813, LOSS)], RULES_NOW)
    assert (winner.games[0].d, winner.games[0].pd, winner.games[0].dr) == (413, 93, 7)
    assert (loser.games[0].d, loser.games[0].pd, loser.games[0].dr) == (-400, 8, -8)


def test_the_2813_players_period_rounds_minus_two_and_a_half_to_minus_three() -> None:
    games = [
        RatedGame(2813, 1787, WIN, "e"),  # D 1026 → 1.00, dR 0
        RatedGame(2813, 2025, WIN, "e"),  # D 788 → 1.00, dR 0
        RatedGame(2813, 2310, WIN, "e"),  # D 503 → .96, dR +.04
        RatedGame(2813, 2400, WIN, "e"),  # D 413 → .93, dR +.07
        RatedGame(2813, 2505, DRAW, "e"),  # D 308 → .86, dR −.36
    ]
    result = rating_change(2813, 10, games, RULES_NOW)
    # Σ dR = .04 + .07 − .36 = −.25; K × Σ dR = −2.50 → −3
    assert [line.dr for line in result.games] == [0, 0, 4, 7, -36]
    assert result.sum_dr == -25
    assert result.k_sum_dr == -250
    assert result.unrounded_change == Decimal("-2.50")
    assert result.change == -3
    assert result.new_rating == 2810


def test_the_2054_players_39_games_in_five_events_give_k_17_and_2146() -> None:
    # FIDE's figures: K 20 and 39 games → K 17, K × Σ dR = +92.48 → 2146. The individual games are not
    # in the spec, so these are built to the same totals: Σ dR must be 92.48 / 17 = 5.44.
    # 10 wins against 2054 (D 0 → .50, dR +.50 each = 5.00) + 1 win against 2014 (D 40 → .56, dR +.44)
    # + 28 draws against 2054 (dR 0) = 5.44 over 39 games.
    games = [RatedGame(2054, 2054, WIN, event) for event in (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)]
    games.append(RatedGame(2054, 2014, WIN, 5))
    for index in range(28):
        games.append(RatedGame(2054, 2054, DRAW, index % 5 + 1))
    result = rating_change(2054, 20, games, RULES_NOW)
    assert result.n == 39
    assert (result.k_base, result.k) == (20, 17)
    assert result.sum_dr == 544
    assert result.k_sum_dr == 9248  # 17 × 544 = 9248 → +92.48
    assert result.change == 92
    assert result.new_rating == 2146
    assert [event.event for event in result.events] == [1, 2, 3, 4, 5]
    assert sum(event.n for event in result.events) == 39
    assert sum(event.k_sum_dr for event in result.events) == 9248


def test_the_new_rating_builds_on_the_list_in_force_even_when_an_event_used_an_older_list() -> None:
    # 2505 on the 2025-11-01 list; an event that started 2025-10-31 used the October rating 2499.
    # Win against 2248: D 2499 − 2248 = 251 → .81, dR +.19; K 10 → +1.90 → +2 → 2505 + 2 = 2507.
    result = rating_change(2505, 10, [RatedGame(2499, 2248, WIN, "october-event")], RULES_NOW)
    assert result.k_sum_dr == 190
    assert result.new_rating == 2507
    assert result.events[0].ro == 2499


def test_rounding_happens_once_per_period_not_per_event() -> None:
    # Two events each worth +0.40 (a 2650 win over 2150: D 500 → .96, K 10 × .04).
    # Per event that would be 0 + 0; once for the period it is +0.80 → +1.
    games = [RatedGame(2650, 2150, WIN, "a"), RatedGame(2650, 2150, WIN, "b")]
    result = rating_change(2650, 10, games, RULES_NOW)
    assert [event.k_sum_dr for event in result.events] == [40, 40]
    assert result.change == 1


def test_event_sums_carry_ro_rc_and_scores() -> None:
    games = [
        RatedGame(2000, 1900, WIN, "x"),
        RatedGame(2000, 2101, DRAW, "x"),
        RatedGame(2010, 2000, LOSS, "y"),
    ]
    result = rating_change(2000, 20, games, RULES_NOW)
    first, second = result.events
    assert (first.n, first.score, first.ro, first.rc_sum) == (2, 150, 2000, 4001)
    assert first.rc == Decimal("2000.50")  # 4001 / 2
    # D 100 → .64, dR +.36; D −101 → .36, dR +.14: Σ .50, K 20 → 10.00
    assert (first.sum_dr, first.k_sum_dr) == (50, 1000)
    assert (second.event, second.ro, second.sum_dr) == ("y", 2010, -51)  # D 10 → .51, loss −.51


def test_a_period_without_games_changes_nothing() -> None:
    result = rating_change(2100, 20, [], RULES_NOW)
    assert (result.n, result.change, result.new_rating, result.events) == (0, 0, 2100, ())


def test_no_floor_is_applied_to_the_new_rating() -> None:
    games = [RatedGame(1400, 1800, LOSS)] * 5  # D −400 → .08 each, dR −.08; K 40 × −.40 = −16
    assert rating_change(1400, 40, games, RULES_NOW).new_rating == 1384


@pytest.mark.parametrize(
    ("k", "n", "reduced"),
    [(20, 39, 17), (40, 18, 38), (20, 35, 20), (40, 17, 40), (10, 70, 10), (10, 71, 9), (20, 0, 20)],
)
def test_the_700_rule_reduces_k_only_when_k_times_n_exceeds_700(k: int, n: int, reduced: int) -> None:
    # 20 × 39 = 780 > 700 → 700 // 39 = 17 (17 × 39 = 663); 40 × 18 = 720 → 38; 20 × 35 = 700 stays.
    assert k_after_700_rule(k, n) == reduced


def test_a_score_that_is_not_win_draw_or_loss_is_refused() -> None:
    with pytest.raises(RulesError, match="100 \\(win\\), 50 \\(draw\\) or 0 \\(loss\\)"):
        rating_change(2000, 20, [RatedGame(2000, 2000, 1)], RULES_NOW)
