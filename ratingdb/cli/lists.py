"""CLI: `list` and `calculation` — published lists and a stored calculation (`player` is in players.py)."""

import contextlib
import sys
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from ratingdb.cli.app import LOOKUP, app
from ratingdb.cli.common import (
    FormatOption,
    OnlyTypeOption,
    PlayerArgument,
    TypeOption,
    check_type,
    parse_date,
    parse_period,
    player_heading,
    render_rows,
    transaction,
    user_errors,
)
from ratingdb.cli.output import ForceOption, OutputOption, check_output, echo, output_file
from ratingdb.errors import ConfigError

if TYPE_CHECKING:
    from ratingdb.reports.lists import ExportFormat
LIST_COLUMNS = [
    "rank",
    "fide_id",
    "national_id",
    "name",
    "federation",
    "sex",
    "title",
    "birth_year",
    "rating",
    "change",
    "games",
    "k",
    "flag",
]


@app.command("list", rich_help_panel=LOOKUP)
@user_errors
def list_command(
    date: Annotated[
        str | None,
        typer.Argument(metavar="YYYY-MM-DD", help="The list's date; the newest list by default."),
    ] = None,
    rating_type: TypeOption = "standard",
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="table, csv (ratingdb CSV list), json or fide-txt (FIDE fixed width).",
        ),
    ] = "table",
    output: OutputOption = None,
    force: ForceOption = False,
    limit: Annotated[
        int | None, typer.Option(metavar="N", help="Only the first N entries (table and json).")
    ] = None,
    version: Annotated[
        int | None,
        typer.Option(
            "--version",
            metavar="N",
            help="That version of the list, withdrawn ones too (see `ratingdb lists`).",
        ),
    ] = None,
) -> None:
    """Show or export a published list (its current version unless --version). CSV and FIDE text exports
    re-import to the same entries."""
    check_type(rating_type)
    list_date = parse_date(date) if date else None
    if fmt not in ("table", "csv", "json", "fide-txt"):
        raise ConfigError(f"'{fmt}' is not a list format: use table, csv, json or fide-txt")
    if output is not None:
        check_output(output, force=force)
    from ratingdb.reports.lists import find_list, list_lines, write_list_file

    with transaction() as session:
        rating_list = find_list(session, rating_type, list_date, version)
        if fmt in ("csv", "fide-txt"):
            export: ExportFormat = "csv" if fmt == "csv" else "fide-txt"
            with output_file(output, force=force) if output else _stdout() as out:
                write_list_file(
                    list_lines(session, rating_list), out, export, rating_type, rating_list.list_date
                )
            if output:
                echo(f"Wrote the {rating_type} list dated {rating_list.list_date.isoformat()} to {output}.")
            return
        with contextlib.closing(
            list_lines(session, rating_list, rated_only=fmt == "table", limit=limit)
        ) as entries:
            table = [
                [rank if line.rating is not None else None, *(getattr(line, c) for c in LIST_COLUMNS[1:])]
                for rank, line in enumerate(entries, 1)
            ]
        title = f"{rating_type} list {rating_list.list_date.isoformat()} ({rating_list.origin})"
        if rating_list.version > 1 or rating_list.is_current is None:
            state = "current" if rating_list.is_current else "withdrawn"
            title += f", version {rating_list.version} ({state})"
    render_rows(LIST_COLUMNS, table, fmt, title=title, output=output, force=force)


def _stdout() -> contextlib.nullcontext[TextIO]:
    return contextlib.nullcontext(sys.stdout)


@app.command("lists", rich_help_panel=LOOKUP)
@user_errors
def lists_command(
    rating_type: OnlyTypeOption = None,
    fmt: FormatOption = "table",
) -> None:
    """Every published list with each of its versions: current or withdrawn, where it came from, and why a
    withdrawn version was withdrawn."""
    if rating_type is not None:
        check_type(rating_type)
    from ratingdb.reports.lists import list_versions

    with transaction() as session:
        lines = list_versions(session, rating_type)
    columns = [
        "type", "date", "version", "state", "origin", "period", "rules", "players", "withdrawn_at", "reason",
    ]  # fmt: skip
    rows = [
        [v.rating_type, v.list_date, v.version, v.state, v.origin if v.origin == "computed" else
         f"imported ({v.source})" if v.source else "imported", v.period, v.rules, v.players,
         v.withdrawn_at.replace(microsecond=0) if v.withdrawn_at else None, v.withdrawn_reason]
        for v in lines
    ]  # fmt: skip
    render_rows(columns, rows, fmt, title="Published lists and their versions")


@app.command("calculation", rich_help_panel=LOOKUP)
@user_errors
def calculation_command(
    ident: PlayerArgument,
    period: Annotated[str, typer.Argument(metavar="YYYY-MM", help="The closed period.")],
    rating_type: TypeOption = "standard",
) -> None:
    """The player's calculation for a closed period, per event and per game (FIDE's calculation page)."""
    check_type(rating_type)
    p = parse_period(period)
    from ratingdb.reports.lists import (
        calculation,
        calculation_summary,
        event_summary,
        find_player,
        points,
        signed_points,
    )

    with transaction() as session:
        calc = calculation(session, find_player(session, ident), p, rating_type)
        heading = player_heading(calc.player)
    echo(f"{heading}: {rating_type}, period {p}, list dated {calc.list_date.isoformat()}")
    for line in calculation_summary(calc):
        echo(line)
    for ev in calc.events:
        echo("")
        echo(
            f"Event {ev.event_id} '{ev.name}' ({ev.start_date.isoformat()} … {ev.end_date.isoformat()}), "
            f"ratings from the list dated {ev.ratings_from.isoformat()}"
        )
        echo(f"  {event_summary(ev)}")
        if ev.note:
            echo(f"  note: {ev.note}")
        rows = [
            [
                g.round,
                g.opponent,
                g.opponent_fide_id,
                g.opponent_national_id,
                g.opponent_rating,
                g.d,
                points(g.pd_x100),
                points(g.score_x100),
                signed_points(None if g.pd_x100 is None else g.score_x100 - g.pd_x100),
            ]
            for g in ev.games
        ]
        render_rows(
            ["rd", "opponent", "fide_id", "national_id", "rating", "D", "PD", "score", "score − PD"],
            rows,
            "table",
        )
