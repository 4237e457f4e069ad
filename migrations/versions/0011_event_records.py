"""Event records: the imported file's header records and the player lines' rank and national rating

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-30

`export-trf` writes back everything the import read (issue 18): the header records verbatim (102 chief
arbiter, 112 deputies, 092 type of tournament, 132 round dates as written, TRF26 records …) in a new
table, and three columns of event_player (the rank column, the national rating and its federation
code). Nothing here is used for rating. Events imported before this migration keep NULLs and no
records; `export-trf` then writes the header it can rebuild from the event, as before.

The new columns are nullable, so adding and dropping them is a plain ALTER TABLE on every engine; the
closed-period triggers of event_player (0004, 0006, 0007) name only event_id and survive both.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def player_columns() -> list[sa.Column[object]]:
    return [
        sa.Column("final_rank", sa.Integer(), nullable=True),
        sa.Column("national_rating", sa.Integer(), nullable=True),
        sa.Column("national_federation", sa.String(length=3), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "event_record",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["event_id"], ["event.id"], name=op.f("fk_event_record_event_id_event")),
        sa.PrimaryKeyConstraint("event_id", "seq", name=op.f("pk_event_record")),
    )
    for column in player_columns():
        op.add_column("event_player", column)


def downgrade() -> None:
    for column in reversed(player_columns()):
        op.drop_column("event_player", column.name)
    op.drop_table("event_record")
