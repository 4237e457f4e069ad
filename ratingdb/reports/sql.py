"""Ad-hoc SQL in a read-only transaction that is always rolled back, on SQLite, PostgreSQL and MySQL.

Takes an Engine (it needs the driver connection to make it read-only); no ORM models, no CLI imports.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Engine

from ratingdb.errors import ConfigError, RatingDbError


class StatementRefused(RatingDbError):
    """The database refused an ad-hoc statement: a write, several statements, or an error in the SQL."""


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]


# What a read may do on SQLite: read tables and views, call functions, recurse in CTEs; everything
# else (INSERT, UPDATE, DELETE, CREATE, DROP, ATTACH, PRAGMA writes, transactions) is denied.
_SQLITE_READS: Final = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
}
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
ONE_STATEMENT: Final = "only one statement at a time (the text holds more than one)"
READ_ONLY: Final = "not authorized: ratingdb sql only reads"


def run_read_only(engine: Engine, statement: str) -> QueryResult:
    """Run one statement read-only and return its rows; a write or a second statement is refused.

    PostgreSQL: a READ ONLY transaction, the statement sent as a prepared statement (the server parses
    it, and a prepared statement cannot hold two commands), always rolled back.
    SQLite: `PRAGMA query_only` and an authorizer that allows only reads on this connection, a
    transaction that is always rolled back; Python's sqlite3 refuses a second statement.
    MySQL: statement checks, then a READ ONLY transaction, always rolled back (see sql_mysql.py).
    """
    if not statement.strip():
        raise ConfigError('no SQL given: write one statement, e.g. "SELECT * FROM v_current_list"')
    dialect = engine.dialect.name
    if dialect == "sqlite":
        return _sqlite(engine, statement)
    if dialect == "postgresql":
        return _postgresql(engine, statement)
    if dialect == "mysql":
        return _mysql(engine, statement)
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


def _sqlite(engine: Engine, statement: str) -> QueryResult:
    # Counted before anything is prepared, so a write followed by a second statement gets the same
    # answer as on PostgreSQL; sqlite3 itself would also refuse the second statement.
    if _sqlite_statement_count(statement) > 1:
        raise StatementRefused(f"the database refused the statement: {ONE_STATEMENT}")
    pooled = engine.raw_connection()
    try:
        conn: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
        conn.execute("PRAGMA query_only = ON")
        conn.execute("BEGIN")  # one snapshot for the statement; never committed
        conn.set_authorizer(_sqlite_authorizer)
        try:
            cursor = conn.execute(statement)
            return _result(cursor.description, cursor.fetchall())
        except sqlite3.ProgrammingError as exc:
            if "one statement at a time" in str(exc):
                raise StatementRefused(f"the database refused the statement: {ONE_STATEMENT}") from None
            raise StatementRefused(f"the database refused the statement: {_first_line(exc)}") from None
        except sqlite3.DatabaseError as exc:
            reason = READ_ONLY if str(exc) == "not authorized" else _first_line(exc)
            raise StatementRefused(f"the database refused the statement: {reason}") from None
        finally:
            conn.set_authorizer(None)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.execute("PRAGMA query_only = OFF")
    finally:
        pooled.close()


def _sqlite_authorizer(
    action: int, arg1: str | None, _arg2: str | None, _db: str | None, _src: str | None
) -> int:
    if action in _SQLITE_READS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and arg1 in _SQLITE_READ_PRAGMAS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _postgresql(engine: Engine, statement: str) -> QueryResult:
    import psycopg

    pooled = engine.raw_connection()
    try:
        conn: psycopg.Connection[Any] = pooled.driver_connection  # type: ignore[assignment]
        conn.rollback()
        try:
            with conn.cursor() as cursor:
                cursor.execute("SET TRANSACTION READ ONLY")
                # prepare=True sends the text through the extended protocol: the server refuses
                # "cannot insert multiple commands into a prepared statement" instead of running them all.
                cursor.execute(statement, prepare=True)
                rows = cursor.fetchall() if cursor.description is not None else []
                return _result(cursor.description, rows)
        except psycopg.Error as exc:
            message = exc.diag.message_primary or _first_line(exc)
            if "multiple commands" in message:
                message = ONE_STATEMENT
            raise StatementRefused(f"the database refused the statement: {message}") from None
        finally:
            conn.rollback()
    finally:
        pooled.close()


def _mysql(engine: Engine, statement: str) -> QueryResult:
    from ratingdb.reports import sql_mysql

    pooled = engine.raw_connection()
    try:
        description, rows = sql_mysql.run(pooled.driver_connection, statement)
        return _result(description, rows)
    finally:
        pooled.close()


def _result(description: Any, rows: list[Any]) -> QueryResult:
    if description is None:
        return QueryResult([], [])
    # Booleans as SQLite stores them (0/1), so one query prints the same on both engines.
    return QueryResult(
        [d[0] for d in description],
        [tuple(int(v) if isinstance(v, bool) else v for v in row) for row in rows],
    )


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
