"""player aliases: other spellings of a player's name, part of the player's versioned record

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01

Files spell one person several ways ("Smith, David J.", "Smith, David"); an officer who says a file's
spelling is the registered player's (`import-trf --accept-name RANK`, `player edit --add-alias`, a merge)
records it here, and matching compares a file's names with the name and every alias. A row is never
changed, only withdrawn (the audit rows `created_by`/`withdrawn_by` say who, when and why), and goes
with its player when an unreferenced player is removed: the guard is that of `player_version` (0012),
written out here as it ran.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_SAME = {
    "sqlite": "NEW.{c} IS OLD.{c}",
    "postgresql": "NEW.{c} IS NOT DISTINCT FROM OLD.{c}",
    "mysql": "NEW.{c} <=> OLD.{c}",
}
_UPDATE_MSG = "player_alias rows are never changed, only withdrawn (docs/versioning.md)"
_DELETE_MSG = "player_alias rows are never deleted, only withdrawn (docs/versioning.md)"
_OWNED = "EXISTS (SELECT 1 FROM player WHERE id = OLD.player_id)"


def _allowed(dialect: str) -> str:
    same = _SAME[dialect]
    true = "TRUE" if dialect == "postgresql" else "1"
    fixed = " AND ".join(
        same.format(c=c) for c in ("id", "player_id", "name", "name_key", "version", "created_by")
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
            f"""CREATE FUNCTION ratingdb_guard_player_alias() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    IF {_OWNED} THEN RAISE EXCEPTION '{_DELETE_MSG}'; END IF;
                    RETURN OLD;
                END IF;
                IF NOT {allowed} THEN RAISE EXCEPTION '{_UPDATE_MSG}'; END IF;
                RETURN NEW;
            END $$""",
            "CREATE TRIGGER trg_player_alias_versioned BEFORE UPDATE OR DELETE ON player_alias "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_guard_player_alias()",
            "CREATE TRIGGER trg_player_alias_no_truncate BEFORE TRUNCATE ON player_alias "
            "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
        ]
    if dialect == "mysql":
        return [
            "CREATE TRIGGER trg_player_alias_versioned_update BEFORE UPDATE ON player_alias FOR EACH ROW "
            f"BEGIN IF NOT {allowed} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{_UPDATE_MSG}'; "
            "END IF; END",
            "CREATE TRIGGER trg_player_alias_versioned_delete BEFORE DELETE ON player_alias FOR EACH ROW "
            f"BEGIN IF {_OWNED} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{_DELETE_MSG}'; "
            "END IF; END",
        ]
    return [
        f"CREATE TRIGGER trg_player_alias_versioned_update BEFORE UPDATE ON player_alias WHEN NOT {allowed} "
        f"BEGIN SELECT RAISE(ABORT, '{_UPDATE_MSG}'); END",
        f"CREATE TRIGGER trg_player_alias_versioned_delete BEFORE DELETE ON player_alias WHEN {_OWNED} "
        f"BEGIN SELECT RAISE(ABORT, '{_DELETE_MSG}'); END",
    ]


def upgrade() -> None:
    op.create_table(
        "player_alias",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("name_key", sa.String(length=120), nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("is_current", sa.Boolean(), server_default=sa.true(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("withdrawn_by", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "is_current IS NULL OR is_current = TRUE", name=op.f("ck_player_alias_is_current")
        ),
        sa.CheckConstraint(
            "(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name=op.f("ck_player_alias_withdrawn")
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_player_alias_created_by_audit_log")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_player_alias_player_id_player"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["withdrawn_by"], ["audit_log.id"], name=op.f("fk_player_alias_withdrawn_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_alias")),
        sa.UniqueConstraint("player_id", "name_key", "is_current", name="uq_player_alias_player_key_current"),
        sqlite_autoincrement=True,  # ids are never reused (docs/versioning.md)
    )
    op.create_index(op.f("ix_player_alias_player_id"), "player_alias", ["player_id"])
    op.create_index(op.f("ix_player_alias_name_key"), "player_alias", ["name_key"])
    for statement in _guard(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER trg_player_alias_no_truncate ON player_alias")
        op.execute("DROP TRIGGER trg_player_alias_versioned ON player_alias")
        op.execute("DROP FUNCTION ratingdb_guard_player_alias()")
    else:
        op.execute("DROP TRIGGER trg_player_alias_versioned_update")
        op.execute("DROP TRIGGER trg_player_alias_versioned_delete")
    op.drop_index(op.f("ix_player_alias_name_key"), table_name="player_alias")
    op.drop_index(op.f("ix_player_alias_player_id"), table_name="player_alias")
    op.drop_table("player_alias")
