"""CLI: `events` — the imported events with their IDs, for `report event`, `export-trf` and `delete-event`."""

from typing import Annotated, Any

import typer

from ratingdb.cli.app import LOOKUP, MONTHLY, RatingDbTyper, app
from ratingdb.cli.common import (
    DryRunOption,
    EventArgument,
    FormatOption,
    check_type,
    dry_run_heading,
    parse_period,
    render_rows,
    transaction,
    user_errors,
)
from ratingdb.cli.output import ForceOption, OutputOption, check_output, echo
from ratingdb.errors import ConfigError

EVENT_COLUMNS = [
    "id",
    "name",
    "start_date",
    "end_date",
    "type",
    "period",
    "late",
    "players",
    "games",
    "rated",
    "file",
]
TABLE_COLUMNS = ["id", "name", "dates", "type", "period", "players", "games", "rated", "file"]


@app.command("events", rich_help_panel=LOOKUP)
@user_errors
def events_command(
    period: Annotated[
        str | None, typer.Option("--period", metavar="YYYY-MM", help="Only events rated in this period.")
    ] = None,
    rating_type: Annotated[
        str | None,
        typer.Option(
            "--type", "-t", metavar="TYPE", help="Only events of this type: standard, rapid or blitz."
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option("--name", metavar="TEXT", help="Only events whose name contains TEXT (any case)."),
    ] = None,
    show_all: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also the withdrawn versions (replaced by replace-event or withdrawn by delete-event), "
            "in a column `version`.",
        ),
    ] = False,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """The imported events: ID, name, dates, type, period, players, games, rated or not, file.

    `games` counts the games played over the board; `rated` is yes once the close of the event's period
    has published its list. A late event (rated after its own period, §9.1) shows "(late)" after its
    period in the table and late yes (CSV) or true (JSON). Only the current version of each event is
    shown; `--all` adds the withdrawn ones (never rated by the list in force) with a column `version`.

    Examples:
      ratingdb events --period 2025-10
      ratingdb events --name open --type rapid
      ratingdb events --all
    """
    if fmt not in ("table", "csv", "json"):
        raise ConfigError(f"'{fmt}' is not an output format: use table, csv or json")
    chosen = parse_period(period) if period else None
    if rating_type is not None:
        check_type(rating_type)
    if output is not None:
        check_output(output, force=force)
    from ratingdb.reports.events import find_events

    with transaction() as session:
        events = find_events(session, period=chosen, rating_type=rating_type, name=name, withdrawn=show_all)
    if not events:
        asked = [
            f"period {chosen}" if chosen else "",
            rating_type or "",
            f"name containing '{name}'" if name else "",
        ]
        which = ", ".join(x for x in asked if x)
        typer.echo(
            f"No events match ({which})."
            if which
            else "No events yet: import one with `ratingdb import-trf FILE`."
        )
        return
    if fmt == "table":
        rows = [
            [
                e.id,
                e.name,
                f"{e.start_date.isoformat()} … {e.end_date.isoformat()}",
                e.rating_type,
                f"{e.period} (late)" if e.late else e.period,
                e.players,
                e.games,
                "yes" if e.rated else "no",
                e.source_name,
                *([_version(e.current)] if show_all else []),
            ]
            for e in events
        ]
        render_rows(TABLE_COLUMNS + (["version"] if show_all else []), rows, fmt, output=output, force=force)
        return
    data: list[list[Any]] = [
        [
            e.id,
            e.name,
            e.start_date,
            e.end_date,
            e.rating_type,
            e.period,
            _yes_no(e.late, fmt),
            e.players,
            e.games,
            _yes_no(e.rated, fmt),
            e.source_name,
            *([_version(e.current)] if show_all else []),
        ]
        for e in events
    ]
    render_rows(EVENT_COLUMNS + (["version"] if show_all else []), data, fmt, output=output, force=force)


def _version(current: bool) -> str:
    return "current" if current else "withdrawn"


def _yes_no(flag: bool, fmt: str) -> bool | str:
    return flag if fmt == "json" else ("yes" if flag else "no")


event_app = RatingDbTyper(
    help="Change how an imported event is shown (name, section, city).", no_args_is_help=True
)
app.add_typer(event_app, name="event", rich_help_panel=MONTHLY)


@event_app.command("edit")
@user_errors
def event_edit_command(
    event_id: EventArgument,
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why: kept in the audit log with the change.")
    ],
    name: Annotated[
        str | None, typer.Option("--name", metavar="TEXT", help="The name to show instead of the file's.")
    ] = None,
    section: Annotated[
        str | None,
        typer.Option(
            "--section",
            metavar="NAME",
            help='The section of the congress (shown "Bunratty 2011 — Major"); an empty NAME removes it.',
        ),
    ] = None,
    city: Annotated[
        str | None,
        typer.Option("--city", metavar="TEXT", help="The city to show; an empty TEXT removes it."),
    ] = None,
    dry_run: DryRunOption = False,
) -> None:
    """Show event ID with another name, section or city from now on: an audited version; no rating
    changes.

    Reports, `events`, `report event`, player pages, the site and the web API show the new name; the
    event's games, the ratings and the published lists do not change (the event keeps the name its file
    gave, and `export-trf` writes that). A corrected file (`replace-event`) keeps what was set here.

    Examples:
      ratingdb event edit 2 --section Masters --reason "four sections of Bunratty 2011"
      ratingdb event edit 5 --name "Bunratty Chess Congress 2011" --city Bunratty --reason "full name"
    """
    if name is None and section is None and city is None:
        raise ConfigError("nothing to change: give --name, --section or --city")
    from ratingdb.services.event_labels import edit_event

    with transaction(dry_run=dry_run) as session:
        before, after = edit_event(session, event_id, name=name, section=section, city=city, reason=reason)
    dry_run_heading(dry_run)
    where = f" ({after.city})" if after.city and after.city != before.city else ""
    echo(
        f"Event {event_id} is shown as '{after.title}'{where} (was '{before.title}'): no rating changes, "
        "the published lists are as they were."
    )


@event_app.command("review")
@user_errors
def event_review_command(
    event_id: EventArgument,
    decision: Annotated[
        str,
        typer.Option(
            "--decision", metavar="rate|exclude", help="rate: the close rates it; exclude: it does not."
        ),
    ],
    reason: Annotated[
        str,
        typer.Option("--reason", metavar="TEXT", help="Why: shown with the event and kept in the audit log."),
    ],
    dry_run: DryRunOption = False,
) -> None:
    """Record the rating officer's decision on event ID after the integrity screen: rate it, or exclude
    it from rating (FIDE's right not to rate a tournament).

    An excluded event stays in the database; the close leaves it out and says so, with the reason, as do
    the event's page and the API. The decision is audited; changing it once the event's period is closed
    needs a reopen first, like any correction (`ratingdb reopen`). `ratingdb report risk --event ID`
    shows what the screen found.

    Examples:
      ratingdb event review 7 --decision exclude --reason "players absent: see the arbiter's report"
      ratingdb event review 7 --decision rate --reason "checked with the arbiter: games took place"
    """
    from ratingdb.services.integrity import review_event

    with transaction(dry_run=dry_run) as session:
        done = review_event(session, event_id, decision, reason)
    dry_run_heading(dry_run)
    was = f"was {done.before.decision}" if done.before is not None else "no decision before"
    what = "excluded from rating: the close leaves it out" if done.after.excluded else "rated by the close"
    echo(
        f"Event {event_id} '{done.name}' is {what} ({was}; integrity screen: {done.after.risk_level}). "
        f"Reason: {done.after.reason}"
    )
