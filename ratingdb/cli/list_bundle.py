"""CLI: `list bundle DATE` — a published list with everything it was computed from, in one zip (issue 49).

`list` is a command, not a group (`ratingdb list 2025-11-01` shows a list): ratingdb.cli.lists's
ListCommand hands `list bundle …` to the command made here. Registers nothing on the app.
"""

from pathlib import Path
from typing import Annotated, Any

import typer

from ratingdb.cli.app import RatingDbTyper
from ratingdb.cli.common import TypeOption, check_type, parse_date, read_transaction, user_errors
from ratingdb.cli.output import ForceOption, check_output, echo, output_file

bundle_app = RatingDbTyper(add_completion=False)


@bundle_app.command("bundle")
@user_errors
def list_bundle_command(
    date: Annotated[str, typer.Argument(metavar="YYYY-MM-DD", help="The list's date.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", metavar="FILE", help="The bundle's file (a zip).")
    ],
    rating_type: TypeOption = "standard",
    version: Annotated[
        int | None,
        typer.Option("--version", metavar="N", help="That version of the list, withdrawn ones too."),
    ] = None,
    title: Annotated[
        str, typer.Option("--title", metavar="TEXT", help='The federation\'s name, e.g. "Irish Chess Union".')
    ] = "",
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            metavar="FILE",
            envvar="RATINGDB_SIGNING_KEY",
            help="The private key to sign with (default: the file `keys create` wrote).",
        ),
    ] = None,
    force: ForceOption = False,
) -> None:
    """Write a computed list's bundle: the rule set, the list in force, every event rated (TRF16 with its
    matching), the decisions no file holds, the published list and its calculation record, with the
    SHA-256 of each in manifest.json; signed when the federation has a key. `ratingdb verify FILE`
    recomputes the list from it alone.

    Examples:
      ratingdb list bundle 2025-11-01 -o standard-2025-11-01.zip
      ratingdb list bundle 2025-11-01 --type rapid --version 1 -o rapid-2025-11-01-v1.zip
    """
    list_date = parse_date(date)
    check_output(output, force=force)
    from ratingdb.services.bundle import list_bundle
    from ratingdb.services.bundle_keys import signer

    with read_transaction() as session:
        made = list_bundle(
            session,
            check_type(rating_type),
            list_date,
            version=version,
            site_title=title,
            sign=signer(session, key),
        )
    with output_file(output, force=force, binary=True) as fh:
        fh.write(made.data)
    signed = (
        "signed" if made.signed else "unsigned (the federation has no signing key: `ratingdb keys create`)"
    )
    withdrawn = ", a withdrawn version" if made.withdrawn else ""
    echo(
        f"Wrote the bundle of the {made.rating_type} list {made.list_date.isoformat()} (version "
        f"{made.version}{withdrawn}: {made.entries} entries, {made.events} events) to {output}, {signed}."
    )


def bundle_command() -> Any:
    """The click command of `list bundle`."""
    return typer.main.get_command(bundle_app)
