"""Tables 8.1.2 (difference → expected score) and 8.1.1 (p → dp) as data; imports only the stdlib."""

from __future__ import annotations

import bisect
import math
from typing import Final

from .errors import RulesError

# Table 8.1.2: (upper bound of |D|, H = expected score of the higher-rated player, in hundredths).
# |D| above the last bound (735) gives H = 1.00 (100).
EXPECTED_SCORE_TABLE: Final[tuple[tuple[int, int], ...]] = (
    (3, 50), (10, 51), (17, 52), (25, 53), (32, 54), (39, 55), (46, 56), (53, 57), (61, 58), (68, 59),
    (76, 60), (83, 61), (91, 62), (98, 63), (106, 64), (113, 65), (121, 66), (129, 67), (137, 68), (145, 69),
    (153, 70), (162, 71), (170, 72), (179, 73), (188, 74), (197, 75), (206, 76), (215, 77), (225, 78),
    (235, 79), (245, 80), (256, 81), (267, 82), (278, 83), (290, 84), (302, 85), (315, 86), (328, 87),
    (344, 88), (357, 89), (374, 90), (391, 91), (411, 92), (432, 93), (456, 94), (484, 95), (517, 96),
    (559, 97), (619, 98), (735, 99),
)  # fmt: skip
EXPECTED_SCORE_MAX_DIFFERENCE: Final = 735

_UPPER_BOUNDS: Final = tuple(bound for bound, _ in EXPECTED_SCORE_TABLE)
_HIGHER: Final = tuple(h for _, h in EXPECTED_SCORE_TABLE)

# Table 8.1.1: p in hundredths (100 down to 50) → dp. For p < 50, dp(p) = −dp(100 − p).
DP_TABLE: Final[dict[int, int]] = {
    100: 800, 99: 677, 98: 589, 97: 538, 96: 501, 95: 470, 94: 444, 93: 422, 92: 401, 91: 383,
    90: 366, 89: 351, 88: 336, 87: 322, 86: 309, 85: 296, 84: 284, 83: 273, 82: 262, 81: 251,
    80: 240, 79: 230, 78: 220, 77: 211, 76: 202, 75: 193, 74: 184, 73: 175, 72: 166, 71: 158,
    70: 149, 69: 141, 68: 133, 67: 125, 66: 117, 65: 110, 64: 102, 63: 95, 62: 87, 61: 80,
    60: 72, 59: 65, 58: 57, 57: 50, 56: 43, 55: 36, 54: 29, 53: 21, 52: 14, 51: 7, 50: 0,
}  # fmt: skip


def expected_score_higher(abs_d: int) -> int:
    """H column of table 8.1.2 (§8.1.2): expected score in hundredths of the higher-rated player."""
    if abs_d < 0:
        raise RulesError(f"the H column takes |D| >= 0, not {abs_d}")
    index = bisect.bisect_left(_UPPER_BOUNDS, abs_d)
    return _HIGHER[index] if index < len(_HIGHER) else 100


def expected_score(d: int) -> int:
    """Expected score PD in hundredths for D = own − opponent rating, already capped (§8.1.2).

    D >= 0 reads the H column; D < 0 reads L = 100 − H(|D|). |D| > 735 gives 100 or 0.
    """
    higher = expected_score_higher(abs(d))
    return higher if d >= 0 else 100 - higher


def expected_score_logistic(d: int | float) -> float:
    """The logistic curve 1/(1 + 10^(−D/400)) — an alternative to table §8.1.2, never used for rating.

    Calculator pages show it; at D = 400 it gives 0.909 where the table gives 0.92.
    """
    return 1.0 / (1.0 + math.pow(10.0, -d / 400.0))


def expected_score_logistic_hundredths(d: int) -> int:
    """The logistic curve (an alternative to table §8.1.2) in hundredths, .005 up, for rule sets that use it.

    Rounded so that every sum stays exact; |D| ≥ 920 gives 100 or 0, as |D| > 735 does in the table.
    """
    return math.floor(100 * expected_score_logistic(d) + 0.5)


def dp_for_fraction(p: int) -> int:
    """Rating difference dp for a fraction p in hundredths, 0..100 (table §8.1.1); p < 50 → −dp(100 − p)."""
    if not 0 <= p <= 100:
        raise RulesError(f"a fraction p must be between 0 and 100 hundredths, not {p}")
    return DP_TABLE[p] if p >= 50 else -DP_TABLE[100 - p]
