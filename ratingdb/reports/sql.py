"""Ad-hoc SQL in a read-only transaction that is always rolled back, on SQLite, PostgreSQL and MySQL.

Takes an Engine (it needs the driver connection to make it read-only); no ORM models, no CLI imports.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ratingdb.errors import ConfigError
from ratingdb.reports.sql_refusals import (
    MAX_RESULT_BYTES,
    ONE_STATEMENT,
    READ_ONLY,
    StatementRefused,
    batches,
    fetch_bounded,
    stopped,
    too_large,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine  # only a type here: the CLI imports this module for its defaults


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    # More rows than max_rows: `rows` holds the first max_rows of them.
    truncated: bool = False


DEFAULT_TIMEOUT: Final = 5.0  # seconds a statement may run, or wait for a lock
DEFAULT_MAX_ROWS: Final = 10_000
# Memory bounds, whatever the query: the text and blob values fetched (MAX_RESULT_BYTES, all rows
# together), and on SQLite the longest value, the heap while the statement runs, the longest LIKE/GLOB
# pattern, and the width or precision of a printf() field (computed inside one function call, which
# neither the progress handler nor an interrupt can stop: printf('%.*c', 1000000000, 'x') ran 31 s).
SQLITE_MAX_VALUE_BYTES: Final = 10_000_000
SQLITE_HEAP_BYTES: Final = 512_000_000
SQLITE_MAX_PATTERN: Final = 1_000
PRINTF_MAX_WIDTH: Final = 100_000
PG_WORK_MEM: Final = "16MB"
# Made by the sql_reader migration on PostgreSQL: a NOLOGIN role with SELECT on this database's tables
# and views, and a SECURITY DEFINER function owned by it that runs one query with the role's rights only.
READER_ROLE: Final = "ratingdb_reader"
READER_FUNCTION: Final = "ratingdb_read_only"

# What a read may do on SQLite: read tables and views, call functions, recurse in CTEs; everything
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
# Server roles whose rights reach past the database: files, programs, replication, other sessions.
_PG_DANGEROUS_ROLES: Final = (
    "pg_execute_server_program",
    "pg_read_server_files",
    "pg_write_server_files",
    "pg_signal_backend",
)


def run_read_only(
    engine: Engine,
    statement: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> QueryResult:
    """Run one statement read-only and return its first `max_rows` rows; a write or a second statement
    is refused, and a statement running (or waiting for a lock) longer than `timeout` seconds is stopped.

    PostgreSQL: a READ ONLY transaction, always rolled back, with statement_timeout and lock_timeout; the
    query runs inside the function ratingdb_read_only, owned by the role ratingdb_reader, so it has that
    role's rights only (SELECT on ratingdb's tables and views) — and, being SECURITY DEFINER, it cannot
    SET ROLE back to the connecting role. Without that function a superuser or a role that reaches the
    server's files or programs is refused; any other role runs the query as itself.
    SQLite: `PRAGMA query_only` and an authorizer that allows only reads on this connection, a
    transaction that is always rolled back, and a progress handler that stops the statement at the
    deadline; Python's sqlite3 refuses a second statement.
    MySQL: statement checks, then a READ ONLY transaction with a statement time limit, always rolled
    back (sql_mysql.py says why the checks are needed there).
    Rows are fetched as a stream: at most max_rows + 1 of them are ever held.
    """
    if not statement.strip():
        raise ConfigError('no SQL given: write one statement, e.g. "SELECT * FROM v_current_list"')
    if timeout <= 0 or max_rows < 1:
        raise ConfigError("--timeout must be above 0 seconds and --max-rows at least 1")
    dialect = engine.dialect.name
    if dialect == "sqlite":
        return _sqlite(engine, statement, timeout, max_rows)
    if dialect == "postgresql":
        return _postgresql(engine, statement, timeout, max_rows)
    if dialect == "mysql":
        return _mysql(engine, statement, timeout, max_rows)
    raise ConfigError(f"ratingdb sql supports SQLite, PostgreSQL and MySQL, not {dialect}")


def _sqlite_statement_count(statement: str) -> int:
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


def _sqlite(engine: Engine, statement: str, timeout: float, max_rows: int) -> QueryResult:
    # Counted before anything is prepared, so a write followed by a second statement gets the same
    # answer as on PostgreSQL; sqlite3 itself would also refuse the second statement.
    if _sqlite_statement_count(statement) > 1:
        raise StatementRefused(f"the database refused the statement: {ONE_STATEMENT}")
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
        conn.set_authorizer(_sqlite_authorizer)
        # Called every 10,000 virtual-machine steps; a true value interrupts the statement.
        conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
        cursor: sqlite3.Cursor | None = None
        try:
            cursor = conn.execute(statement)
            rows = fetch_bounded(batches(cursor), max_rows) if cursor.description is not None else []
            return _result(cursor.description, rows, max_rows)
        except sqlite3.ProgrammingError as exc:
            if "one statement at a time" in str(exc):
                raise StatementRefused(f"the database refused the statement: {ONE_STATEMENT}") from None
            raise StatementRefused(f"the database refused the statement: {_first_line(exc)}") from None
        except sqlite3.DatabaseError as exc:
            if str(exc) == "interrupted":
                raise stopped(timeout) from None
            if str(exc) in ("string or blob too big", "out of memory"):
                raise StatementRefused(
                    f"the database refused the statement: {exc} (ratingdb sql holds at most "
                    f"{SQLITE_MAX_VALUE_BYTES // 1_000_000} MB in one value and "
                    f"{SQLITE_HEAP_BYTES // 1_000_000} MB in all) — compute less in one query"
                ) from None
            reason = READ_ONLY if str(exc) == "not authorized" else _first_line(exc)
            if "user-defined function raised exception" in str(exc):  # _bounded_printf, the only one
                reason = f"printf() widths and precisions above {PRINTF_MAX_WIDTH:,} are refused"
            raise StatementRefused(f"the database refused the statement: {reason}") from None
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
            conn.execute("PRAGMA busy_timeout = 60000")  # the engine's own (db.make_engine)
    finally:
        pooled.close()


# One printf field: flags, width, precision (each a number or *), length, conversion.
_PRINTF_FIELD: Final = re.compile(r"%[-+ 0#,!]*(\*|[0-9]+)?(?:\.(\*|[0-9]+))?(?:ll|l)?(.)")
_PRINTF = sqlite3.connect(":memory:", check_same_thread=False)  # where the built-in printf still is


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


def _builtin_printf(args: Sequence[Any]) -> Any:
    marks = ", ".join("?" * len(args))
    return _PRINTF.execute(f"SELECT printf({marks})", tuple(args)).fetchone()[0]


def _sqlite_authorizer(
    action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None
) -> int:
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if (arg2 or "").lower() in _SQLITE_DENIED_FUNCTIONS else sqlite3.SQLITE_OK
    if action in _SQLITE_READS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and arg1 in _SQLITE_READ_PRAGMAS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


# Who is connected, and whether the reader function is there, owned by a harmless ratingdb_reader,
# and callable by this login. The owner is checked too: a function that ended up owned by anyone else
# would run the query with that owner's rights.
def _pg_reaches_server(role: str) -> str:
    """SQL true when `role` (a pg_roles alias) reaches past the database: files, programs, sessions."""
    names = ", ".join(f"'{name}'" for name in _PG_DANGEROUS_ROLES)
    return (
        f"({role}.rolsuper OR {role}.rolreplication OR EXISTS (SELECT FROM unnest(ARRAY[{names}]) AS d(name) "
        f"WHERE pg_has_role({role}.oid, d.name, 'MEMBER')))"
    )


# Who is connected, and whether the reader function is there, owned by a harmless ratingdb_reader,
# SECURITY DEFINER, and callable by this login. The owner is checked too: a function that ended up
# owned by anyone else would run the query with that owner's rights. Last: whether the function is set
# up at all (SECURITY DEFINER, owned by the reader), whoever may call it — `init` repairs it if not.
_PG_WHO: Final = f"""
SELECT r.rolname, {_pg_reaches_server("r")},
       COALESCE(f.set_up AND f.callable, FALSE), COALESCE(f.set_up, FALSE)
FROM pg_roles r LEFT JOIN LATERAL (
  SELECT p.prosecdef AND o.rolname = '{READER_ROLE}' AND NOT {_pg_reaches_server("o")} AS set_up,
         has_function_privilege(p.oid, 'EXECUTE') AS callable
  FROM pg_proc p JOIN pg_roles o ON o.oid = p.proowner
  WHERE p.oid = to_regprocedure('{READER_FUNCTION}(text)')
) f ON TRUE
WHERE r.rolname = session_user
"""


def _postgresql(engine: Engine, statement: str, timeout: float, max_rows: int) -> QueryResult:
    import psycopg
    from psycopg import sql as pgsql

    pooled = engine.raw_connection()
    try:
        conn: psycopg.Connection[Any] = pooled.driver_connection  # type: ignore[assignment]
        conn.rollback()
        try:
            with conn.cursor() as cursor:
                cursor.execute("SET TRANSACTION READ ONLY")
                milliseconds = str(max(1, round(timeout * 1000)))
                # work_mem bounds each sort and hash of the query in memory (beyond it they spill to disk,
                # which the statement time limit bounds).
                cursor.execute(
                    "SELECT set_config('statement_timeout', %s, true), set_config('lock_timeout', %s, true), "
                    "set_config('work_mem', %s, true)",
                    [milliseconds, milliseconds, PG_WORK_MEM],
                )
                login, dangerous, reader, set_up = cursor.execute(_PG_WHO).fetchone() or (
                    "",
                    True,
                    False,
                    False,
                )
                if dangerous and not set_up:
                    # The function is missing or owned by another role: a restore with --no-owner does that.
                    raise StatementRefused(
                        f"ratingdb sql will not run as {login}: that role reaches the server's files, "
                        f"programs or sessions, and this database has no usable {READER_ROLE} role to run "
                        "the query as (as after pg_restore --no-owner) — run `ratingdb init` to restore it, "
                        "or connect as a reporting role (docs/operations/security.md)"
                    )
                if dangerous and not reader:
                    raise StatementRefused(
                        f"ratingdb sql will not run as {login}: that role reaches the server's files, "
                        f"programs or sessions, and this database has no usable {READER_ROLE} role to run "
                        "the query as — connect as a reporting role instead (docs/operations/security.md)"
                    )
                columns, types = _pg_describe(conn, statement, timeout)
                if not columns:
                    # INSERT, DROP, SET, DO, COPY …: no rows to show, so nothing to run.
                    raise StatementRefused(f"the database refused the statement: {READ_ONLY}")
                names = [pgsql.Identifier(f"c{i}") for i in range(len(types))]
                if reader:
                    definitions = pgsql.SQL(", ").join(
                        pgsql.SQL("{} {}").format(name, pgsql.SQL(t))
                        for name, t in zip(names, types, strict=True)
                    )
                    source = pgsql.SQL("{}(%s) AS t({})").format(
                        pgsql.Identifier(READER_FUNCTION), definitions
                    )
                    query, params = _pg_bounded(source, names), [statement]
                else:
                    query, params = _pg_bounded_statement(conn, statement, names), None
                # stream(): the extended protocol (one statement only) and one row at a time, so at most
                # one row beyond MAX_RESULT_BYTES is ever held; leaving the loop early cancels the rest.
                stream: Any = cursor.stream(query, params)
                try:
                    rows = fetch_bounded(_pg_rows(stream, bounded=query is not statement), max_rows)
                finally:
                    stream.close()  # cancels the rest on the server, also when the result is refused
                return _result([(c,) for c in columns], rows, max_rows)
        except psycopg.errors.QueryCanceled:
            raise stopped(timeout) from None
        except psycopg.errors.LockNotAvailable:
            raise stopped(timeout) from None
        except psycopg.Error as exc:
            message = exc.diag.message_primary or _first_line(exc)
            if "multiple commands" in message:
                message = ONE_STATEMENT
            raise StatementRefused(f"the database refused the statement: {message}") from None
        finally:
            conn.rollback()
    finally:
        # A query can leave session state behind (an advisory lock taken with pg_advisory_lock, a
        # prepared statement): the connection is closed rather than returned to the pool.
        pooled.invalidate()
        pooled.close()


def _pg_bounded(source: Any, names: list[Any]) -> Any:
    """The query that runs `source` (a FROM item whose columns are `names`) and sends no row whose values
    take more than MAX_RESULT_BYTES on the server: such a row comes as NULLs with its last column true,
    and is refused (`SELECT repeat('x', 1000000000)` is computed within the time limit, never sent)."""
    from psycopg import sql as pgsql

    sizes = pgsql.SQL(" + ").join(pgsql.SQL("COALESCE(pg_column_size(t.{}), 0)").format(n) for n in names)
    shown = pgsql.SQL(", ").join(
        pgsql.SQL("CASE WHEN s.too_large THEN NULL ELSE t.{} END").format(n) for n in names
    )
    return pgsql.SQL(
        "SELECT {}, s.too_large FROM {} CROSS JOIN LATERAL (SELECT {}::bigint > {} AS too_large) AS s"
    ).format(shown, source, sizes, pgsql.Literal(MAX_RESULT_BYTES))


def _pg_bounded_statement(conn: Any, statement: str, names: list[Any]) -> Any:
    """Without the reader function: the statement as a subquery, bounded as by _pg_bounded; the statement
    itself if it cannot be one (SHOW, EXPLAIN: no value of theirs can be large)."""
    from psycopg import pq
    from psycopg import sql as pgsql

    body = statement.rstrip().rstrip(";")
    # OFFSET 0 keeps the planner from pulling the statement up into the outer query, which would copy a
    # constant value (repeat('x', 100000000) folded at plan time) once per reference to it.
    source = pgsql.SQL("(SELECT * FROM ({}\n) AS u OFFSET 0) AS t({})").format(
        pgsql.SQL(body), pgsql.SQL(", ").join(names)
    )
    query = _pg_bounded(source, names)
    conn.execute("SAVEPOINT ratingdb_bounded")
    prepared = conn.pgconn.prepare(b"", query.as_string(conn).encode(conn.info.encoding))
    if prepared.status == pq.ExecStatus.COMMAND_OK:
        return query
    conn.execute("ROLLBACK TO SAVEPOINT ratingdb_bounded")  # the time limits set in the transaction stay
    return statement


def _pg_rows(stream: Iterator[Any], *, bounded: bool) -> Iterator[Sequence[Any]]:
    """Batches of one row for fetch_bounded, the bounded query's too_large column checked and dropped."""
    for row in stream:
        if bounded:
            if row[-1]:
                raise too_large()
            row = row[:-1]
        yield [row]


def _mysql(engine: Engine, statement: str, timeout: float, max_rows: int) -> QueryResult:
    from ratingdb.reports import sql_mysql

    pooled = engine.raw_connection()
    try:
        description, rows = sql_mysql.run(pooled.driver_connection, statement, timeout, max_rows)
        return _result(description, rows, max_rows)
    finally:
        # As on PostgreSQL: the session's settings (the time limit) and any rows left unread go with the
        # connection, which is closed rather than returned to the pool.
        pooled.invalidate()
        pooled.close()


def _pg_describe(conn: Any, statement: str, timeout: float) -> tuple[list[str], list[str]]:
    """The result columns of `statement` and their SQL types, from the server's parse (nothing runs).

    A text with two statements cannot be prepared: the server refuses it here. Parsing takes the
    tables' share locks, so a table locked by another command can already stop the statement here.
    """
    from psycopg import pq

    pgconn = conn.pgconn
    encoding = conn.info.encoding
    prepared = pgconn.prepare(b"", statement.encode(encoding))
    if prepared.status != pq.ExecStatus.COMMAND_OK:
        raise _pg_error(prepared, encoding, timeout)
    described = pgconn.describe_prepared(b"")
    if described.status != pq.ExecStatus.COMMAND_OK:
        raise _pg_error(described, encoding, timeout)
    count = described.nfields
    names = [(described.fname(i) or b"").decode(encoding) for i in range(count)]
    oids = [described.ftype(i) for i in range(count)]
    mods = [described.fmod(i) for i in range(count)]
    if not count:
        return [], []
    with conn.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(t.oid, t.mod), y.typtype = 'p' "
            "FROM unnest(%s::oid[], %s::int[]) WITH ORDINALITY AS t(oid, mod, n) "
            "JOIN pg_type y ON y.oid = t.oid ORDER BY t.n",
            [oids, mods],
        )
        described_types = cursor.fetchall()
    for name, (type_name, pseudo) in zip(names, described_types, strict=True):
        if pseudo:  # void (pg_sleep), record (ROW(...)): no value a column can carry
            raise StatementRefused(
                f'the database refused the statement: column "{name}" is of type {type_name}, which has no '
                "value to show — select a value instead (e.g. pg_sleep(1) IS NULL)"
            )
    return names, [type_name for type_name, _ in described_types]


def _pg_error(result: Any, encoding: str, timeout: float) -> StatementRefused:
    from psycopg import pq

    # 57014 query_canceled (statement_timeout), 55P03 lock_not_available (lock_timeout)
    if result.error_field(pq.DiagnosticField.SQLSTATE) in (b"57014", b"55P03"):
        return stopped(timeout)
    raw = result.error_field(pq.DiagnosticField.MESSAGE_PRIMARY) or result.error_message or b""
    message = raw.decode(encoding, "replace").strip().splitlines()[0] if raw.strip() else "error"
    if "multiple commands" in message:
        message = ONE_STATEMENT
    return StatementRefused(f"the database refused the statement: {message}")


def _result(description: Any, rows: list[Any], max_rows: int = DEFAULT_MAX_ROWS) -> QueryResult:
    if description is None:
        return QueryResult([], [])
    # Booleans as SQLite stores them (0/1), so one query prints the same on both engines.
    return QueryResult(
        [d[0] for d in description],
        [tuple(int(v) if isinstance(v, bool) else v for v in row) for row in rows[:max_rows]],
        truncated=len(rows) > max_rows,
    )


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
