"""What a backup is and what it refuses, for every engine's `backup` (ratingdb/backup.py calls them).

Here, below the engine modules, so that they need nothing from the modules that call them.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from ratingdb.errors import ConfigError, RatingDbError


class BackupFailed(RatingDbError):
    """The copy could not be made, or it failed its check (it is then removed)."""


@dataclass(frozen=True)
class Backup:
    path: Path
    size: int
    how: str  # what made and checked the copy, for the person who asked


def refuse_target(target: Path, force: bool, *, database: Path | None) -> None:
    """Refuse a backup's target that is the database itself, a folder, in no folder, or (without
    `force`) a file that exists."""
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


def private_file(path: Path) -> None:
    """Make `path`, which does not exist, an empty file that only its owner may read or write (0600),
    for a program to write into: a database, and so its WAL (SQLite gives it the database's mode), and
    every copy hold argon2 hashes, addresses and submitted files (issue 54, L8). One that exists by
    now is left as it is."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
