"""The rule sets in force by period: FIDE's, read from the package's TOML files; imports only the stdlib.

The files in ratingdb/rating/fide/ are package data, read through importlib.resources like the
tables are read from code: they are part of the rules library, not user input, so this stays pure in
the sense that matters (no database, no user files, same answer on every machine).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Final

from .errors import RulesError, UncoveredPeriod
from .periods import RATING_TYPES, Period
from .rulefile import parse_rule_set
from .rules import RuleSet


def _fide_rule_sets() -> tuple[RuleSet, ...]:
    folder = resources.files(__package__).joinpath("fide")
    files = [entry for entry in folder.iterdir() if entry.name.endswith(".toml")]
    sets = [parse_rule_set(entry.read_text(encoding="utf-8"), source=f"fide/{entry.name}") for entry in files]
    # Standard, rapid, blitz; oldest first within each type.
    return tuple(sorted(sets, key=lambda r: (RATING_TYPES.index(r.rating_type), r.effective_from)))


RULE_SETS: Final[tuple[RuleSet, ...]] = _fide_rule_sets()


def rule_set_for(rating_type: str, period: Period, rule_sets: Sequence[RuleSet] = RULE_SETS) -> RuleSet:
    """The rule set (§8.3.1) in force for `rating_type` when closing `period`.

    The rules are chosen by the period being closed, so history is re-rated by the rules of its time.
    `rule_sets` defaults to FIDE's; a federation's stored sets (its own rating types) are passed in.
    """
    known = dict.fromkeys([*RATING_TYPES, *(rules.rating_type for rules in rule_sets)])
    if rating_type not in known:
        raise RulesError(f"{rating_type!r} is not a rating type: expected one of {', '.join(known)}")
    matches = [rules for rules in rule_sets if rules.covers(rating_type, period)]
    if not matches:
        raise UncoveredPeriod(f"no {rating_type} rule set covers period {period}")
    if len(matches) > 1:
        names = ", ".join(rules.name for rules in matches)
        raise RulesError(f"{len(matches)} {rating_type} rule sets cover period {period}: {names}")
    return matches[0]


def fide_rule_file(name: str) -> str | None:
    """The text of FIDE's built-in rule set `name` as shipped (B.02 §7–§8 of its era), or None if none."""
    entry = resources.files(__package__).joinpath("fide").joinpath(f"{name}.toml")
    return entry.read_text(encoding="utf-8") if entry.is_file() else None
