"""Bulk reads and writes of plain tuples through the session's own driver connection.

Used where row counts reach millions (the close, list imports): SQLAlchemy's ORM bulk paths cost more
than the database itself there. Inside the caller's transaction; never commits. No rules here.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Sequence
from contextlib import closing
from typing import Any, cast

from sqlalchemy.orm import Session

from ratingdb.services.rows import ListEntryRow

# SQLite's default page cache is 2 MiB; the close's index inserts (calc_game has three indexes and five
# foreign keys) touch far more pages than that. 256 MiB for the close only, then restored.
SQLITE_CACHE_KIB = 256 * 1024


# PyMySQL's multi-row INSERT size on MySQL/MariaDB (see Driver._write).
MYSQL_STATEMENT_BYTES = 2 * 1024 * 1024


# The column order of list_entry rows written in bulk (the close and list imports): services/rows.py.
LIST_ENTRY_COLUMNS = ListEntryRow._fields


class _Writer(threading.Thread):
    """Writes the batches handed to it, in order, on the caller's connection, while the caller goes on.

    The server drivers release the GIL while they wait for the server (psycopg while PostgreSQL takes
    the COPY, PyMySQL while MySQL runs the INSERT), so the caller's Python work and the server's writes
    overlap. The connection is never used by both at once: the caller drains the writer first.
    """

    def __init__(self, write: Any) -> None:
        super().__init__(name="ratingdb-writer", daemon=True)
        self.write = write
        self.jobs: queue.Queue[tuple[str, tuple[str, ...], list[tuple[Any, ...]]] | None] = queue.Queue(2)
        self.error: BaseException | None = None

    def run(self) -> None:
        while True:
            job = self.jobs.get()
            try:
                if job is None:
                    return
                if self.error is None:  # after a failure the rest is skipped: the caller rolls back
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
        self.dialect = connection.dialect.name
        self.raw: Any = cast(Any, connection.connection.driver_connection)
        self.pending: dict[str, tuple[tuple[str, ...], list[tuple[Any, ...]]]] = {}
        self.cache_size: int | None = None
        self.writer: _Writer | None = None
        # PostgreSQL: COPY in binary (the server parses no text), for callers whose values have exactly
        # the columns' types (bool for booleans, int for integers).
        self.binary = binary and self.dialect == "postgresql"
        self.copy_types: dict[str, list[str]] = {}
        if self.dialect == "sqlite":
            self.cache_size = int(self.rows("PRAGMA cache_size")[0][0])
            self.raw.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
        if background and self.dialect == "sqlite":
            # sqlite3 takes the GIL back for every row of an executemany (it binds the row's values), so
            # a writer thread beside a busy caller waits for the GIL row by row: written in the
            # foreground. The servers' drivers wait on the network for the server's work, GIL released.
            background = False
        if background:
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
        """Give the connection back as it came (the pool hands it to others), the writer stopped."""
        self.stop()
        if self.cache_size is not None:
            self.raw.execute(f"PRAGMA cache_size = {int(self.cache_size)}")

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a query written with `?` placeholders and return its rows as tuples."""
        sql = self._native(sql)  # first: the cursor is made once the writer is done with the connection
        with closing(self.raw.cursor()) as cursor:
            cursor.execute(sql, tuple(params))
            return cursor.fetchall()

    def _native(self, sql: str) -> str:
        """`sql` with the driver's placeholders, once the writes handed over so far are done."""
        self.drain()
        return sql if self.dialect == "sqlite" else sql.replace("?", "%s")

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """The condition "`column` is one of `values`" and its parameters, for `rows`.

        PostgreSQL gets one array parameter (`= ANY(?)`): ten thousand separate parameters cost it
        a quarter of a second a query to plan; the other engines get `IN (?, ?, …)`.
        """
        if self.dialect == "postgresql":
            return f"{column} = ANY(?)", [list(values)]
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)

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
            if self.dialect == "postgresql":
                # COPY is PostgreSQL's bulk path; the triggers and foreign keys still apply.
                binary = " (FORMAT BINARY)" if self.binary else ""
                types = self._copy_types(cursor, table, columns) if self.binary else None
                with cursor.copy(f"COPY {table} ({column_list(columns)}) FROM STDIN{binary}") as copy:
                    if types is not None:
                        copy.set_types(types)
                    for row in rows:
                        copy.write_row(row)
            elif self.dialect == "mysql":
                # PyMySQL sends an INSERT's executemany as multi-row INSERTs of up to max_stmt_length bytes
                # each; one statement per MYSQL_STATEMENT_BYTES keeps the round trips few and stays well
                # under the server's max_allowed_packet (16 MiB by default, 4 MiB at the least).
                # Not LOAD DATA LOCAL INFILE, though faster: it turns duplicate keys and bad values into
                # warnings (IGNORE semantics), so a bug would drop rows silently (engines.md).
                cursor.max_stmt_length = MYSQL_STATEMENT_BYTES
                marks = ", ".join(["%s"] * len(columns))
                cursor.executemany(f"INSERT INTO {table} ({column_list(columns)}) VALUES ({marks})", rows)
            else:
                marks = ", ".join("?" * len(columns))
                cursor.executemany(f"INSERT INTO {table} ({column_list(columns)}) VALUES ({marks})", rows)
        finally:
            cursor.close()

    def _copy_types(self, cursor: Any, table: str, columns: tuple[str, ...]) -> list[str]:
        """The PostgreSQL type names of `columns` of `table`, as binary COPY needs them (read once)."""
        key = f"{table}({','.join(columns)})"
        if key not in self.copy_types:
            cursor.execute(
                "SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
                "WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped",
                (table,),
            )
            names = dict(cursor.fetchall())
            self.copy_types[key] = [names[column] for column in columns]
        return self.copy_types[key]

    def write(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        """Write `rows` now (executemany on SQLite, COPY on PostgreSQL, multi-row INSERTs on MySQL)."""
        self.drain()
        if rows:
            self._write(table, columns, rows)

    def reserve_ids(self, table: str, count: int) -> list[int]:
        """`count` new ids for rows of `table` written with explicit ids (rows that refer to each other).

        PostgreSQL draws them from the table's sequence; SQLite holds the write lock from BEGIN
        IMMEDIATE, so the ids after the highest one ever used are free until the transaction ends.
        """
        if count <= 0:
            return []
        self.drain()
        if self.dialect == "postgresql":
            sequence = f"pg_get_serial_sequence('{table}', 'id')"
            rows = self.rows(f"SELECT nextval({sequence}) FROM generate_series(1, ?)", (count,))
            return [int(r[0]) for r in rows]
        highest = int(self.rows(f"SELECT COALESCE(MAX(id), 0) FROM {table}")[0][0])
        if self.dialect == "sqlite":
            # AUTOINCREMENT tables never reuse the id of a deleted row: start after the highest ever.
            used = self.rows("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
            highest = max(highest, int(used[0][0]) if used else 0)
        return list(range(highest + 1, highest + 1 + count))

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


def column_list(columns: tuple[str, ...]) -> str:
    """Column names for raw SQL, quoted: `change` is a reserved word in MySQL (ANSI_QUOTES is on there)."""
    return ", ".join(f'"{column}"' for column in columns)


def chunks(items: list[int], size: int) -> Iterable[list[int]]:
    """`items` in slices of at most `size` (the ids of one `IN (…)` list each)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
