"""CLI: the `player` group — show, find, add, edit, merge, duplicates, differences; `ratingdb player ID`
still shows."""

from pathlib import Path
from typing import Annotated, Any

import typer

from ratingdb.cli.app import LOOKUP, RatingDbGroup, RatingDbTyper, app
from ratingdb.cli.common import (
    DryRunOption,
    FormatOption,
    OnlyTypeOption,
    check_type,
    dry_run_heading,
    player_heading,
    render_rows,
    transaction,
    user_errors,
)
from ratingdb.cli.matching import (
    AcceptNameOption,
    DropOption,
    IdFieldOption,
    MatchOption,
    NewOption,
    matching_choices,
    print_differences,
)
from ratingdb.errors import ConfigError


class _PlayerGroup(RatingDbGroup):
    """`ratingdb player ID` (no sub-command) means `ratingdb player show ID`, as it did before the group."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["show", *args]
        return super().resolve_command(ctx, args)


player_app = RatingDbTyper(
    cls=_PlayerGroup,
    no_args_is_help=True,
    help="The player register: show, find, add, edit, merge and list likely duplicates.",
)
app.add_typer(player_app, name="player", rich_help_panel=LOOKUP)

IdArgument = Annotated[str, typer.Argument(metavar="ID", help="FIDE ID or national ID.")]
ReasonOption = Annotated[
    str, typer.Option("--reason", metavar="TEXT", help="Why: kept in the audit log with the change.")
]
NationalStart = Annotated[
    int,
    typer.Option(
        "--national-id-start",
        envvar="RATINGDB_NATIONAL_ID_START",
        min=1,
        metavar="N",
        help="First national ID given to a player registered without any ID (a federation setting).",
    ),
]


@player_app.command("show")
@user_errors
def show_command(
    ident: IdArgument,
    rating_type: OnlyTypeOption = None,
    fmt: FormatOption = "table",
) -> None:
    """A player's details (every version) and ratings, changes, K and flags on every list."""
    from ratingdb.reports.lists import player_history
    from ratingdb.services.players import alias_history, find_by_id, versions

    if rating_type is not None:
        check_type(rating_type)
    with transaction() as session:
        player = find_by_id(session, ident)
        history = player_history(session, player, rating_type)
        title = player_heading(player)
        changes = [
            [v.version, a.created_at, a.action, v.name, v.federation, v.sex, v.title, v.birth_year,
             v.fide_id, v.national_id, "yes" if v.deceased else "", a.detail]
            for v, a in versions(session, player.id)
        ]  # fmt: skip
        aliases = [
            [a.name, e.created_at, e.action, e.reason or e.detail]
            for a, e in alias_history(session, player.id)
        ]
        from ratingdb.reports.systems import SHOWN, player_figures

        figures = player_figures(session, player.id)  # beyond the entries (a Glicko-2 list's RD)
    rows: list[list[object]] = [
        [h.rating_type, h.list_date, h.origin, h.rating, h.change, h.games, h.k, h.flag] for h in history
    ]
    columns = ["type", "list_date", "origin", "rating", "change", "games", "k", "flag"]
    for system in SHOWN.values():  # each system with figures of the player adds its columns (even
        # where --type leaves none of its rows: the table's columns do not depend on the filter)
        if not system.cli_columns or all(system.cli_cells(f) is None for f in figures.values()):
            continue
        cells = [system.cli_cells(figures.get((h.rating_type, h.list_date))) for h in history]
        columns += system.cli_columns
        for row, h, own in zip(rows, history, cells, strict=True):
            if own is not None:  # its change as the system writes it (Glicko-2's to hundredths)
                row[4] = system.cli_change(h.change, figures.get((h.rating_type, h.list_date)))
            row += own if own is not None else [None] * len(system.cli_columns)
    if fmt == "table":
        typer.echo(title)
        render_rows(
            ["version", "when", "by", "name", "fed", "sex", "title", "born", "fide_id", "national_id",
             "deceased", "what"],
            changes,
            "table",
            title="Details, every version",
        )  # fmt: skip
        if aliases:
            render_rows(["alias", "when", "by", "why"], aliases, "table", title="Other spellings (aliases)")
    render_rows(columns, rows, fmt)


FIND_COLUMNS = [
    "score",
    "fide_id",
    "national_id",
    "name",
    "federation",
    "sex",
    "title",
    "birth_year",
    "found_by",
]


@player_app.command("find")
@user_errors
def find_command(
    text: Annotated[
        str,
        typer.Argument(
            metavar="TEXT",
            help='A name or part of one ("Last, First" or "First Last"; case, accents and small typos '
            "forgiven) or an ID.",
        ),
    ],
    federation: Annotated[
        str | None, typer.Option("--federation", metavar="FED", help="Only this federation, e.g. IRL.")
    ] = None,
    born: Annotated[int | None, typer.Option("--born", metavar="YYYY", help="Only this birth year.")] = None,
    fmt: FormatOption = "table",
    limit: Annotated[int, typer.Option(min=1, metavar="N", help="At most N players.")] = 50,
) -> None:
    """Find registered players by FIDE ID, national ID or name, best match first, with its score.

    A name is matched word by word: a word that starts a word of the name scores 100, a misspelt one
    its rapidfuzz similarity (75 or more: "Fitzsimmons" finds "Fitzsimons, Ciarán"); the score is the
    mean over the words given. The player's aliases (other spellings on record, `player show` lists them)
    are searched as names too; found_by names the alias a player was found through.

    Examples:
      ratingdb player find fitzsimmons
      ratingdb player find "ciaran fitz" --federation IRL --format json
      ratingdb player find 2500035
    """
    from ratingdb.services.players import search_players

    with transaction() as session:
        found = search_players(session, text, federation=federation, born=born, limit=limit)
        rows = [[round(f.score), *(getattr(f.player, c) for c in FIND_COLUMNS[1:-1]), f.why] for f in found]
    if not rows and fmt == "table":
        typer.echo(f"No registered player matches '{text}'.")
        return
    render_rows(FIND_COLUMNS, rows, fmt)


def _details_options(
    name: str | None,
    federation: str | None,
    sex: str | None,
    title: str | None,
    birth_year: int | None,
    fide_id: int | None,
    national_id: str | None,
) -> dict[str, Any]:
    """The details given on the command line, checked by the register's service (the site's player page
    checks its form with the same function)."""
    from ratingdb.services.register import check_details

    return check_details(name, federation, sex, title, birth_year, fide_id, national_id)


NameOption = Annotated[str | None, typer.Option("--name", metavar="NAME", help="'Last, First'.")]
FedOption = Annotated[
    str | None, typer.Option("--federation", metavar="FED", help="Three letters, e.g. IRL.")
]
SexOption = Annotated[str | None, typer.Option("--sex", metavar="M|F", help="M or F.")]
TitleOption = Annotated[str | None, typer.Option("--title", metavar="TITLE", help="GM, IM, FM, CM, WGM …")]
BornOption = Annotated[
    int | None, typer.Option("--birth-year", metavar="YYYY", help="Year of birth (K for juniors).")
]
FideOption = Annotated[int | None, typer.Option("--fide-id", metavar="ID", help="The player's FIDE ID.")]
NationalOption = Annotated[
    str | None, typer.Option("--national-id", metavar="ID", help="The federation's own ID for the player.")
]


@player_app.command("add")
@user_errors
def add_command(
    name: Annotated[str, typer.Option("--name", metavar="NAME", help="'Last, First'.")],
    fide_id: FideOption = None,
    national_id: NationalOption = None,
    federation: FedOption = None,
    sex: SexOption = None,
    title: TitleOption = None,
    birth_year: BornOption = None,
    start: NationalStart = 1,
    dry_run: DryRunOption = False,
) -> None:
    """Register a player; without --fide-id or --national-id the next free national ID is given."""
    from ratingdb.services.players import Details, add_player, describe, similar_players

    given = _details_options(name, federation, sex, title, birth_year, fide_id, national_id)
    with transaction(dry_run=dry_run) as session:
        player = add_player(session, Details(**given), start=start)
        line = f"Registered {describe(player)}."
        similar = similar_players(session, player.name, exclude={player.id})
        similar_lines = [describe(p) for p in similar]
    dry_run_heading(dry_run)
    typer.echo(line)
    if similar:
        typer.echo("Similar registered players (if one is the same person, `ratingdb player merge`):")
        for text in similar_lines:
            typer.echo(f"  {text}")


@player_app.command("edit")
@user_errors
def edit_command(
    ident: IdArgument,
    reason: ReasonOption,
    name: NameOption = None,
    federation: FedOption = None,
    sex: SexOption = None,
    title: TitleOption = None,
    birth_year: BornOption = None,
    fide_id: FideOption = None,
    national_id: NationalOption = None,
    deceased: Annotated[
        bool | None,
        typer.Option("--deceased/--alive", help="Mark the player deceased (or not).", show_default=False),
    ] = None,
    add_alias: Annotated[
        list[str] | None,
        typer.Option(
            "--add-alias",
            metavar="NAME",
            help="Another spelling files use for this player (kept with the reason; matching uses it).",
        ),
    ] = None,
    dry_run: DryRunOption = False,
) -> None:
    """Correct a player's details (a new version; the reason is kept).

    Published lists keep showing the details they were published with; the next close uses the new
    ones (a corrected birth year changes K from the next list on). A changed name keeps the old one as
    an alias, so files that still spell it so are matched.
    """
    from ratingdb.services.register import check_alias, correct_player

    given = _details_options(name, federation, sex, title, birth_year, fide_id, national_id)
    if deceased is not None:
        given["deceased"] = deceased
    spellings = [check_alias(a) for a in add_alias or []]
    with transaction(dry_run=dry_run) as session:
        done = correct_player(session, ident, given, spellings, reason)
    dry_run_heading(dry_run)
    if done.changed:
        typer.echo(
            f"Player {done.player_id} {done.name}: "
            + ", ".join(f"{c} {_shown(before)} → {_shown(after)}" for c, before, after in done.changed)
            + "."
        )
    if done.kept_alias:
        typer.echo(f"Player {done.player_id} {done.name}: the old name '{done.kept_alias}' kept as an alias.")
    for spelling in done.aliases:
        typer.echo(f"Player {done.player_id} {done.name}: alias '{spelling}' added.")


@player_app.command("differences")
@user_errors
def differences_command(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE...", help="Tournament report files (TRF16 or TRF26).")
    ],
    id_field: IdFieldOption = "fide",
    match: MatchOption = None,
    new: NewOption = None,
    accept_name: AcceptNameOption = None,
    drop: DropOption = None,
) -> None:
    """The register differences of the files: where a line its ID and name identify gives another
    federation, sex, birth year or title than the register, with the `player edit` that takes the file's.

    Nothing is written. The lines are matched as `import-trf` matches them (same options); the register
    keeps its own details on import, so these are what an officer may want to take from the files.

    Examples:
      ratingdb player differences galway-open.trf
      ratingdb player differences bunratty-minor.tab --id-field national
    """
    from ratingdb.formats import read_trf
    from ratingdb.services.matching import file_differences

    for f in files:
        if not f.is_file():
            raise ConfigError(f"{f}: no such file")
    matching = matching_choices(
        files, id_field=id_field, match=match, new=new, accept_name=accept_name, drop=drop
    )
    parsed = [read_trf(f) for f in files]
    with transaction(dry_run=True) as session:
        report = file_differences(session, parsed, matching)
    print_differences(report)
    if not report.differences:
        typer.echo("No register differences: every detail the files give agrees with the register.")


def _shown(value: object) -> str:
    return "—" if value is None else str(value)


@player_app.command("merge")
@user_errors
def merge_command(
    ids: Annotated[
        list[str],
        typer.Argument(
            metavar="DUPLICATE... KEEP",
            help="FIDE or national IDs: one or more duplicates, then the player to keep (fide:N or "
            "national:N names the kind).",
        ),
    ],
    reason: ReasonOption,
    dry_run: DryRunOption = False,
) -> None:
    """Merge duplicate registrations into the player kept (the last ID), all in one transaction.

    Each duplicate's events of open periods move to KEEP, its IDs find KEEP from now on, and its name is
    kept as an alias of KEEP. KEEP takes the higher title of the two, and the duplicate's birth year and
    FIDE ID if it has none; each line says what was taken. Refused (nothing merged) when a duplicate and
    KEEP played in one event or a duplicate has games in a closed period.

    Examples:
      ratingdb player merge 10301 25900012 --reason "registered twice"
      ratingdb player merge 10301 10302 25900012 --reason "one person, three registrations"
    """
    from ratingdb.services.register import merge_into

    with transaction(dry_run=dry_run) as session:
        details = merge_into(session, ids[:-1], ids[-1], reason)
    dry_run_heading(dry_run)
    for merged in details:
        typer.echo(f"Done: {merged.detail}.")


@player_app.command("duplicates")
@user_errors
def duplicates_command(
    fmt: FormatOption = "table",
    limit: Annotated[int, typer.Option(min=1, metavar="N", help="At most N pairs.")] = 200,
) -> None:
    """Likely duplicate registrations, the one to keep first, with the merge command to run.

    Pairs with the same name and birth year, or very similar names in the same federation and birth
    year. The player to keep is the one on more lists (then the one with a FIDE ID, then the older).
    """
    from ratingdb.services.players import describe, likely_duplicates, player_ident

    with transaction() as session:
        pairs = likely_duplicates(session, limit=limit)
        rows = [
            [
                describe(d.keep),
                describe(d.duplicate),
                d.why,
                f"keep: on {d.keep_lists} list(s), the duplicate on {d.duplicate_lists}",
                f"ratingdb player merge {player_ident(session, d.duplicate)} {player_ident(session, d.keep)} "
                "--reason '...'",
            ]
            for d in pairs
        ]
    if not rows and fmt == "table":
        typer.echo("No likely duplicates.")
        return
    render_rows(["keep", "possible duplicate", "why", "direction", "to merge"], rows, fmt)
