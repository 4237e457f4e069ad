"""Glicko lists: each player's rating and deviation, and the calculation record of a close

Revision ID: 0027_systems
Revises: 0027_risk
Create Date: 2026-12-07

A rating type whose rule set says `system = "glicko"` (Glickman's first system, chess.com's) publishes
its lists like an Elo list (rating_list and list_entry, the whole-point rating in list_entry.rating) and
adds, per player, the rating and deviation to hundredths (glicko_entry) and the record of how the close
obtained them (glicko_calc_player: Step 1's deviation at the onset, d², the new rating and deviation;
glicko_calc_game: the opponent at the onset, g and E of each game). Sealed with their list by the same
guards as glicko2_entry and its record (0019): nothing is inserted under a sealed list or under no list,
nothing is ever updated or deleted; no foreign keys, as 0016.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027_systems"
down_revision = "0027_risk"
branch_labels = None
depends_on = None

TABLES = ("glicko_entry", "glicko_calc_player", "glicko_calc_game")

# The sealed-row guards (as 0019 wrote them for glicko2_entry and its record), written out: a migration carries the SQL it ran.
GUARDS: dict[str, list[str]] = {
    "sqlite": [
        "CREATE TRIGGER trg_glicko_entry_sealed_insert BEFORE INSERT ON glicko_entry WHEN COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) BEGIN SELECT RAISE(ABORT, 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_entry)'); END",
        "CREATE TRIGGER trg_glicko_entry_sealed_update BEFORE UPDATE ON glicko_entry BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko_entry never change'); END",
        "CREATE TRIGGER trg_glicko_entry_sealed_delete BEFORE DELETE ON glicko_entry BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko_entry never change'); END",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_insert BEFORE INSERT ON glicko_calc_player WHEN COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) BEGIN SELECT RAISE(ABORT, 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_calc_player)'); END",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_update BEFORE UPDATE ON glicko_calc_player BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko_calc_player never change'); END",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_delete BEFORE DELETE ON glicko_calc_player BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko_calc_player never change'); END",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_insert BEFORE INSERT ON glicko_calc_game WHEN COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) BEGIN SELECT RAISE(ABORT, 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_calc_game)'); END",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_update BEFORE UPDATE ON glicko_calc_game BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko_calc_game never change'); END",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_delete BEFORE DELETE ON glicko_calc_game BEGIN SELECT RAISE(ABORT, 'published lists are immutable: the rows of glicko_calc_game never change'); END",
    ],
    "postgresql": [
        "CREATE FUNCTION ratingdb_sealed_glicko_entry() RETURNS trigger LANGUAGE plpgsql AS $$\n            BEGIN\n                IF TG_OP = 'INSERT' THEN\n                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT list_id FROM new_rows) n\n                               LEFT JOIN rating_list p ON p.id = n.list_id WHERE p.id IS NULL OR p.sealed) THEN\n                        RAISE EXCEPTION 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_entry)';\n                    END IF;\n                    RETURN NULL;\n                END IF;\n                RAISE EXCEPTION 'published lists are immutable: the rows of glicko_entry never change';\n            END $$",
        "CREATE TRIGGER trg_glicko_entry_sealed_insert AFTER INSERT ON glicko_entry REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_sealed_glicko_entry()",
        "CREATE TRIGGER trg_glicko_entry_sealed_change BEFORE UPDATE OR DELETE ON glicko_entry FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_glicko_entry()",
        "CREATE TRIGGER trg_glicko_entry_no_truncate BEFORE TRUNCATE ON glicko_entry FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
        "CREATE FUNCTION ratingdb_sealed_glicko_calc_player() RETURNS trigger LANGUAGE plpgsql AS $$\n            BEGIN\n                IF TG_OP = 'INSERT' THEN\n                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT list_id FROM new_rows) n\n                               LEFT JOIN rating_list p ON p.id = n.list_id WHERE p.id IS NULL OR p.sealed) THEN\n                        RAISE EXCEPTION 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_calc_player)';\n                    END IF;\n                    RETURN NULL;\n                END IF;\n                RAISE EXCEPTION 'published lists are immutable: the rows of glicko_calc_player never change';\n            END $$",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_insert AFTER INSERT ON glicko_calc_player REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_sealed_glicko_calc_player()",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_change BEFORE UPDATE OR DELETE ON glicko_calc_player FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_glicko_calc_player()",
        "CREATE TRIGGER trg_glicko_calc_player_no_truncate BEFORE TRUNCATE ON glicko_calc_player FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
        "CREATE FUNCTION ratingdb_sealed_glicko_calc_game() RETURNS trigger LANGUAGE plpgsql AS $$\n            BEGIN\n                IF TG_OP = 'INSERT' THEN\n                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT list_id FROM new_rows) n\n                               LEFT JOIN rating_list p ON p.id = n.list_id WHERE p.id IS NULL OR p.sealed) THEN\n                        RAISE EXCEPTION 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_calc_game)';\n                    END IF;\n                    RETURN NULL;\n                END IF;\n                RAISE EXCEPTION 'published lists are immutable: the rows of glicko_calc_game never change';\n            END $$",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_insert AFTER INSERT ON glicko_calc_game REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_sealed_glicko_calc_game()",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_change BEFORE UPDATE OR DELETE ON glicko_calc_game FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_glicko_calc_game()",
        "CREATE TRIGGER trg_glicko_calc_game_no_truncate BEFORE TRUNCATE ON glicko_calc_game FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()",
    ],
    "mysql": [
        "CREATE TRIGGER trg_glicko_entry_sealed_insert BEFORE INSERT ON glicko_entry FOR EACH ROW BEGIN IF COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_entry)'; END IF; END",
        "CREATE TRIGGER trg_glicko_entry_sealed_update BEFORE UPDATE ON glicko_entry FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko_entry never change'; END",
        "CREATE TRIGGER trg_glicko_entry_sealed_delete BEFORE DELETE ON glicko_entry FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko_entry never change'; END",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_insert BEFORE INSERT ON glicko_calc_player FOR EACH ROW BEGIN IF COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_calc_player)'; END IF; END",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_update BEFORE UPDATE ON glicko_calc_player FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko_calc_player never change'; END",
        "CREATE TRIGGER trg_glicko_calc_player_sealed_delete BEFORE DELETE ON glicko_calc_player FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko_calc_player never change'; END",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_insert BEFORE INSERT ON glicko_calc_game FOR EACH ROW BEGIN IF COALESCE((SELECT sealed FROM rating_list WHERE id = NEW.list_id), TRUE) THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: no row can be added to a sealed list, or to no list (glicko_calc_game)'; END IF; END",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_update BEFORE UPDATE ON glicko_calc_game FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko_calc_game never change'; END",
        "CREATE TRIGGER trg_glicko_calc_game_sealed_delete BEFORE DELETE ON glicko_calc_game FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'published lists are immutable: the rows of glicko_calc_game never change'; END",
    ],
}
DROP_GUARDS: dict[str, list[str]] = {
    "sqlite": [
        "DROP TRIGGER trg_glicko_entry_sealed_insert",
        "DROP TRIGGER trg_glicko_entry_sealed_update",
        "DROP TRIGGER trg_glicko_entry_sealed_delete",
        "DROP TRIGGER trg_glicko_calc_player_sealed_insert",
        "DROP TRIGGER trg_glicko_calc_player_sealed_update",
        "DROP TRIGGER trg_glicko_calc_player_sealed_delete",
        "DROP TRIGGER trg_glicko_calc_game_sealed_insert",
        "DROP TRIGGER trg_glicko_calc_game_sealed_update",
        "DROP TRIGGER trg_glicko_calc_game_sealed_delete",
    ],
    "postgresql": [
        "DROP TRIGGER trg_glicko_entry_sealed_insert ON glicko_entry",
        "DROP TRIGGER trg_glicko_entry_sealed_change ON glicko_entry",
        "DROP TRIGGER trg_glicko_entry_no_truncate ON glicko_entry",
        "DROP FUNCTION ratingdb_sealed_glicko_entry()",
        "DROP TRIGGER trg_glicko_calc_player_sealed_insert ON glicko_calc_player",
        "DROP TRIGGER trg_glicko_calc_player_sealed_change ON glicko_calc_player",
        "DROP TRIGGER trg_glicko_calc_player_no_truncate ON glicko_calc_player",
        "DROP FUNCTION ratingdb_sealed_glicko_calc_player()",
        "DROP TRIGGER trg_glicko_calc_game_sealed_insert ON glicko_calc_game",
        "DROP TRIGGER trg_glicko_calc_game_sealed_change ON glicko_calc_game",
        "DROP TRIGGER trg_glicko_calc_game_no_truncate ON glicko_calc_game",
        "DROP FUNCTION ratingdb_sealed_glicko_calc_game()",
    ],
    "mysql": [
        "DROP TRIGGER trg_glicko_entry_sealed_insert",
        "DROP TRIGGER trg_glicko_entry_sealed_update",
        "DROP TRIGGER trg_glicko_entry_sealed_delete",
        "DROP TRIGGER trg_glicko_calc_player_sealed_insert",
        "DROP TRIGGER trg_glicko_calc_player_sealed_update",
        "DROP TRIGGER trg_glicko_calc_player_sealed_delete",
        "DROP TRIGGER trg_glicko_calc_game_sealed_insert",
        "DROP TRIGGER trg_glicko_calc_game_sealed_update",
        "DROP TRIGGER trg_glicko_calc_game_sealed_delete",
    ],
}


def upgrade() -> None:
    op.create_table(
        "glicko_entry",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("rating_x100", sa.Integer(), nullable=False),
        sa.Column("deviation_x100", sa.Integer(), nullable=False),
        sa.CheckConstraint("deviation_x100 > 0", name=op.f("ck_glicko_entry_deviation")),
        sa.PrimaryKeyConstraint("list_id", "player_id", name=op.f("pk_glicko_entry")),
    )
    op.create_table(
        "glicko_calc_player",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("newcomer", sa.Boolean(), nullable=False),
        sa.Column("rating_x100", sa.Integer(), nullable=False),
        sa.Column("deviation_x100", sa.Integer(), nullable=False),
        sa.Column("onset_deviation", sa.Double(), nullable=False),
        sa.Column("grown_to_maximum", sa.Boolean(), nullable=False),
        sa.Column("d2", sa.Double(), nullable=True),
        sa.Column("improvement", sa.Double(), nullable=True),
        sa.Column("new_rating", sa.Double(), nullable=False),
        sa.Column("new_deviation", sa.Double(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("list_id", "player_id", name=op.f("pk_glicko_calc_player")),
    )
    op.create_index(
        op.f("ix_glicko_calc_player_player_id"), "glicko_calc_player", ["player_id"], unique=False
    )
    op.create_table(
        "glicko_calc_game",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("opponent_id", sa.Integer(), nullable=False),
        sa.Column("opponent_rating_x100", sa.Integer(), nullable=False),
        sa.Column("opponent_deviation", sa.Double(), nullable=False),
        sa.Column("g", sa.Double(), nullable=False),
        sa.Column("e", sa.Double(), nullable=False),
        sa.Column("score_x100", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("list_id", "player_id", "game_id", name=op.f("pk_glicko_calc_game")),
    )
    for statement in GUARDS[op.get_bind().dialect.name]:
        op.execute(statement)


def downgrade() -> None:
    for statement in DROP_GUARDS[op.get_bind().dialect.name]:
        op.execute(statement)
    op.drop_table("glicko_calc_game")
    op.drop_index(op.f("ix_glicko_calc_player_player_id"), table_name="glicko_calc_player")
    op.drop_table("glicko_calc_player")
    op.drop_table("glicko_entry")
