"""Event versions: a corrected tournament file replaces an event without deleting what explained a list

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30

After a reopen, the withdrawn lists' calculation records still point at the event's games. A
corrected file (`replace-event`) is therefore stored as a new version of the event (a new id, with
`replaces` pointing back) and the old version is withdrawn, not deleted (docs/versioning.md). The same
holds for `delete-event` of an event that a withdrawn list was computed from. v_event shows current
events only, with their version.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

V_EVENT = """
    SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
           ev.rating_type, CASE WHEN ev.official THEN 1 ELSE 0 END AS official, ev.rounds, ev.period,
           ev.natural_period, CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
           (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
           ev.source_name{extra}
    FROM event ev{where}
"""


def _views(current_events: bool) -> dict[str, str]:
    views = dict(VIEWS_0006)
    if current_events:
        views["v_event"] = V_EVENT.format(
            extra=", ev.version, ev.replaces", where=" WHERE ev.is_current = TRUE"
        )
    return views


def _drop_views() -> None:
    # Views that read event stop SQLite's rebuild of the table: all go, and come back afterwards.
    for name in reversed(list(VIEWS_0006)):
        op.execute(f"DROP VIEW {name}")


def _create_views(views: dict[str, str]) -> None:
    _create_views_0006(views)  # as 0006 writes them on each engine (MySQL: DOUBLE)


def upgrade() -> None:
    _drop_views()
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        _drop_sqlite_closed_triggers()
    with op.batch_alter_table("event", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("is_current", sa.Boolean(), nullable=True, server_default=sa.true()))
        batch.add_column(sa.Column("created_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("withdrawn_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("replaces", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_event_created_by_audit_log"), "audit_log", ["created_by"], ["id"])
        batch.create_foreign_key(
            op.f("fk_event_withdrawn_by_audit_log"), "audit_log", ["withdrawn_by"], ["id"]
        )
        batch.create_foreign_key(op.f("fk_event_replaces_event"), "event", ["replaces"], ["id"])
        batch.create_check_constraint("is_current", "is_current IS NULL OR is_current = TRUE")
        batch.create_check_constraint("withdrawn", "(is_current IS NULL) = (withdrawn_by IS NOT NULL)")
    if sqlite:
        _recreate_sqlite_closed_triggers()
    _create_views(_views(current_events=True))


def downgrade() -> None:
    _drop_views()
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        _drop_sqlite_closed_triggers()
    with op.batch_alter_table("event", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_constraint(op.f("ck_event_withdrawn"), type_="check")
        batch.drop_constraint(op.f("ck_event_is_current"), type_="check")
        batch.drop_constraint(op.f("fk_event_replaces_event"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_event_withdrawn_by_audit_log"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_event_created_by_audit_log"), type_="foreignkey")
        for column in ("replaces", "withdrawn_by", "created_by", "is_current", "version"):
            batch.drop_column(column)
    if sqlite:
        _recreate_sqlite_closed_triggers()
    _create_views(_views(current_events=False))


def _drop_sqlite_closed_triggers() -> None:
    # SQLite's table rebuild (batch mode) renames the table, which the triggers on event, event_player
    # and game (they read event) refuse; they are dropped first and created again as 0006 made them.
    for table in ("event", "event_player", "game"):
        for action in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_closed_{action}")


def _recreate_sqlite_closed_triggers() -> None:
    for statement in _closed_period_guard_0006("sqlite", current_only=True):
        op.execute(statement)


# --- Frozen: the views and closed-period guard it builds on, copied from migration 0006 as this migration ran it (December 2026).
# Migrations are history: never edit below.

CLOSED_GUARDED_0006 = (("event", "id"), ("event_player", "event_id"), ("game", "event_id"))


CLOSED_MESSAGE_0006 = (
    "the period of this event is closed (its list is published): events and games cannot change"
)


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
