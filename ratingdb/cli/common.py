"""What every command shares: the engine from --db, one transaction, user errors as one line, output.

Start-up time matters here: this module is imported by every command, also by `--help` and `calc`, so
it imports neither SQLAlchemy, rich nor the rules at the top; the functions that need them import them.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, ParamSpec, TypeVar

import typer

from ratingdb import engines
from ratingdb.cli.app import cli_state, database_url
from ratingdb.cli.output import cell, output_file, terminal_text
from ratingdb.errors import ConfigError, RatingDbError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from sqlalchemy import Connection, Engine
    from sqlalchemy.orm import Session

    from ratingdb.db import UnitOfWork
    from ratingdb.rating import Period

P = ParamSpec("P")
R = TypeVar("R")

OutputFormat = Literal["table", "csv", "json"]

# Options and arguments many commands share, each with the placeholder its help shows.
TypeOption = Annotated[
    str, typer.Option("--type", "-t", metavar="TYPE", help="Rating type: standard, rapid or blitz.")
]
OnlyTypeOption = Annotated[
    str | None, typer.Option("--type", "-t", metavar="TYPE", help="Only this rating type.")
]
# The pages' language (ratingdb.i18n.LANGUAGES); served, the visitor's browser may ask for another.
LanguageOption = Annotated[
    str,
    typer.Option(
        "--lang",
        envvar="RATINGDB_LANG",
        metavar="LANG",
        help="Language of the pages: en, de or fr (served: unless the browser asks for another of them).",
    ),
]
FormatOption = Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="table, csv or json.")]
# Email notices (ratingdb.services.notices): set once in the environment, read by `serve` and `notices send`.
SmtpUrlOption = Annotated[
    str | None,
    typer.Option(
        "--smtp-url",
        envvar="RATINGDB_SMTP_URL",
        metavar="URL",
        help="The SMTP server notices are sent through: smtp://HOST:PORT, smtp+starttls://USER:PASSWORD@HOST "
        "or smtps://USER:PASSWORD@HOST (give it in the environment: an option is seen in the process list).",
    ),
]
MailFromOption = Annotated[
    str | None,
    typer.Option(
        "--mail-from", envvar="RATINGDB_MAIL_FROM", metavar="ADDRESS", help="The notices' from-address."
    ),
]
PublicUrlOption = Annotated[
    str | None,
    typer.Option(
        "--public-url",
        envvar="RATINGDB_PUBLIC_URL",
        metavar="URL",
        help="The site's address as visitors reach it (https://ratings.example.org): the notices' links.",
    ),
]
EventArgument = Annotated[
    int,
    typer.Argument(metavar="ID", help="The event's ID (`ratingdb events` lists them).", show_default=False),
]
PlayerArgument = Annotated[str, typer.Argument(metavar="ID", help="FIDE ID or national ID.")]


def confirm(action: str, *, yes: bool) -> None:
    """Ask before `action` ("delete event 12 and all its games") unless `yes` (the command's --yes).

    Every confirmation goes through here. Without a terminal to ask on (a script, cron, a pipe) nothing
    is asked and the command is refused: reading "no" from an empty stdin and exiting 0 would let a
    script believe it had done the work. A "no" at the terminal changes nothing and exits 1.
    """
    if yes:
        return
    if not has_terminal():
        raise ConfigError(f"{action} needs a confirmation and there is no terminal to ask — add --yes")
    if not typer.confirm(f"{action[:1].upper()}{action[1:]}?", default=False):
        typer.echo("Nothing was changed.", err=True)
        raise typer.Exit(1)


def has_terminal() -> bool:
    """Whether stdin is a terminal a question can be answered on."""
    return sys.stdin.isatty()


@cache
def stdout_console() -> Console:
    """The rich console commands print tables and progress to (made on first use)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        # Piped or redirected output has no width to follow: wide enough that list tables are not cut.
        console = Console(width=160)
    return console


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
    if isinstance(exc, OverflowError):
        from ratingdb.db_errors import explain_overflow

        return explain_overflow(exc)
    sqlalchemy_exc = sys.modules.get("sqlalchemy.exc")
    if sqlalchemy_exc is None or not isinstance(exc, sqlalchemy_exc.DBAPIError):
        return None
    from ratingdb.db_errors import explain

    return explain(exc, database_url())


def engine(*, require_schema: bool = True) -> Engine:
    """The engine for --db / RATINGDB_URL; refuses a database without the current schema."""
    from ratingdb import db

    if require_schema:
        db.refuse_missing_sqlite_file(database_url())
    eng = db.make_engine(database_url())
    if require_schema:
        db.require_current_schema(eng)
    return eng


# Set to 1 where a privileged account is deliberate (a test server connected to as root): the warning
# of warn_privileges is then not printed.
QUIET_PRIVILEGES_ENV: Final = "RATINGDB_NO_PRIVILEGE_WARNING"


def warn_privileges(conn: Connection) -> None:
    """Say on stderr, once per command, what the connecting account may do that no guard refuses
    (ratingdb.accounts: TRUNCATE or DROP on MySQL/MariaDB, DROP or DISABLE TRIGGER for a PostgreSQL owner).

    The one place this is said: at connect in `transaction()`, the transaction of every command that
    writes (and of the reports that read in one), and by `init` and `db check`.
    """
    quiet = os.environ.get(QUIET_PRIVILEGES_ENV) == "1"
    state = cli_state()
    if (state is not None and state.privileges_told) or quiet or not engines.of(conn).has_accounts:
        return
    from ratingdb.accounts import privilege_warnings

    if state is not None:
        state.privileges_told = True
    for warning in privilege_warnings(conn):
        typer.echo(f"Warning: {warning}", err=True)


def unit_of_work(eng: Engine) -> UnitOfWork:
    """The CLI's unit of work on `eng` (ratingdb.db.UnitOfWork, as the desk's and the API's): on a server,
    the account's rights past the guards are said at the first connect (warn_privileges)."""
    from ratingdb import db

    return db.UnitOfWork(eng, on_begin=_say_privileges)


def _say_privileges(session: Session) -> None:
    if engines.of(session.get_bind()).has_accounts:  # SQLite: no accounts, and no early BEGIN IMMEDIATE
        warn_privileges(session.connection())


@contextmanager
def command_unit_of_work() -> Iterator[UnitOfWork]:
    """The unit of work of a command that runs several transactions (a close of several periods), its
    engine made and its schema checked once: each engine of its own costs a connection, the schema check
    and, on a server, the dialect's first queries (about 0.1 s of `close-period` on PostgreSQL)."""
    eng = engine()
    try:
        yield unit_of_work(eng)
    finally:
        eng.dispose()


@contextmanager
def transaction(
    *, require_schema: bool = True, dry_run: bool = False, on: Engine | None = None
) -> Iterator[Session]:
    """One transaction for one command: committed when the command succeeds, rolled back otherwise
    (the unit of work's, `unit_of_work`). On a server, the account's rights past the guards are said at
    connect (warn_privileges).

    With `dry_run` (a command's --dry-run) it is always rolled back: see ratingdb.db.transaction. `on`: an
    engine kept open after the transaction; without it, an engine of its own.
    """
    eng = engine(require_schema=require_schema) if on is None else on
    try:
        with unit_of_work(eng).transaction(dry_run=dry_run) as session:
            yield session
    finally:
        if on is None:
            eng.dispose()


# Every command that writes takes --dry-run: the same work in a transaction that is rolled back, and the
# same summary, under this heading.
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Do all the work and print what it would do, then roll it back: nothing is written.",
    ),
]
DRY_RUN_HEADING: Final = "dry run: nothing was written"


def dry_run_heading(dry_run: bool, *, err: bool = False) -> None:
    """The first line of a dry run's summary (on stderr when stdout carries data, e.g. CSV)."""
    if dry_run:
        typer.echo(DRY_RUN_HEADING, err=err)


@contextmanager
def read_transaction() -> Iterator[Session]:
    """One transaction that only reads, for a long read such as `publish`: writers are not held up."""
    eng = engine()
    try:
        with unit_of_work(eng).read() as session:
            yield session
    finally:
        eng.dispose()


def parse_period(text: str) -> Period:
    from ratingdb.rating import Period

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
    """A rating type FIDE's rules or a stored rule set define (the database is read only for the latter)."""
    from ratingdb.rating import RATING_TYPES

    if rating_type in RATING_TYPES:
        return rating_type
    from ratingdb.services.rules import rating_types

    known: list[str] = list(RATING_TYPES)
    try:
        with transaction() as session:
            known = rating_types(session)
    except RatingDbError:
        pass  # no usable database: only FIDE's types are known
    if rating_type not in known:
        raise ConfigError(f"'{rating_type}' is not a rating type: use one of {', '.join(known)}")
    return rating_type


def render_rows(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str,
    *,
    title: str | None = None,
    output: Path | None = None,
    force: bool = False,
) -> None:
    """Write rows as a rich table, CSV or JSON (a list of objects), to stdout or to `output`.

    A table shows every value as plain text; CSV text cells that a spreadsheet would run as a formula
    start with an apostrophe (this CSV is for people; `list --format csv` is the exact round-trip form).
    """
    if fmt not in ("table", "csv", "json"):
        raise ConfigError(f"'{fmt}' is not an output format: use table, csv or json")
    if fmt == "json":
        text = json.dumps([dict(zip(columns, map(_plain, row), strict=True)) for row in rows], indent=2)
        _write(text + "\n", output, force)
    elif fmt == "csv":
        # Imported here: ratingdb.formats (the file readers) is not loaded by commands that print tables.
        from ratingdb.formats.spreadsheet import spreadsheet_safe

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([spreadsheet_safe(c) for c in columns])
        writer.writerows([["" if v is None else _plain(spreadsheet_safe(v)) for v in row] for row in rows])
        _write(buffer.getvalue(), output, force)
    else:
        shown = [[_plain(v) for v in row] for row in rows]
        if output is None:
            console = stdout_console()
            plain = plain_table_text(console, columns, shown, title=title)
            if plain is not None:
                console.file.write(plain)
                console.file.flush()
            else:
                console.print(data_table(columns, shown, title=title))
        else:
            table = data_table(columns, shown, title=title)
            from rich.console import Console

            with output_file(output, force=force) as fh:
                Console(file=fh, width=200).print(table)


# A column whose values are all at most this wide is never wrapped: dates, IDs, ratings, short names;
# a wider column wraps but keeps at least LONG_VALUE characters.
SHORT_VALUE: Final = 32
LONG_VALUE: Final = 20


def _column_widths(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[int]:
    return [
        max([len(terminal_text(column)), *(len(terminal_text(row[i])) for row in rows if row[i] is not None)])
        for i, column in enumerate(columns)
    ]


def data_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str | None = None) -> Table:
    """A rich table of data: headers, cells and title are plain text (no markup, controls replaced)."""
    from rich.table import Table

    table = Table(title=None if title is None else cell(title))
    for column, width in zip(columns, _column_widths(columns, rows), strict=True):
        short = width <= SHORT_VALUE
        table.add_column(cell(column), no_wrap=short, min_width=width if short else LONG_VALUE)
    for row in rows:
        table.add_row(*[cell(v) for v in row])
    return table


def plain_table_text(
    console: Console, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str | None = None
) -> str | None:
    """The text `console.print(data_table(columns, rows, title=title))` writes, made without rich's layout
    engine, for the tables whose layout has one answer: printed without styles (no colour: piped output),
    every column short (never wrapped) and the whole table, and its title, narrower than the console. None
    for any other table: rich lays it out. rich measures, pads and wraps every cell through several layers
    (about 1.4 s of CPU for the 2,400 rows of a national `close-period --dry-run`, which is half of that
    command); here each row is one join. tests/cli/test_plain_table.py compares the two on generated tables.
    """
    if console.color_system is not None or console.legacy_windows or console.record or not columns:
        return None
    from rich.cells import cell_len

    texts = [[terminal_text(column) for column in columns]]
    texts += [["" if v is None else terminal_text(v) for v in row] for row in rows]
    # _column_widths(columns, rows), from the texts made once (a None is "" here, which widens nothing).
    minimum = [max(map(len, column)) for column in zip(*texts, strict=True)]
    if max(minimum) > SHORT_VALUE:
        return None  # a column that may wrap: rich shares the width out
    # An ASCII text is printable here (terminal_text replaced the controls): one cell a character, one
    # line. Only the others are measured by rich (every cell of a table of 44,000 rows: 0.3 s of CPU).
    cells = [[len(text) if text.isascii() else cell_len(text) for text in line] for line in texts]
    if any(len(text.splitlines()) > 1 for line in texts for text in line if not text.isascii()):
        return None  # a line separator the controls left (U+2028, U+2029): rich measures by its lines
    widths = [max(least, *column) for least, column in zip(minimum, zip(*cells, strict=True), strict=True)]
    table_width = sum(widths) + 3 * len(widths) + 1  # one space of padding either side, the borders
    if table_width > console.options.max_width:
        return None
    box = _table_box(console)
    out: list[str] = []
    if title is not None and terminal_text(title):  # an empty title is no title to rich
        heading = terminal_text(title).rstrip()
        if cell_len(heading) > table_width:
            return None  # wrapped over lines by rich
        left = (table_width - cell_len(heading)) // 2
        out.append(" " * left + heading + " " * (table_width - left - cell_len(heading)))
    # The header row is drawn with the box's head characters, the last row with its foot characters.
    edges = [(box.head_left, box.head_vertical, box.head_right)]
    edges += [(box.mid_left, box.mid_vertical, box.mid_right)] * len(rows)
    if rows:
        edges[-1] = (box.foot_left, box.foot_vertical, box.foot_right)
    padded = [w + 2 for w in widths]
    out.append(box.get_top(padded))
    for number, (line, used, (left_edge, divider, right_edge)) in enumerate(
        zip(texts, cells, edges, strict=True)
    ):
        padded_line = [
            f" {text}{' ' * (width - n)} " for text, n, width in zip(line, used, widths, strict=True)
        ]
        out.append(left_edge + divider.join(padded_line) + right_edge)
        if number == 0:
            out.append(box.get_row(padded, "head", edge=True))
    out.append(box.get_bottom(padded))
    return "\n".join(out) + "\n"


def _table_box(console: Console) -> Any:
    """The box a data table is drawn with on `console`: rich's default, as rich substitutes it (ASCII for
    an output that cannot encode the lines)."""
    from rich.table import Table

    table = Table()
    assert table.box is not None
    return table.box.substitute(console.options, safe=console.safe_box)


def print_readable(out: Console, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A table when it fits the width; otherwise one block per row, `column  value` (psql's expanded form).

    Cutting `2025-03-01` to `2025-03-…` or wrapping a name over five lines is what makes a wide result
    unreadable; a record per block keeps every value whole.
    """
    from rich.text import Text

    plain = [[_plain(v) for v in row] for row in rows]
    widths = _column_widths(columns, plain)
    # Each column costs its text, one space of padding either side and a border; plus the last border.
    needed = sum(min(w, max(SHORT_VALUE, LONG_VALUE)) + 3 for w in widths) + 1
    if needed <= out.width:
        out.print(data_table(columns, plain))
        return
    label = max(len(terminal_text(c)) for c in columns)
    for number, row in enumerate(plain, 1):
        out.print(cell(f"-[ row {number} ]".ljust(min(out.width, 40), "-")))
        for column, value in zip(columns, row, strict=True):
            line = Text(terminal_text(column).ljust(label) + " │ ", style="bold")
            line.append_text(cell(value))
            out.print(line, overflow="fold")


def _plain(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if type(value).__name__ == "Decimal":
        return str(value)
    return value


def _write(text: str, output: Path | None, force: bool) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        with output_file(output, force=force) as fh:
            fh.write(text)


def player_heading(player: Any) -> str:
    """One line naming a registered player: title, name, IDs, birth year, federation (and if deceased)."""
    ids = ", ".join(
        x
        for x in (
            f"FIDE {player.fide_id}" if player.fide_id else "",
            f"national {player.national_id}" if player.national_id else "",
        )
        if x
    )
    born = f", born {player.birth_year}" if player.birth_year else ""
    title = f"{player.title} " if player.title else ""
    deceased = ", deceased" if getattr(player, "deceased", False) else ""
    return f"{title}{player.name} ({ids or 'no ID'}){born}, {player.federation or '—'}{deceased}"
