"""CLI: `events` — the imported events with their IDs, for `report event`, `export-trf` and `delete-event`."""

from typing import Annotated, Any

import typer

from ratingdb.cli.app import LOOKUP, app
from ratingdb.cli.common import (
    FormatOption,
    check_type,
    parse_period,
    render_rows,
    transaction,
    user_errors,
)
from ratingdb.cli.output import ForceOption, OutputOption, check_output
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
