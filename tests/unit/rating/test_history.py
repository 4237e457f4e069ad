"""FIDE's rule sets of 1 January 2022 to 29 February 2024, checked against FIDE's own figures."""

from __future__ import annotations

from datetime import date

from ratingdb.rating import (
    DRAW,
    LOSS,
    WIN,
    Period,
    PoolGame,
    RatedGame,
    initial_rating,
    k_factor,
    rating_change,
    rule_set_for,
)

RAPID_2022 = rule_set_for("rapid", Period(2022, 6))
RAPID_2023 = rule_set_for("rapid", Period(2023, 6))
STANDARD_2023 = rule_set_for("standard", Period(2023, 6))
STANDARD_2024 = rule_set_for("standard", Period(2024, 3))

# Spec §12 (data): Ro 2000, K 20, rapid, one tournament.
ONE_TOURNAMENT = [(1063, WIN), (1299, WIN), (1413, WIN), (1872, DRAW), (1851, LOSS), (1427, WIN), (1682, WIN)]


def _games(own: int, results: list[tuple[int, int]], event: object = "open") -> list[RatedGame]:
    return [RatedGame(own, opponent, score, event) for opponent, score in results]


def test_one_upgrade_per_tournament_caps_only_the_greatest_difference_as_fide_printed() -> None:
    # D: 937, 701, 587, 128, 149, 573, 318. Four exceed 400; only the 1063 game (937) counts as 400.
    # PD: .92, .99, .98, .67, .70, .98, .87 → dR +.08 +.01 +.02 −.17 −.70 +.02 +.13 = −.61;
    # K 20 → −12.20 → −12 (FIDE printed Σ dR −0.61 and K·Σ −12.20).
    result = rating_change(2000, 20, _games(2000, ONE_TOURNAMENT), RAPID_2022)
    assert [line.d for line in result.games] == [400, 701, 587, 128, 149, 573, 318]
    assert [line.pd for line in result.games] == [92, 99, 98, 67, 70, 98, 87]
    assert (result.sum_dr, result.k_sum_dr, result.change, result.new_rating) == (-61, -1220, -12, 1988)


def test_the_same_tournament_under_the_2024_rules_caps_all_four_games() -> None:
    # D 937, 701, 587, 573 all count as 400 (.92, +.08 each): +.32 −.17 −.70 +.13 = −.42; K 20 → −8.40 → −8.
    result = rating_change(2000, 20, _games(2000, ONE_TOURNAMENT), rule_set_for("rapid", Period(2024, 3)))
    assert (result.sum_dr, result.change) == (-42, -8)


def test_each_tournament_has_its_own_upgrade() -> None:
    # The same two games (D 500 and 450) in one event: only 500 is capped (.92 and .94: +.08 +.06);
    # in two events each is its own greatest and both are capped (+.08 +.08).
    one = rating_change(2000, 20, _games(2000, [(1500, WIN), (1550, WIN)]), STANDARD_2023)
    two = rating_change(
        2000, 20, _games(2000, [(1500, WIN)], "a") + _games(2000, [(1550, WIN)], "b"), STANDARD_2023
    )
    assert [line.d for line in one.games] == [400, 450]
    assert (one.sum_dr, two.sum_dr) == (14, 16)


def test_the_lower_rated_player_is_not_capped() -> None:
    # Spec §12 (data): Ro 1242, K 40, loss to 1750: D −508 → PD .04 → −1.6 → −2 (capped would be .08, −3.2).
    result = rating_change(1242, 40, _games(1242, [(1750, LOSS)]), STANDARD_2023)
    assert (result.games[0].d, result.games[0].pd, result.k_sum_dr, result.change) == (-508, 4, -160, -2)


def _pool(opponents_and_scores: list[tuple[int, int]]) -> list[PoolGame]:
    return [PoolGame(opponent, score, Period(2023, 6), "first") for opponent, score in opponents_and_scores]


def test_the_2022_initial_rating_is_ra_plus_20_per_half_point_above_50_percent() -> None:
    # Spec §12 (verified against FIDE's calculator): 3/5 against 2000s → Ra 2000, one half point above
    # 2.5 → +20 → 2020. (The 2024 method gives (10000 + 3600) / 7 + dp(4/7 = .57 → 50) = 1992.86 → 1993.)
    pool = _pool([(2000, WIN), (2000, WIN), (2000, WIN), (2000, LOSS), (2000, LOSS)])
    old = initial_rating(pool, Period(2023, 6), method=STANDARD_2023.initial, floor=STANDARD_2023.floor)
    new = initial_rating(pool, Period(2023, 6))
    assert (old.status, old.ra, old.dp, old.rating) == ("rated", 2000, 20, 2020)
    assert new.rating == 1993


def test_the_2022_initial_rating_below_50_percent_is_ra_plus_dp() -> None:
    # 2/5 against 1902, 1877, 1884, 2012, 1832: Ra = 9507 / 5 = 1901.4; p = .40 → dp −72 → 1829.4 → 1829.
    pool = _pool([(1902, DRAW), (1877, DRAW), (1884, WIN), (2012, LOSS), (1832, LOSS)])
    result = initial_rating(pool, Period(2023, 6), method=STANDARD_2023.initial, floor=STANDARD_2023.floor)
    assert (result.p, result.dp, result.rating) == (40, -72, 1829)


def test_a_2022_initial_rating_between_1000_and_1400_is_published() -> None:
    # 1/5 against 1300s: Ra 1300, p .20 → dp −240 → 1060 ≥ the 2022 floor of 1000.
    pool = _pool([(1300, WIN)] + [(1300, LOSS)] * 4)
    result = initial_rating(pool, Period(2023, 6), method=STANDARD_2023.initial, floor=STANDARD_2023.floor)
    assert (result.status, result.rating) == ("rated", 1060)


def test_rapid_k_is_20_for_everyone_until_september_2022_then_the_standard_k_rules() -> None:
    def k(rules_period: Period, list_date: date) -> int:
        rules = rule_set_for("rapid", rules_period)
        junior_with_12_games = {"reached_2400": False, "reached_2300": False, "birth_year": 2010}
        return k_factor(**junior_with_12_games, games_total=12, list_date=list_date, rules=rules.k_rules).k

    assert k(Period(2022, 9), date(2022, 9, 1)) == 20
    assert k(Period(2022, 10), date(2022, 10, 1)) == 40


def test_rapid_k_20_keeps_the_700_rule() -> None:
    # K 20 over 36 games: 20 × 36 = 720 > 700 → K = floor(700 / 36) = 19. Two wins and 34 draws against
    # equals (PD .50): Σ dR = 2 × .50 = 1.00 → 19 × 1.00 = +19.
    results = [(1500, WIN)] * 2 + [(1500, DRAW)] * 34
    result = rating_change(1500, 20, _games(1500, results), RAPID_2022)
    assert (result.k, result.k_sum_dr, result.new_rating) == (19, 1900, 1519)


def test_the_2022_sets_have_the_1000_floor_and_the_2024_sets_1400() -> None:
    assert (RAPID_2022.floor, RAPID_2023.floor, STANDARD_2023.floor, STANDARD_2024.floor) == (
        1000,
        1000,
        1000,
        1400,
    )
