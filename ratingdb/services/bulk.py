"""Bulk reads and writes of plain tuples through the session's own driver connection.

Used where row counts reach millions (the close, list imports): SQLAlchemy's ORM bulk paths cost more
than the database itself there. Inside the caller's transaction; never commits. No rules here. How each
engine writes in bulk, reserves ids and spells placeholders is its backend's (ratingdb.engines): the
callers write SQL with `?` placeholders and name operations.
"""

from __future__ import annotations

import gc
import queue
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any, cast

from sqlalchemy.orm import Session

from ratingdb import engines
from ratingdb.services.rows import ListEntryRow

# The column order of list_entry rows written in bulk (the close and list imports): services/rows.py.
LIST_ENTRY_COLUMNS = ListEntryRow._fields


class _Writer(threading.Thread):
    """Writes the batches handed to it, in order, on the caller's connection, while the caller goes on.

    The drivers release the GIL while the database works (psycopg while PostgreSQL takes the COPY,
    PyMySQL while MySQL runs the INSERT, sqlite3 while SQLite steps a batch's one statement), so the
    caller's Python work and the database's writes overlap. The connection is never used by both at
    once: the caller drains the writer first. Once `cancelled`, the batches still queued are dropped
    (the transaction is being rolled back): nothing is written after the caller stopped waiting.
    """

    def __init__(self, write: Any) -> None:
        super().__init__(name="ratingdb-writer", daemon=True)
        self.write = write
        self.jobs: queue.Queue[tuple[str, tuple[str, ...], list[tuple[Any, ...]]] | None] = queue.Queue(2)
        self.error: BaseException | None = None
        self.cancelled = False

    def run(self) -> None:
        while True:
            job = self.jobs.get()
            try:
                if job is None:
                    return
                # After a failure or a cancel the rest is skipped: the caller rolls back.
                if self.error is None and not self.cancelled:
                    self.write(*job)
            except BaseException as exc:  # handed to the caller by drain()
                self.error = exc
            finally:
                self.jobs.task_done()


class Driver:
    """The session's own driver connection, for reads and writes of plain tuples in its transaction.

    With `background`, `flush` hands full buffers to a writer thread and returns at once; every other
    use of the connection waits for the writes handed over so far (`drain`). A caller that also uses
    the session itself calls `drain` first.
    """

    BATCH = 50_000

    def __init__(self, session: Session, *, background: bool = False, binary: bool = False) -> None:
        connection = session.connection()
        self.engine = engines.of(connection)
        self.raw: Any = cast(Any, connection.connection.driver_connection)
        self.pending: dict[str, tuple[tuple[str, ...], list[tuple[Any, ...]]]] = {}
        self.writer: _Writer | None = None
        # Binary bulk writes (PostgreSQL's COPY: the server parses no text), for callers whose values have
        # exactly the columns' types (bool for booleans, int for integers).
        self.binary = binary and self.engine.binary_copy
        self.copy_types: dict[str, list[str]] = {}
        self.put_back = self.engine.prepare_bulk(self.raw)
        if background and self.engine.background_writes:
            self.writer = _Writer(self._write)
            self.writer.start()

    def drain(self) -> None:
        """Wait until every batch handed to the writer is written; raise the writer's error, if any."""
        if self.writer is None:
            return
        self.writer.jobs.join()
        if self.writer.error is not None:
            error, self.writer.error = self.writer.error, None
            self.stop()
            raise error

    def stop(self) -> None:
        if self.writer is not None:
            writer, self.writer = self.writer, None
            writer.jobs.put(None)
            writer.join()

    def restore(self) -> None:
        """Give the connection back as it came (the pool hands it to others), the writer stopped.

        Called on the way out (`finally`). Without an exception on its way, every batch handed over is
        written first and a failed one raised, so that no transaction commits without it; with one (an
        error, Ctrl-C), the batches not yet begun are dropped and the one being written is waited for, so
        that the rollback that follows finds the connection idle and undoes it with the rest.
        """
        try:
            if self.writer is not None:
                if sys.exc_info()[0] is None:
                    self.drain()
                else:
                    self.writer.cancelled = True
        finally:
            self.stop()
            if self.put_back is not None:
                put_back, self.put_back = self.put_back, None
                put_back()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a query written with `?` placeholders and return its rows as tuples."""
        sql = self._native(sql)  # first: the cursor is made once the writer is done with the connection
        with closing(self.raw.cursor()) as cursor:
            cursor.execute(sql, tuple(params))
            return cursor.fetchall()

    def _native(self, sql: str) -> str:
        """`sql` with the driver's placeholders, once the writes handed over so far are done."""
        self.drain()
        return self.engine.native(sql)

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """The condition "`column` is one of `values`" and its parameters, for `rows` (`IN (?, ?, …)`, or
        one array parameter where the engine plans that faster)."""
        return self.engine.among(column, values)

    def buffer(self, table: str, columns: tuple[str, ...]) -> list[tuple[Any, ...]]:
        """A list to append rows of `table` to; `flush` writes what it holds (callers check its size)."""
        batch: list[tuple[Any, ...]] = []
        self.pending[table] = (columns, batch)
        return batch

    def add(self, table: str, rows: Iterable[tuple[Any, ...]]) -> None:
        """Append rows to the buffer of `table` (made by `buffer`), written by the next `flush`."""
        self.pending[table][1].extend(rows)

    def flush(self) -> None:
        for name, (columns, batch) in self.pending.items():
            if not batch:
                continue
            if self.writer is None:
                self._write(name, columns, batch)
            else:
                if self.writer.error is not None:
                    self.drain()  # raises it
                self.writer.jobs.put((name, columns, batch[:]))
            batch.clear()

    def _write(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        cursor = self.raw.cursor()
        try:
            types = self._copy_types(cursor, table, columns) if self.binary else None
            self.engine.write_rows(cursor, table, columns, rows, types)
        finally:
            cursor.close()

    def _copy_types(self, cursor: Any, table: str, columns: tuple[str, ...]) -> list[str]:
        """The engine's type names of `columns` of `table`, as a binary bulk write needs them (read once)."""
        key = f"{table}({','.join(columns)})"
        if key not in self.copy_types:
            self.copy_types[key] = self.engine.column_types(cursor, table, columns)
        return self.copy_types[key]

    def queue(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        """Write `rows` after what was handed over before: on the writer thread where there is one (it
        returns at once, and a failure is raised at the next use of the connection), else now. The
        caller does not change `rows` afterwards."""
        if not rows:
            return
        if self.writer is None:
            self._write(table, columns, rows)
            return
        if self.writer.error is not None:
            self.drain()  # raises it
        self.writer.jobs.put((table, columns, rows))

    def write(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        """Write `rows` now (the engine's bulk path: executemany, COPY, multi-row INSERTs)."""
        self.drain()
        if rows:
            self._write(table, columns, rows)

    def reserve_ids(self, table: str, count: int) -> list[int]:
        """`count` new ids for rows of `table` written with explicit ids (rows that refer to each other),
        free until the transaction ends (each backend's reserve_ids says why)."""
        if count <= 0:
            return []
        self.drain()
        return self.engine.reserve_ids(self.rows, table, count)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement written with `?` placeholders; the number of rows it changed."""
        sql = self._native(sql)
        with closing(self.raw.cursor()) as cursor:
            cursor.execute(sql, tuple(params))
            return int(cursor.rowcount)

    def execute_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """executemany of a statement written with `?` placeholders (an UPDATE, say)."""
        if not rows:
            return
        sql = self._native(sql)
        with closing(self.raw.cursor()) as cursor:
            cursor.executemany(sql, rows)


def chunks(items: list[int], size: int) -> Iterable[list[int]]:
    """`items` in slices of at most `size` (the ids of one `IN (…)` list each)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """CPython's cycle collector off while work that makes millions of short-lived containers runs (a
    list import's rows, the live list's calculation): it would scan the live ones after every 700 new
    ones and find no cycles to free. Collection resumes after; a caller that had it off keeps it off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
