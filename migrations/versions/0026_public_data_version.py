"""the public data version, and each submission's check kept whole

Revision ID: 0026_public
Revises: 0025
Create Date: 2026-12-07

The served site keyed every public page and the live ratings on the audit log's newest entry, which every
upload, withdrawal and desk decision also writes: one organiser sending a file five times a second made
every page and the live list be made again five times a second (issue 54, H1). `public_change` is a
counter of the changes the public sees — imports, closes, corrections, register and rule-set edits
(ratingdb.services.versions.public_change writes a row; the submissions and accounts never do) — whose
newest id is the public pages' data version. A row holds its id and time only; rows are never changed.

`submission.check_json` keeps the whole check made when the file came (its refusals with their lines, the
event, each line's matching), so that a view of the submission shows it without running the check again
(issue 54, M5); NULL for a submission sent before this migration (its `check_text` is shown).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026_public"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "public_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), server_default=sa.func.current_timestamp(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_public_change")),
        sqlite_autoincrement=True,
    )
    op.add_column("submission", sa.Column("check_json", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("submission", "check_json")  # SQLite 3.35 and later drop a column in place
    op.drop_table("public_change")
