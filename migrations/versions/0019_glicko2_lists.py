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

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

TABLES = ("glicko2_entry", "glicko2_calc_player", "glicko2_calc_game")

# The sealed-row guards (ratingdb.guards.sealed_rows_guard(..., refuse_missing=True) as of this
# migration), written out: a migration carries the SQL it ran.
GUARDS: dict[str, list[str]] = {
    "sqlite": [
        "CREATE TRIGGER trg_glicko2_entry_sealed_insert BEFORE INSERT ON glicko2_entry WHEN COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) BEGIN SELECT RAISE(ABORT, 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_entry)'); END",
        "CREATE TRIGGER trg_glicko2_entry_sealed_update BEFORE UPDATE ON glicko2_entry BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko2_entry never change'); END",
        "CREATE TRIGGER trg_glicko2_entry_sealed_delete BEFORE DELETE ON glicko2_entry BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko2_entry never change'); END",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_insert BEFORE INSERT ON glicko2_calc_player WHEN COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) BEGIN SELECT RAISE(ABORT, 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_calc_player)'); END",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_update BEFORE UPDATE ON glicko2_calc_player BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko2_calc_player never change'); END",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_delete BEFORE DELETE ON glicko2_calc_player BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko2_calc_player never change'); END",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_insert BEFORE INSERT ON glicko2_calc_game WHEN COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) BEGIN SELECT RAISE(ABORT, 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_calc_game)'); END",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_update BEFORE UPDATE ON glicko2_calc_game BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko2_calc_game never change'); END",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_delete BEFORE DELETE ON glicko2_calc_game BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko2_calc_game never change'); END",
    ],
    "postgresql": [
        "CREATE FUNCTION ratingdb_sealed_glicko2_entry() RETURNS trigger LANGUAGE plpgsql AS $$\n            BEGIN\n                IF TG_OP = 'INSERT' THEN\n                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT list_id FROM new_rows) n\n                               LEFT JOIN rating_list p ON p.id = n.list_id WHERE p.id IS NULL OR p.sealed) THEN\n                        RAISE EXCEPTION 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_entry)';\n                    END IF;\n                    RETURN NULL;\n                END IF;\n                RAISE EXCEPTION 'published lists are immutable: the rows of glicko2_entry never change';\n            END $$",
        "CREATE TRIGGER trg_glicko2_entry_sealed_insert AFTER INSERT ON glicko2_entry REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_sealed_glicko2_entry()",
        "CREATE TRIGGER trg_glicko2_entry_sealed_change BEFORE UPDATE OR DELETE ON glicko2_entry FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_glicko2_entry()",
        "CREATE TRIGGER trg_glicko2_entry_no_truncate BEFORE TRUNCATE ON glicko2_entry FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
        "CREATE FUNCTION ratingdb_sealed_glicko2_calc_player() RETURNS trigger LANGUAGE plpgsql AS $$\n            BEGIN\n                IF TG_OP = 'INSERT' THEN\n                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT list_id FROM new_rows) n\n                               LEFT JOIN rating_list p ON p.id = n.list_id WHERE p.id IS NULL OR p.sealed) THEN\n                        RAISE EXCEPTION 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_calc_player)';\n                    END IF;\n                    RETURN NULL;\n                END IF;\n                RAISE EXCEPTION 'published lists are immutable: the rows of glicko2_calc_player never change';\n            END $$",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_insert AFTER INSERT ON glicko2_calc_player REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_sealed_glicko2_calc_player()",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_change BEFORE UPDATE OR DELETE ON glicko2_calc_player FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_glicko2_calc_player()",
        "CREATE TRIGGER trg_glicko2_calc_player_no_truncate BEFORE TRUNCATE ON glicko2_calc_player FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
        "CREATE FUNCTION ratingdb_sealed_glicko2_calc_game() RETURNS trigger LANGUAGE plpgsql AS $$\n            BEGIN\n                IF TG_OP = 'INSERT' THEN\n                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT list_id FROM new_rows) n\n                               LEFT JOIN rating_list p ON p.id = n.list_id WHERE p.id IS NULL OR p.sealed) THEN\n                        RAISE EXCEPTION 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_calc_game)';\n                    END IF;\n                    RETURN NULL;\n                END IF;\n                RAISE EXCEPTION 'published lists are immutable: the rows of glicko2_calc_game never change';\n            END $$",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_insert AFTER INSERT ON glicko2_calc_game REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_sealed_glicko2_calc_game()",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_change BEFORE UPDATE OR DELETE ON glicko2_calc_game FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_glicko2_calc_game()",
        "CREATE TRIGGER trg_glicko2_calc_game_no_truncate BEFORE TRUNCATE ON glicko2_calc_game FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
    ],
    "mysql": [
        "CREATE TRIGGER trg_glicko2_entry_sealed_insert BEFORE INSERT ON glicko2_entry FOR EACH ROW BEGIN IF COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_entry)'; END IF; END",
        "CREATE TRIGGER trg_glicko2_entry_sealed_update BEFORE UPDATE ON glicko2_entry FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko2_entry never change'; END",
        "CREATE TRIGGER trg_glicko2_entry_sealed_delete BEFORE DELETE ON glicko2_entry FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko2_entry never change'; END",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_insert BEFORE INSERT ON glicko2_calc_player FOR EACH ROW BEGIN IF COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_calc_player)'; END IF; END",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_update BEFORE UPDATE ON glicko2_calc_player FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko2_calc_player never change'; END",
        "CREATE TRIGGER trg_glicko2_calc_player_sealed_delete BEFORE DELETE ON glicko2_calc_player FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko2_calc_player never change'; END",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_insert BEFORE INSERT ON glicko2_calc_game FOR EACH ROW BEGIN IF COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko2_calc_game)'; END IF; END",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_update BEFORE UPDATE ON glicko2_calc_game FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko2_calc_game never change'; END",
        "CREATE TRIGGER trg_glicko2_calc_game_sealed_delete BEFORE DELETE ON glicko2_calc_game FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko2_calc_game never change'; END",
    ],
}
DROP_GUARDS: dict[str, list[str]] = {
    "sqlite": [
        "DROP TRIGGER trg_glicko2_entry_sealed_insert",
        "DROP TRIGGER trg_glicko2_entry_sealed_update",
        "DROP TRIGGER trg_glicko2_entry_sealed_delete",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_insert",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_update",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_delete",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_insert",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_update",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_delete",
    ],
    "postgresql": [
        "DROP TRIGGER trg_glicko2_entry_sealed_insert ON glicko2_entry",
        "DROP TRIGGER trg_glicko2_entry_sealed_change ON glicko2_entry",
        "DROP TRIGGER trg_glicko2_entry_no_truncate ON glicko2_entry",
        "DROP FUNCTION ratingdb_sealed_glicko2_entry()",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_insert ON glicko2_calc_player",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_change ON glicko2_calc_player",
        "DROP TRIGGER trg_glicko2_calc_player_no_truncate ON glicko2_calc_player",
        "DROP FUNCTION ratingdb_sealed_glicko2_calc_player()",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_insert ON glicko2_calc_game",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_change ON glicko2_calc_game",
        "DROP TRIGGER trg_glicko2_calc_game_no_truncate ON glicko2_calc_game",
        "DROP FUNCTION ratingdb_sealed_glicko2_calc_game()",
    ],
    "mysql": [
        "DROP TRIGGER trg_glicko2_entry_sealed_insert",
        "DROP TRIGGER trg_glicko2_entry_sealed_update",
        "DROP TRIGGER trg_glicko2_entry_sealed_delete",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_insert",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_update",
        "DROP TRIGGER trg_glicko2_calc_player_sealed_delete",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_insert",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_update",
        "DROP TRIGGER trg_glicko2_calc_game_sealed_delete",
    ],
}


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
    for statement in GUARDS[op.get_bind().dialect.name]:
        op.execute(statement)


def downgrade() -> None:
    for statement in DROP_GUARDS[op.get_bind().dialect.name]:
        op.execute(statement)
    op.drop_table("glicko2_calc_game")
    op.drop_index(op.f("ix_glicko2_calc_player_player_id"), table_name="glicko2_calc_player")
    op.drop_table("glicko2_calc_player")
    op.drop_table("glicko2_entry")
