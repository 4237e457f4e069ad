"""Database URLs read and checked, and the engine made for one, with what its backend sets on every
connection. Beside the engine modules, which use them too (the web app's read-only engines); ratingdb.db
gives them to everyone else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import URL, Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from ratingdb import engines
from ratingdb.engines.base import URL_FORM, Backend
from ratingdb.errors import ConfigError


def parse_url(url: str) -> URL:
    """`url` parsed and checked, with `postgres://` and `postgresql://` meaning the psycopg driver.

    Every form people type by mistake (two slashes before a SQLite file, a bare file name, a URL without
    a database name, an engine ratingdb does not run on) is a ConfigError saying what to write instead.
    The message never repeats a URL that may hold a password: only SQLite URLs and file paths are echoed.
    """
    _check_unparsed(url)
    scheme, sep, rest = url.partition("://")
    if sep and re.match(r"[^/?#]*", rest).group().count("@") > 1:  # type: ignore[union-attr]
        raise ConfigError(
            "the database URL has more than one '@' — write an '@' inside the user name or password as "
            "%40, e.g. postgresql+psycopg://user:pa%40ss@host/dbname"
        )
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise ConfigError(
            "the database URL cannot be read — write it as dialect+driver://user:password@host:port/dbname, "
            + URL_FORM
        ) from None
    backend = engines.for_url(parsed)
    if backend is not None:
        parsed = backend.default_driver(parsed, scheme)
    _check_parsed(parsed, rest)
    return parsed


def _check_unparsed(url: str) -> None:
    """Refuse the forms that are not URLs at all: nothing, a file path, a scheme without `//`."""
    if not url.strip():
        raise ConfigError(f"the database URL is empty — give one with --db URL or RATINGDB_URL, {URL_FORM}")
    if "://" in url:
        return
    scheme, colon, rest = url.partition(":")
    if re.fullmatch(r"[A-Za-z]", scheme) and rest[:1] in ("\\", "/"):  # C:\ratings\fed.sqlite
        raise ConfigError(
            f"{url} is a file path, not a database URL — for a SQLite file write sqlite:///{url}"
        )
    if not colon:
        if "@" in url:
            return  # perhaps a URL with a password: make_url refuses it below without echoing it
        raise ConfigError(
            f"{url} is a file name, not a database URL — for a SQLite file write sqlite:///{url}"
        )
    backend = engines.named(scheme.split("+")[0].lower())
    if backend is not None:
        backend.refuse_without_slashes(url, scheme, rest)


def _check_parsed(parsed: URL, rest: str) -> None:
    """Refuse URLs that parse but cannot name a ratingdb database."""
    backend = engines.for_url(parsed)
    if backend is None:
        raise ConfigError(
            f"'{parsed.drivername}' is not a kind of database ratingdb can use — it runs on SQLite, "
            f"PostgreSQL and MariaDB/MySQL, {URL_FORM}"
        )
    backend.check_url(parsed, rest)


def make_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine for `url`, with what its backend sets on every connection (ratingdb.engines:
    SQLite's foreign keys, WAL and BEGIN handling; MySQL's session settings)."""
    parsed = parse_url(url)
    with _driver_errors(parsed):
        return backend_of(parsed).create_engine(parsed, **kwargs)


def read_only_engine(url: str, *, in_event_loop: bool = False) -> Engine:
    """An engine for `url` whose connections cannot write (the public web side; each backend's
    read_only_engine says how). `in_event_loop`: where the backend can (Backend.reader_in_greenlets),
    SQLAlchemy's asyncio engine seen as a plain one, to be used only in greenlets that the web app runs in
    its event loop."""
    parsed = parse_url(url)
    with _driver_errors(parsed):
        return backend_of(parsed).read_only_engine(parsed, in_event_loop=in_event_loop)


@contextmanager
def _driver_errors(parsed: URL) -> Iterator[None]:
    """A driver SQLAlchemy does not know, or one not installed, as the sentence saying so."""
    try:
        yield
    except NoSuchModuleError:
        raise ConfigError(
            f"'{parsed.drivername}' is not a kind of database ratingdb can use — {URL_FORM}"
        ) from None
    except ImportError as exc:
        raise ConfigError(
            f"the driver {exc.name or ''} for {parsed.drivername} URLs is not installed — install it, "
            "or name an installed driver in the URL"
        ) from None


def backend_of(parsed: URL) -> Backend:
    """The backend (ratingdb.engines) of a URL parse_url has read."""
    found = engines.for_url(parsed)
    assert found is not None  # parse_url refuses a URL of any other engine
    return found
