"""Engines, sessions and schema upgrades: URL handling, transactions, dry runs, migrations.

Nothing happens at import time. Alembic is imported only by the functions that run or inspect
migrations (`init`, `db`, tests): every other command checks the schema with one query against
alembic_version and the head read from the migration files' `revision =` lines, so it does not pay
Alembic's start-up time. The ORM is imported only when a session is made. What differs between the
engines (their settings, read-only snapshots, ID counters) is an operation of ratingdb.engines.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DBAPIError

from ratingdb import engines
from ratingdb.engines import urls
from ratingdb.engines.base import IdCounters
from ratingdb.errors import ConfigError, SchemaError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Connection, Select
    from sqlalchemy.orm import Session, sessionmaker

    from ratingdb.engines.base import Backend


# URLs and the engine made for one are the engines' (ratingdb/engines/urls.py); given to everyone here.
parse_url = urls.parse_url
make_engine = urls.make_engine
read_only_engine = urls.read_only_engine


def display_url(url: str) -> str:
    """The URL as it may be printed: the password is always hidden."""
    try:
        return parse_url(url).render_as_string(hide_password=True)
    except ConfigError:
        return "<unreadable URL>"


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
            session.info[DRY_RUN] = True  # what services that only check read (is_dry_run)
            try:
                yield session
            finally:
                session.rollback()
    finally:
        _restore_id_counters(engine, counters)


DRY_RUN: Final = "ratingdb.dry_run"


class UnitOfWork:
    """The one unit of work of every front end: the CLI, the desk and `ratingdb.api` hand it to the use
    cases that span transactions (services.closing: a close of several periods with a copy before each).

    `transaction` is one transaction (committed when the block ends normally, rolled back otherwise; with
    `dry_run` always rolled back, ID counters put back: `transaction` above), `read` one that only reads
    from one snapshot. Each transaction's session gets `info` (the desk's signed-in actor, read by
    services.versions.record_change) and is shown to `on_begin` first (the CLI says there what the
    connecting account may do). Inside one transaction, SQLAlchemy's Session is the unit of work.
    The web app's Database extends it with its reader and snapshot; ratingdb.api's Database is it.
    """

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        info: Mapping[str, object] | None = None,
        on_begin: Callable[[Session], None] | None = None,
    ) -> None:
        self._engine = engine
        self.info: dict[str, object] = dict(info or {})
        self.on_begin = on_begin

    @property
    def engine(self) -> Engine:
        """The engine the transactions run on (the web app's: its primary, made when first needed)."""
        if self._engine is None:
            raise ConfigError("this unit of work has no database")
        return self._engine

    @property
    def url(self) -> str:
        """The database's URL, password included (for the copies a use case makes: never print it)."""
        return self.engine.url.render_as_string(hide_password=False)

    def acting_as(self, actor: str) -> UnitOfWork:
        """The same database, each change audited as `actor`'s (the desk's signed-in user)."""
        return UnitOfWork(self.engine, info={**self.info, "actor": actor}, on_begin=self.on_begin)

    @contextmanager
    def transaction(self, *, dry_run: bool = False) -> Iterator[Session]:
        """One transaction: committed when the block ends normally, rolled back when it raises.

        With `dry_run` it is always rolled back: the block's work can be read inside it (a summary, the
        rating changes of a close) and nothing is written; the IDs handed out are handed out again.
        """
        with transaction(self.engine, dry_run=dry_run) as session:
            session.info.update(self.info)
            if self.on_begin is not None:
                self.on_begin(session)
            yield session

    @contextmanager
    def dry_run(self) -> Iterator[Session]:
        """`transaction(dry_run=True)`: a transaction that is always rolled back."""
        with self.transaction(dry_run=True) as session:
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """One transaction that only reads, from one consistent snapshot; writers are not held up.

        It is rolled back when the block ends: use the rows and objects read inside the block.
        """
        with read_transaction(self.engine) as session:
            session.info.update(self.info)
            yield session

    def close(self) -> None:
        """Close the database's connections."""
        if self._engine is not None:
            self._engine.dispose()


def is_dry_run(session: Session) -> bool:
    """Whether the session's transaction is a dry run (`transaction(dry_run=True)`): always rolled back."""
    return bool(session.info.get(DRY_RUN))


def id_counters(engine: Engine) -> IdCounters:
    """The ID counters that a rollback leaves advanced, read on a connection of their own."""
    return engines.of(engine).id_counters(engine)


def _restore_id_counters(engine: Engine, before: IdCounters) -> None:
    """Put back the counters a dry run advanced, never below an ID another transaction committed (each
    backend's restore_id_counters says how). Best effort: a counter that cannot be put back (a lock not
    granted in time, no privilege) only means the next IDs have a gap, as after any rolled-back
    transaction.
    """
    if not before:
        return
    moved = [key for key, value in id_counters(engine).items() if key in before and value != before[key]]
    if not moved:
        return
    try:
        engines.of(engine).restore_id_counters(engine, before, moved)
    except DBAPIError:
        pass  # the counters stay advanced: gaps in the IDs, nothing else


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Session]:
    """One session that only reads, from one consistent snapshot, and is always rolled back.

    For long reads (a published site): SQLite takes no write lock, so imports and closes go on meanwhile;
    PostgreSQL runs the transaction READ ONLY at REPEATABLE READ, MySQL/MariaDB at REPEATABLE READ, so
    every query sees the same data.
    """
    with engines.of(engine).read_only_connection(engine) as connection, _rolled_back(connection) as session:
        yield session


@contextmanager
def read_snapshot(engine: Engine, first: Select[tuple[int]]) -> Iterator[tuple[Session, int]]:
    """A read_transaction and the value of its first statement, `first` (a query of one integer: the
    served site's data version), which the engine may send with the transaction's beginning in one round
    trip (Backend.read_only_snapshot)."""
    with engines.of(engine).read_only_snapshot(engine, first) as (connection, value):
        with _rolled_back(connection) as session:
            yield session, value


def read_row(engine: Engine, query: Select[Any], params: Mapping[str, Any]) -> tuple[Any, ...]:
    """The one row of `query` read outside a transaction (Backend.read_row): no BEGIN and no ROLLBACK
    where the engine can send the statement alone."""
    return engines.of(engine).read_row(engine, query, params)


@contextmanager
def _rolled_back(connection: Connection) -> Iterator[Session]:
    from sqlalchemy.orm import Session

    with Session(bind=connection, expire_on_commit=False) as session:
        try:
            yield session
        finally:
            try:
                engines.of(connection).end_read_only(connection)
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


def backend(url: str) -> Backend:
    """The backend (ratingdb.engines) of the database at `url`."""
    return urls.backend_of(parse_url(url))


def database_file(url: str) -> Path | None:
    """The file holding the database at `url` (SQLite), None for a server or an in-memory database."""
    return backend(url).database_file(parse_url(url))


def refuse_missing_sqlite_file(url: str) -> None:
    """A command that needs a schema does not create an empty SQLite file by opening a mistyped path."""
    path = database_file(url)
    if path is not None and not path.exists():
        raise SchemaError(
            f"the SQLite database {path} does not exist — check the path, or run `ratingdb init` to create it"
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
