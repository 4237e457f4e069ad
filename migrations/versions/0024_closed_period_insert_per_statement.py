"""PostgreSQL: the closed-period guard of games and event players checks an insert once per statement

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-01

An import writes its games and event players with one COPY each; the guard of 0006 (as 0009 left it) ran
its query once per row, about 13,000 runs of a PL/pgSQL function for an import of 10,000 games (a fifth of
the server's work for it). On INSERT the guard is now one AFTER … FOR EACH STATEMENT trigger over the
inserted rows (a transition table, as the sealed-list guards of 0016 are): the events the statement's
rows name, looked up once each. UPDATE and DELETE keep the row trigger of before (one row each, rarely),
and so does `event` (a few rows an import). The refusal and its sentence are the same; it comes when the
statement's rows are in rather than before the first, and the statement is undone with it.

SQLite has row triggers only and MySQL/MariaDB no transition tables: nothing changes there.
"""

from __future__ import annotations

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

CLOSED_MESSAGE = "the period of this event is closed (its list is published): events and games cannot change"
TABLES = ("event_player", "game")

# The events of the inserted rows whose period a current list has closed (the list dated the first of the
# month after the period), as 0009's row guard asks it of one row.
INSERT_GUARD = f"""
    CREATE FUNCTION ratingdb_refuse_closed_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (
            SELECT 1 FROM (SELECT DISTINCT event_id FROM new_rows) n
            JOIN event e ON e.id = n.event_id
            JOIN rating_list l ON l.rating_type = e.rating_type AND l.is_current
            AND l.list_date = (e.period || '-01')::date + interval '1 month') THEN
            RAISE EXCEPTION '{CLOSED_MESSAGE}';
        END IF;
        RETURN NULL;
    END
    $$
    """


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(INSERT_GUARD)
    for table in TABLES:
        op.execute(f"DROP TRIGGER trg_{table}_closed_period ON {table}")
        op.execute(
            f"CREATE TRIGGER trg_{table}_closed_period BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_closed_event()"
        )
        op.execute(
            f"CREATE TRIGGER trg_{table}_closed_insert AFTER INSERT ON {table} REFERENCING NEW TABLE AS "
            "new_rows FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_closed_insert()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER trg_{table}_closed_insert ON {table}")
        op.execute(f"DROP TRIGGER trg_{table}_closed_period ON {table}")
        op.execute(
            f"CREATE TRIGGER trg_{table}_closed_period BEFORE INSERT OR UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_refuse_closed_event()"
        )
    op.execute("DROP FUNCTION ratingdb_refuse_closed_insert()")
