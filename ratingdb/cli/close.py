"""CLI: `close-period` — rate periods and publish their lists: parses the options, calls the close of one
or more periods (services.closing: each period one transaction, the copy before it, the dry run) and
prints what it says."""

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, redirect_stdout
from typing import TYPE_CHECKING, Annotated

import typer

from ratingdb.cli import collector
from ratingdb.cli.app import MONTHLY, app
from ratingdb.cli.common import (
    DryRunOption,
    TypeOption,
    check_type,
    command_unit_of_work,
    dry_run_heading,
    parse_period,
    render_rows,
    stdout_console,
    user_errors,
)
from ratingdb.cli.output import cell, echo
from ratingdb.errors import ConfigError

if TYPE_CHECKING:
    from ratingdb.rating import Adjustment, Period
    from ratingdb.services.close import CloseSummary, PlayerChange
    from ratingdb.services.closing import ClosedPeriod, PreCloseCopy, WithdrawnDiff
    from ratingdb.services.systems.base import Progress


@app.command("close-period", rich_help_panel=MONTHLY)
@user_errors
def close_period_command(
    period: Annotated[
        str,
        typer.Argument(metavar="YYYY-MM", help="The period to close (publishes the next month's list)."),
    ],
    rating_type: TypeOption = "standard",
    through: Annotated[
        str | None,
        typer.Option(
            "--through",
            metavar="YYYY-MM",
            help="Close every period from PERIOD up to this one, in order, one transaction each "
            "(after a reopen, or after months without events).",
        ),
    ] = None,
    adjust: Annotated[
        str | None,
        typer.Option(
            "--adjust",
            metavar="THRESHOLD:FACTOR[:ROUNDING]",
            help="A one-off adjustment of the new list, e.g. 2000:0.4 for FIDE's March 2024 "
            "compression: every rating below 2000 gains 0.4 × (2000 − R); rounding half_away (default), "
            "down or up. Recorded in the audit log.",
        ),
    ] = None,
    dry_run: DryRunOption = False,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="Also list every rating change (player, old, new, change) as a table, csv or json; "
            "csv and json go to stdout alone, the summary to stderr. A dry run lists them as a table.",
        ),
    ] = None,
) -> None:
    """Rate every event of PERIOD and publish the list dated the first day of the next month.

    Ratings are frozen from the list in force at each event's start; K from the list in force with the
    700 rule; one rounding per period; first ratings from pooled results; the floor of the period's rule
    set (1400 since March 2024). The list and its calculation record are written in one transaction.
    Running it again on a closed period changes nothing. After a reopen, each new version is compared
    with the one it replaces.

    Examples:
      ratingdb close-period 2025-10                 (publishes the standard list dated 2025-11-01)
      ratingdb close-period 2025-10 --type rapid
      ratingdb close-period 2025-10 --through 2025-12
      ratingdb close-period 2025-10 --dry-run       (every rating change, then rolled back)
      ratingdb close-period 2025-10 --dry-run --format csv > changes.csv
    """
    first = parse_period(period)
    last = parse_period(through) if through else first
    check_type(rating_type)
    if last < first:
        raise ConfigError(f"--through {last} is before {first}: name the last period to close")
    if adjust and last != first:
        raise ConfigError("--adjust applies to one close: close that period on its own")
    if fmt is not None and fmt not in ("table", "csv", "json"):
        raise ConfigError(f"'{fmt}' is not an output format: use table, csv or json")
    if dry_run:
        fmt = fmt or "table"
    adjustment = parse_adjustment(adjust) if adjust else None
    with collector.imports():  # SQLAlchemy, the ORM, the models: the costliest imports
        from ratingdb.services.closing import CloseInterrupted, close_periods, periods_through

    periods = periods_through(first, last)
    # CSV and JSON are data on stdout: the summary goes to stderr then.
    printed = PrintedClose(dry_run, first, to_stderr=fmt in ("csv", "json"))
    try:
        with command_unit_of_work() as work:
            done = close_periods(
                work, rating_type, periods, adjustment=adjustment, dry_run=dry_run, changes=fmt is not None,
                observer=printed,
            )  # fmt: skip
    except CloseInterrupted as stopped:
        for line in interrupted_lines(stopped.periods, stopped.committed, rating_type):
            typer.echo(line, err=True)
        raise typer.Exit(130) from None
    changes = [(str(c.summary.period), *line) for c in done for line in c.changes]
    if fmt == "table" and not changes:
        if any(not c.summary.already_closed for c in done):
            typer.echo("No rating changed.")
    elif fmt is not None:
        title = f"{len(changes)} rating change{'s' if len(changes) != 1 else ''} ({rating_type})"
        render_rows(CHANGE_COLUMNS, changes, fmt, title=title)


class PrintedClose:
    """The close's observer (services.closing.CloseObserver): each period's copy and summary printed as it
    is closed, a spinner with its current step on a terminal."""

    def __init__(self, dry_run: bool, first: "Period", *, to_stderr: bool) -> None:
        self.dry_run, self.first, self.to_stderr = dry_run, first, to_stderr

    def copied(self, copy: "PreCloseCopy") -> None:
        typer.echo(
            f"Copied the database to {copy.path} before the close (RATINGDB_BACKUPS keeps the newest "
            f"{copy.keep})."
        )

    def closing(self, period: "Period") -> "AbstractContextManager[Progress | None]":
        return progress_line()

    def closed(self, closed: "ClosedPeriod") -> None:
        with redirect_stdout(sys.stderr) if self.to_stderr else nullcontext():
            if closed.summary.period == self.first:
                dry_run_heading(self.dry_run)
            print_summary(closed.summary)
            for line in withdrawn_lines(closed.summary, closed.against_withdrawn):
                echo(line)
            for line in screen_lines(closed):
                echo(line)


def screen_lines(closed: "ClosedPeriod") -> list[str]:
    """A dry run's integrity screen: the count at each level and the events at medium or above."""
    screen = closed.screen
    if screen is None or not screen.events:
        return []
    counts = ", ".join(f"{level} {n}" for level, n in screen.counts().items())
    report = f"ratingdb report risk --period {closed.summary.period} --type {closed.summary.rating_type}"
    lines = [f"  integrity screen (a screen, not a verdict): {counts} (`{report}`)"]
    for e in screen.events:
        if e.level in ("high", "medium"):
            decided = f"; decided: {e.review.decision}" if e.review is not None else ""
            codes = ", ".join(dict.fromkeys(s.code for s in e.signals))
            lines.append(f"    screen {e.level}: {e.name} (event {e.event_id}): {codes}{decided}")
    return lines


@contextmanager
def progress_line() -> "Iterator[Progress | None]":
    """On a terminal, a spinner with the close's current step; elsewhere nothing, and rich's live display
    is not imported (tens of ms of the command's start-up for a line no one sees in piped output)."""
    if not sys.stdout.isatty():
        yield None
        return
    from rich.status import Status

    with Status("closing…", console=stdout_console()) as status:
        yield lambda msg: status.update(cell(msg))


CHANGE_COLUMNS = ("period", "fide_id", "national_id", "name", "old", "new", "change")


def interrupted_lines(periods: "list[Period]", committed: "list[Period]", rating_type: str) -> list[str]:
    """What an interrupted close (Ctrl-C) kept and how to go on: each period is its own transaction.

    The periods closed before the interruption are committed and stay; the one being closed was rolled
    back. Closing a closed period changes nothing, so the command given to continue is safe even if the
    interruption fell just after a commit.
    """
    left = periods[len(committed) :]
    if not left:
        return [f"Interrupted after the last close: every period through {periods[-1]} is closed."]
    kind = f" --type {rating_type}" if rating_type != "standard" else ""
    through = f" --through {left[-1]}" if len(left) > 1 else ""
    kept = (
        ", ".join(f"{p} (list dated {p.published_list_date.isoformat()})" for p in committed)
        if committed
        else "none"
    )
    still_open = f"{left[0]} … {left[-1]}" if len(left) > 1 else str(left[0])
    return [
        f"Interrupted while closing {rating_type} period {left[0]}: that close was rolled back.",
        f"  closed and kept: {kept}",
        f"  still open: {still_open} — continue with `ratingdb close-period {left[0]}{kind}{through}`",
    ]


def withdrawn_lines(summary: "CloseSummary", diff: "WithdrawnDiff | None") -> list[str]:
    """After a reopen: how the new version of the list differs from the one it replaces."""
    if diff is None:
        return []
    ratings = diff.ratings
    lines = [
        f"  against the withdrawn version {diff.version}: {len(ratings)} rating"
        f"{'s' if len(ratings) != 1 else ''} changed, {len(diff.changes)} player"
        f"{'s' if len(diff.changes) != 1 else ''} with another rating, K or flag"
    ]
    for c in ratings[:5]:
        lines.append(f"    {c.name}: {_shown(c.rating_before)} → {_shown(c.rating_after)}")
    if len(ratings) > 5:
        more = f"`ratingdb report diff {summary.list_date} --against-withdrawn`"
        lines.append(f"    … and {len(ratings) - 5} more ({more})")
    return lines


SHOWN = 10  # players listed per kind (newly rated, below the floor); `report period` lists them all
LATE_SHOWN = 5  # late events listed one a line; more are summarised in one line


def print_summary(summary: "CloseSummary") -> None:
    """The close's summary as the command prints it (also used by the demo)."""
    date = summary.list_date.isoformat()
    if summary.already_closed:
        typer.echo(
            f"Period {summary.period} ({summary.rating_type}) is already closed: the list dated {date} "
            f"exists ({summary.existing_origin}). Nothing changed."
        )
        return
    typer.echo(
        f"Closed {summary.rating_type} period {summary.period}: published the list dated {date} "
        f"(rules {summary.rules})."
    )
    from ratingdb.services.counts import COUNT_NAMES

    figures = summary.counts._asdict()

    def counted(*names: str) -> str:
        return "; ".join(f"{COUNT_NAMES[name]}: {figures[name]}" for name in names)

    typer.echo(
        f"  events rated: {summary.events}"
        + (f" ({len(summary.late_events)} late)" if summary.late_events else "")
        + f"; {counted('games_played', 'games_rated', 'games_changing_a_rating')}"
    )
    typer.echo(f"  players on the list: {summary.players_on_list}; {counted('players_rated')}")
    dropped = len(summary.dropped_below_floor)
    # A system without a floor (Glicko-2) drops nobody.
    below = f"; dropped below {summary.floor}: {dropped}" if summary.floor is not None else ""
    typer.echo(f"  {counted('newly_rated')}{below}")
    report = f"ratingdb report period {summary.period}" + (
        f" --type {summary.rating_type}" if summary.rating_type != "standard" else ""
    )
    for title, changes in (
        ("newly rated", summary.newly_rated),
        ("below the floor", summary.dropped_below_floor),
    ):
        for c in changes[:SHOWN]:
            rd = _deviations(c)
            echo(f"    {title}: {c.name} {_shown(c.old)} → {_shown(c.new)}" + (f" ({rd})" if rd else ""))
        if len(changes) > SHOWN:
            echo(f"    {title}: … and {len(changes) - SHOWN} more (`{report}` lists them all)")
    for title, changes in (("gain", summary.biggest_gains), ("loss", summary.biggest_losses)):
        for c in changes[:3]:
            delta = (c.new or 0) - (c.old or 0)
            games = f"{c.games} game" + ("" if c.games == 1 else "s")
            rd = _deviations(c)
            games += f", {rd}" if rd else ""
            echo(f"    biggest {title}: {c.name} {c.old} → {c.new} ({delta:+d}, {games})")
    if len(summary.late_events) > LATE_SHOWN:
        echo(f"    {len(summary.late_events)} late events: `{report}` lists them")
    else:
        for late in summary.late_events:
            echo(f"    late event: {late}")
    for excluded in summary.excluded:
        echo(
            f"    not rated, excluded by the rating officer: {excluded.name} "
            f"(event {excluded.event_id}): {excluded.reason}"
        )
    for note in summary.notes:
        echo(f"    note: {note}")
    for warning in summary.warnings:
        echo(f"    warning: {warning}")


def _shown(rating: int | None) -> str:
    return "unrated" if rating is None else str(rating)


def _deviations(c: "PlayerChange") -> str:
    """The deviations of a move, "RD 120.45 → 117.62" (a newcomer: "RD 154.79"); "" for Elo."""
    if c.deviation_new is None and c.deviation_old is None:
        return ""
    old, new = ("–" if d is None else f"{d:.2f}" for d in (c.deviation_old, c.deviation_new))
    return f"RD {new}" if c.deviation_old is None else f"RD {old} → {new}"


def parse_adjustment(text: str) -> "Adjustment":
    """`THRESHOLD:FACTOR[:ROUNDING]`, e.g. `2000:0.4` or `2000:2/5:down`."""
    from fractions import Fraction

    from ratingdb.rating import Adjustment

    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        threshold, factor = int(parts[0]), Fraction(parts[1])
    except (ValueError, ZeroDivisionError):
        raise ConfigError(
            f"'{text}' is not an adjustment: write THRESHOLD:FACTOR[:ROUNDING], e.g. 2000:0.4"
        ) from None
    rounding = parts[2] if len(parts) == 3 else "half_away"
    if rounding not in ("half_away", "down", "up"):
        raise ConfigError(f"'{rounding}' is not a rounding: use half_away, down or up")
    if not 0 < factor <= 1:
        raise ConfigError(f"the adjustment factor must be above 0 and at most 1, not {parts[1]}")
    return Adjustment(f"{threshold}:{parts[1]}", threshold, factor, rounding)  # type: ignore[arg-type]
