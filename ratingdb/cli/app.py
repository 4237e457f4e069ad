"""The Typer application object and the global options (database URL)."""

from __future__ import annotations

from typing import Annotated

import typer

DEFAULT_URL = "sqlite:///ratingdb.sqlite"

# Help panels, in the order a rating officer meets them.
SETUP = "Set-up"
MONTHLY = "Monthly work"
LOOKUP = "Lists, players and reports"
TOOLS = "Calculator and demo"

app = typer.Typer(
    name="ratingdb",
    help="Rating-list database for chess federations: FIDE Elo rules, monthly closes, immutable lists.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)


class Options:
    """Global options, filled in by the callback and read by every command."""

    url: str = DEFAULT_URL


@app.callback()
def global_options(
    db: Annotated[
        str,
        typer.Option(
            "--db",
            envvar="RATINGDB_URL",
            help="Database URL (SQLAlchemy form). SQLite file by default; "
            "e.g. postgresql+psycopg://user@host/dbname for PostgreSQL.",
            show_default=True,
        ),
    ] = DEFAULT_URL,
) -> None:
    """Rating-list database for chess federations.

    Import lists and tournaments, close monthly rating periods by the FIDE Rating Regulations,
    and publish immutable lists whose every number is explained by a stored calculation record.
    """
    Options.url = db
