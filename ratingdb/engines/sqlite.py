"""SQLite: one file, pysqlite, explicit BEGIN handling, the write lock from BEGIN IMMEDIATE.

Everything ratingdb does differently on SQLite is here: the URL forms, the connection's pragmas and
BEGIN, read-only connections for the web side, qmark placeholders, bulk writes in the foreground with
a larger page cache, ids after the highest one ever used, GLOB for numeric text, the sentences for
sqlite3's errors and the online backup. Imports the standard library, SQLAlchemy and ratingdb.errors at
the top; the rest of ratingdb only inside the operations that need it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from sqlalchemy import URL, Engine, String, bindparam, create_engine, event, func, select
from sqlalchemy.pool import QueuePool

from ratingdb.engines import adhoc
from ratingdb.engines.base import Backend, Rows, column_list
from ratingdb.engines.copies import private_file
from ratingdb.errors import ConfigError, RatingDbError

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement, Connection
    from sqlalchemy.orm import QueryableAttribute, Session

    from ratingdb.engines.copies import Backup

# SQLite's default page cache is 2 MiB; the close's index inserts (calc_game has three indexes and five
# foreign keys) and a list import's (player, version, name tokens, entry and their indexes: about 460
# bytes of pages a line) touch far more pages than that. A bulk write gets 256 MiB, then it is restored.
# A bound, not a size: a first FIDE list of 1.9 M lines writes about 0.9 GB of pages, and a cache sized to
# them (tried: 600 bytes a line) made memory grow with the file (233 → 1,143 MB) for no speed; with this
# bound the transaction's older pages spill to the WAL and memory stays flat (about 440 MB for the bench's
# process), and the CPU per line grows alike either way, spilled or not (bench/RESULTS.md, issue 32).
SQLITE_CACHE_KIB = 256 * 1024
# Rows of one multi-row INSERT of a bulk write (write_rows): within 5 % of 1,489 rows and faster than 2,500
# or 128 (thread CPU, 400,000 player and player_version rows), and a statement sqlite3 keeps stays small.
STATEMENT_ROWS = 512
READER_CACHE_KIB = 256  # page cache of each read-only connection of the web app (read_only_engine)

READ_ONLY = "ratingdb_read_only"  # execution option of a connection whose transactions only read

REPLACE_MESSAGE = "rows of {table} are never replaced: another row holds this key (no INSERT OR REPLACE)"

# `ratingdb sql`'s memory bounds on SQLite, whatever the query (beside adhoc.MAX_RESULT_BYTES): the longest
# value, the heap while the statement runs, the longest LIKE/GLOB pattern, and the width or precision of a
# printf() field (computed inside one function call, which neither the progress handler nor an interrupt
# can stop: printf('%.*c', 1000000000, 'x') ran 31 s).
SQLITE_MAX_VALUE_BYTES: Final = 10_000_000
SQLITE_HEAP_BYTES: Final = 512_000_000
SQLITE_MAX_PATTERN: Final = 1_000
PRINTF_MAX_WIDTH: Final = 100_000

# What a `ratingdb sql` read may do: read tables and views, call functions, recurse in CTEs; everything
# else (INSERT, UPDATE, DELETE, CREATE, DROP, ATTACH, PRAGMA writes, transactions) is denied.
_SQLITE_READS: Final = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
}
# fts3_tokenizer() hands out and takes raw pointers (a known exploit primitive); load_extension() loads code.
_SQLITE_DENIED_FUNCTIONS: Final = {"fts3_tokenizer", "load_extension"}
_SQLITE_READ_PRAGMAS: Final = {
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "database_list",
}


class SQLite(Backend):
    name = "sqlite"
    label = "SQLite"
    driver_scheme = "sqlite"
    placeholder = "?"
    in_one_file = True
    has_accounts = False
    # A batch is a few statements of many rows each (write_rows), which sqlite3 steps without the GIL: a
    # writer thread writes them while the caller goes on building the next batch. (An executemany takes
    # the GIL back for every row it binds, so a writer thread beside a busy caller would wait for the GIL
    # row by row.)
    background_writes = True
    # SQLite works in the process, and sqlite3 lets go of the interpreter's lock at every step of a
    # statement: each further thread answering pages only adds hand-overs of that lock (a player's page
    # cost 9 ms of CPU with sixteen threads against under 4 ms with one), and so does the one thread
    # beside the event loop (a player's JSON 1.35-1.46 ms of CPU in a thread, 0.99-1.06 ms in the loop;
    # bench/RESULTS.md, issue 28, "threads"). So the public routes run in the event loop, one at a time,
    # on one connection; more workers use more cores.
    reader_threads = 1
    reader_in_event_loop = True

    # -- URLs and engines ------------------------------------------------------------------------------

    def refuse_without_slashes(self, url: str, scheme: str, rest: str) -> None:
        path = rest.lstrip("/")
        absolute = "/" if rest.startswith("/") else ""
        raise ConfigError(
            f"{url} is not a SQLite URL — write sqlite:///{absolute}{path} "
            f"(three slashes before a relative path, four before an absolute one)"
        )

    def check_url(self, parsed: URL, rest: str) -> None:
        if parsed.host:  # sqlite://fed.sqlite: the file name was read as a host
            raise ConfigError(
                f"{parsed.drivername}://{rest} has two slashes, so '{parsed.host}' is read as a server — a "
                f"SQLite file is {parsed.drivername}:///{rest} (three slashes before a relative path, four "
                "before an absolute one)"
            )

    def create_engine(self, parsed: URL, **kwargs: Any) -> Engine:
        """Foreign keys, WAL and explicit BEGIN handling on every connection."""
        # check_same_thread off: the bulk driver's writer thread uses the transaction's own connection
        # (services/bulk.py), never at the same time as the thread that opened it.
        engine = create_engine(parsed, connect_args={"timeout": 60, "check_same_thread": False}, **kwargs)
        path = self.database_file(parsed)

        @event.listens_for(engine, "do_connect")
        def _private(*_: Any) -> None:
            if path is not None and not path.exists() and path.parent.is_dir():
                # SQLite would make it 0644, and its WAL as the database. A folder that cannot hold it
                # (not writable, /proc) is left to SQLite's own refusal, which the connection worded.
                with contextlib.suppress(OSError):
                    private_file(path)

        # pysqlite's own transaction handling breaks savepoints; take control of BEGIN ourselves.
        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys = ON")
            # Read by the alembic_version guard (migration 0010): 1 only while migrations/env.py migrates.
            dbapi_connection.create_function("ratingdb_migrating", 0, lambda: 0, deterministic=True)
            if engine.url.database not in (None, "", ":memory:"):
                cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.close()

        # IMMEDIATE: a writer takes the write lock at BEGIN, so two closes serialise instead of both
        # reading the same state and failing late on commit. A reader (read_transaction) takes no lock:
        # in WAL mode it reads one snapshot while writers go on.
        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            read_only = connection.get_execution_options().get(READ_ONLY, False)
            connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

        return engine

    def database_file(self, parsed: URL) -> Path | None:
        name = parsed.database or ""
        if name in ("", ":memory:") or name.startswith("file:"):
            return None
        return Path(name)

    def database_size(self, conn: Connection) -> int | None:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
        size = conn.exec_driver_sql("PRAGMA page_size").scalar()
        return int(pages) * int(size) if pages is not None and size is not None else None

    def holds_ratingdb(self, path: Path) -> bool:
        """A plain file holding a SQLite database with ratingdb's migration table: what `demo --force` may
        delete (never a link, a folder, a text file or another program's database)."""
        if path.is_symlink() or not path.is_file():
            return False
        with path.open("rb") as handle:
            if handle.read(16) != b"SQLite format 3\x00":
                return False
        try:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                found = conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                    "AND name IN ('alembic_version', 'rating_list')"
                ).fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            return False
        return len(found) == 2

    def read_only_engine(self, parsed: URL, *, in_event_loop: bool = False) -> Engine:
        """The file opened with `mode=ro` and `PRAGMA query_only`: no statement can write."""
        path = parsed.database or ""
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
        engine = create_engine(
            "sqlite://",
            creator=connect,
            poolclass=QueuePool,
            pool_size=self.reader_threads,
            max_overflow=0,
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # BEGIN is ours (create_engine says why)
            dbapi_connection.execute("PRAGMA query_only = ON")
            # Up to reader_threads of these connections are open at once: SQLite's default page cache (2 MiB
            # each) held about 75 MB of a worker's memory; the file's pages stay in the OS's cache.
            dbapi_connection.execute(f"PRAGMA cache_size = -{READER_CACHE_KIB}")
            dbapi_connection.execute("PRAGMA foreign_keys = ON")
            dbapi_connection.create_function("ratingdb_migrating", 0, lambda: 0, deterministic=True)

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            connection.exec_driver_sql("BEGIN")

        return engine

    # -- transactions and locks ------------------------------------------------------------------------

    def begin_read_only(self, connection: Connection) -> None:
        connection.execution_options(**{READ_ONLY: True})  # BEGIN, not BEGIN IMMEDIATE: no write lock

    def hold_lock(self, session: Session, key: str, wait_seconds: int) -> bool:
        return True  # the transaction holds the database's write lock from BEGIN IMMEDIATE already

    # -- raw SQL and bulk writes -----------------------------------------------------------------------

    def prepare_bulk(self, raw: Any) -> Callable[[], None] | None:
        cursor = raw.execute("PRAGMA cache_size")
        size = int(cursor.fetchall()[0][0])
        raw.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")

        def restore() -> None:
            raw.execute(f"PRAGMA cache_size = {size}")

        return restore

    def one_of(
        self, column: ColumnElement[Any] | QueryableAttribute[Any], values: Sequence[Any]
    ) -> ColumnElement[bool]:
        # One parameter, a JSON array, read by json_each: an IN list of a few thousand values costs
        # SQLAlchemy a name and a bind for each and sqlite3 a bind each (the import's lookups of the
        # players its files name). The values are whole numbers and texts, which JSON carries exactly
        # (non-ASCII text as itself, not as escapes).
        each = func.json_each(bindparam(None, json.dumps(list(values), ensure_ascii=False), String))
        return column.in_(select(each.table_valued("value").c.value))

    def write_rows(
        self, cursor: Any, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]],
        types: list[str] | None,
    ) -> None:  # fmt: skip
        """Multi-row `INSERT … VALUES (…), (…), …` statements: sqlite3 binds a statement's values at once
        and steps it without the GIL (an executemany takes the GIL back for every row it binds), and the
        values are bound as executemany binds them, exactly. Against the one `INSERT … SELECT
        json_extract(value, '$[i]') … FROM json_each(?)` a batch it replaces, a quarter less CPU for player
        and player_version rows (the JSON text made, then parsed again by SQLite row by row), and nothing
        JSON cannot carry to send another way.

        STATEMENT_ROWS rows a statement (fewer where SQLite takes fewer parameters), the rest in statements
        of a power of two rows: sqlite3 keeps every statement it prepared by its text (128 of them), and a
        batch of any length is written with at most ten texts a table instead of one more a batch.
        """
        width = len(columns)
        fits = cursor.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width
        most = 1 << (min(STATEMENT_ROWS, fits).bit_length() - 1)
        head = f"INSERT INTO {table} ({column_list(columns)}) VALUES "
        one = "(" + ", ".join(["?"] * width) + ")"
        start = 0
        while start < len(rows):
            size = min(most, 1 << ((len(rows) - start).bit_length() - 1))
            chunk = rows[start : start + size]
            cursor.execute(head + ", ".join([one] * size), [value for row in chunk for value in row])
            start += size

    def reserve_ids(self, rows: Rows, table: str, count: int) -> list[int]:
        # The write lock from BEGIN IMMEDIATE keeps the ids after the highest one free until the
        # transaction ends; AUTOINCREMENT tables never reuse the id of a deleted row: start after the
        # highest ever used.
        highest = int(rows(f"SELECT COALESCE(MAX(id), 0) FROM {table}", ())[0][0])
        used = rows("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
        highest = max(highest, int(used[0][0]) if used else 0)
        return list(range(highest + 1, highest + 1 + count))

    def numeric_text(self, column: str) -> str:
        return f"{column} <> '' AND {column} NOT GLOB '*[^0-9]*' AND length({column}) <= 18"

    # -- what a failure means --------------------------------------------------------------------------

    def where(self, parsed: URL) -> str:
        return f"the SQLite database {parsed.database}"

    def explain(self, message: str, parsed: URL, *, connecting: bool) -> RatingDbError | None:
        from ratingdb.db_errors import DatabaseUnavailable

        lower = message.lower()
        name = parsed.database or ":memory:"
        path = Path(name)
        if "unable to open database file" in lower:
            folder = path.parent
            if not folder.is_dir():
                return DatabaseUnavailable(
                    f"the folder {folder} for the SQLite database {name} does not exist — create it, or "
                    "give another path in the URL"
                )
            if not _writable(folder):
                return DatabaseUnavailable(
                    f"cannot open the SQLite database {name}: the folder {folder} is not writable — give a "
                    "file in a folder you can write to"
                )
            return DatabaseUnavailable(
                f"cannot open the SQLite database {name} — check the path and its permissions (the folder "
                "must be writable too)"
            )
        if "file is not a database" in lower or "file is encrypted" in lower:
            return DatabaseUnavailable(
                f"{name} is not a SQLite database — check the path in the URL "
                "(a new file name creates a database)"
            )
        if "readonly database" in lower or "read-only" in lower:
            return DatabaseUnavailable(
                f"the SQLite database {name} is read-only — it and its folder must be writable "
                "(ratingdb keeps a -wal file next to it)"
            )
        if "database is locked" in lower or "database is busy" in lower:
            return DatabaseUnavailable(
                f"the SQLite database {name} is busy: another program holds its write lock — try again "
                "when it has finished"
            )
        if "malformed" in lower:
            return DatabaseUnavailable(
                f"the SQLite database {name} is damaged — restore it from a backup (see "
                "docs/guide/backups.md)"
            )
        if "disk is full" in lower or "disk i/o error" in lower:
            return DatabaseUnavailable(
                f"cannot write the SQLite database {name}: the disk is full or failing — free space, then "
                "run the command again (nothing was written)"
            )
        return None

    # -- CHECK conditions (ratingdb/schema/checks.py composes them) ------------------------------------
    # SQLite stores any value in any column (a text in an INTEGER column, 300 characters in a VARCHAR(120)),
    # so its checks also state the type.

    def typed_integer(self, column: str) -> str | None:
        # SQLite keeps 2000.5 or 'x' in an INTEGER column as they are: the type is part of the rule here.
        return f"typeof({column}) = 'integer'"

    def typed_text(self, column: str) -> str | None:
        return f"typeof({column}) = 'text'"

    def character_length(self, column: str) -> str:
        return f"length({column})"  # SQLite has no CHAR_LENGTH; its LENGTH of a text counts characters

    def refuses_characters(self, column: str, ranges: Sequence[tuple[int, int]]) -> str:
        # GLOB reads a string up to its first NUL, so NUL is looked for on its own; SQLite defines no
        # REGEXP unless the application does (the sqlite3 shell may not), GLOB is built in. A text of
        # printable ASCII alone (no refused range reaches into it) is admitted by the first, cheap GLOB;
        # only other texts are matched against the class of every refused range, which SQLite decodes
        # character by character and costs about 1.5 µs a row (migration 0025).
        codes = []
        for low, high in ranges:
            low = max(low, 1)
            codes += [str(low)] if low == high else [str(low), "45", str(high)]  # 45 is '-'
        refused = f"{column} NOT GLOB '*[' || char({', '.join(codes)}) || ']*'"
        if any(low <= 0x7E and high >= 0x20 for low, high in ranges):
            return f"instr({column}, char(0)) = 0 AND {refused}"
        return f"instr({column}, char(0)) = 0 AND ({column} NOT GLOB '*[^ -~]*' OR {refused})"

    def is_one_of(self, column: str, values: Sequence[str]) -> str:
        # SQLite evaluates an IN list of constants through an ephemeral index built for every row (about
        # 1.7 µs a row for the 12 result codes); the same test as `=` … OR … costs about 0.1 µs.
        return "(" + " OR ".join(f"{column} = {value}" for value in values) + ")"

    def period_text(self, column: str) -> str:
        return f"{column} GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]' AND substr({column}, 6) BETWEEN '01' AND '12'"

    # -- `ratingdb sql` ----------------------------------------------------------------------------------

    def run_read_only(
        self, engine: Engine, statement: str, timeout: float, max_rows: int
    ) -> adhoc.QueryResult:
        """`PRAGMA query_only` and an authorizer that allows only reads on this connection, a transaction
        that is always rolled back, and a progress handler that stops the statement at the deadline;
        Python's sqlite3 refuses a second statement."""
        # Counted before anything is prepared, so a write followed by a second statement gets the same
        # answer as on PostgreSQL; sqlite3 itself would also refuse the second statement.
        if _statement_count(statement) > 1:
            raise adhoc.refused(adhoc.ONE_STATEMENT)
        deadline = time.monotonic() + timeout
        pooled = engine.raw_connection()
        try:
            conn: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
            conn.execute("PRAGMA query_only = ON")
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            conn.execute("BEGIN")  # one snapshot for the statement; never committed
            limits = {
                sqlite3.SQLITE_LIMIT_LENGTH: SQLITE_MAX_VALUE_BYTES,
                sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: SQLITE_MAX_PATTERN,
            }
            saved_limits = {limit: conn.setlimit(limit, value) for limit, value in limits.items()}
            # The heap limit is the process's: set for this statement only, and put back afterwards.
            (saved_heap,) = conn.execute(f"PRAGMA hard_heap_limit = {SQLITE_HEAP_BYTES}").fetchone()
            for name in ("printf", "format"):  # the built-in, with its field widths bounded
                conn.create_function(name, -1, _bounded_printf)
            conn.set_authorizer(_authorizer)
            # Called every 10,000 virtual-machine steps; a true value interrupts the statement.
            conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
            cursor: sqlite3.Cursor | None = None
            try:
                cursor = conn.execute(statement)
                described = cursor.description is not None
                rows = adhoc.fetch_bounded(adhoc.batches(cursor), max_rows) if described else []
                return adhoc.result(cursor.description, rows, max_rows)
            except sqlite3.ProgrammingError as exc:
                if "one statement at a time" in str(exc):
                    raise adhoc.refused(adhoc.ONE_STATEMENT) from None
                raise adhoc.refused(adhoc.first_line(exc)) from None
            except sqlite3.DatabaseError as exc:
                if str(exc) == "interrupted":
                    raise adhoc.stopped(timeout) from None
                if str(exc) in ("string or blob too big", "out of memory"):
                    raise adhoc.refused(
                        f"{exc} (ratingdb sql holds at most "
                        f"{SQLITE_MAX_VALUE_BYTES // 1_000_000} MB in one value and "
                        f"{SQLITE_HEAP_BYTES // 1_000_000} MB in all) — compute less in one query"
                    ) from None
                reason = adhoc.READ_ONLY if str(exc) == "not authorized" else adhoc.first_line(exc)
                if "user-defined function raised exception" in str(exc):  # _bounded_printf, the only one
                    reason = f"printf() widths and precisions above {PRINTF_MAX_WIDTH:,} are refused"
                raise adhoc.refused(reason) from None
            finally:
                if cursor is not None:
                    cursor.close()  # the statement is finalized: functions can be put back
                conn.set_progress_handler(None, 0)
                conn.set_authorizer(None)
                for name in ("printf", "format"):
                    conn.create_function(name, -1, None)  # the built-in again
                for limit, value in saved_limits.items():
                    conn.setlimit(limit, value)
                conn.execute(f"PRAGMA hard_heap_limit = {int(saved_heap)}")
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                conn.execute("PRAGMA query_only = OFF")
                conn.execute("PRAGMA busy_timeout = 60000")  # the engine's own (create_engine: timeout 60)
        finally:
            pooled.close()

    # -- backups ---------------------------------------------------------------------------------------

    def backup(self, parsed: URL, target: Path, *, force: bool, head: str | None) -> Backup:
        from ratingdb.engines.copies import refuse_target

        source = self.database_file(parsed)
        if source is None:
            return super().backup(parsed, target, force=force, head=head)
        refuse_target(target, force, database=source)
        return backup_file(source, target, head)

    # -- guards -----------------------------------------------------------------------------------

    def same(self, column: str) -> str:
        return f"NEW.{column} IS OLD.{column}"

    def refusal(self, message: str) -> str:
        return f"SELECT RAISE(ABORT, '{message}');"

    def versioned_guard(self, table: str, allowed: str, update_msg: str, delete_msg: str) -> list[str]:
        return [
            f"CREATE TRIGGER trg_{table}_versioned_update BEFORE UPDATE ON {table} WHEN NOT {allowed} "
            f"BEGIN {self.refusal(update_msg)} END",
            f"CREATE TRIGGER trg_{table}_versioned_delete BEFORE DELETE ON {table} "
            f"BEGIN {self.refusal(delete_msg)} END",
        ]

    def owned_versioned_guard(
        self, table: str, allowed: str, owned: str, update_msg: str, delete_msg: str
    ) -> list[str]:
        return [
            f"CREATE TRIGGER trg_{table}_versioned_update BEFORE UPDATE ON {table} WHEN NOT {allowed} "
            f"BEGIN {self.refusal(update_msg)} END",
            f"CREATE TRIGGER trg_{table}_versioned_delete BEFORE DELETE ON {table} WHEN {owned} "
            f"BEGIN {self.refusal(delete_msg)} END",
        ]

    def sealed_guard(
        self, table: str, parent: str, key: str, refuse_missing: bool, insert_msg: str, change_msg: str
    ) -> list[str]:
        sealed = self._sealed_parent(parent, key, refuse_missing)
        return [
            f"CREATE TRIGGER trg_{table}_sealed_insert BEFORE INSERT ON {table} WHEN {sealed} "
            f"BEGIN {self.refusal(insert_msg)} END",
            f"CREATE TRIGGER trg_{table}_sealed_update BEFORE UPDATE ON {table} "
            f"BEGIN {self.refusal(change_msg)} END",
            f"CREATE TRIGGER trg_{table}_sealed_delete BEFORE DELETE ON {table} "
            f"BEGIN {self.refusal(change_msg)} END",
        ]

    # SQLite's REPLACE conflict resolution (INSERT OR REPLACE, REPLACE INTO, and an UPSERT's REPLACE)
    # deletes the row that holds the key without firing its DELETE triggers unless the connection turned
    # `recursive_triggers` on, and no foreign-key check stops it when `foreign_keys` is off: the delete side
    # of every guard was open to it. A BEFORE INSERT trigger fires before any conflict is resolved, whatever
    # the pragmas, so it refuses an insert whose key (the primary key or any UNIQUE key) another row already
    # holds: an ordinary INSERT of such a row would fail anyway, and the REPLACE forms can no longer remove
    # anything. (`=` makes NULLs distinct, as SQLite's UNIQUE does: two withdrawn versions with is_current
    # NULL are no conflict.) MySQL's REPLACE fires DELETE triggers and PostgreSQL has no REPLACE (its ON
    # CONFLICT DO UPDATE fires UPDATE triggers), so this is SQLite's only.

    def no_replace(self, table: str, keys: Sequence[Sequence[str]]) -> list[str]:
        """A trigger refusing an INSERT into `table` whose value of any of `keys` (column tuples) exists."""
        held = " OR ".join(
            f"EXISTS (SELECT 1 FROM {table} WHERE " + " AND ".join(f"{c} = NEW.{c}" for c in key) + ")"
            for key in keys
        )
        return [
            f"CREATE TRIGGER trg_{table}_no_replace BEFORE INSERT ON {table} WHEN {held} "
            f"BEGIN {self.refusal(REPLACE_MESSAGE.format(table=table))} END"
        ]

    def drop_no_replace(self, table: str) -> list[str]:
        return [f"DROP TRIGGER trg_{table}_no_replace"]


# -- `ratingdb sql`: what its statements may do ---------------------------------------------------------


def _statement_count(statement: str) -> int:
    """How many statements the text holds, by SQLite's own tokenizer (quotes, comments, triggers)."""
    count, start = 0, 0
    for index, char in enumerate(statement):
        if char == ";" and sqlite3.complete_statement(statement[start : index + 1]):
            # An empty statement (";;", or only comments) is no statement.
            count += 1 if _strip_comments(statement[start:index]) else 0
            start = index + 1
    return count + (1 if _strip_comments(statement[start:]) else 0)


def _strip_comments(text: str) -> str:
    rest = text.strip()
    while rest.startswith(("--", "/*")):
        end = rest.find("\n") if rest.startswith("--") else rest.find("*/")
        rest = "" if end < 0 else rest[end + (1 if rest.startswith("--") else 2) :].strip()
    return rest


# One printf field: flags, width, precision (each a number or *), length, conversion.
_PRINTF_FIELD: Final = re.compile(r"%[-+ 0#,!]*(\*|[0-9]+)?(?:\.(\*|[0-9]+))?(?:ll|l)?(.)")


def _bounded_printf(*args: Any) -> Any:
    """SQLite's printf()/format(), refusing a width or precision above PRINTF_MAX_WIDTH."""
    if not args or not isinstance(args[0], str):
        return None if not args or args[0] is None else _builtin_printf(args)
    taken = 1
    for match in _PRINTF_FIELD.finditer(args[0]):
        for part in match.group(1, 2):
            if part == "*":
                value = args[taken] if taken < len(args) else 0
                taken += 1
            else:
                value = part or 0
            try:
                wide = abs(int(value)) > PRINTF_MAX_WIDTH
            except (TypeError, ValueError):
                wide = False
            if wide:
                raise ValueError(f"printf widths above {PRINTF_MAX_WIDTH:,} are refused by ratingdb sql")
        if match.group(3) != "%":
            taken += 1
    return _builtin_printf(args)


@cache
def _printf_connection() -> sqlite3.Connection:
    """Where the built-in printf still is (made on the first call, not when the module is imported)."""
    return sqlite3.connect(":memory:", check_same_thread=False)


def _builtin_printf(args: Sequence[Any]) -> Any:
    marks = ", ".join("?" * len(args))
    return _printf_connection().execute(f"SELECT printf({marks})", tuple(args)).fetchone()[0]


def _authorizer(action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if (arg2 or "").lower() in _SQLITE_DENIED_FUNCTIONS else sqlite3.SQLITE_OK
    if action in _SQLITE_READS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and arg1 in _SQLITE_READ_PRAGMAS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def backup_file(source: Path, target: Path, head: str | None) -> Backup:
    """A consistent copy while other connections read and write (sqlite3's online backup API), checked:
    `PRAGMA integrity_check` is ok and the schema is at `head`, the newest migration this ratingdb knows."""
    from ratingdb.engines.copies import Backup, BackupFailed

    if not source.is_file():
        raise ConfigError(f"the SQLite database {source} does not exist — check the path")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    private_file(partial)
    try:
        with _closing(sqlite3.connect(source, timeout=60)) as src:
            with _closing(sqlite3.connect(partial)) as dst:
                src.backup(dst)
                # A backup is one self-contained file: no -wal beside it.
                dst.execute("PRAGMA journal_mode = DELETE")
                _check_copy(dst, head)
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise BackupFailed(
            f"the backup of {source} failed: {exc} — nothing was written to {target}"
        ) from None
    finally:
        partial.unlink(missing_ok=True)
    return Backup(target, target.stat().st_size, f"SQLite backup API; integrity ok; migration {head}")


def _check_copy(copy: sqlite3.Connection, head: str | None) -> None:
    from ratingdb.engines.copies import BackupFailed

    verdict = [row[0] for row in copy.execute("PRAGMA integrity_check")]
    if verdict != ["ok"]:
        raise BackupFailed(
            f"the copy fails SQLite's integrity check ({verdict[0]}) — the database may be damaged"
        )
    try:
        (revision,) = copy.execute("SELECT version_num FROM alembic_version").fetchone() or (None,)
    except sqlite3.OperationalError:
        revision = None
    if revision != head:
        raise BackupFailed(
            f"the copy is at migration {revision or 'none'}, not {head} — run `ratingdb init` on the "
            "database first, or back it up with the ratingdb that wrote it"
        )


class _closing:
    """sqlite3 connections close on leaving the block (their own context manager only commits)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *_: object) -> None:
        self.conn.close()


def _writable(folder: Path) -> bool:
    # os.access says yes to root on a read-only mount: only trying tells.
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


BACKEND = SQLite()
