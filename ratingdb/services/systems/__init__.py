"""The rating systems a close can run, by the name a rule set gives (`RuleSet.system`).

Each system is a module here implementing `RatingSystem` (base.py says what it is handed and when).
FIDE's Elo is `elo`; Glickman's Glicko-2 is `glicko2`, his first system Glicko `glicko`. A close imports
the module of its own system only (an Elo close does not load Glicko-2's rules); a reader of lists and
records loops over all of them (`systems()`). Must not import the CLI, the formats or the reports.
"""

from __future__ import annotations

from importlib import import_module
from typing import Final

from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.rating import Period, RuleSet
from ratingdb.services.systems.base import (
    Close,
    CloseCounts,
    CloseSummary,
    EventInfo,
    ExcludedEvent,
    ListImport,
    PlayerChange,
    RatingSystem,
    RecordCounts,
)

# System name → the module here that implements it, and its class.
SYSTEMS: dict[str, tuple[str, str]] = {
    "elo": ("elo", "Elo"),
    "glicko2": ("glicko2", "Glicko2"),
    "glicko": ("glicko", "Glicko"),
}
# System name → its module here that adds the system's members to a list's bundle (services/bundle.py):
# `prepare(source)` and `members(source)`.
BUNDLED: dict[str, str] = {"elo": "elo_bundle", "glicko2": "glicko2_bundle", "glicko": "glicko_bundle"}
DEFAULT: Final = "elo"  # a list no other system claims is an Elo list (its entries are all it has)


def rating_system(rules: RuleSet) -> type[RatingSystem]:
    """The system a close under `rules` runs."""
    found = SYSTEMS.get(rules.system)
    if found is None:
        known = ", ".join(sorted(SYSTEMS))
        raise ConfigError(
            f"rule set '{rules.name}' names the rating system '{rules.system}': known are {known}"
        )
    return _load(rules.system)


def _load(name: str) -> type[RatingSystem]:
    module, cls = SYSTEMS[name]
    system: type[RatingSystem] = getattr(import_module(f"{__name__}.{module}"), cls)
    return system


def systems() -> list[type[RatingSystem]]:
    """Every system, the default (Elo) first: what a reader of lists and records loops over."""
    return [_load(name) for name in SYSTEMS]


def list_system(session: Session, list_id: int) -> type[RatingSystem]:
    """The system a list is one of: the first that claims it, else the default (Elo)."""
    for system in systems():
        if system.claims(session, list_id):
            return system
    return _load(DEFAULT)


def list_import(session: Session, rating_type: str, period: Period) -> ListImport | None:
    """The importer of a `rating_type` list file of `period`: its system's own, or None (the shared one)."""
    for system in systems():
        found = system.list_import(session, rating_type, period)
        if found is not None:
            return found
    return None


__all__ = [
    "BUNDLED", "DEFAULT", "SYSTEMS", "Close", "CloseCounts", "CloseSummary", "EventInfo", "ExcludedEvent",
    "ListImport", "PlayerChange", "RatingSystem", "RecordCounts", "list_import", "list_system",
    "rating_system", "systems",
]  # fmt: skip
