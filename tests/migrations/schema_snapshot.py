"""The schema of a database as text, one line per table, column, constraint, index, trigger, view and
function, sorted: what `test_schema_snapshot` compares with the stored snapshot of each engine.

Regenerate the snapshots after adding a migration (every engine whose variable is set is written):

    RATINGDB_UPDATE_SCHEMA_SNAPSHOT=1 RATINGDB_TEST_PG_URL=... RATINGDB_TEST_MYSQL_URL=... \
        .venv/bin/pytest tests/migrations/test_schema_snapshot.py

and read the diff (`git diff tests/migrations/schema/`) before committing it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Engine, inspect, text

IGNORED_TABLES = {"alembic_version"}


def _one_line(sql: str | None) -> str:
    return re.sub(r"\s+", " ", sql or "").strip()


def _names(columns: Iterable[Any]) -> str:
    return ", ".join(str(c) for c in columns)


def describe(engine: Engine) -> str:
    """The schema of `engine`'s database, as the sorted lines the snapshot stores."""
    inspector = inspect(engine)
    lines: list[str] = []
    for table in sorted(set(inspector.get_table_names()) - IGNORED_TABLES):
        lines.append(f"table {table}")
        for c in inspector.get_columns(table):
            default = f" DEFAULT {_one_line(str(c['default']))}" if c.get("default") is not None else ""
            null = "" if c["nullable"] else " NOT NULL"
            auto = " AUTOINCREMENT" if c.get("autoincrement") is True else ""
            lines.append(f"  column {c['name']} {c['type']}{null}{default}{auto}")
        pk = inspector.get_pk_constraint(table)
        if pk["constrained_columns"]:
            lines.append(f"  primary key {pk.get('name')} ({_names(pk['constrained_columns'])})")
        for fk in sorted(
            inspector.get_foreign_keys(table), key=lambda f: (str(f.get("name")), f["referred_table"])
        ):
            options = " ".join(f"{k}={v}" for k, v in sorted(fk.get("options", {}).items()))
            lines.append(
                f"  foreign key {fk.get('name')} ({_names(fk['constrained_columns'])}) → "
                f"{fk['referred_table']} ({_names(fk['referred_columns'])}) {options}".rstrip()
            )
        for u in sorted(inspector.get_unique_constraints(table), key=lambda u: str(u.get("name"))):
            lines.append(f"  unique {u.get('name')} ({_names(u['column_names'])})")
        for ck in sorted(
            inspector.get_check_constraints(table), key=lambda c: (str(c.get("name")), c["sqltext"])
        ):
            lines.append(f"  check {ck.get('name')}: {_one_line(ck['sqltext'])}")
        for ix in sorted(inspector.get_indexes(table), key=lambda i: str(i.get("name"))):
            unique = " unique" if ix.get("unique") else ""
            lines.append(f"  index {ix.get('name')} ({_names(ix['column_names'])}){unique}")
    with engine.connect() as conn:
        lines.extend(_programs(conn))
    return "\n".join(lines) + "\n"


def _programs(conn: Connection) -> list[str]:
    """Triggers, views and (PostgreSQL) functions, with their SQL on one line."""
    dialect = conn.dialect.name
    found: list[str] = []
    if dialect == "sqlite":
        # AUTOINCREMENT, which the inspector does not report (the tables' text is not compared: a batch
        # rebuild writes the constraints in an order that changes from run to run).
        for (name,) in conn.execute(
            text("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'")
        ):
            found.append(f"table {name} AUTOINCREMENT")
        for kind, name, table, sql in conn.execute(
            text("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')")
        ):
            found.append(
                f"{kind} {name} on {table}: {_one_line(sql)}"
                if kind == "trigger"
                else f"view {name}: {_one_line(sql)}"
            )
    elif dialect == "postgresql":
        for name, table, sql in conn.execute(
            text(
                "SELECT t.tgname, c.relname, pg_get_triggerdef(t.oid) FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE NOT t.tgisinternal AND n.nspname = current_schema()"
            )
        ):
            found.append(f"trigger {name} on {table}: {_one_line(sql)}")
        for name, source in conn.execute(
            text(
                "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = current_schema()"
            )
        ):
            found.append(f"function {name}: {_one_line(source)}")
        for name, sql in conn.execute(
            text("SELECT viewname, definition FROM pg_views WHERE schemaname = current_schema()")
        ):
            found.append(f"view {name}: {_one_line(sql)}")
    else:
        schema = conn.execute(text("SELECT DATABASE()")).scalar_one()
        for name, table, timing, action, sql in conn.execute(
            text(
                "SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, ACTION_TIMING, EVENT_MANIPULATION, "
                "ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()"
            )
        ):
            found.append(f"trigger {name} on {table}: {timing} {action} {_one_line(sql)}")
        for name, sql in conn.execute(
            text(
                "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS "
                "WHERE TABLE_SCHEMA = DATABASE()"
            )
        ):
            # MySQL writes the database's own (per-test) name into a view's text: the snapshot leaves it out.
            found.append(f"view {name}: {_one_line(sql.replace(f'`{schema}`.', ''))}")
    return sorted(found)
