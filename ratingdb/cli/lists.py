"""CLI: `list` and `calculation` — published lists and a stored calculation (`player` is in players.py)."""

import contextlib
import sys
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from ratingdb.cli.app import LOOKUP, RatingDbCommand, app
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
    from pathlib import Path

    from sqlalchemy.orm import Session

    from ratingdb.reports.lists import ExportFormat
    from ratingdb.reports.systems import ListShown
    from ratingdb.schema.models import RatingList
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


class ListCommand(RatingDbCommand):
    """`list [DATE]` shows a list; `list bundle DATE …` (ratingdb.cli.list_bundle) writes its bundle. A
    command with one subcommand: a date is never "bundle", so the first word says which is meant."""

    @property
    def commands(self) -> dict[str, Any]:
        from ratingdb.cli.list_bundle import bundle_command

        return {"bundle": bundle_command()}

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        if args[:1] == ["bundle"]:
            return self.commands["bundle"].make_context(
                f"{info_name} bundle", args[1:], parent=parent, **extra
            )
        return super().make_context(info_name, args, parent=parent, **extra)


@app.command("list", rich_help_panel=LOOKUP, cls=ListCommand)
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
    """Show or export a published list (its current version unless --version). A CSV export re-imports to
    the same entries; a FIDE text export writes the players with a FIDE ID (FIDE's format has no other ID),
    says who it left out, and re-imports to those entries. `ratingdb list bundle DATE -o FILE` writes a
    computed list's bundle (see `ratingdb list bundle --help`)."""
    check_type(rating_type)
    list_date = parse_date(date) if date else None
    if fmt not in ("table", "csv", "json", "fide-txt"):
        raise ConfigError(f"'{fmt}' is not a list format: use table, csv, json or fide-txt")
    if output is not None:
        check_output(output, force=force)
    from ratingdb.reports.lists import find_list, list_lines, write_list_file
    from ratingdb.reports.systems import list_shown

    with transaction() as session:
        rating_list = find_list(session, rating_type, list_date, version)
        shown = list_shown(session, rating_list)
        system = shown.system
        if fmt in ("csv", "fide-txt") and not system.exports(fmt):
            # The list's system says which files it is written as (FIDE's text has no deviation).
            offered = " or ".join(f"--format {d.format}" for d in system.downloads)
            raise ConfigError(
                f"the {rating_type} list dated {rating_list.list_date.isoformat()} is a {system.title} list, "
                f"which is not written as {fmt}: use {offered}"
            )
        if system.cli_list_columns:  # a system with figures beyond the entries (Glicko-2's deviation, say)
            _system_list(session, rating_list, shown, fmt, output, force, limit)
            return
        left_out = _without_fide_ids(session, rating_list) if fmt == "fide-txt" else None
        if fmt in ("csv", "fide-txt"):
            export: ExportFormat = "csv" if fmt == "csv" else "fide-txt"
            lines = list_lines(session, rating_list, with_fide_id=export == "fide-txt")
            with output_file(output, force=force) if output else _stdout() as out:
                write_list_file(lines, out, export, rating_type, rating_list.list_date)
            if left_out:
                typer.echo(left_out, err=True)
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


def _without_fide_ids(session: "Session", rating_list: "RatingList") -> str | None:
    """FIDE's text format names a player by FIDE ID only: a line without one would not import again.
    The FIDE text export writes the entries with a FIDE ID, so that it re-imports to those entries; this
    is the note saying who was left out (None if nobody), or the refusal when nobody has one."""
    from ratingdb.reports.lists import without_fide_id

    count, entries, names = without_fide_id(session, rating_list)
    if not count:
        return None
    date = rating_list.list_date.isoformat()
    if count == entries:
        raise ConfigError(
            f"no player on the {rating_list.rating_type} list dated {date} has a FIDE ID, and FIDE's text "
            "format names players by FIDE ID only — export it as CSV (--format csv), which keeps national "
            "IDs and re-imports"
        )
    shown = "; ".join(names) + ("; …" if count > len(names) else "")
    return (
        f"Note: left out {count} player{'s' if count != 1 else ''} without a FIDE ID ({shown}): FIDE's text "
        "format names players by FIDE ID only — --format csv writes every entry, with national IDs"
    )


SYSTEM_COLUMNS = ["rank", "fide_id", "national_id", "name", "federation", "sex", "title", "birth_year"]


def _system_list(
    session: "Session",
    rating_list: "RatingList",
    shown: "ListShown",
    fmt: str,
    output: "Path | None",
    force: bool,
    limit: int | None,
) -> None:
    """`list` of a list whose system has figures of its own (rating and deviation to hundredths, the
    provisional mark "?"): the columns its system adds, best first by its rating; CSV is the system's own
    list format, which re-imports to the same figures."""
    from ratingdb.reports.lists import list_lines, list_versions

    system, figures = shown.system, shown.figures
    with contextlib.closing(list_lines(session, rating_list, rated_only=fmt == "table")) as entries:
        lines = figures.order(list(entries))
    rating_type, date = rating_list.rating_type, rating_list.list_date.isoformat()
    if fmt == "csv":
        version = next(v for v in list_versions(session, rating_type) if v.list_id == rating_list.id)
        with output_file(output, force=force) if output else _stdout() as out:
            figures.write("csv", lines, out, version)
        if output:
            echo(f"Wrote the {rating_type} list dated {date} to {output}.")
        return
    by_player = figures.by_player()
    table = []
    for rank, line in enumerate(lines[:limit] if limit is not None else lines, 1):
        found = by_player.get(line.player_id)
        cells = system.cli_list_cells(found)
        table.append(
            [rank if found else None, line.fide_id, line.national_id, line.name, line.federation, line.sex,
             line.title, line.birth_year, *cells, system.cli_change(line.change, found), line.games]
        )  # fmt: skip
    title = f"{rating_type} list {date} ({rating_list.origin}, {system.title})"
    if (legend := figures.legend()) is not None:
        title += f"; {legend}"
    columns = [*SYSTEM_COLUMNS, *system.cli_list_columns, "change", "games"]
    render_rows(columns, table, fmt, title=title, output=output, force=force)


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
    from ratingdb.reports.systems import SHOWN

    with transaction() as session:
        player = find_player(session, ident)
        for system in SHOWN.values():  # a system that writes its own calculation (Glicko-2's steps)
            if (text := system.calculation_text(session, player, rating_type, p)) is not None:
                echo(f"{player_heading(player)}: {text.title}")
                for line in text.lines:
                    echo(line)
                if text.rows:
                    render_rows(text.columns, text.rows, "table")
                return
        calc = calculation(session, player, p, rating_type)
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
