"""The interface every engine module implements (`Backend`), with what the engines share as defaults.

A `Backend` is stateless: one instance per engine module, chosen by ratingdb.engines by the dialect's
name. It is not SQLAlchemy's Engine: it says *how* an engine does a thing, given the Engine, connection,
session or driver connection to do it on. The defaults here are the plain SQL that more than one engine
accepts; a module overrides what its engine does otherwise. Imports SQLAlchemy, ratingdb.errors,
ratingdb.schema.guards (the guards' messages) and ratingdb.engines.types (imported for what it registers:
how the models' own column type and CHECK conditions compile on each engine) only.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar

from sqlalchemy import URL, bindparam, create_engine
from sqlalchemy.exc import MultipleResultsFound, NoResultFound

import ratingdb.engines.types  # noqa: F401  registers how the models' own column type and CHECKs compile
from ratingdb.errors import ConfigError, RatingDbError
from ratingdb.schema import guards

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement, Connection, Engine, Select
    from sqlalchemy.engine.interfaces import Dialect
    from sqlalchemy.orm import QueryableAttribute, Session
    from sqlalchemy.pool import PoolProxiedConnection

    from ratingdb.engines.adhoc import QueryResult
    from ratingdb.engines.copies import Backup

T = TypeVar("T")

URL_FORM = "e.g. sqlite:///ratingdb.sqlite or postgresql+psycopg://user@localhost/ratingdb"

# An ID counter: (table, column) → the last value handed out before a dry run (None: none yet).
IdCounters = dict[tuple[str, str], int | None]

# A query on the driver connection: SQL written with `?` placeholders and its parameters → rows.
Rows = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


# The threads that run the web app's signed-in side (ratingdb.web.app sets anyio's thread pool, 40 by
# default, to THREADS). The public routes have threads of their own, each engine's `reader_threads`, and
# the read-only engine as many connections: so a route never waits for one, and all kept open (a
# connection opened and closed per request cost its set-up each time). A route holds its connection only
# while it holds its thread (ratingdb.web.deps.ServedRoute), so fewer threads than clients cannot deadlock.
THREADS = 16
READERS = THREADS


class Backend:
    """How one engine does what differs between engines. Subclasses set the class attributes."""

    name: ClassVar[str]  # SQLAlchemy's dialect name
    label: ClassVar[str]  # how sentences name the engine
    driver_scheme: ClassVar[str]  # the scheme of the URLs ratingdb writes, e.g. postgresql+psycopg
    default_port: ClassVar[int | None] = None
    placeholder: ClassVar[str] = "%s"  # the driver's paramstyle ("?" qmark, "%s" format)
    in_one_file: ClassVar[bool] = False  # the database is a file (SQLite) rather than on a server
    has_accounts: ClassVar[bool] = True  # server accounts with privileges (SQLite: whoever writes the file)
    # Bulk writes on a thread of their own overlap the caller's Python work (services/bulk.py): worth it
    # where the driver releases the GIL while the server works.
    background_writes: ClassVar[bool] = True
    binary_copy: ClassVar[bool] = False  # bulk writes can take values in binary (PostgreSQL's COPY)
    # The DDL type of a file's bytes (ratingdb.schema.types.FileContent), None for the engine's LargeBinary.
    file_content_type: ClassVar[str | None] = None

    # -- URLs and engines ------------------------------------------------------------------------------

    def refuse_without_slashes(self, url: str, scheme: str, rest: str) -> None:
        """`url` is `scheme:rest` without `//`: say how to write it."""
        raise ConfigError(
            f"the database URL has no '//' after '{scheme}:' — write it as "
            f"{scheme}://user:password@host:port/dbname, {URL_FORM}"
        )

    def default_driver(self, parsed: URL, scheme: str) -> URL:
        """`parsed` with the driver ratingdb uses when the URL (scheme `scheme`) names none."""
        return parsed

    def check_url(self, parsed: URL, rest: str) -> None:
        """Refuse a URL that parses but cannot name a ratingdb database of this engine."""
        if not parsed.database:
            raise ConfigError(
                f"the {self.label} URL names no database — end it with the database's name, e.g. "
                f"{self.driver_scheme}://user@localhost/ratingdb"
            )

    def create_engine(self, parsed: URL, **kwargs: Any) -> Engine:
        """A SQLAlchemy Engine for `parsed`, with the settings every ratingdb connection needs."""
        return create_engine(parsed, **kwargs)

    def database_file(self, parsed: URL) -> Path | None:
        """The file holding the database (SQLite), None for a server or an in-memory database."""
        return None

    def database_size(self, conn: Connection) -> int | None:
        """The database's size in bytes where the server says so cheaply, else None (`serve --metrics`)."""
        return None

    def holds_ratingdb(self, path: Path) -> bool:
        """Whether the file `path` is a database of this engine with ratingdb's tables (in_one_file)."""
        return False

    # Whether the read-only engine pings a pooled connection at each check-out (one round trip), so that a
    # connection the server has closed (a restart, a standby back up, an idle timeout) costs no request.
    # An engine whose read_only_connection finds that out by its first statement needs no ping.
    reader_pre_ping: ClassVar[bool] = True
    # The threads that answer the public routes (and the read-only engine's connections): where a request
    # waits for the server, more threads overlap the waits; where the engine works in the process (SQLite),
    # each thread only adds hand-overs of the interpreter's lock (bench/RESULTS.md, issue 28, "threads").
    reader_threads: ClassVar[int] = READERS
    # Whether the public routes run in the event loop itself rather than in those threads: where the
    # engine never waits for a server, a thread only adds the hand-overs of the lock to and from the loop.
    reader_in_event_loop: ClassVar[bool] = False

    # Whether the public routes run in greenlets in the event loop, on SQLAlchemy's asyncio engine: each
    # wait for the server goes back to the loop, which answers other requests meanwhile, without the
    # threads' hand-overs of the interpreter's lock (read_only_engine's `in_event_loop`).
    reader_in_greenlets: ClassVar[bool] = False

    def read_only_engine(self, parsed: URL, *, in_event_loop: bool = False) -> Engine:
        """An engine whose connections cannot write (the public web side; engines.urls.read_only_engine)."""
        return self.create_engine(
            parsed, pool_pre_ping=self.reader_pre_ping, pool_size=self.reader_threads, max_overflow=0
        )

    # -- transactions and locks ------------------------------------------------------------------------

    def end_read_only(self, connection: Connection) -> None:
        """End the read-only transaction of `connection` before its session's rollback, where the engine
        ends it otherwise (PostgreSQL's begun by hand); here the rollback ends it."""

    def begin_read_only(self, connection: Connection) -> None:
        """Make the transactions of `connection` read one consistent snapshot (db.read_transaction)."""
        connection.execution_options(isolation_level="REPEATABLE READ")

    @contextmanager
    def read_only_connection(self, engine: Engine) -> Iterator[Connection]:
        """A connection of `engine` whose transaction reads one consistent snapshot (begin_read_only)."""
        with engine.connect() as connection:
            self.begin_read_only(connection)
            yield connection

    @contextmanager
    def read_only_snapshot(
        self, engine: Engine, first: Select[tuple[int]]
    ) -> Iterator[tuple[Connection, int]]:
        """A read_only_connection and the value of its transaction's first statement, `first` (a query of
        one integer): an engine may send that statement with the transaction's beginning, in one round
        trip (PostgreSQL's read-only engine), and where the reader pings no connection, that statement
        finds one the server has closed."""
        with self.read_only_connection(engine) as connection:
            yield connection, int(connection.scalar(first) or 0)

    def read_row(self, engine: Engine, query: Select[Any], params: Mapping[str, Any]) -> tuple[Any, ...]:
        """The one row of `query` on a pooled connection of `engine`, outside any transaction of the
        caller's: a statement reads one consistent snapshot on its own (the served site's player page and
        data version, each checked against the version its site was made for). Sent by the driver alone
        (one_row): a tenth of a player page's CPU went to SQLAlchemy's connection, execution and result
        objects around it (bench/RESULTS.md, issue 28)."""
        raw = engine.raw_connection()
        try:
            return one_row(raw, engine.dialect, query, params)
        finally:
            raw.close()

    def hold_lock(self, session: Session, key: str, wait_seconds: int) -> bool:
        """Hold the lock named `key` until the session's transaction ends; False if not granted in time.

        The single-flight lock of closes and imports (services/lists.py, lock_periods): taken and let go
        of here, in the engine's module.
        """
        raise NotImplementedError

    def id_counters(self, engine: Engine) -> IdCounters:
        """The ID counters that a rollback leaves advanced, read on a connection of their own (none where
        the counters roll back with the rest)."""
        return {}

    def restore_id_counters(self, engine: Engine, before: IdCounters, moved: list[tuple[str, str]]) -> None:
        """Put back the counters `moved` a dry run advanced, never below an ID another transaction
        committed (db.transaction). May raise DBAPIError: the caller leaves the counters advanced then."""

    # -- raw SQL and bulk writes on the driver connection (services/bulk.py) ---------------------------

    def native(self, sql: str) -> str:
        """`sql`, written with `?` placeholders, in the driver's placeholder style."""
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """The condition "`column` is one of `values`" (with `?` placeholders) and its parameters."""
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)

    def one_of(
        self, column: ColumnElement[Any] | QueryableAttribute[Any], values: Sequence[Any]
    ) -> ColumnElement[bool]:
        """The SQLAlchemy condition "`column` is one of `values`", for a statement of the ORM or Core
        (`among` is its counterpart for SQL written by hand)."""
        return column.in_(values)

    def among_bound(
        self, column: ColumnElement[Any] | QueryableAttribute[Any], name: str
    ) -> ColumnElement[bool]:
        """The SQLAlchemy condition "`column` is one of the values bound as `name`" (a list given at each
        execution), for a statement built once and run with many lists (`one_of` is for one list)."""
        return column.in_(bindparam(name, expanding=True))

    def prepare_bulk(self, raw: Any) -> Callable[[], None] | None:
        """Tune the driver connection `raw` for bulk work; returns what puts it back, if anything."""
        return None

    def write_rows(
        self, cursor: Any, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]],
        types: list[str] | None,
    ) -> None:  # fmt: skip
        """Insert `rows` into `table` through the driver's cursor (`types`: for a binary COPY only)."""
        marks = ", ".join([self.placeholder] * len(columns))
        cursor.executemany(f"INSERT INTO {table} ({column_list(columns)}) VALUES ({marks})", rows)

    def column_types(self, cursor: Any, table: str, columns: tuple[str, ...]) -> list[str]:
        """The engine's type names of `columns`, as a binary bulk write needs them (binary_copy only)."""
        raise NotImplementedError

    def reserve_ids(self, rows: Rows, table: str, count: int) -> list[int]:
        """`count` new ids for rows of `table` written with explicit ids, free until the transaction ends.

        The default takes those after the highest one in the table: right where the transaction holds the
        table's writes to itself (SQLite's BEGIN IMMEDIATE) — an engine with sequences overrides it.
        """
        highest = int(rows(f"SELECT COALESCE(MAX(id), 0) FROM {table}", ())[0][0])
        return list(range(highest + 1, highest + 1 + count))

    def numeric_text(self, column: str) -> str:
        """The SQL condition "`column` is a number of 1 to 18 ASCII digits" (a numeric national ID)."""
        return f"{column} REGEXP '^[0-9]{{1,18}}$'"

    def highest_number(self, table: str, column: str) -> str:
        """A query for the highest number held as text in `column` (rows where numeric_text holds)."""
        return f"SELECT MAX(CAST({column} AS BIGINT)) FROM {table} WHERE {self.numeric_text(column)}"

    def serialise_numbering(self, rows: Rows, key: str) -> None:
        """Make a second transaction that hands out numbers under `key` wait until this one ends.

        Nothing by default: the engine's write lock or the unique index already does it.
        """

    def drop_temporary_table(self, name: str) -> str:
        """The statement that drops the temporary table `name` if it exists (without a commit)."""
        return f"DROP TABLE IF EXISTS {name}"

    def count_up(self, table: str, key: Sequence[str], counter: str, also: Sequence[str]) -> str:
        """One statement that adds a row of `table` with `counter` at 1 or, where the row of the same `key`
        columns is there, adds 1 to its `counter`; both set the `also` columns. Each column is bound by its
        own name. One statement, so that writers at the same moment cannot lose a count (a read, then a
        write, can) nor deadlock (an UPDATE, then an INSERT where it found nothing, can)."""
        return (
            f"{counting_insert(table, key, counter, also)} ON CONFLICT ({', '.join(key)}) "
            f"DO UPDATE SET {counting_set(table, counter, also)}"
        )

    def hash_joins(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The statements run before and after a bulk INSERT … SELECT whose lists the planner may not know
        yet (rows written in this transaction or since the statistics were last gathered): none here."""
        return (), ()

    @contextmanager
    def whole_lists_joined(self, session: Session) -> Iterator[None]:
        """The block's statements join whole lists (two lists' entries by player), which the planner may not
        know yet: run them with `hash_joins`. Read the rows inside the block. Where a statement fails the
        transaction ends, and with it the setting."""
        from sqlalchemy import text

        before, after = self.hash_joins()
        for statement in before:
            session.execute(text(statement))
        yield
        for statement in after:
            session.execute(text(statement))

    def allow_deep_recursion(self, session: Session) -> None:
        """Let a recursive query of the session run for a million rows (see MySQL's module)."""

    # -- what a failure means (ratingdb/db_errors.py) --------------------------------------------------

    def where(self, parsed: URL) -> str:
        """Host, port and database: all a connection error names (never the user or the password)."""
        port = parsed.port or self.default_port
        host = f"{parsed.host or 'localhost'}{f':{port}' if port else ''}"
        return f"{self.label} at {host} (database {parsed.database or 'not given'})"

    def explain(self, message: str, parsed: URL, *, connecting: bool) -> RatingDbError | None:
        """The sentence for the driver's error `message`, if this engine has one for it."""
        return None

    # -- backups (ratingdb/backup.py) ------------------------------------------------------------------

    def backup(self, parsed: URL, target: Path, *, force: bool, head: str | None) -> Backup:
        """A consistent copy of the database at `parsed` in `target`."""
        raise ConfigError(f"ratingdb cannot back up a {self.name} database — use the server's own tools")

    # -- accounts (ratingdb/accounts.py) ---------------------------------------------------------------

    def account_setup(self, database: str, owner: str, officer: str, reader: str) -> list[str]:
        """The statements an administrator runs once to make the accounts (checked names)."""
        return []

    def privilege_warnings(self, conn: Connection) -> list[str]:
        """Sentences about rights of the connecting account that let it get past the guards."""
        return []

    def sql_warnings(self, conn: Connection) -> list[str]:
        """What `ratingdb sql` says about an account that may do more than read."""
        return []

    # -- `ratingdb sql` (ratingdb/reports/sql.py checks the arguments; ratingdb/engines/adhoc.py has what
    # the engines share) ----------------------------------------------------------------------------------

    def run_read_only(self, engine: Engine, statement: str, timeout: float, max_rows: int) -> QueryResult:
        """Run one statement so that it cannot write, and return its first `max_rows` rows.

        A write or a second statement is refused (adhoc.StatementRefused), and a statement running (or
        waiting for a lock) longer than `timeout` seconds is stopped. Rows are fetched as a stream: at most
        max_rows + 1 of them are ever held, and their text and blob values within adhoc.MAX_RESULT_BYTES.
        """
        raise ConfigError(f"ratingdb sql supports SQLite, PostgreSQL and MySQL, not {self.label}")

    def repair_reader(self, conn: Connection) -> str | None:
        """Set up the `sql` reader again where a restore broke it; the sentence to print, if any."""
        return None

    # -- CHECK conditions (ratingdb/schema/checks.py states the rules and composes these pieces) ---------
    # Like the guards: a migration copies the SQL they make (it is frozen), so a piece may change only with
    # a new migration that needs the new form.

    def typed_integer(self, column: str) -> str | None:
        """A condition that `column` holds an integer, None where the column's type already ensures it."""
        return None

    def typed_text(self, column: str) -> str | None:
        """A condition that `column` holds a text, None where the column's type already ensures it."""
        return None

    def character_length(self, column: str) -> str:
        """The length of the text in `column`, counted in characters (not bytes)."""
        raise NotImplementedError

    def refuses_characters(self, column: str, ranges: Sequence[tuple[int, int]]) -> str:
        """A condition that `column` holds no character of the code point `ranges` (low, high; inclusive)."""
        raise NotImplementedError

    def is_one_of(self, column: str, values: Sequence[str]) -> str:
        """A condition that `column` equals one of `values` (SQL literals, already quoted)."""
        return f"{column} IN ({', '.join(values)})"

    def period_text(self, column: str) -> str:
        """A condition that `column` is a rating period written 'YYYY-MM' (a month from 01 to 12)."""
        raise NotImplementedError

    # -- guards (what they refuse: ratingdb/schema/guards.py) -----------------------------------------
    # The trigger DDL and CHECK conditions of new migrations: a migration copies what these return (it
    # is frozen), so an operation here may change only with a new migration that needs the new form.

    sql_true: ClassVar[str] = "1"
    sql_false: ClassVar[str] = "0"

    def same(self, column: str) -> str:
        """NEW.column equals OLD.column, NULLs equal."""
        raise NotImplementedError

    def refusal(self, message: str) -> str:
        """The statement that refuses the row with `message` (a plain sentence without quotes)."""
        raise NotImplementedError

    def versioned_guard(self, table: str, allowed: str, update_msg: str, delete_msg: str) -> list[str]:
        """Triggers: rows of `table` are never deleted, and updated only where `allowed` holds."""
        raise NotImplementedError

    def owned_versioned_guard(
        self, table: str, allowed: str, owned: str, update_msg: str, delete_msg: str
    ) -> list[str]:
        """Like versioned_guard, except that a DELETE is refused only while `owned` holds."""
        raise NotImplementedError

    def drop_versioned_guard(self, table: str) -> list[str]:
        return [f"DROP TRIGGER trg_{table}_versioned_update", f"DROP TRIGGER trg_{table}_versioned_delete"]

    def sealed_guard(
        self, table: str, parent: str, key: str, refuse_missing: bool, insert_msg: str, change_msg: str
    ) -> list[str]:
        """Triggers: rows of `table` never change, and none is inserted under a sealed `parent` row (nor,
        with `refuse_missing`, under none)."""
        raise NotImplementedError

    def drop_sealed_guard(self, table: str) -> list[str]:
        return [f"DROP TRIGGER trg_{table}_sealed_{action}" for action in ("insert", "update", "delete")]

    def no_truncate(self, table: str) -> list[str]:
        """What refuses a TRUNCATE of `table`, where row triggers do not see one (none elsewhere)."""
        return []

    def drop_no_truncate(self, table: str) -> list[str]:
        return []

    def refuse_truncate_function(self) -> list[str]:
        """What no_truncate's triggers call, made once (none where no_truncate makes nothing)."""
        return []

    # The guards, composed from the pieces above (ratingdb.schema.guards says what they refuse).

    def allowed_versioned_update(self, columns: Sequence[str], one_way_flags: Sequence[str] = ()) -> str:
        """SQL condition: the UPDATE only withdraws the row (and may set each of `one_way_flags` false →
        true). `columns` are all the table's columns; every one not named here must stay as it was."""
        free = set(guards.WITHDRAW_COLUMNS) | set(one_way_flags)
        true, false = self.sql_true, self.sql_false
        parts = [self.same(c) for c in columns if c not in free]
        for flag in one_way_flags:
            parts.append(f"({self.same(flag)} OR (OLD.{flag} = {false} AND NEW.{flag} = {true}))")
        parts.append(
            "((" + " AND ".join(self.same(c) for c in guards.WITHDRAW_COLUMNS) + ") OR "
            f"(OLD.is_current = {true} AND NEW.is_current IS NULL "
            "AND OLD.withdrawn_by IS NULL AND NEW.withdrawn_by IS NOT NULL))"
        )
        return "(" + " AND ".join(parts) + ")"

    def versioned_table_guard(
        self, table: str, columns: Sequence[str], one_way_flags: Sequence[str] = ()
    ) -> list[str]:
        """Triggers: rows of `table` are never deleted and only updated by the one-way withdrawal."""
        update_msg, delete_msg = guards.versioned_messages(table)
        allowed = self.allowed_versioned_update(columns, one_way_flags)
        return self.versioned_guard(table, allowed, update_msg, delete_msg)

    def owned_versioned_table_guard(
        self, table: str, columns: Sequence[str], owner: str, key: str
    ) -> list[str]:
        """Triggers: like `versioned_table_guard`, except that the rows go when their owner row goes.

        Versions of a player's details are removed only by the cascade of removing the player itself (an
        unreferenced player registered by a deleted event): a DELETE is refused while the `owner` row that
        `key` points at still exists.
        """
        update_msg, delete_msg = guards.versioned_messages(table)
        owned = f"EXISTS (SELECT 1 FROM {owner} WHERE id = OLD.{key})"
        return self.owned_versioned_guard(
            table, self.allowed_versioned_update(columns), owned, update_msg, delete_msg
        )

    def sealed_rows_guard(
        self, table: str, parent: str = "rating_list", key: str = "list_id", *, refuse_missing: bool = False
    ) -> list[str]:
        """Triggers: rows of `table` are never updated or deleted, and never inserted under a sealed parent.

        The parent row (a list) is written unsealed, filled, then sealed in the same transaction. With
        `refuse_missing` (migration 0016, which dropped the tables' foreign keys), a row whose parent does
        not exist is refused too: the insert side of the list's foreign key.
        """
        insert_msg, change_msg = guards.sealed_messages(table, refuse_missing=refuse_missing)
        return self.sealed_guard(table, parent, key, refuse_missing, insert_msg, change_msg)

    @staticmethod
    def _sealed_parent(parent: str, key: str, refuse_missing: bool) -> str:
        """SQL over NEW: the row's parent is sealed (or, with `refuse_missing`, does not exist)."""
        sealed = f"(SELECT sealed FROM {parent} WHERE id = NEW.{key})"
        if refuse_missing:  # no parent row: NULL, refused like a sealed one
            sealed = f"COALESCE({sealed}, TRUE)"
        return sealed


def column_list(columns: tuple[str, ...]) -> str:
    """Column names for raw SQL, quoted: `change` is a reserved word in MySQL (ANSI_QUOTES is on there)."""
    return ", ".join(f'"{column}"' for column in columns)


class _RowQuery(NamedTuple):
    sql: str
    compiled: Any  # SQLAlchemy's compiled form: the parameters' names and constants
    positions: tuple[str, ...] | None  # the parameters' order, for a driver that takes them in order
    row: Any  # a named tuple of the query's columns


@lru_cache(maxsize=32)
def _row_query(query: Select[Any], dialect: Dialect) -> _RowQuery:
    compiled = query.compile(dialect=dialect)
    for column in query.selected_columns:
        if column.type.dialect_impl(dialect).result_processor(dialect, None) is not None:
            raise TypeError(f"{column}: one_row reads plain values, but the driver's need converting")
    positions = tuple(compiled.positiontup or ()) if dialect.positional else None
    names = [str(column.key) for column in query.selected_columns]
    return _RowQuery(str(compiled), compiled, positions, namedtuple("Row", names, rename=True))


def one_row(
    raw: PoolProxiedConnection, dialect: Dialect, query: Select[Any], params: Mapping[str, Any]
) -> tuple[Any, ...]:
    """The one row of `query` (a statement built once, whose columns are values the driver gives as they
    are: numbers and text), run with `params` on `raw`, a pooled driver connection of an engine of
    `dialect`, as a named tuple of its columns; NoResultFound or MultipleResultsFound as SQLAlchemy's
    `one()` raises them."""
    found = _row_query(query, dialect)
    values = found.compiled.construct_params(params)
    cursor = raw.cursor()
    try:
        cursor.execute(
            found.sql, values if found.positions is None else [values[name] for name in found.positions]
        )
        rows = cursor.fetchmany(2)
    finally:
        cursor.close()
    if not rows:
        raise NoResultFound("No row was found when one was required")
    if len(rows) > 1:
        raise MultipleResultsFound("Multiple rows were found when exactly one was required")
    row: tuple[Any, ...] = found.row._make(rows[0])
    return row


def counting_insert(table: str, key: Sequence[str], counter: str, also: Sequence[str]) -> str:
    """The INSERT of Backend.count_up, without what it does on a conflict."""
    columns = [*key, *also]
    return (
        f"INSERT INTO {table} ({', '.join([*columns, counter])}) "
        f"VALUES ({', '.join([*(f':{c}' for c in columns), '1'])})"
    )


def counting_set(table: str, counter: str, also: Sequence[str]) -> str:
    """What Backend.count_up sets in a row that was there."""
    return ", ".join([f"{counter} = {table}.{counter} + 1", *(f"{c} = :{c}" for c in also)])
