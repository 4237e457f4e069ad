"""Points in integer hundredths and the exact rounding rules (§8.3.4); imports only the standard library."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Final, Literal

from .errors import RulesError

Rounding = Literal["half_away", "down", "up"]
ROUNDINGS: Final[tuple[Rounding, ...]] = ("half_away", "down", "up")

# Scores and expected scores are integers in hundredths: a win is 100, PD 0.36 is 36. PD has two
# decimals in table 8.1.2, so every sum and every K × Σ dR is an exact integer; floats are not.
WIN: Final = 100
DRAW: Final = 50
LOSS: Final = 0
SCORES: Final = frozenset({WIN, DRAW, LOSS})


def check_score(score: int) -> int:
    """Return `score` if it is a game result in hundredths (100, 50 or 0), as §8.3.2 rates them."""
    if score not in SCORES:
        raise RulesError(
            f"a game score must be 100 (win), 50 (draw) or 0 (loss) in hundredths, not {score!r}"
        )
    return score


def round_half_away_from_zero(numerator: int, denominator: int = 1) -> int:
    """Round numerator/denominator to the nearest whole number, .5 away from zero (§8.3.4).

    Exact rational arithmetic: −250/100 → −3, 9248/100 → 92, −2250/100 → −23. Python's round() rounds
    half to even and would give −2 for −2.50, which is why it is not used anywhere in the rules.
    """
    if denominator == 0:
        raise RulesError("cannot round a fraction with denominator 0")
    if denominator < 0:
        numerator, denominator = -numerator, -denominator
    magnitude = (2 * abs(numerator) + denominator) // (2 * denominator)
    return magnitude if numerator >= 0 else -magnitude


def round_fraction_to_hundredths(numerator: int, denominator: int) -> int:
    """Round the ratio numerator/denominator to the nearest hundredth, .005 up, in hundredths (§8.2.2 p).

    The result is an integer number of hundredths: 4/7 = 0.5714… → 57. Used for the fraction p of an
    unrated player's pool, which the table 8.1.1 lookup needs rounded to two decimals.
    """
    return round_half_away_from_zero(100 * numerator, denominator)


def round_with(numerator: int, denominator: int, rounding: Rounding) -> int:
    """numerator/denominator to a whole number as a rule set says (§8.3.4 is "half_away").

    "half_away" is §8.3.4's nearest whole number with .5 away from zero; "down" and "up" round toward
    minus and plus infinity, for federations (and one-off adjustments) that truncate.
    """
    if rounding == "half_away":
        return round_half_away_from_zero(numerator, denominator)
    if denominator == 0:
        raise RulesError("cannot round a fraction with denominator 0")
    if rounding == "down":
        return math.floor(Fraction(numerator, denominator))
    if rounding == "up":
        return math.ceil(Fraction(numerator, denominator))
    raise RulesError(f"unknown rounding {rounding!r}: expected half_away, down or up")
