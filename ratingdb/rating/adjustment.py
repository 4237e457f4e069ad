"""One-off list adjustments such as FIDE's 1 March 2024 compression (spec §10); imports only the stdlib."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

from .errors import RulesError
from .points import round_half_away_from_zero

Rounding = Literal["half_away", "down", "up"]


@dataclass(frozen=True)
class Adjustment:
    """A rating below `threshold` gains `factor` × (threshold − R), rounded as `rounding` says."""

    name: str
    threshold: int
    factor: Fraction
    rounding: Rounding = "half_away"


FIDE_2024_03: Final = Adjustment("fide-2024-03", 2000, Fraction(2, 5))


def adjust_rating(rating: int, adjustment: Adjustment) -> int:
    """Apply a one-off adjustment (spec §10, FIDE's 1 March 2024 list: R + 0.4 × (2000 − R) below 2000).

    1600 → 1760, 1000 → 1400; ratings at or above the threshold are unchanged.
    """
    if rating >= adjustment.threshold:
        return rating
    gain = Fraction(adjustment.factor) * (adjustment.threshold - rating)
    if adjustment.rounding == "half_away":
        whole = round_half_away_from_zero(gain.numerator, gain.denominator)
    elif adjustment.rounding == "down":
        whole = math.floor(gain)
    elif adjustment.rounding == "up":
        whole = math.ceil(gain)
    else:
        raise RulesError(f"unknown rounding {adjustment.rounding!r}: expected half_away, down or up")
    return rating + whole
