"""Hypothesis properties of the rules: symmetry, monotonicity, order independence and bounds (§8)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from random import Random

from hypothesis import assume, given
from hypothesis import strategies as st

from ratingdb.rating import (
    MAX_K_TIMES_GAMES,
    RULE_SETS,
    Period,
    PoolGame,
    RatedGame,
    RuleSet,
    capped_difference,
    closing_date,
    expected_score,
    initial_rating,
    k_after_700_rule,
    period_for_event,
    rating_change,
    round_half_away_from_zero,
    rule_set_for,
)

# Real ratings stay well below 3050. Up to there the 2650 exemption never meets a difference
# beyond −400 for the exempt player, which the monotonicity property relies on (see below).
ratings = st.integers(min_value=1000, max_value=3050)
scores = st.sampled_from([0, 50, 100])
rule_sets = st.sampled_from(RULE_SETS)
# The 2022–2024 sets cap one game per tournament, and only for the higher-rated player (FIDE 2022), so
# per-game symmetry and "splitting into events changes nothing" hold only for the sets capping per game.
per_game_rule_sets = st.sampled_from([rules for rules in RULE_SETS if not rules.one_upgrade_per_tournament])
k_values = st.sampled_from([10, 20, 40]) | st.integers(min_value=1, max_value=60)
games = st.builds(RatedGame, ratings, ratings, scores, st.integers(min_value=1, max_value=5))
game_lists = st.lists(games, max_size=60)


def _exempt(rating: int, rules: RuleSet) -> bool:
    return rules.cap_exempt_from is not None and rating >= rules.cap_exempt_from


@given(ratings, ratings, per_game_rule_sets)
def test_both_sides_expected_scores_sum_to_one_when_neither_or_both_are_capped(
    a: int, b: int, rules: RuleSet
) -> None:
    assume(_exempt(a, rules) == _exempt(b, rules))
    assert (
        expected_score(capped_difference(a, b, rules)) + expected_score(capped_difference(b, a, rules)) == 100
    )


@given(st.integers(min_value=-2000, max_value=2000))
def test_the_table_is_symmetric_for_every_difference(d: int) -> None:
    assert expected_score(d) + expected_score(-d) == 100


@given(ratings, ratings, ratings, rule_sets)
def test_expected_score_never_decreases_as_own_rating_rises(
    own: int, higher: int, opponent: int, rules: RuleSet
) -> None:
    # Only within realistic ratings: an exempt 2650 player against a 3100 opponent would use −450
    # (.06) where a capped 2649 player uses −400 (.08). No such opponent exists below 3050.
    low, high = sorted((own, higher))
    assert expected_score(capped_difference(low, opponent, rules)) <= expected_score(
        capped_difference(high, opponent, rules)
    )


@given(ratings, ratings, per_game_rule_sets)
def test_the_cap_is_honoured_for_every_player_it_applies_to(own: int, opponent: int, rules: RuleSet) -> None:
    d = capped_difference(own, opponent, rules)
    if rules.cap is not None and not _exempt(own, rules):
        assert abs(d) <= rules.cap
    else:
        assert d == own - opponent


@given(ratings, k_values, game_lists)
def test_one_upgrade_caps_at_most_one_game_per_event_the_greatest_difference_and_never_the_lower_side(
    rating: int, k: int, played: list[RatedGame]
) -> None:
    rules = rule_set_for("standard", Period(2023, 6))
    result = rating_change(rating, k, played, rules)
    capped: dict[object, list[int]] = {}
    for game, line in zip(played, result.games, strict=True):
        real = game.own_rating - game.opponent_rating
        if line.d != real:
            assert line.d == 400 < real  # only the higher-rated side, counted as 400
            capped.setdefault(game.event, []).append(real)
    for event, differences in capped.items():
        assert len(differences) == 1
        assert differences[0] == max(g.own_rating - g.opponent_rating for g in played if g.event == event)


@given(ratings, k_values, game_lists, rule_sets, st.randoms(use_true_random=False))
def test_the_period_change_does_not_depend_on_game_order(
    rating: int, k: int, played: list[RatedGame], rules: RuleSet, random: Random
) -> None:
    shuffled = list(played)
    random.shuffle(shuffled)
    first, second = rating_change(rating, k, played, rules), rating_change(rating, k, shuffled, rules)
    assert (first.k, first.sum_dr, first.k_sum_dr, first.change) == (
        second.k,
        second.sum_dr,
        second.k_sum_dr,
        second.change,
    )


@given(ratings, k_values, game_lists, rule_sets)
def test_the_unrounded_change_is_at_most_k_times_n(
    rating: int, k: int, played: list[RatedGame], rules: RuleSet
) -> None:
    result = rating_change(rating, k, played, rules)
    assert abs(result.k_sum_dr) <= 100 * result.k * result.n
    assert abs(result.change - result.k_sum_dr / 100) <= 0.5
    assert sum(event.k_sum_dr for event in result.events) == result.k_sum_dr


@given(ratings, k_values, game_lists, per_game_rule_sets)
def test_how_games_are_split_into_events_does_not_change_the_result(
    rating: int, k: int, played: list[RatedGame], rules: RuleSet
) -> None:
    merged = [RatedGame(g.own_rating, g.opponent_rating, g.score, "one") for g in played]
    assert rating_change(rating, k, played, rules).change == rating_change(rating, k, merged, rules).change


@given(ratings, k_values, game_lists)
def test_the_opponents_side_of_the_same_games_changes_by_exactly_the_opposite_amount(
    rating: int, k: int, played: list[RatedGame]
) -> None:
    # With the cap for every player (standard 2024-03) each game is zero-sum: dR(opp) = −dR(own),
    # so the mirrored period has −K × Σ dR and, rounding half away from zero, exactly −change.
    rules = rule_set_for("standard", Period(2024, 3))
    mirrored = [RatedGame(g.opponent_rating, g.own_rating, 100 - g.score, g.event) for g in played]
    own, other = rating_change(rating, k, played, rules), rating_change(rating, k, mirrored, rules)
    assert other.k_sum_dr == -own.k_sum_dr
    assert other.change == -own.change


@given(st.integers(min_value=0, max_value=100), st.integers(min_value=0, max_value=1000))
def test_k_times_n_is_at_most_700_after_the_700_rule(k: int, n: int) -> None:
    reduced = k_after_700_rule(k, n)
    assert reduced * n <= MAX_K_TIMES_GAMES or reduced == k
    assert reduced <= k
    if reduced < k:
        # The largest K that keeps K × n within 700.
        assert reduced * n <= MAX_K_TIMES_GAMES < (reduced + 1) * n


@given(st.integers(min_value=-(10**9), max_value=10**9), st.integers(min_value=1, max_value=10**4))
def test_rounding_is_symmetric_and_matches_decimal_half_up(numerator: int, denominator: int) -> None:
    rounded = round_half_away_from_zero(numerator, denominator)
    assert round_half_away_from_zero(-numerator, denominator) == -rounded
    # Decimal's ROUND_HALF_UP rounds ties away from zero, independently of our integer formula.
    exact = Decimal(numerator) / Decimal(denominator)
    assert rounded == int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


@given(
    st.integers(min_value=1900, max_value=2200),
    st.integers(min_value=1, max_value=12),
    st.integers(-600, 600),
)
def test_periods_round_trip_through_text_and_shifts(year: int, month: int, months: int) -> None:
    period = Period(year, month)
    assert Period.parse(str(period)) == period
    assert period.shift(months).shift(-months) == period
    assert period.shift(months).months_since(period) == months


@given(
    st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 12, 31)), st.integers(min_value=0, max_value=20)
)
def test_an_event_goes_to_the_first_list_whose_closing_date_is_on_or_after_its_end(
    end: date, closing_days: int
) -> None:
    period = period_for_event(end, closing_days=closing_days)
    assert closing_date(period.published_list_date, closing_days) >= end
    assert closing_date(period.first_day, closing_days) < end
    assert end - timedelta(days=31) < period.published_list_date


@given(
    st.lists(
        st.builds(
            PoolGame,
            ratings,
            scores,
            st.sampled_from([Period(2024, 1), Period(2025, 5), Period(2025, 11)]),
            st.integers(min_value=1, max_value=4),
            st.tuples(st.integers(min_value=0, max_value=10)),
        ),
        max_size=30,
    )
)
def test_a_published_initial_rating_lies_between_1400_and_2200(pool: list[PoolGame]) -> None:
    result = initial_rating(pool, Period(2025, 11))
    assert (result.rating is not None) == (result.status == "rated")
    if result.rating is not None:
        assert 1400 <= result.rating <= 2200
        assert result.n >= 5
