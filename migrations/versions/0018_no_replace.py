"""SQLite: no guarded row can be removed by INSERT OR REPLACE

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01

SQLite's REPLACE conflict resolution deletes the row holding the key without firing DELETE triggers
(unless the connection set `recursive_triggers`), so `INSERT OR REPLACE` rewrote the audit log, a
sealed list's player versions and a computed list (issue 26). Every table whose rows a guard keeps gets
a BEFORE INSERT trigger refusing a row whose primary or UNIQUE key another row already holds
(ratingdb/py says why that holds whatever the pragmas). The tables of a sealed list
(list_entry, calc_player, calc_game, calc_list_event, list_rule_set) need none: every key of theirs
holds list_id, so a row that REPLACE could remove is in the same list as the row being inserted, and a
sealed (or missing) list takes no insert at all (0006, 0016). alembic_version already refuses every
insert outside the migrations (0010). MySQL and PostgreSQL: nothing to do (their REPLACE and ON CONFLICT
fire the DELETE or UPDATE triggers).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

# Each table with its primary key and every UNIQUE key, as the schema at 0017 has them.
KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    "audit_log": (("id",),),
    "rating_list": (
        ("id",),
        ("rating_type", "list_date", "is_current"),
        ("rating_type", "list_date", "version"),
    ),
    "rule_set": (("id",), ("name", "is_current"), ("name", "version")),
    "player_version": (("id",), ("player_id", "is_current"), ("player_id", "version")),
    "player": (("id",), ("national_id",), ("fide_id",)),
    "player_alias": (("id",), ("player_id", "name_key", "is_current")),
    "event": (("id",), ("source_hash", "rating_type")),
    "event_player": (("event_id", "start_rank"), ("event_id", "player_id")),
    "game": (("id",),),
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table, keys in KEYS.items():
        for statement in sqlite_no_replace(table, keys):
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in KEYS:
        for statement in drop_sqlite_no_replace(table):
            op.execute(statement)


# --- Frozen: the guard SQL, copied from ratingdb/guards.py as this migration ran it (December 2026).
# Migrations are history: never edit below, whatever ratingdb/guards.py becomes.


def _raise(dialect: str, message: str) -> str:
    if dialect == "postgresql":
        return f"RAISE EXCEPTION '{message}';"
    if dialect == "mysql":
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"
    return f"SELECT RAISE(ABORT, '{message}');"


REPLACE_MESSAGE = "rows of {table} are never replaced: another row holds this key (no INSERT OR REPLACE)"


def sqlite_no_replace(table: str, keys: Sequence[Sequence[str]]) -> list[str]:
    """SQLite trigger refusing an INSERT into `table` whose value of any of `keys` (column tuples) exists."""
    held = " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE " + " AND ".join(f"{c} = NEW.{c}" for c in key) + ")"
        for key in keys
    )
    return [
        f"CREATE TRIGGER trg_{table}_no_replace BEFORE INSERT ON {table} WHEN {held} "
        f"BEGIN {_raise('sqlite', REPLACE_MESSAGE.format(table=table))} END"
    ]


def drop_sqlite_no_replace(table: str) -> list[str]:
    return [f"DROP TRIGGER trg_{table}_no_replace"]
