"""CHECK constraints on the federation's data, their SQL made of engine pieces; imports only ratingdb.formats.

The readers refuse what these constraints refuse, with a file, line and column; the constraints make the
same hold for any other writer (a raw INSERT through `sqlite3`, `psql` or `mariadb`), on every engine.
The numbers are the readers' own (ratingdb.formats.limits): one place states them. Migration 0015 adds
the constraints and ratingdb.schema.models declares them, both from `CHECKS` below. A rule changed here is a
schema change: it needs a new migration that replaces the constraints it touches.

What each engine needs said: SQLite stores any value in any column (a 300-character name in a
VARCHAR(120), a text in an INTEGER column, a NUL inside a name), so its checks also state the type and
length; PostgreSQL and MariaDB enforce VARCHAR lengths and column types themselves, and the length is
stated there too so that every engine refuses the same rows with a constraint named for the column.
The SQL is composed here from pieces each engine says its own way (`CheckSql`, implemented by every
ratingdb.engines backend): this module names operations, never an engine.
calc_player, calc_event and calc_game are written only by the close and get no checks here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ratingdb.formats import limits


class CheckSql(Protocol):
    """The pieces of a CHECK's SQL that differ between engines (ratingdb.engines.base.Backend has them)."""

    def typed_integer(self, column: str) -> str | None: ...

    def typed_text(self, column: str) -> str | None: ...

    def character_length(self, column: str) -> str: ...

    def refuses_characters(self, column: str, ranges: Sequence[tuple[int, int]]) -> str: ...

    def is_one_of(self, column: str, values: Sequence[str]) -> str: ...

    def period_text(self, column: str) -> str: ...


@dataclass(frozen=True)
class Text:
    """A text column: 1 to `longest` characters, and (`plain`) no control or bidi-override character."""

    column: str
    longest: int
    plain: bool = True


@dataclass(frozen=True)
class Whole:
    """A whole-number column from `low` to `high` (no upper bound when `high` is None)."""

    column: str
    low: int
    high: int | None = None


@dataclass(frozen=True)
class OneOf:
    """A code column holding one of a fixed set of values."""

    column: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class PeriodText:
    """A rating period written 'YYYY-MM'."""

    column: str


@dataclass(frozen=True)
class Differ:
    """Two columns that never hold the same value (a player is never paired with themselves)."""

    column: str
    other: str


Rule = Text | Whole | OneOf | PeriodText | Differ


@dataclass(frozen=True)
class Check:
    """One named CHECK constraint: ck_<table>_<name>, the name being the column's unless given."""

    table: str
    rule: Rule
    suffix: str | None = None

    @property
    def name(self) -> str:
        return f"ck_{self.table}_{self.suffix or self.rule.column}"

    def sql(self, engine: CheckSql) -> str:
        """The CHECK's condition in the SQL of `engine` (the backend of the database it is created on)."""
        return condition(self.rule, engine)

    def describe(self) -> str:
        """What the constraint asks of the column, as a sentence fragment for an error message."""
        rule, where = self.rule, f"{self.table}.{self.rule.column}"
        if isinstance(rule, Text):
            plain = ", without control characters" if rule.plain else ""
            return f"{where} must be 1 to {rule.longest:,} characters{plain}"
        if isinstance(rule, Whole):
            upto = (
                f"from {rule.low:,} to {rule.high:,}" if rule.high is not None else f"of {rule.low} or more"
            )
            return f"{where} must be a whole number {upto}"
        if isinstance(rule, OneOf):
            return f"{where} must be one of {' '.join(rule.values)}"
        if isinstance(rule, PeriodText):
            return f"{where} must be a period written YYYY-MM"
        return f"{where} must differ from {self.table}.{rule.other}"


def _player_details(table: str) -> list[Check]:
    return [
        Check(table, Text("name", limits.PLAYER_NAME)),
        Check(table, Text("federation", limits.FEDERATION)),
        Check(table, OneOf("title", limits.TITLES)),
        Check(table, Whole("birth_year", *limits.BIRTH_YEARS)),
        Check(table, Whole("fide_id", 1, limits.FIDE_ID_MAX)),
        Check(table, Text("national_id", limits.NATIONAL_ID)),
    ]


# Table by table, in the order migration 0015 adds them.
CHECKS: tuple[Check, ...] = (
    *_player_details("player"),
    *_player_details("player_version"),
    Check("rating_list", PeriodText("period")),
    Check("rating_list", Text("source", limits.FILE_NAME, plain=False)),  # a file name, as the system allows
    Check("rating_list", Text("rules", limits.LIST_RULES)),
    Check("list_entry", Whole("rating", 1, limits.RATING_MAX)),
    Check("list_entry", Whole("games", 0, limits.GAMES_MAX)),
    Check("list_entry", Whole("k", 1, limits.K_STORED_MAX)),
    Check("list_entry", Whole("change", -limits.RATING_MAX, limits.RATING_MAX)),
    Check("list_entry", Whole("games_total", 0, limits.GAMES_TOTAL_MAX)),
    Check("list_entry", PeriodText("last_active")),
    Check("list_entry", PeriodText("pool_from")),
    Check("event", Text("name", limits.EVENT_NAME)),
    Check("event", Text("city", limits.CITY)),
    Check("event", Text("federation", limits.FEDERATION)),
    Check("event", Text("time_control", limits.TIME_CONTROL)),
    Check("event", Whole("rounds", 0, limits.ROUNDS_MAX)),
    Check("event", PeriodText("period"), "period_format"),  # ck_event_period is period >= natural_period
    Check("event", PeriodText("natural_period")),
    Check("event", Text("source_name", limits.FILE_NAME, plain=False)),
    Check("event_player", Whole("start_rank", 1)),
    Check("event_player", Whole("file_rating", 1, limits.RATING_MAX)),
    Check("event_player", Whole("points_x10", 0)),
    Check("event_player", Whole("final_rank", 0)),
    Check("event_player", Whole("national_rating", 1, limits.RATING_MAX)),
    Check("event_player", Text("national_federation", limits.FEDERATION)),
    Check("event_record", Whole("seq", 1)),
    Check("event_record", Text("text", limits.LINE_MAX)),
    Check("game", Whole("round", 1, limits.ROUNDS_MAX)),
    Check("game", OneOf("white_result", tuple(sorted(limits.RESULT_CODES)))),
    Check("game", OneOf("black_result", tuple(sorted(limits.RESULT_CODES)))),
    Check("game", Differ("black_id", "white_id"), "opponents"),
    Check("rule_set", Text("name", limits.RULE_SET_NAME)),
    Check("rule_set", PeriodText("effective_from")),
    Check("rule_set", PeriodText("effective_until")),
    Check("rule_set", Text("source", limits.FILE_NAME, plain=False)),
)

CHECKED_TABLES: tuple[str, ...] = tuple(dict.fromkeys(c.table for c in CHECKS))


def admits(table: str, column: str, value: object) -> bool:
    """Whether the CHECK on `table`.`column` (if any) admits `value`: the readers' tests ask this of what
    the readers return, so that a reader cannot hand the database a value it refuses."""
    if value is None:
        return True
    for check in checks_of(table):
        rule = check.rule
        if rule.column != column or isinstance(rule, Differ):
            continue
        if isinstance(rule, Text):
            if not isinstance(value, str) or not 1 <= len(value) <= rule.longest:
                return False
            if rule.plain and limits.control_character(value) is not None:
                return False
        elif isinstance(rule, Whole):
            if not isinstance(value, int) or isinstance(value, bool) or value < rule.low:
                return False
            if rule.high is not None and value > rule.high:
                return False
        elif isinstance(rule, OneOf):
            if value not in rule.values:
                return False
        elif not isinstance(value, str) or re.fullmatch(r"[0-9]{4}-(0[1-9]|1[0-2])", value) is None:
            return False
    return True


def checks_of(table: str) -> list[Check]:
    return [c for c in CHECKS if c.table == table]


def by_name(name: str) -> Check | None:
    return next((c for c in CHECKS if c.name == name), None)


def condition(rule: Rule, engine: CheckSql) -> str:
    """SQL that is true (or NULL) for every value `rule` admits, in the SQL of `engine`.

    Columns are quoted: `change` is a reserved word on MySQL (whose ratingdb sessions run with ANSI_QUOTES).
    """
    c = f'"{rule.column}"'
    if isinstance(rule, Text):
        return f"{c} IS NULL OR ({_text(c, rule, engine)})"
    if isinstance(rule, Whole):
        bounds = f"{c} >= {rule.low}" if rule.high is None else f"{c} BETWEEN {rule.low} AND {rule.high}"
        typed = engine.typed_integer(c)
        return f"{c} IS NULL OR ({' AND '.join(_present(typed, bounds))})"
    if isinstance(rule, OneOf):
        return f"{c} IS NULL OR {engine.is_one_of(c, [_quoted(v) for v in rule.values])}"
    if isinstance(rule, PeriodText):
        return f"{c} IS NULL OR ({engine.period_text(c)})"
    return f'{c} IS NULL OR {c} <> "{rule.other}"'


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _present(*parts: str | None) -> list[str]:
    return [part for part in parts if part is not None]


def _text(column: str, rule: Text, engine: CheckSql) -> str:
    parts = _present(
        engine.typed_text(column),
        f"{engine.character_length(column)} BETWEEN 1 AND {rule.longest}",
        engine.refuses_characters(column, limits.REFUSED_RANGES) if rule.plain else None,
    )
    return " AND ".join(parts)
