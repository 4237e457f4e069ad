"""PostgreSQL through psycopg 3: advisory locks, sequences, COPY, pg_dump, roles.

Everything ratingdb does differently on PostgreSQL is here: the URL's driver, READ ONLY snapshots, the
single-flight lock (`pg_advisory_xact_lock`, let go of by the transaction's end), sequences put back
after a dry run, `= ANY(array)`, COPY (binary where the caller's values have the columns' types), ids
from the sequence, regular expressions for numeric text, the sentences for psycopg's connection errors,
pg_dump, the reader role of the web side, `ratingdb sql`'s bounded read-only runner and the accounts'
set-up. psycopg itself is imported by SQLAlchemy when it connects; here only inside `ratingdb sql`'s runner.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from sqlalchemy import ARRAY, URL, Engine, any_, bindparam, event, text
from sqlalchemy.exc import DBAPIError

from ratingdb.engines import adhoc
from ratingdb.engines.base import Backend, IdCounters, Rows, column_list, one_row
from ratingdb.engines.copies import private_file
from ratingdb.errors import ConfigError, RatingDbError
from ratingdb.schema import guards

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement, Connection, Select
    from sqlalchemy.orm import QueryableAttribute, Session

    from ratingdb.engines.copies import Backup

log = logging.getLogger("ratingdb.web")
T = TypeVar("T")

# The role of `ratingdb sql` and the public web side: SELECT on ratingdb's tables and views, nothing else
# (made by migration 0008; repaired by `ratingdb init`, repair_reader).
READER_ROLE: Final = "ratingdb_reader"
# Made by the sql_reader migration beside the role: a SECURITY DEFINER function owned by it that runs one
# query with the role's rights only (`ratingdb sql`, run_read_only).
READER_FUNCTION: Final = "ratingdb_read_only"
# The planner's cost of a random page for the public side's reads (its sessions only).
READER_RANDOM_PAGE_COST: Final = 1.1
PG_WORK_MEM: Final = "16MB"  # each sort and hash of a `ratingdb sql` query in memory
# Server roles whose rights reach past the database: files, programs, replication, other sessions.
_PG_DANGEROUS_ROLES: Final = (
    "pg_execute_server_program",
    "pg_read_server_files",
    "pg_write_server_files",
    "pg_signal_backend",
)

_SEQUENCES = """
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


class PostgreSQL(Backend):
    name = "postgresql"
    label = "PostgreSQL"
    driver_scheme = "postgresql+psycopg"
    default_port = 5432
    binary_copy = True

    # -- URLs and engines ------------------------------------------------------------------------------

    def default_driver(self, parsed: URL, scheme: str) -> URL:
        if scheme in ("postgres", "postgresql"):  # no driver named: psycopg (version 3)
            return parsed.set(drivername="postgresql+psycopg")
        return parsed

    def check_url(self, parsed: URL, rest: str) -> None:
        if parsed.drivername != "postgresql+psycopg":
            raise ConfigError(
                f"ratingdb talks to PostgreSQL through psycopg (version 3), not {parsed.drivername}: "
                "write the URL as postgresql+psycopg://user:password@host/dbname"
            )
        super().check_url(parsed, rest)

    def read_only_engine(self, parsed: URL, *, in_event_loop: bool = False) -> Engine:
        """Every transaction READ ONLY (the session's default), run as ratingdb_reader where the login
        may become it (the role has SELECT and nothing else)."""
        # In autocommit at the driver: the reader's transactions are begun by read_only_connection and
        # read_only_snapshot themselves, which can send BEGIN together with the first query.
        settings: dict[str, Any] = {
            "pool_pre_ping": self.reader_pre_ping,
            "pool_size": self.reader_threads,
            "max_overflow": 0,
            "isolation_level": "AUTOCOMMIT",
        }
        if in_event_loop:
            from sqlalchemy.ext.asyncio import create_async_engine

            engine = create_async_engine(parsed, **settings).sync_engine
        else:
            engine = self.create_engine(parsed, **settings)

        @event.listens_for(engine, "connect")
        def _pg_reader(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                # The reader asks for a few rows at a time of data that is in memory: a random page costs
                # about what a sequential one does. At the default of 4 the planner joined a player's 170
                # games to their opponents by hashing all 20,000 players: 5.7 ms instead of 0.65 ms on the
                # serve bench's player page (bench/RESULTS.md, issue 28). Left alone where it is lower.
                cursor.execute(
                    "SELECT set_config('random_page_cost', %s, false) "
                    "WHERE current_setting('random_page_cost')::float8 > %s",
                    [str(READER_RANDOM_PAGE_COST), READER_RANDOM_PAGE_COST],
                )
                cursor.execute(
                    "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = %s) "
                    "AND pg_has_role(session_user, %s, 'MEMBER')",
                    [READER_ROLE, READER_ROLE],
                )
                row = cursor.fetchone()
                if row is not None and row[0]:
                    cursor.execute(f"SET ROLE {READER_ROLE}")
                else:
                    log.warning(
                        "the login cannot become %s: public pages read as it, in READ ONLY transactions",
                        READER_ROLE,
                    )
            finally:
                cursor.close()
            dbapi_connection.commit()

        return engine

    # -- transactions and locks ------------------------------------------------------------------------

    def begin_read_only(self, connection: Connection) -> None:
        # SET TRANSACTION rather than the postgresql_readonly option: SQLAlchemy puts that option back as
        # psycopg's read_only = False when the connection returns to the pool, and every later
        # transaction on it then begins READ WRITE, which a standby refuses (the site's --read-url).
        connection.execution_options(isolation_level="REPEATABLE READ")
        connection.exec_driver_sql("SET TRANSACTION READ ONLY")

    # The read-only engine's transactions begin with a statement of their own (BEGIN, sent with the first
    # query by read_only_snapshot), which finds a connection the server closed as a ping would, without
    # the ping's round trip on every request: another connection is taken then (bench/RESULTS.md, issue 28,
    # "stack").
    reader_pre_ping = False

    # The public routes run in greenlets in the event loop (SQLAlchemy's asyncio engine on psycopg's
    # asynchronous connection): a request that waits for the server gives the loop back to the others.
    # With threads instead (4: psycopg lets go of the interpreter's lock at every wait, and 16 cost a quarter
    # more CPU a page) a player page cost 3.1-3.2 ms of the worker's CPU and the worker answered 285-299
    # pages a second; in greenlets 2.7-2.9 ms and 349-362 (bench/RESULTS.md, issue 28). Four reader
    # connections: 2 answered fewer pages a second, 8 no more than 4.
    reader_threads = 4
    reader_in_greenlets = True

    @contextmanager
    def read_only_connection(self, engine: Engine) -> Iterator[Connection]:
        with self._snapshot(engine, None) as (connection, _):
            yield connection

    @contextmanager
    def read_only_snapshot(
        self, engine: Engine, first: Select[tuple[int]]
    ) -> Iterator[tuple[Connection, int]]:
        with self._snapshot(engine, _plain_sql(first)) as (connection, value):
            yield connection, int(value or 0)

    @contextmanager
    def _snapshot(self, engine: Engine, first: str | None) -> Iterator[tuple[Connection, Any]]:
        """A READ ONLY, REPEATABLE READ transaction on a connection of `engine`, and the value of its
        first query `first` (plain SQL without parameters), if any.

        On the read-only engine (autocommit at the driver: read_only_engine) BEGIN is sent by hand, with
        the first query in the same round trip (a simple query of two statements): one round trip where
        psycopg's own BEGIN, SET TRANSACTION READ ONLY and the query took three, 0.38 → 0.15 ms of CPU a
        request (bench/RESULTS.md, issue 28). Any other engine's transaction begins as psycopg begins it
        (begin_read_only). Either way a connection the server has closed is replaced (_connected).
        """
        import psycopg

        def begin(connection: Connection) -> Any:
            driver = connection.connection.driver_connection
            if isinstance(driver, psycopg.Connection) and driver.autocommit:
                return _begin_by_hand(driver, first)
            if isinstance(driver, psycopg.AsyncConnection) and driver.autocommit:
                from sqlalchemy.util import await_

                return await_(_begin_by_hand_async(driver, first))
            self.begin_read_only(connection)
            return None if first is None else connection.exec_driver_sql(first).scalar()

        connection, value = _connected(engine, begin)
        try:
            yield connection, value
        finally:
            connection.close()

    def end_read_only(self, connection: Connection) -> None:
        # A transaction begun by hand (_snapshot) ends with COMMIT, sent by hand: it wrote nothing, so
        # COMMIT ends it as ROLLBACK would, and the session's rollback then finds nothing to end. psycopg
        # forgets every prepared statement of a connection at a ROLLBACK and sends DEALLOCATE ALL: ended so,
        # no statement of a served page's transaction ever stayed prepared, each parsed and planned anew
        # (the calculation's events 1.2 ms of the server's CPU a page: bench/RESULTS.md, issue 28).
        import psycopg
        from psycopg.pq import TransactionStatus

        driver = connection.connection.driver_connection
        if driver is None or not driver.autocommit:
            return
        if driver.info.transaction_status != TransactionStatus.INTRANS:
            return
        if isinstance(driver, psycopg.AsyncConnection):
            from sqlalchemy.util import await_

            await_(driver.execute("COMMIT"))
        else:
            driver.execute("COMMIT")

    def read_row(self, engine: Engine, query: Select[Any], params: Mapping[str, Any]) -> tuple[Any, ...]:
        # The read-only engine is in autocommit at the driver: the statement is sent alone, no BEGIN or
        # ROLLBACK around it. Its connection may be one the server has closed: _connected.
        connection, row = _connected(
            engine, lambda connection: one_row(connection.connection, engine.dialect, query, params)
        )
        connection.close()
        return row

    def hold_lock(self, session: Session, key: str, wait_seconds: int) -> bool:
        # A transaction-level advisory lock: the transaction's end lets go of it, whatever the pool does.
        session.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})
        return True

    def id_counters(self, engine: Engine) -> IdCounters:
        with engine.connect() as conn:
            return {(t, c): last for t, c, last in conn.execute(text(_SEQUENCES))}

    def restore_id_counters(self, engine: Engine, before: IdCounters, moved: list[tuple[str, str]]) -> None:
        """The tables are locked in SHARE mode for a moment (it waits for their writers to commit, so
        MAX(id) sees every ID handed out) and each sequence is set to the larger of its old value and
        MAX(id)."""
        with engine.connect() as conn:
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

    # -- raw SQL and bulk writes -----------------------------------------------------------------------

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        # One array parameter: ten thousand separate parameters cost PostgreSQL a quarter of a second a
        # query to plan.
        return f"{column} = ANY(?)", [list(values)]

    def one_of(
        self, column: ColumnElement[Any] | QueryableAttribute[Any], values: Sequence[Any]
    ) -> ColumnElement[bool]:
        # As `among`: one array parameter. An IN list of a few thousand values costs psycopg a scan of the
        # statement for its placeholders, SQLAlchemy a name for each, and the planner each parameter
        # (about 0.1 s of an import-trf of 2,600 players, client and server together).
        return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))

    def among_bound(
        self, column: ColumnElement[Any] | QueryableAttribute[Any], name: str
    ) -> ColumnElement[bool]:
        # As one_of: one array parameter. An expanded IN list is written out and named value by value at
        # each execution: for the two dozen closes a served player page asks, a tenth of its CPU
        # (bench/RESULTS.md, issue 28).
        return column == any_(bindparam(name, type_=ARRAY(column.type)))

    def write_rows(
        self, cursor: Any, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]],
        types: list[str] | None,
    ) -> None:  # fmt: skip
        # COPY is PostgreSQL's bulk path; the triggers and foreign keys still apply.
        binary = " (FORMAT BINARY)" if types is not None else ""
        with cursor.copy(f"COPY {table} ({column_list(columns)}) FROM STDIN{binary}") as copy:
            if types is not None:
                copy.set_types(types)
            for row in rows:
                copy.write_row(row)

    def column_types(self, cursor: Any, table: str, columns: tuple[str, ...]) -> list[str]:
        cursor.execute(
            "SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
            "WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped",
            (table,),
        )
        names = dict(cursor.fetchall())
        return [names[column] for column in columns]

    def reserve_ids(self, rows: Rows, table: str, count: int) -> list[int]:
        # The sequence found once (a subquery: an InitPlan), not once an id: pg_get_serial_sequence and the
        # cast of its text to regclass read the catalogs, 75–108 ms for 20,000 ids against 6 ms (psql), a
        # tenth of the server's CPU in an import-list (perf).
        sequence = f"(SELECT pg_get_serial_sequence('{table}', 'id')::regclass)"
        found = rows(f"SELECT nextval({sequence}) FROM generate_series(1, ?)", (count,))
        return [int(r[0]) for r in found]

    def hash_joins(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        # A list written in this transaction, or since the last ANALYZE, is estimated at one row (every
        # list_id the statistics know is in their most-common values), and the planner then rescans the
        # new list for every entry of the list in force (a nested-loop anti-join): 87 s instead of 0.1 s
        # for the copy at national after 24 monthly closes. ANALYZE would need the table's owner; hash
        # joins need no statistics to stay linear.
        return ("SET LOCAL enable_nestloop = off",), ("RESET enable_nestloop",)

    def numeric_text(self, column: str) -> str:
        return f"{column} ~ '^[0-9]{{1,18}}$'"

    def serialise_numbering(self, rows: Rows, key: str) -> None:
        # Held until the transaction ends: two imports at once do not hand out the same numbers.
        rows(f"SELECT pg_advisory_xact_lock(hashtext('{key}'))", ())

    # -- what a failure means --------------------------------------------------------------------------

    def explain(self, message: str, parsed: URL, *, connecting: bool) -> RatingDbError | None:
        from ratingdb.db_errors import DatabaseUnavailable, without_names

        lower = message.lower()
        where = self.where(parsed)
        port = parsed.port or self.default_port
        if "connection refused" in lower:
            return DatabaseUnavailable(
                f"cannot connect to {where}: the connection was refused — check that the server is running "
                f"and listens on port {port}"
            )
        unknown_host = (
            "name or service not known", "could not translate host name", "nodename nor servname",
            "temporary failure in name resolution", "no address associated",
        )  # fmt: skip
        if any(words in lower for words in unknown_host):
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
                f"cannot connect to {where}: the server did not answer in time — check the host, the port "
                "and any firewall between"
            )
        if "pg_hba.conf" in lower or "not permitted to log in" in lower:
            return DatabaseUnavailable(
                f"cannot connect to {where}: the server does not let this user connect from here — ask its "
                "administrator (pg_hba.conf)"
            )
        if "starting up" in lower or "shutting down" in lower or "too many clients" in lower:
            return DatabaseUnavailable(
                f"cannot connect to {where}: the server is busy ({without_names(message)}) — "
                "try again in a moment"
            )
        if connecting and ("server closed the connection" in lower or "terminating connection" in lower):
            return DatabaseUnavailable(
                f"cannot connect to {where}: the server closed the connection — try again"
            )
        return None

    # -- backups ---------------------------------------------------------------------------------------

    def backup(self, parsed: URL, target: Path, *, force: bool, head: str | None) -> Backup:
        """pg_dump's custom format (restore with pg_restore); the password goes through the environment."""
        from ratingdb.engines.copies import Backup, BackupFailed, refuse_target

        refuse_target(target, force, database=None)
        args = ["--format=custom", "--no-owner", f"--file={target}"]
        if parsed.host:
            args.append(f"--host={parsed.host}")
        if parsed.port:
            args.append(f"--port={parsed.port}")
        if parsed.username:
            args.append(f"--username={parsed.username}")
        args.append(f"--dbname={parsed.database or ''}")
        program = shutil.which("pg_dump")
        if program is None:
            shown = " ".join(["pg_dump", *args])
            raise ConfigError(
                "pg_dump is not installed here — install the PostgreSQL client tools, or run this where "
                f"they are: {shown} (restore with pg_restore)"
            )
        partial = target.with_name(f".{target.name}.partial")
        partial.unlink(missing_ok=True)
        private_file(partial)  # pg_dump writes into it, keeping its mode (0600)
        args[2] = f"--file={partial}"
        env = dict(os.environ, PGCONNECT_TIMEOUT="10")
        if parsed.password:
            env["PGPASSWORD"] = str(parsed.password)
        try:
            done = subprocess.run([program, *args], env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                reason = (done.stderr.strip().splitlines() or ["no message"])[-1].removeprefix("pg_dump: ")
                raise BackupFailed(f"pg_dump failed: {reason} — nothing was written to {target}")
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return Backup(target, target.stat().st_size, "pg_dump, custom format (restore with pg_restore)")

    # -- accounts --------------------------------------------------------------------------------------

    def account_setup(self, database: str, owner: str, officer: str, reader: str) -> list[str]:
        # The grants on the tables follow `ratingdb init` (the tables must exist): they come last.
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

    def database_size(self, conn: Connection) -> int | None:
        size = conn.exec_driver_sql("SELECT pg_database_size(current_database())").scalar()
        return int(size) if size is not None else None

    def privilege_warnings(self, conn: Connection) -> list[str]:
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

    def repair_reader(self, conn: Connection) -> str | None:
        """Runs in a savepoint of the caller's transaction, so a refusal leaves everything as it was."""
        if reader_usable(conn):
            return None
        try:
            with conn.begin_nested():
                conn.execute(text(READER_REPAIR))  # text(): the % of format() are not placeholders
        except DBAPIError as exc:
            if getattr(exc.orig, "sqlstate", None) != "42501":  # insufficient_privilege
                raise
            return (
                "Warning: `ratingdb sql` has no usable ratingdb_reader role here (as after pg_restore "
                "--no-owner) and this role may not repair it — run `ratingdb init` as the database's owner, "
                "a member of ratingdb_reader that may create roles (docs/guide/backups.md)"
            )
        return (
            "Restored the ratingdb_reader role's rights and its function ratingdb_read_only for `ratingdb "
            "sql` (they were missing or owned by another role, as after pg_restore --no-owner)."
        )

    # -- CHECK conditions (ratingdb/schema/checks.py composes them) ------------------------------------

    def character_length(self, column: str) -> str:
        return f"char_length({column})"

    def refuses_characters(self, column: str, ranges: Sequence[tuple[int, int]]) -> str:
        # PostgreSQL text cannot hold NUL at all; the class names code points, whatever the locale.
        def escape(code: int) -> str:
            return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

        spans = [max(low, 1) for low, _ in ranges]
        klass = "".join(
            escape(low) + ("" if low == high else "-" + escape(high))
            for low, (_, high) in zip(spans, ranges, strict=True)
        )
        return f"{column} !~ '[{klass}]'"

    def period_text(self, column: str) -> str:
        return f"{column} ~ '^[0-9]{{4}}-(0[1-9]|1[0-2])$'"

    # -- `ratingdb sql` ----------------------------------------------------------------------------------

    def run_read_only(
        self, engine: Engine, statement: str, timeout: float, max_rows: int
    ) -> adhoc.QueryResult:
        """A READ ONLY transaction, always rolled back, with statement_timeout and lock_timeout.

        The query runs inside the function ratingdb_read_only, owned by the role ratingdb_reader, so it
        has that role's rights only (SELECT on ratingdb's tables and views) — and, being SECURITY DEFINER,
        it cannot SET ROLE back to the connecting role. Without that function a superuser or a role that
        reaches the server's files or programs is refused; any other role runs the query as itself.
        """
        import psycopg
        from psycopg import sql as pgsql

        pooled = engine.raw_connection()
        try:
            conn: psycopg.Connection[Any] = pooled.driver_connection  # type: ignore[assignment]
            conn.rollback()
            try:
                with conn.cursor() as cursor:
                    cursor.execute("SET TRANSACTION READ ONLY")
                    milliseconds = str(max(1, round(timeout * 1000)))
                    # work_mem bounds each sort and hash of the query in memory (beyond it they spill to
                    # disk, which the statement time limit bounds).
                    cursor.execute(
                        "SELECT set_config('statement_timeout', %s, true), "
                        "set_config('lock_timeout', %s, true), set_config('work_mem', %s, true)",
                        [milliseconds, milliseconds, PG_WORK_MEM],
                    )
                    login, dangerous, reader, set_up = cursor.execute(_PG_WHO).fetchone() or (
                        "",
                        True,
                        False,
                        False,
                    )
                    if dangerous and not set_up:
                        # The function is missing or owned by another role (as after a --no-owner restore).
                        raise adhoc.StatementRefused(
                            f"ratingdb sql will not run as {login}: that role reaches the server's files, "
                            f"programs or sessions, and this database has no usable {READER_ROLE} role to "
                            "run the query as (as after pg_restore --no-owner) — run `ratingdb init` to "
                            "restore it, or connect as a reporting role (docs/operations/security.md)"
                        )
                    if dangerous and not reader:
                        raise adhoc.StatementRefused(
                            f"ratingdb sql will not run as {login}: that role reaches the server's files, "
                            f"programs or sessions, and this database has no usable {READER_ROLE} role to "
                            "run the query as — connect as a reporting role instead "
                            "(docs/operations/security.md)"
                        )
                    columns, types = _pg_describe(conn, statement, timeout)
                    if not columns:
                        # INSERT, DROP, SET, DO, COPY …: no rows to show, so nothing to run.
                        raise adhoc.refused(adhoc.READ_ONLY)
                    names = [pgsql.Identifier(f"c{i}") for i in range(len(types))]
                    if reader:
                        definitions = pgsql.SQL(", ").join(
                            pgsql.SQL("{} {}").format(name, pgsql.SQL(t))
                            for name, t in zip(names, types, strict=True)
                        )
                        source = pgsql.SQL("{}(%s) AS t({})").format(
                            pgsql.Identifier(READER_FUNCTION), definitions
                        )
                        query, params = _pg_bounded(source, names), [statement]
                    else:
                        query, params = _pg_bounded_statement(conn, statement, names), None
                    # stream(): the extended protocol (one statement only) and one row at a time, so at most
                    # one row beyond MAX_RESULT_BYTES is ever held; leaving the loop early cancels the rest.
                    stream: Any = cursor.stream(query, params)
                    try:
                        rows = adhoc.fetch_bounded(_pg_rows(stream, bounded=query is not statement), max_rows)
                    finally:
                        stream.close()  # cancels the rest on the server, also when the result is refused
                    return adhoc.result([(c,) for c in columns], rows, max_rows)
            except psycopg.errors.QueryCanceled:
                raise adhoc.stopped(timeout) from None
            except psycopg.errors.LockNotAvailable:
                raise adhoc.stopped(timeout) from None
            except psycopg.Error as exc:
                message = exc.diag.message_primary or adhoc.first_line(exc)
                if "multiple commands" in message:
                    message = adhoc.ONE_STATEMENT
                raise adhoc.refused(message) from None
            finally:
                conn.rollback()
        finally:
            # A query can leave session state behind (an advisory lock taken with pg_advisory_lock, a
            # prepared statement): the connection is closed rather than returned to the pool.
            pooled.invalidate()
            pooled.close()

    # -- guards -----------------------------------------------------------------------------------

    sql_true = "TRUE"
    sql_false = "FALSE"

    def same(self, column: str) -> str:
        return f"NEW.{column} IS NOT DISTINCT FROM OLD.{column}"

    def refusal(self, message: str) -> str:
        return f"RAISE EXCEPTION '{message}';"

    def versioned_guard(self, table: str, allowed: str, update_msg: str, delete_msg: str) -> list[str]:
        return [
            f"""CREATE FUNCTION ratingdb_guard_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN {self.refusal(delete_msg)} END IF;
                IF NOT {allowed} THEN {self.refusal(update_msg)} END IF;
                RETURN NEW;
            END $$""",
            f"CREATE TRIGGER trg_{table}_versioned BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION ratingdb_guard_{table}()",
            *self.no_truncate(table),
        ]

    def owned_versioned_guard(
        self, table: str, allowed: str, owned: str, update_msg: str, delete_msg: str
    ) -> list[str]:
        return [
            f"""CREATE FUNCTION ratingdb_guard_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    IF {owned} THEN {self.refusal(delete_msg)} END IF;
                    RETURN OLD;
                END IF;
                IF NOT {allowed} THEN {self.refusal(update_msg)} END IF;
                RETURN NEW;
            END $$""",
            f"CREATE TRIGGER trg_{table}_versioned BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION ratingdb_guard_{table}()",
            *self.no_truncate(table),
        ]

    def drop_versioned_guard(self, table: str) -> list[str]:
        return [
            f"DROP TRIGGER trg_{table}_versioned ON {table}",
            *self.drop_no_truncate(table),
            f"DROP FUNCTION ratingdb_guard_{table}()",
        ]

    def sealed_guard(
        self, table: str, parent: str, key: str, refuse_missing: bool, insert_msg: str, change_msg: str
    ) -> list[str]:
        # One check per statement over the inserted rows (a close inserts millions: COPY fires it once).
        join, refused = ("LEFT JOIN", "p.id IS NULL OR p.sealed") if refuse_missing else ("JOIN", "p.sealed")
        return [
            f"""CREATE FUNCTION ratingdb_sealed_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT {key} FROM new_rows) n
                               {join} {parent} p ON p.id = n.{key} WHERE {refused}) THEN
                        {self.refusal(insert_msg)}
                    END IF;
                    RETURN NULL;
                END IF;
                {self.refusal(change_msg)}
            END $$""",
            f"CREATE TRIGGER trg_{table}_sealed_insert AFTER INSERT ON {table} "
            "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
            f"EXECUTE FUNCTION ratingdb_sealed_{table}()",
            f"CREATE TRIGGER trg_{table}_sealed_change BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION ratingdb_sealed_{table}()",
            *self.no_truncate(table),
        ]

    def drop_sealed_guard(self, table: str) -> list[str]:
        return [
            f"DROP TRIGGER trg_{table}_sealed_insert ON {table}",
            f"DROP TRIGGER trg_{table}_sealed_change ON {table}",
            *self.drop_no_truncate(table),
            f"DROP FUNCTION ratingdb_sealed_{table}()",
        ]

    def no_truncate(self, table: str) -> list[str]:
        # TRUNCATE skips row triggers, so every guarded table refuses it outright.
        return [
            f"CREATE TRIGGER trg_{table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION ratingdb_refuse_truncate()"
        ]

    def drop_no_truncate(self, table: str) -> list[str]:
        return [f"DROP TRIGGER trg_{table}_no_truncate ON {table}"]

    def refuse_truncate_function(self) -> list[str]:
        return [
            "CREATE FUNCTION ratingdb_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'TRUNCATE of % is refused: ratingdb keeps its records', TG_TABLE_NAME; END $$"
        ]

    def player_referenced_guard(self) -> list[str]:
        """A player on a list cannot be deleted (SQLite and MySQL have had this trigger since 0006;
        PostgreSQL relied on list_entry's foreign key, which migration 0016 dropped). Events and games keep
        their foreign keys to the player."""
        return [
            f"""CREATE FUNCTION ratingdb_player_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM list_entry WHERE player_id = OLD.id) THEN
                {self.refusal(guards.PLAYER_REFERENCED_MESSAGE)}
            END IF;
            RETURN OLD;
        END $$""",
            "CREATE TRIGGER trg_player_referenced BEFORE DELETE ON player "
            "FOR EACH ROW EXECUTE FUNCTION ratingdb_player_referenced()",
        ]

    def drop_player_referenced_guard(self) -> list[str]:
        return ["DROP TRIGGER trg_player_referenced ON player", "DROP FUNCTION ratingdb_player_referenced()"]


# -- `ratingdb sql` ---------------------------------------------------------------------------------------


def _pg_reaches_server(role: str) -> str:
    """SQL true when `role` (a pg_roles alias) reaches past the database: files, programs, sessions."""
    names = ", ".join(f"'{name}'" for name in _PG_DANGEROUS_ROLES)
    return (
        f"({role}.rolsuper OR {role}.rolreplication OR EXISTS (SELECT FROM unnest(ARRAY[{names}]) AS d(name) "
        f"WHERE pg_has_role({role}.oid, d.name, 'MEMBER')))"
    )


# Who is connected, and whether the reader function is there, owned by a harmless ratingdb_reader,
# SECURITY DEFINER, and callable by this login. The owner is checked too: a function that ended up
# owned by anyone else would run the query with that owner's rights. Last: whether the function is set
# up at all (SECURITY DEFINER, owned by the reader), whoever may call it — `init` repairs it if not.
_PG_WHO: Final = f"""
SELECT r.rolname, {_pg_reaches_server("r")},
       COALESCE(f.set_up AND f.callable, FALSE), COALESCE(f.set_up, FALSE)
FROM pg_roles r LEFT JOIN LATERAL (
  SELECT p.prosecdef AND o.rolname = '{READER_ROLE}' AND NOT {_pg_reaches_server("o")} AS set_up,
         has_function_privilege(p.oid, 'EXECUTE') AS callable
  FROM pg_proc p JOIN pg_roles o ON o.oid = p.proowner
  WHERE p.oid = to_regprocedure('{READER_FUNCTION}(text)')
) f ON TRUE
WHERE r.rolname = session_user
"""


def _pg_bounded(source: Any, names: list[Any]) -> Any:
    """The query that runs `source` (a FROM item whose columns are `names`) and sends no row whose values
    take more than MAX_RESULT_BYTES on the server: such a row comes as NULLs with its last column true,
    and is refused (`SELECT repeat('x', 1000000000)` is computed within the time limit, never sent)."""
    from psycopg import sql as pgsql

    sizes = pgsql.SQL(" + ").join(pgsql.SQL("COALESCE(pg_column_size(t.{}), 0)").format(n) for n in names)
    shown = pgsql.SQL(", ").join(
        pgsql.SQL("CASE WHEN s.too_large THEN NULL ELSE t.{} END").format(n) for n in names
    )
    return pgsql.SQL(
        "SELECT {}, s.too_large FROM {} CROSS JOIN LATERAL (SELECT {}::bigint > {} AS too_large) AS s"
    ).format(shown, source, sizes, pgsql.Literal(adhoc.MAX_RESULT_BYTES))


def _pg_bounded_statement(conn: Any, statement: str, names: list[Any]) -> Any:
    """Without the reader function: the statement as a subquery, bounded as by _pg_bounded; the statement
    itself if it cannot be one (SHOW, EXPLAIN: no value of theirs can be large)."""
    from psycopg import pq
    from psycopg import sql as pgsql

    body = statement.rstrip().rstrip(";")
    # OFFSET 0 keeps the planner from pulling the statement up into the outer query, which would copy a
    # constant value (repeat('x', 100000000) folded at plan time) once per reference to it.
    source = pgsql.SQL("(SELECT * FROM ({}\n) AS u OFFSET 0) AS t({})").format(
        pgsql.SQL(body), pgsql.SQL(", ").join(names)
    )
    query = _pg_bounded(source, names)
    conn.execute("SAVEPOINT ratingdb_bounded")
    prepared = conn.pgconn.prepare(b"", query.as_string(conn).encode(conn.info.encoding))
    if prepared.status == pq.ExecStatus.COMMAND_OK:
        return query
    conn.execute("ROLLBACK TO SAVEPOINT ratingdb_bounded")  # the time limits set in the transaction stay
    return statement


def _pg_rows(stream: Iterator[Any], *, bounded: bool) -> Iterator[Sequence[Any]]:
    """Batches of one row for fetch_bounded, the bounded query's too_large column checked and dropped."""
    for row in stream:
        if bounded:
            if row[-1]:
                raise adhoc.too_large()
            row = row[:-1]
        yield [row]


def _pg_describe(conn: Any, statement: str, timeout: float) -> tuple[list[str], list[str]]:
    """The result columns of `statement` and their SQL types, from the server's parse (nothing runs).

    A text with two statements cannot be prepared: the server refuses it here. Parsing takes the
    tables' share locks, so a table locked by another command can already stop the statement here.
    """
    from psycopg import pq

    pgconn = conn.pgconn
    encoding = conn.info.encoding
    prepared = pgconn.prepare(b"", statement.encode(encoding))
    if prepared.status != pq.ExecStatus.COMMAND_OK:
        raise _pg_error(prepared, encoding, timeout)
    described = pgconn.describe_prepared(b"")
    if described.status != pq.ExecStatus.COMMAND_OK:
        raise _pg_error(described, encoding, timeout)
    count = described.nfields
    names = [(described.fname(i) or b"").decode(encoding) for i in range(count)]
    oids = [described.ftype(i) for i in range(count)]
    mods = [described.fmod(i) for i in range(count)]
    if not count:
        return [], []
    with conn.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(t.oid, t.mod), y.typtype = 'p' "
            "FROM unnest(%s::oid[], %s::int[]) WITH ORDINALITY AS t(oid, mod, n) "
            "JOIN pg_type y ON y.oid = t.oid ORDER BY t.n",
            [oids, mods],
        )
        described_types = cursor.fetchall()
    for name, (type_name, pseudo) in zip(names, described_types, strict=True):
        if pseudo:  # void (pg_sleep), record (ROW(...)): no value a column can carry
            raise adhoc.refused(
                f'column "{name}" is of type {type_name}, which has no value to show — select a value '
                "instead (e.g. pg_sleep(1) IS NULL)"
            )
    return names, [type_name for type_name, _ in described_types]


def _pg_error(result: Any, encoding: str, timeout: float) -> adhoc.StatementRefused:
    from psycopg import pq

    # 57014 query_canceled (statement_timeout), 55P03 lock_not_available (lock_timeout)
    if result.error_field(pq.DiagnosticField.SQLSTATE) in (b"57014", b"55P03"):
        return adhoc.stopped(timeout)
    raw = result.error_field(pq.DiagnosticField.MESSAGE_PRIMARY) or result.error_message or b""
    message = raw.decode(encoding, "replace").strip().splitlines()[0] if raw.strip() else "error"
    if "multiple commands" in message:
        message = adhoc.ONE_STATEMENT
    return adhoc.refused(message)


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
    if not conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = 'ratingdb_reader'").first():
        return False
    return bool(conn.execute(text(_READER_USABLE)).scalar())


BACKEND = PostgreSQL()


def _connected(engine: Engine, start: Callable[[Connection], T]) -> tuple[Connection, T]:
    """A connection of `engine` and what `start` (its first statements) read on it. When the server has
    closed the pooled connection (restarted, a standby back up, the backend terminated), nothing was read
    yet: the pool is emptied of every connection from before, as SQLAlchemy does on a disconnect, and
    `start` runs again on a new connection. The caller closes the connection."""
    import psycopg

    for attempt in (1, 2):
        connection = engine.connect()
        driver = connection.connection.driver_connection
        try:
            return connection, start(connection)
        except DBAPIError as exc:  # SQLAlchemy has invalidated the pool's connections from before
            connection.close()
            if not exc.connection_invalidated or attempt == 2:
                raise
        except psycopg.OperationalError as exc:
            closed = driver is not None and driver.broken
            if closed:
                connection.invalidate(exc)
            connection.close()
            if not closed or attempt == 2:
                raise
            engine.dispose()  # and the pool's other connections from before the server closed this one
        except BaseException:
            connection.close()
            raise
    raise AssertionError("unreachable: the second attempt returns or raises")


# How the read-only engine's transactions begin (read_only_engine: in autocommit at the driver).
_BEGIN_READ_ONLY: Final = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"


def _begin_by_hand(driver: Any, first: str | None) -> Any:
    """BEGIN a READ ONLY, REPEATABLE READ transaction on psycopg connection `driver` (in autocommit) and,
    in the same round trip, run `first` (no parameters: one simple query, two results): its first row's
    first value (None without `first`)."""
    with driver.cursor() as cursor:
        cursor.execute(_begin_sql(first))
        if first is None:
            return None
        cursor.nextset()
        row = cursor.fetchone()
        return None if row is None else row[0]


async def _begin_by_hand_async(driver: Any, first: str | None) -> Any:
    """_begin_by_hand on an asyncio psycopg connection (the reader in greenlets; SQLAlchemy's adapted
    cursor cannot move to the second result)."""
    async with driver.cursor() as cursor:
        await cursor.execute(_begin_sql(first))
        if first is None:
            return None
        cursor.nextset()
        row = await cursor.fetchone()
        return None if row is None else row[0]


def _begin_sql(first: str | None) -> str:
    return _BEGIN_READ_ONLY if first is None else f"{_BEGIN_READ_ONLY}; {first}"


@functools.cache
def _plain_sql(query: Select[tuple[int]]) -> str:
    """`query` as PostgreSQL text with its values written in, made once per query (a constant)."""
    from sqlalchemy.dialects.postgresql.psycopg import dialect

    return str(query.compile(dialect=dialect(), compile_kwargs={"literal_binds": True}))
