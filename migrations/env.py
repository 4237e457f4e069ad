"""Alembic environment: runs migrations on the engine ratingdb hands over (or a URL from alembic.ini)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, Engine, event

from ratingdb import db
from ratingdb.schema.models import Base

target_metadata = Base.metadata


def _engine() -> Engine:
    engine = context.config.attributes.get("engine")
    if engine is not None:
        return engine
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no engine or sqlalchemy.url given to the migrations")
    # ratingdb's own engine: SQLite pragmas, MySQL's strict mode and quoting as in every command.
    return db.make_engine(url)


def run_migrations_online() -> None:
    engine = _engine()
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # Rebuilding a table on SQLite (batch mode) drops and renames it, which foreign keys refuse
            # while other tables point at it; SQLite's documented recipe turns them off outside any
            # transaction and checks them afterwards (below). ratingdb's SQLite connections run with
            # isolation_level None, so the driver connection is not inside a transaction here.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")  # type: ignore[union-attr]
        _allow_version_changes(connection, True)
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            # Each migration is applied together with its version record in one transaction.
            transaction_per_migration=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
        _allow_version_changes(connection, False)
        if sqlite:
            driver = connection.connection.driver_connection
            broken = driver.execute("PRAGMA foreign_key_check").fetchall()  # type: ignore[union-attr]
            driver.execute("PRAGMA foreign_keys = ON")  # type: ignore[union-attr]
            if broken:
                raise RuntimeError(f"the migration left rows without their parent rows: {broken[:5]}")


def _allow_version_changes(connection: Connection, allowed: bool) -> None:
    """Let this connection change alembic_version, which its guard (migration 0010) refuses to others.

    SQLite: the guard calls ratingdb_migrating(), which ratingdb's connections define as 0 (db.py) and
    the migrating connection as 1 while it migrates; a client without it fails on the call.
    PostgreSQL: each migration's transaction says so with a transaction-local setting.
    MySQL: a user variable of this session, @ratingdb_migrating, which the guard reads.
    """
    if connection.dialect.name == "sqlite":
        driver = connection.connection.driver_connection
        driver.create_function("ratingdb_migrating", 0, lambda: int(allowed))  # type: ignore[union-attr]
    elif connection.dialect.name == "postgresql" and allowed:
        event.listen(connection, "begin", _say_migrating)
    elif connection.dialect.name == "postgresql":
        event.remove(connection, "begin", _say_migrating)
    elif connection.dialect.name == "mysql":
        connection.exec_driver_sql(f"SET @ratingdb_migrating = {1 if allowed else 'NULL'}")


def _say_migrating(connection: Connection) -> None:
    connection.exec_driver_sql("SELECT set_config('ratingdb.migrating', 'on', true)")


if context.is_offline_mode():
    raise RuntimeError("ratingdb migrations run online only")
run_migrations_online()
