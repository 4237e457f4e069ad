"""pending uploads: the corrected file the officer checked, kept on the server until they replace with it

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-01

The replace page of the served site (`replace-event` in the browser) checks a corrected file, then
replaces the event with it. The file went back and forth in the page as base64 between the two, a third
larger than the file, so a file of about 1.5 MB broke the 2 MB request limit. It is now kept here from the
check to the replacement: `pending_upload` holds the file's bytes, the event it is for and the browser
session it belongs to (deleted with the session: logout, a disabled account, a role change or a new
password end it), and is named in the page by a random token whose SHA-256 is kept, never the token. Not
versioned: a row lives from a check to the replacement or the next check. The bytes are a BLOB on SQLite
and PostgreSQL (bytea) and a MEDIUMBLOB on MySQL/MariaDB, as submission's (0021).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pending_upload",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("file_name", sa.String(length=255), nullable=False),
        sa.Column("content", sa.LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql"), nullable=False),
        sa.Column("created_at", sa.DateTime(), server_default=sa.func.current_timestamp(), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["web_session.id"],
            name=op.f("fk_pending_upload_session_id_web_session"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_pending_upload_event_id_event"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_upload")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_pending_upload_token_hash")),
    )
    op.create_index(op.f("ix_pending_upload_session_id"), "pending_upload", ["session_id"])


def downgrade() -> None:
    # The table's indexes go with it (MySQL refuses to drop the index of a foreign key on its own).
    op.drop_table("pending_upload")
