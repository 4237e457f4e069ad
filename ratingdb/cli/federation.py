"""CLI: `federation show|set` — the federation's settings, stored once (ratingdb.services.federation)."""

from typing import Annotated

import typer

from ratingdb.cli.app import SETUP, RatingDbTyper, app
from ratingdb.cli.common import DryRunOption, dry_run_heading, transaction, user_errors

federation_app = RatingDbTyper(
    help="The federation's settings: how ratingdb numbers the players it registers without any ID.",
    no_args_is_help=True,
)
app.add_typer(federation_app, name="federation", rich_help_panel=SETUP)


@federation_app.command("show")
@user_errors
def show_command() -> None:
    """How ratingdb numbers the players it registers without any ID."""
    from ratingdb.services.federation import numbering

    with transaction(dry_run=True) as session:
        rule = numbering(session)
    typer.echo(f"National IDs: {rule.describe()}.")


@federation_app.command("set")
@user_errors
def set_command(
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why: kept in the audit log with the change.")
    ],
    national_ids: Annotated[
        str | None,
        typer.Option(
            "--national-ids",
            metavar="numbers|prefix|none",
            help="Whether ratingdb issues national IDs to players registered without any ID: numbers (after "
            "the highest registered, from --national-id-start), prefix (--national-id-prefix and a "
            "number: never one of the federation's), or none.",
        ),
    ] = None,
    start: Annotated[
        int | None,
        typer.Option("--national-id-start", metavar="N", help="The first number of `numbers`."),
    ] = None,
    prefix: Annotated[
        str | None,
        typer.Option(
            "--national-id-prefix", metavar="TEXT", help="The prefix of `prefix`, e.g. R (R1, R2 …)."
        ),
    ] = None,
    dry_run: DryRunOption = False,
) -> None:
    """Set how ratingdb numbers the players it registers without any ID (stored once, audited).

    A number ratingdb makes up must never be one the federation's own files carry: with a prefix no
    federation number has (R1, R2 …), or with none at all, it cannot be. import-trf's
    --national-id-start overrides it for one import.

    Examples:
      ratingdb federation set --national-ids prefix --national-id-prefix R --reason "ICU numbers are ours"
      ratingdb federation set --national-ids none --reason "the ICU numbers every player"
    """
    from ratingdb.services.federation import set_numbering

    with transaction(dry_run=dry_run) as session:
        before, after = set_numbering(session, mode=national_ids, start=start, prefix=prefix, reason=reason)
    dry_run_heading(dry_run)
    typer.echo(f"National IDs: {after.describe()} (was: {before.describe()}).")
