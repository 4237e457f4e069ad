"""Stored rule sets (versioned) and the rating types they define

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30

- rule_set: a federation's rule file, kept verbatim with its SHA-256, versioned like lists
  (docs/versioning.md): never changed or deleted, only withdrawn when an edited file is added again;
- list_rule_set: the exact stored rule set (version) a computed list was closed under, written with
  the list and, like the list's other rows, never changed afterwards;
- the rating_type CHECK of rating_list and event admits any lowercase name, so a rule set can define a
  type such as "national" (the commands check that the type is known);
- an event's file is unique per rating type, not overall: the same tournament file may feed the FIDE
  list and a national list.
On SQLite a CHECK changes only by rebuilding the table, so the views and the triggers that name
rating_list or event are dropped first and created again, exactly as migrations 0006 and 0007 made them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

from ratingdb import guards

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

OLD_CHECK = "rating_type IN ('standard', 'rapid', 'blitz')"
NEW_CHECK = "rating_type <> '' AND rating_type = lower(rating_type)"
CHECKED_TABLES = ("rating_list", "event")


def _migration(file_name: str) -> ModuleType:
    path = Path(__file__).with_name(file_name)
    spec = importlib.util.spec_from_file_location(f"ratingdb_migration_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(statements: list[str]) -> None:
    for statement in statements:
        op.execute(statement)


def _columns(table: str) -> list[str]:
    return [c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)]


def _rating_type_check(check: str, file_unique: list[str]) -> None:
    """Set the rating_type CHECK of rating_list and event, and the columns an event's file is unique over."""
    dialect = op.get_bind().dialect.name
    if dialect != "sqlite":
        for table in CHECKED_TABLES:
            op.drop_constraint(op.f(f"ck_{table}_rating_type"), table, type_="check")
            op.create_check_constraint(op.f(f"ck_{table}_rating_type"), table, check)
        op.drop_constraint(op.f("uq_event_source_hash"), "event", type_="unique")
        op.create_unique_constraint(op.f("uq_event_source_hash"), "event", file_unique)
        return
    v6 = _migration("0006_list_versions.py")
    views = _migration("0007_event_versions.py")._views(current_events=True)
    for name in reversed(list(views)):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    _run(guards.drop_versioned_table_guard(dialect, "rating_list"))
    for table in v6.SEALED_TABLES:
        _run(guards.drop_sealed_rows_guard(dialect, table))
    for table, _ in v6.CLOSED_GUARDED:
        for action in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_closed_{action}")
    for table in CHECKED_TABLES:
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": True}
        ) as batch:
            batch.drop_constraint(op.f(f"ck_{table}_rating_type"), type_="check")
            batch.create_check_constraint("rating_type", check)
            if table == "event":
                batch.drop_constraint(op.f("uq_event_source_hash"), type_="unique")
                batch.create_unique_constraint(op.f("uq_event_source_hash"), file_unique)
    _run(
        guards.versioned_table_guard(
            dialect, "rating_list", _columns("rating_list"), one_way_flags=("sealed",)
        )
    )
    for table in v6.SEALED_TABLES:
        _run(guards.sealed_rows_guard(dialect, table))
    _run(v6._closed_period_guard(dialect, current_only=True))
    for name, sql in views.items():
        op.execute(f"CREATE VIEW {name} AS {sql}")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    # First, while no trigger of the new tables names rating_list (SQLite rebuilds it).
    _rating_type_check(NEW_CHECK, ["source_hash", "rating_type"])
    op.create_table(
        "rule_set",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("rating_type", sa.String(length=8), nullable=False),
        sa.Column("effective_from", sa.String(length=7), nullable=False),
        sa.Column("effective_until", sa.String(length=7), nullable=True),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), server_default=sa.text("(CURRENT_TIMESTAMP)"), nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("is_current", sa.Boolean(), server_default=sa.true(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("withdrawn_by", sa.Integer(), nullable=True),
        sa.CheckConstraint(NEW_CHECK, name=op.f("ck_rule_set_rating_type")),
        sa.CheckConstraint("is_current IS NULL OR is_current = TRUE", name=op.f("ck_rule_set_is_current")),
        sa.CheckConstraint(
            "(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name=op.f("ck_rule_set_withdrawn")
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_rule_set_created_by_audit_log")
        ),
        sa.ForeignKeyConstraint(
            ["withdrawn_by"], ["audit_log.id"], name=op.f("fk_rule_set_withdrawn_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rule_set")),
        sa.UniqueConstraint("name", "is_current", name="uq_rule_set_current"),
        sa.UniqueConstraint("name", "version", name="uq_rule_set_version"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "list_rule_set",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("rule_set_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["list_id"], ["rating_list.id"], name=op.f("fk_list_rule_set_list_id_rating_list")
        ),
        sa.ForeignKeyConstraint(
            ["rule_set_id"], ["rule_set.id"], name=op.f("fk_list_rule_set_rule_set_id_rule_set")
        ),
        sa.PrimaryKeyConstraint("list_id", name=op.f("pk_list_rule_set")),
    )
    op.create_index(op.f("ix_list_rule_set_rule_set_id"), "list_rule_set", ["rule_set_id"])
    _run(guards.versioned_table_guard(dialect, "rule_set", _columns("rule_set")))
    _run(guards.sealed_rows_guard(dialect, "list_rule_set"))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    _run(guards.drop_sealed_rows_guard(dialect, "list_rule_set"))
    _run(guards.drop_versioned_table_guard(dialect, "rule_set"))
    if dialect != "mysql":  # MySQL refuses to drop an index a foreign key needs; DROP TABLE drops both
        op.drop_index(op.f("ix_list_rule_set_rule_set_id"), table_name="list_rule_set")
    op.drop_table("list_rule_set")
    op.drop_table("rule_set")
    _rating_type_check(OLD_CHECK, ["source_hash"])
