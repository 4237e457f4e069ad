"""CLI: `backup` — a consistent, checked copy of the database; the work is in ratingdb.backup."""

from pathlib import Path
from typing import Annotated

import typer

from ratingdb.cli.app import SETUP, app, database_url
from ratingdb.cli.common import engine, user_errors
from ratingdb.errors import ConfigError


@app.command("backup", rich_help_panel=SETUP)
@user_errors
def backup_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Where to write the copy (a new file).")],
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
    keep: Annotated[
        int | None,
        typer.Option(
            "--keep",
            metavar="N",
            min=1,
            help="FILE is a folder: write the copy there named by the UTC time "
            "(ratingdb-YYYYMMDDTHHMMSSZ.sqlite, .dump on PostgreSQL) and delete the older copies so named "
            "but the newest N (for a timer: deploy/ratingdb-backup.timer).",
        ),
    ] = None,
) -> None:
    """Write a consistent copy of the database to FILE, even while it is in use, and check it.

    SQLite: SQLite's online backup API, then the copy's integrity check and migration. PostgreSQL:
    pg_dump's custom format (restore with pg_restore, then `ratingdb init`), or the pg_dump command to
    run where it is installed. MariaDB/MySQL: refused, with the mysqldump command to run instead.
    Examples: `ratingdb backup ratingdb-2025-11-01.sqlite`; every night, keeping two weeks:
    `ratingdb backup /var/backups/ratingdb --keep 14`.
    """
    from ratingdb import db
    from ratingdb.backup import backup, dated_backup, sqlite_path

    url = database_url()
    if sqlite_path(url) is None:
        engine(require_schema=True).dispose()  # only a database at the newest migration is copied
    # SQLite is checked on the copy instead: opening it through the engine would wait for a writer.
    if keep is not None and force:
        raise ConfigError("--force does nothing with --keep, whose copies all have new names — leave it out")
    if keep is None:
        made = backup(url, file, force=force)
    else:
        made, pruned = dated_backup(url, file, keep)
    typer.echo(f"Backed up {db.display_url(url)} to {made.path} ({made.size:,} bytes; {made.how}).")
    if keep is not None and pruned:
        names = ", ".join(p.name for p in pruned)
        copies = "copy" if len(pruned) == 1 else "copies"
        typer.echo(f"Deleted {len(pruned)} older {copies} ({names}); kept the newest {keep}.")
