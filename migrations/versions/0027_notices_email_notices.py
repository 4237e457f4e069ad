"""email notices and password resets: where an account hears from the site, the queue, the reset links

Revision ID: 0027_notices
Revises: 0027_systems
Create Date: 2026-12-07

Issue 52. `web_user_contact` holds an account's email address, the language of its notices and, for
officers and admins, whether a file waiting is told at once, in a daily digest or never (a table beside
web_user: an account without a row gets no email). `notice` is the queue of email notices the server's
background sender and `ratingdb notices send` work through: the address and language of the moment it
was queued, the notice's facts as JSON, its status (waiting, sent, failed), the attempts made, when to try
next and why the last attempt failed. `password_reset` is a reset asked for by email: the SHA-256 of its
link's token (made when the notice is sent, never stored itself), when it expires and when it was used.
All three hold transient data, neither versioned nor sealed.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027_notices"
down_revision = "0027_systems"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_user_contact",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("language", sa.String(length=2), nullable=False),
        sa.Column("files_waiting", sa.String(length=8), server_default="daily", nullable=False),
        sa.Column("digest_on", sa.Date(), nullable=True),
        sa.CheckConstraint("email <> '' AND email = lower(email)", name=op.f("ck_web_user_contact_email")),
        sa.CheckConstraint("language IN ('en', 'de', 'fr')", name=op.f("ck_web_user_contact_language")),
        sa.CheckConstraint(
            "files_waiting IN ('at_once', 'daily', 'never')", name=op.f("ck_web_user_contact_files_waiting")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["web_user.id"],
            name=op.f("fk_web_user_contact_user_id_web_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_web_user_contact")),
    )
    op.create_index(op.f("ix_web_user_contact_email"), "web_user_contact", ["email"])
    op.create_table(
        "notice",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("language", sa.String(length=2), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("details", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=8), server_default="waiting", nullable=False),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("next_try_at", sa.DateTime(), nullable=False),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.CheckConstraint("status IN ('waiting', 'sent', 'failed')", name=op.f("ck_notice_status")),
        sa.CheckConstraint(
            "kind IN ('accepted', 'changes_requested', 'rejected', 'waiting', 'digest', 'role', 'password', "
            "'second_factor', 'address', 'reset')",
            name=op.f("ck_notice_kind"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["web_user.id"], name=op.f("fk_notice_user_id_web_user"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notice")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_notice_user_id"), "notice", ["user_id"])
    op.create_index("ix_notice_status_next_try_at", "notice", ["status", "next_try_at"])
    op.create_table(
        "password_reset",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("requested_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.Column("address", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["web_user.id"], name=op.f("fk_password_reset_user_id_web_user"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_password_reset")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_password_reset_token_hash")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_password_reset_user_id"), "password_reset", ["user_id"])


def downgrade() -> None:
    op.drop_table("password_reset")
    op.drop_table("notice")
    op.drop_table("web_user_contact")
