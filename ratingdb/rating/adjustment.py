"""One-off list adjustments such as FIDE's 1 March 2024 compression; imports only the stdlib."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from .points import Rounding, round_with


@dataclass(frozen=True)
class Adjustment:
    """A rating below `threshold` gains `factor` × (threshold − R), rounded as `rounding` says."""

    name: str
    threshold: int
    factor: Fraction
    rounding: Rounding = "half_away"


FIDE_2024_03: Final = Adjustment("fide-2024-03", 2000, Fraction(2, 5))


def adjust_rating(rating: int, adjustment: Adjustment) -> int:
    """Apply a one-off adjustment: no paragraph of B.02 §7–§8, a decision such as FIDE's for 1 March 2024.

    FIDE's: R + 0.4 × (2000 − R) below 2000.

    1600 → 1760, 1000 → 1400; ratings at or above the threshold are unchanged.
    """
    if rating >= adjustment.threshold:
        return rating
    gain = Fraction(adjustment.factor) * (adjustment.threshold - rating)
    return rating + round_with(gain.numerator, gain.denominator, adjustment.rounding)
