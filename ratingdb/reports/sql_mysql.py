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

from ratingdb.reports.sql import ONE_STATEMENT, READ_ONLY, StatementRefused
from ratingdb.reports.sql import _stopped as stopped

# Statements that only read. EXPLAIN describes a plan without running the statement it explains.
READING_KEYWORDS: Final = {"SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "VALUES", "TABLE"}
ER_UNSUPPORTED_PS: Final = 1295  # "This command is not supported in the prepared statement protocol yet"
# MariaDB's max_statement_time, MySQL's max_execution_time, a lock wait (1205).
TIMEOUT_ERRORS: Final = {1969, 3024, 1205}
# Functions that reach past the database (the server's files) or into other sessions (named locks:
# ratingdb's own close lock among them).
DENIED_FUNCTIONS: Final = {"LOAD_FILE", "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS", "IS_USED_LOCK"}

_QUOTES: Final = {"'": "string", '"': "name", "`": "name"}
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z_0-9$]*")
_CALL: Final = re.compile(r"([A-Za-z_][A-Za-z_0-9$]*)\s*\(")


class MySQLText:
    """A statement text split by MySQL's lexical rules: its statements, and the code outside quotes."""

    def __init__(self, text: str) -> None:
        self.statements: list[str] = []  # each statement's text, without its ';' and trailing comments
        self.code: list[str] = []  # per statement: the text outside strings and comments, names blanked
        self.executable_comment = False  # /*! ... */ or /*M! ... */: MySQL runs what such a comment holds
        self._split(text)

    def _split(self, text: str) -> None:
        start, code, last_code_end = 0, [], 0
        i, n = 0, len(text)
        while i < n:
            char = text[i]
            if char in _QUOTES:
                end = _closing_quote(text, i)
                code.append(" x " if _QUOTES[char] == "string" else " name ")
                i, last_code_end = end, end
            elif text.startswith("/*", i):
                if text.startswith(("/*!", "/*M!"), i):
                    self.executable_comment = True
                end = text.find("*/", i + 2)
                i = n if end < 0 else end + 2
                code.append(" ")
            elif char == "#" or (text.startswith("--", i) and (i + 2 == n or text[i + 2].isspace())):
                end = text.find("\n", i)
                i = n if end < 0 else end + 1
                code.append(" ")
            elif char == ";":
                self._end_statement(text[start:last_code_end], "".join(code))
                start, code, i = i + 1, [], i + 1
                last_code_end = i
            else:
                code.append(char)
                i += 1
                if not char.isspace():
                    last_code_end = i
        self._end_statement(text[start:last_code_end], "".join(code))

    def _end_statement(self, statement: str, code: str) -> None:
        if code.strip():
            self.statements.append(statement.strip())
            self.code.append(code)

    def first_keyword(self) -> str:
        match = _WORD.search(self.code[0].lstrip(" ("))
        return match.group(0).upper() if match else ""

    def calls_a_denied_function(self) -> bool:
        return any(name.upper() in DENIED_FUNCTIONS for name in _CALL.findall(self.code[0]))

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
            if "mariadb" in conn.get_server_info().lower():
                cursor.execute("SET SESSION max_statement_time = %s", (timeout,))
            else:
                cursor.execute("SET SESSION max_execution_time = %s", (max(1, round(timeout * 1000)),))
            cursor.execute("START TRANSACTION READ ONLY")
        # Unbuffered: rows arrive as they are fetched, so a huge result is never held in memory.
        stream = conn.cursor(pymysql.cursors.SSCursor)
        stream.execute(one)  # no parameters: PyMySQL sends the text as it is
        rows = stream.fetchmany(max_rows + 1) if stream.description is not None else []
        unread = len(rows) > max_rows
        if not unread:
            stream.close()
        return stream.description, list(rows)
    except pymysql.Error as exc:
        if exc.args and exc.args[0] in TIMEOUT_ERRORS:
            raise stopped(timeout) from None
        message = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
        raise refuse(message.strip().splitlines()[0]) from None
    finally:
        if not unread:  # rows left unread: the transaction ends when the caller closes the connection
            conn.rollback()
