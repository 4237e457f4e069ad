"""A rule set written as TOML text, parsed and checked into a RuleSet; imports only the stdlib.

Pure: it takes the text, never a path, so the same parser reads FIDE's files shipped in the package
and a federation's file handed to `ratingdb rules add`. Every key is required (the string "none"
switches a rule off), unknown keys are refused, and each error names the key and says what to write.
See ratingdb/rating/fide/standard-2025-10.toml for a complete, commented example.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from typing import Any, Final

from .errors import RulesError
from .initial import INITIAL_METHODS, InitialMethod
from .integrity import DEFAULT_THRESHOLDS, IntegrityThresholds
from .kfactor import TRACKED_REACHED, KRule
from .periods import Period
from .points import ROUNDINGS
from .rules import RuleSet
from .systems import DEFAULT_SYSTEM, RULE_FILE_SYSTEMS, rule_file_reader

NONE: Final = "none"
# FIDE's files are 3 KB; the limit keeps a stored rule set from costing every close and `rules list`
# the parse of a huge text (a 100 MB file took 14 s a close).
RULE_FILE_MAX: Final = 64_000
# What the lists and the close can hold (ratingdb.formats.limits; the CHECKs of list_entry): a rating
# the close may publish — a floor players are raised to, a fixed start, a cap on initial ratings — is
# 1 to 3999; a threshold compared with ratings is 0 to 3999; K is at most 1000.
RATING_MAX: Final = 3999
K_MAX: Final = 1000
ELO_KEYS: Final = ("expected_score", "rounding", "cap", "exclusion", "floor", "k", "initial")
_NAME: Final = re.compile(r"[a-z0-9][a-z0-9.-]{0,63}")
_RATING_TYPE: Final = re.compile(r"[a-z][a-z0-9_]{0,7}")  # the lists' rating_type column holds 8


class RuleFileError(RulesError):
    """A rule file that cannot be used, naming the key and the reason (docs/guide/rule-sets.md)."""

    def __init__(self, source: str, key: str | None, reason: str) -> None:
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {reason}")
        self.source, self.key, self.reason = source, key, reason


class _Table:
    """One TOML table with the dotted name of its keys, for error messages; refuses keys not read."""

    def __init__(self, source: str, prefix: str, data: Mapping[str, Any]) -> None:
        self.source, self.prefix, self.data = source, prefix, data
        self.read: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def error(self, name: str | None, reason: str) -> RuleFileError:
        return RuleFileError(self.source, self.key(name) if name else self.prefix.rstrip(".") or None, reason)

    def raw(self, name: str, what: str) -> Any:
        self.read.add(name)
        if name not in self.data:
            raise self.error(name, f"missing: write {what}")
        return self.data[name]

    def integer(self, name: str, *, low: int, high: int, none: bool = False, what: str = "") -> int | None:
        hint = what or f"a whole number from {low} to {high}" + (f' or "{NONE}"' if none else "")
        value = self.raw(name, hint)
        if none and value == NONE:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"{value!r} is not a whole number: write {hint}")
        if not low <= value <= high:
            raise self.error(name, f"{value} is out of range: write {hint}")
        return value

    def required_int(self, name: str, *, low: int, high: int) -> int:
        value = self.integer(name, low=low, high=high)
        assert value is not None
        return value

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        hint = " or ".join(f'"{c}"' for c in choices)
        value = self.raw(name, hint)
        if value not in choices:
            raise self.error(name, f"{value!r} is not one of the choices: write {hint}")
        return str(value)

    def number(self, name: str, *, low: float, high: float, none: bool = False) -> float | None:
        hint = f"a number from {low:g} to {high:g}" + (f' or "{NONE}"' if none else "")
        value = self.raw(name, hint)
        if none and value == NONE:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(name, f"{value!r} is not a number: write {hint}")
        if not low <= value <= high:
            raise self.error(name, f"{value:g} is out of range: write {hint}")
        return float(value)

    def boolean(self, name: str) -> bool:
        value = self.raw(name, "true or false")
        if not isinstance(value, bool):
            raise self.error(name, f"{value!r} is not true or false")
        return value

    def period(self, name: str, *, optional: bool = False) -> Period | None:
        if optional and name not in self.data:
            self.read.add(name)
            return None
        value = self.raw(name, 'a rating period as "YYYY-MM", for example "2025-10"')
        try:
            return Period.parse(value) if isinstance(value, str) else Period.parse(repr(value))
        except RulesError:
            reason = f'{value!r} is not a rating period: write "YYYY-MM", e.g. "2025-10"'
            raise self.error(name, reason) from None

    def table(self, name: str) -> _Table:
        value = self.raw(name, f"a [{self.key(name)}] table")
        if not isinstance(value, dict):
            raise self.error(name, f"must be a table ([{self.key(name)}]), not {value!r}")
        return _Table(self.source, f"{self.key(name)}.", value)

    def done(self) -> None:
        """Refuse keys nobody read: a misspelt key must not be silently ignored."""
        for name in self.data:
            if name not in self.read:
                raise self.error(name, "unknown key: check its spelling against the documented keys")


def parse_rule_set(text: str, *, source: str = "rule file") -> RuleSet:
    """The rule set a TOML rule file describes (B.02 §7–§8; docs/guide/rule-sets.md: each key).

    Raises RuleFileError naming `source`, the key and the reason for anything it cannot use.
    """
    if len(text) > RULE_FILE_MAX:
        raise RuleFileError(
            source, None, f"{len(text):,} characters is too long for a rule file (at most {RULE_FILE_MAX:,})"
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(source, None, f"not valid TOML ({exc})") from None
    except RecursionError:
        raise RuleFileError(
            source, None, "not a rule file: its tables or arrays are nested too deeply"
        ) from None
    top = _Table(source, "", data)

    name = top.raw("name", 'the rule set\'s name, e.g. "national-2026"')
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise top.error("name", f"{name!r} is not a name: use lowercase letters, digits, '-' and '.'")
    rating_type = top.raw("rating_type", '"standard", "rapid", "blitz" or your own type, e.g. "national"')
    if not isinstance(rating_type, str) or not _RATING_TYPE.fullmatch(rating_type):
        raise top.error(
            "rating_type", f"{rating_type!r} is not a rating type: 1–8 lowercase letters, digits or '_'"
        )
    effective_from = top.period("effective_from")
    effective_to = top.period("effective_until", optional=True)
    if effective_from is not None and effective_to is not None and effective_to < effective_from:
        raise top.error("effective_until", f"{effective_to} is before effective_from {effective_from}")
    system = top.choice("system", tuple(RULE_FILE_SYSTEMS)) if "system" in top.data else DEFAULT_SYSTEM
    integrity = _integrity(top)
    if system != DEFAULT_SYSTEM:  # the system's own table, read by its module (rating.systems)
        read = rule_file_reader(system)(top, name, rating_type, effective_from, effective_to)
        return dataclasses.replace(read, integrity=integrity)
    top.read.add("system")  # left out: Elo
    expected = top.choice("expected_score", ("table", "logistic"))
    rounding = top.choice("rounding", ROUNDINGS)

    cap_table = top.table("cap")
    cap = cap_table.integer("difference", low=1, high=3000, none=True)
    exempt = cap_table.integer("exempt_from", low=0, high=RATING_MAX, none=True)
    one_upgrade = cap_table.boolean("one_upgrade_per_tournament")
    cap_table.done()
    if cap is None and (exempt is not None or one_upgrade):
        raise cap_table.error(None, 'with difference = "none" there is no cap to exempt from or upgrade')

    exclusion = top.table("exclusion")
    excl_difference = exclusion.integer("difference", low=1, high=3000, none=True)
    excl_above = exclusion.integer("above", low=0, high=RATING_MAX, none=True)
    exclusion.done()
    if excl_difference is None and excl_above is not None:
        raise exclusion.error("above", 'needs a difference: set difference too, or write "none" here')

    floor_table = top.table("floor")
    floor = floor_table.required_int("rating", low=0, high=RATING_MAX)
    below = floor_table.choice("below", ("unrated", "floor"))
    if below == "floor" and floor < 1:
        raise floor_table.error(
            "rating", f"{floor} cannot be a rating players are raised to: write 1 to {RATING_MAX}"
        )
    floor_table.done()

    k_table = top.table("k")
    k_max = k_table.integer("times_games_max", low=1, high=100_000, none=True)
    k_rules = _k_rules(k_table)
    k_table.done()

    initial = _initial(top.table("initial"))
    top.done()

    return RuleSet(
        name=name,
        rating_type=rating_type,
        effective_from=effective_from,
        effective_to=effective_to,
        cap=cap,
        cap_exempt_from=exempt,
        exclusion_difference=excl_difference,
        exclusion_above=excl_above,
        one_upgrade_per_tournament=one_upgrade,
        expected="logistic" if expected == "logistic" else "table",
        floor=floor,
        below_floor="floor" if below == "floor" else "unrated",
        k_rules=k_rules,
        k_times_games_max=k_max,
        initial=initial,
        rounding="down" if rounding == "down" else "up" if rounding == "up" else "half_away",
        integrity=integrity,
    )


# The [integrity] table's keys: (low, high) for numbers; "whole" ones are whole numbers.
_INTEGRITY_WHOLE: Final = {
    "window_months": (1, 120), "repeated_min_games": (2, 1000), "pool_max_players": (2, 100),
    "improbable_min_games": (1, 1000), "mix_min_games": (1, 100_000), "farming_min_games": (1, 1000),
    "fabricated_min_new": (1, 10_000), "clash_max_days": (1, 1000), "duplicate_min_games": (1, 100_000),
}  # fmt: skip
_INTEGRITY_NUMBER: Final = {
    "repeated_one_sided": (0.5, 1.0), "pool_min_meetings": (1.0, 100.0), "improbable_z": (1.0, 20.0),
    "mix_z": (1.0, 50.0), "farming_min_share": (0.0, 1.0), "farming_min_gain": (0.0, 1000.0),
    "fabricated_min_share": (0.0, 1.0), "fabricated_max_score": (0.0, 1.0),
    "fabricated_one_winner": (0.0, 1.0), "fabricated_letter_share": (0.0, 1.0),
}  # fmt: skip


def _integrity(top: _Table) -> IntegrityThresholds:
    """The optional [integrity] table: the screen's thresholds; a key left out keeps its default
    (docs/guide/integrity.md), an unknown key is refused."""
    top.read.add("integrity")
    if "integrity" not in top.data:
        return DEFAULT_THRESHOLDS
    table = top.table("integrity")
    values: dict[str, int | float | None] = {}
    for key, (low, high) in _INTEGRITY_WHOLE.items():
        if key in table.data:
            values[key] = table.required_int(key, low=low, high=high)
    for key, (flow, fhigh) in _INTEGRITY_NUMBER.items():
        if key in table.data:
            values[key] = table.number(key, low=flow, high=fhigh)
    if "max_rounds_per_day" in table.data:
        values["max_rounds_per_day"] = table.integer("max_rounds_per_day", low=1, high=1000, none=True)
    table.done()
    return dataclasses.replace(DEFAULT_THRESHOLDS, **values)  # type: ignore[arg-type]


def _k_rules(k_table: _Table) -> tuple[KRule, ...]:
    raw = k_table.raw("rule", "one or more [[k.rule]] tables, the last without conditions")
    if not isinstance(raw, list) or not raw or not all(isinstance(item, dict) for item in raw):
        raise k_table.error("rule", "must be one or more [[k.rule]] tables, tried in order")
    rules: list[KRule] = []
    for index, item in enumerate(raw):
        row = _Table(k_table.source, f"k.rule[{index + 1}].", item)
        tracked = " or ".join(str(t) for t in TRACKED_REACHED)
        reached = unless = max_age = fewer = None
        if "reached" in row.data:
            reached = row.integer("reached", low=0, high=4000, what=tracked)
        if "junior_max_age" in row.data:
            max_age = row.integer("junior_max_age", low=1, high=30)
            until = row.choice("junior_until", ("end_of_year", "birthday"))
            if until == "birthday":
                raise row.error(
                    "junior_until",
                    '"birthday" needs birth dates, and ratingdb keeps birth years only: use "end_of_year"',
                )
        if "unless_reached" in row.data:
            unless = row.integer("unless_reached", low=0, high=4000, what=tracked)
        if "fewer_games_than" in row.data:
            fewer = row.integer("fewer_games_than", low=1, high=10_000)
        for key, threshold in (("reached", reached), ("unless_reached", unless)):
            if threshold is not None and threshold not in TRACKED_REACHED:
                reason = (
                    f"{threshold} is not tracked: ratingdb records only whether a player reached {tracked}"
                )
                raise row.error(key, reason)
        value = row.required_int("value", low=1, high=K_MAX)
        row.done()
        rules.append(KRule(value, reached=reached, junior_max_age=max_age, unless_reached=unless,
                           fewer_games_than=fewer))  # fmt: skip
    last = rules[-1]
    if (last.reached, last.junior_max_age, last.unless_reached, last.fewer_games_than) != (None,) * 4:
        reason = "the last K rule must have no condition (only value), so every player has a K"
        raise k_table.error(f"rule[{len(rules)}]", reason)
    return tuple(rules)


def _initial(table: _Table) -> InitialMethod:
    method = table.choice("method", INITIAL_METHODS)
    min_games = table.required_int("min_games", low=1, high=1000)
    window = table.required_int("window_months", low=1, high=1200)
    max_rating = table.integer("max_rating", low=1, high=RATING_MAX, none=True)
    first_event = table.boolean("disregard_zero_first_event")
    start = None
    if method == "fixed":
        start = table.required_int("start_rating", low=1, high=RATING_MAX)
    table.done()
    return InitialMethod(
        name="fixed" if method == "fixed" else "fide-2022" if method == "fide-2022" else "fide-2024",
        min_games=min_games,
        window_months=window,
        max_rating=max_rating,
        first_event_rule=first_event,
        start_rating=start,
    )
