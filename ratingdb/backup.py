"""Consistent copies of a ratingdb database: SQLite's backup API (checked), pg_dump on PostgreSQL.

Imports ratingdb.db, ratingdb.engines and the standard library; no services, no CLI. How each engine
copies is its backend's (`backup` in ratingdb.engines.<engine>). Every copy is written to a temporary
file beside its target and renamed into place, so a half-written backup never exists. What a backup is and
what it refuses (Backup, BackupFailed, refuse_target) are ratingdb/engines/copies.py's, re-exported here.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

from ratingdb import db
from ratingdb.engines.copies import Backup as Backup
from ratingdb.engines.copies import BackupFailed as BackupFailed
from ratingdb.engines.copies import refuse_target as refuse_target
from ratingdb.errors import ConfigError


def sqlite_path(url: str) -> Path | None:
    """The file of a database held in one file (SQLite), None for a server (or an in-memory database)."""
    return db.database_file(url)


def backup(url: str, target: Path, *, force: bool = False) -> Backup:
    """Copy the database at `url` to `target` (refused if it exists, unless `force`), the engine's way
    (its backend's `backup`: SQLite's backup API, pg_dump, or the command to run instead)."""
    return db.backend(url).backup(db.parse_url(url), Path(target), force=force, head=db.head_revision())


# A copy `backup --keep` makes, named by its UTC time: the only files it ever deletes are named so.
DATED = re.compile(r"ratingdb-\d{8}T\d{6}Z\.(?:sqlite|dump)")


def dated_backup(
    url: str, folder: Path, keep: int, *, now: dt.datetime | None = None
) -> tuple[Backup, list[Path]]:
    """A checked copy in `folder` named by the time (`ratingdb-YYYYMMDDTHHMMSSZ.sqlite`, `.dump` from
    pg_dump), then the older copies so named deleted but the newest `keep`: for a timer
    (deploy/ratingdb-backup.timer). Nothing is deleted unless the new copy was made and checked, and no
    file of another name is touched. Returns the copy and the copies deleted."""
    if keep < 1:
        raise ConfigError(f"--keep {keep} would keep no copy — give 1 or more")
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} is a file — with --keep, give the folder the dated copies go in")
    if not folder.parent.is_dir():
        raise ConfigError(f"the folder {folder.parent} does not exist — create it, or give another path")
    folder.mkdir(mode=0o700, exist_ok=True)  # the copies hold password hashes and submitted files
    suffix = ".sqlite" if sqlite_path(url) is not None else ".dump"
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%SZ")
    made = backup(url, folder / f"ratingdb-{stamp}{suffix}")
    # The names sort by time; only this engine's kind of copy is counted (a .dump is not a .sqlite's).
    copies = sorted(p for p in folder.iterdir() if DATED.fullmatch(p.name) and p.suffix == suffix)
    pruned = copies[:-keep]
    for old in pruned:
        old.unlink()
    return made, pruned


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
    target = folder / f"{PRE_CLOSE_PREFIX}{label}-{stamp}.sqlite"
    made = backup(url, target, force=True).path
    copies = sorted(folder.glob(f"{PRE_CLOSE_PREFIX}*.sqlite"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    for old in copies[:-keep]:
        old.unlink()
    return made


BACKUPS_ENV = "RATINGDB_BACKUPS"


def copies_before_close() -> int:
    """How many pre-close copies RATINGDB_BACKUPS keeps: what every front end's close follows."""
    return backups_to_keep(os.environ.get(BACKUPS_ENV))


def backups_to_keep(value: str | None) -> int:
    """RATINGDB_BACKUPS: how many pre-close copies to keep (unset or 0: none)."""
    if not value:
        return 0
    if not (value.isascii() and value.isdigit()):
        raise ConfigError(
            f"RATINGDB_BACKUPS is '{value}' — set it to the number of pre-close copies to keep, e.g. 3"
        )
    return int(value)
