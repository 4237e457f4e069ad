"""sealed tables without per-row keys: the guards hold what list_entry's and calc_*'s foreign keys held

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-30

A close writes a million list entries and two million calculation rows; PostgreSQL checks a foreign
key with one query and one row lock per row written, which made the keys of `list_entry` (list,
player, player version), `calc_player` (list, player) and `calc_game` (list) most of a close's time
there (at `large`, COPY of the list entries took 9.5 s with the keys and 1.2 s without). What they
protected is kept by the guards, once per statement or by rules that already hold:

- the insert side: a sealed list's tables take no row at all (0006), and the tables' insert guard now
  also refuses a row whose list does not exist; the ids of a list being written are ones the writing
  transaction has just read or made;
- the delete side: lists and player versions are never deleted (0006, 0012), events and games of a
  closed period never change (0006), and a player on a list cannot be deleted — on SQLite and MySQL by
  the trigger of 0006, on PostgreSQL by the same trigger, added here.

`calc_list_event` keeps its keys (a few thousand rows a close). On SQLite the three tables are rebuilt;
every view and trigger is dropped around the rebuild and created again exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

KEYS = {
    "list_entry": (
        ("list_id", "rating_list"),
        ("player_id", "player"),
        ("player_version_id", "player_version"),
    ),
    "calc_player": (("list_id", "rating_list"), ("player_id", "player")),
    "calc_game": (("list_id", "rating_list"),),
}
GUARDED = (*KEYS, "calc_list_event")


def _run(statements: list[str]) -> None:
    for statement in statements:
        op.execute(statement)


def _fk(table: str, column: str, referred: str) -> str:
    return f"fk_{table}_{column}_{referred}"


def _sqlite_rebuild(alter: Callable[[], None], refuse_missing: bool) -> None:
    """Rebuild tables on SQLite with every view and trigger dropped around it and made again as it was
    (SQLite checks views and triggers when a table is renamed), the sealed guards as `refuse_missing`."""
    bind = op.get_bind()
    saved = bind.execute(
        sa.text("SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') ORDER BY rowid")
    ).all()
    sealed = {
        f"trg_{table}_sealed_{action}" for table in GUARDED for action in ("insert", "update", "delete")
    }
    for kind, name, _sql in saved:
        if kind == "trigger":
            op.execute(f"DROP TRIGGER {name}")
    for kind, name, _sql in reversed(saved):
        if kind == "view":
            op.execute(f"DROP VIEW {name}")
    alter()
    for kind, _name, sql in saved:
        if kind == "view":
            op.execute(sql)
    for kind, name, sql in saved:
        if kind == "trigger" and name not in sealed:
            op.execute(sql)
    for table in GUARDED:
        _run(sealed_rows_guard("sqlite", table, refuse_missing=refuse_missing))


def _drop_keys() -> None:
    for table, keys in KEYS.items():
        with op.batch_alter_table(table, recreate="always") as batch:
            for column, referred in keys:
                batch.drop_constraint(_fk(table, column, referred), type_="foreignkey")


def _create_keys() -> None:
    for table, keys in KEYS.items():
        with op.batch_alter_table(table, recreate="always") as batch:
            for column, referred in keys:
                batch.create_foreign_key(_fk(table, column, referred), referred, [column], ["id"])


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        _sqlite_rebuild(_drop_keys, refuse_missing=True)
        return
    for table in GUARDED:
        _run(drop_sealed_rows_guard(dialect, table))
    for table, keys in KEYS.items():
        for column, referred in keys:
            op.drop_constraint(_fk(table, column, referred), table, type_="foreignkey")
    if dialect == "mysql":
        # MySQL keeps the index it made for a foreign key after the key is dropped.
        for index in sa.inspect(op.get_bind()).get_indexes("list_entry"):
            if index["name"] == _fk("list_entry", "player_version_id", "player_version"):
                op.drop_index(index["name"], table_name="list_entry")
    for table in GUARDED:
        _run(sealed_rows_guard(dialect, table, refuse_missing=True))
    if dialect == "postgresql":
        _run(player_referenced_guard(dialect))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        _sqlite_rebuild(_create_keys, refuse_missing=False)
        return
    if dialect == "postgresql":
        _run(drop_player_referenced_guard(dialect))
    for table in GUARDED:
        _run(drop_sealed_rows_guard(dialect, table))
    for table, keys in KEYS.items():
        for column, referred in keys:
            op.create_foreign_key(_fk(table, column, referred), table, referred, [column], ["id"])
    for table in GUARDED:
        _run(sealed_rows_guard(dialect, table))


# --- Frozen: the guard SQL, copied from ratingdb/guards.py as this migration ran it (December 2026).
# Migrations are history: never edit below, whatever ratingdb/guards.py becomes.


def _raise(dialect: str, message: str) -> str:
    if dialect == "postgresql":
        return f"RAISE EXCEPTION '{message}';"
    if dialect == "mysql":
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"
    return f"SELECT RAISE(ABORT, '{message}');"


def sealed_rows_guard(
    dialect: str,
    table: str,
    parent: str = "rating_list",
    key: str = "list_id",
    *,
    refuse_missing: bool = False,
) -> list[str]:
    """Triggers: rows of `table` are never updated or deleted, and never inserted under a sealed parent.

    The parent row (a list) is written unsealed, filled, then sealed in the same transaction. With
    `refuse_missing` (migration 0016, which dropped the tables' foreign keys), a row whose parent does
    not exist is refused too: the insert side of the list's foreign key, checked once per statement on
    PostgreSQL instead of once per row.
    """
    change_msg = f"published lists are immutable: the rows of {table} never change"
    insert_msg = f"published lists are immutable: no row can be added to a sealed list ({table})"
    if refuse_missing:
        insert_msg = (
            f"published lists are immutable: no row can be added to a sealed list, or to no list ({table})"
        )
    if dialect == "postgresql":
        # One check per statement over the inserted rows (a close inserts millions: COPY fires it once).
        join, refused = ("LEFT JOIN", "p.id IS NULL OR p.sealed") if refuse_missing else ("JOIN", "p.sealed")
        return [
            f"""CREATE FUNCTION ratingdb_sealed_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT {key} FROM new_rows) n
                               {join} {parent} p ON p.id = n.{key} WHERE {refused}) THEN
                        {_raise(dialect, insert_msg)}
                    END IF;
                    RETURN NULL;
                END IF;
                {_raise(dialect, change_msg)}
            END $$""",
            f"CREATE TRIGGER trg_{table}_sealed_insert AFTER INSERT ON {table} "
            "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
            f"EXECUTE FUNCTION ratingdb_sealed_{table}()",
            f"CREATE TRIGGER trg_{table}_sealed_change BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_{table}()",
            *no_truncate(dialect, table),
        ]
    sealed = f"(SELECT sealed FROM {parent} WHERE id = NEW.{key})"
    if refuse_missing:  # no parent row: NULL, refused like a sealed one
        sealed = f"COALESCE({sealed}, TRUE)"
    if dialect == "mysql":
        return [
            f"CREATE TRIGGER trg_{table}_sealed_insert BEFORE INSERT ON {table} FOR EACH ROW "
            f"BEGIN IF {sealed} THEN {_raise(dialect, insert_msg)} END IF; END",
            f"CREATE TRIGGER trg_{table}_sealed_update BEFORE UPDATE ON {table} FOR EACH ROW "
            f"BEGIN {_raise(dialect, change_msg)} END",
            f"CREATE TRIGGER trg_{table}_sealed_delete BEFORE DELETE ON {table} FOR EACH ROW "
            f"BEGIN {_raise(dialect, change_msg)} END",
        ]
    return [
        f"CREATE TRIGGER trg_{table}_sealed_insert BEFORE INSERT ON {table} WHEN {sealed} "
        f"BEGIN {_raise(dialect, insert_msg)} END",
        f"CREATE TRIGGER trg_{table}_sealed_update BEFORE UPDATE ON {table} "
        f"BEGIN {_raise(dialect, change_msg)} END",
        f"CREATE TRIGGER trg_{table}_sealed_delete BEFORE DELETE ON {table} "
        f"BEGIN {_raise(dialect, change_msg)} END",
    ]


def drop_sealed_rows_guard(dialect: str, table: str) -> list[str]:
    if dialect == "postgresql":
        return [
            f"DROP TRIGGER trg_{table}_sealed_insert ON {table}",
            f"DROP TRIGGER trg_{table}_sealed_change ON {table}",
            *drop_no_truncate(dialect, table),
            f"DROP FUNCTION ratingdb_sealed_{table}()",
        ]
    return [f"DROP TRIGGER trg_{table}_sealed_{action}" for action in ("insert", "update", "delete")]


def no_truncate(dialect: str, table: str) -> list[str]:
    """PostgreSQL: TRUNCATE skips row triggers, so every guarded table refuses it outright."""
    if dialect != "postgresql":
        return []
    return [
        f"CREATE TRIGGER trg_{table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()"
    ]


def drop_no_truncate(dialect: str, table: str) -> list[str]:
    if dialect != "postgresql":
        return []
    return [f"DROP TRIGGER trg_{table}_no_truncate ON {table}"]


PLAYER_REFERENCED_MESSAGE = "a player that a list, an event or a game refers to cannot be deleted"


def player_referenced_guard(dialect: str) -> list[str]:
    """PostgreSQL: a player on a list cannot be deleted (SQLite and MySQL have had this trigger since 0006;
    PostgreSQL relied on list_entry's foreign key, which migration 0016 dropped). Events and games keep
    their foreign keys to the player."""
    assert dialect == "postgresql"
    return [
        f"""CREATE FUNCTION ratingdb_player_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM list_entry WHERE player_id = OLD.id) THEN
                {_raise(dialect, PLAYER_REFERENCED_MESSAGE)}
            END IF;
            RETURN OLD;
        END $$""",
        "CREATE TRIGGER trg_player_referenced BEFORE DELETE ON player "
        "FOR EACH ROW EXECUTE FUNCTION ratingdb_player_referenced()",
    ]


def drop_player_referenced_guard(dialect: str) -> list[str]:
    assert dialect == "postgresql"
    return ["DROP TRIGGER trg_player_referenced ON player", "DROP FUNCTION ratingdb_player_referenced()"]
