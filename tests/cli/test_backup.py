"""`ratingdb backup FILE`: a consistent, checked copy (SQLite while in use; pg_dump on PostgreSQL), and the
pre-close copies RATINGDB_BACKUPS=N keeps."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.db import head_revision
from tests.cli.test_import_cli import ROUND_ROBIN_LIST
from tests.conftest import PG_ENV

runner = CliRunner()


def run(db_url: str, *args: str | Path, **env: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", db_url, *map(str, args)], env=env or None)


def with_list(db_url: str, tmp_path: Path) -> None:
    lst = tmp_path / "oct.csv"
    lst.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    assert run(db_url, "import-list", lst, "--date", "2025-10-01").exit_code == 0


def names(db_url: str) -> list[str]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        found = list(conn.scalars(text("SELECT name FROM player ORDER BY name")))
    engine.dispose()
    return found


def test_a_sqlite_backup_taken_during_a_write_holds_only_what_was_committed(
    tmp_path: Path, sqlite_template: Path
) -> None:
    path = tmp_path / "r.sqlite"
    shutil.copyfile(sqlite_template, path)
    url = f"sqlite:///{path}"
    with_list(url, tmp_path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO player (name) VALUES ('Uncommitted, Una')")
    try:
        copy = tmp_path / "copy.sqlite"
        result = run(url, "backup", copy)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert result.exit_code == 0, result.output
    size = copy.stat().st_size
    assert result.stdout == (
        f"Backed up {url} to {copy} ({size:,} bytes; SQLite backup API; integrity ok; migration "
        f"{head_revision()}).\n"
    )
    assert names(f"sqlite:///{copy}") == ["Horvat, Ivan", "Kowalski, Jan", "Novak, Petra", "Szabo, Eva"]
    assert not Path(f"{copy}-wal").exists()
    assert run(f"sqlite:///{copy}", "db", "check").exit_code == 0


def test_a_backup_never_overwrites_without_force_nor_the_database_itself(db_url: str, tmp_path: Path) -> None:
    target = tmp_path / "copy.backup"
    target.write_text("an older backup", encoding="utf-8")
    result = run(db_url, "backup", target)
    url = make_url(db_url)
    if url.get_backend_name() == "mysql":  # not covered: the command says what to run instead
        assert result.stderr == (
            "Error: ratingdb backup covers SQLite and PostgreSQL — for MariaDB/MySQL run: mysqldump "
            f"--single-transaction --routines --triggers --host={url.host} --port={url.port} "
            f"--user={url.username} {url.database} > {target}\n"
        )
        return
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: {target} already exists — give a new file name, or add --force to replace it\n",
    )
    assert target.read_text(encoding="utf-8") == "an older backup"
    assert run(db_url, "backup", target, "--force").exit_code == 0
    database = make_url(db_url).database
    if make_url(db_url).get_backend_name() == "sqlite":
        for name in (database, f"{database}-wal"):
            result = run(db_url, "backup", name)
            assert (
                result.stderr == f"Error: {name} is the database itself — give another file for the backup\n"
            )


def test_a_database_behind_the_newest_migration_is_not_backed_up(
    tmp_path: Path, sqlite_template: Path
) -> None:
    path = tmp_path / "old.sqlite"
    shutil.copyfile(sqlite_template, path)
    with sqlite3.connect(path) as conn:
        conn.create_function("ratingdb_migrating", 0, lambda: 1)  # the guard lets a migration through
        conn.execute("UPDATE alembic_version SET version_num = '0001'")
    result = run(f"sqlite:///{path}", "backup", tmp_path / "copy.sqlite")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: the copy is at migration 0001, not {head_revision()} — run `ratingdb init` on the database "
        "first, or back it up with the ratingdb that wrote it\n"
    )
    assert not (tmp_path / "copy.sqlite").exists()


def test_a_postgresql_backup_restores_with_pg_restore(tmp_path: Path) -> None:
    if not os.environ.get(PG_ENV) or shutil.which("pg_restore") is None:
        pytest.skip(f"needs {PG_ENV} and the PostgreSQL client tools")
    server = make_url(os.environ[PG_ENV])
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    source, restored = (f"ratingdb_bk_{uuid.uuid4().hex[:8]}" for _ in range(2))
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{source}"'))
        conn.execute(text(f'CREATE DATABASE "{restored}"'))
    try:
        url = server.set(database=source).render_as_string(hide_password=False)
        assert run(url, "init").exit_code == 0
        with_list(url, tmp_path)
        dump = tmp_path / "federation.dump"
        result = run(url, "backup", dump)
        assert result.exit_code == 0, result.output
        assert result.stdout == (
            f"Backed up {server.set(database=source).render_as_string(hide_password=True)} to {dump} "
            f"({dump.stat().st_size:,} bytes; pg_dump, custom format (restore with pg_restore)).\n"
        )
        target = server.set(database=restored)
        subprocess.run(
            ["pg_restore", "--no-owner", f"--dbname={target.database}", f"--host={target.host}",
             f"--port={target.port or 5432}", f"--username={target.username}", str(dump)],
            check=True, capture_output=True,
        )  # fmt: skip
        again = target.render_as_string(hide_password=False)
        assert names(again) == names(url)
        assert run(again, "db", "check").exit_code == 0
        # --no-owner gave ratingdb_read_only to the restoring role: `sql` refuses it (issue 25) until
        # `init` gives it back to ratingdb_reader, as docs/guide/backups.md says.
        query = ("sql", "SELECT COUNT(*) AS players FROM player", "-f", "csv")
        refused = run(again, *query)
        assert (
            refused.exit_code == 1
            and "no usable ratingdb_reader role to run the query as (as after "
            "pg_restore --no-owner) — run `ratingdb init` to restore it"
            in refused.stderr
        ), refused.output
        repaired = run(again, "init")
        assert repaired.exit_code == 0, repaired.output
        assert repaired.stdout.splitlines()[1:] == [
            "Restored the ratingdb_reader role's rights and its function ratingdb_read_only for "
            "`ratingdb sql` (they were missing or owned by another role, as after pg_restore --no-owner)."
        ]
        answered = run(again, *query)
        assert (answered.exit_code, answered.stdout) == (0, f"players\n{len(names(url))}\n"), answered.output
        assert len(run(again, "init").stdout.splitlines()) == 1  # repaired once: nothing more to say
    finally:
        with admin.connect() as conn:
            for name in (source, restored):
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_without_pg_dump_the_backup_says_what_to_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import ratingdb.cli.backup
    import ratingdb.engines.postgresql

    monkeypatch.setattr(ratingdb.engines.postgresql.shutil, "which", lambda _: None)
    monkeypatch.setattr(ratingdb.cli.backup, "engine", lambda **_: create_engine("sqlite://"))
    url = "postgresql+psycopg://rater:S3cretPW7@db.example.org:5433/federation"
    result = run(url, "backup", tmp_path / "f.dump")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: pg_dump is not installed here — install the PostgreSQL client tools, or run this where they "
        f"are: pg_dump --format=custom --no-owner --file={tmp_path / 'f.dump'} --host=db.example.org "
        "--port=5433 --username=rater --dbname=federation (restore with pg_restore)\n"
    )


def test_rating_db_backups_keeps_the_newest_pre_close_copies(tmp_path: Path, sqlite_template: Path) -> None:
    path = tmp_path / "r.sqlite"
    shutil.copyfile(sqlite_template, path)
    url = f"sqlite:///{path}"
    with_list(url, tmp_path)
    folder = tmp_path / "r.sqlite-backups"
    for period in ("2025-10", "2025-11", "2025-12"):
        result = run(url, "close-period", period, RATINGDB_BACKUPS="2")
        assert result.exit_code == 0, result.output
        (copy,) = sorted(folder.glob(f"pre-close-{period}-standard-*.sqlite"))
        assert result.stdout.splitlines()[0] == (
            f"Copied the database to {copy} before the close (RATINGDB_BACKUPS keeps the newest 2)."
        )
    kept = sorted(p.name[: len("pre-close-2025-11")] for p in folder.iterdir())
    assert kept == ["pre-close-2025-11", "pre-close-2025-12"]
    # The copy before the December close holds the lists up to 2025-12-01, not the one it published.
    (december,) = folder.glob("pre-close-2025-12-*")
    with sqlite3.connect(december) as conn:
        dates = [d for (d,) in conn.execute("SELECT list_date FROM rating_list ORDER BY list_date")]
    assert dates == ["2025-10-01", "2025-11-01", "2025-12-01"]
    # A close that changes nothing makes no copy and keeps the copies there are.
    again = run(url, "close-period", "2025-12", RATINGDB_BACKUPS="2")
    assert again.stdout.startswith("Period 2025-12 (standard) is already closed")
    assert sorted(p.name[: len("pre-close-2025-11")] for p in folder.iterdir()) == kept


def test_a_bad_rating_db_backups_value_is_one_line(tmp_path: Path, sqlite_template: Path) -> None:
    path = tmp_path / "r.sqlite"
    shutil.copyfile(sqlite_template, path)
    result = run(f"sqlite:///{path}", "close-period", "2025-10", RATINGDB_BACKUPS="some")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: RATINGDB_BACKUPS is 'some' — set it to the number of pre-close copies to keep, e.g. 3\n",
    )
