"""Every command, with every kind of bad database URL: one `Error:` line, a non-zero exit, no traceback,
and never the password. Also the exact sentences for each kind, and a driver error that escapes a command."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.db_errors import explain
from tests.cli.test_help import command_paths
from tests.cli.test_import_cli import FIXTURES
from tests.conftest import MYSQL_ENV, PG_ENV

runner = CliRunner()
PASSWORD = "S3cretPW7"
LIST = Path(__file__).parents[1] / "fixtures" / "lists" / "list_minimal.csv"

# Arguments that get each command past its own checks to the point where it opens the database.
ARGS: dict[str, list[str]] = {
    "backup": ["copy.backup"],
    "calc": ["--player", "25900011", "--opponent", "1800"],
    "calculation": ["25900011", "2025-10"],
    "close-period": ["2025-10"],
    "db": ["current"],
    "db accounts": [],
    "db check": [],
    "db current": [],
    "delete-event": ["1", "--yes"],
    "demo": [],
    "event": ["edit", "1", "--section", "Major", "--reason", "a section"],
    "event edit": ["1", "--section", "Major", "--reason", "a section"],
    "events": [],
    "federation": ["show"],
    "federation show": [],
    "federation set": ["--national-ids", "prefix", "--national-id-prefix", "R", "--reason", "ours"],
    "export-trf": ["1"],
    "import-list": [str(LIST), "--date", "2025-10-01"],
    "import-trf": [str(FIXTURES / "round_robin.trf"), "--type", "standard"],
    "init": [],
    "list": [],
    # `norm check` needs no database: a missing case file is its one-line refusal here.
    "norm": ["check", "no-such-case.json"],
    "norm check": ["no-such-case.json"],
    "lists": [],
    "live": [],
    "reopen": ["2025-10", "--reason", "a wrong result"],
    "replace-event": ["1", str(FIXTURES / "round_robin.trf")],
    "player": ["25900011"],
    "player add": ["--name", "Murphy, Sean"],
    "player differences": [str(FIXTURES / "round_robin.trf")],
    "player duplicates": [],
    "player edit": ["25900011", "--birth-year", "2010", "--reason", "certificate"],
    "player find": ["Murphy"],
    "player merge": ["25900011", "25900012", "--reason", "registered twice"],
    "player show": ["25900011"],
    "publish": ["site"],
    "report": ["top"],
    "report diff": ["2025-10-01", "2025-11-01"],
    "report event": ["1"],
    "report norms": ["1"],
    "report history": ["25900011"],
    "report period": ["2025-10"],
    "report top": [],
    "report systems": ["--from", "2025-09", "--to", "2025-10"],
    "rules": ["list"],
    "rules add": [str(Path(__file__).parents[2] / "seeds" / "national-2025.toml")],
    "rules list": [],
    "rules show": ["national-2025"],
    "serve": ["--port", "1"],
    "sql": ["SELECT 1"],
    "withdraw-list": ["2025-10-01", "--reason", "a test"],
    "user": ["list"],
    "submission": ["list"],
    "submission list": [],
    "submission show": ["1"],
    "submission accept": ["1"],
    "submission request-changes": ["1", "--reason", "a test"],
    "submission reject": ["1", "--reason", "a test"],
    "user add": ["mary", "--role", "admin", "--password-stdin"],
    "user disable": ["mary"],
    "user enable": ["mary"],
    "user list": [],
    "user reset-password": ["mary", "--password-stdin"],
    "user set-role": ["mary", "officer"],
    "user unlock": ["mary"],
    "user contact": ["mary"],
    "user 2fa": ["reset", "mary"],
    "user 2fa enrol": ["mary", "--code-stdin"],
    "user 2fa reset": ["mary"],
    "event review": ["1", "--decision", "exclude", "--reason", "a test"],
    "federation renumber": ["--numbers", "1-9", "--reason", "made up"],
    "keys": ["create", "signing.key"],
    "keys create": ["signing.key"],
    "list bundle": ["2025-10-01", "--type", "standard", "-o", "bundle.zip"],
    "notices": ["list"],
    "notices list": [],
    "notices retry": ["1"],
    "notices send": [],
    "report risk": ["--period", "2025-10"],
    "submission replace": ["1", "1"],
    # `verify` reads a bundle, no database: a missing file is its one-line refusal here.
    "verify": ["no-such-bundle.zip"],
}
# `db accounts` prints the set-up SQL for the URL's engine and never connects.
COMMANDS = [" ".join(path) for path in command_paths() if path != ("db", "accounts")]


def pg_url(**parts: object) -> str:
    """A URL on the test server with `parts` changed (always carrying PASSWORD); skips without a server."""
    if not os.environ.get(PG_ENV):
        pytest.skip(f"PostgreSQL tests skipped: set {PG_ENV} to run them")
    url = make_url(os.environ[PG_ENV]).set(password=PASSWORD)
    return url.set(**parts).render_as_string(hide_password=False)  # type: ignore[arg-type]


def mysql_url(**parts: object) -> str:
    """A URL on the MySQL test server with `parts` changed; skips without one."""
    if not os.environ.get(MYSQL_ENV):
        pytest.skip(f"MySQL tests skipped: set {MYSQL_ENV} to run them")
    return make_url(os.environ[MYSQL_ENV]).set(**parts).render_as_string(hide_password=False)  # type: ignore[arg-type]


def not_a_database(tmp_path: Path) -> str:
    path = tmp_path / "notes.sqlite"
    path.write_text("these are notes, not a database\n", encoding="utf-8")
    return f"sqlite:///{path}"


def newer_database(tmp_path: Path, sqlite_template: Path) -> str:
    path = tmp_path / "newer.sqlite"
    shutil.copyfile(sqlite_template, path)
    with sqlite3.connect(path) as conn:
        # As a newer ratingdb's migration would: its guard (migration 0010) lets a migrating connection.
        conn.create_function("ratingdb_migrating", 0, lambda: 1)
        conn.execute("UPDATE alembic_version SET version_num = '0999_from_the_future'")
    return f"sqlite:///{path}"


BAD_URLS = {
    "refused port": lambda tmp, tpl: f"postgresql+psycopg://rater:{PASSWORD}@127.0.0.1:1/ratings",
    "unknown host": lambda tmp, tpl: f"postgresql+psycopg://rater:{PASSWORD}@no-such-host.invalid/ratings",
    "missing database": lambda tmp, tpl: pg_url(database=f"ratingdb_missing_{uuid.uuid4().hex[:8]}"),
    "missing role": lambda tmp, tpl: pg_url(username="ratingdb_no_such_role"),
    "MySQL missing database": lambda tmp, tpl: mysql_url(database=f"ratingdb_missing_{uuid.uuid4().hex[:8]}"),
    "MySQL refused user": lambda tmp, tpl: mysql_url(username="ratingdb_no_such_user", password=PASSWORD),
    "MySQL driver not PyMySQL": lambda tmp, tpl: f"mysql+mysqldb://rater:{PASSWORD}@127.0.0.1/ratings",
    "postgres:// scheme": lambda tmp, tpl: pg_url(drivername="postgres", database="ratingdb_missing_x"),
    "unescaped @ in password": lambda tmp, tpl: "postgresql://rater:S3cret@PW7@127.0.0.1/ratings",
    "unreadable URL": lambda tmp, tpl: f"postgres ql://rater:{PASSWORD}@db.example.org/ratings",
    "unknown database kind": lambda tmp, tpl: f"oracle2://rater:{PASSWORD}@db.example.org/ratings",
    "SQLite folder missing": lambda tmp, tpl: f"sqlite:///{tmp / 'no' / 'such' / 'folder' / 'r.sqlite'}",
    "SQLite folder not writable": lambda tmp, tpl: "sqlite:////proc/ratingdb-test.sqlite",
    "not a database": lambda tmp, tpl: not_a_database(tmp),
    "newer ratingdb": lambda tmp, tpl: newer_database(tmp, tpl),
}


@pytest.mark.parametrize("kind", BAD_URLS)
def test_every_command_fails_in_one_line_with_a_bad_url(
    kind: str, tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = BAD_URLS[kind](tmp_path, sqlite_template)
    monkeypatch.chdir(tmp_path)  # `demo` and relative paths stay inside the test's folder
    for command in COMMANDS:
        result = runner.invoke(app, ["--db", url, *command.split(), *ARGS[command]])
        shown = result.stdout + result.stderr
        where = f"`ratingdb {command}` with {kind}"
        assert "Traceback" not in shown and PASSWORD not in shown, f"{where}:\n{shown}"
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{where}: {result.exception!r}"
        )
        if kind == "newer ratingdb" and command in ("db", "db current"):
            assert "current migration: 0999_from_the_future" in result.stdout  # it only reports
            continue
        assert result.exit_code == 1, f"{where}:\n{shown}"
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), f"{where}:\n{shown}"


def error_of(url: str, *command: str) -> str:
    result = runner.invoke(app, ["--db", url, *command])
    assert result.exit_code == 1, result.output
    return result.stderr


def test_a_refused_port_names_host_port_and_database_only() -> None:
    assert error_of(BAD_URLS["refused port"](Path(), Path()), "list") == (
        "Error: cannot connect to PostgreSQL at 127.0.0.1:1 (database ratings): the connection was refused "
        "— check that the server is running and listens on port 1\n"
    )


def test_a_missing_postgresql_database_says_how_to_create_it() -> None:
    url = pg_url(database="ratingdb_missing_x")
    host, port = make_url(url).host, make_url(url).port or 5432
    expected = (
        f"Error: the database ratingdb_missing_x does not exist on PostgreSQL at {host}:{port} — create it "
        "(createdb ratingdb_missing_x), then run `ratingdb init`\n"
    )
    assert error_of(url, "list") == expected
    # postgres:// and postgresql:// both mean the psycopg driver: the same sentence, not a missing plugin.
    assert error_of(pg_url(drivername="postgres", database="ratingdb_missing_x"), "list") == expected
    assert error_of(pg_url(drivername="postgresql", database="ratingdb_missing_x"), "list") == expected


def test_mysql_connection_errors_say_what_to_do_without_the_user() -> None:
    url = mysql_url(database="ratingdb_missing_x")
    host, port = make_url(url).host, make_url(url).port or 3306
    assert error_of(url, "list") == (
        f"Error: the database ratingdb_missing_x does not exist on MariaDB/MySQL at {host}:{port} — "
        "create it (CREATE DATABASE ratingdb_missing_x), then run `ratingdb init`\n"
    )
    refused = mysql_url(username="ratingdb_no_such_user", password=PASSWORD)
    assert error_of(refused, "list") == (
        f"Error: cannot connect to MariaDB/MySQL at {host}:{port} (database {make_url(refused).database}): "
        "the user name or password was refused — check them in the URL (write special characters "
        "URL-escaped, e.g. @ as %40)\n"
    )
    assert error_of(f"mysql+mysqldb://u:{PASSWORD}@127.0.0.1/r", "list") == (
        "Error: ratingdb talks to MySQL and MariaDB through PyMySQL, not mysql+mysqldb: write the URL as "
        "mysql+pymysql://user:password@host/dbname\n"
    )


def test_a_missing_role_is_not_named() -> None:
    url = pg_url(username="ratingdb_no_such_role")
    stderr = error_of(url, "list")
    assert "server has no such user — check the user name in the URL" in stderr
    assert "ratingdb_no_such_role" not in stderr


def test_an_unescaped_at_sign_shows_no_part_of_the_password() -> None:
    assert error_of("postgresql://rater:S3cret@PW7@127.0.0.1/ratings", "list") == (
        "Error: the database URL has more than one '@' — write an '@' inside the user name or password as "
        "%40, e.g. postgresql+psycopg://user:pa%40ss@host/dbname\n"
    )


def test_an_unreadable_url_is_not_echoed() -> None:
    assert error_of(f"postgres ql://u:{PASSWORD}@h/x", "list") == (
        "Error: the database URL cannot be read — write it as "
        "dialect+driver://user:password@host:port/dbname, e.g. sqlite:///ratingdb.sqlite or postgresql+psycopg://user@localhost/ratingdb\n"
    )


def test_sqlite_paths_that_cannot_hold_a_database(tmp_path: Path, sqlite_template: Path) -> None:
    missing = tmp_path / "no" / "r.sqlite"
    assert error_of(f"sqlite:///{missing}", "init") == (
        f"Error: the folder {missing.parent} for the SQLite database {missing} does not exist — "
        "create it, or give another path in the URL\n"
    )
    assert error_of("sqlite:////proc/r.sqlite", "init") == (
        "Error: cannot open the SQLite database /proc/r.sqlite: the folder /proc is not writable — give a "
        "file in a folder you can write to\n"
    )
    notes = not_a_database(tmp_path)
    assert error_of(notes, "list") == (
        f"Error: {make_url(notes).database} is not a SQLite database — check the path in the URL (a new file "
        "name creates a database)\n"
    )
    newer = newer_database(tmp_path, sqlite_template)
    for command in (["list"], ["init"]):
        assert error_of(newer, *command) == (
            "Error: the database is at migration 0999_from_the_future, which this ratingdb does not know: a "
            "newer ratingdb wrote it — upgrade ratingdb (git pull, then pip install -e . in the checkout) to "
            "use this database\n"
        )


def test_a_command_needing_a_database_does_not_create_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "typo.sqlite"
    assert error_of(f"sqlite:///{path}", "list") == (
        f"Error: the SQLite database {path} does not exist — check the path, or run `ratingdb init` to "
        "create it\n"
    )
    assert not path.exists()


def driver_error(message: str, *, statement: str | None = None) -> OperationalError:
    return OperationalError(statement, None, Exception(message))


def test_a_refused_password_is_explained_without_the_user() -> None:
    # The test server trusts local connections, so the server's own sentence is replayed here.
    exc = driver_error(
        'connection failed: connection to server at "10.0.0.5", port 5433 failed: FATAL:  password '
        'authentication failed for user "rater"'
    )
    assert str(explain(exc, f"postgresql+psycopg://rater:{PASSWORD}@10.0.0.5:5433/fed")) == (
        "cannot connect to PostgreSQL at 10.0.0.5:5433 (database fed): the user name or password was refused "
        "— check them in the URL (write special characters URL-escaped, e.g. @ as %40)"
    )


def test_a_statement_the_database_refuses_is_one_sentence() -> None:
    exc = IntegrityError(
        "INSERT INTO player ...",
        None,
        Exception('duplicate key value violates unique constraint "uq_player_fide_id"\nDETAIL: Key ...'),
    )
    assert str(explain(exc, "sqlite:///r.sqlite")) == (
        "the database refused the command: "
        'duplicate key value violates unique constraint "uq_player_fide_id" — nothing was written; '
        "if the input looks right, please report this as a ratingdb bug"
    )


def test_a_driver_error_inside_a_command_is_one_line_but_a_bug_keeps_its_traceback(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `list` imports its report functions when it runs (start-up time), so they are replaced where they live.
    import ratingdb.reports.lists as lists_report

    def database_refuses(*_: object, **__: object) -> None:
        raise driver_error("disk I/O error", statement="SELECT 1")

    monkeypatch.setattr(lists_report, "find_list", database_refuses)
    result = runner.invoke(app, ["--db", db_url, "list"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1

    def bug(*_: object, **__: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(lists_report, "find_list", bug)
    result = runner.invoke(app, ["--db", db_url, "list"])
    assert isinstance(result.exception, KeyError)


def test_an_id_too_large_for_the_database_is_one_line(db_url: str) -> None:
    huge = str(10**23)
    for command in (["player", huge], ["report", "event", huge], ["export-trf", huge]):
        result = runner.invoke(app, ["--db", db_url, *command])
        # MySQL compares it as a decimal, and `player` looks IDs up as text: "not found", in one line too.
        if make_url(db_url).get_backend_name() == "mysql" or command[0] == "player":
            assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1, result.output
            continue
        assert (result.exit_code, result.stderr) == (
            1,
            "Error: a number given is too large for the database — check the IDs and numbers on the command "
            "line\n",
        ), command


# The URL forms people type (issue 25), each with the one line it gets. A bare path is not taken as
# SQLite (the manual documents URLs only): the line says the URL to write instead.
TYPED_URLS = {
    "sqlite://x": "sqlite://x has two slashes, so 'x' is read as a server — a SQLite file is sqlite:///x "
    "(three slashes before a relative path, four before an absolute one)",
    "sqlite://fed.sqlite": "sqlite://fed.sqlite has two slashes, so 'fed.sqlite' is read as a server — a "
    "SQLite file is sqlite:///fed.sqlite (three slashes before a relative path, four before an absolute one)",
    "sqlite:x": "sqlite:x is not a SQLite URL — write sqlite:///x (three slashes before a relative path, "
    "four before an absolute one)",
    "sqlite:/x": "sqlite:/x is not a SQLite URL — write sqlite:////x (three slashes before a relative path, "
    "four before an absolute one)",
    "postgres:/x": "the database URL has no '//' after 'postgres:' — write it as "
    "postgres://user:password@host:port/dbname, e.g. sqlite:///ratingdb.sqlite or "
    "postgresql+psycopg://user@localhost/ratingdb",
    "mysql:root@h/db": "the database URL has no '//' after 'mysql:' — write it as "
    "mysql://user:password@host:port/dbname, e.g. sqlite:///ratingdb.sqlite or "
    "postgresql+psycopg://user@localhost/ratingdb",
    "postgres://": "the PostgreSQL URL names no database — end it with the database's name, e.g. "
    "postgresql+psycopg://user@localhost/ratingdb",
    "postgresql+psycopg://u@127.0.0.1:1": "the PostgreSQL URL names no database — end it with the "
    "database's name, e.g. postgresql+psycopg://user@localhost/ratingdb",
    "mysql://root@": "the MariaDB/MySQL URL names no database — end it with the database's name, e.g. "
    "mysql+pymysql://user@localhost/ratingdb",
    "mariadb+pymysql://root@127.0.0.1": "the MariaDB/MySQL URL names no database — end it with the "
    "database's name, e.g. mysql+pymysql://user@localhost/ratingdb",
    "postgresql+psycopg2://u@h/d": "ratingdb talks to PostgreSQL through psycopg (version 3), not "
    "postgresql+psycopg2: write the URL as postgresql+psycopg://user:password@host/dbname",
    "http://x": "'http' is not a kind of database ratingdb can use — it runs on SQLite, PostgreSQL and "
    "MariaDB/MySQL, e.g. sqlite:///ratingdb.sqlite or postgresql+psycopg://user@localhost/ratingdb",
    "oracle://u@h/d": "'oracle' is not a kind of database ratingdb can use — it runs on SQLite, PostgreSQL "
    "and MariaDB/MySQL, e.g. sqlite:///ratingdb.sqlite or postgresql+psycopg://user@localhost/ratingdb",
    "fed.sqlite": "fed.sqlite is a file name, not a database URL — for a SQLite file write "
    "sqlite:///fed.sqlite",
    "/srv/ratings/fed.sqlite": "/srv/ratings/fed.sqlite is a file name, not a database URL — for a SQLite "
    "file write sqlite:////srv/ratings/fed.sqlite",
    "C:\\ratings\\fed.sqlite": "C:\\ratings\\fed.sqlite is a file path, not a database URL — for a SQLite "
    "file write sqlite:///C:\\ratings\\fed.sqlite",
    "": "the database URL is empty — give one with --db URL or RATINGDB_URL, e.g. sqlite:///ratingdb.sqlite "
    "or postgresql+psycopg://user@localhost/ratingdb",
    " ": "the database URL is empty — give one with --db URL or RATINGDB_URL, e.g. "
    "sqlite:///ratingdb.sqlite or postgresql+psycopg://user@localhost/ratingdb",
    f"rater:{PASSWORD}@db.example.org": "the database URL cannot be read — write it as "
    "dialect+driver://user:password@host:port/dbname, e.g. sqlite:///ratingdb.sqlite or "
    "postgresql+psycopg://user@localhost/ratingdb",
}


@pytest.mark.parametrize("url", TYPED_URLS)
def test_a_mistyped_url_is_one_line_saying_what_to_write(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for command in (["init"], ["events"], ["close-period", "2025-10"]):
        assert error_of(url, *command) == f"Error: {TYPED_URLS[url]}\n"
    assert list(tmp_path.iterdir()) == []  # no file was created on the way


def test_the_accepted_url_forms_open_the_same_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for url in ("sqlite:///fed.sqlite", f"sqlite:///{tmp_path}/fed.sqlite", "sqlite+pysqlite:///fed.sqlite"):
        result = runner.invoke(app, ["--db", url, "init"])
        assert result.exit_code == 0, result.output
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".sqlite"] == ["fed.sqlite"]


def test_a_missing_mysql_driver_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pymysql", None)  # as if PyMySQL were not installed
    assert error_of("mysql+pymysql://u@127.0.0.1/ratingdb", "events") == (
        "Error: the MariaDB/MySQL driver PyMySQL is not installed — install it from the ratingdb checkout "
        "with `pip install -e '.[mysql]'` (or `pip install pymysql` into ratingdb's environment)\n"
    )
