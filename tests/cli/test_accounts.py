"""`ratingdb db accounts`: the least-privileged set-up, printed for the server's administrator."""

from __future__ import annotations

from typer.testing import CliRunner

from ratingdb.cli import app

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
