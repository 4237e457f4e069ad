"""The pure FIDE rating rules; imports nothing from SQLAlchemy, Typer, rich or ratingdb but ratingdb.lazy.

Points are integers in hundredths (a win is 100, PD 0.36 is 36), so every sum is exact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratingdb.lazy import on_first_use

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
from .working import Working, change_working, initial_working

if TYPE_CHECKING:
    from .catalogue import RULE_SETS, fide_rule_file, rule_set_for
    from .norms import NORMS, Applicant, NormCheck, NormEvent, NormGame, check_norm, check_norms
    from .rulefile import RuleFileError, parse_rule_set

# FIDE's rule sets are parsed from their TOML files when first asked for, not when the package is
# imported: a command that only needs a Period (`list`, `player`, every read) does not pay for it. Title
# norms (B.01): only `norm check` and `report norms` need them. (ratingdb.lazy says how.)
__getattr__ = on_first_use(
    __name__,
    {
        "catalogue": ("RULE_SETS", "fide_rule_file", "rule_set_for"),
        "rulefile": ("RuleFileError", "parse_rule_set"),
        "norms": ("NORMS", "Applicant", "NormCheck", "NormEvent", "NormGame", "check_norm", "check_norms"),
    },
)


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
    "Working",
    "change_working",
    "initial_working",
]
