"""What every engine's runner of `ratingdb sql` shares: the result, the refusal and bounded fetching.

Each engine module runs ad-hoc statements its own way (`Backend.run_read_only`); this is what they have in
common, below ratingdb.reports.sql (which checks the command's arguments and asks the engine) so that the
engines import nothing from a floor above theirs. The standard library and ratingdb.errors only: the CLI
pays nothing for it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ratingdb.errors import RatingDbError

# The text and blob values one statement may fetch, all rows together (each engine has its other bounds).
MAX_RESULT_BYTES: Final = 64_000_000

ONE_STATEMENT: Final = "only one statement at a time (the text holds more than one)"
READ_ONLY: Final = "not authorized: ratingdb sql only reads"


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    # More rows than max_rows: `rows` holds the first max_rows of them.
    truncated: bool = False


class StatementRefused(RatingDbError):
    """The database refused an ad-hoc statement: a write, several statements, or an error in the SQL."""


def refused(reason: str) -> StatementRefused:
    return StatementRefused(f"the database refused the statement: {reason}")


def too_large() -> StatementRefused:
    return refused(
        f"its result is larger than {MAX_RESULT_BYTES // 1_000_000} MB "
        "— select fewer rows or columns, or shorter values (--max-rows)"
    )


def stopped(timeout: float) -> StatementRefused:
    return StatementRefused(
        f"the statement was stopped after {timeout:g} s (--timeout): it ran, or waited for a lock, that "
        "long — narrow the query, or give a larger --timeout"
    )


def fetch_bounded(batches: Iterator[Sequence[Any]], max_rows: int) -> list[Any]:
    """At most max_rows + 1 rows from `batches`, refusing (StatementRefused) once the text and blob
    values fetched exceed MAX_RESULT_BYTES."""
    rows: list[Any] = []
    size = 0
    for batch in batches:
        for row in batch:
            size += sum(len(v) for v in row if isinstance(v, (str, bytes, bytearray, memoryview)))
            if size > MAX_RESULT_BYTES:
                raise too_large()
            rows.append(row)
            if len(rows) > max_rows:
                return rows
    return rows


def batches(cursor: Any, size: int = 500) -> Iterator[Sequence[Any]]:
    while batch := cursor.fetchmany(size):
        yield batch


def result(description: Any, rows: list[Any], max_rows: int) -> QueryResult:
    """The result of a statement from its cursor's description and up to max_rows + 1 fetched rows."""
    if description is None:
        return QueryResult([], [])
    # Booleans as SQLite stores them (0/1), so one query prints the same on every engine.
    return QueryResult(
        [d[0] for d in description],
        [tuple(int(v) if isinstance(v, bool) else v for v in row) for row in rows[:max_rows]],
        truncated=len(rows) > max_rows,
    )


def first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
