"""CLI: `import-trf`, `import-list`, `export-trf` — files in and out, each command one transaction: the
options parsed, one service called (services.events, services.list_files), what it did printed."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ratingdb.cli import collector
from ratingdb.cli.app import MONTHLY, app
from ratingdb.cli.common import (
    DryRunOption,
    EventArgument,
    TypeOption,
    check_type,
    confirm,
    dry_run_heading,
    parse_date,
    stdout_console,
    transaction,
    user_errors,
)
from ratingdb.cli.import_options import ImportOptions, import_options
from ratingdb.cli.matching import (
    LineAcceptNameOption,
    LineMatchOption,
    LineNewOption,
    MatchCertainOption,
    list_matching_choices,
    print_matching,
)
from ratingdb.cli.output import ForceOption, OutputOption, check_output, echo, output_file, terminal_text
from ratingdb.errors import ConfigError, NothingToUpdate

if TYPE_CHECKING:
    from ratingdb.services.events import EventImportSummary, ImportedEvent
    from ratingdb.services.list_files import ListFileImport


@app.command("import-trf", rich_help_panel=MONTHLY)
@user_errors
@import_options
def import_trf_command(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE...", help="Tournament report files (TRF16 or TRF26).")
    ],
    options: ImportOptions,
) -> None:
    """Import each FILE as one event with its players and every game, forfeits and byes included.

    Players are matched by FIDE ID, then national ID (the name must agree with the registered name or
    an alias), then (lines without an ID) by name, birth year and federation; unknown players are
    registered, those without an ID with the next free national ID. A line that needs a decision (an
    ID whose name differs, a probable ID typo, one ID on two lines, the other kind of ID) is refused with
    the option that settles it: --match, --new, --accept-name, --drop or --id-field
    (docs/guide/matching.md). The event goes to the period of its end date unless --period names a later one.
    The event keeps these choices: `replace-event` reads a corrected file with them.
    All files are one transaction: a refused file (its line, column and reason are printed) writes
    nothing at all.

    Examples:
      ratingdb import-trf club-championship.trf
      ratingdb import-trf --type rapid rapid-*.trf          (several files: one transaction)
      ratingdb import-trf late-open.trf --period 2025-11    (a late report, rated in November)
      ratingdb import-trf bunratty-major.trf --section Major
    """
    choices = options.choices(files)
    parsed = options.read(files)
    with collector.imports():  # SQLAlchemy, the ORM, the models: frozen, as the close's (collector.py)
        from ratingdb.services.event_warnings import import_warnings
        from ratingdb.services.events import import_events

    with transaction(dry_run=options.dry_run) as session:
        summary = import_events(session, parsed, choices)
        warnings = import_warnings(session, [ev.id for ev in summary.events])
    dry_run_heading(options.dry_run)
    print_imported(summary, warnings)


def print_imported(summary: "EventImportSummary", warnings: list[str], *, heading: bool = True) -> None:
    """What import-trf (and replace-event, the same path) read: each event (`heading`: replace-event
    has its own), the notes on its ratings, how the lines were matched, the players registered, and
    the warnings (services/event_warnings.py)."""
    for ev in summary.events:
        late = f" (late: its own period is {ev.natural_period})" if ev.late else ""
        if heading:
            echo(
                f"Imported {ev.source_name} as event {ev.id} '{ev.name}': {ev.rating_type}, "
                f"period {ev.period}{late}; {ev.players} players, {ev.games} pairings "
                f"({ev.rated_games} played games)."
            )
        if ev.time_control_note:
            echo(f"  note: {ev.time_control_note}")
        print_rating_notes(ev)
    print_matching(summary.matching)
    if summary.new_players:
        count = len(summary.new_players)
        typer.echo(f"Registered {count} new player{'s' if count != 1 else ''}:")
        for name in summary.new_players:
            echo(f"  {name}")
    for warning in warnings:
        echo(f"warning: {warning}")


SHOWN = 10


def print_rating_notes(ev: "ImportedEvent") -> None:
    """What the file's ratings mean here: ratingdb rates from its lists, never from the file."""
    n = ev.unrated_with_file_rating
    they = "it is" if n == 1 else "they are"
    if ev.list_in_force is None:
        if n:
            typer.echo(
                f"  {_players(n)} with a rating in the file, but no {ev.rating_type} list is in force at the "
                f"event's start: {they} rated as unrated (import the list first to rate them as rated)."
            )
        return
    where = f"the {ev.rating_type} list of {ev.list_in_force.isoformat()}"
    count = len(ev.rating_differences)
    if count:
        typer.echo(
            f"  {_players(count)} with a rating in the file that differs from {where} (the list's is used):"
        )
        for d in ev.rating_differences[:SHOWN]:
            echo(f"    {d.name}: file {d.file_rating}, list {d.list_rating}")
        if count > SHOWN:
            typer.echo(f"    and {count - SHOWN} more")
    if n:
        typer.echo(f"  {_players(n)} with a rating in the file but none on {where}: {they} rated as unrated.")


def _players(n: int) -> str:
    return f"{n} player{'s' if n != 1 else ''}"


def _rows(n: int) -> str:
    return f"{n} row{'s' if n != 1 else ''}"


@app.command("import-list", rich_help_panel=MONTHLY)
@user_errors
def import_list_command(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="The list file: ratingdb CSV, FIDE fixed-width text or FIDE XML."
        ),
    ],
    date: Annotated[
        str | None,
        typer.Option(
            "--date",
            metavar="YYYY-MM-DD",
            help="The list's date (the first of a month); with --update, the list in force by default.",
        ),
    ] = None,
    rating_type: Annotated[
        str | None,
        typer.Option(
            "--type",
            "-t",
            metavar="TYPE",
            help="standard, rapid or blitz; a FIDE combined list without --type gives all three.",
        ),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="csv, fide-txt or fide-xml; detected from the content when omitted.",
        ),
    ] = None,
    update: Annotated[
        bool,
        typer.Option(
            "--update",
            help="Correct or add players on the list in force: a new version of it with the file's rows "
            "applied (empty fields keep their value); needs --reason.",
        ),
    ] = False,
    replace_list: Annotated[
        bool,
        typer.Option(
            "--replace-list",
            help="Accept a genuinely new full list that leaves out more than 5 % of the list in force, or "
            "has more than 5 % fewer rated players (in number or share), or none.",
        ),
    ] = False,
    reason: Annotated[
        str | None,
        typer.Option("--reason", metavar="TEXT", help="Why: kept in the audit log (required with --update)."),
    ] = None,
    match: LineMatchOption = None,
    new: LineNewOption = None,
    accept_name: LineAcceptNameOption = None,
    match_certain: MatchCertainOption = False,
    dry_run: DryRunOption = False,
) -> None:
    """Record a list published elsewhere (FIDE's, or a previous system's) as an imported list.

    Players are created or updated; their rule state (reached 2400/2300, games toward 30) comes from the
    file's columns or is derived from K and birth year. Large files stream with a progress display.

    A list that would leave out more than 5 % of the players of the list in force is refused (use
    --update to correct or add players, --replace-list for a new full list), and so is one whose rated
    players fall by more than 5 % in number or share, or that rates nobody (a file without its rating
    column), and a list that would skip a period holding imported events (close that period first).

    Rows are matched as tournament lines are (docs/guide/matching.md, "Lists"): a row whose name is
    unlike the registered name of its ID, or whose new ID looks like a typo of a registered player's
    (same name and birth year, not on the list), refuses the import naming --accept-name LINE,
    --match LINE=ID or --new LINE. --match-certain settles in bulk the rows whose new ID fits exactly one
    registered player by name, birth year and federation (a federation's first FIDE list).

    Examples:
      ratingdb import-list players_list_foa.txt --date 2025-09-01    (FIDE's combined list: all three types)
      ratingdb import-list standard.csv --date 2025-09-01 --type standard
      ratingdb import-list fixes.csv --update --reason "two birth years corrected"
    """
    if update and replace_list:
        raise ConfigError("--update and --replace-list exclude each other: use one")
    if update and not (reason and reason.strip()):
        raise ConfigError(
            "--update needs --reason TEXT — say why the list is corrected (kept in the audit log)"
        )
    if update and match_certain:
        raise ConfigError(
            "--match-certain is for a new list (a federation's first FIDE list), not --update: "
            "name the rows with --match LINE=ID"
        )
    if not update and date is None:
        raise ConfigError(
            "import-list needs --date YYYY-MM-DD, the list's date (or --update to correct the list in force)"
        )
    list_date = parse_date(date) if date is not None else None
    if not file.is_file():
        raise ConfigError(f"{file}: no such file")
    if fmt is not None and fmt not in ("csv", "fide-txt", "fide-xml"):
        raise ConfigError(f"'{fmt}' is not a list format: use csv, fide-txt or fide-xml")
    if rating_type is not None:
        check_type(rating_type)
    matching = list_matching_choices(
        file, match=match, new=new, accept_name=accept_name, match_certain=match_certain
    )
    with collector.imports():  # as import-trf's
        from ratingdb.services.list_files import import_list_file

    try:
        with rows_progress(f"importing {file.name}") as advance, transaction(dry_run=dry_run) as session:
            done = import_list_file(
                session, file, list_date=list_date, rating_type=rating_type, format=fmt, update=update,
                replace=replace_list, reason=reason, matching=matching, progress=advance,
            )  # fmt: skip
    except NothingToUpdate as nothing:
        dry_run_heading(dry_run)
        echo(f"Nothing changed: {nothing}.")
        return
    dry_run_heading(dry_run)
    print_list_import(done, file.name)


@contextmanager
def rows_progress(description: str) -> "Iterator[Callable[[int], None]]":
    """On a terminal, a bar counting the rows done (transient); the callback to tell it how many."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    console = stdout_console()
    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.completed:,} rows"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task(terminal_text(description), total=None)

        def advance(done: int) -> None:
            progress.update(task, completed=done)

        yield advance


def print_list_import(done: "ListFileImport", source: str) -> None:
    """What import-list did: each type's list, the players, the matching, what was assumed."""
    summary, update, matching = done.summary, done.update, done.matching
    for t in done.rating_types:
        if update:
            version = summary.versions[t]
            echo(
                f"Updated the {t} list dated {summary.dates[t].isoformat()} from {source} ({done.format}): "
                f"version {version} replaces version {version - 1}; {summary.entries[t]} entries: "
                f"{summary.entries[t] - summary.kept[t]} from the file ({summary.changed[t]} changed, "
                f"{summary.added[t]} added), {summary.kept[t]} kept as they were."
            )
        else:
            echo(
                f"Imported the {t} list dated {summary.list_date.isoformat()} from {source} ({done.format}): "
                f"{summary.entries[t]} entries, {summary.rated[t]} rated."
            )
    typer.echo(f"Players: {summary.new_players} new, {summary.updated_players} updated.")
    if matching.possible:
        typer.echo(
            "Registered new beside a registered player of the same name and federation (a birth year unknown "
            "on one side) — if one person, `ratingdb player merge DUPLICATE KEEP --reason TEXT` joins them:"
        )
        for line, row, registered in matching.possible:
            typer.echo(f"  line {line} {row}: {registered}")
    if matching.match_certain:
        certain = matching.matched_certain
        typer.echo(
            f"Matched by name, birth year and federation (--match-certain): {_rows(len(certain))}, "
            "the row's ID recorded for the player" + (":" if certain else ".")
        )
        for line, ident, player in certain:
            typer.echo(f"  line {line}: {player} — {ident} recorded")
    # An update keeps what the file does not give from the list in force: nothing is assumed then.
    for t in () if update else done.rating_types:
        if n := done.assumed.established.get(t, 0):
            typer.echo(
                f"Assumed: {_players(n)} rated on the {t} list {'has' if n == 1 else 'have'} no K and no "
                f"games_total in the file: taken as established (30 or more rated games)."
            )
        if n := done.assumed.from_k.get(t, 0):
            typer.echo(
                f"Derived from K: games toward 30 for {_players(n)} rated on the {t} list (K 40: fewer than "
                "30; K 10 or 20: 30 or more), as the file has no games_total."
            )


@app.command("withdraw-list", rich_help_panel=MONTHLY)
@user_errors
def withdraw_list_command(
    date: Annotated[str, typer.Argument(metavar="YYYY-MM-DD", help="The date of the imported list.")],
    rating_type: TypeOption = "standard",
    reason: Annotated[
        str | None, typer.Option("--reason", metavar="TEXT", help="Why (required): kept in the audit log.")
    ] = None,
    dry_run: DryRunOption = False,
) -> None:
    """Withdraw an imported list that nothing was computed from; it stays in the database as withdrawn.

    Refused for a computed list or one a later list follows (reopen or withdraw that first). The list
    before it is the list in force again, and the period the withdrawn list closed is open again.

    Examples:
      ratingdb withdraw-list 2025-11-01 --reason "imported with the wrong date"
      ratingdb withdraw-list 2025-11-01 --type rapid --reason "FIDE's rapid list was the old one"
    """
    check_type(rating_type)
    list_date = parse_date(date)
    if not (reason and reason.strip()):
        raise ConfigError(
            "withdraw-list needs --reason TEXT — say why the list is withdrawn (kept in the audit log)"
        )
    from ratingdb.services.list_import import withdraw_list

    with transaction(dry_run=dry_run) as session:
        done = withdraw_list(session, rating_type, list_date, reason=reason)
    dry_run_heading(dry_run)
    source = f", imported from {done.source}" if done.source else ""
    entries = f"{done.entries} {'entry' if done.entries == 1 else 'entries'}"
    echo(
        f"Withdrew the {rating_type} list dated {done.list_date.isoformat()} (version {done.version}"
        f"{source}, {entries}); it stays in the database as withdrawn."
    )
    if done.in_force is None:
        typer.echo(f"There is no {rating_type} list in force now.")
    else:
        typer.echo(f"The {rating_type} list in force is now the one dated {done.in_force.isoformat()}.")


@app.command("export-trf", rich_help_panel=MONTHLY)
@user_errors
def export_trf_command(
    event_id: EventArgument,
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """Write an event back out as a TRF16 tournament report file, with every record the import read.

    Examples:
      ratingdb export-trf 7 -o open.trf
      ratingdb events --name open    (to find the ID)
    """
    if output is not None:
        check_output(output, force=force)
    from ratingdb.services.events import event_as_trf

    with transaction() as session:
        trf = event_as_trf(session, event_id)
    from ratingdb.formats import write_trf16

    text = write_trf16(trf)
    if output is None:
        typer.echo(text, nl=False)
    else:
        with output_file(output, force=force) as fh:
            fh.write(text)
        echo(f"Wrote event {event_id} to {output}.")


@app.command("delete-event", rich_help_panel=MONTHLY)
@user_errors
def delete_event_command(
    event_id: EventArgument,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Do not ask for confirmation (needed when there is no terminal)."),
    ] = False,
    dry_run: DryRunOption = False,
) -> None:
    """Remove a wrongly imported event of an open period, with its games; recorded in the audit log.

    Events of a closed period cannot be removed: their games explain a published list. Reopen the
    period first (`ratingdb reopen PERIOD --type T --reason TEXT`), or replace the event with its
    corrected file (`ratingdb replace-event`).

    Examples:
      ratingdb delete-event 12          (asks first; refused in a script)
      ratingdb delete-event 12 --yes
    """
    if not dry_run:
        confirm(f"delete event {event_id} and all its games", yes=yes)
    from ratingdb.services.events import delete_event

    with transaction(dry_run=dry_run) as session:
        detail = delete_event(session, event_id)
    dry_run_heading(dry_run)
    echo(f"Done: {detail}.")
