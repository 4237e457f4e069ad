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

import os
import re
import unicodedata
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

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


def _views_of_0006() -> dict[str, str]:
    """The views this revision replaces, as 0006 created them (for the downgrade)."""
    views = VIEWS_0006
    return {name: views[name] for name in REPLACED}


def _rebuild_list_entry(dialect: str, alter: Callable[[], None]) -> None:
    """Change list_entry with its guards lifted: 0006's sealed-list guard refuses every UPDATE, and on
    SQLite the player guard and v_list_version (which read list_entry) must not exist while the table is
    rebuilt."""
    player_guard = [sql for sql in _sqlite_audit_and_player_guards_0006() if "trg_player_referenced" in sql]
    _run(drop_sealed_rows_guard(dialect, "list_entry"))
    _drop_views(["v_list_version"])  # reads list_entry: SQLite checks views when a table is renamed
    if dialect == "sqlite":
        op.execute("DROP TRIGGER trg_player_referenced")
    alter()
    if dialect == "sqlite":
        _run(player_guard)
    _create_views({"v_list_version": VIEWS_0006["v_list_version"]})
    _run(sealed_rows_guard(dialect, "list_entry"))


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

    _run(owned_versioned_table_guard(dialect, "player_version", VERSION_COLUMNS, "player", "player_id"))

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
    _run(drop_versioned_table_guard(dialect, "player_version"))
    op.drop_index(op.f("ix_player_name_key"), "player")
    for column in ("merged_into", "current_version_id", "name_key", "deceased"):
        op.execute(f"ALTER TABLE player DROP COLUMN {column}")
    op.drop_table("player_name_token")
    op.drop_table("player_version")
    _create_views(_views_of_0006())


# --- Frozen: the guard SQL, copied from ratingdb/guards.py as this migration ran it (December 2026).
# Migrations are history: never edit below, whatever ratingdb/guards.py becomes.

# The columns a versioned row may change, and how (docs/versioning.md): current → withdrawn only.
WITHDRAW_COLUMNS = ("is_current", "withdrawn_by")


def _same(dialect: str, column: str) -> str:
    """NEW.column equals OLD.column, NULLs equal."""
    if dialect == "postgresql":
        return f"NEW.{column} IS NOT DISTINCT FROM OLD.{column}"
    if dialect == "mysql":
        return f"NEW.{column} <=> OLD.{column}"
    return f"NEW.{column} IS OLD.{column}"


def _raise(dialect: str, message: str) -> str:
    if dialect == "postgresql":
        return f"RAISE EXCEPTION '{message}';"
    if dialect == "mysql":
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"
    return f"SELECT RAISE(ABORT, '{message}');"


def allowed_versioned_update(dialect: str, columns: Sequence[str], one_way_flags: Sequence[str] = ()) -> str:
    """SQL condition: the UPDATE only withdraws the row (and may set each of `one_way_flags` false → true).

    `columns` are all the table's columns; every one not named here must stay as it was.
    """
    free = set(WITHDRAW_COLUMNS) | set(one_way_flags)
    true = "1" if dialect != "postgresql" else "TRUE"
    false = "0" if dialect != "postgresql" else "FALSE"
    parts = [_same(dialect, c) for c in columns if c not in free]
    for flag in one_way_flags:
        parts.append(f"({_same(dialect, flag)} OR (OLD.{flag} = {false} AND NEW.{flag} = {true}))")
    parts.append(
        "((" + " AND ".join(_same(dialect, c) for c in WITHDRAW_COLUMNS) + ") OR "
        f"(OLD.is_current = {true} AND NEW.is_current IS NULL "
        "AND OLD.withdrawn_by IS NULL AND NEW.withdrawn_by IS NOT NULL))"
    )
    return "(" + " AND ".join(parts) + ")"


def drop_versioned_table_guard(dialect: str, table: str) -> list[str]:
    if dialect == "postgresql":
        return [
            f"DROP TRIGGER trg_{table}_versioned ON {table}",
            *drop_no_truncate(dialect, table),
            f"DROP FUNCTION ratingdb_guard_{table}()",
        ]
    return [f"DROP TRIGGER trg_{table}_versioned_update", f"DROP TRIGGER trg_{table}_versioned_delete"]


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


def owned_versioned_table_guard(
    dialect: str, table: str, columns: Sequence[str], owner: str, key: str
) -> list[str]:
    """Triggers: like `versioned_table_guard`, except that the rows go when their owner row goes.

    Versions of a player's details are removed only by the cascade of removing the player itself (an
    unreferenced player registered by a deleted event): a DELETE is refused while the `owner` row that
    `key` points at still exists. (On MariaDB a cascade fires no triggers, so no DELETE trigger is needed
    for it; a direct DELETE is refused by the same condition.)
    """
    update_msg = f"{table} rows are never changed, only withdrawn (docs/versioning.md)"
    delete_msg = f"{table} rows are never deleted, only withdrawn (docs/versioning.md)"
    allowed = allowed_versioned_update(dialect, columns)
    owned = f"EXISTS (SELECT 1 FROM {owner} WHERE id = OLD.{key})"
    if dialect == "postgresql":
        return [
            f"""CREATE FUNCTION ratingdb_guard_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    IF {owned} THEN {_raise(dialect, delete_msg)} END IF;
                    RETURN OLD;
                END IF;
                IF NOT {allowed} THEN {_raise(dialect, update_msg)} END IF;
                RETURN NEW;
            END $$""",
            f"CREATE TRIGGER trg_{table}_versioned BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION ratingdb_guard_{table}()",
            *no_truncate(dialect, table),
        ]
    if dialect == "mysql":
        return [
            f"CREATE TRIGGER trg_{table}_versioned_update BEFORE UPDATE ON {table} FOR EACH ROW "
            f"BEGIN IF NOT {allowed} THEN {_raise(dialect, update_msg)} END IF; END",
            f"CREATE TRIGGER trg_{table}_versioned_delete BEFORE DELETE ON {table} FOR EACH ROW "
            f"BEGIN IF {owned} THEN {_raise(dialect, delete_msg)} END IF; END",
        ]
    return [
        f"CREATE TRIGGER trg_{table}_versioned_update BEFORE UPDATE ON {table} WHEN NOT {allowed} "
        f"BEGIN {_raise(dialect, update_msg)} END",
        f"CREATE TRIGGER trg_{table}_versioned_delete BEFORE DELETE ON {table} WHEN {owned} "
        f"BEGIN {_raise(dialect, delete_msg)} END",
    ]


# --- Frozen: the name keys, copied from ratingdb/names.py as this migration ran it (December 2026).
# Migrations are history: never edit below, whatever ratingdb/names.py becomes.

# Letters that Unicode does not decompose into a base letter and an accent.
_SPECIAL = str.maketrans(
    {"ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ł": "l", "Ł": "l", "đ": "d",
     "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ı": "i", "ß": "ss"}
)  # fmt: skip


# Apostrophes join ("O'Brien" → "obrien"); every other non-letter, non-digit separates words.
_JOINERS = re.compile("['’`´ʼ]")


_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


_WORD = re.compile(r"[^\W_]+")


# A token may be at most this long in the search index (names are at most 120 characters).
TOKEN_LENGTH = 40


def tokens(name: str) -> list[str]:
    """The words of `name` without accents, case or punctuation, in the order written.

    Runs once per registered player of a million-line list import, hence regular expressions and an
    ASCII fast path rather than a loop over characters.
    """
    if name.isascii():
        text = name.lower()
    else:
        text = _COMBINING.sub("", unicodedata.normalize("NFKD", name.translate(_SPECIAL))).casefold()
    return [w[:TOKEN_LENGTH] for w in _WORD.findall(_JOINERS.sub("", text))]


def name_key(name: str) -> str:
    """The matching key: the name's tokens sorted, space separated ("Örr, Mârk" → "mark orr")."""
    return key_of(tokens(name))


def key_of(words: Sequence[str]) -> str:
    """The matching key of a name's tokens (when they are at hand already)."""
    return " ".join(sorted(words))


# --- Frozen: the views and player guard it rebuilds, copied from migration 0006 as this migration ran it (December 2026).
# Migrations are history: never edit below.

AUDIT_MESSAGE_0006 = "the audit log is append-only"


PLAYER_MESSAGE_0006 = "a player that a list, an event or a game refers to cannot be deleted"


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


def _player_referenced_0006() -> str:
    return " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE {column} = OLD.id)"
        for table, column in (
            ("list_entry", "player_id"),
            ("event_player", "player_id"),
            ("game", "white_id"),
            ("game", "black_id"),
        )
    )


def _sqlite_audit_and_player_guards_0006() -> list[str]:
    statements = [
        f"CREATE TRIGGER trg_audit_log_no_{action.lower()} BEFORE {action} ON audit_log "
        f"BEGIN SELECT RAISE(ABORT, '{AUDIT_MESSAGE_0006}'); END"
        for action in ("UPDATE", "DELETE")
    ]
    statements.append(
        f"CREATE TRIGGER trg_player_referenced BEFORE DELETE ON player WHEN {_player_referenced_0006()} "
        f"BEGIN SELECT RAISE(ABORT, '{PLAYER_MESSAGE_0006}'); END"
    )
    return statements
