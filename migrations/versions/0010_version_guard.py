"""alembic_version changes only through ratingdb's own migrations

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30

A client that rewrites alembic_version makes ratingdb believe in a schema the database does not have.
The guard refuses every change to the table unless the connection is migrating (migrations/env.py):
on SQLite it calls a function only the migrating connection defines, on PostgreSQL it reads a
transaction-local setting, on MySQL a user variable of the migrating session.
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

MESSAGE = "alembic_version changes only through `ratingdb init` (the migrations)"
ACTIONS = ("INSERT", "UPDATE", "DELETE")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION ratingdb_guard_alembic_version() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "IF current_setting('ratingdb.migrating', true) IS DISTINCT FROM 'on' THEN "
            f"RAISE EXCEPTION '{MESSAGE}'; END IF; RETURN COALESCE(NEW, OLD); END $$"
        )
        op.execute(
            "CREATE TRIGGER trg_alembic_version_guard BEFORE INSERT OR UPDATE OR DELETE ON alembic_version "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_guard_alembic_version()"
        )
        op.execute(
            "CREATE TRIGGER trg_alembic_version_no_truncate BEFORE TRUNCATE ON alembic_version "
            "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_guard_alembic_version()"
        )
    elif dialect == "mysql":
        for action in ACTIONS:
            op.execute(
                mysql_refusal(
                    f"trg_alembic_version_{action.lower()}",
                    action,
                    "alembic_version",
                    MESSAGE,
                    "COALESCE(@ratingdb_migrating, 0) <> 1",
                )
            )
    elif dialect == "sqlite":
        for action in ACTIONS:
            op.execute(
                f"CREATE TRIGGER trg_alembic_version_{action.lower()} BEFORE {action} ON alembic_version "
                f"WHEN ratingdb_migrating() IS NOT 1 BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER trg_alembic_version_no_truncate ON alembic_version")
        op.execute("DROP TRIGGER trg_alembic_version_guard ON alembic_version")
        op.execute("DROP FUNCTION ratingdb_guard_alembic_version()")
    else:  # SQLite and MySQL: one trigger per action
        for action in ACTIONS:
            op.execute(f"DROP TRIGGER trg_alembic_version_{action.lower()}")


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
