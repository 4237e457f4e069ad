"""What every command shares: the engine from --db, one transaction, user errors as one line, output.

Start-up time matters here: this module is imported by every command, also by `--help` and `calc`, so
it imports neither SQLAlchemy nor rich at the top; the functions that need them import them.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, ParamSpec, TypeVar

import typer

from ratingdb.cli.app import Options
from ratingdb.errors import ConfigError, RatingDbError
from ratingdb.rating import RATING_TYPES, Period

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session

P = ParamSpec("P")
R = TypeVar("R")

OutputFormat = Literal["table", "csv", "json"]

# Options many commands share, each with the placeholder its help shows.
TypeOption = Annotated[
    str, typer.Option("--type", "-t", metavar="TYPE", help="Rating type: standard, rapid or blitz.")
]
OnlyTypeOption = Annotated[
    str | None, typer.Option("--type", "-t", metavar="TYPE", help="Only this rating type.")
]
FormatOption = Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="table, csv or json.")]
OutputOption = Annotated[
    Path | None,
    typer.Option("-o", "--output", metavar="FILE", help="Write to this file instead of stdout."),
]
EventArgument = Annotated[
    int,
    typer.Argument(metavar="ID", help="The event's ID (`ratingdb events` lists them).", show_default=False),
]
PlayerArgument = Annotated[str, typer.Argument(metavar="ID", help="FIDE ID or national ID.")]


@cache
def stdout_console() -> Console:
    """The rich console commands print tables and progress to (made on first use)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        # Piped or redirected output has no width to follow: wide enough that list tables are not cut.
        console = Console(width=160)
    return console


def __getattr__(name: str) -> Any:
    # `from ratingdb.cli.common import console` keeps working; import it inside the function using it.
    if name == "console":
        return stdout_console()
    raise AttributeError(name)


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Print a RatingDbError as `Error: <sentence>` on stderr and exit 1; anything else is a bug.

    A database driver's error (server down, file not a database, a value the database refused) is read
    as a sentence about the --db database too: the user can act on it, and a traceback could show the URL.
    """

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            try:
                return func(*args, **kwargs)
            except Exception as exc:
                explained = _database_error(exc)
                if explained is None:
                    raise
                raise explained from None
        except RatingDbError as exc:
            typer.echo(f"Error: {exc}", err=True)
            raise typer.Exit(1) from None

    return wrapper


def _database_error(exc: Exception) -> RatingDbError | None:
    """The sentence for a driver error, or None for any other exception.

    SQLAlchemy is looked up, not imported: a command that never loaded it cannot have raised its errors,
    and `calc` or `--help` must not pay for importing it (see ratingdb.db_errors for the sentences).
    """
    sqlalchemy_exc = sys.modules.get("sqlalchemy.exc")
    if sqlalchemy_exc is None or not isinstance(exc, sqlalchemy_exc.DBAPIError):
        return None
    from ratingdb.db_errors import explain

    return explain(exc, Options.url)


def engine(*, require_schema: bool = True) -> Engine:
    """The engine for --db / RATINGDB_URL; refuses a database without the current schema."""
    from ratingdb import db

    if require_schema:
        db.refuse_missing_sqlite_file(Options.url)
    eng = db.make_engine(Options.url)
    if require_schema:
        db.require_current_schema(eng)
    return eng


@contextmanager
def transaction(*, require_schema: bool = True) -> Iterator[Session]:
    """One transaction for one command: committed when the command succeeds, rolled back otherwise."""
    from ratingdb import db

    eng = engine(require_schema=require_schema)
    try:
        with db.transaction(eng) as session:
            yield session
    finally:
        eng.dispose()


def parse_period(text: str) -> Period:
    try:
        return Period.parse(text)
    except ValueError as exc:
        raise ConfigError(f"'{text}' is not a period: write it as YYYY-MM, e.g. 2025-10") from exc


def parse_date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"'{text}' is not a date: write it as YYYY-MM-DD, e.g. 2025-11-01") from None


def check_type(rating_type: str) -> str:
    if rating_type not in RATING_TYPES:
        raise ConfigError(f"'{rating_type}' is not a rating type: use one of {', '.join(RATING_TYPES)}")
    return rating_type


def render_rows(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str,
    *,
    title: str | None = None,
    output: Path | None = None,
) -> None:
    """Write rows as a rich table, CSV or JSON (a list of objects), to stdout or to `output`."""
    if fmt not in ("table", "csv", "json"):
        raise ConfigError(f"'{fmt}' is not an output format: use table, csv or json")
    if fmt == "json":
        text = json.dumps([dict(zip(columns, map(_plain, row), strict=True)) for row in rows], indent=2)
        _write(text + "\n", output)
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if v is None else _plain(v) for v in row] for row in rows])
        _write(buffer.getvalue(), output)
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title)
        for column in columns:
            table.add_column(column)
        for row in rows:
            table.add_row(*["" if v is None else str(_plain(v)) for v in row])
        if output is None:
            stdout_console().print(table)
        else:
            with output.open("w", encoding="utf-8") as fh:
                Console(file=fh, width=200).print(table)


def _plain(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if type(value).__name__ == "Decimal":
        return str(value)
    return value


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
