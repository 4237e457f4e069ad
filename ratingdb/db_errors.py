"""What a database failure means to the person who ran the command: one sentence, no URL, no password.

Imports SQLAlchemy's exception types and ratingdb.db/engines/errors only; drivers are never imported
here. The sentences for one engine's own errors are its backend's (`explain` in ratingdb.engines.<engine>);
what is said alike on every engine (CHECK refusals, numbers out of range, the fallbacks) is here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import URL
from sqlalchemy.exc import DBAPIError

from ratingdb import engines
from ratingdb.db import parse_url
from ratingdb.errors import ConfigError, RatingDbError


class DatabaseUnavailable(RatingDbError):
    """The database cannot be reached or opened (server down, wrong name, missing folder, not a database)."""


class DatabaseRefused(RatingDbError):
    """The database refused a statement that ratingdb's own checks let through."""


TOO_LARGE = "a number given is too large for the database — check the IDs and numbers on the command line"


@contextmanager
def explained(url: str) -> Iterator[None]:
    """Turn a driver error raised inside the block into a one-sentence RatingDbError about `url`."""
    try:
        yield
    except DBAPIError as exc:
        raise explain(exc, url) from None
    except OverflowError as exc:
        refused = explain_overflow(exc)
        if refused is None:
            raise
        raise refused from None


def explain_overflow(exc: OverflowError) -> RatingDbError | None:
    """sqlite3 refuses to bind an int beyond 64 bits before SQLAlchemy sees a driver error; such a number
    can only have come from the user (an ID on the command line). Any other OverflowError is a bug."""
    return DatabaseRefused(TOO_LARGE) if "SQLite INTEGER" in str(exc) else None


def explain(exc: DBAPIError, url: str) -> RatingDbError:
    """The sentence for a driver error met while working on the database at `url`."""
    message = _first_line(exc.orig) if exc.orig is not None else _first_line(exc)
    try:
        parsed = parse_url(url)
    except ConfigError as bad_url:
        return bad_url
    backend = engines.for_url(parsed)
    found = None if backend is None else backend.explain(message, parsed, connecting=exc.statement is None)
    if found is not None:
        return found
    refused_check = _check_refusal(message)
    if refused_check is not None:
        return refused_check
    if re.search(r"\b(integer|bigint|smallint) out of range|out of range value", message, re.IGNORECASE):
        return DatabaseRefused(TOO_LARGE)
    if exc.statement is None or exc.connection_invalidated:
        return DatabaseUnavailable(
            f"cannot connect to {_where(parsed)}: {without_names(message)} — check the URL"
        )
    return DatabaseRefused(
        f"the database refused the command: {message} — nothing was written; if the input looks right, "
        "please report this as a ratingdb bug"
    )


def _check_refusal(message: str) -> RatingDbError | None:
    """A CHECK constraint refused a row (SQLite: "CHECK constraint failed: ck_x", PostgreSQL: 'violates
    check constraint "ck_x"', MariaDB: "CONSTRAINT `ck_x` failed"): say which column and what it takes."""
    found = re.search(r"(?:CHECK constraint failed: |check constraint \"|CONSTRAINT `)(ck_\w+)", message)
    if found is None:
        return None
    from ratingdb.schema.checks import by_name

    name = found.group(1)
    check = by_name(name)
    what = f"{check.describe()} ({name})" if check is not None else f"it breaks the constraint {name}"
    return DatabaseRefused(
        f"the database refused a value: {what} — nothing was written; ratingdb's readers refuse such "
        "values, so if this came from a ratingdb command please report it as a bug"
    )


def _first_line(error: object) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def without_names(message: str) -> str:
    """A driver message with user and role names taken out: connection errors name host, port, database."""
    text = re.sub(r"^.*?failed:\s*(FATAL:\s*)?", "", message)
    return re.sub(r'\s*(for )?(user|role) "[^"]*"', "", text).strip() or message


def _where(parsed: URL) -> str:
    """Host, port and database: all a connection error names (never the user or the password)."""
    backend = engines.for_url(parsed)
    if backend is None:  # parse_url refuses such URLs first
        port = f":{parsed.port}" if parsed.port else ""
        where = f"{parsed.host or 'localhost'}{port} (database {parsed.database or 'not given'})"
        return f"{parsed.get_backend_name()} at {where}"
    return backend.where(parsed)
