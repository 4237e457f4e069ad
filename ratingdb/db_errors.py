"""What a database failure means to the person who ran the command: one sentence, no URL, no password.

Imports SQLAlchemy's exception types and ratingdb.db/errors only; drivers are never imported here.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import URL
from sqlalchemy.exc import DBAPIError

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
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        found = _sqlite(message, parsed)
    elif backend == "postgresql":
        found = _postgresql(message, parsed, connecting=exc.statement is None)
    elif backend in ("mysql", "mariadb"):
        found = _mysql(message, parsed)
    else:
        found = None
    if found is not None:
        return found
    refused_check = _check_refusal(message)
    if refused_check is not None:
        return refused_check
    if re.search(r"\b(integer|bigint|smallint) out of range|out of range value", message, re.IGNORECASE):
        return DatabaseRefused(TOO_LARGE)
    if exc.statement is None or exc.connection_invalidated:
        return DatabaseUnavailable(
            f"cannot connect to {_where(parsed)}: {_without_names(message)} — check the URL"
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


def _without_names(message: str) -> str:
    """A driver message with user and role names taken out: connection errors name host, port, database."""
    text = re.sub(r"^.*?failed:\s*(FATAL:\s*)?", "", message)
    return re.sub(r'\s*(for )?(user|role) "[^"]*"', "", text).strip() or message


SERVERS = {"postgresql": ("PostgreSQL", 5432), "mysql": ("MariaDB/MySQL", 3306)}


def _where(parsed: URL) -> str:
    """Host, port and database: all a connection error names (never the user or the password)."""
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return f"the SQLite database {parsed.database}"
    kind, default_port = SERVERS.get(backend, (backend, None))
    port = parsed.port or default_port
    host = parsed.host or "localhost"
    return f"{kind} at {host}{f':{port}' if port else ''} (database {parsed.database or 'not given'})"


def _postgresql(message: str, parsed: URL, *, connecting: bool) -> RatingDbError | None:
    lower = message.lower()
    where = _where(parsed)
    port = parsed.port or SERVERS["postgresql"][1]
    if "connection refused" in lower:
        return DatabaseUnavailable(
            f"cannot connect to {where}: the connection was refused — check that the server is running and "
            f"listens on port {port}"
        )
    if any(
        text in lower
        for text in ("name or service not known", "could not translate host name", "nodename nor servname",
                     "temporary failure in name resolution", "no address associated")
    ):  # fmt: skip
        return DatabaseUnavailable(
            f"cannot connect to {where}: the host name is not known — check the host in the URL"
        )
    if re.search(r'database "[^"]*" does not exist', message):
        name = parsed.database or ""
        return DatabaseUnavailable(
            f"the database {name} does not exist on PostgreSQL at {parsed.host or 'localhost'}:{port} — "
            f"create it (createdb {name}), then run `ratingdb init`"
        )
    if re.search(r'role "[^"]*" does not exist', message):
        return DatabaseUnavailable(
            f"cannot connect to {where}: the server has no such user — check the user name in the URL"
        )
    if "password authentication failed" in lower or "authentication failed" in lower:
        return DatabaseUnavailable(
            f"cannot connect to {where}: the user name or password was refused — check them in the URL "
            "(write special characters URL-escaped, e.g. @ as %40)"
        )
    if "no password supplied" in lower or "password is required" in lower:
        return DatabaseUnavailable(
            f"cannot connect to {where}: the server asks for a password — add it to the URL "
            "(user:password@host) or to ~/.pgpass"
        )
    if "timeout expired" in lower or "timed out" in lower:
        return DatabaseUnavailable(
            f"cannot connect to {where}: the server did not answer in time — check the host, the port and "
            "any firewall between"
        )
    if "pg_hba.conf" in lower or "not permitted to log in" in lower:
        return DatabaseUnavailable(
            f"cannot connect to {where}: the server does not let this user connect from here — ask its "
            "administrator (pg_hba.conf)"
        )
    if "starting up" in lower or "shutting down" in lower or "too many clients" in lower:
        return DatabaseUnavailable(
            f"cannot connect to {where}: the server is busy ({_without_names(message)}) — "
            "try again in a moment"
        )
    if connecting and ("server closed the connection" in lower or "terminating connection" in lower):
        return DatabaseUnavailable(f"cannot connect to {where}: the server closed the connection — try again")
    return None


def _mysql(message: str, parsed: URL) -> RatingDbError | None:
    # PyMySQL's messages read "(code, 'text')"; the code says what happened.
    code = re.match(r"\((\d+),", message)
    number = int(code.group(1)) if code else None
    where = _where(parsed)
    if number == 1049:
        name = parsed.database or ""
        return DatabaseUnavailable(
            f"the database {name} does not exist on {where.split(' (')[0]} — create it "
            f"(CREATE DATABASE {name}), then run `ratingdb init`"
        )
    if number in (1045, 1698):
        return DatabaseUnavailable(
            f"cannot connect to {where}: the user name or password was refused — check them in the URL "
            "(write special characters URL-escaped, e.g. @ as %40)"
        )
    if number == 1044:
        return DatabaseUnavailable(f"cannot connect to {where}: this user may not use that database")
    if number in (2003, 2005) and any(
        text in message.lower() for text in ("name or service not known", "name resolution", "nodename")
    ):
        number = 2005  # PyMySQL reports an unknown host as "can't connect" with the resolver's words
    if number == 2003:
        port = parsed.port or SERVERS["mysql"][1]
        return DatabaseUnavailable(
            f"cannot connect to {where}: the connection was refused — check that the server is running and "
            f"listens on port {port}"
        )
    if number == 2005:
        return DatabaseUnavailable(
            f"cannot connect to {where}: the host name is not known — check the host in the URL"
        )
    return None


def _sqlite(message: str, parsed: URL) -> RatingDbError | None:
    lower = message.lower()
    name = parsed.database or ":memory:"
    path = Path(name)
    if "unable to open database file" in lower:
        folder = path.parent
        if not folder.is_dir():
            return DatabaseUnavailable(
                f"the folder {folder} for the SQLite database {name} does not exist — create it, or give "
                "another path in the URL"
            )
        if not _writable(folder):
            return DatabaseUnavailable(
                f"cannot open the SQLite database {name}: the folder {folder} is not writable — give a file "
                "in a folder you can write to"
            )
        return DatabaseUnavailable(
            f"cannot open the SQLite database {name} — check the path and its permissions (the folder must "
            "be writable too)"
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
            f"the SQLite database {name} is busy: another program holds its write lock — try again when it "
            "has finished"
        )
    if "malformed" in lower:
        return DatabaseUnavailable(
            f"the SQLite database {name} is damaged — restore it from a backup (see docs/guide/backups.md)"
        )
    if "disk is full" in lower or "disk i/o error" in lower:
        return DatabaseUnavailable(
            f"cannot write the SQLite database {name}: the disk is full or failing — free space, then run "
            "the command again (nothing was written)"
        )
    return None


def _writable(folder: Path) -> bool:
    # os.access says yes to root on a read-only mount: only trying tells.
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False
