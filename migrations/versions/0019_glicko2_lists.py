"""Glicko-2 lists: each player's rating, deviation and volatility, and the calculation record of a close

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01

A rating type whose rule set says `system = "glicko2"` publishes its lists like an Elo list (rating_list
and list_entry, the whole-point rating in list_entry.rating) and adds, per player, the figures Glicko-2
carries from period to period (glicko2_entry) and the record of how the close obtained them
(glicko2_calc_player: Glickman's steps 2–8; glicko2_calc_game: the opponent, g and E of each game).
The three tables are sealed with their list by the same guards as list_entry and calc_* (0006, 0016):
nothing is inserted under a sealed list or under no list, nothing is ever updated or deleted. Like those
tables after 0016 they have no foreign keys: the close writes them in bulk in its own transaction.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ratingdb import guards

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

TABLES = ("glicko2_entry", "glicko2_calc_player", "glicko2_calc_game")


def upgrade() -> None:
    op.create_table(
        "glicko2_entry",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("rating_x100", sa.Integer(), nullable=False),
        sa.Column("deviation_x100", sa.Integer(), nullable=False),
        sa.Column("volatility_x1e6", sa.Integer(), nullable=False),
        sa.CheckConstraint("deviation_x100 > 0", name=op.f("ck_glicko2_entry_deviation")),
        sa.CheckConstraint("volatility_x1e6 > 0", name=op.f("ck_glicko2_entry_volatility")),
        sa.PrimaryKeyConstraint("list_id", "player_id", name=op.f("pk_glicko2_entry")),
    )
    op.create_table(
        "glicko2_calc_player",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("newcomer", sa.Boolean(), nullable=False),
        sa.Column("rating_x100", sa.Integer(), nullable=False),
        sa.Column("deviation_x100", sa.Integer(), nullable=False),
        sa.Column("volatility_x1e6", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("phi", sa.Double(), nullable=False),
        sa.Column("v", sa.Double(), nullable=True),
        sa.Column("delta", sa.Double(), nullable=True),
        sa.Column("new_sigma", sa.Double(), nullable=False),
        sa.Column("phi_star", sa.Double(), nullable=False),
        sa.Column("phi_star_capped", sa.Boolean(), nullable=False),
        sa.Column("new_phi", sa.Double(), nullable=False),
        sa.Column("new_mu", sa.Double(), nullable=False),
        sa.Column("iterations", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("list_id", "player_id", name=op.f("pk_glicko2_calc_player")),
    )
    op.create_index(
        op.f("ix_glicko2_calc_player_player_id"), "glicko2_calc_player", ["player_id"], unique=False
    )
    op.create_table(
        "glicko2_calc_game",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("opponent_id", sa.Integer(), nullable=False),
        sa.Column("opponent_rating_x100", sa.Integer(), nullable=False),
        sa.Column("opponent_deviation_x100", sa.Integer(), nullable=False),
        sa.Column("g", sa.Double(), nullable=False),
        sa.Column("e", sa.Double(), nullable=False),
        sa.Column("score_x100", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("list_id", "player_id", "game_id", name=op.f("pk_glicko2_calc_game")),
    )
    dialect = op.get_bind().dialect.name
    for table in TABLES:
        for statement in guards.sealed_rows_guard(dialect, table, refuse_missing=True):
            op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in TABLES:
        for statement in guards.drop_sealed_rows_guard(dialect, table):
            op.execute(statement)
    op.drop_table("glicko2_calc_game")
    op.drop_index(op.f("ix_glicko2_calc_player_player_id"), table_name="glicko2_calc_player")
    op.drop_table("glicko2_calc_player")
    op.drop_table("glicko2_entry")
