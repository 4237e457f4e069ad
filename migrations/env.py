"""Alembic environment: runs migrations on the engine ratingdb hands over (or a URL from alembic.ini)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine, create_engine

from ratingdb.models import Base

target_metadata = Base.metadata


def _engine() -> Engine:
    engine = context.config.attributes.get("engine")
    if engine is not None:
        return engine
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no engine or sqlalchemy.url given to the migrations")
    return create_engine(url)


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
        if sqlite:
            driver = connection.connection.driver_connection
            broken = driver.execute("PRAGMA foreign_key_check").fetchall()  # type: ignore[union-attr]
            driver.execute("PRAGMA foreign_keys = ON")  # type: ignore[union-attr]
            if broken:
                raise RuntimeError(f"the migration left rows without their parent rows: {broken[:5]}")


if context.is_offline_mode():
    raise RuntimeError("ratingdb migrations run online only")
run_migrations_online()
