"""Event versions: a corrected tournament file replaces an event without deleting what explained a list

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30

After a reopen, the withdrawn lists' calculation records still point at the event's games. A
corrected file (`replace-event`) is therefore stored as a new version of the event (a new id, with
`replaces` pointing back) and the old version is withdrawn, not deleted (docs/versioning.md). The same
holds for `delete-event` of an event that a withdrawn list was computed from. v_event shows current
events only, with their version.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

V_EVENT = """
    SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
           ev.rating_type, CASE WHEN ev.official THEN 1 ELSE 0 END AS official, ev.rounds, ev.period,
           ev.natural_period, CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
           (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
           ev.source_name{extra}
    FROM event ev{where}
"""


def _views(current_events: bool) -> dict[str, str]:
    views = dict(_migration_0006().VIEWS)
    if current_events:
        views["v_event"] = V_EVENT.format(
            extra=", ev.version, ev.replaces", where=" WHERE ev.is_current = TRUE"
        )
    return views


def _drop_views() -> None:
    # Views that read event stop SQLite's rebuild of the table: all go, and come back afterwards.
    for name in reversed(list(_migration_0006().VIEWS)):
        op.execute(f"DROP VIEW {name}")


def _create_views(views: dict[str, str]) -> None:
    _migration_0006()._create_views(views)  # as 0006 writes them on each engine (MySQL: DOUBLE)


def upgrade() -> None:
    _drop_views()
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        _drop_sqlite_closed_triggers()
    with op.batch_alter_table("event", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("is_current", sa.Boolean(), nullable=True, server_default=sa.true()))
        batch.add_column(sa.Column("created_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("withdrawn_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("replaces", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_event_created_by_audit_log"), "audit_log", ["created_by"], ["id"])
        batch.create_foreign_key(
            op.f("fk_event_withdrawn_by_audit_log"), "audit_log", ["withdrawn_by"], ["id"]
        )
        batch.create_foreign_key(op.f("fk_event_replaces_event"), "event", ["replaces"], ["id"])
        batch.create_check_constraint("is_current", "is_current IS NULL OR is_current = TRUE")
        batch.create_check_constraint("withdrawn", "(is_current IS NULL) = (withdrawn_by IS NOT NULL)")
    if sqlite:
        _recreate_sqlite_closed_triggers()
    _create_views(_views(current_events=True))


def downgrade() -> None:
    _drop_views()
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        _drop_sqlite_closed_triggers()
    with op.batch_alter_table("event", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_constraint(op.f("ck_event_withdrawn"), type_="check")
        batch.drop_constraint(op.f("ck_event_is_current"), type_="check")
        batch.drop_constraint(op.f("fk_event_replaces_event"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_event_withdrawn_by_audit_log"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_event_created_by_audit_log"), type_="foreignkey")
        for column in ("replaces", "withdrawn_by", "created_by", "is_current", "version"):
            batch.drop_column(column)
    if sqlite:
        _recreate_sqlite_closed_triggers()
    _create_views(_views(current_events=False))


def _migration_0006() -> ModuleType:
    path = Path(__file__).with_name("0006_list_versions.py")
    spec = importlib.util.spec_from_file_location("ratingdb_migration_0006", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _drop_sqlite_closed_triggers() -> None:
    # SQLite's table rebuild (batch mode) renames the table, which the triggers on event, event_player
    # and game (they read event) refuse; they are dropped first and created again as 0006 made them.
    for table in ("event", "event_player", "game"):
        for action in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_closed_{action}")


def _recreate_sqlite_closed_triggers() -> None:
    for statement in _migration_0006()._closed_period_guard("sqlite", current_only=True):
        op.execute(statement)
