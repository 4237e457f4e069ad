"""Rule sets by period: the 400-point cap (§8.3.1), rapid/blitz exclusion; imports only the stdlib."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .errors import RulesError
from .periods import Period, RatingType, check_rating_type


@dataclass(frozen=True)
class RuleSet:
    """The rules of §8.3.1 (and the rapid/blitz 600/2600 exclusion) in force for a span of periods."""

    name: str
    rating_type: RatingType
    effective_from: Period | None  # None: open start
    effective_to: Period | None  # inclusive; None: open end
    cap: int | None  # 400, or None for no cap
    cap_exempt_from: int | None  # a player rated >= this uses the real difference
    exclusion_difference: int | None  # a game is not rated if |difference| >= this ...
    exclusion_above: int | None  # ... and at least one player is rated strictly above this

    def covers(self, rating_type: RatingType, period: Period) -> bool:
        """Whether this rule set applies to `rating_type` in `period` (§8.3.1 effective periods)."""
        if rating_type != self.rating_type:
            return False
        if self.effective_from is not None and period < self.effective_from:
            return False
        return self.effective_to is None or period <= self.effective_to

    def without_cap(self) -> RuleSet:
        """A copy with no 400-point cap (§8.3.1 switched off), for the calculator's --no-cap."""
        return dataclasses.replace(self, name=f"{self.name}-no-cap", cap=None, cap_exempt_from=None)


def without_cap(rules: RuleSet) -> RuleSet:
    """The rule set `rules` with the §8.3.1 cap removed (same as `rules.without_cap()`)."""
    return rules.without_cap()


CAP: Final = 400
_MARCH_2024: Final = Period(2024, 3)
_DECEMBER_2024: Final = Period(2024, 12)
_OCTOBER_2025: Final = Period(2025, 10)


def _rule_set(
    name: str,
    rating_type: RatingType,
    effective_from: Period | None,
    effective_to: Period | None,
    *,
    cap_exempt_from: int | None = None,
    exclusion: tuple[int, int] | None = None,
) -> RuleSet:
    difference, above = exclusion if exclusion is not None else (None, None)
    return RuleSet(name, rating_type, effective_from, effective_to, CAP, cap_exempt_from, difference, above)


RULE_SETS: Final[tuple[RuleSet, ...]] = (
    # Standard 2024-03 … 2025-09: a difference above 400 counts as 400 for every player.
    _rule_set("standard-2024-03", "standard", _MARCH_2024, _OCTOBER_2025.shift(-1)),
    # Standard from 2025-10: the cap only for players rated below 2650, judged on the rated player.
    _rule_set("standard-2025-10", "standard", _OCTOBER_2025, None, cap_exempt_from=2650),
    # Rapid and blitz: the cap for everyone; from 1 December 2024 also the 600/2600 exclusion.
    _rule_set("rapid-2024-03", "rapid", _MARCH_2024, _DECEMBER_2024.shift(-1)),
    _rule_set("rapid-2024-12", "rapid", _DECEMBER_2024, None, exclusion=(600, 2600)),
    _rule_set("blitz-2024-03", "blitz", _MARCH_2024, _DECEMBER_2024.shift(-1)),
    _rule_set("blitz-2024-12", "blitz", _DECEMBER_2024, None, exclusion=(600, 2600)),
)


def rule_set_for(
    rating_type: RatingType, period: Period, rule_sets: Sequence[RuleSet] = RULE_SETS
) -> RuleSet:
    """The rule set (§8.3.1) in force for `rating_type` when closing `period`.

    The rules are chosen by the period being closed, so history is re-rated by the rules of its time.
    The built-in sets start with the regulations applied from 1 March 2024; earlier periods raise
    RulesError unless the caller passes `rule_sets` covering them.
    """
    check_rating_type(rating_type)
    matches = [rules for rules in rule_sets if rules.covers(rating_type, period)]
    if not matches:
        raise RulesError(f"no {rating_type} rule set covers period {period}")
    if len(matches) > 1:
        names = ", ".join(rules.name for rules in matches)
        raise RulesError(f"{len(matches)} {rating_type} rule sets cover period {period}: {names}")
    return matches[0]


def capped_difference(own: int, opponent: int, rules: RuleSet) -> int:
    """D = own − opponent, with a difference above the cap counted as the cap (§8.3.1).

    The exemption is judged on the rated player's own rating: under standard-2025-10 a 2813 player
    uses D = 413 against a 2400 player, while the 2400 player uses −400.
    """
    d = own - opponent
    if rules.cap is None:
        return d
    if rules.cap_exempt_from is not None and own >= rules.cap_exempt_from:
        return d
    return max(-rules.cap, min(rules.cap, d))


def excluded_by_difference(rating_a: int, rating_b: int, rules: RuleSet) -> bool:
    """Whether a rapid/blitz game is not rated: |difference| >= 600 and one player above 2600.

    Rapid and blitz regulations as amended 1 December 2024 (spec §2); rule sets with
    `exclusion_difference` carry it. "Above" is strict: 2600 itself does not trigger the exclusion.
    """
    if rules.exclusion_difference is None:
        return False
    far_apart = abs(rating_a - rating_b) >= rules.exclusion_difference
    above = rules.exclusion_above is None or max(rating_a, rating_b) > rules.exclusion_above
    return far_apart and above
