"""Glicko (Glickman, "The Glicko system"; chess.com's): update and rule file; imports stdlib, ratingdb.rating.

Pure: no database, no I/O. The paper's two steps, its names kept so a reader can put them side by side:

  Step 1  the rating and RD at the onset of the period: a newcomer is 1500 / 350; a rated player's RD
          grows with the time since the last period, RD = min(√(RD_old² + c²t), 350) (`onset_deviation`)
  Step 2  after the period's games against opponents rated rⱼ with RDⱼ:
          q = ln 10 / 400, g(RD) = 1 / √(1 + 3q²RD²/π²),
          E(s | r, rⱼ, RDⱼ) = 1 / (1 + 10^(−g(RDⱼ)(r − rⱼ)/400)),
          d² = [q² Σ g(RDⱼ)² E (1 − E)]⁻¹,
          r′ = r + q / (1/RD² + 1/d²) Σ g(RDⱼ)(sⱼ − E), RD′ = √((1/RD² + 1/d²)⁻¹)

c comes from the rule set, given directly or from the number of periods a typical RD takes to grow back
to the maximum: c = √((max² − typical²) / periods) (the paper's 350, 50 and 100 periods give c = 34.6).
The maximum (the paper's 350) limits Step 1 only: Step 2 can only shrink a deviation. IEEE floats, sums by
`math.fsum` (the order of a period's games changes no bit); nothing is rounded here, the list rounds
rating and RD to hundredths once, where it is published.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

from .errors import RulesError
from .periods import Period
from .rulefile import ELO_KEYS, RATING_MAX, _Table
from .rules import RuleSet

Q: Final = math.log(10) / 400  # q = ln 10 / 400 = 0.0057565

WIN: Final = 1.0
DRAW: Final = 0.5
LOSS: Final = 0.0


def c_from_periods(maximum: float, typical: float, periods: float) -> float:
    """c such that a typical RD grows back to the maximum in `periods` periods: √((max² − typical²) / t)."""
    if not (0 < typical < maximum) or not periods > 0:
        raise RulesError(
            f"a typical deviation {typical:g} must be above 0 and below the maximum {maximum:g}, and the "
            f"periods ({periods:g}) above 0"
        )
    return math.sqrt((maximum * maximum - typical * typical) / periods)


@dataclass(frozen=True)
class GlickoParameters:
    """A newcomer's rating and RD (Step 1), the maximum RD, and c, the growth of RD per period.

    The paper's newcomer is 1500 / 350 and its maximum 350. `provisional_deviation`: a rating whose RD is
    above it is shown provisional (a list's rule; None: never). One period is one month closed.
    """

    initial_rating: float = 1500.0
    initial_deviation: float = 350.0
    maximum_deviation: float = 350.0
    c: float = 34.64101615137755  # the paper's: 350 from a typical 50 in 100 periods, √((350² − 50²)/100)
    provisional_deviation: float | None = None

    def __post_init__(self) -> None:
        if not math.isfinite(self.initial_rating):
            raise RulesError(f"Glicko initial_rating must be a number, not {self.initial_rating!r}")
        deviations = (
            ("initial_deviation", self.initial_deviation),
            ("maximum_deviation", self.maximum_deviation),
        )
        for name, value in deviations:
            if not (math.isfinite(value) and value > 0):
                raise RulesError(f"Glicko {name} must be a positive number, not {value!r}")
        if self.maximum_deviation < self.initial_deviation:
            raise RulesError(
                f"Glicko maximum_deviation {self.maximum_deviation:g} is below the initial deviation "
                f"{self.initial_deviation:g}"
            )
        if not (math.isfinite(self.c) and self.c >= 0):
            raise RulesError(f"Glicko c must be a number of at least 0, not {self.c!r}")

    @property
    def newcomer(self) -> GlickoRating:
        return GlickoRating(self.initial_rating, self.initial_deviation)

    def is_provisional(self, deviation: float) -> bool:
        return self.provisional_deviation is not None and deviation > self.provisional_deviation


@dataclass(frozen=True)
class GlickoRating:
    """A rating and its deviation RD."""

    rating: float
    deviation: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise RulesError(f"a Glicko rating must be a number, not {self.rating!r}")
        if not (math.isfinite(self.deviation) and self.deviation > 0):
            raise RulesError(f"a Glicko deviation must be a positive number, not {self.deviation!r}")


@dataclass(frozen=True)
class GlickoGame:
    """One game from the rated player's side: the opponent's rating and RD at the onset, and s."""

    opponent_rating: float
    opponent_deviation: float
    score: float

    def __post_init__(self) -> None:
        if self.score not in (WIN, DRAW, LOSS):
            raise RulesError(f"a game's score must be 1, 0.5 or 0, not {self.score!r}")
        if not (math.isfinite(self.opponent_deviation) and self.opponent_deviation > 0):
            raise RulesError(f"an opponent's deviation must be positive, not {self.opponent_deviation!r}")


@dataclass(frozen=True)
class GlickoGameStep:
    """Step 2 for one game: g(RDⱼ), E and s."""

    opponent_rating: float
    opponent_deviation: float
    g: float
    e: float
    score: float


@dataclass(frozen=True)
class GlickoUpdate:
    """One player's period with every intermediate kept (the calculation's write-up)."""

    listed: GlickoRating  # before Step 1
    onset: GlickoRating  # after Step 1: the RD grown by c²t, at most the maximum
    after: GlickoRating
    periods: int  # t of Step 1
    grown_to_maximum: bool  # Step 1's min() took the maximum
    games: tuple[GlickoGameStep, ...]
    d2: float | None  # None: no games
    improvement: float | None  # Σ g(RDⱼ)(sⱼ − E)

    @property
    def played(self) -> bool:
        return bool(self.games)


def g(deviation: float) -> float:
    """g(RD) = 1 / √(1 + 3q²RD²/π²)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * Q * Q * deviation * deviation / (math.pi * math.pi))


def expected_score(rating: float, opponent_rating: float, opponent_deviation: float) -> float:
    """E(s | r, rⱼ, RDⱼ) = 1 / (1 + 10^(−g(RDⱼ)(r − rⱼ)/400))."""
    return 1.0 / (1.0 + 10.0 ** (-g(opponent_deviation) * (rating - opponent_rating) / 400.0))


def onset_deviation(deviation: float, params: GlickoParameters, periods: int = 1) -> tuple[float, bool]:
    """Step 1: RD = min(√(RD_old² + c²t), maximum), and whether the maximum applied."""
    if periods < 0:
        raise RulesError(f"the number of rating periods cannot be negative, got {periods}")
    grown = math.sqrt(deviation * deviation + params.c * params.c * periods)
    return (params.maximum_deviation, True) if grown > params.maximum_deviation else (grown, False)


def update(
    player: GlickoRating, games: Sequence[GlickoGame], params: GlickoParameters, *, periods: int = 1
) -> GlickoUpdate:
    """Steps 1–2: the player's rating after one period (none: Step 1 only, the RD grows).

    `periods`: t of Step 1, the periods since the listed RD (0: `player` is already at the onset, as the
    paper's example is). The opponents' figures are theirs at the onset of the period.
    """
    rd, grown = onset_deviation(player.deviation, params, periods)
    onset = GlickoRating(player.rating, rd)
    if not games:
        return GlickoUpdate(player, onset, onset, periods, grown, (), None, None)
    steps = tuple(
        GlickoGameStep(
            x.opponent_rating,
            x.opponent_deviation,
            g(x.opponent_deviation),
            expected_score(player.rating, x.opponent_rating, x.opponent_deviation),
            x.score,
        )  # fmt: skip
        for x in games
    )
    d2 = 1.0 / (Q * Q * math.fsum(s.g * s.g * s.e * (1.0 - s.e) for s in steps))
    improvement = math.fsum(s.g * (s.score - s.e) for s in steps)
    precision = 1.0 / (rd * rd) + 1.0 / d2
    after = GlickoRating(player.rating + Q / precision * improvement, math.sqrt(1.0 / precision))
    return GlickoUpdate(player, onset, after, periods, grown, steps, d2, improvement)


@dataclass(frozen=True)
class GlickoRuleSet(RuleSet):
    """A rule set rating its type by Glicko (`system = "glicko"` in a rule file): the span and type as
    for Elo, the Elo rules switched off, and the Glicko parameters."""

    glicko: GlickoParameters = GlickoParameters()
    system: str = "glicko"


def glicko_rule_set(
    name: str, rating_type: str, effective_from: Period | None, effective_to: Period | None,
    params: GlickoParameters,
) -> GlickoRuleSet:  # fmt: skip
    """The rule set of a Glicko rule file: no cap, no exclusion, no floor; the parameters given."""
    return GlickoRuleSet(
        name=name, rating_type=rating_type, effective_from=effective_from, effective_to=effective_to,
        cap=None, cap_exempt_from=None, exclusion_difference=None, exclusion_above=None, floor=0,
        k_times_games_max=None, glicko=params,
    )  # fmt: skip


def _half_up(value: float, places: int) -> Decimal:
    # Decimal(float) is the float's exact value: rounding it is one rounding, not two.
    return Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class PublishedGlicko:
    """A rating as a Glicko list publishes it: whole hundredths of rating and deviation."""

    rating_x100: int
    deviation_x100: int

    @property
    def rating(self) -> GlickoRating:
        return GlickoRating(self.rating_x100 / 100, self.deviation_x100 / 100)

    @property
    def whole_rating(self) -> int:
        """The rating to the whole point, half away from zero (the list's rating column)."""
        return int(_half_up(self.rating_x100 / 100, 0))


def published(rating: GlickoRating) -> PublishedGlicko:
    """The one rounding: r and RD to hundredths, half away from zero (1464.1064 → 1464.11); the next
    period starts from these figures."""
    r, rd = _half_up(rating.rating, 2), _half_up(rating.deviation, 2)
    return PublishedGlicko(int(r.scaleb(2)), int(rd.scaleb(2)))


def read_rule_file(
    top: _Table, name: str, rating_type: str, effective_from: Period | None, effective_to: Period | None
) -> RuleSet:
    """A `system = "glicko"` file: the [glicko] table and nothing of Elo's (ratingdb.rating.glicko).

    c is given directly (`c`) or by the periods a typical deviation takes to grow back to the maximum
    (`periods_to_maximum` and `typical_deviation`), one or the other.
    """
    for key in ELO_KEYS:
        if key in top.data:
            raise top.error(key, 'an Elo rule: a system = "glicko" rule set has none (see the [glicko] keys)')
    table = top.table("glicko")
    rating = table.number("initial_rating", low=1, high=RATING_MAX)
    deviation = table.number("initial_deviation", low=1, high=1000)
    maximum = table.number("maximum_deviation", low=1, high=1000)
    assert rating is not None and deviation is not None and maximum is not None
    if maximum < deviation:
        raise table.error("maximum_deviation", f"{maximum:g} is below initial_deviation {deviation:g}")
    if "c" in table.data and ("periods_to_maximum" in table.data or "typical_deviation" in table.data):
        raise table.error("c", "give c or periods_to_maximum with typical_deviation, not both")
    if "c" in table.data or "periods_to_maximum" not in table.data:
        c = table.number("c", low=0, high=1000)
    else:
        periods = table.number("periods_to_maximum", low=1, high=10000)
        typical = table.number("typical_deviation", low=1, high=1000)
        assert periods is not None and typical is not None
        if typical >= maximum:
            raise table.error("typical_deviation", f"{typical:g} is not below maximum_deviation {maximum:g}")
        c = c_from_periods(maximum, typical, periods)
    provisional = None
    if "provisional_deviation" in table.data:
        provisional = table.number("provisional_deviation", low=0, high=1000, none=True)
    table.read.add("provisional_deviation")
    table.done()
    top.done()
    assert c is not None
    params = GlickoParameters(rating, deviation, maximum, c, provisional)
    return glicko_rule_set(name, rating_type, effective_from, effective_to, params)
