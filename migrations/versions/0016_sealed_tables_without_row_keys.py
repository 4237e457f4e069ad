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

from ratingdb import guards

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
        _run(guards.sealed_rows_guard("sqlite", table, refuse_missing=refuse_missing))


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
        _run(guards.drop_sealed_rows_guard(dialect, table))
    for table, keys in KEYS.items():
        for column, referred in keys:
            op.drop_constraint(_fk(table, column, referred), table, type_="foreignkey")
    if dialect == "mysql":
        # MySQL keeps the index it made for a foreign key after the key is dropped.
        for index in sa.inspect(op.get_bind()).get_indexes("list_entry"):
            if index["name"] == _fk("list_entry", "player_version_id", "player_version"):
                op.drop_index(index["name"], table_name="list_entry")
    for table in GUARDED:
        _run(guards.sealed_rows_guard(dialect, table, refuse_missing=True))
    if dialect == "postgresql":
        _run(guards.player_referenced_guard(dialect))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        _sqlite_rebuild(_create_keys, refuse_missing=False)
        return
    if dialect == "postgresql":
        _run(guards.drop_player_referenced_guard(dialect))
    for table in GUARDED:
        _run(guards.drop_sealed_rows_guard(dialect, table))
    for table, keys in KEYS.items():
        for column, referred in keys:
            op.create_foreign_key(_fk(table, column, referred), table, referred, [column], ["id"])
    for table in GUARDED:
        _run(guards.sealed_rows_guard(dialect, table))
