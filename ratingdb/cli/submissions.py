"""CLI: `submission list|show|accept|replace|request-changes|reject` — the officer's queue from a terminal.

The same service (ratingdb.services.submissions) as the served site's queue, run with the database's own
rights (whoever can run `import-trf` can run these); the audit log's actor is RATINGDB_USER or the login.
Organisers send files in through the site; everything the officer does there can be done here.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from ratingdb.cli.app import MONTHLY, RatingDbTyper, app
from ratingdb.cli.common import FormatOption, dry_run_heading, render_rows, transaction, user_errors
from ratingdb.cli.import_options import ImportOptions, with_import_options
from ratingdb.cli.output import echo
from ratingdb.errors import ConfigError

submission_app = RatingDbTyper(
    help="Tournament files organisers sent in through the site: the queue, accept, send back.",
    no_args_is_help=True,
)
app.add_typer(submission_app, name="submission", rich_help_panel=MONTHLY)

IdArgument = Annotated[int, typer.Argument(metavar="ID", help="The submission's number.")]
ReasonOption = Annotated[
    str | None, typer.Option("--reason", metavar="TEXT", help="Why (required): the organiser reads it.")
]


@submission_app.command("list")
@user_errors
def list_command(
    fmt: FormatOption = "table",
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            metavar="STATUS",
            help="Only the submissions of this status: submitted (waiting), changes_requested, accepted, "
            "rejected, withdrawn or replaced.",
        ),
    ] = None,
) -> None:
    """The queue: submissions still to decide first (oldest first), then the others (newest first).
    importable: the stored check's outcome while the submission is open; check: "outdated" when it was made
    before the latest import, close or register change (`submission show ID` checks it again)."""
    from ratingdb.schema.models import WebUser
    from ratingdb.services.submissions import queue_rows

    with transaction() as session:
        names = {u.id: u.username for u in session.query(WebUser)}
        rows: list[list[object]] = [
            [r.submission.id, names.get(r.submission.organiser_id, "?"), r.submission.file_name,
             r.submission.rating_type, r.status,
             "" if r.importable is None else "yes" if r.importable else "no",
             "" if r.importable is None else "outdated" if r.outdated else "current",
             r.submission.event_id or ""]
            for r in queue_rows(session, None, status)
        ]  # fmt: skip
    render_rows(
        ["id", "organiser", "file", "type", "status", "importable", "check", "event"], rows, fmt, title=None
    )


def _choices(
    match: list[str] | None, new: list[int] | None, accept_name: list[int] | None, drop: list[int] | None
) -> dict[int, tuple[str, str]]:
    chosen: dict[int, tuple[str, str]] = {}
    for value in match or []:
        rank, sep, ident = value.partition("=")
        if not sep or not rank.strip().isdigit() or not ident.strip():
            raise ConfigError(f"--match '{value}' is not RANK=ID (e.g. --match 7=12345)")
        chosen[int(rank)] = ("match", ident.strip())
    for choice, ranks in (("new", new), ("accept-name", accept_name), ("drop", drop)):
        for line in ranks or []:
            if line in chosen:
                raise ConfigError(f"rank {line} is given two choices: give one")
            chosen[line] = (choice, "")
    return chosen


MatchOption = Annotated[
    list[str] | None,
    typer.Option("--match", metavar="RANK=ID", help="The line of starting RANK is the player with ID ID."),
]
NewOption = Annotated[
    list[int] | None, typer.Option("--new", metavar="RANK", help="The line of starting RANK is a new player.")
]
AcceptNameOption = Annotated[
    list[int] | None,
    typer.Option(
        "--accept-name",
        metavar="RANK",
        help="The line of RANK is its ID's player, spelt another way (alias).",
    ),
]
DropOption = Annotated[
    list[int] | None,
    typer.Option("--drop", metavar="RANK", help="Leave out the line of RANK (a second line without games)."),
]
IdFieldOption = Annotated[
    str | None,
    typer.Option(
        "--id-field",
        metavar="fide|national",
        help="What the ID column of the player lines holds: FIDE IDs (the default) or national IDs.",
    ),
]


@submission_app.command("show")
@user_errors
def show(
    submission_id: IdArgument,
    match: MatchOption = None,
    new: NewOption = None,
    accept_name: AcceptNameOption = None,
    drop: DropOption = None,
    id_field: IdFieldOption = None,
) -> None:
    """The submission and its check now: refusals with line and reason, or how each player line would be
    matched; with --id-field/--match/--new/--accept-name/--drop, checked with those choices. A check with
    no choice is kept as the submission's check (the queue's, as the desk's "Check again" keeps it)."""
    from ratingdb.services.submissions import (
        choices_text,
        corrected_events,
        for_review,
        import_choices,
        keep_check,
        recheck,
        status_of,
    )

    made = import_choices(_choices(match, new, accept_name, drop), None, id_field)
    # A dry-run transaction, as the site's checks: the check's rolled-back import would otherwise leave
    # PostgreSQL's and MariaDB's ID counters advanced (a gap in the next import's event and player IDs).
    with transaction(dry_run=True) as session:
        sub = for_review(session, None, submission_id)
        echo(f"Submission {sub.id}: {sub.file_name} ({sub.rating_type}), {status_of(session, sub)}.")
        if sub.note:
            echo(f"Note: {sub.note}")
        if sub.officer_reason:
            echo(f"Reason given: {sub.officer_reason}")
        check = recheck(session, None, submission_id, made) if sub.status == "submitted" else None
        corrects = corrected_events(session, None, submission_id)
    if check is not None and not choices_text(made):
        with transaction() as session:
            keep_check(session, None, submission_id, check)
    for c in corrects:
        reopen = f"`ratingdb reopen {c.period} --reason TEXT`, then " if c.closed else ""
        echo(
            f"It looks like a corrected version of event {c.event_id} '{c.title}' (period {c.period}; "
            f"{c.shared} of the file's {c.players} players played in it): {reopen}"
            f"`ratingdb submission replace {submission_id} {c.event_id}`"
        )
    if check is None:
        return
    if check.ok:
        echo(f"It can be imported: {check.event}.")
        for r in check.lines:
            if r.how != "id":
                echo(f"  line {r.line} (rank {r.rank}) '{r.name}': {r.how}: {r.confidence}")
    else:
        echo("It cannot be imported as it is:")
        for refusal in check.refusals:
            echo(f"  {refusal.text}")


def _kept_file(command: Callable[..., None]) -> Callable[..., None]:
    """import-trf's options but --max-file-size: the file is the one kept with the submission."""
    return with_import_options(command, ("max_file_size",))


@submission_app.command("accept")
@user_errors
@_kept_file
def accept_command(submission_id: IdArgument, options: ImportOptions) -> None:
    """Import the submission as `import-trf` does, with the options given (every option of import-trf:
    the lines' choices, --id-field, --section, --distinct-event, --period, --closing-days, --official,
    --type, --type-override), and link it to the event. --type: the organiser's type unless given.

    Examples:
      ratingdb submission accept 4
      ratingdb submission accept 5 --accept-name 3 --new 12
      ratingdb submission accept 6 --id-field national
      ratingdb submission accept 7 --section Minor       (another section of a congress accepted before)
    """
    from ratingdb.services.submissions import accept

    made = options.choices([Path("submission")])  # one file: RANK names its lines
    with transaction(dry_run=options.dry_run) as session:
        sub = accept(session, None, submission_id, made)
        event, choices = sub.event_id, sub.choices
    dry_run_heading(options.dry_run)
    echo(
        f"Accepted submission {submission_id}: imported as event {event}"
        + (f" ({choices})." if choices else ".")
    )


@submission_app.command("replace")
@user_errors
@_kept_file
def replace_command(
    submission_id: IdArgument,
    event_id: Annotated[int, typer.Argument(metavar="EVENT", help="The event the file corrects.")],
    options: ImportOptions,
    reason: Annotated[
        str | None, typer.Option("--reason", metavar="TEXT", help="Why (kept in the audit log).")
    ] = None,
) -> None:
    """Replace event EVENT with the submission's file, as `replace-event EVENT FILE` does (the same
    service and options: the file is read with the choices the event was imported with, except those
    given here; --match 10=ID replaces a stored --new 10), and accept the submission as the event's new
    version. `submission show` names the events a file looks like a corrected version of.

    Examples:
      ratingdb submission replace 9 14 --reason "corrected ID of rank 10" --match 10=25900230
      ratingdb submission replace 9 14 --dry-run
    """
    from ratingdb.cli.corrections import print_replacement
    from ratingdb.services.event_warnings import import_warnings
    from ratingdb.services.submissions import replace_with

    made = options.choices([Path("submission")])  # one file: RANK names its lines
    with transaction(dry_run=options.dry_run) as session:
        result = replace_with(session, None, submission_id, event_id, made, reason)
        warnings = import_warnings(session, [result.new_event_id])
    dry_run_heading(options.dry_run)
    print_replacement(result, f"submission {submission_id}", warnings)


@submission_app.command("request-changes")
@user_errors
def request_changes(submission_id: IdArgument, reason: ReasonOption = None) -> None:
    """Send the submission back to its organiser for a corrected file, with --reason."""
    from ratingdb.services.submissions import decide

    with transaction() as session:
        decide(session, None, submission_id, "changes_requested", reason or "")
    echo(f"Asked for changes to submission {submission_id}.")


@submission_app.command("reject")
@user_errors
def reject(submission_id: IdArgument, reason: ReasonOption = None) -> None:
    """Reject the submission, with --reason (the organiser reads it)."""
    from ratingdb.services.submissions import decide

    with transaction() as session:
        decide(session, None, submission_id, "rejected", reason or "")
    echo(f"Rejected submission {submission_id}.")
