"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29

Tables, the immutability triggers on published lists and their calculation record, and the
reporting views. The SQL is written out here (not imported from the package) so this revision
stays what it was when later revisions change the models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "mysql":
        # Tables created from here on (by this and later migrations) are utf8mb4 compared byte for
        # byte, as on the other engines (ratingdb/guards.py says why).
        collation = mysql_byte_order_collation(getattr(bind.dialect, "is_mariadb", False))
        op.execute(f"ALTER DATABASE CHARACTER SET utf8mb4 COLLATE {collation}")
    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("city", sa.String(length=100), nullable=True),
        sa.Column("federation", sa.String(length=3), nullable=True),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("end_date", sa.Date(), nullable=False),
        sa.Column("rating_type", sa.String(length=8), nullable=False),
        sa.Column("official", sa.Boolean(), nullable=False),
        sa.Column("time_control", sa.String(length=100), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(length=7), nullable=False),
        sa.Column("natural_period", sa.String(length=7), nullable=False),
        sa.Column("source_name", sa.String(length=255), nullable=False),
        sa.Column("source_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "imported_at", sa.DateTime(), server_default=sa.text("(CURRENT_TIMESTAMP)"), nullable=False
        ),
        sa.CheckConstraint(
            "rating_type IN ('standard', 'rapid', 'blitz')", name=op.f("ck_event_rating_type")
        ),
        sa.CheckConstraint("end_date >= start_date", name=op.f("ck_event_dates")),
        sa.CheckConstraint("period >= natural_period", name=op.f("ck_event_period")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event")),
        sa.UniqueConstraint("source_hash", name=op.f("uq_event_source_hash")),
    )
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_period"), ["period"], unique=False)

    op.create_table(
        "player",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("fide_id", sa.BigInteger(), nullable=True),
        sa.Column("national_id", sa.String(length=20), nullable=True),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("federation", sa.String(length=3), nullable=True),
        sa.Column("sex", sa.String(length=1), nullable=True),
        sa.Column("title", sa.String(length=4), nullable=True),
        sa.Column("birth_year", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), server_default=sa.text("(CURRENT_TIMESTAMP)"), nullable=False),
        sa.CheckConstraint("sex IN ('M', 'F')", name=op.f("ck_player_sex")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player")),
        sa.UniqueConstraint("fide_id", name=op.f("uq_player_fide_id")),
        sa.UniqueConstraint("national_id", name=op.f("uq_player_national_id")),
    )
    op.create_table(
        "rating_list",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("rating_type", sa.String(length=8), nullable=False),
        sa.Column("list_date", sa.Date(), nullable=False),
        sa.Column("origin", sa.String(length=10), nullable=False),
        sa.Column("period", sa.String(length=7), nullable=True),
        sa.Column("source", sa.String(length=255), nullable=True),
        sa.Column("rules", sa.String(length=40), nullable=True),
        sa.Column("created_at", sa.DateTime(), server_default=sa.text("(CURRENT_TIMESTAMP)"), nullable=False),
        sa.CheckConstraint("origin IN ('imported', 'computed')", name=op.f("ck_rating_list_origin")),
        sa.CheckConstraint(
            "rating_type IN ('standard', 'rapid', 'blitz')", name=op.f("ck_rating_list_rating_type")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_list")),
        sa.UniqueConstraint("rating_type", "list_date", name="uq_rating_list_type_date"),
    )
    op.create_table(
        "calc_event",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("ratings_list_id", sa.Integer(), nullable=False),
        sa.Column("ro", sa.Integer(), nullable=True),
        sa.Column("rc_x100", sa.Integer(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("score_x100", sa.Integer(), nullable=False),
        sa.Column("sum_dr_x100", sa.Integer(), nullable=True),
        sa.Column("k", sa.Integer(), nullable=True),
        sa.Column("k_sum_dr_x100", sa.Integer(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["event_id"], ["event.id"], name=op.f("fk_calc_event_event_id_event")),
        sa.ForeignKeyConstraint(
            ["list_id"], ["rating_list.id"], name=op.f("fk_calc_event_list_id_rating_list")
        ),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_calc_event_player_id_player")),
        sa.ForeignKeyConstraint(
            ["ratings_list_id"], ["rating_list.id"], name=op.f("fk_calc_event_ratings_list_id_rating_list")
        ),
        sa.PrimaryKeyConstraint("list_id", "player_id", "event_id", name=op.f("pk_calc_event")),
    )
    with op.batch_alter_table("calc_event", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_calc_event_event_id"), ["event_id"], unique=False)

    op.create_table(
        "calc_player",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(length=10), nullable=False),
        sa.Column("ro", sa.Integer(), nullable=True),
        sa.Column("k_base", sa.Integer(), nullable=True),
        sa.Column("k", sa.Integer(), nullable=True),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("score_x100", sa.Integer(), nullable=False),
        sa.Column("sum_dr_x100", sa.Integer(), nullable=True),
        sa.Column("k_sum_dr_x100", sa.Integer(), nullable=True),
        sa.Column("change", sa.Integer(), nullable=True),
        sa.Column("opponent_sum", sa.Integer(), nullable=True),
        sa.Column("p_x100", sa.Integer(), nullable=True),
        sa.Column("dp", sa.Integer(), nullable=True),
        sa.Column("new_rating", sa.Integer(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.CheckConstraint("method IN ('change', 'initial', 'pool')", name=op.f("ck_calc_player_method")),
        sa.ForeignKeyConstraint(
            ["list_id"], ["rating_list.id"], name=op.f("fk_calc_player_list_id_rating_list")
        ),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_calc_player_player_id_player")),
        sa.PrimaryKeyConstraint("list_id", "player_id", name=op.f("pk_calc_player")),
    )
    with op.batch_alter_table("calc_player", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_calc_player_player_id"), ["player_id"], unique=False)

    op.create_table(
        "event_player",
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("start_rank", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("file_rating", sa.Integer(), nullable=True),
        sa.Column("points_x10", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["event_id"], ["event.id"], name=op.f("fk_event_player_event_id_event")),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_event_player_player_id_player")),
        sa.PrimaryKeyConstraint("event_id", "start_rank", name=op.f("pk_event_player")),
        sa.UniqueConstraint("event_id", "player_id", name="uq_event_player_event_player"),
    )
    with op.batch_alter_table("event_player", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_player_player_id"), ["player_id"], unique=False)

    op.create_table(
        "game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("date", sa.Date(), nullable=True),
        sa.Column("white_id", sa.Integer(), nullable=False),
        sa.Column("black_id", sa.Integer(), nullable=True),
        sa.Column("white_result", sa.String(length=1), nullable=False),
        sa.Column("black_result", sa.String(length=1), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("colour_known", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["black_id"], ["player.id"], name=op.f("fk_game_black_id_player")),
        sa.ForeignKeyConstraint(["event_id"], ["event.id"], name=op.f("fk_game_event_id_event")),
        sa.ForeignKeyConstraint(["white_id"], ["player.id"], name=op.f("fk_game_white_id_player")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game")),
    )
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_black_id"), ["black_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_game_event_id"), ["event_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_game_white_id"), ["white_id"], unique=False)

    op.create_table(
        "list_entry",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("k", sa.Integer(), nullable=True),
        sa.Column("flag", sa.String(length=2), nullable=True),
        sa.Column("change", sa.Integer(), nullable=True),
        sa.Column("games_total", sa.Integer(), nullable=False),
        sa.Column("reached_2400", sa.Boolean(), nullable=False),
        sa.Column("reached_2300", sa.Boolean(), nullable=False),
        sa.Column("last_active", sa.String(length=7), nullable=True),
        sa.Column("pool_from", sa.String(length=7), nullable=True),
        sa.CheckConstraint("flag IN ('i', 'w', 'wi')", name=op.f("ck_list_entry_flag")),
        sa.ForeignKeyConstraint(
            ["list_id"], ["rating_list.id"], name=op.f("fk_list_entry_list_id_rating_list")
        ),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_list_entry_player_id_player")),
        sa.PrimaryKeyConstraint("list_id", "player_id", name=op.f("pk_list_entry")),
    )
    with op.batch_alter_table("list_entry", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_list_entry_player_id"), ["player_id"], unique=False)

    op.create_table(
        "calc_game",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=6), nullable=False),
        sa.Column("opponent_id", sa.Integer(), nullable=False),
        sa.Column("own_rating", sa.Integer(), nullable=True),
        sa.Column("opponent_rating", sa.Integer(), nullable=False),
        sa.Column("d", sa.Integer(), nullable=True),
        sa.Column("pd_x100", sa.Integer(), nullable=True),
        sa.Column("score_x100", sa.Integer(), nullable=False),
        sa.CheckConstraint("kind IN ('rated', 'pool')", name=op.f("ck_calc_game_kind")),
        sa.ForeignKeyConstraint(["event_id"], ["event.id"], name=op.f("fk_calc_game_event_id_event")),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_calc_game_game_id_game")),
        sa.ForeignKeyConstraint(
            ["list_id"], ["rating_list.id"], name=op.f("fk_calc_game_list_id_rating_list")
        ),
        sa.ForeignKeyConstraint(["opponent_id"], ["player.id"], name=op.f("fk_calc_game_opponent_id_player")),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"], name=op.f("fk_calc_game_player_id_player")),
        sa.PrimaryKeyConstraint("list_id", "player_id", "game_id", name=op.f("pk_calc_game")),
    )
    with op.batch_alter_table("calc_game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_calc_game_game_id"), ["game_id"], unique=False)
        batch_op.create_index("ix_calc_game_player_kind", ["player_id", "kind"], unique=False)
    _create_triggers()
    _create_views()


def downgrade() -> None:
    _drop_views()
    _drop_triggers()
    if op.get_bind().dialect.name == "mysql":
        # MySQL refuses to drop an index a foreign key needs; dropping the table drops both.
        for table in ("calc_game", "list_entry", "game", "event_player", "calc_player", "calc_event"):
            op.drop_table(table)
        for table in ("rating_list", "player", "event"):
            op.drop_table(table)
        return
    with op.batch_alter_table("calc_game", schema=None) as batch_op:
        batch_op.drop_index("ix_calc_game_player_kind")
        batch_op.drop_index(batch_op.f("ix_calc_game_game_id"))

    op.drop_table("calc_game")
    with op.batch_alter_table("list_entry", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_list_entry_player_id"))

    op.drop_table("list_entry")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_white_id"))
        batch_op.drop_index(batch_op.f("ix_game_event_id"))
        batch_op.drop_index(batch_op.f("ix_game_black_id"))

    op.drop_table("game")
    with op.batch_alter_table("event_player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_player_player_id"))

    op.drop_table("event_player")
    with op.batch_alter_table("calc_player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_calc_player_player_id"))

    op.drop_table("calc_player")
    with op.batch_alter_table("calc_event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_calc_event_event_id"))

    op.drop_table("calc_event")
    op.drop_table("rating_list")
    op.drop_table("player")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_period"))

    op.drop_table("event")


IMMUTABLE_TABLES = ("rating_list", "list_entry", "calc_player", "calc_event", "calc_game")


def _create_triggers() -> None:
    """Published lists and their calculation record refuse UPDATE and DELETE in the database itself."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            """
            CREATE FUNCTION ratingdb_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'published lists are immutable: % on % refused', TG_OP, TG_TABLE_NAME;
            END
            $$
            """
        )
        for table in IMMUTABLE_TABLES:
            op.execute(
                f"CREATE TRIGGER trg_{table}_immutable BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_change()"
            )
            op.execute(
                f"CREATE TRIGGER trg_{table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_change()"
            )
        return
    for table in IMMUTABLE_TABLES:
        for action in ("UPDATE", "DELETE"):
            message = f"published lists are immutable: {action} on {table} refused"
            if op.get_bind().dialect.name == "mysql":
                op.execute(mysql_refusal(f"trg_{table}_no_{action.lower()}", action, table, message))
                continue
            op.execute(
                f"CREATE TRIGGER trg_{table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
            )


def _drop_triggers() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in IMMUTABLE_TABLES:
            op.execute(f"DROP TRIGGER trg_{table}_immutable ON {table}")
            op.execute(f"DROP TRIGGER trg_{table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION ratingdb_refuse_change()")
        return
    # SQLite and MySQL: one trigger per action, dropped by name.
    for table in IMMUTABLE_TABLES:
        for action in ("update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_no_{action}")


VIEWS = {
    # Every entry of every list, with the player's details.
    "v_list_entry": """
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               p.id AS player_id, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title,
               p.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               e.reached_2400, e.reached_2300
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    # The newest list of each rating type.
    "v_current_list": """
        SELECT v.* FROM v_list_entry v
        WHERE v.list_date = (SELECT MAX(l2.list_date) FROM rating_list l2
                             WHERE l2.rating_type = v.rating_type)
    """,
    # A player's published ratings over time, one row per list.
    "v_rating_history": """
        SELECT p.id AS player_id, p.fide_id, p.national_id, p.name, l.rating_type, l.list_date,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    # What each close did to each player it rated.
    "v_period_change": """
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.method, c.ro, c.new_rating, c.change, c.n AS games, c.k_base, c.k AS k_used,
               c.score_x100 / 100.0 AS score, c.sum_dr_x100 / 100.0 AS sum_dr,
               c.k_sum_dr_x100 / 100.0 AS k_sum_dr, c.note
        FROM calc_player c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
    """,
    # The calculation record per player, period and event.
    "v_calc_event": """
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               ev.id AS event_id, ev.name AS event_name, ev.start_date, ev.end_date,
               used.list_date AS ratings_from_list, c.ro, c.rc_x100 / 100.0 AS rc, c.n,
               c.score_x100 / 100.0 AS score, c.sum_dr_x100 / 100.0 AS sum_dr, c.k,
               c.k_sum_dr_x100 / 100.0 AS k_sum_dr, c.note
        FROM calc_event c
        JOIN rating_list l ON l.id = c.list_id
        JOIN rating_list used ON used.id = c.ratings_list_id
        JOIN player p ON p.id = c.player_id
        JOIN event ev ON ev.id = c.event_id
    """,
    # The calculation record per player and game.
    "v_calc_game": """
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.event_id, g.round, c.game_id, c.kind, o.id AS opponent_id, o.fide_id AS opponent_fide_id,
               o.name AS opponent_name, c.own_rating, c.opponent_rating, c.d, c.pd_x100 / 100.0 AS pd,
               c.score_x100 / 100.0 AS score, (c.score_x100 - c.pd_x100) / 100.0 AS dr
        FROM calc_game c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        JOIN player o ON o.id = c.opponent_id
        JOIN game g ON g.id = c.game_id
    """,
    # Events with their period and whether they were rated late (§9.1).
    "v_event": """
        SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
               ev.rating_type, ev.official, ev.rounds, ev.period, ev.natural_period,
               CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
               (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
               ev.source_name
        FROM event ev
    """,
}


def _create_views() -> None:
    for name, sql in VIEWS.items():
        op.execute(f"CREATE VIEW {name} AS {sql}")


def _drop_views() -> None:
    for name in reversed(list(VIEWS)):
        op.execute(f"DROP VIEW {name}")


# --- Frozen: the guard SQL, copied from ratingdb/guards.py as this migration ran it (December 2026).
# Migrations are history: never edit below, whatever ratingdb/guards.py becomes.


def _raise(dialect: str, message: str) -> str:
    if dialect == "postgresql":
        return f"RAISE EXCEPTION '{message}';"
    if dialect == "mysql":
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"
    return f"SELECT RAISE(ABORT, '{message}');"


# Names compare and sort as on SQLite and on PostgreSQL's C collation: by code point, accents and case
# significant ('Müller' is not 'Muller', 'de Vries' is not 'De Vries'), no trailing-space padding, so
# UNIQUE keys, lookups and ORDER BY name give the same answers on all three engines. MySQL's default
# (utf8mb4_general_ci / utf8mb4_0900_ai_ci) would make 'MÜLLER' equal 'muller'.
MYSQL_BYTE_ORDER_COLLATION = {"mariadb": "utf8mb4_nopad_bin", "mysql": "utf8mb4_0900_bin"}


def mysql_byte_order_collation(is_mariadb: bool) -> str:
    """The byte-order utf8mb4 collation of the server (MariaDB and MySQL 8 name it differently)."""
    return MYSQL_BYTE_ORDER_COLLATION["mariadb" if is_mariadb else "mysql"]


def mysql_refusal(name: str, action: str, table: str, message: str, condition: str | None = None) -> str:
    """CREATE TRIGGER refusing `action` ("INSERT", "UPDATE" or "DELETE") on `table` with `message`.

    `condition` (SQL over NEW/OLD) limits the refusal to the rows it holds for; without one every row is
    refused. The message is a plain sentence without quotes.
    """
    body = _raise("mysql", message)
    if condition is not None:
        body = f"IF {condition} THEN {body} END IF;"
    return f"CREATE TRIGGER {name} BEFORE {action} ON {table} FOR EACH ROW BEGIN {body} END"
