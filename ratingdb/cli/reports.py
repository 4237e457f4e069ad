"""CLI: `report top|event|period|diff|history` and `sql`: read-only views of lists and the calculation record.

Each command parses, opens one transaction (or one read-only connection for `sql`), calls one function of
ratingdb.reports and renders. No rules and no SQL of its own here.
"""

import contextlib
import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ratingdb.cli.app import LOOKUP, RatingDbTyper, app
from ratingdb.cli.common import (
    EventArgument,
    FormatOption,
    OnlyTypeOption,
    PlayerArgument,
    TypeOption,
    check_type,
    data_table,
    engine,
    parse_date,
    parse_period,
    print_readable,
    render_rows,
    stdout_console,
    transaction,
    user_errors,
)
from ratingdb.cli.output import ForceOption, OutputOption, cell, check_output, output_file
from ratingdb.errors import ConfigError, MissingList
from ratingdb.reports.sql import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, run_read_only

if TYPE_CHECKING:
    from ratingdb.reports.event import EventReport
    from ratingdb.reports.period import PeriodReport, PlayerMove
    from ratingdb.services.list_diff import ListDiff

report_app = RatingDbTyper(
    help="Reports on published lists and the calculation record: top lists, events, closes, diffs, history.",
    no_args_is_help=True,
)
app.add_typer(report_app, name="report", rich_help_panel=LOOKUP)


def _check_format(fmt: str) -> None:
    if fmt not in ("table", "csv", "json"):
        raise ConfigError(f"'{fmt}' is not an output format: use table, csv or json")


def _points(x100: int | None) -> float | None:
    # Hundredths are exact integers; x / 100 is the nearest double, which prints as the two-decimal value.
    return None if x100 is None else x100 / 100


def _json_default(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _write_json(document: Any, output: Path | None, force: bool) -> None:
    text = json.dumps(document, indent=2, ensure_ascii=False, default=_json_default) + "\n"
    if output is None:
        typer.echo(text, nl=False)
    else:
        with output_file(output, force=force) as fh:
            fh.write(text)


def _print_sections(
    heading: Sequence[str],
    sections: Sequence[tuple[str, Sequence[str], Sequence[Sequence[Any]]]],
    output: Path | None,
    force: bool,
) -> None:
    """Heading lines, then one rich table per non-empty section; every value is shown as plain text."""
    from rich.console import Console

    with contextlib.ExitStack() as stack:
        out = stdout_console()
        if output is not None:
            out = Console(file=stack.enter_context(output_file(output, force=force)), width=200)
        for line in heading:
            out.print(cell(line), highlight=False)
        for title, columns, rows in sections:
            if rows:
                out.print(data_table(columns, rows, title=title or None))


# --- report top ---------------------------------------------------------------------------------------

TOP_COLUMNS = [
    "rank",
    "fide_id",
    "national_id",
    "name",
    "title",
    "federation",
    "sex",
    "birth_year",
    "rating",
    "games",
    "k",
    "flag",
]


@report_app.command("top")
@user_errors
def top_command(
    rating_type: TypeOption = "standard",
    date: Annotated[
        str | None,
        typer.Option("--date", metavar="YYYY-MM-DD", help="The list's date; the newest by default."),
    ] = None,
    category: Annotated[
        str,
        typer.Option(
            metavar="CATEGORY",
            help="open, women, juniors, girls (20 or younger in the list year), seniors50, seniors65.",
        ),
    ] = "open",
    federation: Annotated[
        str | None, typer.Option(metavar="FED", help="Only players of this federation (3 letters).")
    ] = None,
    active_only: Annotated[
        bool, typer.Option("--active-only", help="Leave out inactive players (flag i or wi).")
    ] = False,
    limit: Annotated[int, typer.Option(metavar="N", help="How many players.")] = 100,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """The top players of a published list, as federations publish them by category."""
    from ratingdb.reports.lists import find_list
    from ratingdb.reports.top import check_category, top_list, why_empty

    check_type(rating_type)
    _check_format(fmt)
    chosen = check_category(category)
    list_date = parse_date(date) if date else None
    with transaction() as session:
        rating_list = find_list(session, rating_type, list_date)
        lines = top_list(
            session, rating_list, category=chosen, federation=federation, active_only=active_only, limit=limit
        )
        shown_date = rating_list.list_date.isoformat()
        from ratingdb.reports.systems import list_shown

        shown = list_shown(session, rating_list)  # its system's columns after the entry's (Glicko-2's RD)
        reason = (
            None
            if lines
            else why_empty(
                session, rating_list, category=chosen, federation=federation, active_only=active_only
            )
        )
    if reason is not None:
        # Nobody to show: say why instead of an empty table (on stderr for CSV and JSON, whose output
        # stays a valid, empty document).
        explanation = (
            f"No players in category {chosen} on the {rating_type} list dated {shown_date}: {reason}."
        )
        if fmt == "table" and output is None:
            typer.echo(explanation)
            return
        typer.echo(explanation, err=True)
    columns = [*TOP_COLUMNS, *shown.system.cli_columns]
    rows = [[getattr(line, c) for c in TOP_COLUMNS] for line in lines]
    if shown.system.cli_columns:  # e.g. a Glicko-2 list: the rating to hundredths, the deviation, "?"
        by_player, blank = shown.figures.by_player(), [None] * len(shown.system.cli_columns)
        for row, line in zip(rows, lines, strict=True):
            row += shown.system.cli_cells(by_player.get(line.player_id)) or blank
    where = f", {federation.upper()}" if federation else ""
    active = ", active players" if active_only else ""
    render_rows(
        columns,
        rows,
        fmt,
        title=f"Top {limit} {chosen}{where}{active}: {rating_type} list {shown_date}",
        output=output,
        force=force,
    )


# --- report event -------------------------------------------------------------------------------------

EVENT_COLUMNS = [
    "start_rank",
    "fide_id",
    "national_id",
    "name",
    "ro",
    "rc",
    "games",
    "score",
    "k",
    "k_sum_dr",
    "performance",
    "status",
    "new_rating",
]


@report_app.command("event")
@user_errors
def event_command(
    event_id: EventArgument,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """The tournament report: per player Ro, Rc, games, score, K, K × Σ(score − PD) and performance.

    Read from the calculation record of the close that rated the event; new_rating is the rating on the
    list that close published. Status `newly rated` marks players whose first rating that list holds,
    `unrated` players whose games went to their pool, `not rated` players with no game that counted, and
    `not rated yet` every player of an event whose period is not closed.
    """
    _check_format(fmt)
    from ratingdb.i18n import ENGLISH
    from ratingdb.reports.event import event_report
    from ratingdb.reports.systems import DEFAULT, types_shown

    with transaction() as session:
        report = event_report(session, event_id)
        system = types_shown(session, [report.rating_type])[report.rating_type]
        columns, rows = EVENT_COLUMNS, [_event_row(line) for line in report.lines]
        if system.name != DEFAULT:
            # Another system's record of the event (Glicko-2 rates the period at once: no Ro, K or Rp).
            cells = system.event_cells(session, report, ENGLISH)
            columns = [*EVENT_COLUMNS[:4], *(c.key for c in (*system.event_before, *system.event_after))]
            rows = [[*row[:4], *cells[line.player_id][0], *cells[line.player_id][1]]
                    for row, line in zip(rows, report.lines, strict=True)]  # fmt: skip
    if fmt == "json":
        _write_json(
            {
                **_event_heading_fields(report),
                "players": [dict(zip(columns, r, strict=True)) for r in rows],
            },
            output,
            force,
        )
        return
    if fmt == "csv":
        render_rows(columns, rows, "csv", output=output, force=force)
        return
    _print_sections(_event_heading(report), [("", columns, rows)], output, force)


def _event_row(line: Any) -> list[Any]:
    return [
        line.start_rank,
        line.fide_id,
        line.national_id,
        line.name,
        line.ro,
        _points(line.rc_x100),
        line.games,
        _points(line.score_x100),
        line.k,
        _points(line.k_sum_dr_x100),
        line.performance,
        line.status,
        line.new_rating,
    ]


def _event_heading_fields(report: "EventReport") -> dict[str, Any]:
    return {
        "event_id": report.event_id,
        "name": report.name,
        "start_date": report.start_date,
        "end_date": report.end_date,
        "rating_type": report.rating_type,
        "period": report.period,
        "late": report.late,
        "list_date": report.list_date,
        "ratings_from": report.ratings_from,
    }


def _event_heading(report: "EventReport") -> list[str]:
    late = f" (late: its own period is {report.natural_period})" if report.late else ""
    lines = [
        f"Event {report.event_id} '{report.name}' "
        f"({report.start_date.isoformat()} … {report.end_date.isoformat()}), "
        f"{report.rating_type}, period {report.period}{late}"
    ]
    if report.list_date is None:
        lines.append(f"Not rated yet: period {report.period} is not closed.")
    else:
        frm = (
            f", ratings from the list dated {report.ratings_from.isoformat()}" if report.ratings_from else ""
        )
        lines.append(f"Rated on the list dated {report.list_date.isoformat()}{frm}.")
    return lines


# --- report period ------------------------------------------------------------------------------------

PERIOD_COLUMNS = ["section", "fide_id", "national_id", "name", "before", "after", "change", "games", "detail"]


@report_app.command("period")
@user_errors
def period_command(
    period: Annotated[str, typer.Argument(metavar="YYYY-MM", help="The closed period.")],
    rating_type: TypeOption = "standard",
    top: Annotated[int, typer.Option(metavar="N", help="How many of the largest gains and losses.")] = 5,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """What a close did: rated, newly rated, below the floor, (in)active, extremes, K changes, events."""
    check_type(rating_type)
    _check_format(fmt)
    p = parse_period(period)
    from ratingdb.reports.period import period_report

    with transaction() as session:
        report = period_report(session, p, rating_type, top=top)
    if fmt == "json":
        _write_json(_period_document(report), output, force)
        return
    rows = _period_rows(report)
    if fmt == "csv":
        warnings = [["warning", None, None, None, None, None, None, None, w] for w in report.warnings]
        render_rows(PERIOD_COLUMNS, rows + warnings, "csv", output=output, force=force)
        return
    counts = _period_counts(report)
    heading = [
        f"Close of the {report.rating_type} period {report.period}: "
        f"list dated {report.list_date.isoformat()} "
        f"(rules {report.rules}), from the list dated {report.in_force_date.isoformat()}",
        "; ".join(f"{_count_name(name)}: {n}" for name, n in counts.items()),
        *(f"warning: {w}" for w in report.warnings),
    ]
    _print_sections(heading, [("", PERIOD_COLUMNS, rows)], output, force)


def _count_name(name: str) -> str:
    from ratingdb.services.counts import COUNT_NAMES

    return COUNT_NAMES.get(name, name.replace("_", " "))


def _period_counts(report: "PeriodReport") -> dict[str, int]:
    """The close's counts by name, the ones its rating system has (no floor or K for Glicko-2)."""
    from ratingdb.reports.systems import shown

    return shown(report.system).count_figures(report)


def _item(report: "PeriodReport", item: Any) -> dict[str, Any]:
    """One entry of the document; a move's deviations only for a system with them (Elo has none)."""
    found = asdict(item)
    if not report.with_deviations:
        found.pop("deviation_before", None)
        found.pop("deviation_after", None)
    return found


def _period_document(report: "PeriodReport") -> dict[str, Any]:
    return {
        "rating_type": report.rating_type,
        "period": str(report.period),
        "list_date": report.list_date,
        "in_force_date": report.in_force_date,
        "rules": report.rules,
        "counts": _period_counts(report),
        "warnings": report.warnings,
        **{
            name: [_item(report, item) for item in getattr(report, name)]
            for name in (
                "newly_rated",
                "dropped_below_floor",
                "became_inactive",
                "active_again",
                "gains",
                "losses",
                "k_changes",
                "events",
            )
        },
    }


def _period_rows(report: "PeriodReport") -> list[list[Any]]:
    rows: list[list[Any]] = []

    def moves(section: str, items: "list[PlayerMove]", flags: bool = False) -> None:
        for m in items:
            detail = f"flag {m.flag_before or '-'} → {m.flag_after or '-'}" if flags else None
            if report.with_deviations:  # a system with deviations: the deviation before and after
                pair = (m.deviation_before, m.deviation_after)
                rds = " → ".join("–" if d is None else f"{d:.2f}" for d in pair)
                detail = f"RD {rds}" if detail is None else f"{detail}; RD {rds}"
            rows.append(
                [section, m.fide_id, m.national_id, m.name, m.before, m.after, m.change, m.games, detail]
            )

    moves("newly rated", report.newly_rated)
    moves("below floor", report.dropped_below_floor)
    moves("inactive", report.became_inactive, flags=True)
    moves("active again", report.active_again, flags=True)
    moves("gain", report.gains)
    moves("loss", report.losses)
    for k in report.k_changes:
        rows.append(
            ["k change", k.fide_id, k.national_id, k.name, k.k_before, k.k_after, None, None, k.reason]
        )
    for e in report.events:
        detail = (
            f"event {e.event_id}, {e.start_date.isoformat()} … {e.end_date.isoformat()}, "
            f"{e.players} players, games played: {e.games_played}"
        )
        if e.late:
            detail += f", late (its own period is {e.natural_period})"
        rows.append(
            ["late event" if e.late else "event", None, None, e.name, None, None, None, e.games_rated, detail]
        )
    return rows


# --- report risk --------------------------------------------------------------------------------------

RISK_COLUMNS = ["event", "name", "period", "level", "decision", "code", "signal", "players", "evidence"]


@report_app.command("risk")
@user_errors
def risk_command(
    period: Annotated[
        str | None, typer.Option("--period", metavar="YYYY-MM", help="Screen every event of this period.")
    ] = None,
    event_id: Annotated[
        int | None, typer.Option("--event", metavar="ID", help="Screen one event (JSON: with its games).")
    ] = None,
    rating_type: TypeOption = "standard",
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """The integrity screen: each event's level (high, medium, low, none) and its signals, each with a
    code, the players concerned and the evidence in numbers. A screen, not a verdict.

    Signals: repeated pairings, closed pools, 400-point farming, improbable results, fabricated fields,
    schedule clashes, too many rounds, duplicate results (docs/guide/integrity.md: the arithmetic and
    the thresholds, which a rule file's [integrity] table sets). `--event ID --format json` is the
    dossier for FIDE's Tournament Investigation Form: the screen and every game of the event.

    Examples:
      ratingdb report risk --period 2025-09
      ratingdb report risk --event 3 --format json -o dossier-3.json
    """
    check_type(rating_type)
    _check_format(fmt)
    if (period is None) == (event_id is None):
        raise ConfigError("give --period YYYY-MM or --event ID (one of them)")
    p = parse_period(period) if period is not None else None
    from ratingdb.services.integrity import NOT_A_VERDICT, dossier, screen_events

    with transaction() as session:
        if event_id is not None:
            found = dossier(session, event_id)
            screen, document = found.screen, found.document()
        else:
            screen = screen_events(session, rating_type, period=p)
            document = screen.document()
    if fmt == "json":
        _write_json(document, output, force)
        return
    rows = _risk_rows(document)
    if fmt == "csv":
        render_rows(RISK_COLUMNS, rows, "csv", output=output, force=force)
        return
    counts = "; ".join(f"{level}: {n}" for level, n in screen.counts().items())
    what = f"event {event_id}" if event_id is not None else f"the {rating_type} period {period}"
    heading = [
        f"Integrity screen of {what} (thresholds of the rules {screen.rules or 'FIDE defaults'}): "
        f"{len(screen.events)} event(s); {counts}",
        NOT_A_VERDICT,
    ]
    _print_sections(heading, [("", RISK_COLUMNS, rows)], output, force)


def _risk_rows(document: dict[str, Any]) -> list[list[Any]]:
    """One row per signal (an event without any: one row), from the screen's document."""
    rows: list[list[Any]] = []
    for e in document["events"]:
        decision = e["decision"]
        shown = f"{decision['decision']}: {decision['reason']}" if decision else None
        head = [e["event_id"], e["name"], e["period"], e["level"], shown]
        if not e["signals"]:
            rows.append([*head, None, None, None, None])
        for s in e["signals"]:
            players = ", ".join(f"{p['name'] or '?'} ({p['id']})" for p in s["players"][:10])
            if len(s["players"]) > 10:
                players += f", … {len(s['players']) - 10} more"
            rows.append([*head, s["code"], s["level"], players, s["summary"]])
    return rows


# --- report systems -----------------------------------------------------------------------------------

SYSTEMS_COLUMNS = ["rating_type", "system", "band", "games", "log_loss", "brier"]


@report_app.command("systems")
@user_errors
def systems_command(
    first: Annotated[str, typer.Option("--from", metavar="YYYY-MM", help="The first closed period scored.")],
    last: Annotated[str, typer.Option("--to", metavar="YYYY-MM", help="The last closed period scored.")],
    rating_type: OnlyTypeOption = None,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """How well each rating type's system forecast your games: mean log-loss and Brier score of the
    expected scores it gave before each period, per rating band, with the games counted (lower is better)."""
    _check_format(fmt)
    if rating_type is not None:
        check_type(rating_type)
    p1, p2 = parse_period(first), parse_period(last)
    from ratingdb.reports.forecasts import rounded, systems_report
    from ratingdb.services.rules import rating_types

    with transaction() as session:
        types = [rating_type] if rating_type is not None else rating_types(session)
        lines = systems_report(session, p1, p2, types)
    rows = [[x.rating_type, x.system, x.band, x.games, rounded(x.log_loss), rounded(x.brier)] for x in lines]
    if fmt == "json":
        _write_json([dict(zip(SYSTEMS_COLUMNS, row, strict=True)) for row in rows], output, force)
        return
    if fmt == "csv":
        render_rows(SYSTEMS_COLUMNS, rows, "csv", output=output, force=force)
        return
    heading = [
        f"Forecasts of the closed periods {p1} to {p2}: each game's expected score before its period "
        "(lower log-loss and Brier are better; 0.6931 and 0.25 are a coin's)",
    ]
    _print_sections(heading, [("", SYSTEMS_COLUMNS, rows)], output, force)


# --- report diff --------------------------------------------------------------------------------------

DIFF_COLUMNS = ["section", "fide_id", "national_id", "name", "before", "after", "change", "count"]


@report_app.command("diff")
@user_errors
def diff_command(
    date_a: Annotated[str, typer.Argument(metavar="DATE_A", help="The older list's date, YYYY-MM-DD.")],
    date_b: Annotated[
        str | None,
        typer.Argument(
            metavar="[DATE_B]", help="The newer list's date, YYYY-MM-DD (not with --against-withdrawn)."
        ),
    ] = None,
    rating_type: TypeOption = "standard",
    bin_width: Annotated[
        int, typer.Option(metavar="POINTS", help="Width of the histogram's bins in rating points.")
    ] = 10,
    against_withdrawn: Annotated[
        bool,
        typer.Option(
            "--against-withdrawn",
            help="Compare the current list of DATE_A with the version it replaced after a correction: every "
            "player whose rating, K or flag differs (the correction notice).",
        ),
    ] = False,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """The difference between two lists: who entered, left, became unrated or changed, with a histogram.

    `left` players are not on the newer list at all; `became unrated` players are on it without a
    rating (below the floor, §7.2.1).

    Examples:
      ratingdb report diff 2025-10-01 2025-11-01
      ratingdb report diff 2025-11-01 --against-withdrawn    (after a correction)
    """
    check_type(rating_type)
    _check_format(fmt)
    if against_withdrawn:
        if date_b is not None:
            raise ConfigError("--against-withdrawn compares one list with its earlier version: give one date")
        _version_diff(parse_date(date_a), rating_type, fmt, output, force)
        return
    if date_b is None:
        raise ConfigError("give two list dates (DATE_A DATE_B), or one with --against-withdrawn")
    a, b = parse_date(date_a), parse_date(date_b)
    from ratingdb.services.list_diff import list_diff
    from ratingdb.services.lists import require_list

    with transaction() as session:
        diff = list_diff(
            session,
            require_list(session, rating_type, a),
            require_list(session, rating_type, b),
            bin_width=bin_width,
        )
    rows = _diff_rows(diff)
    if fmt == "json":
        document = {
            "rating_type": diff.rating_type,
            "date_a": diff.date_a,
            "date_b": diff.date_b,
            "counts": _diff_counts(diff),
            "histogram": [{"low": x.low, "high": x.high, "count": x.count} for x in diff.histogram],
            **{
                name: [{**asdict(line), "change": line.change} for line in getattr(diff, name)]
                for name in DIFF_SECTIONS
            },
        }
        _write_json(document, output, force)
        return
    if fmt == "csv":
        render_rows(DIFF_COLUMNS, rows, "csv", output=output, force=force)
        return
    heading = [
        f"{diff.rating_type} list {diff.date_a.isoformat()} → {diff.date_b.isoformat()}",
        "; ".join(f"{DIFF_HEADINGS.get(name, name)}: {n}" for name, n in _diff_counts(diff).items()),
    ]
    # One # per player, or per N players when the largest bin would not fit in 60 characters.
    per_mark = max(1, -(-max((x.count for x in diff.histogram), default=0) // 60))
    histogram = [[x.label, x.count, "#" * -(-x.count // per_mark)] for x in diff.histogram]
    players = [r for r in rows if r[0] != "histogram"]
    marks = "# = 1 player" if per_mark == 1 else f"# = up to {per_mark} players"
    _print_sections(
        heading,
        [
            ("Changes", ["change", "players", marks], histogram),
            ("", DIFF_COLUMNS[:-1], [r[:-1] for r in players]),
        ],
        output,
        force,
    )


DIFF_SECTIONS = ("entered", "left", "became_unrated", "changed")
DIFF_HEADINGS = {"left": "left the list", "became_unrated": "became unrated"}
VERSION_COLUMNS = [
    "fide_id", "national_id", "name", "rating_before", "rating_after", "change", "k_before", "k_after",
    "flag_before", "flag_after",
]  # fmt: skip


def _version_diff(list_date: dt.date, rating_type: str, fmt: str, output: Path | None, force: bool) -> None:
    from ratingdb.reports.diff import version_diff, withdrawn_version
    from ratingdb.services.lists import require_list

    with transaction() as session:
        current = require_list(session, rating_type, list_date)
        before = withdrawn_version(session, current)
        if before is None:
            raise MissingList(
                f"the {rating_type} list dated {list_date.isoformat()} has no withdrawn version: it was "
                "never corrected (see `ratingdb lists`)"
            )
        changes = version_diff(session, before, current)
    rows = [
        [c.fide_id, c.national_id, c.name, c.rating_before, c.rating_after, c.change, c.k_before, c.k_after,
         c.flag_before, c.flag_after]
        for c in changes
    ]  # fmt: skip
    title = (
        f"{rating_type} list {list_date.isoformat()}: version {current.version} against withdrawn version "
        f"{before.version} — {len(changes)} player{'s' if len(changes) != 1 else ''} changed"
    )
    render_rows(VERSION_COLUMNS, rows, fmt, title=title, output=output, force=force)


def _diff_counts(diff: "ListDiff") -> dict[str, int]:
    return {**{name: len(getattr(diff, name)) for name in DIFF_SECTIONS}, "unchanged": diff.unchanged}


def _diff_rows(diff: "ListDiff") -> list[list[Any]]:
    rows: list[list[Any]] = []
    for section in DIFF_SECTIONS:
        for line in getattr(diff, section):
            rows.append(
                [
                    section.replace("_", " "),
                    line.fide_id,
                    line.national_id,
                    line.name,
                    line.before,
                    line.after,
                    line.change,
                    None,
                ]
            )
    for x in diff.histogram:
        rows.append(["histogram", None, None, x.label, x.low, x.high, None, x.count])
    return rows


# --- report history -----------------------------------------------------------------------------------

HISTORY_COLUMNS = ["type", "list_date", "origin", "rating", "change", "games", "k", "flag", "k_change"]


@report_app.command("history")
@user_errors
def history_command(
    ident: PlayerArgument,
    rating_type: OnlyTypeOption = None,
    chart: Annotated[
        Path | None,
        typer.Option("--chart", metavar="FILE", help="Also draw the ratings to this .png or .svg file."),
    ] = None,
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """A player's ratings over time for every rating type, optionally charted with K changes marked."""
    if rating_type is not None:
        check_type(rating_type)
    _check_format(fmt)
    if chart is not None and chart.suffix.lower() not in (".png", ".svg"):
        raise ConfigError(f"{chart}: a chart is written as .png or .svg")
    from ratingdb.reports.lists import find_player, player_history

    with transaction() as session:
        player = find_player(session, ident)
        history = player_history(session, player, rating_type)
        name, fide_id = player.name, player.fide_id
    from ratingdb.reports.chart import k_changes

    changed = {(line.rating_type, line.list_date): before for line, before in k_changes(history)}
    rows = [
        [
            h.rating_type,
            h.list_date,
            h.origin,
            h.rating,
            h.change,
            h.games,
            h.k,
            h.flag,
            f"{changed[(h.rating_type, h.list_date)]}→{h.k}"
            if (h.rating_type, h.list_date) in changed
            else None,
        ]
        for h in history
    ]
    if chart is not None:
        from ratingdb.reports.chart import write_history_chart

        ident_text = f" (FIDE {fide_id})" if fide_id else ""
        with output_file(chart, force=force, binary=True) as fh:
            write_history_chart(history, chart, f"{name}{ident_text}: ratings by list", file=fh)
    title = f"{name}: ratings on every list"
    render_rows(HISTORY_COLUMNS, rows, fmt, title=title, output=output, force=force)
    if chart is not None and (fmt == "table" or output is not None):
        typer.echo(f"Wrote the chart to {chart}.")


# --- sql ----------------------------------------------------------------------------------------------


@app.command("sql", rich_help_panel=LOOKUP)
@user_errors
def sql_command(
    statement: Annotated[
        str, typer.Argument(metavar="SQL", help='One SQL statement, e.g. "SELECT * FROM v_current_list".')
    ],
    fmt: FormatOption = "table",
    output: OutputOption = None,
    force: ForceOption = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", metavar="SECONDS", help="Stop the statement after this long (running or waiting)."
        ),
    ] = DEFAULT_TIMEOUT,
    max_rows: Annotated[
        int, typer.Option("--max-rows", metavar="N", help="Show at most N rows (a notice says when cut).")
    ] = DEFAULT_MAX_ROWS,
) -> None:
    """Run one ad-hoc SQL query on the views and tables, read-only on every engine.

    The statement runs in a transaction that can only read and is always rolled back: INSERT, UPDATE,
    DELETE, DROP and the like, and a text with more than one statement, are refused and change nothing.
    On PostgreSQL it runs with the rights of the role ratingdb_reader only (docs/operations/security.md).
    Points in the views are numbers with two decimals; booleans print as 1/0 on every engine.
    A table too wide for the terminal prints one block per row; use --format csv or json in scripts.
    """
    _check_format(fmt)
    if output is not None:
        check_output(output, force=force)
    from ratingdb.accounts import sql_warnings

    eng = engine()
    try:
        with eng.connect() as conn:
            for warning in sql_warnings(conn):
                typer.echo(f"Warning: {warning}", err=True)
        result = run_read_only(eng, statement, timeout=timeout, max_rows=max_rows)
    finally:
        eng.dispose()
    if not result.columns:
        typer.echo("The statement returned no rows.")
        return
    if fmt == "table" and output is None:
        print_readable(stdout_console(), result.columns, result.rows)
    else:
        render_rows(result.columns, result.rows, fmt, output=output, force=force)
    if result.truncated:
        typer.echo(
            f"Truncated: showing the first {max_rows:,} rows; the query returned more (--max-rows).",
            err=True,
        )
