"""web accounts: users of the served site, their sessions, login attempts, and organisers' submissions

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-01

The served site's signed-in side (issue 29): `web_user` holds each person's account (organiser, officer
or admin; an argon2 hash, never the password), `web_session` the server-side record behind a session
cookie (the SHA-256 of the cookie's token, never the token: a copy of the table opens no session), so
logout, disabling and a role change end a session by deleting its row; `login_attempt` the attempts by
address and name that the login limits count; `submission` a tournament file an organiser sent, kept as
its bytes with their SHA-256 (never a path), with its status and the officer's decision. None of them is
versioned or sealed: sessions and attempts come and go, and a submission's status moves on; what the
officer does with a submission is written to the audit log by the services.

The bytes of a file are a BLOB on SQLite and PostgreSQL (bytea) and a MEDIUMBLOB on MySQL/MariaDB, whose
plain BLOB holds 64 KB only.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

ROLES = "role IN ('organiser', 'officer', 'admin')"
STATUSES = "status IN ('submitted', 'changes_requested', 'accepted', 'rejected', 'withdrawn', 'replaced')"
RATING_TYPE_CHECK = "rating_type <> '' AND rating_type = lower(rating_type)"


def upgrade() -> None:
    op.create_table(
        "web_user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=12), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("disabled", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("failed_logins", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("locked", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(), server_default=sa.func.current_timestamp(), nullable=False),
        sa.CheckConstraint(ROLES, name=op.f("ck_web_user_role")),
        sa.CheckConstraint(
            "username <> '' AND username = lower(username)", name=op.f("ck_web_user_username")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_user")),
        sa.UniqueConstraint("username", name=op.f("uq_web_user_username")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "web_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["web_user.id"], name=op.f("fk_web_session_user_id_web_user"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_session")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_session_token_hash")),
    )
    op.create_index(op.f("ix_web_session_user_id"), "web_session", ["user_id"])
    op.create_table(
        "login_attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=False),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_attempt")),
    )
    op.create_index(op.f("ix_login_attempt_address"), "login_attempt", ["address"])
    op.create_index(op.f("ix_login_attempt_at"), "login_attempt", ["at"])
    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organiser_id", sa.Integer(), nullable=False),
        sa.Column("rating_type", sa.String(length=8), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("file_name", sa.String(length=255), nullable=False),
        sa.Column("content", sa.LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql"), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("check_ok", sa.Boolean(), nullable=False),
        sa.Column("check_text", sa.Text(), nullable=False),
        sa.Column("officer_reason", sa.Text(), nullable=True),
        sa.Column("decided_by", sa.Integer(), nullable=True),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
        sa.Column("event_id", sa.Integer(), nullable=True),
        sa.Column("replaces_id", sa.Integer(), nullable=True),
        sa.Column("choices", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), server_default=sa.func.current_timestamp(), nullable=False),
        sa.CheckConstraint(STATUSES, name=op.f("ck_submission_status")),
        sa.CheckConstraint(RATING_TYPE_CHECK, name=op.f("ck_submission_rating_type")),
        sa.ForeignKeyConstraint(
            ["organiser_id"], ["web_user.id"], name=op.f("fk_submission_organiser_id_web_user")
        ),
        sa.ForeignKeyConstraint(
            ["decided_by"], ["web_user.id"], name=op.f("fk_submission_decided_by_web_user")
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_submission_event_id_event"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["replaces_id"], ["submission.id"], name=op.f("fk_submission_replaces_id_submission")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submission")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_submission_organiser_id"), "submission", ["organiser_id"])
    op.create_index(op.f("ix_submission_sha256"), "submission", ["sha256"])
    op.create_index(op.f("ix_submission_status"), "submission", ["status"])


def downgrade() -> None:
    # Dropping a table drops its indexes (MySQL refuses to drop an index a foreign key needs first).
    for table in ("submission", "login_attempt", "web_session", "web_user"):
        op.drop_table(table)
