"""The rating systems a close can run, by the name a rule set gives (`RuleSet.system`).

Each system is a module here implementing `RatingSystem` (base.py says what it is handed and when).
FIDE's Elo is `elo`; Glickman's Glicko-2 is `glicko2`. A close imports the module of its own system only
(an Elo close does not load Glicko-2's rules). Must not import the CLI, the formats or the reports.
"""

from __future__ import annotations

from importlib import import_module

from ratingdb.errors import ConfigError
from ratingdb.rating import RuleSet
from ratingdb.services.systems.base import (
    Close,
    CloseSummary,
    EventInfo,
    ExcludedEvent,
    PlayerChange,
    RatingSystem,
)

# System name → the module here that implements it, and its class.
SYSTEMS: dict[str, tuple[str, str]] = {"elo": ("elo", "Elo"), "glicko2": ("glicko2", "Glicko2")}
# System name → its module here that adds the system's members to a list's bundle (services/bundle.py):
# `prepare(source)` and `members(source)`.
BUNDLED: dict[str, str] = {"elo": "elo_bundle", "glicko2": "glicko2_bundle"}


def rating_system(rules: RuleSet) -> type[RatingSystem]:
    """The system a close under `rules` runs."""
    found = SYSTEMS.get(rules.system)
    if found is None:
        known = ", ".join(sorted(SYSTEMS))
        raise ConfigError(
            f"rule set '{rules.name}' names the rating system '{rules.system}': known are {known}"
        )
    module, name = found
    system: type[RatingSystem] = getattr(import_module(f"{__name__}.{module}"), name)
    return system


__all__ = [
    "BUNDLED",
    "SYSTEMS",
    "Close",
    "CloseSummary",
    "EventInfo",
    "ExcludedEvent",
    "PlayerChange",
    "RatingSystem",
    "rating_system",
]
