"""Stored rule sets (versioned) and the rating types they define

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30

- rule_set: a federation's rule file, kept verbatim with its SHA-256, versioned like lists
  (docs/versioning.md): never changed or deleted, only withdrawn when an edited file is added again;
- list_rule_set: the exact stored rule set (version) a computed list was closed under, written with
  the list and, like the list's other rows, never changed afterwards;
- the rating_type CHECK of rating_list and event admits any lowercase name, so a rule set can define a
  type such as "national" (the commands check that the type is known);
- an event's file is unique per rating type, not overall: the same tournament file may feed the FIDE
  list and a national list.
On SQLite a CHECK changes only by rebuilding the table, so the views and the triggers that name
rating_list or event are dropped first and created again, exactly as migrations 0006 and 0007 made them.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

OLD_CHECK = "rating_type IN ('standard', 'rapid', 'blitz')"
NEW_CHECK = "rating_type <> '' AND rating_type = lower(rating_type)"
CHECKED_TABLES = ("rating_list", "event")


def _run(statements: list[str]) -> None:
    for statement in statements:
        op.execute(statement)


def _columns(table: str) -> list[str]:
    return [c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)]


def _rating_type_check(check: str, file_unique: list[str]) -> None:
    """Set the rating_type CHECK of rating_list and event, and the columns an event's file is unique over."""
    dialect = op.get_bind().dialect.name
    if dialect != "sqlite":
        for table in CHECKED_TABLES:
            op.drop_constraint(op.f(f"ck_{table}_rating_type"), table, type_="check")
            op.create_check_constraint(op.f(f"ck_{table}_rating_type"), table, check)
        op.drop_constraint(op.f("uq_event_source_hash"), "event", type_="unique")
        op.create_unique_constraint(op.f("uq_event_source_hash"), "event", file_unique)
        return
    views = _views_0007(current_events=True)
    for name in reversed(list(views)):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    _run(drop_versioned_table_guard(dialect, "rating_list"))
    for table in SEALED_TABLES_0006:
        _run(drop_sealed_rows_guard(dialect, table))
    for table, _ in CLOSED_GUARDED_0006:
        for action in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_closed_{action}")
    for table in CHECKED_TABLES:
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": True}
        ) as batch:
            batch.drop_constraint(op.f(f"ck_{table}_rating_type"), type_="check")
            batch.create_check_constraint("rating_type", check)
            if table == "event":
                batch.drop_constraint(op.f("uq_event_source_hash"), type_="unique")
                batch.create_unique_constraint(op.f("uq_event_source_hash"), file_unique)
    _run(versioned_table_guard(dialect, "rating_list", _columns("rating_list"), one_way_flags=("sealed",)))
    for table in SEALED_TABLES_0006:
        _run(sealed_rows_guard(dialect, table))
    _run(_closed_period_guard_0006(dialect, current_only=True))
    for name, sql in views.items():
        op.execute(f"CREATE VIEW {name} AS {sql}")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    # First, while no trigger of the new tables names rating_list (SQLite rebuilds it).
    _rating_type_check(NEW_CHECK, ["source_hash", "rating_type"])
    op.create_table(
        "rule_set",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("rating_type", sa.String(length=8), nullable=False),
        sa.Column("effective_from", sa.String(length=7), nullable=False),
        sa.Column("effective_until", sa.String(length=7), nullable=True),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), server_default=sa.text("(CURRENT_TIMESTAMP)"), nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("is_current", sa.Boolean(), server_default=sa.true(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("withdrawn_by", sa.Integer(), nullable=True),
        sa.CheckConstraint(NEW_CHECK, name=op.f("ck_rule_set_rating_type")),
        sa.CheckConstraint("is_current IS NULL OR is_current = TRUE", name=op.f("ck_rule_set_is_current")),
        sa.CheckConstraint(
            "(is_current IS NULL) = (withdrawn_by IS NOT NULL)", name=op.f("ck_rule_set_withdrawn")
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["audit_log.id"], name=op.f("fk_rule_set_created_by_audit_log")
        ),
        sa.ForeignKeyConstraint(
            ["withdrawn_by"], ["audit_log.id"], name=op.f("fk_rule_set_withdrawn_by_audit_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rule_set")),
        sa.UniqueConstraint("name", "is_current", name="uq_rule_set_current"),
        sa.UniqueConstraint("name", "version", name="uq_rule_set_version"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "list_rule_set",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("rule_set_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["list_id"], ["rating_list.id"], name=op.f("fk_list_rule_set_list_id_rating_list")
        ),
        sa.ForeignKeyConstraint(
            ["rule_set_id"], ["rule_set.id"], name=op.f("fk_list_rule_set_rule_set_id_rule_set")
        ),
        sa.PrimaryKeyConstraint("list_id", name=op.f("pk_list_rule_set")),
    )
    op.create_index(op.f("ix_list_rule_set_rule_set_id"), "list_rule_set", ["rule_set_id"])
    _run(versioned_table_guard(dialect, "rule_set", _columns("rule_set")))
    _run(sealed_rows_guard(dialect, "list_rule_set"))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    _run(drop_sealed_rows_guard(dialect, "list_rule_set"))
    _run(drop_versioned_table_guard(dialect, "rule_set"))
    if dialect != "mysql":  # MySQL refuses to drop an index a foreign key needs; DROP TABLE drops both
        op.drop_index(op.f("ix_list_rule_set_rule_set_id"), table_name="list_rule_set")
    op.drop_table("list_rule_set")
    op.drop_table("rule_set")
    _rating_type_check(OLD_CHECK, ["source_hash"])


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


# --- Frozen: the tables and closed-period guard it rebuilds, copied from migration 0006 as this migration ran it (December 2026).
# Migrations are history: never edit below.

SEALED_TABLES_0006 = ("list_entry", "calc_player", "calc_event", "calc_game")


CLOSED_GUARDED_0006 = (("event", "id"), ("event_player", "event_id"), ("game", "event_id"))


CLOSED_MESSAGE_0006 = (
    "the period of this event is closed (its list is published): events and games cannot change"
)


def _closed_period_guard_0006(dialect: str, current_only: bool) -> list[str]:
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
                        RAISE EXCEPTION '{CLOSED_MESSAGE_0006}';
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
                    RAISE EXCEPTION '{CLOSED_MESSAGE_0006}';
                END IF;
                RETURN COALESCE(NEW, OLD);
            END
            $$
            """,
            *[
                f"CREATE TRIGGER trg_{table}_closed_period BEFORE INSERT OR UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_closed_event()"
                for table, _ in CLOSED_GUARDED_0006
            ],
        ]
    if dialect == "mysql":
        return _mysql_closed_period_guard_0006(current_only)
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
    for table, column in CLOSED_GUARDED_0006:
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
                f"WHEN {' OR '.join(conditions)} BEGIN SELECT RAISE(ABORT, '{CLOSED_MESSAGE_0006}'); END"
            )
    return statements


def _mysql_closed_period_guard_0006(current_only: bool) -> list[str]:
    """The MySQL triggers of 0004; with `current_only`, a withdrawn list no longer closes its period."""
    current = " AND l.is_current = 1" if current_only else ""

    def list_exists(rating_type: str, period: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM rating_list l WHERE l.rating_type = {rating_type}{current} "
            f"AND l.list_date = {mysql_published_list_date_0006(period)})"
        )

    def event_closed(row: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM event e JOIN rating_list l ON l.rating_type = e.rating_type{current} "
            f"AND l.list_date = {mysql_published_list_date_0006('e.period')} WHERE e.id = {row}.event_id)"
        )

    statements = []
    for table, _ in CLOSED_GUARDED_0006:
        for action, rows in (("INSERT", ["NEW"]), ("UPDATE", ["NEW", "OLD"]), ("DELETE", ["OLD"])):
            if table == "event":
                conditions = [list_exists(f"{row}.rating_type", f"{row}.period") for row in rows]
            else:
                conditions = [event_closed(row) for row in rows]
            name = f"trg_{table}_closed_{action.lower()}"
            statements.append(
                mysql_refusal_0006(name, action, table, CLOSED_MESSAGE_0006, " OR ".join(conditions))
            )
    return statements


def _raise_0006(dialect: str, message: str) -> str:
    if dialect == "postgresql":
        return f"RAISE EXCEPTION '{message}';"
    if dialect == "mysql":
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"
    return f"SELECT RAISE(ABORT, '{message}');"


def mysql_refusal_0006(name: str, action: str, table: str, message: str, condition: str | None = None) -> str:
    """CREATE TRIGGER refusing `action` ("INSERT", "UPDATE" or "DELETE") on `table` with `message`.

    `condition` (SQL over NEW/OLD) limits the refusal to the rows it holds for; without one every row is
    refused. The message is a plain sentence without quotes.
    """
    body = _raise_0006("mysql", message)
    if condition is not None:
        body = f"IF {condition} THEN {body} END IF;"
    return f"CREATE TRIGGER {name} BEFORE {action} ON {table} FOR EACH ROW BEGIN {body} END"


def mysql_published_list_date_0006(period: str) -> str:
    """SQL for the first day after a period (`period` is a 'YYYY-MM' expression): its list's date."""
    return f"(CAST(CONCAT({period}, '-01') AS DATE) + INTERVAL 1 MONTH)"


# --- Frozen: the views it rebuilds, copied from migration 0007 as this migration ran it (December 2026).
# Migrations are history: never edit below.

V_EVENT_0007 = """
    SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
           ev.rating_type, CASE WHEN ev.official THEN 1 ELSE 0 END AS official, ev.rounds, ev.period,
           ev.natural_period, CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
           (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
           ev.source_name{extra}
    FROM event ev{where}
"""


def _views_0007(current_events: bool) -> dict[str, str]:
    views = dict(VIEWS_0006)
    if current_events:
        views["v_event"] = V_EVENT_0007.format(
            extra=", ev.version, ev.replaces", where=" WHERE ev.is_current = TRUE"
        )
    return views


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
