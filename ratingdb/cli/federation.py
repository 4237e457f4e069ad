"""CLI: `federation show|set|renumber`: the federation's settings, stored once (services.federation)."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from ratingdb.cli.app import SETUP, RatingDbTyper, app
from ratingdb.cli.common import DryRunOption, dry_run_heading, transaction, user_errors
from ratingdb.errors import ConfigError

federation_app = RatingDbTyper(
    help="The federation's settings: how ratingdb numbers the players it registers without any ID, the "
    "pattern of the federation's own national IDs, and renumbering numbers ratingdb made up.",
    no_args_is_help=True,
)
app.add_typer(federation_app, name="federation", rich_help_panel=SETUP)

# Where each setting a refusal names is given on the command line (services.federation.SettingRefused).
OPTIONS = {
    "mode": "--national-ids",
    "start": "--national-id-start",
    "prefix": "--national-id-prefix",
    "pattern": "--national-id-pattern",
    "range": "--numbers",
    "reason": "--reason",
}


@contextmanager
def worded() -> Iterator[None]:
    """A refused setting as the terminal words it: its option, then the sentence."""
    from ratingdb.services.federation import SettingRefused

    try:
        yield
    except SettingRefused as refused:
        raise ConfigError(f"{OPTIONS[refused.setting]}: {refused}") from None


@federation_app.command("show")
@user_errors
def show_command() -> None:
    """How ratingdb numbers the players it registers without any ID, and the federation's ID pattern."""
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
    pattern: Annotated[
        str | None,
        typer.Option(
            "--national-id-pattern",
            metavar="REGEX",
            help="The shape of the federation's own national IDs, a regular expression the whole ID must "
            "match (e.g. '[0-9]{1,5}'; '' removes it): an ID column holding such IDs is not read as FIDE "
            "IDs, and a numbering whose first number has that shape is refused.",
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
      ratingdb federation set --national-id-pattern '[0-9]{1,5}' --reason "ICU numbers: 1 to 5 digits"
    """
    from ratingdb.services.federation import set_numbering

    with worded(), transaction(dry_run=dry_run) as session:
        before, after = set_numbering(
            session, mode=national_ids, start=start, prefix=prefix, pattern=pattern, reason=reason
        )
    dry_run_heading(dry_run)
    typer.echo(f"National IDs: {after.describe()} (was: {before.describe()}).")


@federation_app.command("renumber")
@user_errors
def renumber_command(
    numbers: Annotated[
        str,
        typer.Option(
            "--numbers",
            metavar="FROM-TO",
            help="The national IDs ratingdb made up, as a range of numbers (e.g. 1-34: the import "
            "summaries said 'national ID assigned').",
        ),
    ],
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why: kept in the audit log with the change.")
    ],
    dry_run: DryRunOption = False,
) -> None:
    """Give the players whose national IDs ratingdb made up new ones by the federation's numbering.

    Each old number is kept as the player's old ID: a file written before, with the old number and the
    player's name, still finds them; a file with the number and another name is the federation's own
    number of someone else. Set the numbering first (a prefix, or none), and try it with --dry-run.

    Example:
      ratingdb federation renumber --numbers 1-34 --dry-run --reason "made up before the R prefix"
    """
    from ratingdb.services.federation import renumber

    low, dash, high = numbers.partition("-")
    if not (dash and low.strip().isdigit() and high.strip().isdigit()):
        raise ConfigError(f"--numbers '{numbers}' is not a range of numbers such as 1-34")
    with worded(), transaction(dry_run=dry_run) as session:
        done = renumber(session, low=int(low), high=int(high), reason=reason)
    dry_run_heading(dry_run)
    for d in done:
        typer.echo(f"{d.name}: national {d.old} → {d.new or 'none'} (old number kept)")
    typer.echo(f"{len(done)} player{'s' if len(done) != 1 else ''} renumbered.")
