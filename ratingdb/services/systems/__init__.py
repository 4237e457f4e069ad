"""The rating systems a close can run, by the name a rule set gives (`RuleSet.system`).

Each system is a module here implementing `RatingSystem` (base.py says what it is handed and when).
FIDE's Elo is `elo`. Must not import the CLI, the formats or the reports.
"""

from __future__ import annotations

from ratingdb.errors import ConfigError
from ratingdb.rating import RuleSet
from ratingdb.services.systems.base import Close, CloseSummary, EventInfo, PlayerChange, RatingSystem
from ratingdb.services.systems.elo import Elo

SYSTEMS: dict[str, type[RatingSystem]] = {"elo": Elo}


def rating_system(rules: RuleSet) -> type[RatingSystem]:
    """The system a close under `rules` runs."""
    system = SYSTEMS.get(rules.system)
    if system is None:
        known = ", ".join(sorted(SYSTEMS))
        raise ConfigError(
            f"rule set '{rules.name}' names the rating system '{rules.system}': known are {known}"
        )
    return system


__all__ = ["SYSTEMS", "Close", "CloseSummary", "EventInfo", "PlayerChange", "RatingSystem", "rating_system"]
