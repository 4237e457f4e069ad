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

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, Select
from sqlalchemy.orm import Session

from ratingdb import db
from ratingdb.services.versions import data_version_query


def read_only_engine(url: str, *, in_event_loop: bool = False) -> Engine:
    """An engine whose connections cannot write (see the module's docstring; each backend's
    read_only_engine says how)."""
    return db.read_only_engine(url, in_event_loop=in_event_loop)


class Database(db.UnitOfWork):
    """The engines of one app: the reader (the primary, or a standby) and, made when first needed, the
    primary for live ratings and the desk's writes. The unit of work of the desk (db.UnitOfWork: its
    transactions and dry runs are on the primary), extended by the reader's reads and snapshots."""

    def __init__(self, url: str, read_url: str | None = None) -> None:
        super().__init__()
        self._url = url
        # How the public routes are answered (ratingdb.web.deps): in greenlets in the event loop, in its
        # reader_threads, or in the event loop itself.
        self.reader_backend = db.backend(read_url or url)
        self.in_greenlets = self.reader_backend.reader_in_greenlets
        # `plain` reads outside the public routes (the app's start, `Reader`); where the public routes
        # run in greenlets, `reader` is SQLAlchemy's asyncio engine, usable in them only.
        self.plain = read_only_engine(read_url or url)
        self.reader = (
            read_only_engine(read_url or url, in_event_loop=True) if self.in_greenlets else self.plain
        )
        db.require_current_schema(self.plain)
        self._live: Engine | None = None
        self._writer: Engine | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The primary's URL, as given (`--db`)."""
        return self._url

    @property
    def live(self) -> Engine:
        with self._lock:
            if self._live is None:
                self._live = db.make_engine(self._url, pool_pre_ping=True)
            return self._live

    @property
    def writer(self) -> Engine:
        with self._lock:
            if self._writer is None:
                self._writer = db.make_engine(self._url, pool_pre_ping=True)
            return self._writer

    @property
    def engine(self) -> Engine:
        """The unit of work's engine: the primary (`writer`)."""
        return self.writer

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction on the primary: committed when the block ends normally, rolled back otherwise
        (the unit of work's `transaction`). Its `dry_run` is always rolled back, its ID counters put back
        after it, as every CLI --dry-run: the desk's checks of a file and its dry-run close, which must
        show what the real import or close will do, IDs included."""
        with self.transaction() as session:
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read transaction on the reader (not the primary, as the unit of work's own `read`)."""
        with db.read_transaction(self.plain) as session:
            yield session

    @contextmanager
    def snapshot(self) -> Iterator[tuple[Session, int]]:
        """A read transaction and the data version it sees (ratingdb.reports.live.data_version), read as
        its first statement: on PostgreSQL in the same round trip as its BEGIN (db.read_snapshot)."""
        with db.read_snapshot(self.reader, data_version_query()) as found:
            yield found

    def row(self, query: Select[Any], params: Mapping[str, Any]) -> tuple[Any, ...]:
        """The one row of `query` on the reader, outside any transaction (db.read_row)."""
        return db.read_row(self.reader, query, params)

    def version(self) -> int:
        """The data version now (ratingdb.reports.live.data_version), read by one statement."""
        return int(self.row(data_version_query(), {})[0] or 0)

    @contextmanager
    def live_session(self) -> Iterator[Session]:
        """A transaction on the primary that is always rolled back (live ratings run the close in it)."""
        with db.session_factory(self.live)() as session:
            session.begin()
            try:
                yield session
            finally:
                session.rollback()

    def close(self) -> None:
        self.dispose()

    def dispose(self) -> None:
        self.plain.dispose()
        if self.reader is not self.plain:
            self.reader.dispose()
        for engine in (self._live, self._writer):
            if engine is not None:
                engine.dispose()
