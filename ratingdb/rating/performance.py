"""Performance rating (Title Regulations §1.4.8) and the linear approximation; imports only the stdlib."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .errors import RulesError
from .points import round_half_away_from_zero
from .tables import dp_for_fraction

METHOD_TABLE: Final = "FIDE table 8.1.1"
METHOD_LINEAR: Final = "linear approximation Ra + 400 × (W − L) / n"
PERFECT_SCORE_DP: Final = 800


@dataclass(frozen=True)
class Performance:
    """A performance rating with the method and the rule that produced it, for labelled display."""

    rating: int
    ra: int  # average opponent rating, rounded to whole
    percentage: int | None  # score in whole per cent
    dp: int
    method: str
    rule: str


def _average_rating(opponent_ratings: Sequence[int]) -> int:
    if not opponent_ratings:
        raise RulesError("a performance rating needs at least one game")
    # Ratings are positive, so half away from zero is the regulation's ".5 up".
    return round_half_away_from_zero(sum(opponent_ratings), len(opponent_ratings))


def performance_rating(opponent_ratings: Sequence[int], score_x100: int) -> Performance:
    """Rp = Ra + dp (Title Regulations §1.4.8), dp from table 8.1.1; 100 % → +800, 0 % → −800.

    Ra is the opponents' average rounded to whole (.5 up); p is the score as a whole percentage (.5 up).
    6.5/12 against Ra 2789 → 54 % → dp 29 → Rp 2818.
    """
    n = len(opponent_ratings)
    ra = _average_rating(opponent_ratings)
    if not 0 <= score_x100 <= 100 * n:
        raise RulesError(f"a score of {score_x100 / 100:g} is impossible in {n} games")
    percentage = round_half_away_from_zero(score_x100, n)
    dp = dp_for_fraction(percentage)
    if score_x100 == 100 * n:
        rule = "100 % score: Ra + 800"
    elif score_x100 == 0:
        rule = "0 % score: Ra − 800"
    else:
        rule = f"{percentage} % score: Ra {'+' if dp >= 0 else '−'} dp {abs(dp)} from table 8.1.1"
    return Performance(ra + dp, ra, percentage, dp, METHOD_TABLE, rule)


def performance_linear(opponent_ratings: Sequence[int], wins: int, losses: int) -> Performance:
    """The calculator-site approximation Ra + 400 × (W − L) / n — not Title Regulations §1.4.8.

    Shown labelled beside `performance_rating`, never instead of it. A 100 % or 0 % score uses ±800
    as §1.4.8 does (the formula alone would stop at ±400) and the rule says so. Reading: the
    400 × (W − L) / n term is rounded half away from zero.
    """
    n = len(opponent_ratings)
    ra = _average_rating(opponent_ratings)
    if wins < 0 or losses < 0 or wins + losses > n:
        raise RulesError(f"{wins} wins and {losses} losses are impossible in {n} games")
    draws = n - wins - losses
    percentage = round_half_away_from_zero(100 * wins + 50 * draws, n)
    if wins == n:
        dp, rule = PERFECT_SCORE_DP, "100 % score: Ra + 800, as §1.4.8 (the formula alone gives +400)"
    elif losses == n:
        dp, rule = -PERFECT_SCORE_DP, "0 % score: Ra − 800, as §1.4.8 (the formula alone gives −400)"
    else:
        dp = round_half_away_from_zero(400 * (wins - losses), n)
        rule = f"Ra + 400 × ({wins} − {losses}) / {n}"
    return Performance(ra + dp, ra, percentage, dp, METHOD_LINEAR, rule)
