"""MariaDB and MySQL through PyMySQL: strict ANSI sessions, named locks, AUTO_INCREMENT, grants.

Everything ratingdb does differently on MariaDB/MySQL is here: the URL's driver and the session settings
of every connection, READ ONLY sessions for the web side, the single-flight lock (GET_LOCK, which the
connection holds: taken here and let go of here when the pool takes the connection back),
AUTO_INCREMENT counters put back after a dry run, multi-row INSERTs, UNSIGNED casts and REGEXP for
numeric text, MySQL's recursion limit, temporary tables dropped without a commit, the sentences for
PyMySQL's error codes, mysqldump's command line and the accounts' grants. SQLAlchemy names both servers
"mysql" and tells MariaDB apart by its version string. PyMySQL is imported only where it is used.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import URL, Engine, create_engine, event, text

from ratingdb.engines.base import Backend, IdCounters
from ratingdb.errors import ConfigError, RatingDbError

if TYPE_CHECKING:
    from sqlalchemy import Connection
    from sqlalchemy.orm import Session

    from ratingdb.backup import Backup

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


class MySQL(Backend):
    name = "mysql"
    label = "MariaDB/MySQL"
    driver_scheme = "mysql+pymysql"
    default_port = 3306

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

    def read_only_engine(self, url: str) -> Engine:
        """Every transaction READ ONLY (the session's default)."""
        engine = super().read_only_engine(url)

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

    def backup(self, parsed: URL, target: Path, *, force: bool) -> Backup:
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
