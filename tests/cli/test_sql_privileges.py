"""`ratingdb sql` under attack, issue 26: MariaDB built-ins called through quoted names, time and memory
bombs on every engine, and the warning for an account that may do more than read.

Each attack is refused in one line and leaves every table as it was (the snapshot of tests/cli/test_sql).
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner, Result

from ratingdb.cli import app
from ratingdb.reports.sql import MAX_RESULT_BYTES
from tests.conftest import MYSQL_ENV

runner = CliRunner()
ROOT_WARNING = "Warning: this MySQL/MariaDB account holds "


class Shown:
    """A CliRunner result with the MySQL privilege warning taken out of stderr."""

    def __init__(self, result: Result) -> None:
        self.exit_code = result.exit_code
        self.exception = result.exception
        self.stdout = result.stdout
        self.stderr = "".join(
            line for line in result.stderr.splitlines(keepends=True) if not line.startswith(ROOT_WARNING)
        )
        self.output = self.stdout + self.stderr


def without_privilege_warning(result: Result) -> Any:
    return Shown(result)


def sql(url: str, statement: str, *options: str) -> Result:
    return runner.invoke(app, ["--db", url, "sql", statement, *options])


def snapshot(url: str) -> dict[str, list[tuple[object, ...]]]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return {
                t: sorted(map(tuple, conn.execute(text(f"SELECT * FROM {t}"))), key=repr)
                for t in ("player", "rating_list", "list_entry", "audit_log")
            }
    finally:
        engine.dispose()


def refused(url: str, statement: str, *options: str) -> str:
    before = snapshot(url)
    result = without_privilege_warning(sql(url, statement, *options))
    assert result.exit_code == 1, result.output
    assert snapshot(url) == before
    [line] = result.stderr.splitlines()
    return str(line)


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT `LOAD_FILE`('/etc/passwd') AS f",
        "SELECT \"LOAD_FILE\"('/etc/passwd') AS f",
        "SELECT `load_file` ('/etc/passwd') AS f",
        "SELECT `GET_LOCK`('ratingdb', 0) AS l",
        "SELECT \"IS_FREE_LOCK\"('x') AS l",
        "SELECT BENCHMARK(1000000000000, MD5('x')) AS b",
        "SELECT `BENCHMARK`(1000000000000, MD5('x')) AS b",
        "SELECT `SLEEP`(30) AS s",
        "SELECT MASTER_POS_WAIT('log', 4, 30) AS w",
    ],
)
def test_mysql_refuses_the_built_ins_that_reach_past_the_database_however_the_name_is_quoted(
    db_url: str, statement: str
) -> None:
    if not db_url.startswith("mysql"):
        pytest.skip("MySQL's built-in functions and quoting")
    started = time.monotonic()
    assert (
        refused(db_url, statement)
        == "Error: the database refused the statement: not authorized: ratingdb sql only reads"
    )
    assert time.monotonic() - started < 10


def test_mysql_still_reads_a_column_named_like_a_function_or_a_keyword(db_url: str) -> None:
    if not db_url.startswith("mysql"):
        pytest.skip("MySQL's quoting")
    result = without_privilege_warning(sql(db_url, 'SELECT 1 AS `into`, 2 AS "sleep"', "-f", "csv"))
    assert (result.exit_code, result.stdout) == (0, "into,sleep\n1,2\n")


@pytest.mark.parametrize(
    ("engine", "statement", "reason"),
    [
        ("sqlite", "SELECT randomblob(300000000) AS b", "string or blob too big"),
        ("sqlite", "SELECT length(randomblob(1000000000)) AS n", "string or blob too big"),
        ("sqlite", "SELECT length(zeroblob(1000000000)) AS n", "string or blob too big"),
        ("sqlite", "SELECT printf('%.*c', 1000000000, 'x') AS p", "printf() widths and precisions above"),
        ("sqlite", "SELECT printf('%1000000000d', 1) AS p", "printf() widths and precisions above"),
        ("mysql", "SELECT REPEAT('x', 1000000000) AS r", "max_allowed_packet"),
        (
            "postgresql",
            "SELECT repeat('x', 1000000) AS r FROM generate_series(1, 100)",
            "result is larger than",
        ),
        # One value of 1 GB: computed on the server, never sent (ratingdb.engines.postgresql._pg_bounded).
        ("postgresql", "SELECT repeat('x', 1000000000) AS r", "result is larger than"),
        (
            "postgresql",
            "SELECT 1 AS n, repeat('x', 40000000) AS a, repeat('y', 40000000) AS b",
            "larger than",
        ),
        ("mysql", "SELECT REPEAT('x', 10000000) AS r FROM player", "result is larger than"),
    ],
)
def test_a_memory_bomb_is_refused_in_one_line_and_quickly(
    db_url: str, engine: str, statement: str, reason: str
) -> None:
    if not db_url.startswith(engine):
        pytest.skip(f"{engine}'s functions")
    if "FROM player" in statement:
        # Seven rows of 10 MB each: more than MAX_RESULT_BYTES together (64 MB), each within the packet.
        assert 7 * 10_000_000 > MAX_RESULT_BYTES
        seven = create_engine(db_url)
        with seven.begin() as conn:
            for n in range(7):
                conn.execute(text(f"INSERT INTO player (name, sex) VALUES ('P, {n}', 'M')"))
        seven.dispose()
    # A generous --timeout: the memory bound must be what stops it, not the time limit.
    started = time.monotonic()
    line = refused(db_url, statement, "--timeout", "120")
    assert line.startswith("Error: the database refused the statement: ") and reason in line, line
    assert time.monotonic() - started < 120


def test_printf_with_ordinary_widths_still_works_on_sqlite(db_url: str) -> None:
    if not db_url.startswith("sqlite"):
        pytest.skip("SQLite's printf, bounded by ratingdb")
    statement = "SELECT printf('%5d|%-4s|%.2f|%*d|%%', 42, 'ab', 3.14159, 3, 7) AS p"
    result = sql(db_url, statement, "-f", "csv")
    assert (result.exit_code, result.stdout) == (0, "p\n   42|ab  |3.14|  7|%\n")


def _select_only_url(root_url: str, name: str, password: str) -> str:
    url = make_url(os.environ[MYSQL_ENV]).set(database=make_url(root_url).database)
    return url.set(username=name, password=password).render_as_string(hide_password=False)


def test_sql_warns_an_account_that_can_do_more_than_read_and_not_a_select_only_one(db_url: str) -> None:
    if not db_url.startswith("mysql"):
        pytest.skip("MySQL/MariaDB accounts (PostgreSQL runs sql as ratingdb_reader whoever connects)")
    as_root = sql(db_url, "SELECT 1 AS one", "-f", "csv")
    assert as_root.exit_code == 0 and as_root.stdout == "one\n1\n"
    assert as_root.stderr.startswith(ROOT_WARNING + "ALL PRIVILEGES besides SELECT"), as_root.stderr
    name, password = f"rdb_report_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    admin = create_engine(db_url)
    database = make_url(db_url).database
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE USER '{name}'@'%%' IDENTIFIED BY '{password}'")
        conn.exec_driver_sql(f"GRANT SELECT ON `{database}`.* TO '{name}'@'%%'")
    try:
        reader = sql(_select_only_url(db_url, name, password), "SELECT 1 AS one", "-f", "csv")
        assert (reader.exit_code, reader.stdout, reader.stderr) == (0, "one\n1\n", "")
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP USER '{name}'@'%%'")
        admin.dispose()
