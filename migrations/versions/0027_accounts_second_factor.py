"""a second factor for the served site's accounts: a TOTP secret per account, recovery codes, and sessions
that wait for the code

Revision ID: 0027_accounts
Revises: 0027_notices
Create Date: 2026-12-07

Issue 52. Officers and admins, who can change every rating, signed in with a password alone. An account
now may have a TOTP secret (RFC 6238: `web_user.totp_secret`, base32), in force once a code confirmed it
(`totp_enrolled_at`); `totp_last_step` is the last time step a code was taken for, so that a code seen
once (over a shoulder, in a proxy's log) is not taken again. `web_recovery_code` holds the SHA-256 of each
one-time recovery code (random, 80 bits: shown once, never kept in clear). A session signed in by
password whose account has a second factor waits for the code (`web_session.awaiting_code`) and opens no
other page meanwhile; the sessions there before this migration are whole ones (false).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027_accounts"
down_revision = "0027_notices"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("web_user", sa.Column("totp_secret", sa.String(length=64), nullable=True))
    op.add_column("web_user", sa.Column("totp_enrolled_at", sa.DateTime(), nullable=True))
    op.add_column("web_user", sa.Column("totp_last_step", sa.BigInteger(), nullable=True))
    op.add_column(
        "web_session",
        sa.Column("awaiting_code", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_table(
        "web_recovery_code",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["web_user.id"],
            name=op.f("fk_web_recovery_code_user_id_web_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_recovery_code")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_web_recovery_code_code_hash")),
    )
    op.create_index(op.f("ix_web_recovery_code_user_id"), "web_recovery_code", ["user_id"])


def downgrade() -> None:
    op.drop_table("web_recovery_code")  # its index with it (MySQL refuses to drop the FK's index alone)
    op.drop_column("web_session", "awaiting_code")
    op.drop_column("web_user", "totp_last_step")
    op.drop_column("web_user", "totp_enrolled_at")
    op.drop_column("web_user", "totp_secret")
