"""CHECK constraints on the federation's data: lengths, ranges, codes, periods, no control characters

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-30

The readers already refuse a 300-character name, a NUL in a name, federation 'IRELAND', rating
99999999999 or a FIDE ID beyond eleven digits; these constraints (ratingdb.checks, the numbers of
ratingdb.formats.limits) make every engine refuse the same rows from any other writer too. On PostgreSQL
and MariaDB they are added with ALTER TABLE; SQLite cannot add a constraint to a table, so each checked
table is rebuilt: its rows are copied out to a temporary table, the table is created again from its own
CREATE TABLE text with the CHECKs appended, the rows copied back, and its indexes, triggers and
AUTOINCREMENT counter restored exactly. No table is renamed, so the views and the other tables' triggers
that name it are never touched (`sqlite3 db .schema` differs only by the CHECKs). calc_player, calc_event
and calc_game are left alone.

Rows stored before the readers checked (SQLite kept what it was given) may break a constraint. Such rows
are kept exactly as they are, because published lists and the versions of players' details they show are
immutable and must not be rewritten: each constraint that an existing row breaks names those rows by
primary key as exceptions (`id IN (...) OR <rule>`), so every row in the database satisfies its
constraints and only the rows that were already there are let through. (MariaDB refuses an AUTO_INCREMENT
column in a CHECK: there the rows are named by another unique key, see MYSQL_KEYS; a kept player row,
which has none, is left out of the constraint's first check, and an UPDATE of it must correct the value.)
The migration writes one audit log entry ("migrate-checks") naming every table, column and row kept this
way, and logs the same as a warning; a player can then be corrected with `ratingdb player edit`, which
writes a valid new version (the exception stays, harmless, in the constraint). More than MAX_KEPT such rows
under one constraint is not a few leftovers but a damaged import: the migration then refuses, naming the
table, column and first rows, and changes nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

from ratingdb.errors import RatingDbError

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

MAX_KEPT = 1000
log = logging.getLogger("ratingdb.migrations")


class ExistingRowsBreakChecks(RatingDbError):
    """Too many stored rows break a new constraint for them to be kept as exceptions."""


# The columns that name a kept row inside a constraint: the primary key, except on MariaDB, which refuses
# an AUTO_INCREMENT column in a CHECK; there a unique key of the table's own columns names it instead.
# player and game have none: on MariaDB their kept rows are left out of the constraint's first check
# (check_constraint_checks = 0 while it is added); ratingdb never updates a game, and a kept player row
# takes an UPDATE only once the value is corrected (the refusal names the column).
MYSQL_KEYS = {
    "player_version": ("player_id", "version"),
    "rating_list": ("rating_type", "list_date", "version"),
    "event": ("source_hash", "rating_type"),
    "rule_set": ("name", "version"),
}


def _primary_key(bind: sa.Connection, table: str) -> list[str]:
    return list(sa.inspect(bind).get_pk_constraint(table)["constrained_columns"])


def _exemption_key(bind: sa.Connection, table: str, dialect: str) -> list[str] | None:
    if dialect != "mysql":
        return _primary_key(bind, table)
    if table in MYSQL_KEYS:
        return list(MYSQL_KEYS[table])
    return None if "id" in _primary_key(bind, table) else _primary_key(bind, table)


def _literal(value: object, dialect: str) -> str:
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{value!r} cannot name a row")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.date):
        return f"'{value.isoformat()}'"
    text = str(value).replace("'", "''")
    return f"'{text.replace(chr(92), chr(92) * 2)}'" if dialect == "mysql" else f"'{text}'"


def _key_text(key: Sequence[object]) -> str:
    return ", ".join(str(k) for k in key)


def _exempt(columns: list[str], keys: list[tuple[object, ...]], dialect: str) -> str:
    """SQL naming exactly the rows with these keys."""
    if len(columns) == 1:
        return f'"{columns[0]}" IN ({", ".join(_literal(k[0], dialect) for k in keys)})'
    return " OR ".join(
        "(" + " AND ".join(f'"{c}" = {_literal(v, dialect)}' for c, v in zip(columns, key, strict=True)) + ")"
        for key in keys
    )


class _Plan:
    """What the upgrade adds to one table: (name, condition) per constraint, and whether MariaDB must
    add them without checking the stored rows (kept rows it cannot name). A plain class: Alembic loads
    this file outside sys.modules, where @dataclass cannot look its module up."""

    def __init__(self) -> None:
        self.constraints: list[tuple[str, str]] = []
        self.unchecked = False


def _plans(bind: sa.Connection, dialect: str) -> tuple[dict[str, _Plan], list[str]]:
    """Per table, the constraints with the exceptions for stored rows; and a line per kept set of rows."""
    plans: dict[str, _Plan] = {}
    kept: list[str] = []
    for table in CHECKED_TABLES:
        pk = _primary_key(bind, table)
        key = _exemption_key(bind, table, dialect)
        plan = plans.setdefault(table, _Plan())
        for check in _checks_of(table):
            condition = check.sql[dialect]
            named_by = key or pk
            selected = ", ".join(f'"{c}"' for c in dict.fromkeys([*pk, *named_by]))
            rows = [
                tuple(r)
                for r in bind.execute(
                    sa.text(
                        f"SELECT {selected} FROM {table} WHERE NOT ({condition}) "
                        f"ORDER BY {', '.join(pk)} LIMIT {MAX_KEPT + 1}"
                    )
                )
            ]
            if len(rows) > MAX_KEPT:
                first = "; ".join(_key_text(r[: len(pk)]) for r in rows[:5])
                raise ExistingRowsBreakChecks(
                    f"more than {MAX_KEPT} rows of {table} break the new constraint {check.name} on "
                    f"{check.column} (the first, by {', '.join(pk)}: {first}) — that many cannot be "
                    "kept as exceptions; nothing was changed, restore the database from a backup taken "
                    "before the import that stored them, or report this"
                )
            if rows:
                ids = "; ".join(_key_text(r[: len(pk)]) for r in rows)
                line = f"{table}.{check.column} ({check.name}): {len(rows)} row(s) kept as they were, "
                line += f"by {', '.join(pk)}: {ids}"
                if key is None:
                    plan.unchecked = True
                    line += " (MariaDB: not named in the constraint; an update must correct the value)"
                else:
                    columns = list(dict.fromkeys([*pk, *named_by]))
                    values = [tuple(r[columns.index(c)] for c in key) for r in rows]
                    condition = f"{_exempt(key, values, dialect)} OR ({condition})"
                kept.append(line)
            plan.constraints.append((check.name, condition))
    return plans, kept


def upgrade() -> None:
    bind = op.get_bind()
    dialect = bind.dialect.name
    plans, kept = _plans(bind, dialect)
    for table, plan in plans.items():
        if dialect == "sqlite":
            _rebuild_sqlite(bind, table, lambda sql, c=plan.constraints: _with_checks(sql, c))  # type: ignore[misc]
        elif dialect == "mysql":
            # One ALTER per table: MariaDB copies the table once for all its new constraints.
            adds = ", ".join(f"ADD CONSTRAINT {name} CHECK ({sql})" for name, sql in plan.constraints)
            if plan.unchecked:
                op.execute("SET SESSION check_constraint_checks = 0")
            op.execute(f"ALTER TABLE {table} {adds}")
            if plan.unchecked:
                op.execute("SET SESSION check_constraint_checks = 1")
        else:
            for name, sql in plan.constraints:
                op.execute(f"ALTER TABLE {table} ADD CONSTRAINT {name} CHECK ({sql})")
    if kept:
        for line in kept:
            log.warning("migration 0015: %s", line)
        bind.execute(
            sa.text(
                "INSERT INTO audit_log (action, detail, reason) VALUES ('migrate-checks', :detail, :reason)"
            ),
            {
                "detail": "rows stored before the CHECK constraints of migration 0015, kept as exceptions: "
                + " | ".join(kept),
                "reason": "published data is never rewritten (docs/versioning.md); the readers refuse such "
                "values now",
            },
        )


def downgrade() -> None:
    bind = op.get_bind()
    dialect = bind.dialect.name
    for table in reversed(CHECKED_TABLES):
        names = [c.name for c in _checks_of(table)]
        if dialect == "sqlite":
            _rebuild_sqlite(bind, table, lambda sql, n=names: _without_checks(sql, n))  # type: ignore[misc]
        elif dialect == "mysql":
            op.execute(f"ALTER TABLE {table} " + ", ".join(f"DROP CONSTRAINT {name}" for name in names))
        else:
            for name in names:
                op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")


# -- SQLite ---------------------------------------------------------------------------------------------


def _with_checks(create: str, constraints: list[tuple[str, str]]) -> str:
    """The table's CREATE TABLE text with the constraints appended after its last item."""
    end = create.rstrip().rindex(")")
    added = "".join(f", \n\tCONSTRAINT {name} CHECK ({sql})" for name, sql in constraints)
    return create[:end].rstrip() + added + "\n" + create[end:]


def _without_checks(create: str, names: list[str]) -> str:
    """The CREATE TABLE text with the named constraints (as _with_checks wrote them) taken out."""
    for name in names:
        start = create.find(f", \n\tCONSTRAINT {name} CHECK (")
        if start < 0:
            continue
        end = _closing_paren(create, create.index("CHECK (", start) + len("CHECK"))
        create = create[:start] + create[end + 1 :]
    return create


def _closing_paren(text: str, opening: int) -> int:
    """Index of the parenthesis closing the one at `opening`, skipping quoted strings."""
    depth, i, quote = 0, opening, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced CHECK constraint text")


def _rebuild_sqlite(bind: sa.Connection, table: str, change: Callable[[str], str]) -> None:
    """Create `table` again from its own CREATE TABLE text as `change` rewrites it, keeping its rows,
    indexes, triggers and AUTOINCREMENT counter, without renaming anything (views stay as they are)."""
    create = bind.execute(
        sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :t"), {"t": table}
    ).scalar_one()
    dependents = (
        bind.execute(
            sa.text(
                "SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = :t "
                "AND sql IS NOT NULL ORDER BY type, name"
            ),
            {"t": table},
        )
        .scalars()
        .all()
    )
    sequence = (
        bind.execute(
            sa.text("SELECT seq FROM sqlite_sequence WHERE name = :t"), {"t": table}
        ).scalar_one_or_none()
        if _has_sequence_table(bind)
        else None
    )
    # The copy's columns have the table's declared types, so each value keeps its stored type both ways.
    columns = bind.execute(sa.text(f"PRAGMA table_info({table})")).all()
    copy = f"ratingdb_copy_{table}"
    declared = ", ".join(f'"{c.name}" {c.type}' for c in columns)
    for statement in (
        f"CREATE TEMP TABLE {copy} ({declared})",
        f"INSERT INTO temp.{copy} SELECT * FROM main.{table}",
        f"DROP TABLE main.{table}",  # its indexes and triggers go with it
        change(create),
        f"INSERT INTO main.{table} SELECT * FROM temp.{copy}",
        f"DROP TABLE temp.{copy}",
        *dependents,
    ):
        bind.exec_driver_sql(statement)
    if sequence is not None:
        bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = :t"), {"t": table})
        bind.execute(
            sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :s)"), {"t": table, "s": sequence}
        )


def _has_sequence_table(bind: sa.Connection) -> bool:
    return (
        bind.execute(
            sa.text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'")
        ).first()
        is not None
    )


# --- Frozen: the constraints this migration adds, as ratingdb/checks.py gave them (December 2026).
# Migrations are history: never edit below, whatever ratingdb/checks.py becomes.


class _Check:
    """One constraint: its table, name, column and condition per dialect (a plain class, as _Plan)."""

    def __init__(self, table: str, name: str, column: str, sql: dict[str, str]) -> None:
        self.table, self.name, self.column, self.sql = table, name, column, sql


def _checks_of(table: str) -> list[_Check]:
    return [_Check(*c) for c in CHECKS if c[0] == table]


# Every constraint the migration adds: (table, name, column, {dialect: condition}), as
# ratingdb/checks.py gave them when this migration was written (frozen: never edit).
CHECKS: tuple[tuple[str, str, str, dict[str, str]], ...] = (
    (
        "player",
        "ck_player_name",
        "name",
        {
            "sqlite": '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 120 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 120 AND "name" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 120 AND "name" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "player",
        "ck_player_federation",
        "federation",
        {
            "sqlite": '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"federation" IS NULL OR (char_length("federation") BETWEEN 1 AND 3 AND "federation" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"federation" IS NULL OR (char_length("federation") BETWEEN 1 AND 3 AND "federation" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "player",
        "ck_player_title",
        "title",
        {
            "sqlite": "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
            "postgresql": "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
            "mysql": "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
        },
    ),
    (
        "player",
        "ck_player_birth_year",
        "birth_year",
        {
            "sqlite": '"birth_year" IS NULL OR (typeof("birth_year") = \'integer\' AND "birth_year" BETWEEN 1000 AND 9999)',
            "postgresql": '"birth_year" IS NULL OR ("birth_year" BETWEEN 1000 AND 9999)',
            "mysql": '"birth_year" IS NULL OR ("birth_year" BETWEEN 1000 AND 9999)',
        },
    ),
    (
        "player",
        "ck_player_fide_id",
        "fide_id",
        {
            "sqlite": '"fide_id" IS NULL OR (typeof("fide_id") = \'integer\' AND "fide_id" BETWEEN 1 AND 99999999999)',
            "postgresql": '"fide_id" IS NULL OR ("fide_id" BETWEEN 1 AND 99999999999)',
            "mysql": '"fide_id" IS NULL OR ("fide_id" BETWEEN 1 AND 99999999999)',
        },
    ),
    (
        "player",
        "ck_player_national_id",
        "national_id",
        {
            "sqlite": '"national_id" IS NULL OR (typeof("national_id") = \'text\' AND length("national_id") BETWEEN 1 AND 20 AND instr("national_id", char(0)) = 0 AND "national_id" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"national_id" IS NULL OR (char_length("national_id") BETWEEN 1 AND 20 AND "national_id" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"national_id" IS NULL OR (char_length("national_id") BETWEEN 1 AND 20 AND "national_id" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "player_version",
        "ck_player_version_name",
        "name",
        {
            "sqlite": '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 120 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 120 AND "name" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 120 AND "name" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "player_version",
        "ck_player_version_federation",
        "federation",
        {
            "sqlite": '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"federation" IS NULL OR (char_length("federation") BETWEEN 1 AND 3 AND "federation" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"federation" IS NULL OR (char_length("federation") BETWEEN 1 AND 3 AND "federation" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "player_version",
        "ck_player_version_title",
        "title",
        {
            "sqlite": "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
            "postgresql": "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
            "mysql": "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
        },
    ),
    (
        "player_version",
        "ck_player_version_birth_year",
        "birth_year",
        {
            "sqlite": '"birth_year" IS NULL OR (typeof("birth_year") = \'integer\' AND "birth_year" BETWEEN 1000 AND 9999)',
            "postgresql": '"birth_year" IS NULL OR ("birth_year" BETWEEN 1000 AND 9999)',
            "mysql": '"birth_year" IS NULL OR ("birth_year" BETWEEN 1000 AND 9999)',
        },
    ),
    (
        "player_version",
        "ck_player_version_fide_id",
        "fide_id",
        {
            "sqlite": '"fide_id" IS NULL OR (typeof("fide_id") = \'integer\' AND "fide_id" BETWEEN 1 AND 99999999999)',
            "postgresql": '"fide_id" IS NULL OR ("fide_id" BETWEEN 1 AND 99999999999)',
            "mysql": '"fide_id" IS NULL OR ("fide_id" BETWEEN 1 AND 99999999999)',
        },
    ),
    (
        "player_version",
        "ck_player_version_national_id",
        "national_id",
        {
            "sqlite": '"national_id" IS NULL OR (typeof("national_id") = \'text\' AND length("national_id") BETWEEN 1 AND 20 AND instr("national_id", char(0)) = 0 AND "national_id" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"national_id" IS NULL OR (char_length("national_id") BETWEEN 1 AND 20 AND "national_id" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"national_id" IS NULL OR (char_length("national_id") BETWEEN 1 AND 20 AND "national_id" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "rating_list",
        "ck_rating_list_period",
        "period",
        {
            "sqlite": "\"period\" IS NULL OR (\"period\" GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr(\"period\", 6) BETWEEN '01' AND '12')",
            "postgresql": '"period" IS NULL OR ("period" ~ \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
            "mysql": '"period" IS NULL OR (char_length("period") = 7 AND "period" REGEXP \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
        },
    ),
    (
        "rating_list",
        "ck_rating_list_source",
        "source",
        {
            "sqlite": '"source" IS NULL OR (typeof("source") = \'text\' AND length("source") BETWEEN 1 AND 255)',
            "postgresql": '"source" IS NULL OR (char_length("source") BETWEEN 1 AND 255)',
            "mysql": '"source" IS NULL OR (char_length("source") BETWEEN 1 AND 255)',
        },
    ),
    (
        "rating_list",
        "ck_rating_list_rules",
        "rules",
        {
            "sqlite": '"rules" IS NULL OR (typeof("rules") = \'text\' AND length("rules") BETWEEN 1 AND 40 AND instr("rules", char(0)) = 0 AND "rules" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"rules" IS NULL OR (char_length("rules") BETWEEN 1 AND 40 AND "rules" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"rules" IS NULL OR (char_length("rules") BETWEEN 1 AND 40 AND "rules" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "list_entry",
        "ck_list_entry_rating",
        "rating",
        {
            "sqlite": '"rating" IS NULL OR (typeof("rating") = \'integer\' AND "rating" BETWEEN 1 AND 3999)',
            "postgresql": '"rating" IS NULL OR ("rating" BETWEEN 1 AND 3999)',
            "mysql": '"rating" IS NULL OR ("rating" BETWEEN 1 AND 3999)',
        },
    ),
    (
        "list_entry",
        "ck_list_entry_games",
        "games",
        {
            "sqlite": '"games" IS NULL OR (typeof("games") = \'integer\' AND "games" BETWEEN 0 AND 9999)',
            "postgresql": '"games" IS NULL OR ("games" BETWEEN 0 AND 9999)',
            "mysql": '"games" IS NULL OR ("games" BETWEEN 0 AND 9999)',
        },
    ),
    (
        "list_entry",
        "ck_list_entry_k",
        "k",
        {
            "sqlite": '"k" IS NULL OR (typeof("k") = \'integer\' AND "k" BETWEEN 1 AND 1000)',
            "postgresql": '"k" IS NULL OR ("k" BETWEEN 1 AND 1000)',
            "mysql": '"k" IS NULL OR ("k" BETWEEN 1 AND 1000)',
        },
    ),
    (
        "list_entry",
        "ck_list_entry_change",
        "change",
        {
            "sqlite": '"change" IS NULL OR (typeof("change") = \'integer\' AND "change" BETWEEN -3999 AND 3999)',
            "postgresql": '"change" IS NULL OR ("change" BETWEEN -3999 AND 3999)',
            "mysql": '"change" IS NULL OR ("change" BETWEEN -3999 AND 3999)',
        },
    ),
    (
        "list_entry",
        "ck_list_entry_games_total",
        "games_total",
        {
            "sqlite": '"games_total" IS NULL OR (typeof("games_total") = \'integer\' AND "games_total" BETWEEN 0 AND 999999)',
            "postgresql": '"games_total" IS NULL OR ("games_total" BETWEEN 0 AND 999999)',
            "mysql": '"games_total" IS NULL OR ("games_total" BETWEEN 0 AND 999999)',
        },
    ),
    (
        "list_entry",
        "ck_list_entry_last_active",
        "last_active",
        {
            "sqlite": "\"last_active\" IS NULL OR (\"last_active\" GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr(\"last_active\", 6) BETWEEN '01' AND '12')",
            "postgresql": '"last_active" IS NULL OR ("last_active" ~ \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
            "mysql": '"last_active" IS NULL OR (char_length("last_active") = 7 AND "last_active" REGEXP \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
        },
    ),
    (
        "list_entry",
        "ck_list_entry_pool_from",
        "pool_from",
        {
            "sqlite": "\"pool_from\" IS NULL OR (\"pool_from\" GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr(\"pool_from\", 6) BETWEEN '01' AND '12')",
            "postgresql": '"pool_from" IS NULL OR ("pool_from" ~ \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
            "mysql": '"pool_from" IS NULL OR (char_length("pool_from") = 7 AND "pool_from" REGEXP \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
        },
    ),
    (
        "event",
        "ck_event_name",
        "name",
        {
            "sqlite": '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 200 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 200 AND "name" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 200 AND "name" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "event",
        "ck_event_city",
        "city",
        {
            "sqlite": '"city" IS NULL OR (typeof("city") = \'text\' AND length("city") BETWEEN 1 AND 100 AND instr("city", char(0)) = 0 AND "city" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"city" IS NULL OR (char_length("city") BETWEEN 1 AND 100 AND "city" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"city" IS NULL OR (char_length("city") BETWEEN 1 AND 100 AND "city" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "event",
        "ck_event_federation",
        "federation",
        {
            "sqlite": '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"federation" IS NULL OR (char_length("federation") BETWEEN 1 AND 3 AND "federation" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"federation" IS NULL OR (char_length("federation") BETWEEN 1 AND 3 AND "federation" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "event",
        "ck_event_time_control",
        "time_control",
        {
            "sqlite": '"time_control" IS NULL OR (typeof("time_control") = \'text\' AND length("time_control") BETWEEN 1 AND 100 AND instr("time_control", char(0)) = 0 AND "time_control" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"time_control" IS NULL OR (char_length("time_control") BETWEEN 1 AND 100 AND "time_control" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"time_control" IS NULL OR (char_length("time_control") BETWEEN 1 AND 100 AND "time_control" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "event",
        "ck_event_rounds",
        "rounds",
        {
            "sqlite": '"rounds" IS NULL OR (typeof("rounds") = \'integer\' AND "rounds" BETWEEN 0 AND 199)',
            "postgresql": '"rounds" IS NULL OR ("rounds" BETWEEN 0 AND 199)',
            "mysql": '"rounds" IS NULL OR ("rounds" BETWEEN 0 AND 199)',
        },
    ),
    (
        "event",
        "ck_event_period_format",
        "period",
        {
            "sqlite": "\"period\" IS NULL OR (\"period\" GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr(\"period\", 6) BETWEEN '01' AND '12')",
            "postgresql": '"period" IS NULL OR ("period" ~ \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
            "mysql": '"period" IS NULL OR (char_length("period") = 7 AND "period" REGEXP \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
        },
    ),
    (
        "event",
        "ck_event_natural_period",
        "natural_period",
        {
            "sqlite": "\"natural_period\" IS NULL OR (\"natural_period\" GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr(\"natural_period\", 6) BETWEEN '01' AND '12')",
            "postgresql": '"natural_period" IS NULL OR ("natural_period" ~ \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
            "mysql": '"natural_period" IS NULL OR (char_length("natural_period") = 7 AND "natural_period" REGEXP \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
        },
    ),
    (
        "event",
        "ck_event_source_name",
        "source_name",
        {
            "sqlite": '"source_name" IS NULL OR (typeof("source_name") = \'text\' AND length("source_name") BETWEEN 1 AND 255)',
            "postgresql": '"source_name" IS NULL OR (char_length("source_name") BETWEEN 1 AND 255)',
            "mysql": '"source_name" IS NULL OR (char_length("source_name") BETWEEN 1 AND 255)',
        },
    ),
    (
        "event_player",
        "ck_event_player_start_rank",
        "start_rank",
        {
            "sqlite": '"start_rank" IS NULL OR (typeof("start_rank") = \'integer\' AND "start_rank" >= 1)',
            "postgresql": '"start_rank" IS NULL OR ("start_rank" >= 1)',
            "mysql": '"start_rank" IS NULL OR ("start_rank" >= 1)',
        },
    ),
    (
        "event_player",
        "ck_event_player_file_rating",
        "file_rating",
        {
            "sqlite": '"file_rating" IS NULL OR (typeof("file_rating") = \'integer\' AND "file_rating" BETWEEN 1 AND 3999)',
            "postgresql": '"file_rating" IS NULL OR ("file_rating" BETWEEN 1 AND 3999)',
            "mysql": '"file_rating" IS NULL OR ("file_rating" BETWEEN 1 AND 3999)',
        },
    ),
    (
        "event_player",
        "ck_event_player_points_x10",
        "points_x10",
        {
            "sqlite": '"points_x10" IS NULL OR (typeof("points_x10") = \'integer\' AND "points_x10" >= 0)',
            "postgresql": '"points_x10" IS NULL OR ("points_x10" >= 0)',
            "mysql": '"points_x10" IS NULL OR ("points_x10" >= 0)',
        },
    ),
    (
        "event_player",
        "ck_event_player_final_rank",
        "final_rank",
        {
            "sqlite": '"final_rank" IS NULL OR (typeof("final_rank") = \'integer\' AND "final_rank" >= 0)',
            "postgresql": '"final_rank" IS NULL OR ("final_rank" >= 0)',
            "mysql": '"final_rank" IS NULL OR ("final_rank" >= 0)',
        },
    ),
    (
        "event_player",
        "ck_event_player_national_rating",
        "national_rating",
        {
            "sqlite": '"national_rating" IS NULL OR (typeof("national_rating") = \'integer\' AND "national_rating" BETWEEN 1 AND 3999)',
            "postgresql": '"national_rating" IS NULL OR ("national_rating" BETWEEN 1 AND 3999)',
            "mysql": '"national_rating" IS NULL OR ("national_rating" BETWEEN 1 AND 3999)',
        },
    ),
    (
        "event_player",
        "ck_event_player_national_federation",
        "national_federation",
        {
            "sqlite": '"national_federation" IS NULL OR (typeof("national_federation") = \'text\' AND length("national_federation") BETWEEN 1 AND 3 AND instr("national_federation", char(0)) = 0 AND "national_federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"national_federation" IS NULL OR (char_length("national_federation") BETWEEN 1 AND 3 AND "national_federation" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"national_federation" IS NULL OR (char_length("national_federation") BETWEEN 1 AND 3 AND "national_federation" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "event_record",
        "ck_event_record_seq",
        "seq",
        {
            "sqlite": '"seq" IS NULL OR (typeof("seq") = \'integer\' AND "seq" >= 1)',
            "postgresql": '"seq" IS NULL OR ("seq" >= 1)',
            "mysql": '"seq" IS NULL OR ("seq" >= 1)',
        },
    ),
    (
        "event_record",
        "ck_event_record_text",
        "text",
        {
            "sqlite": '"text" IS NULL OR (typeof("text") = \'text\' AND length("text") BETWEEN 1 AND 65536 AND instr("text", char(0)) = 0 AND "text" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"text" IS NULL OR (char_length("text") BETWEEN 1 AND 65536 AND "text" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"text" IS NULL OR (char_length("text") BETWEEN 1 AND 65536 AND "text" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "game",
        "ck_game_round",
        "round",
        {
            "sqlite": '"round" IS NULL OR (typeof("round") = \'integer\' AND "round" BETWEEN 1 AND 199)',
            "postgresql": '"round" IS NULL OR ("round" BETWEEN 1 AND 199)',
            "mysql": '"round" IS NULL OR ("round" BETWEEN 1 AND 199)',
        },
    ),
    (
        "game",
        "ck_game_white_result",
        "white_result",
        {
            "sqlite": "\"white_result\" IS NULL OR \"white_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
            "postgresql": "\"white_result\" IS NULL OR \"white_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
            "mysql": "\"white_result\" IS NULL OR \"white_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
        },
    ),
    (
        "game",
        "ck_game_black_result",
        "black_result",
        {
            "sqlite": "\"black_result\" IS NULL OR \"black_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
            "postgresql": "\"black_result\" IS NULL OR \"black_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
            "mysql": "\"black_result\" IS NULL OR \"black_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
        },
    ),
    (
        "game",
        "ck_game_opponents",
        "black_id",
        {
            "sqlite": '"black_id" IS NULL OR "black_id" <> "white_id"',
            "postgresql": '"black_id" IS NULL OR "black_id" <> "white_id"',
            "mysql": '"black_id" IS NULL OR "black_id" <> "white_id"',
        },
    ),
    (
        "rule_set",
        "ck_rule_set_name",
        "name",
        {
            "sqlite": '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 64 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
            "postgresql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 64 AND "name" !~ \'[\\x01-\\x1f\\x7f-\\x9f\\u061c\\u200e-\\u200f\\u2028-\\u2029\\u202a-\\u202e\\u2066-\\u2069]\')',
            "mysql": '"name" IS NULL OR (char_length("name") BETWEEN 1 AND 64 AND "name" NOT REGEXP \'[\\\\x{0}-\\\\x{1f}\\\\x{7f}-\\\\x{9f}\\\\x{61c}\\\\x{200e}-\\\\x{200f}\\\\x{2028}-\\\\x{2029}\\\\x{202a}-\\\\x{202e}\\\\x{2066}-\\\\x{2069}]\')',
        },
    ),
    (
        "rule_set",
        "ck_rule_set_effective_from",
        "effective_from",
        {
            "sqlite": "\"effective_from\" IS NULL OR (\"effective_from\" GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr(\"effective_from\", 6) BETWEEN '01' AND '12')",
            "postgresql": '"effective_from" IS NULL OR ("effective_from" ~ \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
            "mysql": '"effective_from" IS NULL OR (char_length("effective_from") = 7 AND "effective_from" REGEXP \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
        },
    ),
    (
        "rule_set",
        "ck_rule_set_effective_until",
        "effective_until",
        {
            "sqlite": "\"effective_until\" IS NULL OR (\"effective_until\" GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr(\"effective_until\", 6) BETWEEN '01' AND '12')",
            "postgresql": '"effective_until" IS NULL OR ("effective_until" ~ \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
            "mysql": '"effective_until" IS NULL OR (char_length("effective_until") = 7 AND "effective_until" REGEXP \'^[0-9]{4}-(0[1-9]|1[0-2])$\')',
        },
    ),
    (
        "rule_set",
        "ck_rule_set_source",
        "source",
        {
            "sqlite": '"source" IS NULL OR (typeof("source") = \'text\' AND length("source") BETWEEN 1 AND 255)',
            "postgresql": '"source" IS NULL OR (char_length("source") BETWEEN 1 AND 255)',
            "mysql": '"source" IS NULL OR (char_length("source") BETWEEN 1 AND 255)',
        },
    ),
)
CHECKED_TABLES: tuple[str, ...] = tuple(dict.fromkeys(c[0] for c in CHECKS))
