"""The batch path (BatchRater) against the scalar rules (rating_change): equal, game for game."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from ratingdb.rating import RULE_SETS, BatchRater, Period, RuleSet, rating_change, rule_set_for
from ratingdb.rating.batch import Side
from ratingdb.rating.change import RatedGame

STANDARD_2025_10 = rule_set_for("standard", Period(2025, 10))

# Ratings around every boundary the rules have: the floor, the 2650 exemption, |D| 400 and 735/736.
ratings = st.one_of(
    st.integers(1000, 3000),
    st.sampled_from([1400, 2264, 2649, 2650, 2651, 2700, 2736, 2737]),
)
rule_sets = st.one_of(st.sampled_from(RULE_SETS), st.sampled_from(RULE_SETS).map(RuleSet.without_cap))


@st.composite
def periods(draw: st.DrawFn) -> tuple[int, int, list[Side], RuleSet]:
    """A random period of one player: rating, K, games in up to four events (own rating per event), rules."""
    rating = draw(ratings)
    k = draw(st.one_of(st.sampled_from([10, 20, 40]), st.integers(0, 60)))
    own_by_event = draw(st.lists(st.one_of(st.just(rating), ratings), min_size=4, max_size=4))
    games = draw(
        st.lists(
            st.tuples(st.integers(0, 3), ratings, st.sampled_from([0, 50, 100])),
            max_size=60,  # past 35 games K 20 meets the 700 rule; past 17 K 40 does
        )
    )
    sides = [
        (game_id, event, 1000 + game_id, own_by_event[event], opponent, score)
        for game_id, (event, opponent, score) in enumerate(games, start=1)
    ]
    return rating, k, sides, draw(rule_sets)


@settings(max_examples=400)
@given(periods())
def test_the_batch_path_gives_the_scalar_change_for_any_period(
    period: tuple[int, int, list[Side], RuleSet],
) -> None:
    rating, k, sides, rules = period
    scalar = rating_change(
        rating, k, [RatedGame(own, opp, score, event) for _, event, _, own, opp, score in sides], rules
    )
    batch = BatchRater(rules).rate(rating, k, sides)
    assert (batch.k, batch.n, batch.sum_dr, batch.k_sum_dr, batch.change, batch.new_rating) == (
        scalar.k,
        scalar.n,
        scalar.sum_dr,
        scalar.k_sum_dr,
        scalar.change,
        scalar.new_rating,
    )
    assert batch.ds == [line.d for line in scalar.games]
    assert batch.pds == [line.pd for line in scalar.games]
    assert batch.score == sum(line.score for line in scalar.games)
    assert batch.events == [[e.event, e.n, e.score, e.sum_dr, e.ro, e.rc_sum] for e in scalar.events]


def test_the_2813_player_loses_three_points_through_the_batch_path() -> None:
    # Spec §11: 2813, K 10, wins vs 1787, 2025, 2310, 2400, draw vs 2505, real differences (2650+):
    # PD 1.00, 1.00, .96, .93, .86 → Σ dR = 0 + 0 + .04 + .07 − .36 = −.25; × 10 = −2.50 → −3.
    opponents = [(1787, 100), (2025, 100), (2310, 100), (2400, 100), (2505, 50)]
    sides = [(i, 1, 100 + i, 2813, opp, score) for i, (opp, score) in enumerate(opponents)]
    result = BatchRater(STANDARD_2025_10).rate(2813, 10, sides)
    assert (result.sum_dr, result.k_sum_dr, result.change, result.new_rating) == (-25, -250, -3, 2810)
    assert result.ds == [1026, 788, 503, 413, 308]
    assert result.pds == [100, 100, 96, 93, 86]


def test_a_player_below_2650_is_capped_at_400_in_the_batch_path() -> None:
    # Spec §4: the 2400 player against 2813 uses D = −400 → L = 1 − .92 = .08; a loss gives −.08 × 10.
    result = BatchRater(STANDARD_2025_10).rate(2400, 10, [(1, 1, 2, 2400, 2813, 0)])
    assert (result.ds, result.pds, result.k_sum_dr, result.change) == ([-400], [8], -80, -1)


def test_the_700_rule_cuts_k_in_the_batch_path() -> None:
    # Spec §5: K 20 with 39 games → 17 (17 × 39 = 663 ≤ 700). 39 draws at D 0: Σ dR = 0, change 0.
    sides = [(i, 1 + i // 9, 500 + i, 2054, 2054, 50) for i in range(39)]
    result = BatchRater(STANDARD_2025_10).rate(2054, 20, sides)
    assert (result.k, result.n, result.change) == (17, 39, 0)
    assert [e[1] for e in result.events] == [9, 9, 9, 9, 3]
