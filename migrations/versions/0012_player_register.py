"""player register: versioned player details, lists that show players as published, a name search index

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30

Every player gets version 1 of its details (the version id equals the player id, so the backfill is
plain SQL), and a player registered without any ID a version 2 with the next free national ID;
`list_entry.player_version_id` points every existing entry at version 1, and the list views read
names and IDs through that version: a later edit never changes what a published list shows. The
sealed-list guard of list_entry (0006) is dropped around the backfill and created again; versions
get 0006's one-way guard, except that they go with their player when an unreferenced player is
removed. Name keys and search tokens are derived from the names by ratingdb.names (derived data: a
later change of that normalisation recomputes them in its own migration).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

from ratingdb import guards
from ratingdb.names import name_key, tokens

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

BATCH = 10_000
VERSION_COLUMNS = (
    "id", "player_id", "name", "federation", "sex", "title", "birth_year", "fide_id", "national_id",
    "deceased", "version", "is_current", "created_by", "withdrawn_by",
)  # fmt: skip


def _points(column: str) -> str:
    return f"CAST({column} AS DOUBLE PRECISION) / 100"


def _flag(column: str) -> str:
    return f"CASE WHEN {column} THEN 1 ELSE 0 END"


CURRENT = "l.is_current = TRUE"

# Views about published lists read the player's details through the version the list was published with.
VIEWS = {
    "v_list_entry": f"""
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               e.player_id, v.fide_id, v.national_id, v.name, v.federation, v.sex, v.title,
               v.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               {_flag("e.reached_2400")} AS reached_2400, {_flag("e.reached_2300")} AS reached_2300,
               l.version AS list_version
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player_version v ON v.id = e.player_version_id
        WHERE {CURRENT}
    """,
    "v_current_list": """
        SELECT v.* FROM v_list_entry v
        WHERE v.list_date = (SELECT MAX(l2.list_date) FROM rating_list l2
                             WHERE l2.rating_type = v.rating_type AND l2.is_current = TRUE)
    """,
    "v_rating_history": f"""
        SELECT e.player_id, v.fide_id, v.national_id, v.name, l.rating_type, l.list_date, l.origin,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player_version v ON v.id = e.player_version_id
        WHERE {CURRENT}
    """,
    # Every version of every player's details, with when, by which command and why it was made.
    "v_player_version": """
        SELECT v.player_id, v.version, v.name, v.federation, v.sex, v.title, v.birth_year, v.fide_id,
               v.national_id, CASE WHEN v.deceased THEN 1 ELSE 0 END AS deceased,
               CASE WHEN v.is_current = TRUE THEN 1 ELSE 0 END AS is_current, a.created_at, a.action,
               a.detail, a.reason, a.actor
        FROM player_version v
        LEFT JOIN audit_log a ON a.id = v.created_by
    """,
}
REPLACED = ("v_list_entry", "v_current_list", "v_rating_history")


def _revision_0006() -> ModuleType:
    path = Path(__file__).with_name("0006_list_versions.py")
    spec = importlib.util.spec_from_file_location("ratingdb_migration_0006", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _views_of_0006() -> dict[str, str]:
    """The views this revision replaces, as 0006 created them (for the downgrade)."""
    views = _revision_0006().VIEWS
    return {name: views[name] for name in REPLACED}


def _rebuild_list_entry(dialect: str, alter: Callable[[], None]) -> None:
    """Change list_entry with its guards lifted: 0006's sealed-list guard refuses every UPDATE, and on
    SQLite the player guard and v_list_version (which read list_entry) must not exist while the table is
    rebuilt."""
    revision_0006 = _revision_0006()
    player_guard = [
        sql for sql in revision_0006._sqlite_audit_and_player_guards() if "trg_player_referenced" in sql
    ]
    _run(guards.drop_sealed_rows_guard(dialect, "list_entry"))
    _drop_views(["v_list_version"])  # reads list_entry: SQLite checks views when a table is renamed
    if dialect == "sqlite":
        op.execute("DROP TRIGGER trg_player_referenced")
    alter()
    if dialect == "sqlite":
        _run(player_guard)
    _create_views({"v_list_version": revision_0006.VIEWS["v_list_version"]})
    _run(guards.sealed_rows_guard(dialect, "list_entry"))


def _drop_views(names: list[str]) -> None:
    for name in reversed(names):
        op.execute(f"DROP VIEW IF EXISTS {name}")


def _create_views(views: dict[str, str]) -> None:
    for name, sql in views.items():
        op.execute(f"CREATE VIEW {name} AS {sql}")


def _run(statements: list[str]) -> None:
    for statement in statements:
        op.execute(statement)


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    dialect = bind.dialect.name
    _drop_views(list(REPLACED))

    op.create_table(
        "player_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("federation", sa.String(length=3), nullable=True),
        sa.Column("sex", sa.String(length=1), nullable=True),
        sa.Column("title", sa.String(length=4), nullable=True),
        sa.Column("birth_year", sa.Integer(), nullable=True),
        sa.Column("fide_id", sa.BigInteger(), nullable=True),
        sa.Column("national_id", sa.String(length=20), nullable=True),
        sa.Column("deceased", sa.Boolean(), nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("is_current", sa.Boolean(), server_default=sa.true(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("withdrawn_by", sa.Integer(), nullable=True),
        sa.CheckConstraint("sex IN ('M', 'F')", name=op.f("ck_player_version_sex")),
        sa.CheckConstraint(
            "is_current IS NULL OR is_current = TRUE", name=op.f("ck_player_version_is_current")
        ),
        sa.CheckConstraint(
            "(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name=op.f("ck_player_version_withdrawn")
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_player_version_created_by_audit_log")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_player_version_player_id_player"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["withdrawn_by"], ["audit_log.id"], name=op.f("fk_player_version_withdrawn_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_version")),
        sa.UniqueConstraint("player_id", "is_current", name="uq_player_version_player_current"),
        sa.UniqueConstraint("player_id", "version", name="uq_player_version_player_version"),
        sqlite_autoincrement=True,  # ids are never reused (docs/versioning.md)
    )
    op.create_table(
        "player_name_token",
        sa.Column("token", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
            name=op.f("fk_player_name_token_player_id_player"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token", "player_id", name=op.f("pk_player_name_token")),
    )
    op.create_index(op.f("ix_player_name_token_player_id"), "player_name_token", ["player_id"])

    # Plain ADD COLUMN on every engine: rebuilding `player` on SQLite would trip the foreign keys of
    # every table that refers to it. The defaults fill existing rows (the backfill then sets the values)
    # and stay, the same on every engine (SQLite cannot drop them): a player written by raw SQL has no
    # name key and no version (a list entry naming it is refused: no version 0 exists).
    false = "FALSE" if postgres else "0"
    op.execute(f"ALTER TABLE player ADD COLUMN deceased BOOLEAN DEFAULT {false} NOT NULL")
    op.execute("ALTER TABLE player ADD COLUMN name_key VARCHAR(120) DEFAULT '' NOT NULL")
    op.execute("ALTER TABLE player ADD COLUMN current_version_id INTEGER DEFAULT 0 NOT NULL")
    # No foreign key on merged_into either: SQLite cannot drop such a column again without that rebuild.
    op.execute("ALTER TABLE player ADD COLUMN merged_into INTEGER")

    if bind.execute(sa.text("SELECT COUNT(*) FROM player")).scalar_one():
        audit_id = bind.execute(
            sa.text(
                "INSERT INTO audit_log (action, detail) VALUES ('migrate-players', "
                "'version 1 of every registered player''s details, as registered before versioning') "
                "RETURNING id"
            )
        ).scalar_one()
        bind.execute(
            sa.text(
                "INSERT INTO player_version (id, player_id, version, name, federation, sex, title, "
                "birth_year, fide_id, national_id, deceased, created_by, is_current) "
                "SELECT id, id, 1, name, federation, sex, title, birth_year, fide_id, national_id, deceased, "
                ":audit, TRUE FROM player"
            ),
            {"audit": audit_id},
        )
    op.execute("UPDATE player SET current_version_id = id")
    _give_national_ids(bind)
    if postgres:
        op.execute(
            "SELECT setval(pg_get_serial_sequence('player_version', 'id'), "
            "COALESCE((SELECT MAX(id) FROM player_version), 0) + 1, false)"
        )
    _backfill_names(bind)
    op.create_index(op.f("ix_player_name_key"), "player", ["name_key"])

    _run(
        guards.owned_versioned_table_guard(dialect, "player_version", VERSION_COLUMNS, "player", "player_id")
    )

    def add_version_column() -> None:
        with op.batch_alter_table("list_entry") as batch_op:
            batch_op.add_column(sa.Column("player_version_id", sa.Integer(), nullable=True))
            batch_op.create_foreign_key(
                op.f("fk_list_entry_player_version_id_player_version"),
                "player_version",
                ["player_version_id"],
                ["id"],
            )
        op.execute("UPDATE list_entry SET player_version_id = player_id")  # version 1's id is the player's
        with op.batch_alter_table("list_entry") as batch_op:
            batch_op.alter_column("player_version_id", existing_type=sa.Integer(), nullable=False)

    _rebuild_list_entry(dialect, add_version_column)
    _create_views(VIEWS)


def _give_national_ids(bind: sa.Connection) -> None:
    """Players registered without any ID get the next free national IDs, as version 2 of their details
    (lists published before keep showing version 1). The start is RATINGDB_NATIONAL_ID_START, the
    federation setting `import-trf` and `player add` read."""
    idless = (
        bind.execute(
            sa.text("SELECT id FROM player WHERE fide_id IS NULL AND national_id IS NULL ORDER BY id")
        )
        .scalars()
        .all()
    )
    if not idless:
        return
    numeric = [
        int(n)
        for n in bind.execute(
            sa.text("SELECT national_id FROM player WHERE national_id IS NOT NULL")
        ).scalars()
        if n.isdigit() and len(n) <= 18
    ]
    first = max(int(os.environ.get("RATINGDB_NATIONAL_ID_START") or 1), max(numeric, default=0) + 1)
    audit_id = bind.execute(
        sa.text(
            "INSERT INTO audit_log (action, detail) VALUES ('migrate-players', :detail) RETURNING id"
        ),
        {"detail": f"national IDs {first}–{first + len(idless) - 1} given to the {len(idless)} players "
                   "registered without any ID, so that files and lists can name them"},
    ).scalar_one()  # fmt: skip
    base = bind.execute(sa.text("SELECT MAX(id) FROM player_version")).scalar_one()
    for offset, player_id in enumerate(idless):
        national_id, version_id = str(first + offset), base + 1 + offset
        values = {"player": player_id, "national": national_id, "version": version_id, "audit": audit_id}
        bind.execute(
            sa.text("UPDATE player_version SET is_current = NULL, withdrawn_by = :audit WHERE id = :player"),
            values,
        )
        bind.execute(
            sa.text(
                "INSERT INTO player_version (id, player_id, version, name, federation, sex, title, "
                "birth_year, fide_id, national_id, deceased, created_by, is_current) "
                "SELECT :version, id, 2, name, federation, sex, title, birth_year, fide_id, :national, "
                "deceased, :audit, TRUE FROM player WHERE id = :player"
            ),
            values,
        )
        bind.execute(
            sa.text(
                "UPDATE player SET national_id = :national, current_version_id = :version WHERE id = :player"
            ),
            values,
        )


def _backfill_names(bind: sa.Connection) -> None:
    last = 0
    while True:
        rows = bind.execute(
            sa.text("SELECT id, name FROM player WHERE id > :last ORDER BY id LIMIT :n"),
            {"last": last, "n": BATCH},
        ).all()
        if not rows:
            return
        bind.execute(
            sa.text("UPDATE player SET name_key = :key WHERE id = :id"),
            [{"key": name_key(name), "id": pid} for pid, name in rows],
        )
        token_rows = [{"token": t, "id": pid} for pid, name in rows for t in sorted(set(tokens(name)))]
        if token_rows:
            bind.execute(
                sa.text("INSERT INTO player_name_token (token, player_id) VALUES (:token, :id)"), token_rows
            )
        last = rows[-1][0]


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    _drop_views(list(VIEWS))

    def drop_version_column() -> None:
        with op.batch_alter_table("list_entry") as batch_op:
            batch_op.drop_constraint(
                op.f("fk_list_entry_player_version_id_player_version"), type_="foreignkey"
            )
            batch_op.drop_column("player_version_id")

    _rebuild_list_entry(dialect, drop_version_column)
    _run(guards.drop_versioned_table_guard(dialect, "player_version"))
    op.drop_index(op.f("ix_player_name_key"), "player")
    for column in ("merged_into", "current_version_id", "name_key", "deceased"):
        op.execute(f"ALTER TABLE player DROP COLUMN {column}")
    op.drop_table("player_name_token")
    op.drop_table("player_version")
    _create_views(_views_of_0006())
