"""MariaDB and MySQL through PyMySQL: strict ANSI sessions, named locks, AUTO_INCREMENT, grants.

Everything ratingdb does differently on MariaDB/MySQL is here: the URL's driver and the session settings
of every connection, READ ONLY sessions for the web side, the single-flight lock (GET_LOCK, which the
connection holds: taken here and let go of here when the pool takes the connection back),
AUTO_INCREMENT counters put back after a dry run, multi-row INSERTs, UNSIGNED casts and REGEXP for
numeric text, MySQL's recursion limit, temporary tables dropped without a commit, the sentences for
PyMySQL's error codes, mysqldump's command line, the accounts' grants and `ratingdb sql`'s statement checks
and read-only runner. SQLAlchemy names both servers
"mysql" and tells MariaDB apart by its version string. PyMySQL is imported only where it is used.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import URL, Engine, create_engine, event, text

from ratingdb.engines import adhoc
from ratingdb.engines.base import Backend, IdCounters, counting_insert, counting_set
from ratingdb.errors import ConfigError, RatingDbError

if TYPE_CHECKING:
    from sqlalchemy import Connection
    from sqlalchemy.orm import Session

    from ratingdb.engines.copies import Backup

# The session settings every MySQL/MariaDB connection gets before anything else runs (pymysql's
# init_command, so SQLAlchemy's dialect sees them when it first inspects the server):
# - strict mode, so a value that does not fit is refused instead of silently truncated or zeroed;
# - ANSI_QUOTES and PIPES_AS_CONCAT, so "change" (a reserved word in MySQL) and `a || b` mean what they
#   mean on SQLite and PostgreSQL: one SQL text for the views, the documented examples and `ratingdb sql`;
# - InnoDB, the only MySQL engine with transactions and foreign keys;
# (Tables are utf8mb4 compared byte for byte: BYTE_ORDER_COLLATION.)
MYSQL_SQL_MODE = (
    "STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,"
    "ANSI_QUOTES,PIPES_AS_CONCAT"
)

MYSQL_INSTALL = "pip install -e '.[mysql]'"  # from the checkout: ratingdb is not on a package index

# PyMySQL's multi-row INSERT size (see write_rows).
MYSQL_STATEMENT_BYTES = 2 * 1024 * 1024

_COUNTERS = (
    "SELECT table_name, auto_increment FROM information_schema.tables "
    "WHERE table_schema = DATABASE() AND auto_increment IS NOT NULL"
)

# The rights each account gets (database-level grants on the ratingdb database): the officer reads and
# writes rows and makes the close's temporary tables, and has no DROP (so no TRUNCATE), ALTER, TRIGGER,
# CREATE or INDEX; the reader only reads.
MYSQL_OFFICER = "SELECT, INSERT, UPDATE, DELETE, CREATE TEMPORARY TABLES"
MYSQL_READER = "SELECT"
MYSQL_OWNER = "ALL PRIVILEGES"
# What an account that does the monthly work must not hold: each lets it empty or drop a guarded table
# (TRUNCATE needs DROP) or remove or replace the guards themselves.
MYSQL_DANGEROUS = ("DROP", "ALTER", "TRIGGER", "SUPER", "ALL PRIVILEGES")
# Privileges a read needs; anything else held makes `sql` read-only by ratingdb's checks alone.
_MYSQL_READING = {"SELECT", "USAGE", "SHOW VIEW"}

# Names compare and sort as on SQLite and on PostgreSQL's C collation: by code point, accents and case
# significant ('Müller' is not 'Muller', 'de Vries' is not 'De Vries'), no trailing-space padding, so
# UNIQUE keys, lookups and ORDER BY name give the same answers on all three engines. MySQL's default
# (utf8mb4_general_ci / utf8mb4_0900_ai_ci) would make 'MÜLLER' equal 'muller'. (MySQL 8's, MariaDB's.)
BYTE_ORDER_COLLATION = ("utf8mb4_0900_bin", "utf8mb4_nopad_bin")


# -- `ratingdb sql` --------------------------------------------------------------------------------------
# A READ ONLY transaction is not enough on MySQL by itself: DDL (DROP, CREATE, ALTER) commits the open
# transaction implicitly and then runs outside it, and `SELECT ... INTO OUTFILE` writes a file on the
# server. So the text is read first with MySQL's own lexical rules (quotes, backslash escapes, the three
# comment styles) and only a single statement that starts with a reading keyword is run. The server parses
# it first (PREPARE, which runs nothing), so a typo gets MySQL's own syntax message. LOAD_FILE() (the
# server's files) and the named-lock functions (other sessions, ratingdb's close lock) are refused. The
# READ ONLY transaction remains as the second guard, for a SELECT that calls a function that writes; the
# session's max_statement_time (MySQL: max_execution_time) and lock wait timeouts stop a long statement.

# Statements that only read. EXPLAIN describes a plan without running the statement it explains.
READING_KEYWORDS: Final = {"SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "VALUES", "TABLE"}
ER_UNSUPPORTED_PS: Final = 1295  # "This command is not supported in the prepared statement protocol yet"
# MariaDB's max_statement_time, MySQL's max_execution_time, a lock wait (1205).
TIMEOUT_ERRORS: Final = {1969, 3024, 1205}
# Functions that reach past the database (the server's files), into other sessions (named locks:
# ratingdb's own close lock among them; waits on replication), or that only burn time or hold a
# connection (BENCHMARK, SLEEP: a stopped BENCHMARK returned 0 as if it were a result). Names are
# compared after unquoting: `LOAD_FILE`('/etc/passwd') and "LOAD_FILE"(...) call the built-in too.
DENIED_FUNCTIONS: Final = {
    "LOAD_FILE",
    "GET_LOCK",
    "RELEASE_LOCK",
    "RELEASE_ALL_LOCKS",
    "IS_USED_LOCK",
    "IS_FREE_LOCK",
    "BENCHMARK",
    "SLEEP",
    "MASTER_POS_WAIT",
    "MASTER_GTID_WAIT",
    "SOURCE_POS_WAIT",
    "WAIT_FOR_EXECUTED_GTID_SET",
    "WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS",
}
# Warnings that mean the statement was stopped rather than finished (MariaDB may end BENCHMARK or a
# long function early with a warning and a made-up value).
INTERRUPTED_WARNINGS: Final = {1317, 1969, 3024}
ER_WARN_ALLOWED_PACKET_OVERFLOWED: Final = 1301
MEMORY_BYTES: Final = 16 * 1024 * 1024  # a multiple of 1024, or strict mode refuses it

_QUOTES: Final = {"'": "string", '"': "name", "`": "name"}
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z_0-9$]*")
_PLAIN_NAME: Final = re.compile(r"[A-Za-z0-9_$]+")
_CALL: Final = re.compile(r"([A-Za-z_][A-Za-z_0-9$]*)\s*\(")


class MySQL(Backend):
    name = "mysql"
    label = "MariaDB/MySQL"
    driver_scheme = "mysql+pymysql"
    default_port = 3306
    # MySQL's BLOB holds 64 KB, too little for a tournament file; MEDIUMBLOB holds 16 MB (migration 0021).
    file_content_type = "MEDIUMBLOB"

    # -- URLs and engines ------------------------------------------------------------------------------

    def create_engine(self, parsed: URL, **kwargs: Any) -> Engine:
        if parsed.drivername not in ("mysql", "mariadb", "mysql+pymysql", "mariadb+pymysql"):
            raise ConfigError(
                f"ratingdb talks to MySQL and MariaDB through PyMySQL, not {parsed.drivername}: "
                "write the URL as mysql+pymysql://user:password@host/dbname"
            )
        # One dialect for both servers: SQLAlchemy tells MariaDB apart by its version string.
        parsed = parsed.set(drivername="mysql+pymysql")
        init = f"SET SESSION sql_mode = '{MYSQL_SQL_MODE}', default_storage_engine = InnoDB"
        connect_args = {"charset": "utf8mb4", "init_command": init, **kwargs.pop("connect_args", {})}
        # READ COMMITTED as on PostgreSQL: a close that waited for another one's lock sees what it committed.
        kwargs.setdefault("isolation_level", "READ COMMITTED")
        try:
            engine = create_engine(parsed, connect_args=connect_args, **kwargs)
        except ImportError as exc:
            if exc.name != "pymysql":
                raise
            raise ConfigError(
                "the MariaDB/MySQL driver PyMySQL is not installed — install it from the ratingdb checkout "
                f"with `{MYSQL_INSTALL}` (or `pip install pymysql` into ratingdb's environment)"
            ) from None

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

        # GET_LOCK (hold_lock) belongs to the connection, not the transaction: let go of every such lock
        # when the pool takes the connection back at the end of its transaction.
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

    def read_only_engine(self, parsed: URL, *, in_event_loop: bool = False) -> Engine:
        """Every transaction READ ONLY (the session's default)."""
        engine = super().read_only_engine(parsed)

        @event.listens_for(engine, "connect")
        def _mysql_reader(dbapi_connection: Any, _record: Any) -> None:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET SESSION TRANSACTION READ ONLY")

        return engine

    # -- transactions and locks ------------------------------------------------------------------------

    def begin_read_only(self, connection: Connection) -> None:
        connection.execution_options(isolation_level="REPEATABLE READ")  # InnoDB's consistent snapshot

    def hold_lock(self, session: Session, key: str, wait_seconds: int) -> bool:
        # A named lock is server-wide: its name carries the database's. The connection holds it, not the
        # transaction: create_engine's checkin listener lets go of it when the transaction has ended.
        name = "CONCAT('ratingdb:', MD5(CONCAT(DATABASE(), ':', :key)))"  # 41 characters (64 allowed)
        got = session.execute(text(f"SELECT GET_LOCK({name}, :wait)"), {"key": key, "wait": wait_seconds})
        return bool(got.scalar_one() == 1)

    def id_counters(self, engine: Engine) -> IdCounters:
        with engine.connect() as conn:
            # MySQL keeps the next value to hand out; the column is the table's AUTO_INCREMENT one ("id").
            return {(t, "id"): int(n) - 1 for t, n in conn.execute(text(_COUNTERS))}

    def restore_id_counters(self, engine: Engine, before: IdCounters, moved: list[tuple[str, str]]) -> None:
        """ALTER TABLE … AUTO_INCREMENT, which never goes below MAX(id) + 1 and waits for the table's
        writers itself."""
        with engine.connect() as conn:
            conn.exec_driver_sql("SET SESSION lock_wait_timeout = 5")
            for table, column in moved:
                next_id = (before[table, column] or 0) + 1
                conn.exec_driver_sql(
                    f'ALTER TABLE "{table}" AUTO_INCREMENT = {next_id}, ALGORITHM=INPLACE, LOCK=NONE'
                )

    # -- raw SQL and bulk writes -----------------------------------------------------------------------

    def write_rows(
        self, cursor: Any, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]],
        types: list[str] | None,
    ) -> None:  # fmt: skip
        # PyMySQL sends an INSERT's executemany as multi-row INSERTs of up to max_stmt_length bytes each;
        # one statement per MYSQL_STATEMENT_BYTES keeps the round trips few and stays well under the
        # server's max_allowed_packet (16 MiB by default, 4 MiB at the least).
        # Not LOAD DATA LOCAL INFILE, though faster: it turns duplicate keys and bad values into warnings
        # (IGNORE semantics), so a bug would drop rows silently (engines.md).
        cursor.max_stmt_length = MYSQL_STATEMENT_BYTES
        super().write_rows(cursor, table, columns, rows, types)

    def highest_number(self, table: str, column: str) -> str:
        return f"SELECT MAX(CAST({column} AS UNSIGNED)) FROM {table} WHERE {self.numeric_text(column)}"

    def drop_temporary_table(self, name: str) -> str:
        return f"DROP TEMPORARY TABLE IF EXISTS {name}"  # DROP TABLE would commit the transaction

    def count_up(self, table: str, key: Sequence[str], counter: str, also: Sequence[str]) -> str:
        inserted = counting_insert(table, key, counter, also)
        return f"{inserted} ON DUPLICATE KEY UPDATE {counting_set(table, counter, also)}"

    def allow_deep_recursion(self, session: Session) -> None:
        # MySQL stops a recursive query after 1,000 rows by default (MariaDB does not).
        if not getattr(session.get_bind().dialect, "is_mariadb", False):
            session.execute(text("SET SESSION cte_max_recursion_depth = 1000000"))

    # -- what a failure means --------------------------------------------------------------------------

    def explain(self, message: str, parsed: URL, *, connecting: bool) -> RatingDbError | None:
        from ratingdb.db_errors import DatabaseUnavailable

        # PyMySQL's messages read "(code, 'text')"; the code says what happened.
        code = re.match(r"\((\d+),", message)
        number = int(code.group(1)) if code else None
        where = self.where(parsed)
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
            port = parsed.port or self.default_port
            return DatabaseUnavailable(
                f"cannot connect to {where}: the connection was refused — check that the server is running "
                f"and listens on port {port}"
            )
        if number == 2005:
            return DatabaseUnavailable(
                f"cannot connect to {where}: the host name is not known — check the host in the URL"
            )
        return None

    # -- backups ---------------------------------------------------------------------------------------

    def backup(self, parsed: URL, target: Path, *, force: bool, head: str | None) -> Backup:
        options = [
            f"--host={parsed.host}" if parsed.host else "",
            f"--port={parsed.port}" if parsed.port else "",
            f"--user={parsed.username}" if parsed.username else "",
        ]
        raise ConfigError(
            "ratingdb backup covers SQLite and PostgreSQL — for MariaDB/MySQL run: mysqldump "
            f"--single-transaction --routines --triggers {' '.join(o for o in options if o)} "
            f"{parsed.database} > {target}"
        )

    # -- accounts --------------------------------------------------------------------------------------

    def account_setup(self, database: str, owner: str, officer: str, reader: str) -> list[str]:
        return [
            f"CREATE USER '{reader}'@'%' IDENTIFIED BY '…';",
            f"CREATE USER '{officer}'@'%' IDENTIFIED BY '…';",
            f"CREATE USER '{owner}'@'%' IDENTIFIED BY '…';",
            f"CREATE DATABASE `{database}`;",
            f"GRANT {MYSQL_READER} ON `{database}`.* TO '{reader}'@'%';",
            f"GRANT {MYSQL_OFFICER} ON `{database}`.* TO '{officer}'@'%';",
            f"GRANT {MYSQL_OWNER} ON `{database}`.* TO '{owner}'@'%';",
        ]

    def database_size(self, conn: Connection) -> int | None:
        # The tables' data and indexes as information_schema estimates them (no scan of the tables).
        size = conn.exec_driver_sql(
            "SELECT SUM(data_length + index_length) FROM information_schema.tables"
            " WHERE table_schema = DATABASE()"
        ).scalar()
        return int(size) if size is not None else None

    def privilege_warnings(self, conn: Connection) -> list[str]:
        held = dangerous_privileges(conn)
        if not held:
            return []
        return [
            f"this MySQL/MariaDB account holds {', '.join(held)} on the ratingdb tables, so it can TRUNCATE "
            "or DROP them (no trigger fires for TRUNCATE) — do the monthly work as an account with "
            f"{MYSQL_OFFICER} only (`ratingdb db accounts` prints the set-up)"
        ]

    def sql_warnings(self, conn: Connection) -> list[str]:
        held = sorted(p for p in _privileges(conn) if p not in _MYSQL_READING)
        if not held:
            return []
        shown = ", ".join(held[:6]) + (", …" if len(held) > 6 else "")
        return [
            f"this MySQL/MariaDB account holds {shown} besides SELECT: `sql` is kept to reading by "
            "ratingdb's statement checks alone, and the account can read every database it may read "
            "(mysql.user as root) — run `sql` as a SELECT-only account (`ratingdb db accounts` prints the "
            "set-up)"
        ]

    # -- CHECK conditions (ratingdb/schema/checks.py composes them) ------------------------------------

    def character_length(self, column: str) -> str:
        return f"char_length({column})"  # MySQL's LENGTH counts bytes

    def refuses_characters(self, column: str, ranges: Sequence[tuple[int, int]]) -> str:
        # MariaDB's REGEXP is PCRE, in characters for utf8mb4; '\\x{..}' in the SQL literal is \x{..} to PCRE.
        klass = "".join(
            f"\\\\x{{{low:x}}}" + ("" if low == high else f"-\\\\x{{{high:x}}}") for low, high in ranges
        )
        return f"{column} NOT REGEXP '[{klass}]'"

    def period_text(self, column: str) -> str:
        # PCRE's $ also matches before a final newline: the length rules that out.
        return f"char_length({column}) = 7 AND {column} REGEXP '^[0-9]{{4}}-(0[1-9]|1[0-2])$'"

    # -- `ratingdb sql` (the checks before it runs: the comment above the MySQL class) -----------------

    def run_read_only(
        self, engine: Engine, statement: str, timeout: float, max_rows: int
    ) -> adhoc.QueryResult:
        """Statement checks, then a READ ONLY transaction with a statement time limit, always rolled back.

        At most max_rows + 1 rows are fetched (streamed: no more are ever held). The connection is closed
        afterwards rather than returned to the pool: the session's settings (the time limit) and any rows
        left unread go with it.
        """
        pooled = engine.raw_connection()
        try:
            return _run_read_only(pooled.driver_connection, statement, timeout, max_rows)
        finally:
            pooled.invalidate()
            pooled.close()

    # -- guards -----------------------------------------------------------------------------------
    # What differs here, and how the migrations handle it:
    # - A trigger fires for one action (INSERT, UPDATE or DELETE): a guard is one trigger per action.
    # - A trigger refuses with SIGNAL SQLSTATE '45000'; the message reaches the client as the error text.
    # - TRUNCATE fires no trigger on MySQL: the foreign keys that point at a table are what protect it
    #   (InnoDB refuses to TRUNCATE a referenced table); otherwise only privileges can.
    # - DDL commits implicitly: a migration that fails half-way leaves what it had done.
    # - Every connection runs with ANSI_QUOTES and PIPES_AS_CONCAT (MYSQL_SQL_MODE): "name" and `a || b`
    #   mean what they mean on SQLite and PostgreSQL inside a trigger too.

    def same(self, column: str) -> str:
        return f"NEW.{column} <=> OLD.{column}"

    def refusal(self, message: str) -> str:
        return f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{message}';"

    def versioned_guard(self, table: str, allowed: str, update_msg: str, delete_msg: str) -> list[str]:
        return [
            f"CREATE TRIGGER trg_{table}_versioned_update BEFORE UPDATE ON {table} FOR EACH ROW "
            f"BEGIN IF NOT {allowed} THEN {self.refusal(update_msg)} END IF; END",
            f"CREATE TRIGGER trg_{table}_versioned_delete BEFORE DELETE ON {table} FOR EACH ROW "
            f"BEGIN {self.refusal(delete_msg)} END",
        ]

    def owned_versioned_guard(
        self, table: str, allowed: str, owned: str, update_msg: str, delete_msg: str
    ) -> list[str]:
        # A cascade fires no triggers on MariaDB, so no DELETE trigger is needed for it; a direct DELETE
        # is refused by the same condition.
        return [
            f"CREATE TRIGGER trg_{table}_versioned_update BEFORE UPDATE ON {table} FOR EACH ROW "
            f"BEGIN IF NOT {allowed} THEN {self.refusal(update_msg)} END IF; END",
            f"CREATE TRIGGER trg_{table}_versioned_delete BEFORE DELETE ON {table} FOR EACH ROW "
            f"BEGIN IF {owned} THEN {self.refusal(delete_msg)} END IF; END",
        ]

    def sealed_guard(
        self, table: str, parent: str, key: str, refuse_missing: bool, insert_msg: str, change_msg: str
    ) -> list[str]:
        sealed = self._sealed_parent(parent, key, refuse_missing)
        return [
            f"CREATE TRIGGER trg_{table}_sealed_insert BEFORE INSERT ON {table} FOR EACH ROW "
            f"BEGIN IF {sealed} THEN {self.refusal(insert_msg)} END IF; END",
            f"CREATE TRIGGER trg_{table}_sealed_update BEFORE UPDATE ON {table} FOR EACH ROW "
            f"BEGIN {self.refusal(change_msg)} END",
            f"CREATE TRIGGER trg_{table}_sealed_delete BEFORE DELETE ON {table} FOR EACH ROW "
            f"BEGIN {self.refusal(change_msg)} END",
        ]

    def refusal_trigger(
        self, name: str, action: str, table: str, message: str, condition: str | None = None
    ) -> str:
        """CREATE TRIGGER refusing `action` ("INSERT", "UPDATE" or "DELETE") on `table` with `message`.

        `condition` (SQL over NEW/OLD) limits the refusal to the rows it holds for; without one every row
        is refused. The message is a plain sentence without quotes.
        """
        body = self.refusal(message)
        if condition is not None:
            body = f"IF {condition} THEN {body} END IF;"
        return f"CREATE TRIGGER {name} BEFORE {action} ON {table} FOR EACH ROW BEGIN {body} END"

    def published_list_date(self, period: str) -> str:
        """SQL for the first day after a period (`period` is a 'YYYY-MM' expression): its list's date."""
        return f"(CAST(CONCAT({period}, '-01') AS DATE) + INTERVAL 1 MONTH)"

    def byte_order_collation(self, is_mariadb: bool) -> str:
        """The byte-order utf8mb4 collation of the server (MariaDB and MySQL 8 name it differently)."""
        return BYTE_ORDER_COLLATION[1 if is_mariadb else 0]


# -- `ratingdb sql`: MySQL's lexical rules, then the run ----------------------------------------------


class MySQLText:
    """A statement text split by MySQL's lexical rules: its statements, and the code outside quotes."""

    def __init__(self, text: str) -> None:
        self.statements: list[str] = []  # each statement's text, without its ';' and trailing comments
        self.code: list[str] = []  # per statement: the text outside strings and comments, names blanked
        self.named: list[str] = []  # the same with quoted names unquoted: `LOAD_FILE`( calls LOAD_FILE
        self.executable_comment = False  # /*! ... */ or /*M! ... */: MySQL runs what such a comment holds
        self._split(text)

    def _split(self, text: str) -> None:
        start, code, named, last_code_end = 0, [], [], 0
        i, n = 0, len(text)
        while i < n:
            char = text[i]
            if char in _QUOTES:
                end = _closing_quote(text, i)
                if _QUOTES[char] == "string":
                    code.append(" x ")
                    named.append(" x ")
                else:
                    code.append(" name ")
                    name = text[i + 1 : end - 1].replace(char * 2, char)
                    named.append(f" {name} " if _PLAIN_NAME.fullmatch(name) else " name ")
                i, last_code_end = end, end
            elif text.startswith("/*", i):
                if text.startswith(("/*!", "/*M!"), i):
                    self.executable_comment = True
                end = text.find("*/", i + 2)
                i = n if end < 0 else end + 2
                code.append(" ")
                named.append(" ")
            elif char == "#" or (text.startswith("--", i) and (i + 2 == n or text[i + 2].isspace())):
                end = text.find("\n", i)
                i = n if end < 0 else end + 1
                code.append(" ")
                named.append(" ")
            elif char == ";":
                self._end_statement(text[start:last_code_end], "".join(code), "".join(named))
                start, code, named, i = i + 1, [], [], i + 1
                last_code_end = i
            else:
                code.append(char)
                named.append(char)
                i += 1
                if not char.isspace():
                    last_code_end = i
        self._end_statement(text[start:last_code_end], "".join(code), "".join(named))

    def _end_statement(self, statement: str, code: str, named: str) -> None:
        if code.strip():
            self.statements.append(statement.strip())
            self.code.append(code)
            self.named.append(named)

    def first_keyword(self) -> str:
        match = _WORD.search(self.code[0].lstrip(" ("))
        return match.group(0).upper() if match else ""

    def calls_a_denied_function(self) -> bool:
        return any(name.upper() in DENIED_FUNCTIONS for name in _CALL.findall(self.named[0]))

    def writes_a_file_or_variable(self) -> bool:
        """SELECT ... INTO OUTFILE / DUMPFILE writes on the server; INTO @variable is refused with them."""
        return any(word.upper() == "INTO" for word in _WORD.findall(self.code[0]))


def _closing_quote(text: str, start: int) -> int:
    """Index just after the quote that closes the one at `start` (doubled quotes; backslash in strings)."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\" and quote == "'":
            i += 2
        elif text[i] == quote:
            if text.startswith(quote * 2, i):
                i += 2
            else:
                return i + 1
        else:
            i += 1
    return len(text)


def _run_read_only(conn: Any, statement: str, timeout: float, max_rows: int) -> adhoc.QueryResult:
    """`statement` checked, then run in a READ ONLY transaction on the PyMySQL connection `conn`, which the
    caller closes afterwards (with any rows left unread)."""
    import pymysql

    text = MySQLText(statement)
    if len(text.statements) > 1:
        raise adhoc.refused(adhoc.ONE_STATEMENT)
    if text.executable_comment:
        raise adhoc.refused(f"{adhoc.READ_ONLY} (an executable /*! comment runs its text)")
    if not text.statements:
        raise adhoc.refused("the text holds only comments")
    one = text.statements[0]
    unread = False
    conn.rollback()
    try:
        with conn.cursor() as cursor:
            try:
                cursor.execute("PREPARE ratingdb_sql FROM %s", (one,))  # parses; runs nothing
                cursor.execute("DEALLOCATE PREPARE ratingdb_sql")
            except pymysql.Error as exc:
                if exc.args[0] != ER_UNSUPPORTED_PS:
                    raise
            if (
                text.first_keyword() not in READING_KEYWORDS
                or text.writes_a_file_or_variable()
                or text.calls_a_denied_function()
            ):
                raise adhoc.refused(adhoc.READ_ONLY)
            seconds = max(1, math.ceil(timeout))  # lock waits are counted in whole seconds
            cursor.execute(
                "SET SESSION lock_wait_timeout = %s, innodb_lock_wait_timeout = %s", (seconds, seconds)
            )
            # In-memory temporary tables and sorts are bounded (beyond, they go to disk, which the time
            # limit bounds); a value longer than max_allowed_packet is NULL with warning 1301, refused.
            cursor.execute(
                f"SET SESSION tmp_table_size = {MEMORY_BYTES}, max_heap_table_size = {MEMORY_BYTES}, "
                "sort_buffer_size = 2097152"
            )
            if "mariadb" in conn.get_server_info().lower():
                cursor.execute("SET SESSION max_statement_time = %s", (timeout,))
            else:
                cursor.execute("SET SESSION max_execution_time = %s", (max(1, round(timeout * 1000)),))
            cursor.execute("START TRANSACTION READ ONLY")
        # Unbuffered: rows arrive as they are fetched, so a huge result is never held in memory.
        stream = conn.cursor(pymysql.cursors.SSCursor)
        stream.execute(one)  # no parameters: PyMySQL sends the text as it is
        unread = True  # until the fetch says otherwise: a refused fetch leaves rows behind
        rows = adhoc.fetch_bounded(adhoc.batches(stream), max_rows) if stream.description is not None else []
        unread = len(rows) > max_rows
        if not unread:
            description = stream.description
            stream.close()
            with conn.cursor() as cursor:
                cursor.execute("SHOW WARNINGS")
                for _level, code, message in cursor.fetchall():
                    if int(code) in INTERRUPTED_WARNINGS:
                        raise adhoc.stopped(timeout)
                    if int(code) == ER_WARN_ALLOWED_PACKET_OVERFLOWED:  # REPEAT() and the like gave NULL
                        raise adhoc.refused(str(message).strip())
            return adhoc.result(description, list(rows), max_rows)
        return adhoc.result(stream.description, list(rows), max_rows)
    except pymysql.Error as exc:
        if exc.args and exc.args[0] in TIMEOUT_ERRORS:
            raise adhoc.stopped(timeout) from None
        message = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
        raise adhoc.refused(message.strip().splitlines()[0]) from None
    finally:
        if not unread:  # rows left unread: the transaction ends when the caller closes the connection
            conn.rollback()


def dangerous_privileges(conn: Connection) -> list[str]:
    """The MYSQL_DANGEROUS privileges the connecting account holds on this database or its tables:
    globally, on the database (grants naming it, or a pattern it matches) or on one of its tables, as
    SHOW GRANTS reports them (privileges of a role the account may SET ROLE to are not counted)."""
    held = _privileges(conn)
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


def _privileges(conn: Connection) -> set[str]:
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


BACKEND = MySQL()
