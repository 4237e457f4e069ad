"""List versions, sealed lists, ids never reused, and database guards without gaps

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

docs/versioning.md is the design. This migration:
- gives the audit log the officer's reason, the actor and the command line;
- makes rating_list versioned (version, is_current TRUE/NULL, created_by, withdrawn_by) with one current
  list per (type, date), and `sealed`: a list's rows are written while it is unsealed, then never again;
- replaces the UPDATE/DELETE triggers of 0001 by guards that also refuse INSERT into a sealed list and
  allow a list exactly one change, its withdrawal; TRUNCATE is refused on every guarded table;
- makes the closed-period guard of 0004 count current lists only (withdrawing a list reopens its period);
- stops SQLite from reusing the ids of deleted events, players, lists and audit rows (AUTOINCREMENT),
  and from deleting a player that a list, an event or a game refers to (even with foreign keys off);
- shows only current lists in the reporting views, and every version in the new v_list_version.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

SEALED_TABLES = ("list_entry", "calc_player", "calc_event", "calc_game")
OLD_IMMUTABLE = ("rating_list", *SEALED_TABLES)
CLOSED_GUARDED = (("event", "id"), ("event_player", "event_id"), ("game", "event_id"))
NO_TRUNCATE = ("event", "event_player", "game", "player", "audit_log")
CLOSED_MESSAGE = "the period of this event is closed (its list is published): events and games cannot change"
AUDIT_MESSAGE = "the audit log is append-only"
PLAYER_MESSAGE = "a player that a list, an event or a game refers to cannot be deleted"


def _points(column: str) -> str:
    return f"CAST({column} AS DOUBLE PRECISION) / 100"


def _flag(column: str) -> str:
    return f"CASE WHEN {column} THEN 1 ELSE 0 END"


CURRENT = "l.is_current = TRUE"

VIEWS = {
    # Every entry of every current list, with the player's details.
    "v_list_entry": f"""
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               p.id AS player_id, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title,
               p.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               {_flag("e.reached_2400")} AS reached_2400, {_flag("e.reached_2300")} AS reached_2300,
               l.version AS list_version
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
        WHERE {CURRENT}
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
        WHERE {CURRENT}
    """,
    # What each close of a current list did to each player it rated.
    "v_period_change": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.method, c.ro, c.new_rating, c.change, c.n AS games, c.k_base, c.k AS k_used,
               {_points("c.score_x100")} AS score, {_points("c.sum_dr_x100")} AS sum_dr,
               {_points("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_player c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        WHERE {CURRENT}
    """,
    "v_calc_event": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               ev.id AS event_id, ev.name AS event_name, ev.start_date, ev.end_date,
               used.list_date AS ratings_from_list, c.ro, {_points("c.rc_x100")} AS rc, c.n,
               {_points("c.score_x100")} AS score, {_points("c.sum_dr_x100")} AS sum_dr, c.k,
               {_points("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_event c
        JOIN rating_list l ON l.id = c.list_id
        JOIN rating_list used ON used.id = c.ratings_list_id
        JOIN player p ON p.id = c.player_id
        JOIN event ev ON ev.id = c.event_id
        WHERE {CURRENT}
    """,
    "v_calc_game": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.event_id, g.round, c.game_id, c.kind, o.id AS opponent_id, o.fide_id AS opponent_fide_id,
               o.name AS opponent_name, c.own_rating, c.opponent_rating, c.d, {_points("c.pd_x100")} AS pd,
               {_points("c.score_x100")} AS score, {_points("c.score_x100 - c.pd_x100")} AS dr
        FROM calc_game c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        JOIN player o ON o.id = c.opponent_id
        JOIN game g ON g.id = c.game_id
        WHERE {CURRENT}
    """,
    "v_event": f"""
        SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
               ev.rating_type, {_flag("ev.official")} AS official, ev.rounds, ev.period, ev.natural_period,
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


def _run(statements: list[str]) -> None:
    for statement in statements:
        op.execute(statement)


def _drop_views(names: list[str]) -> None:
    for name in reversed(names):
        op.execute(f"DROP VIEW IF EXISTS {name}")


def _create_views(views: dict[str, str]) -> None:
    mysql = op.get_bind().dialect.name == "mysql"
    for name, sql in views.items():
        if mysql:  # MySQL spells the cast to a double DOUBLE
            sql = sql.replace("AS DOUBLE PRECISION)", "AS DOUBLE)")
        op.execute(f"CREATE VIEW {name} AS {sql}")


def _columns(table: str) -> list[str]:
    return [c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)]


def _drop_old_triggers(dialect: str) -> None:
    if dialect == "postgresql":
        for table in OLD_IMMUTABLE:
            op.execute(f"DROP TRIGGER trg_{table}_immutable ON {table}")
            op.execute(f"DROP TRIGGER trg_{table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION ratingdb_refuse_change()")
        for table, _ in CLOSED_GUARDED:
            op.execute(f"DROP TRIGGER trg_{table}_closed_period ON {table}")
        op.execute("DROP FUNCTION ratingdb_refuse_closed_event()")
        return
    # SQLite and MySQL: one trigger per action, with the same names.
    for table in OLD_IMMUTABLE:
        for action in ("update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_no_{action}")
    for table, _ in CLOSED_GUARDED:
        for action in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_closed_{action}")
    for action in ("update", "delete"):
        op.execute(f"DROP TRIGGER trg_audit_log_no_{action}")


def _closed_period_guard(dialect: str, current_only: bool) -> list[str]:
    """The guard of 0004; with `current_only`, a withdrawn list no longer closes its period."""
    if dialect == "postgresql":
        current = " AND l.is_current" if current_only else ""
        return [
            f"""
            CREATE FUNCTION ratingdb_refuse_closed_event() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                ids integer[];
            BEGIN
                IF TG_TABLE_NAME = 'event' THEN
                    IF TG_OP <> 'DELETE' AND EXISTS (
                        SELECT 1 FROM rating_list l WHERE l.rating_type = NEW.rating_type{current}
                        AND l.list_date = (NEW.period || '-01')::date + interval '1 month') THEN
                        RAISE EXCEPTION '{CLOSED_MESSAGE}';
                    END IF;
                    IF TG_OP <> 'INSERT' THEN
                        ids := ARRAY[OLD.id];
                    END IF;
                ELSE
                    IF TG_OP <> 'DELETE' THEN
                        ids := ARRAY[NEW.event_id];
                    END IF;
                    IF TG_OP <> 'INSERT' THEN
                        ids := ids || OLD.event_id;
                    END IF;
                END IF;
                IF ids IS NOT NULL AND EXISTS (
                    SELECT 1 FROM event e JOIN rating_list l ON l.rating_type = e.rating_type{current}
                    AND l.list_date = (e.period || '-01')::date + interval '1 month'
                    WHERE e.id = ANY(ids)) THEN
                    RAISE EXCEPTION '{CLOSED_MESSAGE}';
                END IF;
                RETURN COALESCE(NEW, OLD);
            END
            $$
            """,
            *[
                f"CREATE TRIGGER trg_{table}_closed_period BEFORE INSERT OR UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_closed_event()"
                for table, _ in CLOSED_GUARDED
            ],
        ]
    if dialect == "mysql":
        return _mysql_closed_period_guard(current_only)
    current = " AND l.is_current = 1" if current_only else ""
    closed = (
        "EXISTS (SELECT 1 FROM event e JOIN rating_list l ON l.rating_type = e.rating_type"
        f"{current} AND l.list_date = date(e.period || '-01', '+1 month') WHERE e.id = {{row}}.{{column}})"
    )
    closed_new_event = (
        f"EXISTS (SELECT 1 FROM rating_list l WHERE l.rating_type = NEW.rating_type{current} "
        "AND l.list_date = date(NEW.period || '-01', '+1 month'))"
    )
    statements = []
    for table, column in CLOSED_GUARDED:
        for action in ("INSERT", "UPDATE", "DELETE"):
            rows = {"INSERT": ["NEW"], "UPDATE": ["NEW", "OLD"], "DELETE": ["OLD"]}[action]
            if table == "event":
                conditions = [closed_new_event] if action != "DELETE" else []
                if action != "INSERT":
                    conditions.append(closed.format(row="OLD", column=column))
            else:
                conditions = [closed.format(row=row, column=column) for row in rows]
            statements.append(
                f"CREATE TRIGGER trg_{table}_closed_{action.lower()} BEFORE {action} ON {table} "
                f"WHEN {' OR '.join(conditions)} BEGIN SELECT RAISE(ABORT, '{CLOSED_MESSAGE}'); END"
            )
    return statements


def _mysql_closed_period_guard(current_only: bool) -> list[str]:
    """The MySQL triggers of 0004; with `current_only`, a withdrawn list no longer closes its period."""
    current = " AND l.is_current = 1" if current_only else ""

    def list_exists(rating_type: str, period: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM rating_list l WHERE l.rating_type = {rating_type}{current} "
            f"AND l.list_date = {mysql_published_list_date(period)})"
        )

    def event_closed(row: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM event e JOIN rating_list l ON l.rating_type = e.rating_type{current} "
            f"AND l.list_date = {mysql_published_list_date('e.period')} WHERE e.id = {row}.event_id)"
        )

    statements = []
    for table, _ in CLOSED_GUARDED:
        for action, rows in (("INSERT", ["NEW"]), ("UPDATE", ["NEW", "OLD"]), ("DELETE", ["OLD"])):
            if table == "event":
                conditions = [list_exists(f"{row}.rating_type", f"{row}.period") for row in rows]
            else:
                conditions = [event_closed(row) for row in rows]
            name = f"trg_{table}_closed_{action.lower()}"
            statements.append(mysql_refusal(name, action, table, CLOSED_MESSAGE, " OR ".join(conditions)))
    return statements


def _player_referenced() -> str:
    return " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE {column} = OLD.id)"
        for table, column in (
            ("list_entry", "player_id"),
            ("event_player", "player_id"),
            ("game", "white_id"),
            ("game", "black_id"),
        )
    )


def _mysql_audit_and_player_guards() -> list[str]:
    # No TRUNCATE trigger on MySQL; the player guard holds even for a client with foreign_key_checks off.
    return [
        *(
            mysql_refusal(f"trg_audit_log_no_{action.lower()}", action, "audit_log", AUDIT_MESSAGE)
            for action in ("UPDATE", "DELETE")
        ),
        mysql_refusal("trg_player_referenced", "DELETE", "player", PLAYER_MESSAGE, _player_referenced()),
    ]


def _sqlite_audit_and_player_guards() -> list[str]:
    statements = [
        f"CREATE TRIGGER trg_audit_log_no_{action.lower()} BEFORE {action} ON audit_log "
        f"BEGIN SELECT RAISE(ABORT, '{AUDIT_MESSAGE}'); END"
        for action in ("UPDATE", "DELETE")
    ]
    statements.append(
        f"CREATE TRIGGER trg_player_referenced BEFORE DELETE ON player WHEN {_player_referenced()} "
        f"BEGIN SELECT RAISE(ABORT, '{PLAYER_MESSAGE}'); END"
    )
    return statements


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    _drop_views(list(VIEWS_0003))
    _drop_old_triggers(dialect)

    autoincrement = {"sqlite_autoincrement": True}
    with op.batch_alter_table(
        "audit_log", recreate="always" if dialect == "sqlite" else "auto", table_kwargs=autoincrement
    ) as batch:
        batch.add_column(sa.Column("reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("actor", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("command", sa.Text(), nullable=True))
    for table in ("event", "player"):
        if dialect == "sqlite":
            with op.batch_alter_table(table, recreate="always", table_kwargs=autoincrement):
                pass

    with op.batch_alter_table("rating_list", table_kwargs=autoincrement) as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("is_current", sa.Boolean(), nullable=True, server_default=sa.true()))
        batch.add_column(sa.Column("created_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("withdrawn_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("sealed", sa.Boolean(), nullable=False, server_default=sa.true()))
    with op.batch_alter_table("rating_list", table_kwargs=autoincrement) as batch:
        # TRUE filled `sealed` of the existing (published) lists; a new list starts unsealed.
        batch.alter_column("sealed", server_default=sa.false())
        batch.drop_constraint("uq_rating_list_type_date", type_="unique")
        batch.create_unique_constraint("uq_rating_list_current", ["rating_type", "list_date", "is_current"])
        batch.create_unique_constraint("uq_rating_list_version", ["rating_type", "list_date", "version"])
        batch.create_check_constraint("is_current", "is_current IS NULL OR is_current = TRUE")
        batch.create_check_constraint("withdrawn", "(is_current IS NULL) = (withdrawn_by IS NOT NULL)")
        batch.create_foreign_key(
            op.f("fk_rating_list_created_by_audit_log"), "audit_log", ["created_by"], ["id"]
        )
        batch.create_foreign_key(
            op.f("fk_rating_list_withdrawn_by_audit_log"), "audit_log", ["withdrawn_by"], ["id"]
        )

    _run(refuse_truncate_function(dialect))
    _run(versioned_table_guard(dialect, "rating_list", _columns("rating_list"), one_way_flags=("sealed",)))
    for table in SEALED_TABLES:
        _run(sealed_rows_guard(dialect, table))
    _run(_closed_period_guard(dialect, current_only=True))
    if dialect == "postgresql":
        for table in NO_TRUNCATE:
            _run(no_truncate(dialect, table))
    elif dialect == "mysql":
        _run(_mysql_audit_and_player_guards())
    else:
        _run(_sqlite_audit_and_player_guards())
    _create_views(VIEWS)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    _drop_views(list(VIEWS))
    if dialect == "postgresql":
        for table in NO_TRUNCATE:
            _run(drop_no_truncate(dialect, table))
        for table, _ in CLOSED_GUARDED:
            op.execute(f"DROP TRIGGER trg_{table}_closed_period ON {table}")
        op.execute("DROP FUNCTION ratingdb_refuse_closed_event()")
    else:  # SQLite and MySQL: the same trigger names
        op.execute("DROP TRIGGER trg_player_referenced")
        for action in ("update", "delete"):
            op.execute(f"DROP TRIGGER trg_audit_log_no_{action}")
        for table, _ in CLOSED_GUARDED:
            for action in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER trg_{table}_closed_{action}")
    for table in SEALED_TABLES:
        _run(drop_sealed_rows_guard(dialect, table))
    _run(drop_versioned_table_guard(dialect, "rating_list"))
    if dialect == "postgresql":
        op.execute("DROP FUNCTION ratingdb_refuse_truncate()")

    with op.batch_alter_table("rating_list") as batch:
        batch.drop_constraint(op.f("fk_rating_list_withdrawn_by_audit_log"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_rating_list_created_by_audit_log"), type_="foreignkey")
        batch.drop_constraint(op.f("ck_rating_list_withdrawn"), type_="check")
        batch.drop_constraint(op.f("ck_rating_list_is_current"), type_="check")
        batch.drop_constraint("uq_rating_list_version", type_="unique")
        batch.drop_constraint("uq_rating_list_current", type_="unique")
        batch.create_unique_constraint("uq_rating_list_type_date", ["rating_type", "list_date"])
        for column in ("sealed", "withdrawn_by", "created_by", "is_current", "version"):
            batch.drop_column(column)
    with op.batch_alter_table("audit_log") as batch:
        for column in ("command", "actor", "reason"):
            batch.drop_column(column)

    # The triggers of 0001, 0004 and 0005 as they were.
    if dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION ratingdb_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'published lists are immutable: % on % refused', TG_OP, TG_TABLE_NAME; END $$"
        )
        for table in OLD_IMMUTABLE:
            op.execute(
                f"CREATE TRIGGER trg_{table}_immutable BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_change()"
            )
            op.execute(
                f"CREATE TRIGGER trg_{table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_change()"
            )
    elif dialect == "mysql":
        for table in OLD_IMMUTABLE:
            for action in ("UPDATE", "DELETE"):
                message = f"published lists are immutable: {action} on {table} refused"
                op.execute(mysql_refusal(f"trg_{table}_no_{action.lower()}", action, table, message))
        for action in ("UPDATE", "DELETE"):
            op.execute(
                mysql_refusal(f"trg_audit_log_no_{action.lower()}", action, "audit_log", AUDIT_MESSAGE)
            )
    else:
        for table in OLD_IMMUTABLE:
            for action in ("UPDATE", "DELETE"):
                message = f"published lists are immutable: {action} on {table} refused"
                op.execute(
                    f"CREATE TRIGGER trg_{table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
                )
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER trg_audit_log_no_{action.lower()} BEFORE {action} ON audit_log "
                f"BEGIN SELECT RAISE(ABORT, '{AUDIT_MESSAGE}'); END"
            )
    _run(_closed_period_guard(dialect, current_only=False))
    _create_views(VIEWS_0003)


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


# --- Frozen: the views it replaces, copied from migration 0003 as this migration ran it (December 2026).
# Migrations are history: never edit below.


def _points_0003(column: str) -> str:
    # Hundredths to points as a double on every engine (SQLite gives DOUBLE PRECISION REAL affinity).
    # MySQL spells the cast DOUBLE; `replace` below rewrites it there.
    return f"CAST({column} AS DOUBLE PRECISION) / 100"


def _flag_0003(column: str) -> str:
    return f"CASE WHEN {column} THEN 1 ELSE 0 END"


VIEWS_0003 = {
    # Every entry of every list, with the player's details.
    "v_list_entry": f"""
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               p.id AS player_id, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title,
               p.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               {_flag_0003("e.reached_2400")} AS reached_2400, {_flag_0003("e.reached_2300")} AS reached_2300
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
        SELECT p.id AS player_id, p.fide_id, p.national_id, p.name, l.rating_type, l.list_date, l.origin,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    # What each close did to each player it rated.
    "v_period_change": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.method, c.ro, c.new_rating, c.change, c.n AS games, c.k_base, c.k AS k_used,
               {_points_0003("c.score_x100")} AS score, {_points_0003("c.sum_dr_x100")} AS sum_dr,
               {_points_0003("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_player c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
    """,
    # The calculation record per player, period and event.
    "v_calc_event": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               ev.id AS event_id, ev.name AS event_name, ev.start_date, ev.end_date,
               used.list_date AS ratings_from_list, c.ro, {_points_0003("c.rc_x100")} AS rc, c.n,
               {_points_0003("c.score_x100")} AS score, {_points_0003("c.sum_dr_x100")} AS sum_dr, c.k,
               {_points_0003("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_event c
        JOIN rating_list l ON l.id = c.list_id
        JOIN rating_list used ON used.id = c.ratings_list_id
        JOIN player p ON p.id = c.player_id
        JOIN event ev ON ev.id = c.event_id
    """,
    # The calculation record per player and game.
    "v_calc_game": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.event_id, g.round, c.game_id, c.kind, o.id AS opponent_id, o.fide_id AS opponent_fide_id,
               o.name AS opponent_name, c.own_rating, c.opponent_rating, c.d, {_points_0003("c.pd_x100")} AS pd,
               {_points_0003("c.score_x100")} AS score, {_points_0003("c.score_x100 - c.pd_x100")} AS dr
        FROM calc_game c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        JOIN player o ON o.id = c.opponent_id
        JOIN game g ON g.id = c.game_id
    """,
    # Events with their period and whether they were rated late (§9.1).
    "v_event": f"""
        SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
               ev.rating_type, {_flag_0003("ev.official")} AS official, ev.rounds, ev.period, ev.natural_period,
               CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
               (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
               ev.source_name
        FROM event ev
    """,
}
