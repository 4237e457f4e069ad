"""Engines, sessions and schema upgrades: URL handling, SQLite pragmas, MySQL session settings.

Nothing happens at import time. Alembic is imported only by the functions that run or inspect
migrations (`init`, `db`, tests): every other command checks the schema with one query against
alembic_version and the head read from the migration files' `revision =` lines, so it does not pay
Alembic's start-up time. The ORM is imported only when a session is made.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import URL, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from ratingdb.errors import ConfigError, SchemaError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.orm import Session, sessionmaker

# The session settings every MySQL/MariaDB connection gets before anything else runs (pymysql's
# init_command, so SQLAlchemy's dialect sees them when it first inspects the server):
# - strict mode, so a value that does not fit is refused instead of silently truncated or zeroed;
# - ANSI_QUOTES and PIPES_AS_CONCAT, so "change" (a reserved word in MySQL) and `a || b` mean what they
#   mean on SQLite and PostgreSQL: one SQL text for the views, the documented examples and `ratingdb sql`;
# - InnoDB, the only MySQL engine with transactions and foreign keys;
# (Tables are utf8mb4 compared byte for byte: ratingdb/schema/guards.py, MYSQL_BYTE_ORDER_COLLATION.)
MYSQL_SQL_MODE = (
    "STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,"
    "ANSI_QUOTES,PIPES_AS_CONCAT"
)

URL_FORM = "e.g. sqlite:///ratingdb.sqlite or postgresql+psycopg://user@localhost/ratingdb"


KNOWN_SCHEMES = ("sqlite", "postgres", "postgresql", "mysql", "mariadb")
MYSQL_INSTALL = "pip install -e '.[mysql]'"  # from the checkout: ratingdb is not on a package index


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
    if scheme in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
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
    base = scheme.split("+")[0].lower()
    if base == "sqlite":
        path = rest.lstrip("/")
        absolute = "/" if rest.startswith("/") else ""
        raise ConfigError(
            f"{url} is not a SQLite URL — write sqlite:///{absolute}{path} "
            f"(three slashes before a relative path, four before an absolute one)"
        )
    if base in KNOWN_SCHEMES:
        raise ConfigError(
            f"the database URL has no '//' after '{scheme}:' — write it as "
            f"{scheme}://user:password@host:port/dbname, {URL_FORM}"
        )


def _check_parsed(parsed: URL, rest: str) -> None:
    """Refuse URLs that parse but cannot name a ratingdb database."""
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql", "mysql", "mariadb"):
        raise ConfigError(
            f"'{parsed.drivername}' is not a kind of database ratingdb can use — it runs on SQLite, "
            f"PostgreSQL and MariaDB/MySQL, {URL_FORM}"
        )
    if backend == "sqlite":
        if parsed.host:  # sqlite://fed.sqlite: the file name was read as a host
            raise ConfigError(
                f"{parsed.drivername}://{rest} has two slashes, so '{parsed.host}' is read as a server — a "
                f"SQLite file is {parsed.drivername}:///{rest} (three slashes before a relative path, four "
                "before an absolute one)"
            )
        return
    if backend == "postgresql" and parsed.drivername != "postgresql+psycopg":
        raise ConfigError(
            f"ratingdb talks to PostgreSQL through psycopg (version 3), not {parsed.drivername}: "
            "write the URL as postgresql+psycopg://user:password@host/dbname"
        )
    if not parsed.database:
        engine = "PostgreSQL" if backend == "postgresql" else "MariaDB/MySQL"
        example = "postgresql+psycopg" if backend == "postgresql" else "mysql+pymysql"
        raise ConfigError(
            f"the {engine} URL names no database — end it with the database's name, e.g. "
            f"{example}://user@localhost/ratingdb"
        )


READ_ONLY = "ratingdb_read_only"  # execution option of a connection whose transactions only read


def display_url(url: str) -> str:
    """The URL as it may be printed: the password is always hidden."""
    try:
        return parse_url(url).render_as_string(hide_password=True)
    except ConfigError:
        return "<unreadable URL>"


def make_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine for `url`; SQLite gets foreign keys, WAL and explicit BEGIN handling."""
    parsed = parse_url(url)
    try:
        if parsed.get_backend_name() == "sqlite":
            engine = create_engine(parsed, connect_args={"timeout": 60}, **kwargs)
            _configure_sqlite(engine)
            return engine
        if parsed.get_backend_name() in ("mysql", "mariadb"):
            return _mysql_engine(parsed, **kwargs)
        return create_engine(parsed, **kwargs)
    except NoSuchModuleError:
        raise ConfigError(
            f"'{parsed.drivername}' is not a kind of database ratingdb can use — {URL_FORM}"
        ) from None
    except ImportError as exc:
        if exc.name == "pymysql":
            raise ConfigError(
                "the MariaDB/MySQL driver PyMySQL is not installed — install it from the ratingdb checkout "
                f"with `{MYSQL_INSTALL}` (or `pip install pymysql` into ratingdb's environment)"
            ) from None
        raise ConfigError(
            f"the driver {exc.name or ''} for {parsed.drivername} URLs is not installed — install it, "
            "or name an installed driver in the URL"
        ) from None


def _mysql_engine(parsed: URL, **kwargs: Any) -> Engine:
    if parsed.drivername not in ("mysql", "mariadb", "mysql+pymysql", "mariadb+pymysql"):
        raise ConfigError(
            f"ratingdb talks to MySQL and MariaDB through PyMySQL, not {parsed.drivername}: "
            "write the URL as mysql+pymysql://user:password@host/dbname"
        )
    # One dialect name for both servers ("mysql"): SQLAlchemy tells MariaDB apart by its version string,
    # and the migrations and services test for "mysql" only.
    parsed = parsed.set(drivername="mysql+pymysql")
    init = f"SET SESSION sql_mode = '{MYSQL_SQL_MODE}', default_storage_engine = InnoDB"
    connect_args = {"charset": "utf8mb4", "init_command": init, **kwargs.pop("connect_args", {})}
    # READ COMMITTED as on PostgreSQL: a close that waited for another one's lock sees what it committed.
    kwargs.setdefault("isolation_level", "READ COMMITTED")
    engine = create_engine(parsed, connect_args=connect_args, **kwargs)

    @event.listens_for(engine, "connect")
    def _check_session(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT @@SESSION.sql_mode")
            modes = set(str(cursor.fetchone()[0]).split(","))
        finally:
            cursor.close()
        missing = ", ".join(sorted(set(MYSQL_SQL_MODE.split(",")) - modes))
        if missing:
            raise ConfigError(
                f"the MySQL server did not accept the SQL mode ratingdb needs (missing {missing})"
                " — check that the user may set its own session's sql_mode"
            )

    # GET_LOCK (services/lists.py) belongs to the connection, not the transaction: let go of every
    # such lock when the pool takes the connection back at the end of its transaction.
    @event.listens_for(engine, "checkin")
    def _release_locks(dbapi_connection: Any, _record: Any) -> None:
        import pymysql

        if dbapi_connection is None:
            return
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT RELEASE_ALL_LOCKS()")
        except pymysql.Error:
            pass  # a connection that broke has lost its locks with it: the server let go of them

    return engine


def _configure_sqlite(engine: Engine) -> None:
    # pysqlite's own transaction handling breaks savepoints; take control of BEGIN ourselves.
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        # Read by the alembic_version guard (migration 0010): 1 only while migrations/env.py migrates.
        dbapi_connection.create_function("ratingdb_migrating", 0, lambda: 0, deterministic=True)
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    # IMMEDIATE: a writer takes the write lock at BEGIN, so two closes serialise instead of
    # both reading the same state and failing late on commit. A reader (read_transaction) takes no lock:
    # in WAL mode it reads one snapshot while writers go on.
    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """A session factory bound to `engine` (expire_on_commit off: results are read after commit)."""
    from sqlalchemy.orm import sessionmaker

    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def transaction(engine: Engine, *, dry_run: bool = False) -> Iterator[Session]:
    """One session, one transaction: commits when the block ends normally, rolls back otherwise.

    With `dry_run` the transaction is always rolled back, also when the block ends normally: the work is
    done and can be read (summaries, rating changes) but nothing is written. A rollback does not take
    back the ID counters PostgreSQL (sequences) and MySQL/MariaDB (AUTO_INCREMENT) advanced; they are
    put back afterwards (`_restore_id_counters`), so the real run that follows gets the IDs the dry run
    printed. SQLite's counters (sqlite_sequence) are a table and roll back with the rest.
    """
    if not dry_run:
        with session_factory(engine)() as session, session.begin():
            yield session
        return
    counters = id_counters(engine)
    try:
        with session_factory(engine)() as session:
            session.begin()
            try:
                yield session
            finally:
                session.rollback()
    finally:
        _restore_id_counters(engine, counters)


# An ID counter: (table, column) → the last value handed out before the dry run (None: none yet).
IdCounters = dict[tuple[str, str], int | None]

_PG_SEQUENCES = """
SELECT t.relname, a.attname, s.last_value
FROM pg_sequences s
JOIN pg_namespace n ON n.nspname = s.schemaname
JOIN pg_class sc ON sc.relname = s.sequencename AND sc.relnamespace = n.oid
JOIN pg_depend d ON d.objid = sc.oid AND d.classid = 'pg_class'::regclass
    AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
JOIN pg_class t ON t.oid = d.refobjid
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
WHERE s.schemaname = current_schema()
"""

_MYSQL_COUNTERS = (
    "SELECT table_name, auto_increment FROM information_schema.tables "
    "WHERE table_schema = DATABASE() AND auto_increment IS NOT NULL"
)


def id_counters(engine: Engine) -> IdCounters:
    """The ID counters that a rollback leaves advanced, read on a connection of their own."""
    if engine.dialect.name not in ("postgresql", "mysql"):
        return {}
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            return {(t, c): last for t, c, last in conn.execute(text(_PG_SEQUENCES))}
        # MySQL keeps the next value to hand out; the column is the table's AUTO_INCREMENT one ("id").
        return {(t, "id"): int(n) - 1 for t, n in conn.execute(text(_MYSQL_COUNTERS))}


def _restore_id_counters(engine: Engine, before: IdCounters) -> None:
    """Put back the counters a dry run advanced, never below an ID another transaction committed.

    PostgreSQL: the tables are locked in SHARE mode for a moment (it waits for their writers to commit,
    so MAX(id) sees every ID handed out) and each sequence is set to the larger of its old value and
    MAX(id). MySQL/MariaDB: ALTER TABLE … AUTO_INCREMENT, which never goes below MAX(id) + 1 and waits
    for the table's writers itself. Best effort: a counter that cannot be put back (a lock not granted in
    time, no privilege) only means the next IDs have a gap, as after any rolled-back transaction.
    """
    if not before:
        return
    moved = [key for key, value in id_counters(engine).items() if key in before and value != before[key]]
    if not moved:
        return
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(text("SET LOCAL lock_timeout = '5s'"))
                conn.exec_driver_sql(
                    "LOCK TABLE " + ", ".join(sorted({f'"{t}"' for t, _ in moved})) + " IN SHARE MODE"
                )
                for table, column in moved:
                    top = max(before[table, column] or 0, conn.exec_driver_sql(
                        f'SELECT COALESCE(MAX("{column}"), 0) FROM "{table}"'
                    ).scalar_one())  # fmt: skip
                    conn.execute(
                        text("SELECT setval(pg_get_serial_sequence(:t, :c), :v, :called)"),
                        {"t": f'"{table}"', "c": column, "v": max(top, 1), "called": top > 0},
                    )
                conn.commit()
            else:
                conn.exec_driver_sql("SET SESSION lock_wait_timeout = 5")
                for table, _column in moved:
                    next_id = (before[table, _column] or 0) + 1
                    conn.exec_driver_sql(
                        f'ALTER TABLE "{table}" AUTO_INCREMENT = {next_id}, ALGORITHM=INPLACE, LOCK=NONE'
                    )
    except DBAPIError:
        pass  # the counters stay advanced: gaps in the IDs, nothing else


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Session]:
    """One session that only reads, from one consistent snapshot, and is always rolled back.

    For long reads (a published site): SQLite takes no write lock, so imports and closes go on meanwhile;
    PostgreSQL runs the transaction READ ONLY at REPEATABLE READ, MySQL/MariaDB at REPEATABLE READ, so
    every query sees the same data.
    """
    from sqlalchemy.orm import Session

    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        elif engine.dialect.name == "mysql":
            connection.execution_options(isolation_level="REPEATABLE READ")  # InnoDB's consistent snapshot
        else:
            connection.execution_options(**{READ_ONLY: True})
        with Session(bind=connection, expire_on_commit=False) as session:
            try:
                yield session
            finally:
                session.rollback()


def migrations_path() -> Path:
    """Folder of the Alembic environment, whether running from a checkout or an installed package."""
    checkout = Path(__file__).resolve().parent.parent / "migrations"
    if (checkout / "env.py").is_file():
        return checkout
    return Path(str(resources.files("ratingdb.migrations")))


def alembic_config(engine: Engine | None = None) -> Config:
    """Alembic's configuration for ratingdb's migrations, bound to `engine` when one is given."""
    from alembic.config import Config

    # Alembic's own messages ("No new upgrade operations detected.") are not printed: the commands say
    # what happened in their words. (Its default stdout is the sys.stdout of when Alembic was imported.)
    cfg = Config(stdout=io.StringIO())
    cfg.set_main_option("script_location", str(migrations_path()))
    if engine is not None:
        cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Create or upgrade the schema through the migrations (the only path to a schema)."""
    from alembic import command

    refuse_newer_schema(current_revision(engine))
    command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    command.downgrade(alembic_config(engine), revision)


_REVISION_LINE = re.compile(r"""^(down_revision|revision)\s*(?::[^=]*)?=\s*(?:["']([^"']+)["']|None)""", re.M)


@cache
def head_revision() -> str | None:
    """The newest migration, read from the migration files without importing Alembic.

    A revision that no other file names as its down_revision is a head. Anything but exactly one head
    (a file written in another form, or two heads after a merge) is left to Alembic's own reading.
    """
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (migrations_path() / "versions").glob("*.py"):
        for kind, value in _REVISION_LINE.findall(path.read_text(encoding="utf-8")):
            if value:
                (revisions if kind == "revision" else parents).add(value)
    heads = revisions - parents
    if len(heads) == 1:
        return heads.pop()
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The database's migration (one query on alembic_version), None for a database without one."""
    with engine.connect() as conn:
        try:
            versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        except DBAPIError:
            return None  # no alembic_version table: no ratingdb schema yet
    return ", ".join(sorted(versions)) or None


def refuse_missing_sqlite_file(url: str) -> None:
    """A command that needs a schema does not create an empty SQLite file by opening a mistyped path."""
    parsed = parse_url(url)
    name = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or name in ("", ":memory:") or name.startswith("file:"):
        return
    if not Path(name).exists():
        raise SchemaError(
            f"the SQLite database {name} does not exist — check the path, or run `ratingdb init` to create it"
        )


def require_current_schema(engine: Engine) -> None:
    """Refuse to work on a database that is missing or not at the newest migration."""
    current = current_revision(engine)
    head = head_revision()
    if current == head:
        return
    refuse_newer_schema(current)
    if current is None and not inspect(engine).get_table_names():
        raise SchemaError(
            f"the database {display_url(str(engine.url))} has no ratingdb schema: run `ratingdb init` first"
        )
    raise SchemaError(
        f"the database is at migration {current}, this ratingdb needs {head}: run `ratingdb init` to upgrade"
    )


def refuse_newer_schema(revision: str | None) -> None:
    """A migration this ratingdb does not know means a newer ratingdb wrote the database: never touch it."""
    if revision is None:
        return
    from alembic.script import ScriptDirectory
    from alembic.script.revision import RevisionError
    from alembic.util import CommandError

    try:
        known = ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except (RevisionError, CommandError):
        known = False
    if not known:
        raise SchemaError(
            f"the database is at migration {revision}, which this ratingdb does not know: a newer ratingdb "
            "wrote it — upgrade ratingdb (git pull, then pip install -e . in the checkout) to use this "
            "database"
        )
