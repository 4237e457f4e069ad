"""The MySQL/MariaDB side of `ratingdb sql`: statement checks, then a READ ONLY transaction, rolled back.

A READ ONLY transaction is not enough on MySQL by itself: DDL (DROP, CREATE, ALTER) commits the open
transaction implicitly and then runs outside it, and `SELECT ... INTO OUTFILE` writes a file on the
server. So the text is read first with MySQL's own lexical rules (quotes, backslash escapes, the three
comment styles) and only a single statement that starts with a reading keyword is run. The server parses
it first (PREPARE, which runs nothing), so a typo gets MySQL's own syntax message. LOAD_FILE() (the
server's files) and the named-lock functions (other sessions, ratingdb's close lock) are refused. The
READ ONLY transaction remains as the second guard, for a SELECT that calls a function that writes; the
session's max_statement_time (MySQL: max_execution_time) and lock wait timeouts stop a long statement.

Takes the PyMySQL connection ratingdb.reports.sql hands over; no ORM, no CLI imports.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from ratingdb.reports.sql_refusals import (
    ONE_STATEMENT,
    READ_ONLY,
    StatementRefused,
    batches,
    fetch_bounded,
    stopped,
)

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


def run(conn: Any, statement: str, timeout: float, max_rows: int) -> tuple[Any, list[Any]]:
    """Check `statement`, then run it in a READ ONLY transaction on the PyMySQL connection `conn`.

    Returns the cursor's description and at most max_rows + 1 rows (streamed: no more are ever held);
    raises StatementRefused with the reason of a refusal. The caller closes `conn` afterwards: its
    session settings and any unread rows go with it.
    """
    import pymysql

    def refuse(reason: str) -> StatementRefused:
        return StatementRefused(f"the database refused the statement: {reason}")

    text = MySQLText(statement)
    if len(text.statements) > 1:
        raise refuse(ONE_STATEMENT)
    if text.executable_comment:
        raise refuse(f"{READ_ONLY} (an executable /*! comment runs its text)")
    if not text.statements:
        raise refuse("the text holds only comments")
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
                raise refuse(READ_ONLY)
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
        rows = fetch_bounded(batches(stream), max_rows) if stream.description is not None else []
        unread = len(rows) > max_rows
        if not unread:
            description = stream.description
            stream.close()
            with conn.cursor() as cursor:
                cursor.execute("SHOW WARNINGS")
                for _level, code, message in cursor.fetchall():
                    if int(code) in INTERRUPTED_WARNINGS:
                        raise stopped(timeout)
                    if int(code) == ER_WARN_ALLOWED_PACKET_OVERFLOWED:  # REPEAT() and the like gave NULL
                        raise refuse(str(message).strip())
            return description, list(rows)
        return stream.description, list(rows)
    except pymysql.Error as exc:
        if exc.args and exc.args[0] in TIMEOUT_ERRORS:
            raise stopped(timeout) from None
        message = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
        raise refuse(message.strip().splitlines()[0]) from None
    finally:
        if not unread:  # rows left unread: the transaction ends when the caller closes the connection
            conn.rollback()
