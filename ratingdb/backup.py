"""Consistent copies of a ratingdb database: SQLite's backup API (checked), pg_dump on PostgreSQL.

Imports ratingdb.db and the standard library; no services, no CLI. Every copy is written to a
temporary file beside its target and renamed into place, so a half-written backup never exists.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import URL

from ratingdb import db
from ratingdb.errors import ConfigError, RatingDbError


class BackupFailed(RatingDbError):
    """The copy could not be made, or it failed its check (it is then removed)."""


@dataclass(frozen=True)
class Backup:
    path: Path
    size: int
    how: str  # what made and checked the copy, for the person who asked


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL, None for another engine (or an in-memory database)."""
    parsed = db.parse_url(url)
    name = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or name in ("", ":memory:") or name.startswith("file:"):
        return None
    return Path(name)


def backup(url: str, target: Path, *, force: bool = False) -> Backup:
    """Copy the database at `url` to `target` (refused if it exists, unless `force`)."""
    target = Path(target)
    source = sqlite_path(url)
    if source is not None:
        _refuse_target(target, force, database=source)
        return backup_sqlite(source, target)
    parsed = db.parse_url(url)
    if parsed.get_backend_name() == "postgresql":
        _refuse_target(target, force, database=None)
        return _pg_dump(parsed, target)
    if parsed.get_backend_name() == "mysql":
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
    raise ConfigError(
        f"ratingdb cannot back up a {parsed.get_backend_name()} database — use the server's own tools"
    )


def _refuse_target(target: Path, force: bool, *, database: Path | None) -> None:
    if database is not None:
        resolved = target.resolve()
        for suffix in ("", "-wal", "-shm", "-journal"):
            if resolved == Path(str(database.resolve()) + suffix):
                raise ConfigError(f"{target} is the database itself — give another file for the backup")
    if target.is_dir():
        raise ConfigError(f"{target} is a folder — give a file name for the backup")
    if not target.parent.is_dir():
        raise ConfigError(f"the folder {target.parent} does not exist — create it, or give another path")
    if target.exists() and not force:
        raise ConfigError(f"{target} already exists — give a new file name, or add --force to replace it")


def backup_sqlite(source: Path, target: Path) -> Backup:
    """A consistent copy while other connections read and write (sqlite3's online backup API), checked:
    `PRAGMA integrity_check` is ok and the schema is at the newest migration this ratingdb knows."""
    if not source.is_file():
        raise ConfigError(f"the SQLite database {source} does not exist — check the path")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        with _closing(sqlite3.connect(source, timeout=60)) as src:
            with _closing(sqlite3.connect(partial)) as dst:
                src.backup(dst)
                # A backup is one self-contained file: no -wal beside it.
                dst.execute("PRAGMA journal_mode = DELETE")
                _check_copy(dst)
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise BackupFailed(
            f"the backup of {source} failed: {exc} — nothing was written to {target}"
        ) from None
    finally:
        partial.unlink(missing_ok=True)
    return Backup(
        target, target.stat().st_size, f"SQLite backup API; integrity ok; migration {db.head_revision()}"
    )


def _check_copy(copy: sqlite3.Connection) -> None:
    verdict = [row[0] for row in copy.execute("PRAGMA integrity_check")]
    if verdict != ["ok"]:
        raise BackupFailed(
            f"the copy fails SQLite's integrity check ({verdict[0]}) — the database may be damaged"
        )
    try:
        (revision,) = copy.execute("SELECT version_num FROM alembic_version").fetchone() or (None,)
    except sqlite3.OperationalError:
        revision = None
    head = db.head_revision()
    if revision != head:
        raise BackupFailed(
            f"the copy is at migration {revision or 'none'}, not {head} — run `ratingdb init` on the "
            "database first, or back it up with the ratingdb that wrote it"
        )


class _closing:
    """sqlite3 connections close on leaving the block (their own context manager only commits)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *_: object) -> None:
        self.conn.close()


def _pg_dump(parsed: URL, target: Path) -> Backup:
    """pg_dump's custom format (restore with pg_restore); the password goes through the environment."""
    args = ["--format=custom", "--no-owner", f"--file={target}"]
    if parsed.host:
        args.append(f"--host={parsed.host}")
    if parsed.port:
        args.append(f"--port={parsed.port}")
    if parsed.username:
        args.append(f"--username={parsed.username}")
    args.append(f"--dbname={parsed.database or ''}")
    program = shutil.which("pg_dump")
    if program is None:
        shown = " ".join(["pg_dump", *args])
        raise ConfigError(
            "pg_dump is not installed here — install the PostgreSQL client tools, or run this where "
            f"they are: {shown} (restore with pg_restore)"
        )
    partial = target.with_name(f".{target.name}.partial")
    args[2] = f"--file={partial}"
    env = dict(os.environ, PGCONNECT_TIMEOUT="10")
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    try:
        done = subprocess.run([program, *args], env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["no message"])[-1].removeprefix("pg_dump: ")
            raise BackupFailed(f"pg_dump failed: {reason} — nothing was written to {target}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return Backup(target, target.stat().st_size, "pg_dump, custom format (restore with pg_restore)")


PRE_CLOSE_PREFIX = "pre-close-"


def pre_close_copy(url: str, keep: int, label: str, *, now: dt.datetime | None = None) -> Path | None:
    """Before a close on SQLite: a checked copy in `<database>-backups/`, keeping the newest `keep`.

    Returns the copy's path, or None when there is nothing to do (another engine, `keep` 0).
    """
    source = sqlite_path(url)
    if source is None or keep <= 0:
        return None
    folder = source.with_name(f"{source.name}-backups")
    folder.mkdir(exist_ok=True)
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%S")
    made = backup_sqlite(source, folder / f"{PRE_CLOSE_PREFIX}{label}-{stamp}.sqlite").path
    copies = sorted(folder.glob(f"{PRE_CLOSE_PREFIX}*.sqlite"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    for old in copies[:-keep]:
        old.unlink()
    return made


def backups_to_keep(value: str | None) -> int:
    """RATINGDB_BACKUPS: how many pre-close copies to keep (unset or 0: none)."""
    if not value:
        return 0
    if not (value.isascii() and value.isdigit()):
        raise ConfigError(
            f"RATINGDB_BACKUPS is '{value}' — set it to the number of pre-close copies to keep, e.g. 3"
        )
    return int(value)
