"""Ad-hoc SQL in a read-only transaction that is always rolled back, on every engine (`ratingdb sql`).

Checks the command's arguments and asks the engine's backend to run the statement: each engine keeps
its read-only runner in its own module (ratingdb/engines/<engine>.py, `run_read_only`) and what they
share in ratingdb.engines.adhoc. Takes an Engine (the runners need the driver connection); no ORM models,
no CLI imports. Cheap to import: the CLI reads its defaults from here at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ratingdb import engines
from ratingdb.engines.adhoc import MAX_RESULT_BYTES, QueryResult, StatementRefused
from ratingdb.errors import ConfigError

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = [
    "DEFAULT_MAX_ROWS",
    "DEFAULT_TIMEOUT",
    "MAX_RESULT_BYTES",
    "QueryResult",
    "StatementRefused",
    "run_read_only",
]

DEFAULT_TIMEOUT: Final = 5.0  # seconds a statement may run, or wait for a lock
DEFAULT_MAX_ROWS: Final = 10_000


def run_read_only(
    engine: Engine,
    statement: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> QueryResult:
    """Run one statement read-only and return its first `max_rows` rows; a write or a second statement
    is refused, and a statement running (or waiting for a lock) longer than `timeout` seconds is stopped.

    How each engine keeps the statement to reading is its backend's `run_read_only`: on PostgreSQL a
    READ ONLY transaction in which the query runs with the rights of the ratingdb_reader role only; on
    SQLite `PRAGMA query_only` and an authorizer that allows only reads; on MySQL statement checks, then
    a READ ONLY transaction. Each has a time limit, is always rolled back, and fetches rows as a stream:
    at most max_rows + 1 of them are ever held, their text and blob values within MAX_RESULT_BYTES.
    """
    if not statement.strip():
        raise ConfigError('no SQL given: write one statement, e.g. "SELECT * FROM v_current_list"')
    if timeout <= 0 or max_rows < 1:
        raise ConfigError("--timeout must be above 0 seconds and --max-rows at least 1")
    try:
        backend = engines.of(engine)
    except LookupError:
        raise ConfigError(f"ratingdb sql supports SQLite, PostgreSQL and MySQL, not {engine.name}") from None
    return backend.run_read_only(engine, statement, timeout, max_rows)
