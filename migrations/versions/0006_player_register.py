"""player register: versioned player details, lists that show players as published, a name search index

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

Every player gets version 1 of its details (the version id equals the player id, so the backfill is
plain SQL), and a player registered without any ID a version 2 with the next free national ID;
`list_entry.player_version_id` points every existing entry at version 1, and the list views read
names and IDs through that version: a later edit never changes what a published list shows. The
immutability triggers of list_entry are dropped around the backfill and created again as 0001 wrote
them. Name keys and search tokens are derived from the names by ratingdb.names (derived data: a
later change of that normalisation recomputes them in its own migration).
"""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import op

from ratingdb.names import name_key, tokens

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

BATCH = 10_000


def _points(column: str) -> str:
    return f"CAST({column} AS DOUBLE PRECISION) / 100"


def _flag(column: str) -> str:
    return f"CASE WHEN {column} THEN 1 ELSE 0 END"


# Views that name players; those about published lists read the version the list was published with.
VIEWS = {
    "v_list_entry": f"""
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               e.player_id, v.fide_id, v.national_id, v.name, v.federation, v.sex, v.title,
               v.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               {_flag("e.reached_2400")} AS reached_2400, {_flag("e.reached_2300")} AS reached_2300
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player_version v ON v.id = e.player_version_id
    """,
    "v_current_list": """
        SELECT v.* FROM v_list_entry v
        WHERE v.list_date = (SELECT MAX(l2.list_date) FROM rating_list l2
                             WHERE l2.rating_type = v.rating_type)
    """,
    "v_rating_history": """
        SELECT e.player_id, v.fide_id, v.national_id, v.name, l.rating_type, l.list_date, l.origin,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player_version v ON v.id = e.player_version_id
    """,
    # Every version of every player's details, with when and why it was made.
    "v_player_version": """
        SELECT v.player_id, v.version, v.name, v.federation, v.sex, v.title, v.birth_year, v.fide_id,
               v.national_id, CASE WHEN v.deceased THEN 1 ELSE 0 END AS deceased,
               CASE WHEN v.is_current THEN 1 ELSE 0 END AS is_current, a.created_at, a.action, a.detail
        FROM player_version v
        JOIN audit_log a ON a.id = v.created_by
    """,
}

# The views of 0003 replaced above, for the downgrade.
OLD_VIEWS = {
    "v_list_entry": f"""
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               p.id AS player_id, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title,
               p.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               {_flag("e.reached_2400")} AS reached_2400, {_flag("e.reached_2300")} AS reached_2300
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    "v_current_list": VIEWS["v_current_list"],
    "v_rating_history": """
        SELECT p.id AS player_id, p.fide_id, p.national_id, p.name, l.rating_type, l.list_date, l.origin,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
}


def _drop_views(names: list[str]) -> None:
    for name in reversed(names):
        op.execute(f"DROP VIEW IF EXISTS {name}")


def _create_views(views: dict[str, str]) -> None:
    for name, sql in views.items():
        op.execute(f"CREATE VIEW {name} AS {sql}")


def _list_entry_triggers(create: bool) -> None:
    """The immutability triggers 0001 put on list_entry, dropped or created again the same way."""
    postgres = op.get_bind().dialect.name == "postgresql"
    if not create:
        if postgres:
            op.execute("DROP TRIGGER trg_list_entry_immutable ON list_entry")
            op.execute("DROP TRIGGER trg_list_entry_no_truncate ON list_entry")
        else:
            for action in ("update", "delete"):
                op.execute(f"DROP TRIGGER trg_list_entry_no_{action}")
        return
    if postgres:
        op.execute(
            "CREATE TRIGGER trg_list_entry_immutable BEFORE UPDATE OR DELETE ON list_entry "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_change()"
        )
        op.execute(
            "CREATE TRIGGER trg_list_entry_no_truncate BEFORE TRUNCATE ON list_entry "
            "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_change()"
        )
        return
    for action in ("UPDATE", "DELETE"):
        message = f"published lists are immutable: {action} on list_entry refused"
        op.execute(
            f"CREATE TRIGGER trg_list_entry_no_{action.lower()} BEFORE {action} ON list_entry "
            f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
        )


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    _drop_views(["v_list_entry", "v_current_list", "v_rating_history"])

    op.create_table(
        "player_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("federation", sa.String(length=3), nullable=True),
        sa.Column("sex", sa.String(length=1), nullable=True),
        sa.Column("title", sa.String(length=4), nullable=True),
        sa.Column("birth_year", sa.Integer(), nullable=True),
        sa.Column("fide_id", sa.BigInteger(), nullable=True),
        sa.Column("national_id", sa.String(length=20), nullable=True),
        sa.Column("deceased", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=False),
        sa.Column("is_current", sa.Boolean(), nullable=True),
        sa.Column("withdrawn_by", sa.Integer(), nullable=True),
        sa.CheckConstraint("sex IN ('M', 'F')", name=op.f("ck_player_version_sex")),
        sa.CheckConstraint("is_current", name=op.f("ck_player_version_is_current")),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_player_version_created_by_audit_log")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_player_version_player_id_player")
        ),
        sa.ForeignKeyConstraint(
            ["withdrawn_by"], ["audit_log.id"], name=op.f("fk_player_version_withdrawn_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_version")),
        sa.UniqueConstraint("player_id", "is_current", name="uq_player_version_player_current"),
        sa.UniqueConstraint("player_id", "version", name="uq_player_version_player_version"),
    )
    op.create_table(
        "player_name_token",
        sa.Column("token", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["player.id"], name=op.f("fk_player_name_token_player_id_player")
        ),
        sa.PrimaryKeyConstraint("token", "player_id", name=op.f("pk_player_name_token")),
    )
    op.create_index(op.f("ix_player_name_token_player_id"), "player_name_token", ["player_id"])

    # Plain ADD COLUMN on every engine: rebuilding `player` on SQLite would trip the foreign keys of
    # every table that refers to it. The defaults only fill existing rows; the backfill sets the values.
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
        for column in ("name_key", "current_version_id"):
            op.execute(f"ALTER TABLE player ALTER COLUMN {column} DROP DEFAULT")
    _backfill_names(bind)
    op.create_index(op.f("ix_player_name_key"), "player", ["name_key"])

    _list_entry_triggers(create=False)
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
    _list_entry_triggers(create=True)
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
    _drop_views(list(VIEWS))
    _list_entry_triggers(create=False)
    with op.batch_alter_table("list_entry") as batch_op:
        batch_op.drop_constraint(op.f("fk_list_entry_player_version_id_player_version"), type_="foreignkey")
        batch_op.drop_column("player_version_id")
    _list_entry_triggers(create=True)
    op.drop_index(op.f("ix_player_name_key"), "player")
    for column in ("merged_into", "current_version_id", "name_key", "deceased"):
        op.execute(f"ALTER TABLE player DROP COLUMN {column}")
    op.drop_index(op.f("ix_player_name_token_player_id"), "player_name_token")
    op.drop_table("player_name_token")
    op.drop_table("player_version")
    _create_views(OLD_VIEWS)
