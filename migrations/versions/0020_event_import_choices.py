"""event import choices, sections and labels: how a file was read, and how its event is shown

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01

`replace-event` reads a corrected file as the replaced event's file was read (issue 25: a correction of a
national-ID file read the IDs as FIDE IDs and rated the wrong players). Each event now keeps the choices
of its import (event.import_choices: JSON of --id-field, --match, --new, --accept-name, --drop,
--type-override, --closing-days, --distinct-event; NULL for events imported before: the defaults) and
the section of a congress it is (event.section: `import-trf --section Major`, shown "Bunratty 2011 —
Major"). The event row cannot change once its period is closed (0004), so `event edit` writes how an
event is shown as versioned rows of event_label: never changed, only withdrawn, with the audit rows
`created_by`/`withdrawn_by`, and removed with their event (the guard of player_alias, 0017, written out
here as it ran). SQLite: no INSERT OR REPLACE over a label either (as 0018).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

_SAME = {
    "sqlite": "NEW.{c} IS OLD.{c}",
    "postgresql": "NEW.{c} IS NOT DISTINCT FROM OLD.{c}",
    "mysql": "NEW.{c} <=> OLD.{c}",
}
_UPDATE_MSG = "event_label rows are never changed, only withdrawn (docs/versioning.md)"
_DELETE_MSG = "event_label rows are never deleted, only withdrawn (docs/versioning.md)"
_OWNED = "EXISTS (SELECT 1 FROM event WHERE id = OLD.event_id)"
# The same statements on SQLite, PostgreSQL and MariaDB (SQLite adds a column without rebuilding event).
_COLUMNS = (
    "ALTER TABLE event ADD COLUMN section VARCHAR(100)",
    "ALTER TABLE event ADD COLUMN import_choices TEXT",
)
_NO_REPLACE_SQLITE = (
    "CREATE TRIGGER trg_event_label_no_replace BEFORE INSERT ON event_label WHEN EXISTS (SELECT 1 FROM "
    "event_label WHERE id = NEW.id) OR EXISTS (SELECT 1 FROM event_label WHERE event_id = NEW.event_id AND "
    "is_current = NEW.is_current) OR EXISTS (SELECT 1 FROM event_label WHERE event_id = NEW.event_id AND "
    "version = NEW.version) BEGIN SELECT RAISE(ABORT, 'rows of event_label are never replaced: another row "
    "holds this key (no INSERT OR REPLACE)'); END"
)


def _allowed(dialect: str) -> str:
    same = _SAME[dialect]
    true = "TRUE" if dialect == "postgresql" else "1"
    fixed = " AND ".join(
        same.format(c=c) for c in ("id", "event_id", "name", "section", "city", "version", "created_by")
    )
    kept = f"{same.format(c='is_current')} AND {same.format(c='withdrawn_by')}"
    withdrawn = (
        f"OLD.is_current = {true} AND NEW.is_current IS NULL AND OLD.withdrawn_by IS NULL "
        "AND NEW.withdrawn_by IS NOT NULL"
    )
    return f"({fixed} AND (({kept}) OR ({withdrawn})))"


def _guard(dialect: str) -> list[str]:
    allowed = _allowed(dialect)
    if dialect == "postgresql":
        return [
            f"""CREATE FUNCTION ratingdb_guard_event_label() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    IF {_OWNED} THEN RAISE EXCEPTION '{_DELETE_MSG}'; END IF;
                    RETURN OLD;
                END IF;
                IF NOT {allowed} THEN RAISE EXCEPTION '{_UPDATE_MSG}'; END IF;
                RETURN NEW;
            END $$""",
            "CREATE TRIGGER trg_event_label_versioned BEFORE UPDATE OR DELETE ON event_label "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_guard_event_label()",
            "CREATE TRIGGER trg_event_label_no_truncate BEFORE TRUNCATE ON event_label "
            "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
        ]
    if dialect == "mysql":
        return [
            "CREATE TRIGGER trg_event_label_versioned_update BEFORE UPDATE ON event_label FOR EACH ROW "
            f"BEGIN IF NOT {allowed} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{_UPDATE_MSG}'; "
            "END IF; END",
            "CREATE TRIGGER trg_event_label_versioned_delete BEFORE DELETE ON event_label FOR EACH ROW "
            f"BEGIN IF {_OWNED} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{_DELETE_MSG}'; "
            "END IF; END",
        ]
    return [
        f"CREATE TRIGGER trg_event_label_versioned_update BEFORE UPDATE ON event_label WHEN NOT {allowed} "
        f"BEGIN SELECT RAISE(ABORT, '{_UPDATE_MSG}'); END",
        f"CREATE TRIGGER trg_event_label_versioned_delete BEFORE DELETE ON event_label WHEN {_OWNED} "
        f"BEGIN SELECT RAISE(ABORT, '{_DELETE_MSG}'); END",
        _NO_REPLACE_SQLITE,
    ]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for statement in _COLUMNS:
        op.execute(statement)
    op.create_table(
        "event_label",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("section", sa.String(length=100), nullable=True),
        sa.Column("city", sa.String(length=100), nullable=True),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("is_current", sa.Boolean(), server_default=sa.true(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("withdrawn_by", sa.Integer(), nullable=True),
        sa.CheckConstraint("is_current IS NULL OR is_current = TRUE", name=op.f("ck_event_label_is_current")),
        sa.CheckConstraint(
            "(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name=op.f("ck_event_label_withdrawn")
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_event_label_created_by_audit_log")
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_event_label_event_id_event"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["withdrawn_by"], ["audit_log.id"], name=op.f("fk_event_label_withdrawn_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_label")),
        sa.UniqueConstraint("event_id", "is_current", name="uq_event_label_current"),
        sa.UniqueConstraint("event_id", "version", name="uq_event_label_version"),
        sqlite_autoincrement=True,  # ids are never reused (docs/versioning.md)
    )
    for statement in _guard(dialect):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER trg_event_label_no_truncate ON event_label")
        op.execute("DROP TRIGGER trg_event_label_versioned ON event_label")
        op.execute("DROP FUNCTION ratingdb_guard_event_label()")
    else:
        op.execute("DROP TRIGGER trg_event_label_versioned_update")
        op.execute("DROP TRIGGER trg_event_label_versioned_delete")
    if dialect == "sqlite":
        op.execute("DROP TRIGGER trg_event_label_no_replace")
    op.drop_table("event_label")
    op.execute("ALTER TABLE event DROP COLUMN import_choices")
    op.execute("ALTER TABLE event DROP COLUMN section")
