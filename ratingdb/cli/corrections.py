"""CLI: `reopen` and `replace-event` — corrections after publication, every published version kept."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ratingdb.cli.app import MONTHLY, app
from ratingdb.cli.common import (
    DryRunOption,
    EventArgument,
    TypeOption,
    check_type,
    dry_run_heading,
    parse_period,
    transaction,
    user_errors,
)
from ratingdb.cli.import_options import ImportOptions, import_options
from ratingdb.cli.imports import print_imported
from ratingdb.cli.output import echo

if TYPE_CHECKING:
    from ratingdb.services.corrections import Replacement


@app.command("reopen", rich_help_panel=MONTHLY)
@user_errors
def reopen_command(
    period: Annotated[str, typer.Argument(metavar="YYYY-MM", help="The closed period to open again.")],
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why (kept in the audit log; required).")
    ],
    rating_type: TypeOption = "standard",
    include_imported: Annotated[
        bool,
        typer.Option(
            "--include-imported", help="Also withdraw imported lists dated after the period (e.g. FIDE's)."
        ),
    ] = False,
    dry_run: DryRunOption = False,
) -> None:
    """Withdraw the list published by closing YYYY-MM and every later list of the type, opening those
    periods again for corrections (import-trf, delete-event, replace-event).

    The withdrawn lists stay readable (`ratingdb lists`, `ratingdb list DATE --version N`); closing the
    periods again publishes new versions.

    Examples:
      ratingdb reopen 2025-10 --type standard --reason "round 3 result of the Club Open was wrong"
      ratingdb reopen 2025-10 --reason "FIDE's list re-imported" --include-imported
    """
    p = parse_period(period)
    check_type(rating_type)
    from ratingdb.services.corrections import lists_using_standard_ratings, reopen

    with transaction(dry_run=dry_run) as session:
        withdrawn = reopen(session, p, rating_type, reason, include_imported=include_imported)
        dependent = lists_using_standard_ratings(session, p) if rating_type == "standard" else []
    dry_run_heading(dry_run)
    typer.echo(
        f"Reopened {rating_type} period {p}: withdrew {len(withdrawn)} "
        f"list{'s' if len(withdrawn) != 1 else ''}."
    )
    for w in withdrawn:
        made = f"computed by closing {w.period}" if w.origin == "computed" else "imported"
        typer.echo(f"  {w.list_date} version {w.version} ({made})")
    last = withdrawn[-1].period or p
    typer.echo(
        f"Correct the events, then close again: `ratingdb close-period {p} --type {rating_type}"
        + (f" --through {last}`" if str(last) != str(p) else "`")
    )
    from ratingdb.rating import Period

    for kind in sorted({kind for kind, _ in dependent}):
        dates = [day for k, day in dependent if k == kind]
        first = Period.parse(dates[0][:7]).shift(-1)  # the period whose close published the earliest
        typer.echo(
            f"Note: the {kind} lists dated {', '.join(dates)} rated players without a {kind} rating with "
            f"their standard rating (§7); if a corrected standard rating matters to them, reopen those too: "
            f"`ratingdb reopen {first} --type {kind} --reason TEXT`"
        )


@app.command("replace-event", rich_help_panel=MONTHLY)
@user_errors
@import_options
def replace_event_command(
    event_id: EventArgument,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="The corrected tournament report file (TRF).")],
    options: ImportOptions,
    reason: Annotated[
        str | None, typer.Option("--reason", metavar="TEXT", help="Why (kept in the audit log).")
    ] = None,
) -> None:
    """Put the corrected FILE in the place of event ID of an open period, and print what changed:
    results, players added or removed, dates. Audited.

    The corrected tournament becomes a new event (a new ID, in the same period unless --period says
    otherwise); event ID stays in the database as its withdrawn version, because lists withdrawn by a
    reopen explain their ratings with its games. The file is read as import-trf reads it, with the
    options event ID was imported with (--id-field, --match, --new, --accept-name, --drop,
    --type-override, --closing-days, --distinct-event, its section): an option given here replaces
    that choice, and a line given one (--match 10=ID) drops the line's stored choice (--new 10).
    A closed period must be reopened first (`ratingdb reopen PERIOD --reason TEXT`).

    Examples:
      ratingdb replace-event 7 club-open-fixed.trf --reason "wrong result in round 3"
      ratingdb reopen 2025-10 --reason "wrong result" && ratingdb replace-event 7 club-open-fixed.trf
      ratingdb replace-event 7 fixed.trf --match 12=2500123    (another choice for one line)
    """
    choices = options.choices([file])
    [trf] = options.read([file])
    from ratingdb.services.corrections import replace_event
    from ratingdb.services.event_warnings import import_warnings

    with transaction(dry_run=options.dry_run) as session:
        result = replace_event(session, event_id, trf, reason=reason, choices=choices)
        warnings = import_warnings(session, [result.new_event_id])
    dry_run_heading(options.dry_run)
    print_replacement(result, file.name, warnings)


def print_replacement(result: "Replacement", source: str, warnings: list[str]) -> None:
    """What replace-event (and `submission replace`) changed, with the import's summary and warnings."""
    event_id = result.event_id
    echo(
        f"Replaced event {event_id} '{result.name}' (period {result.period}) with {source}: the corrected "
        f"tournament is event {result.new_event_id}; event {event_id} is kept as its withdrawn version."
    )
    if result.kept_choices:
        echo(f"  read as event {event_id} was imported: {' '.join(result.kept_choices)}")
    if result.unchanged:
        echo("  No change in dates, players or results.")
    if result.dates:
        echo(f"  dates: {result.dates[0]} → {result.dates[1]}")
    for change in result.results_changed:
        echo(f"  result changed: {change}")
    for name in result.players_added:
        echo(f"  player added: {name}")
    for name in result.players_removed:
        echo(f"  player removed: {name}")
    if result.games_added or result.games_removed:
        echo(f"  pairings added: {result.games_added}; removed: {result.games_removed}")
    print_imported(result.imported, warnings, heading=False)
