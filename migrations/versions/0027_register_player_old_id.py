"""player_old_id: the national IDs a player had before `ratingdb federation renumber`, kept so old files match

Revision ID: 0027_register
Revises: 0026_search
Create Date: 2026-12-07

Issue 47: registers that numbered players 1, 2, 3 … before the federation's numbering was a setting hold
numbers its own files may carry. Renumbering gives those players new numbers and keeps each old one here:
a file line with an old number and the player's name is that player; with another name, the number is
someone else's (the federation's own) and claims nobody. Indexed by the number, for the import's lookups.
The same statements on SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027_register"
down_revision = "0026_search"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_old_id",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("national_id", sa.String(length=20), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_player_old_id_player_id_player"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_player_old_id_created_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_old_id")),
        sa.UniqueConstraint("player_id", "national_id", name=op.f("uq_player_old_id_player_national")),
    )
    op.create_index(op.f("ix_player_old_id_national_id"), "player_old_id", ["national_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_player_old_id_national_id"), table_name="player_old_id")
    op.drop_table("player_old_id")
