"""Events and games of a closed period refuse changes in the database itself

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29

A period is closed once the list it publishes (the first day of the next month) exists. The services
refuse such edits with a sentence; these triggers make the same refusal hold for any other writer, so
a stored calculation record can never disagree with the games it explains.
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

MESSAGE = "the period of this event is closed (its list is published): events and games cannot change"

# (table, the event id column) — event_player and game hang off an event; the event itself by id.
GUARDED = (("event", "id"), ("event_player", "event_id"), ("game", "event_id"))

SQLITE_CLOSED = (
    "EXISTS (SELECT 1 FROM event e JOIN rating_list l ON l.rating_type = e.rating_type "
    "AND l.list_date = date(e.period || '-01', '+1 month') WHERE e.id = {row}.{column})"
)
SQLITE_CLOSED_NEW_EVENT = (
    "EXISTS (SELECT 1 FROM rating_list l WHERE l.rating_type = NEW.rating_type "
    "AND l.list_date = date(NEW.period || '-01', '+1 month'))"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"""
            CREATE FUNCTION ratingdb_refuse_closed_event() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                ids integer[];
            BEGIN
                IF TG_TABLE_NAME = 'event' THEN
                    IF TG_OP <> 'DELETE' AND EXISTS (
                        SELECT 1 FROM rating_list l WHERE l.rating_type = NEW.rating_type
                        AND l.list_date = (NEW.period || '-01')::date + interval '1 month') THEN
                        RAISE EXCEPTION '{MESSAGE}';
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
                    SELECT 1 FROM event e JOIN rating_list l ON l.rating_type = e.rating_type
                    AND l.list_date = (e.period || '-01')::date + interval '1 month'
                    WHERE e.id = ANY(ids)) THEN
                    RAISE EXCEPTION '{MESSAGE}';
                END IF;
                RETURN COALESCE(NEW, OLD);
            END
            $$
            """
        )
        for table, _ in GUARDED:
            op.execute(
                f"CREATE TRIGGER trg_{table}_closed_period BEFORE INSERT OR UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_closed_event()"
            )
        return
    if op.get_bind().dialect.name == "mysql":
        _create_mysql_triggers()
        return
    for table, column in GUARDED:
        for action in ("INSERT", "UPDATE", "DELETE"):
            rows = {"INSERT": ["NEW"], "UPDATE": ["NEW", "OLD"], "DELETE": ["OLD"]}[action]
            if table == "event":
                conditions = [SQLITE_CLOSED_NEW_EVENT] if action != "DELETE" else []
                if action != "INSERT":
                    conditions.append(SQLITE_CLOSED.format(row="OLD", column=column))
            else:
                conditions = [SQLITE_CLOSED.format(row=row, column=column) for row in rows]
            op.execute(
                f"CREATE TRIGGER trg_{table}_closed_{action.lower()} BEFORE {action} ON {table} "
                f"WHEN {' OR '.join(conditions)} BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )


def _create_mysql_triggers() -> None:
    def list_exists(rating_type: str, period: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM rating_list l WHERE l.rating_type = {rating_type} "
            f"AND l.list_date = {mysql_published_list_date(period)})"
        )

    def event_closed(row: str) -> str:
        return (
            "EXISTS (SELECT 1 FROM event e JOIN rating_list l ON l.rating_type = e.rating_type "
            f"AND l.list_date = {mysql_published_list_date('e.period')} WHERE e.id = {row}.event_id)"
        )

    for table, _ in GUARDED:
        for action, rows in (("INSERT", ["NEW"]), ("UPDATE", ["NEW", "OLD"]), ("DELETE", ["OLD"])):
            if table == "event":
                conditions = [list_exists(f"{row}.rating_type", f"{row}.period") for row in rows]
            else:
                conditions = [event_closed(row) for row in rows]
            name = f"trg_{table}_closed_{action.lower()}"
            op.execute(mysql_refusal(name, action, table, MESSAGE, " OR ".join(conditions)))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, _ in GUARDED:
            op.execute(f"DROP TRIGGER trg_{table}_closed_period ON {table}")
        op.execute("DROP FUNCTION ratingdb_refuse_closed_event()")
        return
    # SQLite and MySQL: one trigger per action, dropped by name.
    for table, _ in GUARDED:
        for action in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER trg_{table}_closed_{action}")


# --- Frozen: the guard SQL, copied from ratingdb/guards.py as this migration ran it (December 2026).
# Migrations are history: never edit below, whatever ratingdb/guards.py becomes.


def _raise(dialect: str, message: str) -> str:
    if dialect == "postgresql":
        return f"RAISE EXCEPTION '{message}';"
    if dialect == "mysql":
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"
    return f"SELECT RAISE(ABORT, '{message}');"


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
