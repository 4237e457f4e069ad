"""Glicko-2 (ratingdb.rating.glicko2): Glickman's worked example, each step, and Hypothesis properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.rating import RulesError
from ratingdb.rating.glicko2 import (
    DRAW,
    LOSS,
    SCALE,
    WIN,
    Glicko2Game,
    Glicko2Parameters,
    Glicko2Rating,
    PeriodGame,
    PublishedGlicko2,
    expected_score,
    g,
    paper_rounded,
    pre_period_deviation,
    published,
    rate_period,
    to_glicko2_scale,
    update,
)

PAPER = Glicko2Parameters(tau=0.5)  # Glickman's example: τ = 0.5, newcomers 1500 / 350 / 0.06
PLAYER = Glicko2Rating(1500, 200, 0.06)
PAPER_GAMES = [Glicko2Game(1400, 30, WIN), Glicko2Game(1550, 100, LOSS), Glicko2Game(1700, 300, LOSS)]


def test_the_worked_example_computed_exactly_is_1464_05067_rd_151_51652_volatility_0_059996() -> None:
    # Glickman's formulas by hand, every figure carried to eight decimals (no step rounded as the
    # paper prints it): φ = 200 / 173.7178 = 1.15129250; the opponents' g(φⱼ) and E(μ, μⱼ, φⱼ):
    #   1400, RD 30:  g = 1 / √(1 + 3 × 0.17269387² / π²) = 0.99549801, E = 0.63946773, s = 1
    #   1550, RD 100: g = 0.95314898, E = 0.43184236, s = 0
    #   1700, RD 300: g = 0.72423548, E = 0.30284073, s = 0
    g_e_s = [(0.99549801, 0.63946773, 1), (0.95314898, 0.43184236, 0), (0.72423548, 0.30284073, 0)]
    v = 1 / sum(g_j**2 * e * (1 - e) for g_j, e, _s in g_e_s)  # Step 3
    improvement = sum(g_j * (s - e) for g_j, e, s in g_e_s)  # Σ g(φⱼ)(sⱼ − E)
    assert (round(v, 6), round(improvement, 6), round(v * improvement, 6)) == (1.778977, -0.272029, -0.483933)
    # Step 5's root: σ′ = 0.05999598 (f(ln σ′²) = 0 to 10⁻⁷, checked below); Step 6: φ* = √(1.15129250² +
    # 0.05999598²) = 1.15285469; Step 7: φ′ = 1 / √(1/1.15285469² + 1/1.778977) = 0.87219919,
    # μ′ = 0 + 0.87219919² × −0.27202895 = −0.20694097; Step 8: r′ = 173.7178 × −0.20694097 + 1500.
    phi_star = math.sqrt(1.15129250**2 + 0.05999598**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = new_phi**2 * improvement
    assert (round(phi_star, 6), round(new_phi, 6), round(new_mu, 6)) == (1.152855, 0.872199, -0.206941)
    assert (round(SCALE * new_mu + 1500, 4), round(SCALE * new_phi, 4)) == (1464.0507, 151.5165)
    a, x = math.log(0.06**2), math.log(0.05999598**2)
    phi2, delta2 = 1.15129250**2, (v * improvement) ** 2
    ex = math.exp(x)
    f = ex * (delta2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (x - a) / 0.5**2  # Step 5's f(x)
    assert abs(f) < 1e-6
    # The rules library gives the same, unrounded: 1464.05067, RD 151.51652, σ 0.05999598.
    result = update(PLAYER, PAPER_GAMES, PAPER)
    assert round(result.after.rating, 5) == 1464.05067
    assert round(result.after.deviation, 5) == 151.51652
    assert round(result.after.volatility, 8) == 0.05999598
    assert result.after.rating == pytest.approx(SCALE * new_mu + 1500, abs=1e-5)
    # The list publishes those exact figures, rounded once where it is written (`published`): rating and
    # RD to hundredths, σ to millionths: 1464.05, 151.52, 0.059996 — not the paper's 1464.06.
    assert published(result.after) == PublishedGlicko2(146405, 15152, 59996)


def test_the_papers_1464_06_is_its_rounded_mu_prime_converted() -> None:
    result = update(PLAYER, PAPER_GAMES, PAPER)
    assert round(result.new_mu, 4) == -0.2069
    assert round(SCALE * -0.2069 + 1500, 2) == 1464.06  # the paper's Step 8 with its printed μ′
    assert round(SCALE * result.new_mu + 1500, 4) == 1464.0507  # the same step unrounded
    assert math.floor(result.after.volatility * 1e5) / 1e5 == 0.05999  # σ′ = 0.0599960…, printed cut


def test_the_papers_own_steps_with_its_printed_roundings_give_1464_06_151_52_0_05999() -> None:
    # The paper's Step 7 prints φ′ = 0.8722 and μ′ = −0.2069, its Step 5 σ′ = 0.05999. Step 8 redone by
    # hand from those printed figures: r′ = 173.7178 × −0.2069 + 1500 = 1464.0578 → 1464.06,
    # RD′ = 173.7178 × 0.8722 = 151.5167 → 151.52. (Its μ′ is not what its printed E's give:
    # 0.8722² × (0.9955 × 0.361 − 0.9531 × 0.432 − 0.7242 × 0.303) = −0.2068; it carried more digits.)
    assert round(SCALE * -0.2069 + 1500, 4) == 1464.0578
    assert round(SCALE * 0.8722, 4) == 151.5167
    assert round(0.8722**2 * (0.9955 * 0.361 - 0.9531 * 0.432 - 0.7242 * 0.303), 4) == -0.2068
    exact = update(PLAYER, PAPER_GAMES, PAPER)
    paper = paper_rounded(exact)
    assert (round(paper.rating, 2), round(paper.deviation, 2), paper.volatility) == (1464.06, 151.52, 0.05999)
    # The exact result, which the list publishes, stays 1464.0507 → 1464.05.
    assert round(exact.after.rating, 4) == 1464.0507
    assert published(exact.after).rating_x100 == 146405


def test_every_intermediate_of_the_example_is_the_papers() -> None:
    result = update(PLAYER, PAPER_GAMES, PAPER)
    # Step 2: μ = 0, φ = 200 / 173.7178 = 1.1513.
    assert result.mu == 0 and round(result.phi, 4) == 1.1513
    # The paper's table: μⱼ, φⱼ, g(φⱼ), E, s.
    table = [(-0.5756, 0.1727, 0.9955, 0.639, 1), (0.2878, 0.5756, 0.9531, 0.432, 0),
             (1.1513, 1.7269, 0.7242, 0.303, 0)]  # fmt: skip
    for step, (mu_j, phi_j, g_j, e, s) in zip(result.games, table, strict=True):
        assert (round(step.mu_j, 4), round(step.phi_j, 4), round(step.g, 4)) == (mu_j, phi_j, g_j)
        assert (round(step.e, 3), step.score) == (e, s)
    # Steps 3–4: the paper computes v and Δ from g to four decimals and E to three (the table), so its
    # 1.7785 and −0.4834 are those rounded inputs' figures; the unrounded ones agree to 0.001.
    printed = [(g_j, e, s) for _mu, _phi, g_j, e, s in table]
    assert round(1 / sum(g_j**2 * e * (1 - e) for g_j, e, _s in printed), 4) == 1.7785
    assert round(1.7785 * sum(g_j * (s - e) for g_j, e, s in printed), 4) == -0.4834
    assert result.v == pytest.approx(1.7785, abs=0.001) and round(result.v, 4) == 1.7790
    assert result.delta == pytest.approx(-0.4834, abs=0.001) and round(result.delta, 4) == -0.4839
    assert round(result.phi_star, 4) == 1.1529  # Step 6: √(1.1513² + 0.05999²)
    assert (round(result.new_phi, 4), round(result.new_mu, 4)) == (0.8722, -0.2069)  # Step 7


def test_g_and_e_are_the_papers_functions() -> None:
    assert g(0) == 1.0  # a certain opponent counts fully
    assert round(g(1.7269), 4) == 0.7242  # the paper's 1700 (RD 300)
    assert expected_score(0, 0, 2.0) == 0.5
    assert round(expected_score(0, -0.5756, 0.1727), 3) == 0.639  # 1500 against the paper's 1400 (RD 30)
    mu, phi = to_glicko2_scale(1700, 300)
    assert (round(mu, 4), round(phi, 4)) == (1.1513, 1.7269)


def test_a_player_who_does_not_play_widens_by_the_volatility() -> None:
    result = update(PLAYER, [], PAPER)
    # φ* = √(1.1513² + 0.06²) → RD √(200² + (0.06 × 173.7178)²) = 200.27, rating and σ kept.
    assert round(result.after.deviation, 2) == round(math.sqrt(200**2 + (0.06 * SCALE) ** 2), 2) == 200.27
    assert (result.after.rating, result.after.volatility) == (1500, 0.06)
    assert result.v is None and not result.played


def test_without_a_maximum_the_deviation_widens_past_the_initial_one_as_the_paper_has_it() -> None:
    # The paper caps nothing: 349.9 widens to √(349.9² + (0.06 × 173.7178)²) = √(122430.01 + 108.6413)
    # = 350.0552 (ratingdb before issue 48 capped it at the initial 350).
    nearly_new = Glicko2Rating(1500, 349.9, 0.06)
    result = update(nearly_new, [], PAPER)
    assert round(result.after.deviation, 4) == 350.0552 and not result.clamped
    assert pre_period_deviation(349.9 / SCALE, 0.06) == pytest.approx(350.0552 / SCALE, abs=1e-7)


def test_a_maximum_clamps_the_widened_deviation_of_a_player_without_games() -> None:
    capped = Glicko2Parameters(tau=0.5, maximum_deviation=350)
    result = update(Glicko2Rating(1500, 349.9, 0.06), [], capped)
    assert result.after.deviation == 350 and result.clamped
    assert round(SCALE * result.new_phi, 4) == 350.0552  # the paper's widening, kept in the record


def test_a_maximum_clamps_the_final_deviation_only_and_the_rating_is_the_papers() -> None:
    # A newcomer (1500/350/0.06) who loses once to a 1500 with RD 350. The paper's steps by hand:
    # φ = φⱼ = 350 / 173.7178 = 2.014762; g = 1 / √(1 + 3 × 2.014762² / π²) = 0.669069, E = 0.5;
    # v = 1 / (0.669069² × 0.25) = 8.935475; φ* ≈ √(2.014762² + 0.06²) = 2.015655 (σ′ ≈ 0.06);
    # φ′ = 1 / √(1 / 2.015655² + 1 / 8.935475) = 1.671210 → RD′ = 290.32, below 350: nothing to clamp,
    # so a maximum of 350 changes nothing here; a player at RD 900 (listed above it) is clamped.
    newcomer = Glicko2Rating(1500, 350, 0.06)
    loss = [Glicko2Game(1500, 350, LOSS)]
    free, limited = (
        update(newcomer, loss, PAPER),
        update(newcomer, loss, Glicko2Parameters(maximum_deviation=350)),
    )
    assert round(free.after.deviation, 2) == 290.32 and free.after == limited.after and not limited.clamped
    far = Glicko2Rating(1500, 900, 0.06)
    free, limited = update(far, loss, PAPER), update(far, loss, Glicko2Parameters(maximum_deviation=350))
    assert free.after.deviation > 350 and not free.clamped
    assert limited.clamped and limited.after.deviation == 350
    # μ′ comes from the unclamped φ′ (as lichess computes it): the ratings agree to the bit.
    assert limited.after.rating == free.after.rating and limited.new_phi == free.new_phi


def test_a_maximum_below_the_initial_deviation_is_refused() -> None:
    with pytest.raises(RulesError, match="maximum_deviation must be at least the initial deviation 350"):
        Glicko2Parameters(maximum_deviation=300)


def test_rate_period_rates_both_sides_against_pre_period_ratings() -> None:
    ratings = {"p": PLAYER, "a": Glicko2Rating(1400, 30, 0.06), "b": Glicko2Rating(1550, 100, 0.06),
               "c": Glicko2Rating(1700, 300, 0.06), "idle": Glicko2Rating(1600, 80, 0.06)}  # fmt: skip
    games = [PeriodGame("p", "a", WIN), PeriodGame("b", "p", WIN), PeriodGame("p", "c", LOSS)]
    results = rate_period(ratings, games, PAPER)
    assert results["p"].after == update(PLAYER, PAPER_GAMES, PAPER).after  # 1464.0507, RD 151.52
    assert results["idle"].after.deviation > 80 and not results["idle"].played
    # The 1700 player beat a 1500 with RD 200: only that game, seen from the other side.
    assert results["c"].after == update(ratings["c"], [Glicko2Game(1500, 200, WIN)], PAPER).after


@pytest.mark.parametrize(
    ("field", "value"), [("tau", 0), ("initial_deviation", -1), ("initial_volatility", math.nan)]
)
def test_parameters_that_cannot_work_are_refused(field: str, value: float) -> None:
    with pytest.raises(RulesError, match=field):
        Glicko2Parameters(**{field: value})


def test_a_score_other_than_1_half_0_is_refused() -> None:
    with pytest.raises(RulesError, match="1, 0.5 or 0"):
        Glicko2Game(1500, 100, 0.7)


# --- Hypothesis properties -------------------------------------------------------------------------

params = st.builds(
    Glicko2Parameters,
    tau=st.floats(0.2, 1.2),
    initial_deviation=st.floats(200, 500),
    initial_volatility=st.floats(0.03, 0.1),
)
results = st.sampled_from([WIN, DRAW, LOSS])


@st.composite
def players(draw: st.DrawFn, deviation_max: float = 350) -> Glicko2Rating:
    return Glicko2Rating(
        draw(st.floats(800, 2800)), draw(st.floats(30, deviation_max)), draw(st.floats(0.03, 0.1))
    )


games = st.builds(Glicko2Game, st.floats(800, 2800), st.floats(30, 350), results)
game_lists = st.lists(games, min_size=1, max_size=30)


@given(params, st.floats(0, 300), st.data())
def test_a_player_who_does_not_play_grows_in_deviation_up_to_the_maximum(
    parameters: Glicko2Parameters, above: float, data: st.DataObject
) -> None:
    maximum = parameters.initial_deviation + above
    limited = Glicko2Parameters(
        parameters.tau, parameters.initial_rating, parameters.initial_deviation,
        parameters.initial_volatility, maximum_deviation=maximum,
    )  # fmt: skip
    player = data.draw(players(deviation_max=parameters.initial_deviation))
    deviations = [player.deviation]
    for _ in range(data.draw(st.integers(1, 40))):
        player = update(player, [], limited).after
        deviations.append(player.deviation)
    assert all(later >= earlier for earlier, later in zip(deviations, deviations[1:], strict=False))
    assert all(d <= maximum for d in deviations)
    # Strictly wider while below the maximum.
    assert deviations[1] > deviations[0] or deviations[1] == maximum


@given(params, players(), game_lists)
def test_a_period_of_wins_never_lowers_the_rating_nor_a_period_of_losses_raises_it(
    parameters: Glicko2Parameters, player: Glicko2Rating, period: list[Glicko2Game]
) -> None:
    wins = [Glicko2Game(x.opponent_rating, x.opponent_deviation, WIN) for x in period]
    losses = [Glicko2Game(x.opponent_rating, x.opponent_deviation, LOSS) for x in period]
    assert update(player, wins, parameters).after.rating >= player.rating
    assert update(player, losses, parameters).after.rating <= player.rating


@given(params, players(), game_lists, st.integers(0, 29))
def test_turning_one_result_into_a_win_never_lowers_the_new_rating(
    parameters: Glicko2Parameters, player: Glicko2Rating, period: list[Glicko2Game], index: int
) -> None:
    index %= len(period)
    better = list(period)
    better[index] = Glicko2Game(period[index].opponent_rating, period[index].opponent_deviation, WIN)
    # The volatility iteration stops within ε = 0.000001 of its root: allow that much of noise.
    assert (
        update(player, better, parameters).after.rating
        >= update(player, period, parameters).after.rating - 1e-6
    )


@given(params, players(), game_lists, st.randoms(use_true_random=False))
def test_the_order_of_games_within_a_period_does_not_matter(
    parameters: Glicko2Parameters, player: Glicko2Rating, period: list[Glicko2Game], rng: object
) -> None:
    shuffled = list(period)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    # Bit for bit: the sums are math.fsum, correctly rounded whatever the order.
    assert update(player, shuffled, parameters).after == update(player, period, parameters).after


@given(params, st.lists(players(), min_size=2, max_size=8), st.data())
def test_the_period_total_equals_one_update_with_all_of_a_players_games(
    parameters: Glicko2Parameters, field: list[Glicko2Rating], data: st.DataObject
) -> None:
    ratings = dict(enumerate(field))
    pairs = st.tuples(st.integers(0, len(field) - 1), st.integers(0, len(field) - 1), results)
    drawn = data.draw(st.lists(pairs.filter(lambda p: p[0] != p[1]), max_size=40))
    period = [PeriodGame(white, black, score) for white, black, score in drawn]
    totals = rate_period(ratings, period, parameters)
    for player, rating in ratings.items():
        own = [Glicko2Game(field[b].rating, field[b].deviation, s) for w, b, s in drawn if w == player]
        own += [Glicko2Game(field[w].rating, field[w].deviation, 1 - s) for w, b, s in drawn if b == player]
        assert totals[player].after == update(rating, own, parameters).after


def test_a_period_is_rated_at_once_not_game_after_game() -> None:
    one_by_one = PLAYER
    for game in PAPER_GAMES:
        one_by_one = update(one_by_one, [game], PAPER).after
    # Three one-game periods widen the deviation three times and use updated ratings: not 1464.06.
    assert round(one_by_one.rating, 2) != 1464.06
    assert one_by_one.deviation != pytest.approx(update(PLAYER, PAPER_GAMES, PAPER).after.deviation)
