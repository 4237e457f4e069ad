"""Glicko-2 against an independent reference: Glickman's "Example of the Glicko-2 system" written afresh.

`reference` below is the paper's Steps 1–8 transcribed from its text (not from ratingdb.rating.glicko2,
whose functions it never calls): plain loops, the paper's names, the Illinois iteration of Step 5 as its
5.1–5.5 state it. ratingdb must agree with it to 1e-6 on random rating periods — deviations up to 350,
newcomers (1500 / 350 / 0.06), players without games — when the rule set sets no maximum deviation;
with a maximum, the rating and σ′ are the reference's and RD′ is the reference's clamped to it, and the
calculator's write-up says so.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ratingdb.calculator import glicko2_text
from ratingdb.calculator.glicko2 import calculate_glicko2
from ratingdb.rating.glicko2 import Glicko2Game, Glicko2Parameters, Glicko2Rating, update


def reference(
    r: float, rd: float, sigma: float, games: list[tuple[float, float, float]], tau: float
) -> tuple[float, float, float]:
    """The paper: (r′, RD′, σ′) of a player rated r, RD, σ after `games` (opponent r, RD, score)."""
    # Step 2: convert to the Glicko-2 scale.
    mu = (r - 1500) / 173.7178
    phi = rd / 173.7178
    if not games:
        # "If the player does not compete during the rating period, then this step does not apply. In
        # this case, the player's rating and volatility parameters remain the same, but the RD increases
        # according to φ′ = √(φ² + σ²)."
        return r, 173.7178 * math.sqrt(phi**2 + sigma**2), sigma
    # Step 3: the estimated variance v.
    total = 0.0
    for rj, rdj, _s in games:
        muj, phij = (rj - 1500) / 173.7178, rdj / 173.7178
        gj = 1 / math.sqrt(1 + 3 * phij**2 / math.pi**2)
        ej = 1 / (1 + math.exp(-gj * (mu - muj)))
        total += gj**2 * ej * (1 - ej)
    v = 1 / total
    # Step 4: the estimated improvement Δ.
    total = 0.0
    for rj, rdj, sj in games:
        muj, phij = (rj - 1500) / 173.7178, rdj / 173.7178
        gj = 1 / math.sqrt(1 + 3 * phij**2 / math.pi**2)
        ej = 1 / (1 + math.exp(-gj * (mu - muj)))
        total += gj * (sj - ej)
    delta = v * total
    # Step 5: the new volatility, 5.1 to 5.5.
    a = math.log(sigma**2)
    eps = 0.000001

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k = k + 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > eps:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2)
    # Step 6: the pre-rating-period value φ*.
    phi_star = math.sqrt(phi**2 + sigma_new**2)
    # Step 7: the new φ′ and μ′.
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu_new = mu + phi_new**2 * total
    # Step 8: back to the original scale.
    return 173.7178 * mu_new + 1500, 173.7178 * phi_new, sigma_new


def test_the_reference_reproduces_the_papers_example() -> None:
    # 1500 / 200 / 0.06, τ = 0.5: beats 1400 (RD 30), loses to 1550 (RD 100) and 1700 (RD 300) →
    # the paper's r′ = 1464.06, RD′ = 151.52, σ′ = 0.05999 (it converts μ′, φ′ rounded to four decimals;
    # carried exactly: 1464.0507, 151.5165, 0.0599960).
    r, rd, sigma = reference(1500, 200, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)], 0.5)
    assert (round(r, 4), round(rd, 4), round(sigma, 7)) == (1464.0507, 151.5165, 0.059996)
    assert abs(r - 1464.06) < 0.01 and abs(rd - 151.52) < 0.005 and abs(sigma - 0.05999) < 0.00001
    ours = update(
        Glicko2Rating(1500, 200, 0.06),
        [Glicko2Game(1400, 30, 1), Glicko2Game(1550, 100, 0), Glicko2Game(1700, 300, 0)],
        Glicko2Parameters(tau=0.5),
    ).after
    assert (
        abs(ours.rating - r) < 1e-6
        and abs(ours.deviation - rd) < 1e-6
        and abs(ours.volatility - sigma) < 1e-9
    )


scores = st.sampled_from([1.0, 0.5, 0.0])
opponents = st.tuples(st.floats(800, 2800), st.floats(30, 350), scores)
rated = st.tuples(st.floats(800, 2800), st.floats(30, 350), st.floats(0.03, 0.1))
newcomer = st.just((1500.0, 350.0, 0.06))


@settings(max_examples=300)
@given(st.one_of(rated, newcomer), st.lists(opponents, max_size=12), st.floats(0.3, 1.2))
def test_every_period_agrees_with_the_papers_steps_to_a_millionth_without_a_maximum(
    player: tuple[float, float, float], games: list[tuple[float, float, float]], tau: float
) -> None:
    r, rd, sigma = player
    expected = reference(r, rd, sigma, games, tau)
    result = update(
        Glicko2Rating(r, rd, sigma), [Glicko2Game(*game) for game in games], Glicko2Parameters(tau=tau)
    )
    got = (result.after.rating, result.after.deviation, result.after.volatility)
    assert all(abs(x - y) < 1e-6 for x, y in zip(got, expected, strict=True)), (got, expected)
    assert not result.clamped


@settings(max_examples=200)
@given(st.one_of(rated, newcomer), st.lists(opponents, max_size=12), st.floats(0.3, 1.2), st.floats(350, 400))
def test_with_a_maximum_the_final_deviation_is_clamped_and_the_write_up_says_so(
    player: tuple[float, float, float], games: list[tuple[float, float, float]], tau: float, maximum: float
) -> None:
    r, rd, sigma = player
    expected_r, expected_rd, expected_sigma = reference(r, rd, sigma, games, tau)
    params = Glicko2Parameters(tau=tau, maximum_deviation=maximum)
    calculation = calculate_glicko2(
        Glicko2Rating(r, rd, sigma), [Glicko2Game(*game) for game in games], params,
        rules_name="test", rules_reason="a test",
    )  # fmt: skip
    after = calculation.result.after
    assert abs(after.rating - expected_r) < 1e-6 and abs(after.volatility - expected_sigma) < 1e-6
    assert abs(after.deviation - min(expected_rd, maximum)) < 1e-6
    text = glicko2_text.lines(calculation)
    assert f"maximum deviation {maximum:g} (the final RD′ clamped to it, as lichess does)" in text[0]
    clamped = [line for line in text if line.startswith("Maximum deviation:")]
    if expected_rd > maximum + 1e-6:
        assert clamped == [
            f"Maximum deviation: RD′ {expected_rd:.4f} is above the rule set's maximum {maximum:g}: "
            f"clamped to {maximum:g} (the rating is Step 8's)"
        ]
    elif expected_rd < maximum - 1e-6:
        assert clamped == []
