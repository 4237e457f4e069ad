"""Glicko-2 (Glickman): a period's update and its rule file's table; imports stdlib, ratingdb.rating.

Pure: no database, no I/O, nothing from the rest of ratingdb but the rule file's reader. The steps and
their names follow the paper, so a reader can put the two side by side:

  Step 1  the system constant τ and a newcomer's rating, deviation and volatility (`Glicko2Parameters`)
  Step 2  the Glicko-2 scale: μ = (r − 1500) / 173.7178, φ = RD / 173.7178 (`to_glicko2_scale`)
  Step 3  v = [Σ g(φⱼ)² E(μ, μⱼ, φⱼ) (1 − E(μ, μⱼ, φⱼ))]⁻¹, with g(φ) = 1 / √(1 + 3φ²/π²) and
          E(μ, μⱼ, φⱼ) = 1 / (1 + exp(−g(φⱼ)(μ − μⱼ)))
  Step 4  Δ = v Σ g(φⱼ)(sⱼ − E(μ, μⱼ, φⱼ))
  Step 5  the new volatility σ′ by the Illinois algorithm on f(x), tolerance ε = 0.000001
  Step 6  the pre-period deviation φ* = √(φ² + σ′²)
  Step 7  φ′ = 1 / √(1/φ*² + 1/v), μ′ = μ + φ′² Σ g(φⱼ)(sⱼ − E)
  Step 8  back to the Glicko scale: r′ = 173.7178 μ′ + 1500, RD′ = 173.7178 φ′

A player who does not play in the period keeps μ and σ, and the deviation widens to φ′ = √(φ² + σ²)
(the paper's last paragraph), once per rating period missed.

The paper sets no limit on a deviation, and neither does this module unless the rule set asks for one:
`Glicko2Parameters.maximum_deviation` clamps the *final* RD′ of Step 8 (and the widened RD of a player
without games) as lichess clamps its deviations, after the update; Steps 6 and 7 are the paper's, never
capped, so μ′ is computed from the unclamped φ′ as lichess computes it.

Arithmetic: IEEE floats throughout (the paper's own figures are rounded floats). The sums of steps 3, 4
and 7 use `math.fsum`, which is correctly rounded and therefore independent of the order of the games,
so the order of a period's games cannot change a single bit of the result. Nothing here rounds: the
published list rounds once, in `published` (rating and deviation to hundredths, volatility to
millionths, half away from zero), and the next period starts from the published figures, as an Elo
list's next period starts from its published whole-number ratings.

Before December 2026 (issue 48) this module capped φ* of Step 6 at the initial deviation for every
player, which the paper does not do; lists closed then keep their published figures (they are sealed).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

from .errors import RulesError
from .periods import Period
from .rulefile import ELO_KEYS, RATING_MAX, _Table
from .rules import RuleSet

SCALE: Final = 173.7178  # Step 2: the Glicko-2 scale's unit in Glicko points (400 / ln 10)
CENTRE: Final = 1500.0  # Step 2: the rating at μ = 0
EPSILON: Final = 0.000001  # Step 5: the convergence tolerance of the volatility iteration
MAX_ITERATIONS: Final = 1000  # Step 5 converges in a handful; more is a bug, not a long wait

WIN: Final = 1.0
DRAW: Final = 0.5
LOSS: Final = 0.0


@dataclass(frozen=True)
class Glicko2Parameters:
    """Step 1: the system constant τ and a newcomer's rating, deviation and volatility.

    τ constrains how much the volatility changes over time; Glickman suggests 0.3 to 1.2 and uses 0.5
    in the example. The paper's newcomer is 1500 / 350 / 0.06 (lichess: 1500 / 500 / 0.09).
    `provisional_deviation`: a rating whose deviation is above this is shown as provisional (a list's
    rule, not the paper's; None: never). `maximum_deviation`: the most a published deviation may be,
    applied to the final RD′ as lichess applies its 500 (None: no limit, as in the paper). One rating
    period is one month closed (a ratingdb period).
    """

    tau: float = 0.5
    initial_rating: float = 1500.0
    initial_deviation: float = 350.0
    initial_volatility: float = 0.06
    provisional_deviation: float | None = 110.0
    epsilon: float = EPSILON
    maximum_deviation: float | None = None

    def __post_init__(self) -> None:
        for name, value in (
            ("tau", self.tau),
            ("initial_deviation", self.initial_deviation),
            ("initial_volatility", self.initial_volatility),
            ("epsilon", self.epsilon),
        ):
            if not (math.isfinite(value) and value > 0):
                raise RulesError(f"Glicko-2 {name} must be a positive number, not {value!r}")
        if not math.isfinite(self.initial_rating):
            raise RulesError(f"Glicko-2 initial_rating must be a number, not {self.initial_rating!r}")
        if self.maximum_deviation is not None and not (
            math.isfinite(self.maximum_deviation) and self.maximum_deviation >= self.initial_deviation
        ):
            raise RulesError(
                "Glicko-2 maximum_deviation must be at least the initial deviation "
                f"{self.initial_deviation:g}, not {self.maximum_deviation!r}"
            )

    @property
    def deviation_limit(self) -> float:
        """The most a listed deviation may be: the maximum, or without one the initial deviation (a list
        imported with a larger one would start players as less known than a newcomer)."""
        return self.initial_deviation if self.maximum_deviation is None else self.maximum_deviation

    def clamp(self, deviation: float) -> tuple[float, bool]:
        """RD′ limited to the maximum deviation as lichess limits it, and whether the limit applied."""
        if self.maximum_deviation is not None and deviation > self.maximum_deviation:
            return self.maximum_deviation, True
        return deviation, False

    @property
    def newcomer(self) -> Glicko2Rating:
        """The rating of a player without one (Step 1)."""
        return Glicko2Rating(self.initial_rating, self.initial_deviation, self.initial_volatility)

    def is_provisional(self, deviation: float) -> bool:
        """Whether a rating with this deviation is shown as provisional (above the list's threshold)."""
        return self.provisional_deviation is not None and deviation > self.provisional_deviation


@dataclass(frozen=True)
class Glicko2Rating:
    """A player's rating on the Glicko scale: r, RD and σ (the volatility is scale-free)."""

    rating: float
    deviation: float
    volatility: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise RulesError(f"a Glicko-2 rating must be a number, not {self.rating!r}")
        if not (math.isfinite(self.deviation) and self.deviation > 0):
            raise RulesError(f"a Glicko-2 deviation must be a positive number, not {self.deviation!r}")
        if not (math.isfinite(self.volatility) and self.volatility > 0):
            raise RulesError(f"a Glicko-2 volatility must be a positive number, not {self.volatility!r}")

    @property
    def mu(self) -> float:
        return to_glicko2_scale(self.rating, self.deviation)[0]

    @property
    def phi(self) -> float:
        return to_glicko2_scale(self.rating, self.deviation)[1]


@dataclass(frozen=True)
class Glicko2Game:
    """One game of the period from the rated player's side: the opponent's pre-period r and RD, and s."""

    opponent_rating: float
    opponent_deviation: float
    score: float  # 1, 0.5 or 0

    def __post_init__(self) -> None:
        if self.score not in (WIN, DRAW, LOSS):
            raise RulesError(f"a game's score must be 1, 0.5 or 0, not {self.score!r}")
        if not (math.isfinite(self.opponent_deviation) and self.opponent_deviation > 0):
            raise RulesError(f"an opponent's deviation must be positive, not {self.opponent_deviation!r}")


@dataclass(frozen=True)
class GameStep:
    """Steps 3–4 for one game: the opponent on the Glicko-2 scale, g(φⱼ), E and s."""

    opponent_rating: float
    opponent_deviation: float
    mu_j: float
    phi_j: float
    g: float
    e: float
    score: float


@dataclass(frozen=True)
class Glicko2Update:
    """One player's rating period, every intermediate of Steps 2–8 kept for the calculation record."""

    before: Glicko2Rating
    after: Glicko2Rating
    mu: float
    phi: float
    games: tuple[GameStep, ...]
    v: float | None  # None: no games (v is infinite; only φ widens)
    delta: float | None
    sigma: float  # σ′ (the old σ when no games)
    phi_star: float  # Step 6, as the paper has it (never capped)
    new_phi: float  # Step 7's φ′ (φ* when no games), before the maximum deviation
    new_mu: float
    iterations: int  # Step 5's Illinois iterations (0: no games)
    clamped: bool = False  # the final RD′ was limited to the rule set's maximum deviation

    @property
    def played(self) -> bool:
        return bool(self.games)


def to_glicko2_scale(rating: float, deviation: float) -> tuple[float, float]:
    """Step 2: (μ, φ) = ((r − 1500) / 173.7178, RD / 173.7178)."""
    return (rating - CENTRE) / SCALE, deviation / SCALE


def from_glicko2_scale(mu: float, phi: float) -> tuple[float, float]:
    """Step 8: (r, RD) = (173.7178 μ + 1500, 173.7178 φ)."""
    return SCALE * mu + CENTRE, SCALE * phi


def g(phi: float) -> float:
    """Step 3: g(φ) = 1 / √(1 + 3φ²/π²), the weight a game gets from the opponent's deviation."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected_score(mu: float, mu_j: float, phi_j: float) -> float:
    """Step 3: E(μ, μⱼ, φⱼ) = 1 / (1 + exp(−g(φⱼ)(μ − μⱼ)))."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float,
                   epsilon: float = EPSILON) -> tuple[float, int]:  # fmt: skip
    """Step 5: σ′ by the Illinois algorithm (the paper's 5.1–5.5), and the number of iterations.

    f(x) = eˣ(Δ² − φ² − v − eˣ) / (2(φ² + v + eˣ)²) − (x − a) / τ², a = ln σ². A = a; B = ln(Δ² − φ² − v)
    if Δ² > φ² + v, else a − kτ for the smallest k = 1, 2, … with f(a − kτ) ≥ 0. Then, while
    |B − A| > ε: C = A + (A − B) f(A) / (f(B) − f(A)); if f(C) f(B) ≤ 0, A ← B, f(A) ← f(B), else
    f(A) ← f(A) / 2; B ← C, f(B) ← f(C). σ′ = e^(A/2).
    """
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    iterations = 0
    while abs(big_b - big_a) > epsilon:
        iterations += 1
        if iterations > MAX_ITERATIONS:
            raise RulesError("the Glicko-2 volatility iteration did not converge")  # pragma: no cover
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0), iterations


def pre_period_deviation(phi: float, sigma: float, periods: int = 1) -> float:
    """Step 6: φ* = √(φ² + σ²), once per rating period (`periods` periods without a game widen it that
    many times). The paper caps nothing here; a rule set's maximum applies to the final RD′ only."""
    if periods < 0:
        raise RulesError(f"the number of rating periods cannot be negative, got {periods}")
    return math.sqrt(phi * phi + periods * sigma * sigma)


def update(player: Glicko2Rating, games: Sequence[Glicko2Game], params: Glicko2Parameters) -> Glicko2Update:
    """Steps 2–8: the player's rating after one rating period with `games` (none: only φ widens), then
    the final RD′ limited to the rule set's maximum deviation if it sets one.

    The opponents' ratings and deviations are theirs before the period (the paper rates a whole period
    at once), so a period's games may be given in any order.
    """
    mu, phi = to_glicko2_scale(player.rating, player.deviation)
    sigma = player.volatility
    if not games:
        phi_star = pre_period_deviation(phi, sigma)
        r, rd = from_glicko2_scale(mu, phi_star)
        rd, clamped = params.clamp(rd)
        return Glicko2Update(
            before=player, after=Glicko2Rating(r, rd, sigma), mu=mu, phi=phi, games=(), v=None, delta=None,
            sigma=sigma, phi_star=phi_star, new_phi=phi_star, new_mu=mu, iterations=0, clamped=clamped,
        )  # fmt: skip
    steps = []
    for game in games:
        mu_j, phi_j = to_glicko2_scale(game.opponent_rating, game.opponent_deviation)
        weight = g(phi_j)
        steps.append(GameStep(game.opponent_rating, game.opponent_deviation, mu_j, phi_j, weight,
                              expected_score(mu, mu_j, phi_j), game.score))  # fmt: skip
    v = 1.0 / math.fsum(s.g * s.g * s.e * (1.0 - s.e) for s in steps)
    improvement = math.fsum(s.g * (s.score - s.e) for s in steps)  # Σ g(φⱼ)(sⱼ − E)
    delta = v * improvement
    new_sigma, iterations = new_volatility(sigma, phi, v, delta, params.tau, params.epsilon)
    phi_star = pre_period_deviation(phi, new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement  # from the unclamped φ′, as lichess computes it
    r, rd = from_glicko2_scale(new_mu, new_phi)
    rd, clamped = params.clamp(rd)
    return Glicko2Update(
        before=player, after=Glicko2Rating(r, rd, new_sigma), mu=mu, phi=phi, games=tuple(steps), v=v,
        delta=delta, sigma=new_sigma, phi_star=phi_star, new_phi=new_phi, new_mu=new_mu,
        iterations=iterations, clamped=clamped,
    )  # fmt: skip


@dataclass(frozen=True)
class PeriodGame:
    """A game of the period between two players (by any hashable key), white's score 1, 0.5 or 0."""

    white: object
    black: object
    white_score: float


def rate_period(
    ratings: Mapping[object, Glicko2Rating],
    games: Iterable[PeriodGame],
    params: Glicko2Parameters,
) -> dict[object, Glicko2Update]:
    """Every player's update for one rating period: each game seen from both sides, against the
    opponent's pre-period rating; players in `ratings` without a game only widen (Step 6).

    A player in a game but not in `ratings` starts as the newcomer of Step 1.
    """
    before = dict(ratings)
    sides: dict[object, list[Glicko2Game]] = {player: [] for player in ratings}
    for game in games:
        white = before.setdefault(game.white, params.newcomer)
        black = before.setdefault(game.black, params.newcomer)
        sides.setdefault(game.white, []).append(Glicko2Game(black.rating, black.deviation, game.white_score))
        sides.setdefault(game.black, []).append(
            Glicko2Game(white.rating, white.deviation, 1.0 - game.white_score)
        )
    return {player: update(before[player], sides[player], params) for player in sides}


def _half_up(value: float, places: int) -> Decimal:
    # Decimal(float) is the float's exact value: rounding it is one rounding, not two.
    return Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class PublishedGlicko2:
    """A rating as the list publishes it: whole hundredths of rating and deviation, millionths of σ."""

    rating_x100: int
    deviation_x100: int
    volatility_x1e6: int

    @property
    def rating(self) -> Glicko2Rating:
        return Glicko2Rating(self.rating_x100 / 100, self.deviation_x100 / 100, self.volatility_x1e6 / 1e6)

    @property
    def whole_rating(self) -> int:
        """The rating to the whole point, half away from zero (the list's rating column)."""
        return int(_half_up(self.rating_x100 / 100, 0))


def published(rating: Glicko2Rating) -> PublishedGlicko2:
    """The one rounding: r and RD to hundredths, σ to millionths, half away from zero (1464.0507 → 1464.05)

    The next period starts from these figures (`PublishedGlicko2.rating`).
    """
    return PublishedGlicko2(
        int(_half_up(rating.rating, 2).scaleb(2)),
        int(_half_up(rating.deviation, 2).scaleb(2)),
        int(_half_up(rating.volatility, 6).scaleb(6)),
    )


PAPER_PLACES: Final = 4  # Glickman's example prints its steps to four decimals (σ′ to five)


def paper_rounded(result: Glicko2Update) -> Glicko2Rating:
    """Step 8 as Glickman's example does it: from μ′ and φ′ rounded to the four decimals the paper prints
    (its μ′ = −0.2069, φ′ = 0.8722), and σ′ to the five decimals it prints, cut (its 0.05999 for the
    0.0599960 the iteration gives). For the worked example this is the paper's 1464.06, 151.52, 0.05999;
    the unrounded 1464.0507 is what the list publishes (1464.05). Shown beside the exact result by
    `calc`, never stored.
    """
    if not result.played:
        return result.after
    mu, phi = round(result.new_mu, PAPER_PLACES), round(result.new_phi, PAPER_PLACES)
    r, rd = from_glicko2_scale(mu, phi)
    rd = result.after.deviation if result.clamped else rd  # the maximum applies to both paths alike
    return Glicko2Rating(r, rd, math.floor(result.sigma * 10**5) / 10**5)


@dataclass(frozen=True)
class Glicko2RuleSet(RuleSet):
    """A rule set rating its type by Glicko-2 (`system = "glicko2"` in a rule file): the span of periods
    and the type as for Elo, the Elo rules switched off, and the Glicko-2 parameters."""

    glicko2: Glicko2Parameters = Glicko2Parameters()
    system: str = "glicko2"


def glicko2_rule_set(
    name: str, rating_type: str, effective_from: Period | None, effective_to: Period | None,
    params: Glicko2Parameters,
) -> Glicko2RuleSet:  # fmt: skip
    """The rule set of a Glicko-2 rule file: no cap, no exclusion, no floor; the parameters given."""
    return Glicko2RuleSet(
        name=name, rating_type=rating_type, effective_from=effective_from, effective_to=effective_to,
        cap=None, cap_exempt_from=None, exclusion_difference=None, exclusion_above=None, floor=0,
        k_times_games_max=None, glicko2=params,
    )  # fmt: skip


def read_rule_file(
    top: _Table, name: str, rating_type: str, effective_from: Period | None, effective_to: Period | None
) -> RuleSet:
    """A `system = "glicko2"` file: the [glicko2] table and nothing of Elo's (ratingdb.rating.glicko2)."""
    for key in ELO_KEYS:
        if key in top.data:
            reason = 'an Elo rule: a system = "glicko2" rule set has none (see the [glicko2] keys)'
            raise top.error(key, reason)
    table = top.table("glicko2")
    tau = table.number("tau", low=0.01, high=10)
    rating = table.number("initial_rating", low=1, high=RATING_MAX)
    deviation = table.number("initial_deviation", low=1, high=1000)
    volatility = table.number("initial_volatility", low=0.0001, high=1)
    provisional = table.number("provisional_deviation", low=0, high=1000, none=True)
    # Optional (files written before it keep their meaning: no maximum, the paper's reading).
    maximum = None
    if "maximum_deviation" in table.data:
        maximum = table.number("maximum_deviation", low=1, high=1000, none=True)
        if maximum is not None and deviation is not None and maximum < deviation:
            reason = f"{maximum:g} is below initial_deviation {deviation:g}: a newcomer would start above it"
            raise table.error("maximum_deviation", reason)
    table.read.add("maximum_deviation")
    table.done()
    top.done()
    assert tau is not None and rating is not None and deviation is not None and volatility is not None
    params = Glicko2Parameters(tau, rating, deviation, volatility, provisional, maximum_deviation=maximum)
    return glicko2_rule_set(name, rating_type, effective_from, effective_to, params)
