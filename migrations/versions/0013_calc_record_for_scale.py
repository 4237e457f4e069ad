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

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

from ratingdb import guards

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


def _migration_0006() -> ModuleType:
    path = Path(__file__).with_name("0006_list_versions.py")
    spec = importlib.util.spec_from_file_location("ratingdb_migration_0006", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    m0006 = _migration_0006()
    for name in reversed(DERIVED_VIEWS):
        op.execute(f"DROP VIEW {name}")
    _run(guards.drop_sealed_rows_guard(dialect, "calc_game"))
    _run(guards.drop_sealed_rows_guard(dialect, "calc_event"))

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
    _run(guards.sealed_rows_guard(dialect, "calc_list_event"))

    # calc_event becomes the view (_check_derivable showed it gives the stored rows).
    op.drop_table("calc_event")
    op.execute(f"CREATE VIEW calc_event AS {calc_event_view(dialect)}")

    _run(guards.sealed_rows_guard(dialect, "calc_game"))
    m0006._create_views({name: m0006.VIEWS[name] for name in DERIVED_VIEWS})


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    m0006 = _migration_0006()
    for name in reversed(DERIVED_VIEWS):
        op.execute(f"DROP VIEW {name}")
    _run(guards.drop_sealed_rows_guard(dialect, "calc_game"))

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
    _run(guards.drop_sealed_rows_guard(dialect, "calc_list_event"))
    op.drop_table("calc_list_event")
    _run(guards.sealed_rows_guard(dialect, "calc_event"))

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
    _run(guards.sealed_rows_guard(dialect, "calc_game"))
    m0006._create_views({name: m0006.VIEWS[name] for name in DERIVED_VIEWS})
