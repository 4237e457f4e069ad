"""The files ratingdb makes hold argon2 hashes, addresses and submitted files: only their owner may read
them (issue 54, L8) — a SQLite database, its WAL and every backup are created 0600 whatever the umask
gives (0644 by default)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app

runner = CliRunner()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def usual_umask() -> object:
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_a_new_sqlite_database_its_wal_and_its_backup_are_the_owners_only(tmp_path: Path) -> None:
    path = tmp_path / "federation.sqlite"
    url = f"sqlite:///{path}"
    assert runner.invoke(app, ["--db", url, "init"]).exit_code == 0
    assert mode(path) == 0o600
    engine = db.make_engine(url)
    try:
        with engine.begin() as conn:  # a write while the connection is open: the WAL holds it
            conn.execute(text("CREATE TABLE scratch (x INTEGER)"))
            conn.execute(text("INSERT INTO scratch VALUES (1)"))
        wal = Path(f"{path}-wal")
        assert wal.exists() and mode(wal) == 0o600
    finally:
        engine.dispose()
    copy = tmp_path / "copy.sqlite"
    result = runner.invoke(app, ["--db", url, "backup", str(copy)])
    assert result.exit_code == 0, result.output
    assert mode(copy) == 0o600


def test_a_backup_is_the_owners_only_on_every_engine_that_writes_one(db_url: str, tmp_path: Path) -> None:
    if make_url(db_url).get_backend_name() == "mysql":
        pytest.skip("MySQL/MariaDB: `backup` prints the mysqldump command to run, it writes no file")
    if make_url(db_url).get_backend_name() == "postgresql" and shutil.which("pg_dump") is None:
        pytest.skip("needs pg_dump")
    copy = tmp_path / "federation.backup"
    result = runner.invoke(app, ["--db", db_url, "backup", str(copy)])
    assert result.exit_code == 0, result.output
    assert mode(copy) == 0o600
