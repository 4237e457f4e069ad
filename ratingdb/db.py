"""Engines, sessions and schema upgrades: URL handling and SQLite pragmas. Nothing happens at import time.

Alembic is imported only by the functions that run or inspect migrations (`init`, `db`, tests): every
other command checks the schema with one query against alembic_version and the head read from the
migration files' `revision =` lines, so it does not pay Alembic's start-up time. The ORM is imported
only when a session is made.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from ratingdb.errors import ConfigError, SchemaError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.orm import Session, sessionmaker


def display_url(url: str) -> str:
    """The URL as it may be printed: the password is always hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<unparseable URL>"


def make_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine for `url`; SQLite gets foreign keys, WAL and explicit BEGIN handling."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise ConfigError(f"'{url}' is not a database URL (e.g. sqlite:///ratingdb.sqlite)") from exc
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(parsed, connect_args={"timeout": 60}, **kwargs)
        _configure_sqlite(engine)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return create_engine(parsed, **kwargs)


def _configure_sqlite(engine: Engine) -> None:
    # pysqlite's own transaction handling breaks savepoints; take control of BEGIN ourselves.
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    # IMMEDIATE: a writer takes the write lock at BEGIN, so two closes serialise instead of
    # both reading the same state and failing late on commit.
    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """A session factory bound to `engine` (expire_on_commit off: results are read after commit)."""
    from sqlalchemy.orm import sessionmaker

    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One session, one transaction: commits when the block ends normally, rolls back otherwise."""
    with session_factory(engine)() as session, session.begin():
        yield session


def migrations_path() -> Path:
    """Folder of the Alembic environment, whether running from a checkout or an installed package."""
    checkout = Path(__file__).resolve().parent.parent / "migrations"
    if (checkout / "env.py").is_file():
        return checkout
    return Path(str(resources.files("ratingdb.migrations")))


def alembic_config(engine: Engine | None = None) -> Config:
    """Alembic's configuration for ratingdb's migrations, bound to `engine` when one is given."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_path()))
    if engine is not None:
        cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Create or upgrade the schema through the migrations (the only path to a schema)."""
    from alembic import command

    command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    command.downgrade(alembic_config(engine), revision)


_REVISION_LINE = re.compile(r"""^(down_revision|revision)\s*(?::[^=]*)?=\s*(?:["']([^"']+)["']|None)""", re.M)


@cache
def head_revision() -> str | None:
    """The newest migration, read from the migration files without importing Alembic.

    A revision that no other file names as its down_revision is a head. Anything but exactly one head
    (a file written in another form, or two heads after a merge) is left to Alembic's own reading.
    """
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (migrations_path() / "versions").glob("*.py"):
        for kind, value in _REVISION_LINE.findall(path.read_text(encoding="utf-8")):
            if value:
                (revisions if kind == "revision" else parents).add(value)
    heads = revisions - parents
    if len(heads) == 1:
        return heads.pop()
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The database's migration (one query on alembic_version), None for a database without one."""
    with engine.connect() as conn:
        try:
            versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        except DBAPIError:
            return None  # no alembic_version table: no ratingdb schema yet
    return ", ".join(sorted(versions)) or None


def require_current_schema(engine: Engine) -> None:
    """Refuse to work on a database that is missing or not at the newest migration."""
    current = current_revision(engine)
    head = head_revision()
    if current == head:
        return
    if current is None and not inspect(engine).get_table_names():
        raise SchemaError(
            f"the database {display_url(str(engine.url))} has no ratingdb schema: run `ratingdb init` first"
        )
    raise SchemaError(
        f"the database is at migration {current}, this ratingdb needs {head}: run `ratingdb init` to upgrade"
    )
