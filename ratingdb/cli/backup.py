"""CLI: `backup` — a consistent, checked copy of the database; the work is in ratingdb.backup."""

from pathlib import Path
from typing import Annotated

import typer

from ratingdb.cli.app import SETUP, app, database_url
from ratingdb.cli.common import engine, user_errors


@app.command("backup", rich_help_panel=SETUP)
@user_errors
def backup_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Where to write the copy (a new file).")],
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
) -> None:
    """Write a consistent copy of the database to FILE, even while it is in use, and check it.

    SQLite: SQLite's online backup API, then the copy's integrity check and migration. PostgreSQL:
    pg_dump's custom format (restore with pg_restore, then `ratingdb init`), or the pg_dump command to
    run where it is installed. MariaDB/MySQL: refused, with the mysqldump command to run instead.
    Example: `ratingdb backup ratingdb-2025-11-01.sqlite`.
    """
    from ratingdb import db
    from ratingdb.backup import backup, sqlite_path

    url = database_url()
    if sqlite_path(url) is None:
        engine(require_schema=True).dispose()  # only a database at the newest migration is copied
    # SQLite is checked on the copy instead: opening it through the engine would wait for a writer.
    made = backup(url, file, force=force)
    typer.echo(f"Backed up {db.display_url(url)} to {made.path} ({made.size:,} bytes; {made.how}).")
