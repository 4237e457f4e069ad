"""The rating systems a rule file may name, and the module reading each one's table; imports the stdlib only.

The registry of the pure floor, beside ratingdb.services.systems (the close's stages) and
ratingdb.reports.systems (the pages): FIDE's Elo is the default (a rule file without `system`), read by
ratingdb.rating.rulefile itself; every other system's `[table]` is read by `read_rule_file` of its own
module, loaded when a file names it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any, Final

DEFAULT_SYSTEM: Final = "elo"
# System name → the module of ratingdb.rating whose `read_rule_file` reads its table (None: rulefile's own).
RULE_FILE_SYSTEMS: Final[dict[str, str | None]] = {"elo": None, "glicko2": "glicko2", "glicko": "glicko"}


def rule_file_reader(system: str) -> Callable[..., Any]:
    """`read_rule_file(top, name, rating_type, effective_from, effective_to)` of the system's module."""
    module = RULE_FILE_SYSTEMS[system]
    assert module is not None, system
    reader: Callable[..., Any] = import_module(f"ratingdb.rating.{module}").read_rule_file
    return reader
