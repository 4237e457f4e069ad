"""The pure FIDE rating rules; imports nothing from SQLAlchemy, Typer, rich or the rest of ratingdb.

Points are integers in hundredths (a win is 100, PD 0.36 is 36), so every sum is exact.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .adjustment import FIDE_2024_03, Adjustment, Rounding, adjust_rating
from .batch import BatchChange, BatchRater, FlagCache, KCache
from .change import (
    EventSum,
    GameLine,
    PeriodChange,
    RatedGame,
    game_line,
    k_after_700_rule,
    rating_change,
)
from .errors import RulesError
from .flags import ACTIVITY_WINDOW_PERIODS, FLOOR, activity_flag, below_floor, is_active
from .initial import (
    FIDE_2024_INITIAL,
    HYPOTHETICAL_GAMES,
    HYPOTHETICAL_OPPONENT,
    INITIAL_METHODS,
    INITIAL_RATING_CAP,
    MIN_GAMES_FOR_RATING,
    POOL_WINDOW_MONTHS,
    InitialMethod,
    InitialRating,
    InitialStatus,
    PoolGame,
    initial_rating,
)
from .kfactor import FIDE_K_RULES, GAMES_FOR_ESTABLISHED, KDecision, KRule, is_junior, k_factor
from .performance import METHOD_LINEAR, METHOD_TABLE, Performance, performance_linear, performance_rating
from .periods import (
    CLOSING_DAYS,
    OFFICIAL_CLOSING_DAYS,
    RATING_TYPES,
    Period,
    RatingType,
    check_rating_type,
    closing_date,
    latest_period_for_event,
    period_for_event,
)
from .points import (
    DRAW,
    LOSS,
    ROUNDINGS,
    SCORES,
    WIN,
    check_score,
    round_fraction_to_hundredths,
    round_half_away_from_zero,
    round_with,
)
from .rules import (
    CAP,
    MAX_K_TIMES_GAMES,
    RuleSet,
    capped_difference,
    excluded_by_difference,
    expected_score_under,
    upgraded_games,
    without_cap,
)
from .tables import (
    DP_TABLE,
    EXPECTED_SCORE_MAX_DIFFERENCE,
    EXPECTED_SCORE_TABLE,
    dp_for_fraction,
    expected_score,
    expected_score_higher,
    expected_score_logistic,
    expected_score_logistic_hundredths,
)

if TYPE_CHECKING:
    from .catalogue import RULE_SETS, fide_rule_file, rule_set_for
    from .norms import NORMS, Applicant, NormCheck, NormEvent, NormGame, check_norm, check_norms
    from .rulefile import RuleFileError, parse_rule_set

# FIDE's rule sets are parsed from their TOML files when first asked for (PEP 562), not when the package
# is imported: a command that only needs a Period (`list`, `player`, every read) does not pay for it.
_LOADED_ON_USE = {
    "RULE_SETS": "catalogue",
    "fide_rule_file": "catalogue",
    "rule_set_for": "catalogue",
    "RuleFileError": "rulefile",
    "parse_rule_set": "rulefile",
    # Title norms (B.01): only `norm check` and `report norms` need them.
    "NORMS": "norms",
    "Applicant": "norms",
    "NormCheck": "norms",
    "NormEvent": "norms",
    "NormGame": "norms",
    "check_norm": "norms",
    "check_norms": "norms",
}


def __getattr__(name: str) -> Any:
    module = _LOADED_ON_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value


__all__ = [
    "NORMS",
    "Applicant",
    "NormCheck",
    "NormEvent",
    "NormGame",
    "check_norm",
    "check_norms",
    "BatchChange",
    "BatchRater",
    "FlagCache",
    "KCache",
    "FIDE_2024_INITIAL",
    "FIDE_K_RULES",
    "INITIAL_METHODS",
    "ROUNDINGS",
    "InitialMethod",
    "KRule",
    "RuleFileError",
    "expected_score_under",
    "fide_rule_file",
    "expected_score_logistic_hundredths",
    "parse_rule_set",
    "round_with",
    "upgraded_games",
    "ACTIVITY_WINDOW_PERIODS",
    "CLOSING_DAYS",
    "DP_TABLE",
    "DRAW",
    "EXPECTED_SCORE_MAX_DIFFERENCE",
    "EXPECTED_SCORE_TABLE",
    "FIDE_2024_03",
    "FLOOR",
    "GAMES_FOR_ESTABLISHED",
    "HYPOTHETICAL_GAMES",
    "HYPOTHETICAL_OPPONENT",
    "INITIAL_RATING_CAP",
    "LOSS",
    "MAX_K_TIMES_GAMES",
    "CAP",
    "METHOD_LINEAR",
    "METHOD_TABLE",
    "MIN_GAMES_FOR_RATING",
    "OFFICIAL_CLOSING_DAYS",
    "POOL_WINDOW_MONTHS",
    "RATING_TYPES",
    "RULE_SETS",
    "SCORES",
    "WIN",
    "Adjustment",
    "EventSum",
    "GameLine",
    "InitialRating",
    "InitialStatus",
    "KDecision",
    "Performance",
    "Period",
    "PeriodChange",
    "PoolGame",
    "RatedGame",
    "RatingType",
    "Rounding",
    "RuleSet",
    "RulesError",
    "activity_flag",
    "adjust_rating",
    "below_floor",
    "capped_difference",
    "check_rating_type",
    "check_score",
    "closing_date",
    "dp_for_fraction",
    "excluded_by_difference",
    "expected_score",
    "expected_score_higher",
    "expected_score_logistic",
    "game_line",
    "initial_rating",
    "is_active",
    "is_junior",
    "k_after_700_rule",
    "k_factor",
    "latest_period_for_event",
    "performance_linear",
    "performance_rating",
    "period_for_event",
    "rating_change",
    "round_fraction_to_hundredths",
    "round_half_away_from_zero",
    "rule_set_for",
    "without_cap",
]
