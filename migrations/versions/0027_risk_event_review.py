"""the officer's decision on an event after the integrity screen: rate or exclude, and why

Revision ID: 0027_risk
Revises: 0027_register
Create Date: 2026-12-07

The integrity screen (issue 50, ratingdb.rating.integrity) is computed from the results whenever it is
asked for: it reads other events (clashes, duplicates, pairings over twelve months), so a stored copy would
be stale after the next import. What is kept is the officer's decision: `event_review` holds, per event,
versioned rows (never changed, only withdrawn, like event_label) saying whether the event is rated or
excluded (FIDE's right not to rate a tournament), the reason, and the screen's level when it was decided.
An excluded event stays in the database and the close leaves it out. The guards are those of event_label
(migration 0020), copied: a row changes only from current to withdrawn, and goes only with its event.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027_risk"
down_revision = "0027_register"
branch_labels = None
depends_on = None

_SAME = {
    "sqlite": "NEW.{c} IS OLD.{c}",
    "postgresql": "NEW.{c} IS NOT DISTINCT FROM OLD.{c}",
    "mysql": "NEW.{c} <=> OLD.{c}",
}
_UPDATE_MSG = "event_review rows are never changed, only withdrawn (docs/versioning.md)"
_DELETE_MSG = "event_review rows are never deleted, only withdrawn (docs/versioning.md)"
_OWNED = "EXISTS (SELECT 1 FROM event WHERE id = OLD.event_id)"
_NO_REPLACE_SQLITE = (
    "CREATE TRIGGER trg_event_review_no_replace BEFORE INSERT ON event_review WHEN EXISTS (SELECT 1 FROM "
    "event_review WHERE id = NEW.id) OR EXISTS (SELECT 1 FROM event_review WHERE event_id = NEW.event_id "
    "AND is_current = NEW.is_current) OR EXISTS (SELECT 1 FROM event_review WHERE event_id = NEW.event_id "
    "AND version = NEW.version) BEGIN SELECT RAISE(ABORT, 'rows of event_review are never replaced: "
    "another row holds this key (no INSERT OR REPLACE)'); END"
)
_FIXED = ("id", "event_id", "decision", "reason", "risk_level", "version", "created_by")


def _allowed(dialect: str) -> str:
    same = _SAME[dialect]
    true = "TRUE" if dialect == "postgresql" else "1"
    fixed = " AND ".join(same.format(c=c) for c in _FIXED)
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
            f"""CREATE FUNCTION ratingdb_guard_event_review() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    IF {_OWNED} THEN RAISE EXCEPTION '{_DELETE_MSG}'; END IF;
                    RETURN OLD;
                END IF;
                IF NOT {allowed} THEN RAISE EXCEPTION '{_UPDATE_MSG}'; END IF;
                RETURN NEW;
            END $$""",
            "CREATE TRIGGER trg_event_review_versioned BEFORE UPDATE OR DELETE ON event_review "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_guard_event_review()",
            "CREATE TRIGGER trg_event_review_no_truncate BEFORE TRUNCATE ON event_review "
            "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
        ]
    if dialect == "mysql":
        return [
            "CREATE TRIGGER trg_event_review_versioned_update BEFORE UPDATE ON event_review FOR EACH ROW "
            f"BEGIN IF NOT {allowed} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{_UPDATE_MSG}'; "
            "END IF; END",
            "CREATE TRIGGER trg_event_review_versioned_delete BEFORE DELETE ON event_review FOR EACH ROW "
            f"BEGIN IF {_OWNED} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{_DELETE_MSG}'; "
            "END IF; END",
        ]
    return [
        f"CREATE TRIGGER trg_event_review_versioned_update BEFORE UPDATE ON event_review WHEN NOT {allowed} "
        f"BEGIN SELECT RAISE(ABORT, '{_UPDATE_MSG}'); END",
        f"CREATE TRIGGER trg_event_review_versioned_delete BEFORE DELETE ON event_review WHEN {_OWNED} "
        f"BEGIN SELECT RAISE(ABORT, '{_DELETE_MSG}'); END",
        _NO_REPLACE_SQLITE,
    ]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "event_review",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=8), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("risk_level", sa.String(length=6), nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("is_current", sa.Boolean(), server_default=sa.true(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("withdrawn_by", sa.Integer(), nullable=True),
        sa.CheckConstraint("decision IN ('rate', 'exclude')", name=op.f("ck_event_review_decision")),
        sa.CheckConstraint(
            "risk_level IN ('none', 'low', 'medium', 'high')", name=op.f("ck_event_review_risk_level")
        ),
        sa.CheckConstraint(
            "is_current IS NULL OR is_current = TRUE", name=op.f("ck_event_review_is_current")
        ),
        sa.CheckConstraint(
            "(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name=op.f("ck_event_review_withdrawn")
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_event_review_created_by_audit_log")
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_event_review_event_id_event"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["withdrawn_by"], ["audit_log.id"], name=op.f("fk_event_review_withdrawn_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_review")),
        sa.UniqueConstraint("event_id", "is_current", name="uq_event_review_current"),
        sa.UniqueConstraint("event_id", "version", name="uq_event_review_version"),
        sqlite_autoincrement=True,  # ids are never reused (docs/versioning.md)
    )
    for statement in _guard(dialect):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER trg_event_review_no_truncate ON event_review")
        op.execute("DROP TRIGGER trg_event_review_versioned ON event_review")
        op.execute("DROP FUNCTION ratingdb_guard_event_review()")
    else:
        op.execute("DROP TRIGGER trg_event_review_versioned_update")
        op.execute("DROP TRIGGER trg_event_review_versioned_delete")
    if dialect == "sqlite":
        op.execute("DROP TRIGGER trg_event_review_no_replace")
    op.drop_table("event_review")
