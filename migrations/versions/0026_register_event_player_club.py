"""event_player.club: the club a file's federation column names, kept apart from federations; and the
federation's settings (federation_setting: how ratingdb numbers players it registers without any ID)

Revision ID: 0026_register
Revises: 0026_auth
Create Date: 2026-12-07

Issue 47: national files (the ICU's Bunratty files) write club codes where the TRF has the federation,
and the register took them as federations (COR 18, ST. 17 … and IRL 7). A player's federation is now a
FIDE code or nothing; a file whose federation column holds other values is read as clubs (or mixed) only
when the import says so, and each line keeps its club here. The register's club of a player is the club
of their latest event line (ratingdb.services.players), so no versioned table changes. The same
statement on SQLite, PostgreSQL and MariaDB; SQLite adds the column without rebuilding the table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026_register"
down_revision = "0026_auth"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE event_player ADD COLUMN club VARCHAR(10)")
    # The federation's settings, stored once: how ratingdb numbers the players it registers without any
    # ID (`ratingdb federation set`), so that a number it makes up is never one the federation's files carry.
    op.create_table(
        "federation_setting",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("value", sa.String(length=100), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_federation_setting")),
    )


def downgrade() -> None:
    op.drop_table("federation_setting")
    op.execute("ALTER TABLE event_player DROP COLUMN club")
