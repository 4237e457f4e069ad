"""What every engine's runner of `ratingdb sql` shares: the refusal, its sentences and bounded fetching.

Apart from ratingdb.reports.sql so that the MySQL runner (sql_mysql.py), which sql.py calls, imports
these without importing sql.py back (no import cycle). No ORM, no CLI, no driver imports.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

from ratingdb.errors import RatingDbError

# The text and blob values one statement may fetch, all rows together (sql.py has the other bounds).
MAX_RESULT_BYTES: Final = 64_000_000

ONE_STATEMENT: Final = "only one statement at a time (the text holds more than one)"
READ_ONLY: Final = "not authorized: ratingdb sql only reads"


class StatementRefused(RatingDbError):
    """The database refused an ad-hoc statement: a write, several statements, or an error in the SQL."""


def too_large() -> StatementRefused:
    return StatementRefused(
        f"the database refused the statement: its result is larger than {MAX_RESULT_BYTES // 1_000_000} MB "
        "— select fewer rows or columns, or shorter values (--max-rows)"
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


def stopped(timeout: float) -> StatementRefused:
    return StatementRefused(
        f"the statement was stopped after {timeout:g} s (--timeout): it ran, or waited for a lock, that "
        "long — narrow the query, or give a larger --timeout"
    )
