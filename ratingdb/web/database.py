"""The web app's database access: engines that can only read, one read transaction per request.

The public side reads only, by the database's own rules rather than by the app's good behaviour:
- SQLite: the file is opened with `mode=ro` (and `PRAGMA query_only`), so no statement can write;
- PostgreSQL: every transaction is READ ONLY (the session's default) and runs as ratingdb_reader, the
  role made by migration 0008 for `ratingdb sql`, which has SELECT and nothing else — when the role
  exists and the login may become it; a standby (`--read-url`) refuses writes anyway;
- MySQL/MariaDB: every transaction is READ ONLY (the session's default). For a second guard, give
  `--read-url` a MySQL user granted SELECT only (README, "Serving the site").
Live ratings are the one path that needs a connection that could write (the close runs and is rolled
back, ratingdb.reports.live): `live_session` gives one on the primary, always rolled back.

The signed-in side (ratingdb.web.desk: sign-in, submissions, the officer's queue, accounts) is the one
part that writes: `write` is one transaction on the primary, as the `--db` URL's own login (give it the
*officer* account of `ratingdb db accounts`, never the owner), committed when the request's service call
succeeds and rolled back otherwise — exactly as a CLI command's. Only the desk's routes ask for it; the
public routes are given the reader alone, and tests/site/test_desk_permissions.py shows that a public
page still cannot write.

No route code here; nothing happens at import time.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session
from sqlalchemy.pool import QueuePool

from ratingdb import db
from ratingdb.errors import ConfigError
from ratingdb.reports.sql import READER_ROLE

log = logging.getLogger("ratingdb.web")


def read_only_engine(url: str) -> Engine:
    """An engine whose connections cannot write (see the module's docstring)."""
    parsed = db.parse_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_read_only(parsed.database or "")
    engine = db.make_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "postgresql":

        @event.listens_for(engine, "connect")
        def _pg_reader(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                cursor.execute(
                    "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = %s) "
                    "AND pg_has_role(session_user, %s, 'MEMBER')",
                    [READER_ROLE, READER_ROLE],
                )
                row = cursor.fetchone()
                if row is not None and row[0]:
                    cursor.execute(f"SET ROLE {READER_ROLE}")
                else:
                    log.warning(
                        "the login cannot become %s: public pages read as it, in READ ONLY transactions",
                        READER_ROLE,
                    )
            finally:
                cursor.close()
            dbapi_connection.commit()

    elif engine.dialect.name == "mysql":

        @event.listens_for(engine, "connect")
        def _mysql_reader(dbapi_connection: Any, _record: Any) -> None:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET SESSION TRANSACTION READ ONLY")

    return engine


def _sqlite_read_only(path: str) -> Engine:
    if path in ("", ":memory:"):
        raise ConfigError("the web app needs a SQLite database file, not an in-memory database")
    file = Path(path)
    if not file.is_file():
        raise ConfigError(
            f"the SQLite database {path} does not exist — check the path, or run `ratingdb init`"
        )
    uri = f"file:{quote(str(file.resolve()))}?mode=ro"

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, timeout=60, check_same_thread=False)

    # A pool of its own connections per thread (a plain "sqlite://" engine would share one per thread).
    engine = create_engine("sqlite://", creator=connect, poolclass=QueuePool, pool_size=8)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # BEGIN is ours (db.py says why)
        dbapi_connection.execute("PRAGMA query_only = ON")
        dbapi_connection.execute("PRAGMA foreign_keys = ON")
        dbapi_connection.create_function("ratingdb_migrating", 0, lambda: 0, deterministic=True)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN")

    return engine


class Database:
    """The engines of one app: the reader (the primary, or a standby) and, made when first needed, the
    primary for live ratings."""

    def __init__(self, url: str, read_url: str | None = None) -> None:
        self.url = url
        self.reader = read_only_engine(read_url or url)
        db.require_current_schema(self.reader)
        self._live: Engine | None = None
        self._writer: Engine | None = None
        self._lock = threading.Lock()

    @property
    def live(self) -> Engine:
        with self._lock:
            if self._live is None:
                self._live = db.make_engine(self.url, pool_pre_ping=True)
            return self._live

    @property
    def writer(self) -> Engine:
        with self._lock:
            if self._writer is None:
                self._writer = db.make_engine(self.url, pool_pre_ping=True)
            return self._writer

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction on the primary: committed when the block ends normally, rolled back otherwise."""
        with db.transaction(self.writer) as session:
            yield session

    @contextmanager
    def dry_run(self) -> Iterator[Session]:
        """A transaction on the primary that is always rolled back, its ID counters put back after it
        (db.transaction's dry_run, as every CLI --dry-run): the desk's checks of a file and its dry-run
        close, which must show what the real import or close will do, IDs included."""
        with db.transaction(self.writer, dry_run=True) as session:
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        with db.read_transaction(self.reader) as session:
            yield session

    @contextmanager
    def live_session(self) -> Iterator[Session]:
        """A transaction on the primary that is always rolled back (live ratings run the close in it)."""
        with db.session_factory(self.live)() as session:
            session.begin()
            try:
                yield session
            finally:
                session.rollback()

    def dispose(self) -> None:
        self.reader.dispose()
        for engine in (self._live, self._writer):
            if engine is not None:
                engine.dispose()
