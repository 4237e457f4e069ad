"""SQL of the database-level guards, per dialect: versioned rows, sealed lists, append-only tables.

The migrations execute what these functions return; nothing here runs at import time and nothing here
imports the rest of the package. docs/versioning.md says what the guards promise. A function here is
only ever added, never changed in what it returns: an old migration must keep producing the schema it
produced (write a new function for a new shape).
"""

from __future__ import annotations

from collections.abc import Sequence

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


def versioned_table_guard(
    dialect: str, table: str, columns: Sequence[str], one_way_flags: Sequence[str] = ()
) -> list[str]:
    """Triggers: rows of `table` are never deleted and only updated by the one-way withdrawal."""
    update_msg = f"{table} rows are never changed, only withdrawn (docs/versioning.md)"
    delete_msg = f"{table} rows are never deleted, only withdrawn (docs/versioning.md)"
    allowed = allowed_versioned_update(dialect, columns, one_way_flags)
    if dialect == "postgresql":
        return [
            f"""CREATE FUNCTION ratingdb_guard_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN {_raise(dialect, delete_msg)} END IF;
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
            f"BEGIN {_raise(dialect, delete_msg)} END",
        ]
    return [
        f"CREATE TRIGGER trg_{table}_versioned_update BEFORE UPDATE ON {table} WHEN NOT {allowed} "
        f"BEGIN {_raise(dialect, update_msg)} END",
        f"CREATE TRIGGER trg_{table}_versioned_delete BEFORE DELETE ON {table} "
        f"BEGIN {_raise(dialect, delete_msg)} END",
    ]


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


def refuse_truncate_function(dialect: str) -> list[str]:
    if dialect != "postgresql":
        return []
    return [
        "CREATE FUNCTION ratingdb_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "RAISE EXCEPTION 'TRUNCATE of % is refused: ratingdb keeps its records', TG_TABLE_NAME; END $$"
    ]


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


# --- MySQL/MariaDB ------------------------------------------------------------------------------------
# What differs there, and how the migrations handle it:
# - A trigger fires for one action (INSERT, UPDATE or DELETE): a guard is one trigger per action.
# - A trigger refuses with SIGNAL SQLSTATE '45000'; the message reaches the client as the error text.
# - TRUNCATE fires no trigger on MySQL: the foreign keys that point at a table are what protect it
#   (InnoDB refuses to TRUNCATE a referenced table); otherwise only privileges can.
# - DDL commits implicitly: a migration that fails half-way leaves what it had done.
# - Every connection runs with ANSI_QUOTES and PIPES_AS_CONCAT (ratingdb.db): "name" and `a || b` mean
#   what they mean on SQLite and PostgreSQL inside a trigger too.

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


def mysql_published_list_date(period: str) -> str:
    """SQL for the first day after a period (`period` is a 'YYYY-MM' expression): its list's date."""
    return f"(CAST(CONCAT({period}, '-01') AS DATE) + INTERVAL 1 MONTH)"


PLAYER_REFERENCED_MESSAGE = "a player that a list, an event or a game refers to cannot be deleted"


def player_referenced_guard(dialect: str) -> list[str]:
    """PostgreSQL: a player on a list cannot be deleted (SQLite and MySQL have had this trigger since 0006;
    PostgreSQL relied on list_entry's foreign key, which migration 0016 dropped). Events and games keep
    their foreign keys to the player."""
    assert dialect == "postgresql"
    return [
        f"""CREATE FUNCTION ratingdb_player_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM list_entry WHERE player_id = OLD.id) THEN
                {_raise(dialect, PLAYER_REFERENCED_MESSAGE)}
            END IF;
            RETURN OLD;
        END $$""",
        "CREATE TRIGGER trg_player_referenced BEFORE DELETE ON player "
        "FOR EACH ROW EXECUTE FUNCTION ratingdb_player_referenced()",
    ]


def drop_player_referenced_guard(dialect: str) -> list[str]:
    assert dialect == "postgresql"
    return ["DROP TRIGGER trg_player_referenced ON player", "DROP FUNCTION ratingdb_player_referenced()"]


# --- SQLite: INSERT OR REPLACE -------------------------------------------------------------------------
# SQLite's REPLACE conflict resolution (INSERT OR REPLACE, REPLACE INTO, and an UPSERT's REPLACE) deletes
# the row that holds the key without firing its DELETE triggers unless the connection turned
# `recursive_triggers` on, and no foreign-key check stops it when `foreign_keys` is off: the delete side of
# every guard was open to it. A BEFORE INSERT trigger fires before any conflict is resolved, whatever the
# pragmas, so it refuses an insert whose key (the primary key or any UNIQUE key) another row already holds:
# an ordinary INSERT of such a row would fail anyway, and the REPLACE forms can no longer remove anything.
# (`=` makes NULLs distinct, as SQLite's UNIQUE does: two withdrawn versions with is_current NULL are no
# conflict.) MySQL's REPLACE fires DELETE triggers and PostgreSQL has no REPLACE (its ON CONFLICT DO
# UPDATE fires UPDATE triggers), so this is SQLite's only.

REPLACE_MESSAGE = "rows of {table} are never replaced: another row holds this key (no INSERT OR REPLACE)"


def sqlite_no_replace(table: str, keys: Sequence[Sequence[str]]) -> list[str]:
    """SQLite trigger refusing an INSERT into `table` whose value of any of `keys` (column tuples) exists."""
    held = " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE " + " AND ".join(f"{c} = NEW.{c}" for c in key) + ")"
        for key in keys
    )
    return [
        f"CREATE TRIGGER trg_{table}_no_replace BEFORE INSERT ON {table} WHEN {held} "
        f"BEGIN {_raise('sqlite', REPLACE_MESSAGE.format(table=table))} END"
    ]


def drop_sqlite_no_replace(table: str) -> list[str]:
    return [f"DROP TRIGGER trg_{table}_no_replace"]
