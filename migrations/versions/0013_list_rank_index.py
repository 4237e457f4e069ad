"""list rank index: list_entry (list_id, rating), so the first entries of a list are read, not sorted

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-30

`ratingdb list DATE --limit N` (and any top of a list) sorted every entry of the list to print the first
N: about 1 s for 200,000 entries on SQLite, growing with the size of the federation. With this index the
N-th best rating is read from N index entries, and only the entries at or above it are joined to their
player details and sorted (ratingdb.reports.lists.list_lines). Only an index: nothing to backfill, and
no trigger names it.
"""

from __future__ import annotations

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_list_entry_list_rating", "list_entry", ["list_id", "rating"])


def downgrade() -> None:
    op.drop_index("ix_list_entry_list_rating", table_name="list_entry")
