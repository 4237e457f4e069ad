"""The accounts a federation's server should have, and what the connecting account may do that no guard
stops; imports ratingdb.engines only.

No trigger can refuse what privileges allow around them: on MySQL/MariaDB `TRUNCATE` fires no trigger
(it needs the DROP privilege), and `DROP TABLE`/`DROP TRIGGER` remove a guard with its table on every
server engine; on PostgreSQL a table's owner or a superuser can also `ALTER TABLE … DISABLE TRIGGER`.
So the monthly work runs as an *officer* account without those rights, `sql` and dashboards as a
*reader* account with SELECT only, and only `ratingdb init` as the *owner* (README: Security).
`setup_statements` writes that set-up for the administrator (`ratingdb db accounts` prints it);
`privilege_warnings` is what `db check` and `init` say about the connecting account. The SQL of each
engine's accounts and grants is its backend's (ratingdb.engines.mysql, ratingdb.engines.postgresql); this
module checks the names and asks the connection's backend.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ratingdb import engines

if TYPE_CHECKING:
    from sqlalchemy import Connection

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")


def _name(kind: str, value: str) -> str:
    if not _NAME.fullmatch(value):
        from ratingdb.errors import ConfigError

        raise ConfigError(f"{kind} {value!r} is not a plain account name — use letters, digits and _ only")
    return value


def setup_statements(engine_name: str, database: str, owner: str, officer: str, reader: str) -> list[str]:
    """The statements an administrator runs once on the engine `engine_name` (a URL's backend name):
    least-privileged accounts first, the owner last; none where the engine has no accounts.

    Passwords are written as '…' for the administrator to fill in. On PostgreSQL the grants on the tables
    follow `ratingdb init` (the tables must exist): they are the last statements, marked as such.
    """
    database, owner = _name("database", database), _name("owner", owner)
    officer, reader = _name("officer", officer), _name("reader", reader)
    backend = engines.named(engine_name)
    return [] if backend is None else backend.account_setup(database, owner, officer, reader)


def privilege_warnings(conn: Connection) -> list[str]:
    """Sentences about rights of the connecting account that let it get past the guards (none on SQLite,
    where whoever can write the file can do anything to it: README, Security)."""
    return engines.of(conn).privilege_warnings(conn)


def mysql_dangerous_privileges(conn: Connection) -> list[str]:
    """The privileges of the connecting MySQL/MariaDB account that let it empty, drop or unguard a table
    (ratingdb.engines.mysql, dangerous_privileges)."""
    from ratingdb.engines.mysql import dangerous_privileges

    return dangerous_privileges(conn)


def sql_warnings(conn: Connection) -> list[str]:
    """What `ratingdb sql` says about an account that may do more than read (MySQL/MariaDB only: on
    PostgreSQL the query runs with ratingdb_reader's rights whoever connects, and SQLite has no accounts)."""
    return engines.of(conn).sql_warnings(conn)


def repair_reader(conn: Connection) -> str | None:
    """Set up ratingdb_reader and its function again where a restore broke them (PostgreSQL; `init`).

    Returns the sentence to print: what was repaired, or why it could not be (the connecting role may
    not create roles or give the function to the reader); None when nothing needed doing. Runs in a
    savepoint of the caller's transaction, so a refusal leaves everything as it was.
    """
    return engines.of(conn).repair_reader(conn)
