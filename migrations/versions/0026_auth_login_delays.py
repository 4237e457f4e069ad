"""sign-in delays: an account's lock expires (`web_user.locked_until`), failures kept per address and window

Revision ID: 0026_auth
Revises: 0026_public
Create Date: 2026-12-07

Issue 54 (M1, L3, L4). An account was locked for good after five wrong passwords (`web_user.locked`, lifted
only by an admin), so any stranger could lock any account; it now waits out a delay that doubles with each
failure and ends by itself: `locked_until`, the time before which the account is refused. The `locked` flag
goes (a lock an old version set is lifted: its account waits no longer).

`login_attempt` kept a row per attempt (13–15 million a day from one client) and every sign-in counted an
address's rows. `login_failure` keeps one row per address and window (the window's start, its count of
failures and the last one's time), counted up in place and pruned when old; sign-ins that succeed are not
kept (the audit log and `web_session` say who signed in). Both tables hold only transient data: nothing
is copied from the old one into the new.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026_auth"
down_revision = "0026_public"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("web_user", sa.Column("locked_until", sa.DateTime(), nullable=True))
    op.drop_column("web_user", "locked")
    op.drop_table("login_attempt")
    op.create_table(
        "login_failure",
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("window_start", sa.DateTime(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("address", "window_start", name=op.f("pk_login_failure")),
    )
    op.create_index(op.f("ix_login_failure_window_start"), "login_failure", ["window_start"])


def downgrade() -> None:
    op.drop_table("login_failure")
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
    op.add_column("web_user", sa.Column("locked", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.drop_column("web_user", "locked_until")
