"""A rule set and its per-game rules: the cap (§8.3.1), rapid/blitz exclusion; imports only the stdlib."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from .flags import FLOOR
from .initial import FIDE_2024_INITIAL, InitialMethod
from .integrity import DEFAULT_THRESHOLDS, IntegrityThresholds
from .kfactor import FIDE_K_RULES, KRule
from .periods import Period
from .points import Rounding
from .systems import DEFAULT_SYSTEM
from .tables import expected_score, expected_score_logistic_hundredths

ExpectedScoreMethod = Literal["table", "logistic"]
BelowFloor = Literal["unrated", "floor"]

CAP: Final = 400
MAX_K_TIMES_GAMES: Final = 700


@dataclass(frozen=True)
class RuleSet:
    """Everything the rating rules need for one rating type over a span of periods (B.02 §7–§8).

    The first eight fields are the §8.3.1 cap and the rapid/blitz 600/2600 exclusion; the rest default
    to FIDE's current rules, so a rule set states only where it differs. FIDE's sets are read from the
    TOML files shipped in ratingdb/rating/fide/ (see `ratingdb.rating.rulefile`).
    """

    name: str
    rating_type: str  # standard, rapid, blitz, or a federation's own type such as "national"
    effective_from: Period | None  # None: open start
    effective_to: Period | None  # inclusive; None: open end
    cap: int | None  # 400, or None for no cap
    cap_exempt_from: int | None  # a player rated >= this uses the real difference
    exclusion_difference: int | None  # a game is not rated if |difference| >= this ...
    exclusion_above: int | None  # ... and at least one player is rated strictly above this
    # FIDE 2022–2024: the cap helps only the higher-rated player, in one game per tournament (§12).
    one_upgrade_per_tournament: bool = False
    expected: ExpectedScoreMethod = "table"  # table 8.1.2, or the logistic curve in hundredths
    floor: int = FLOOR  # §7.2.1
    below_floor: BelowFloor = "unrated"  # §7.2.1 shows the player unrated; "floor" keeps them at it
    k_rules: tuple[KRule, ...] = FIDE_K_RULES  # §8.3.3, tried in order
    k_times_games_max: int | None = MAX_K_TIMES_GAMES  # the 700 rule, or None
    initial: InitialMethod = FIDE_2024_INITIAL  # §8.2
    rounding: Rounding = "half_away"  # §8.3.4
    # The rating system a close under this set runs (ratingdb/services/systems/): FIDE's Elo, or another
    # system registered there.
    system: str = DEFAULT_SYSTEM
    # When the integrity screen (ratingdb.rating.integrity) flags an event: the rule file's [integrity].
    integrity: IntegrityThresholds = DEFAULT_THRESHOLDS

    def covers(self, rating_type: str, period: Period) -> bool:
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


def expected_score_under(d: int, rules: RuleSet) -> int:
    """PD in hundredths for a capped D: table 8.1.2 (§8.1.2), or the logistic curve if the set says so."""
    return expected_score_logistic_hundredths(d) if rules.expected == "logistic" else expected_score(d)


def capped_difference(own: int, opponent: int, rules: RuleSet, *, upgrade: bool = True) -> int:
    """D = own − opponent, with a difference above the cap counted as the cap (§8.3.1).

    The exemption is judged on the rated player's own rating: under standard-2025-10 a 2813 player
    uses D = 413 against a 2400 player, while the 2400 player uses −400.
    Under a one-upgrade rule set (FIDE 2022–2024) only the higher-rated player is capped, and only in
    the game `tournament_differences` chooses (`upgrade`); a game taken alone is that game.
    """
    d = own - opponent
    if rules.cap is None:
        return d
    if rules.cap_exempt_from is not None and own >= rules.cap_exempt_from:
        return d
    if rules.one_upgrade_per_tournament:
        return rules.cap if upgrade and d > rules.cap else d
    return max(-rules.cap, min(rules.cap, d))


def upgraded_games(differences: Sequence[tuple[int, object]], rules: RuleSet) -> set[int]:
    """Indexes of the games whose D the cap may change (§8.3.1; 2022: one upgrade per tournament).

    `differences` are (own − opponent, event) per game. Normally every game; under a one-upgrade rule
    set only, per event, the first game with the greatest D above the cap: "a player may benefit from
    only one upgrade under this rule, for the game in which the rating difference is greatest".
    """
    if not rules.one_upgrade_per_tournament or rules.cap is None:
        return set(range(len(differences)))
    best: dict[object, int] = {}
    for index, (d, event) in enumerate(differences):
        if d > rules.cap and (event not in best or d > differences[best[event]][0]):
            best[event] = index
    return set(best.values())


def excluded_by_difference(rating_a: int, rating_b: int, rules: RuleSet) -> bool:
    """Whether a rapid/blitz game is not rated: |difference| >= 600 and one player above 2600.

    Rapid and blitz regulations as amended 1 December 2024 (rapid/blitz §8.3.1); rule sets with
    `exclusion_difference` carry it. "Above" is strict: 2600 itself does not trigger the exclusion.
    """
    if rules.exclusion_difference is None:
        return False
    far_apart = abs(rating_a - rating_b) >= rules.exclusion_difference
    above = rules.exclusion_above is None or max(rating_a, rating_b) > rules.exclusion_above
    return far_apart and above
