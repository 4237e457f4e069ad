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

from ratingdb import checks
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
    for table in checks.CHECKED_TABLES:
        pk = _primary_key(bind, table)
        key = _exemption_key(bind, table, dialect)
        plan = plans.setdefault(table, _Plan())
        for check in checks.checks_of(table):
            condition = check.sql(dialect)
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
                    f"{check.rule.column} (the first, by {', '.join(pk)}: {first}) — that many cannot be "
                    "kept as exceptions; nothing was changed, restore the database from a backup taken "
                    "before the import that stored them, or report this"
                )
            if rows:
                ids = "; ".join(_key_text(r[: len(pk)]) for r in rows)
                line = f"{table}.{check.rule.column} ({check.name}): {len(rows)} row(s) kept as they were, "
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
    for table in reversed(checks.CHECKED_TABLES):
        names = [c.name for c in checks.checks_of(table)]
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
