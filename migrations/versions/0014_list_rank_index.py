"""list rank index: list_entry (list_id, rating), so the first entries of a list are read, not sorted

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-30

`ratingdb list DATE --limit N` (and any top of a list) sorted every entry of the list to print the first
N: 0.3-0.6 s for 190,000 entries on SQLite (bench/growth.py), growing with the federation. With this index the
N-th best rating is read from N index entries, and only the entries at or above it are joined to their
player details and sorted (ratingdb.reports.lists.list_lines). Only an index: nothing to backfill, and
no trigger names it.
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_list_entry_list_rating", "list_entry", ["list_id", "rating"])


def downgrade() -> None:
    op.drop_index("ix_list_entry_list_rating", table_name="list_entry")
