"""Glicko (ratingdb.rating.glicko): Glickman's worked example of "The Glicko system", Step 1, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.rating import RuleFileError, RulesError, parse_rule_set
from ratingdb.rating.glicko import (
    LOSS,
    WIN,
    GlickoGame,
    GlickoParameters,
    GlickoRating,
    GlickoRuleSet,
    Q,
    c_from_periods,
    expected_score,
    g,
    onset_deviation,
    update,
)

PAPER_GAMES = [GlickoGame(1400, 30, WIN), GlickoGame(1550, 100, LOSS), GlickoGame(1700, 300, LOSS)]


def test_the_papers_example_gives_1464_and_rd_151_4() -> None:
    # "The Glicko system", the example: a 1500 with RD 200 (at the onset) beats a 1400 (RD 30), loses
    # to a 1550 (RD 100) and to a 1700 (RD 300). By hand, with the paper's rounded table:
    #   q = ln 10 / 400 = 0.0057565
    #   g(30) = 0.9955, g(100) = 0.9531, g(300) = 0.7242; E = 0.639, 0.432, 0.303
    #   d² = [0.0057565² × (0.9955² × 0.639 × 0.361 + 0.9531² × 0.432 × 0.568 + 0.7242² × 0.303 × 0.697)]⁻¹
    #      = [0.0057565² × 0.56294]⁻¹ = 53670.85, d = 231.67
    #   r′ = 1500 + 0.0057565 / (1/200² + 1/53670.85) × [0.9955 × 0.361 − 0.9531 × 0.432 − 0.7242 × 0.303]
    #      = 1500 + 131.93 × −0.2718 = 1464.14 → the paper's 1464
    #   RD′ = √((1/200² + 1/53670.85)⁻¹) = 151.39 → the paper's 151.4
    gs = [(0.9955, 0.639, 1), (0.9531, 0.432, 0), (0.7242, 0.303, 0)]
    d2 = 1 / (0.0057565**2 * sum(g_j * g_j * e * (1 - e) for g_j, e, _s in gs))
    assert round(d2, 2) == 53670.85 and round(math.sqrt(d2), 2) == 231.67
    precision = 1 / 200**2 + 1 / d2
    by_hand = 1500 + 0.0057565 / precision * sum(g_j * (s - e) for g_j, e, s in gs)
    assert round(by_hand, 2) == 1464.14 and round(math.sqrt(1 / precision), 2) == 151.39
    # The module, unrounded (E to full precision: 0.6395, 0.4318, 0.3028): 1464.11, RD 151.40.
    result = update(GlickoRating(1500, 200), PAPER_GAMES, GlickoParameters(), periods=0)
    assert round(result.after.rating) == 1464 and round(result.after.deviation, 1) == 151.4
    assert abs(result.after.rating - by_hand) < 0.05 and abs(result.after.deviation - 151.39) < 0.02
    assert [round(s.g, 4) for s in result.games] == [0.9955, 0.9531, 0.7242]
    assert [round(s.e, 3) for s in result.games] == [0.639, 0.432, 0.303]
    assert round(Q, 7) == 0.0057565


def test_step_1_grows_the_deviation_by_c_squared_t_up_to_the_maximum() -> None:
    # The paper's c: from a typical RD of 50 back to 350 in 100 periods, c = √((350² − 50²) / 100) = 34.64.
    assert round(c_from_periods(350, 50, 100), 2) == 34.64
    params = GlickoParameters(c=34.64)
    rd, limited = onset_deviation(50, params, periods=1)  # √(50² + 34.64²) = 60.83
    assert round(rd, 2) == 60.83 and not limited
    assert round(onset_deviation(340, params, periods=1)[0], 2) == 341.76  # √(340² + 34.64²), below 350
    assert onset_deviation(340, GlickoParameters(c=100), periods=1) == (350, True)  # √(340² + 100²) = 354.4
    idle = update(GlickoRating(1600, 50), [], params, periods=3)  # √(2500 + 3 × 1199.93) = √6099.8 = 78.10
    assert idle.after.rating == 1600 and round(idle.after.deviation, 2) == 78.10 and not idle.played


def test_g_and_e_are_the_papers_functions() -> None:
    assert g(0) == 1.0
    assert expected_score(1500, 1500, 350) == 0.5
    assert expected_score(1700, 1500, 80) + expected_score(1500, 1700, 80) == pytest.approx(1.0)


def test_parameters_that_cannot_work_are_refused() -> None:
    with pytest.raises(RulesError, match="maximum_deviation 300 is below the initial deviation 350"):
        GlickoParameters(maximum_deviation=300)
    with pytest.raises(RulesError, match="c must be"):
        GlickoParameters(c=-1)


CLUB = """\
name = "club-glicko1"
rating_type = "club"
system = "glicko"
effective_from = "2025-01"

[glicko]
initial_rating = 1500
initial_deviation = 350
maximum_deviation = 350
periods_to_maximum = 100
typical_deviation = 50
"""


def test_a_glicko_rule_file_gives_c_directly_or_from_the_periods() -> None:
    rules = parse_rule_set(CLUB, source="club.toml")
    assert isinstance(rules, GlickoRuleSet) and rules.system == "glicko"
    assert round(rules.glicko.c, 2) == 34.64 and rules.glicko.maximum_deviation == 350
    direct = parse_rule_set(CLUB.replace("periods_to_maximum = 100\ntypical_deviation = 50\n", "c = 63.2\n"))
    assert isinstance(direct, GlickoRuleSet) and direct.glicko.c == 63.2
    with pytest.raises(RuleFileError, match="give c or periods_to_maximum with typical_deviation, not both"):
        parse_rule_set(CLUB + "c = 10\n")
    with pytest.raises(
        RuleFileError, match="glicko.typical_deviation: 400 is not below maximum_deviation 350"
    ):
        parse_rule_set(CLUB.replace("typical_deviation = 50", "typical_deviation = 400"))
    with pytest.raises(RuleFileError, match='cap: an Elo rule: a system = "glicko" rule set has none'):
        parse_rule_set(CLUB.replace('effective_from = "2025-01"', 'effective_from = "2025-01"\ncap = 1'))


@given(
    st.floats(800, 2800), st.floats(30, 350),
    st.lists(st.tuples(st.floats(800, 2800), st.floats(30, 350), st.sampled_from([1.0, 0.5, 0.0])),
             max_size=20),
)  # fmt: skip
def test_a_period_never_widens_the_onset_deviation_and_wins_never_lower_the_rating(
    rating: float, deviation: float, games: list[tuple[float, float, float]]
) -> None:
    result = update(GlickoRating(rating, deviation), [GlickoGame(*x) for x in games], GlickoParameters())
    assert result.after.deviation <= result.onset.deviation <= 350
    wins = [GlickoGame(r, rd, WIN) for r, rd, _s in games]
    assert update(GlickoRating(rating, deviation), wins, GlickoParameters()).after.rating >= rating
