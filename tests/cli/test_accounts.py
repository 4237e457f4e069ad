"""`ratingdb db accounts`: the least-privileged set-up, printed for the server's administrator."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from ratingdb.accounts import setup_statements
from ratingdb.cli import app
from ratingdb.cli.common import QUIET_PRIVILEGES_ENV
from tests.cli.test_import_cli import FIXTURES

runner = CliRunner()


def test_the_mysql_set_up_creates_the_reader_and_officer_first_and_gives_the_officer_no_drop() -> None:
    result = runner.invoke(
        app, ["--db", "mysql+pymysql://x@h/ratings", "db", "accounts", "--database", "ratings"]
    )
    assert (result.exit_code, result.stdout.splitlines()) == (
        0,
        [
            "CREATE USER 'ratingdb_report'@'%' IDENTIFIED BY '…';",
            "CREATE USER 'ratingdb_officer'@'%' IDENTIFIED BY '…';",
            "CREATE USER 'ratingdb_owner'@'%' IDENTIFIED BY '…';",
            "CREATE DATABASE `ratings`;",
            "GRANT SELECT ON `ratings`.* TO 'ratingdb_report'@'%';",
            "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE TEMPORARY TABLES ON `ratings`.* "
            "TO 'ratingdb_officer'@'%';",
            "GRANT ALL PRIVILEGES ON `ratings`.* TO 'ratingdb_owner'@'%';",
        ],
    )


def test_sqlite_has_no_accounts_and_a_name_that_is_not_plain_is_refused() -> None:
    result = runner.invoke(app, ["--db", "sqlite:///x.sqlite", "db", "accounts"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: SQLite has no accounts: whoever may write the database file may change anything in it — keep "
        "the file writable by the rating officer only\n",
    )
    result = runner.invoke(app, ["--db", "mysql+pymysql://x@h/r", "db", "accounts", "--officer", "a'; DROP"])
    assert (result.exit_code, result.stderr) == (
        1,
        'Error: officer "a\'; DROP" is not a plain account name — use letters, digits and _ only\n',
    )


# --- the warning at connect, issue 26 ------------------------------------------------------------------

WRITING_COMMANDS = [
    ["rules", "add", "{folder}/club.toml"],
    ["import-list", "{folder}/oct.csv", "--date", "2025-10-01"],
    ["import-trf", str(FIXTURES / "round_robin.trf"), "--type", "standard"],
    ["close-period", "2025-10"],
    ["reopen", "2025-10", "--reason", "a result was wrong"],
]
WARNINGS = {
    "mysql": "Warning: this MySQL/MariaDB account holds ALL PRIVILEGES on the ratingdb tables, so it can "
    "TRUNCATE or DROP them (no trigger fires for TRUNCATE) — do the monthly work as an account with SELECT, "
    "INSERT, UPDATE, DELETE, CREATE TEMPORARY TABLES only (`ratingdb db accounts` prints the set-up)\n",
    "postgresql": "Warning: this PostgreSQL role is a superuser, so it can DROP the tables or disable their "
    "triggers — do the monthly work as a role with SELECT, INSERT, UPDATE, DELETE only (`ratingdb db "
    "accounts` prints the set-up)\n",
}


def _story_files(folder: Path) -> None:
    rules = (Path(__file__).parents[2] / "seeds" / "national-2025.toml").read_text(encoding="utf-8")
    (folder / "club.toml").write_text(
        rules.replace('name = "national-2025"', 'name = "club-2025"').replace(
            'rating_type = "national"', 'rating_type = "club"'
        ),
        encoding="utf-8",
    )
    (folder / "oct.csv").write_text(
        "fide_id,name,federation,sex,birth_year,rating\n"
        '200001,"Kowalski, Jan",IRL,M,1980,2200\n'
        '200002,"Novak, Petra",IRL,F,1980,2150\n'
        '200003,"Horvat, Ivan",IRL,M,1980,2100\n'
        '200004,"Szabo, Eva",IRL,F,2009,1980\n',
        encoding="utf-8",
    )


def test_every_writing_command_warns_a_root_or_superuser_account_once_at_connect(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_url(db_url).get_backend_name()
    if engine == "sqlite":
        pytest.skip("SQLite has no accounts")
    monkeypatch.delenv(QUIET_PRIVILEGES_ENV)
    _story_files(tmp_path)
    for command in WRITING_COMMANDS:
        args = [a.format(folder=tmp_path) for a in command]
        result = runner.invoke(app, ["--db", db_url, *args])
        assert result.exit_code == 0, result.output
        # Once, before the command's own output: the warning is said when the transaction connects.
        assert result.stderr == WARNINGS[engine], (command, result.stderr)


def test_the_officer_account_is_not_warned(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not db_url.startswith("mysql"):
        pytest.skip("the officer account of `db accounts` on MySQL/MariaDB")
    monkeypatch.delenv(QUIET_PRIVILEGES_ENV)
    name, password = f"rdb_officer_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    database = str(make_url(db_url).database)
    [grant] = [s for s in setup_statements("mysql", database, "o", name, "r") if f"TO '{name}'" in s]
    admin = create_engine(db_url)
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE USER '{name}'@'%%' IDENTIFIED BY '{password}'")
        conn.exec_driver_sql(grant.rstrip(";").replace("%", "%%"))
    try:
        url = make_url(db_url).set(username=name, password=password).render_as_string(hide_password=False)
        _story_files(tmp_path)
        result = runner.invoke(
            app, ["--db", url, "import-list", str(tmp_path / "oct.csv"), "--date", "2025-10-01"]
        )
        assert (result.exit_code, result.stderr) == (0, ""), result.output
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP USER '{name}'@'%%'")
        admin.dispose()
