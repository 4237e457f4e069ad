"""The database engines ratingdb runs on, one module each, behind one interface (`Backend`).

As Alembic keeps each dialect in `alembic/ddl/<dialect>.py`: `sqlite.py`, `postgresql.py` and `mysql.py`
(MariaDB and MySQL) each subclass `base.Backend`, and everything that differs between the engines —
engine set-up, locks, id reservation, bulk writes, placeholder style, id counters, read-only sessions,
error sentences, backups, accounts — is an operation there. The rest of ratingdb asks for the backend of
an engine, connection, session or URL (`of`, `for_url`) and calls operations; it never compares a
dialect's name. A test (tests/unit/test_engine_names.py) keeps it so.

Chosen once by the dialect's name; each module is imported when first asked for, so a command pays only
for the engine it uses. Imports SQLAlchemy and ratingdb.errors here; no services, no CLI.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import URL

    from ratingdb.engines.base import Backend

# SQLAlchemy's dialect (or URL backend) name → the module of its backend. MariaDB is MySQL's module:
# SQLAlchemy names both "mysql" and tells MariaDB apart by its version string.
MODULES = {
    "sqlite": "sqlite",
    "postgres": "postgresql",
    "postgresql": "postgresql",
    "mysql": "mysql",
    "mariadb": "mysql",
}

@cache
def named(name: str) -> Backend | None:
    """The backend of the dialect (or URL backend) `name`, None for an engine ratingdb does not run on."""
    module = MODULES.get(name)
    if module is None:
        return None
    backend: Backend = importlib.import_module(f"ratingdb.engines.{module}").BACKEND
    return backend


def of(bind: Any) -> Backend:
    """The backend of a SQLAlchemy Engine, Connection or Session (anything with a dialect or a bind)."""
    if hasattr(bind, "get_bind"):  # a Session
        bind = bind.get_bind()
    found = named(bind.dialect.name)
    if found is None:
        raise LookupError(f"ratingdb has no backend for the dialect {bind.dialect.name}")
    return found


def for_url(parsed: URL) -> Backend | None:
    """The backend of a parsed URL, None for an engine ratingdb does not run on."""
    return named(parsed.get_backend_name())
