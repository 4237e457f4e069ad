"""The accounts a federation's server should have, and what the connecting account may do that no guard
stops; imports SQLAlchemy only (inside the functions that take a connection).

No trigger can refuse what privileges allow around them: on MySQL/MariaDB `TRUNCATE` fires no trigger
(it needs the DROP privilege), and `DROP TABLE`/`DROP TRIGGER` remove a guard with its table on every
server engine; on PostgreSQL a table's owner or a superuser can also `ALTER TABLE … DISABLE TRIGGER`.
So the monthly work runs as an *officer* account without those rights, `sql` and dashboards as a
*reader* account with SELECT only, and only `ratingdb init` as the *owner* (README: Security).
`setup_statements` writes that set-up for the administrator (`ratingdb db accounts` prints it);
`privilege_warnings` is what `db check` and `init` say about the connecting account.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection

# The rights each account gets on MySQL/MariaDB (database-level grants on the ratingdb database):
# the officer reads and writes rows and makes the close's temporary tables, and has no DROP (so no
# TRUNCATE), ALTER, TRIGGER, CREATE or INDEX; the reader only reads.
MYSQL_OFFICER = "SELECT, INSERT, UPDATE, DELETE, CREATE TEMPORARY TABLES"
MYSQL_READER = "SELECT"
MYSQL_OWNER = "ALL PRIVILEGES"
# What an account that does the monthly work must not hold on MySQL/MariaDB: each lets it empty or drop a
# guarded table (TRUNCATE needs DROP) or remove or replace the guards themselves.
MYSQL_DANGEROUS = ("DROP", "ALTER", "TRIGGER", "SUPER", "ALL PRIVILEGES")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")


def _name(kind: str, value: str) -> str:
    if not _NAME.fullmatch(value):
        from ratingdb.errors import ConfigError

        raise ConfigError(f"{kind} {value!r} is not a plain account name — use letters, digits and _ only")
    return value


def setup_statements(dialect: str, database: str, owner: str, officer: str, reader: str) -> list[str]:
    """The statements an administrator runs once: least-privileged accounts first, the owner last.

    Passwords are written as '…' for the administrator to fill in. On PostgreSQL the grants on the tables
    follow `ratingdb init` (the tables must exist): they are the last statements, marked as such.
    """
    database, owner = _name("database", database), _name("owner", owner)
    officer, reader = _name("officer", officer), _name("reader", reader)
    if dialect == "mysql":
        return [
            f"CREATE USER '{reader}'@'%' IDENTIFIED BY '…';",
            f"CREATE USER '{officer}'@'%' IDENTIFIED BY '…';",
            f"CREATE USER '{owner}'@'%' IDENTIFIED BY '…';",
            f"CREATE DATABASE `{database}`;",
            f"GRANT {MYSQL_READER} ON `{database}`.* TO '{reader}'@'%';",
            f"GRANT {MYSQL_OFFICER} ON `{database}`.* TO '{officer}'@'%';",
            f"GRANT {MYSQL_OWNER} ON `{database}`.* TO '{owner}'@'%';",
        ]
    if dialect == "postgresql":
        return [
            "CREATE ROLE ratingdb_reader NOLOGIN;  -- once per server (or made by the sql_reader migration)",
            f"CREATE ROLE {reader} LOGIN PASSWORD '…' IN ROLE ratingdb_reader;",
            f"CREATE ROLE {officer} LOGIN PASSWORD '…';",
            f"CREATE ROLE {owner} LOGIN PASSWORD '…' IN ROLE ratingdb_reader;",
            f"CREATE DATABASE {database} OWNER {owner};",
            f"-- after `ratingdb init` as {owner}, connected to {database}:",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {officer};",
            f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {officer};",
        ]
    return []


def privilege_warnings(conn: Connection) -> list[str]:
    """Sentences about rights of the connecting account that let it get past the guards (none on SQLite,
    where whoever can write the file can do anything to it: README, Security)."""
    dialect = conn.dialect.name
    if dialect == "mysql":
        held = mysql_dangerous_privileges(conn)
        if not held:
            return []
        return [
            f"this MySQL/MariaDB account holds {', '.join(held)} on the ratingdb tables, so it can TRUNCATE "
            "or DROP them (no trigger fires for TRUNCATE) — do the monthly work as an account with "
            f"{MYSQL_OFFICER} only (`ratingdb db accounts` prints the set-up)"
        ]
    if dialect == "postgresql":
        row = conn.exec_driver_sql(
            "SELECT rolsuper, EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename = 'list_entry' AND tableowner = current_user) FROM pg_roles "
            "WHERE rolname = current_user"
        ).one()
        if row[0] or row[1]:
            what = "a superuser" if row[0] else "the owner of the ratingdb tables"
            return [
                f"this PostgreSQL role is {what}, so it can DROP the tables or disable their triggers — do "
                "the monthly work as a role with SELECT, INSERT, UPDATE, DELETE only "
                "(`ratingdb db accounts` prints the set-up)"
            ]
    return []


def mysql_dangerous_privileges(conn: Connection) -> list[str]:
    """The MYSQL_DANGEROUS privileges the connecting account holds on this database or its tables:
    globally, on the database (grants naming it, or a pattern it matches) or on one of its tables, as
    SHOW GRANTS reports them (privileges of a role the account may SET ROLE to are not counted)."""
    held = _mysql_privileges(conn)
    return [p for p in MYSQL_DANGEROUS if p in held]


def _pattern_matches(pattern: str, database: str) -> bool:
    """A database name in a GRANT may be a LIKE pattern (`_` and `%`, `\\_` a literal underscore)."""
    regex = ""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            regex += re.escape(pattern[i + 1])
            i += 2
            continue
        regex += "." if ch == "_" else ".*" if ch == "%" else re.escape(ch)
        i += 1
    return re.fullmatch(regex, database) is not None


# Privileges a read needs; anything else held makes `sql` read-only by ratingdb's checks alone.
_MYSQL_READING = {"SELECT", "USAGE", "SHOW VIEW"}


def sql_warnings(conn: Connection) -> list[str]:
    """What `ratingdb sql` says about an account that may do more than read (MySQL/MariaDB only: on
    PostgreSQL the query runs with ratingdb_reader's rights whoever connects, and SQLite has no accounts)."""
    if conn.dialect.name != "mysql":
        return []
    held = sorted(p for p in _mysql_privileges(conn) if p not in _MYSQL_READING)
    if not held:
        return []
    shown = ", ".join(held[:6]) + (", …" if len(held) > 6 else "")
    return [
        f"this MySQL/MariaDB account holds {shown} besides SELECT: `sql` is kept to reading by ratingdb's "
        "statement checks alone, and the account can read every database it may read (mysql.user as "
        "root) — run `sql` as a SELECT-only account (`ratingdb db accounts` prints the set-up)"
    ]


def _mysql_privileges(conn: Connection) -> set[str]:
    """Every privilege the connecting account holds globally or on this database (SHOW GRANTS)."""
    grants = [str(row[0]) for row in conn.exec_driver_sql("SHOW GRANTS FOR CURRENT_USER()")]
    database = str(conn.exec_driver_sql("SELECT DATABASE()").scalar_one())
    held: set[str] = set()
    for grant in grants:
        match = re.match(r"GRANT (.+?) ON (\S+) TO ", grant)
        if match is None:
            continue
        scope = match.group(2).split(".", 1)[0].strip('`"')
        if scope != "*" and not _pattern_matches(scope, database):
            continue
        for privilege in re.split(r",\s*", match.group(1)):
            held.add(re.sub(r"\s*\(.*\)$", "", privilege).strip().upper())
    return held


# What migration 0008 sets up for `ratingdb sql` on PostgreSQL, made again where it is missing or broken:
# a restore with `pg_restore --no-owner` (docs/guide/backups.md) gives ratingdb_read_only to the restoring
# role, and a SECURITY DEFINER function not owned by ratingdb_reader is refused by `sql` (it would run
# queries with its owner's rights). The function is SECURITY INVOKER while its owner changes, so it never
# runs with another role's rights. (Migration 0008 keeps its own copy: migrations are frozen.)
READER_REPAIR = r"""
DO $repair$
DECLARE
    schema_name text := current_schema();
    had_create boolean;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'ratingdb_reader') THEN
        BEGIN
            CREATE ROLE ratingdb_reader NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO ratingdb_reader', schema_name);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %I TO ratingdb_reader', schema_name);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO ratingdb_reader',
                   schema_name);
    IF to_regprocedure('ratingdb_read_only(text)') IS NULL THEN
        CREATE FUNCTION ratingdb_read_only(statement text) RETURNS SETOF record
            LANGUAGE plpgsql SET search_path FROM CURRENT
            AS $function$ BEGIN RETURN QUERY EXECUTE statement; END $function$;
    END IF;
    ALTER FUNCTION ratingdb_read_only(text) SECURITY INVOKER;
    REVOKE ALL ON FUNCTION ratingdb_read_only(text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION ratingdb_read_only(text) TO ratingdb_reader;
    had_create := has_schema_privilege('ratingdb_reader', schema_name, 'CREATE');
    IF NOT had_create THEN
        EXECUTE format('GRANT CREATE ON SCHEMA %I TO ratingdb_reader', schema_name);
    END IF;
    ALTER FUNCTION ratingdb_read_only(text) OWNER TO ratingdb_reader;
    IF NOT had_create THEN
        EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM ratingdb_reader', schema_name);
    END IF;
    ALTER FUNCTION ratingdb_read_only(text) SECURITY DEFINER;
END
$repair$
"""

# Whether `ratingdb sql` can run its queries as ratingdb_reader here: the function exists, is SECURITY
# DEFINER and owned by the reader, and the reader may read every table of the schema.
_READER_USABLE = """
SELECT COALESCE((
         SELECT p.prosecdef AND o.rolname = 'ratingdb_reader'
         FROM pg_proc p JOIN pg_roles o ON o.oid = p.proowner
         WHERE p.oid = to_regprocedure('ratingdb_read_only(text)')
       ), FALSE)
   AND NOT EXISTS (
         SELECT FROM pg_tables t WHERE t.schemaname = current_schema()
         AND NOT has_table_privilege('ratingdb_reader', format('%I.%I', t.schemaname, t.tablename), 'SELECT')
       )
"""


def reader_usable(conn: Connection) -> bool:
    """Whether `ratingdb sql` has its ratingdb_reader role and function on this PostgreSQL database."""
    from sqlalchemy import text

    if not conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = 'ratingdb_reader'").first():
        return False
    return bool(conn.execute(text(_READER_USABLE)).scalar())


def repair_reader(conn: Connection) -> str | None:
    """Set up ratingdb_reader and its function again where a restore broke them (PostgreSQL; `init`).

    Returns the sentence to print: what was repaired, or why it could not be (the connecting role may
    not create roles or give the function to the reader); None when nothing needed doing. Runs in a
    savepoint of the caller's transaction, so a refusal leaves everything as it was.
    """
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    if conn.dialect.name != "postgresql" or reader_usable(conn):
        return None
    try:
        with conn.begin_nested():
            conn.execute(text(READER_REPAIR))  # text(): the % of format() are not placeholders
    except DBAPIError as exc:
        if getattr(exc.orig, "sqlstate", None) != "42501":  # insufficient_privilege
            raise
        return (
            "Warning: `ratingdb sql` has no usable ratingdb_reader role here (as after pg_restore "
            "--no-owner) and this role may not repair it — run `ratingdb init` as the database's owner, a "
            "member of ratingdb_reader that may create roles (docs/guide/backups.md)"
        )
    return (
        "Restored the ratingdb_reader role's rights and its function ratingdb_read_only for `ratingdb sql` "
        "(they were missing or owned by another role, as after pg_restore --no-owner)."
    )
