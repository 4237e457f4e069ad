"""Issue 19, findings 1 and 2: `ratingdb sql` cannot reach the server, and cannot run, lock or fill memory
without bound.

1. On PostgreSQL the query runs with the rights of ratingdb_reader only (through the SECURITY DEFINER
   function of the sql_reader migration), even when ratingdb connects as the superuser `postgres`, as the test
   fixtures and the README's example do: server programs, server files, replication slots, reloading the
   configuration and climbing back with set_config('role') are all refused. A role that reaches the
   server and cannot use the reader is refused outright.
2. A statement is stopped at --timeout (statement_timeout and lock_timeout; a SQLite progress handler),
   at most --max-rows rows are fetched (streamed, with a notice), and fts3_tokenizer is denied on SQLite.
"""

from __future__ import annotations

import subprocess
import sys
import time
import tracemalloc
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.reports.sql import run_read_only
from tests.cli.test_sql_privileges import without_privilege_warning

runner = CliRunner()
REFUSED = "Error: the database refused the statement: "
STOPPED = (
    "Error: the statement was stopped after 1 s (--timeout): it ran, or waited for a lock, that long — "
    "narrow the query, or give a larger --timeout\n"
)


def sql(url: str, statement: str, *options: str):  # type: ignore[no-untyped-def]
    # The MySQL tests connect as root, of whom `sql` warns (tests/cli/test_sql_privileges.py tests it).
    return without_privilege_warning(runner.invoke(app, ["--db", url, "sql", statement, *options]))


def scalar(url: str, statement: str) -> object:
    """Run one statement as the fixture's superuser, outside ratingdb; its first value, if it has rows."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            result = conn.execute(text(statement))
            return result.scalar() if result.returns_rows else None
    finally:
        engine.dispose()


@pytest.fixture
def pg_url(db_url: str) -> str:
    if not db_url.startswith("postgresql"):
        pytest.skip("server roles and functions are PostgreSQL's")
    return db_url


@pytest.fixture
def login_role(pg_url: str) -> Iterator[tuple[str, str]]:
    """A new LOGIN role of this test (name, URL connecting as it); dropped afterwards."""
    name = f"ratingdb_t_{uuid.uuid4().hex[:10]}"
    scalar(pg_url, f'CREATE ROLE "{name}" LOGIN')
    try:
        # Every command first checks the schema's migration: a role that uses ratingdb reads alembic_version.
        scalar(pg_url, f'GRANT SELECT ON alembic_version TO "{name}"')
        yield name, make_url(pg_url).set(username=name).render_as_string(hide_password=False)
    finally:  # roles belong to the whole server: never leave one behind
        scalar(pg_url, f'DROP OWNED BY "{name}"')
        scalar(pg_url, f'DROP ROLE "{name}"')


# --- 1. PostgreSQL: the reader's rights only ----------------------------------------------------------


def test_a_superuser_connection_runs_the_query_as_ratingdb_reader(pg_url: str) -> None:
    assert make_url(pg_url).username == "postgres"
    result = sql(pg_url, "SELECT current_user AS who, session_user AS login", "-f", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout == "who,login\nratingdb_reader,postgres\n"


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("COPY (SELECT 'x') TO PROGRAM 'cat > {file}'", "not authorized: ratingdb sql only reads"),
        ("SELECT length(pg_read_file('/etc/passwd')) AS n", "permission denied for function pg_read_file"),
        ("SELECT * FROM pg_ls_dir('.') AS f", "permission denied for function pg_ls_dir"),
        ("SELECT lo_import('/etc/passwd') AS oid", "permission denied for function lo_import"),
        (
            "SELECT (pg_create_physical_replication_slot('{slot}')).slot_name",
            "must be superuser or replication role to use replication slots",
        ),
        ("SELECT pg_reload_conf() AS reloaded", "permission denied for function pg_reload_conf"),
        (
            "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
            "must be a superuser to terminate superuser process",
        ),
        (
            "SELECT set_config('role', 'postgres', true) AS r",
            'cannot set parameter "role" within security-definer function',
        ),
        (
            "SELECT set_config('session_authorization', 'postgres', true) AS s",
            'cannot set parameter "session_authorization" within security-definer function',
        ),
        ("DO $$ BEGIN SET LOCAL ROLE postgres; END $$", "not authorized: ratingdb sql only reads"),
        ("DELETE FROM player RETURNING id", "cannot execute DELETE in a read-only transaction"),
    ],
)
def test_server_files_programs_and_roles_are_out_of_reach(
    pg_url: str, tmp_path: Path, statement: str, reason: str
) -> None:
    file, slot = tmp_path / "written-by-the-server", f"ratingdb_t_{uuid.uuid4().hex[:10]}"
    result = sql(pg_url, statement.format(file=file, slot=slot))
    assert result.exit_code == 1
    assert result.stderr.startswith(REFUSED + reason), result.stderr
    assert not file.exists()
    assert scalar(pg_url, f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{slot}'") == 0


def test_an_advisory_lock_does_not_outlive_the_command(pg_url: str) -> None:
    key = 190_000 + int(uuid.uuid4().hex[:4], 16)
    result = sql(pg_url, f"SELECT pg_advisory_lock({key}) IS NULL AS locked", "-f", "csv")
    assert result.stdout == "locked\n0\n"
    held = f"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = {key}"
    assert scalar(pg_url, held) == 0


def test_tables_created_by_later_migrations_are_readable_by_the_reader(pg_url: str) -> None:
    # ALTER DEFAULT PRIVILEGES: a table the owner creates after the reader migration is readable
    # without a new GRANT.
    scalar(pg_url, "CREATE TABLE later_table AS SELECT 42 AS answer")
    assert sql(pg_url, "SELECT answer FROM later_table", "-f", "csv").stdout == "answer\n42\n"


def test_a_reporting_login_granted_the_reader_role_can_query(
    pg_url: str, login_role: tuple[str, str]
) -> None:
    name, url = login_role
    scalar(pg_url, f'GRANT ratingdb_reader TO "{name}"')
    try:
        result = sql(url, "SELECT current_user AS who, COUNT(*) AS players FROM player", "-f", "csv")
        assert result.stdout == "who,players\nratingdb_reader,0\n", result.output
    finally:
        scalar(pg_url, f'REVOKE ratingdb_reader FROM "{name}"')


def test_a_role_that_reads_server_files_is_refused_without_the_reader(
    pg_url: str, login_role: tuple[str, str]
) -> None:
    name, url = login_role
    scalar(pg_url, f'GRANT pg_read_server_files TO "{name}"')
    try:
        result = sql(url, "SELECT length(pg_read_file('/etc/passwd')) AS n")
    finally:
        scalar(pg_url, f'REVOKE pg_read_server_files FROM "{name}"')
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: ratingdb sql will not run as {name}: that role reaches the server's files, programs or "
        "sessions, and this database has no usable ratingdb_reader role to run the query as — connect as a "
        "reporting role instead (docs/operations/security.md)\n"
    )


def test_a_plain_login_without_the_reader_runs_as_itself_read_only(
    pg_url: str, login_role: tuple[str, str]
) -> None:
    name, url = login_role
    assert sql(url, "SELECT current_user AS who", "-f", "csv").stdout == f"who\n{name}\n"
    result = sql(url, "SELECT COUNT(*) AS n FROM player")
    assert result.stderr == REFUSED + "permission denied for table player\n"
    # Bounded as through the reader function: a value of 100 MB is not sent (the statement as a subquery),
    # and a statement that cannot be a subquery still runs as it is.
    result = sql(url, "SELECT repeat('x', 100000000) AS r -- a comment", "--timeout", "60")
    assert result.stderr.startswith(REFUSED + "its result is larger than 64 MB"), result.stderr
    assert sql(url, "SHOW lock_timeout", "-f", "csv").stdout == "lock_timeout\n5s\n"


def test_without_the_reader_function_a_superuser_is_refused_and_the_role_outlives_a_downgrade(
    pg_url: str,
) -> None:
    engine = db.make_engine(pg_url)
    try:
        db.downgrade(engine, _before_the_reader_migration())
        assert scalar(pg_url, "SELECT count(*) FROM pg_roles WHERE rolname = 'ratingdb_reader'") == 1
        assert scalar(pg_url, "SELECT to_regprocedure('ratingdb_read_only(text)') IS NULL") is True
        db.upgrade(engine)
        scalar(pg_url, "DROP FUNCTION ratingdb_read_only(text)")  # as if the migration could not make it
    finally:
        engine.dispose()
    result = sql(pg_url, "SELECT 1 AS one")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ratingdb sql will not run as postgres: that role reaches")


def _before_the_reader_migration() -> str:
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(db.alembic_config())
    (reader,) = [r for r in scripts.walk_revisions() if r.path.endswith("_sql_reader.py")]
    assert isinstance(reader.down_revision, str)
    return reader.down_revision


# --- 2. time, locks, rows and SQLite's dangerous functions, on both engines ------------------------------


def test_a_long_statement_is_stopped_at_the_timeout(db_url: str) -> None:
    forever = {
        "sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        "postgresql": "SELECT pg_sleep(30) IS NULL AS slept",
        # SLEEP() is refused (issue 26): a sum over MariaDB's sequence engine that runs long instead (a
        # recursive CTE stops quietly at max_recursive_iterations there).
        "mysql": "SELECT SUM(seq % 7) AS n FROM seq_1_to_100000000000",
    }[db_url.split(":")[0].split("+")[0]]
    started = time.monotonic()
    result = sql(db_url, forever, "--timeout", "1")
    assert result.exit_code == 1
    assert result.stderr == STOPPED
    assert time.monotonic() - started < 10


def test_waiting_for_a_lock_is_stopped_at_the_timeout(pg_url: str) -> None:
    holder = create_engine(pg_url)
    try:
        with holder.connect() as conn:
            conn.execute(text("LOCK TABLE player IN ACCESS EXCLUSIVE MODE"))  # a close's worst lock
            started = time.monotonic()
            result = sql(pg_url, "SELECT COUNT(*) AS n FROM player", "--timeout", "1")
            assert result.stderr == STOPPED
            assert time.monotonic() - started < 10
            conn.rollback()
    finally:
        holder.dispose()


def test_waiting_for_a_lock_on_mysql_is_stopped_at_the_timeout(db_url: str) -> None:
    if not db_url.startswith("mysql"):
        pytest.skip("MySQL's table locks")
    holder = db.make_engine(db_url)
    try:
        with holder.connect() as conn:
            conn.exec_driver_sql("LOCK TABLES player WRITE")  # held until UNLOCK TABLES
            started = time.monotonic()
            result = sql(db_url, "SELECT COUNT(*) AS n FROM player", "--timeout", "1")
            assert result.stderr == STOPPED
            assert time.monotonic() - started < 10
            conn.exec_driver_sql("UNLOCK TABLES")
    finally:
        holder.dispose()


def test_rows_beyond_max_rows_are_not_fetched_and_a_notice_says_so(db_url: str) -> None:
    statement = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 25) SELECT x FROM c"
    result = sql(db_url, statement, "-f", "csv", "--max-rows", "10")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["x", *map(str, range(1, 11))]
    assert result.stderr == "Truncated: showing the first 10 rows; the query returned more (--max-rows).\n"
    full = sql(db_url, statement, "-f", "csv", "--max-rows", "25")
    assert (len(full.stdout.splitlines()), full.stderr) == (26, "")


def test_a_huge_result_is_streamed_in_bounded_memory(db_url: str) -> None:
    engine = db.make_engine(db_url)
    huge = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) "
        "SELECT x, 'padding padding padding padding' AS pad FROM c"
    )
    try:
        tracemalloc.start()
        result = run_read_only(engine, huge, max_rows=100, timeout=30)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    finally:
        engine.dispose()
    assert (len(result.rows), result.truncated, result.rows[-1][0]) == (100, True, 100)
    assert peak < 5_000_000  # 300,000 rows fetched at once take well over 50 MB


@pytest.mark.parametrize("statement", ["SELECT fts3_tokenizer('simple')", "SELECT load_extension('x')"])
def test_sqlite_denies_fts3_tokenizer_and_load_extension(db_url: str, statement: str) -> None:
    if not db_url.startswith("sqlite"):
        pytest.skip("SQLite functions")
    name = statement.split()[1].split("(")[0]
    result = sql(db_url, statement)
    assert result.exit_code == 1
    assert result.stderr == f"{REFUSED}not authorized to use function: {name}\n"


def test_bad_limits_are_one_line(db_url: str) -> None:
    result = sql(db_url, "SELECT 1", "--max-rows", "0")
    assert result.exit_code == 1
    assert result.stderr == "Error: --timeout must be above 0 seconds and --max-rows at least 1\n"


# --- the two PostgreSQL attacks of finding 2, as reported -------------------------------------------------


def _ratingdb(url: str, *args: str) -> subprocess.Popen[str]:
    """`ratingdb --db URL ARGS` as its own process (so that it can be killed, or run beside a close)."""
    script = Path(sys.executable).with_name("ratingdb")
    return subprocess.Popen(
        [str(script), "--db", url, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_server_query(url: str, *, present: bool, within: float) -> bool:
    """Wait until a `ratingdb sql` query is (or is no longer) running on this test's database."""
    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND datname = current_database() "
        "AND query LIKE '%ratingdb_read_only%' AND pid <> pg_backend_pid()"
    )
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if (scalar(url, query) != 0) == present:
            return True
        time.sleep(0.1)
    return False


def test_a_query_holding_the_close_lock_holds_up_a_close_for_the_timeout_only(pg_url: str) -> None:
    from tests.fixtures.reports.club import build_club, run

    build_club(pg_url, through="2025-11")
    # The close of a standard period takes this advisory lock (services/lists.py).
    blocker = _ratingdb(
        pg_url,
        "sql",
        "SELECT pg_advisory_xact_lock(hashtext('ratingdb-close-standard')) IS NULL AS locked, "
        "pg_sleep(8) IS NULL AS slept",
        "--timeout",
        "2",
    )
    try:
        assert _wait_for_server_query(pg_url, present=True, within=30)
        started = time.monotonic()
        assert "published the list dated 2026-01-01" in run(pg_url, "close-period", "2025-12")
        assert time.monotonic() - started < 7.5  # before the 8 s the query asked for were over
        _, err = blocker.communicate(timeout=30)
        assert err == STOPPED.replace("after 1 s", "after 2 s")
    finally:
        blocker.kill()
        blocker.wait()


def test_killing_the_command_does_not_leave_the_query_running_on_the_server(pg_url: str) -> None:
    sleeper = _ratingdb(pg_url, "sql", "SELECT pg_sleep(100) IS NULL AS slept", "--timeout", "2")
    try:
        assert _wait_for_server_query(pg_url, present=True, within=30)
    finally:
        sleeper.kill()
        sleeper.communicate()
    assert _wait_for_server_query(pg_url, present=False, within=6)
