"""calculation record for scale: calc_game keeps only the keys that protect, calc_event is derived

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-30

A close at FIDE's size writes about two million `calc_game` rows; each paid four foreign-key lookups
(player, opponent, game, event) and two secondary indexes (game, player + kind) that protected nothing
the close's own transaction and the guards do not already protect: the close writes only ids it has just
read in the same transaction, a sealed list's rows are never added, changed or deleted (0006), the games
and events of a closed period never change (0004/0006), an event that a list's record refers to is only
ever withdrawn, never deleted (`delete-event`), and a player on a list cannot be deleted. So `calc_game`
keeps its primary key (list, player, game: every read of the record is by list and player) and the key
to its list.

`calc_event` (one row per player, list and event) held nothing that `calc_game` does not, except the
list each event took its ratings from and the event's note, which are per list and event: they move to
`calc_list_event` (a few thousand rows a close), and `calc_event` becomes a view with the same columns,
computed from `calc_game`, `calc_list_event` and `calc_player` (K). Before the table is dropped the
upgrade checks that the view gives exactly the stored rows, and stops with the first difference if not.
The downgrade writes the view's rows back into a table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

DERIVED_VIEWS = ("v_calc_event", "v_calc_game")
GAME_KEYS_DROPPED = (
    ("player_id", "player"),
    ("game_id", "game"),
    ("event_id", "event"),
    ("opponent_id", "player"),
)
CALC_EVENT_COLUMNS = (
    "list_id", "player_id", "event_id", "ratings_list_id", "ro", "rc_x100", "n", "score_x100", "sum_dr_x100",
    "k", "k_sum_dr_x100", "note",
)  # fmt: skip


def calc_event_view(dialect: str, list_events: str = "calc_list_event") -> str:
    """calc_event as it was stored, from calc_game (one row per player and game), calc_list_event and K.

    Rc is the opponents' average × 100 rounded half away from zero, as the close rounds it: ratings are
    positive, so that is (200 Σ + n) div 2n in integers. Sums are cast back to integers (MySQL's are
    decimals); MySQL divides integers with DIV.
    """
    integer, divide = ("SIGNED", "DIV") if dialect == "mysql" else ("INTEGER", "/")
    return f"""
        SELECT c.list_id, c.player_id, c.event_id, e.ratings_list_id, MAX(c.own_rating) AS ro,
               CAST((200 * SUM(c.opponent_rating) + COUNT(*)) {divide} (2 * COUNT(*)) AS {integer})
                   AS rc_x100,
               COUNT(*) AS n, CAST(SUM(c.score_x100) AS {integer}) AS score_x100,
               CAST(SUM(c.score_x100 - c.pd_x100) AS {integer}) AS sum_dr_x100, p.k,
               CAST(p.k * SUM(c.score_x100 - c.pd_x100) AS {integer}) AS k_sum_dr_x100, e.note
        FROM calc_game c
        JOIN {list_events} e ON e.list_id = c.list_id AND e.event_id = c.event_id
        JOIN calc_player p ON p.list_id = c.list_id AND p.player_id = c.player_id
        GROUP BY c.list_id, c.player_id, c.event_id, e.ratings_list_id, e.note, p.k
    """


def _run(statements: list[str]) -> None:
    for statement in statements:
        op.execute(statement)


def _fk(column: str, referred: str) -> str:
    return f"fk_calc_game_{column}_{referred}"


def _check_derivable(dialect: str) -> None:
    """Stop before any change unless the view would give exactly the stored calc_event rows (MySQL cannot
    roll back DDL, so this comes first)."""
    columns = ", ".join(CALC_EVENT_COLUMNS)
    derived = calc_event_view(
        dialect, "(SELECT DISTINCT list_id, event_id, ratings_list_id, note FROM calc_event)"
    )
    for one, other in (("calc_event", f"({derived}) d"), (f"({derived}) d", "calc_event")):
        difference = (
            op.get_bind()
            .execute(sa.text(f"SELECT {columns} FROM {one} EXCEPT SELECT {columns} FROM {other}"))
            .first()
        )
        if difference is not None:
            raise RuntimeError(
                "migration 0013 stopped before changing anything: the calculation record per event "
                "derived from calc_game differs from the stored calc_event row "
                f"{dict(zip(CALC_EVENT_COLUMNS, difference, strict=True))}. Report this as a bug."
            )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    _check_derivable(dialect)
    for name in reversed(DERIVED_VIEWS):
        op.execute(f"DROP VIEW {name}")
    _run(drop_sealed_rows_guard(dialect, "calc_game"))
    _run(drop_sealed_rows_guard(dialect, "calc_event"))

    # calc_game: the list key and the primary key only.
    if dialect == "mysql":
        # MySQL keeps the index it made for a foreign key after the key is dropped: drop both.
        for column, referred in GAME_KEYS_DROPPED:
            op.drop_constraint(_fk(column, referred), "calc_game", type_="foreignkey")
        for index in sa.inspect(op.get_bind()).get_indexes("calc_game"):
            op.drop_index(index["name"], table_name="calc_game")
    else:
        with op.batch_alter_table("calc_game", recreate="always" if dialect == "sqlite" else "auto") as batch:
            batch.drop_index("ix_calc_game_player_kind")
            batch.drop_index("ix_calc_game_game_id")
            for column, referred in GAME_KEYS_DROPPED:
                batch.drop_constraint(_fk(column, referred), type_="foreignkey")

    # calc_list_event: what calc_event held per list and event.
    op.create_table(
        "calc_list_event",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("ratings_list_id", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["list_id"], ["rating_list.id"], name=op.f("fk_calc_list_event_list_id_rating_list")
        ),
        sa.ForeignKeyConstraint(["event_id"], ["event.id"], name=op.f("fk_calc_list_event_event_id_event")),
        sa.ForeignKeyConstraint(
            ["ratings_list_id"],
            ["rating_list.id"],
            name=op.f("fk_calc_list_event_ratings_list_id_rating_list"),
        ),
        sa.PrimaryKeyConstraint("list_id", "event_id", name=op.f("pk_calc_list_event")),
    )
    op.create_index(op.f("ix_calc_list_event_event_id"), "calc_list_event", ["event_id"])
    op.execute(
        "INSERT INTO calc_list_event (list_id, event_id, ratings_list_id, note) "
        "SELECT DISTINCT list_id, event_id, ratings_list_id, note FROM calc_event"
    )
    _run(sealed_rows_guard(dialect, "calc_list_event"))

    # calc_event becomes the view (_check_derivable showed it gives the stored rows).
    op.drop_table("calc_event")
    op.execute(f"CREATE VIEW calc_event AS {calc_event_view(dialect)}")

    _run(sealed_rows_guard(dialect, "calc_game"))
    _create_views_0006({name: VIEWS_0006[name] for name in DERIVED_VIEWS})


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in reversed(DERIVED_VIEWS):
        op.execute(f"DROP VIEW {name}")
    _run(drop_sealed_rows_guard(dialect, "calc_game"))

    op.execute(f"CREATE VIEW calc_event_derived AS {calc_event_view(dialect)}")
    op.execute("DROP VIEW calc_event")
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
    op.create_index(op.f("ix_calc_event_event_id"), "calc_event", ["event_id"])
    columns = ", ".join(CALC_EVENT_COLUMNS)
    op.execute(f"INSERT INTO calc_event ({columns}) SELECT {columns} FROM calc_event_derived")
    op.execute("DROP VIEW calc_event_derived")
    _run(drop_sealed_rows_guard(dialect, "calc_list_event"))
    op.drop_table("calc_list_event")
    _run(sealed_rows_guard(dialect, "calc_event"))

    if dialect == "mysql":
        op.create_index("ix_calc_game_player_kind", "calc_game", ["player_id", "kind"])
        op.create_index(op.f("ix_calc_game_game_id"), "calc_game", ["game_id"])
        for column, referred in GAME_KEYS_DROPPED:
            op.create_foreign_key(_fk(column, referred), "calc_game", referred, [column], ["id"])
    else:
        with op.batch_alter_table("calc_game", recreate="always" if dialect == "sqlite" else "auto") as batch:
            for column, referred in GAME_KEYS_DROPPED:
                batch.create_foreign_key(_fk(column, referred), referred, [column], ["id"])
            batch.create_index("ix_calc_game_player_kind", ["player_id", "kind"])
            batch.create_index("ix_calc_game_game_id", ["game_id"])
    _run(sealed_rows_guard(dialect, "calc_game"))
    _create_views_0006({name: VIEWS_0006[name] for name in DERIVED_VIEWS})


# --- Frozen: the guard SQL, copied from ratingdb/guards.py as this migration ran it (December 2026).
# Migrations are history: never edit below, whatever ratingdb/guards.py becomes.


def _raise(dialect: str, message: str) -> str:
    if dialect == "postgresql":
        return f"RAISE EXCEPTION '{message}';"
    if dialect == "mysql":
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"
    return f"SELECT RAISE(ABORT, '{message}');"


def sealed_rows_guard(
    dialect: str,
    table: str,
    parent: str = "rating_list",
    key: str = "list_id",
    *,
    refuse_missing: bool = False,
) -> list[str]:
    """Triggers: rows of `table` are never updated or deleted, and never inserted under a sealed parent.

    The parent row (a list) is written unsealed, filled, then sealed in the same transaction. With
    `refuse_missing` (migration 0016, which dropped the tables' foreign keys), a row whose parent does
    not exist is refused too: the insert side of the list's foreign key, checked once per statement on
    PostgreSQL instead of once per row.
    """
    change_msg = f"published lists are immutable: the rows of {table} never change"
    insert_msg = f"published lists are immutable: no row can be added to a sealed list ({table})"
    if refuse_missing:
        insert_msg = (
            f"published lists are immutable: no row can be added to a sealed list, or to no list ({table})"
        )
    if dialect == "postgresql":
        # One check per statement over the inserted rows (a close inserts millions: COPY fires it once).
        join, refused = ("LEFT JOIN", "p.id IS NULL OR p.sealed") if refuse_missing else ("JOIN", "p.sealed")
        return [
            f"""CREATE FUNCTION ratingdb_sealed_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT {key} FROM new_rows) n
                               {join} {parent} p ON p.id = n.{key} WHERE {refused}) THEN
                        {_raise(dialect, insert_msg)}
                    END IF;
                    RETURN NULL;
                END IF;
                {_raise(dialect, change_msg)}
            END $$""",
            f"CREATE TRIGGER trg_{table}_sealed_insert AFTER INSERT ON {table} "
            "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
            f"EXECUTE FUNCTION ratingdb_sealed_{table}()",
            f"CREATE TRIGGER trg_{table}_sealed_change BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_{table}()",
            *no_truncate(dialect, table),
        ]
    sealed = f"(SELECT sealed FROM {parent} WHERE id = NEW.{key})"
    if refuse_missing:  # no parent row: NULL, refused like a sealed one
        sealed = f"COALESCE({sealed}, TRUE)"
    if dialect == "mysql":
        return [
            f"CREATE TRIGGER trg_{table}_sealed_insert BEFORE INSERT ON {table} FOR EACH ROW "
            f"BEGIN IF {sealed} THEN {_raise(dialect, insert_msg)} END IF; END",
            f"CREATE TRIGGER trg_{table}_sealed_update BEFORE UPDATE ON {table} FOR EACH ROW "
            f"BEGIN {_raise(dialect, change_msg)} END",
            f"CREATE TRIGGER trg_{table}_sealed_delete BEFORE DELETE ON {table} FOR EACH ROW "
            f"BEGIN {_raise(dialect, change_msg)} END",
        ]
    return [
        f"CREATE TRIGGER trg_{table}_sealed_insert BEFORE INSERT ON {table} WHEN {sealed} "
        f"BEGIN {_raise(dialect, insert_msg)} END",
        f"CREATE TRIGGER trg_{table}_sealed_update BEFORE UPDATE ON {table} "
        f"BEGIN {_raise(dialect, change_msg)} END",
        f"CREATE TRIGGER trg_{table}_sealed_delete BEFORE DELETE ON {table} "
        f"BEGIN {_raise(dialect, change_msg)} END",
    ]


def drop_sealed_rows_guard(dialect: str, table: str) -> list[str]:
    if dialect == "postgresql":
        return [
            f"DROP TRIGGER trg_{table}_sealed_insert ON {table}",
            f"DROP TRIGGER trg_{table}_sealed_change ON {table}",
            *drop_no_truncate(dialect, table),
            f"DROP FUNCTION ratingdb_sealed_{table}()",
        ]
    return [f"DROP TRIGGER trg_{table}_sealed_{action}" for action in ("insert", "update", "delete")]


def no_truncate(dialect: str, table: str) -> list[str]:
    """PostgreSQL: TRUNCATE skips row triggers, so every guarded table refuses it outright."""
    if dialect != "postgresql":
        return []
    return [
        f"CREATE TRIGGER trg_{table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()"
    ]


def drop_no_truncate(dialect: str, table: str) -> list[str]:
    if dialect != "postgresql":
        return []
    return [f"DROP TRIGGER trg_{table}_no_truncate ON {table}"]


# --- Frozen: the views it rebuilds, copied from migration 0006 as this migration ran it (December 2026).
# Migrations are history: never edit below.


def _points_0006(column: str) -> str:
    return f"CAST({column} AS DOUBLE PRECISION) / 100"


def _flag_0006(column: str) -> str:
    return f"CASE WHEN {column} THEN 1 ELSE 0 END"


CURRENT_0006 = "l.is_current = TRUE"


VIEWS_0006 = {
    # Every entry of every current list, with the player's details.
    "v_list_entry": f"""
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               p.id AS player_id, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title,
               p.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               {_flag_0006("e.reached_2400")} AS reached_2400, {_flag_0006("e.reached_2300")} AS reached_2300,
               l.version AS list_version
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
        WHERE {CURRENT_0006}
    """,
    # The newest current list of each rating type.
    "v_current_list": """
        SELECT v.* FROM v_list_entry v
        WHERE v.list_date = (SELECT MAX(l2.list_date) FROM rating_list l2
                             WHERE l2.rating_type = v.rating_type AND l2.is_current = TRUE)
    """,
    # A player's published ratings over time, one row per current list.
    "v_rating_history": f"""
        SELECT p.id AS player_id, p.fide_id, p.national_id, p.name, l.rating_type, l.list_date, l.origin,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
        WHERE {CURRENT_0006}
    """,
    # What each close of a current list did to each player it rated.
    "v_period_change": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.method, c.ro, c.new_rating, c.change, c.n AS games, c.k_base, c.k AS k_used,
               {_points_0006("c.score_x100")} AS score, {_points_0006("c.sum_dr_x100")} AS sum_dr,
               {_points_0006("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_player c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        WHERE {CURRENT_0006}
    """,
    "v_calc_event": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               ev.id AS event_id, ev.name AS event_name, ev.start_date, ev.end_date,
               used.list_date AS ratings_from_list, c.ro, {_points_0006("c.rc_x100")} AS rc, c.n,
               {_points_0006("c.score_x100")} AS score, {_points_0006("c.sum_dr_x100")} AS sum_dr, c.k,
               {_points_0006("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_event c
        JOIN rating_list l ON l.id = c.list_id
        JOIN rating_list used ON used.id = c.ratings_list_id
        JOIN player p ON p.id = c.player_id
        JOIN event ev ON ev.id = c.event_id
        WHERE {CURRENT_0006}
    """,
    "v_calc_game": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.event_id, g.round, c.game_id, c.kind, o.id AS opponent_id, o.fide_id AS opponent_fide_id,
               o.name AS opponent_name, c.own_rating, c.opponent_rating, c.d, {_points_0006("c.pd_x100")} AS pd,
               {_points_0006("c.score_x100")} AS score, {_points_0006("c.score_x100 - c.pd_x100")} AS dr
        FROM calc_game c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        JOIN player o ON o.id = c.opponent_id
        JOIN game g ON g.id = c.game_id
        WHERE {CURRENT_0006}
    """,
    "v_event": f"""
        SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
               ev.rating_type, {_flag_0006("ev.official")} AS official, ev.rounds, ev.period, ev.natural_period,
               CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
               (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
               ev.source_name
        FROM event ev
    """,
    # Every version of every list: current or withdrawn, and who withdrew it, when and why.
    "v_list_version": """
        SELECT l.id AS list_id, l.rating_type, l.list_date, l.version,
               CASE WHEN l.is_current = TRUE THEN 'current' ELSE 'withdrawn' END AS state,
               l.origin, l.period, l.rules, l.source,
               (SELECT COUNT(*) FROM list_entry e WHERE e.list_id = l.id) AS players,
               l.created_at, w.created_at AS withdrawn_at, w.actor AS withdrawn_by,
               w.reason AS withdrawn_reason
        FROM rating_list l
        LEFT JOIN audit_log w ON w.id = l.withdrawn_by
    """,
}


def _create_views_0006(views: dict[str, str]) -> None:
    mysql = op.get_bind().dialect.name == "mysql"
    for name, sql in views.items():
        if mysql:  # MySQL spells the cast to a double DOUBLE
            sql = sql.replace("AS DOUBLE PRECISION)", "AS DOUBLE)")
        op.execute(f"CREATE VIEW {name} AS {sql}")
