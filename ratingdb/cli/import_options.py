"""CLI: the options of every command that reads a tournament file into an event, defined once.

`import-trf` and `replace-event` take them through `@import_options`: the decorator adds each field of
`ImportOptions` to the command's parameters (Typer reads the signature) and hands the command one
`ImportOptions` as its `options` argument. An option added here is an option of both commands. A value
left out is None, "not given": `import-trf` then uses the default, `replace-event` the choice the
replaced event was imported with (ratingdb.services.choices). No SQLAlchemy at import time.
"""

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_type_hints

import typer

from ratingdb.cli.common import DryRunOption, check_type, parse_period
from ratingdb.cli.matching import matching_choices
from ratingdb.errors import ConfigError
from ratingdb.formats.limits import MAX_TRF_BYTES, SECTION

if TYPE_CHECKING:
    from ratingdb.formats import TrfEvent
    from ratingdb.services.choices import ImportChoices

R = TypeVar("R")

AS_IMPORTED = "replace-event: as the event was imported"
# The switches an event keeps: replace-event takes the stored one unless given, either way.
SWITCH_OFF = "replace-event: as the event was imported unless given; --no-… switches it off"


@dataclass(frozen=True)
class ImportOptions:
    """The options of `import-trf` and `replace-event` (see the module); each field is one option."""

    rating_type: Annotated[
        str | None,
        typer.Option(
            "--type",
            "-t",
            metavar="TYPE",
            help=f"standard, rapid or blitz; default: from the file's time control, record 222, 122 or 092 "
            f"({AS_IMPORTED}).",
        ),
    ] = None
    type_override: Annotated[
        bool | None,
        typer.Option(
            "--type-override/--no-type-override",
            help="Accept --type even where the file's time control (record 222 or 092) says another type "
            f"({SWITCH_OFF}).",
            show_default=False,
        ),
    ] = None
    official: Annotated[
        bool | None,
        typer.Option(
            "--official/--no-official",
            help=f"Official FIDE event (closing date 1 day before the list; {SWITCH_OFF}).",
            show_default=False,
        ),
    ] = None
    closing_days: Annotated[
        int | None,
        typer.Option(
            "--closing-days",
            envvar="RATINGDB_CLOSING_DAYS",
            metavar="DAYS",
            min=0,
            help="Days before a list date that events must end by to be rated on it (§7.1.3; a federation "
            "setting, FIDE and the default use 3). Official FIDE events (--official) use 1.",
        ),
    ] = None
    period: Annotated[
        str | None,
        typer.Option(
            metavar="YYYY-MM",
            help=f"Rate in this later period (a late report, at most the third list, §9.1; {AS_IMPORTED}).",
        ),
    ] = None
    id_field: Annotated[
        str | None,
        typer.Option(
            "--id-field",
            metavar="fide|national",
            help="What the ID column of the player lines (cols 58–68) holds: FIDE IDs (the default) or "
            f"national IDs ({AS_IMPORTED}).",
        ),
    ] = None
    federation_column: Annotated[
        str | None,
        typer.Option(
            "--federation-column",
            metavar="clubs|mixed|federations",
            help="What the federation column of the player lines (cols 54–56) holds: FIDE federations (the "
            "default; any other value refuses the file), clubs, or mixed (FIDE codes are federations, the "
            f"rest clubs) ({AS_IMPORTED}).",
        ),
    ] = None
    match: Annotated[
        list[str] | None,
        typer.Option(
            "--match",
            metavar="RANK=ID",
            help="The line of starting RANK is the player with FIDE or national ID ID. With several files: "
            "FILE:RANK=ID.",
        ),
    ] = None
    new: Annotated[
        list[str] | None,
        typer.Option(
            "--new",
            metavar="RANK",
            help="The line of starting RANK is a new player, really (registered without an ID another "
            "player or line has). With several files: FILE:RANK.",
        ),
    ] = None
    accept_name: Annotated[
        list[str] | None,
        typer.Option(
            "--accept-name",
            metavar="RANK",
            help="The line of starting RANK is the registered player of its ID, spelt another way: the "
            "spelling is recorded as an alias, so the next file matches. With several files: FILE:RANK.",
        ),
    ] = None
    drop: Annotated[
        list[str] | None,
        typer.Option(
            "--drop",
            metavar="RANK",
            help="Leave out the line of starting RANK: a second line of a player, without games (refused "
            "if it has games). With several files: FILE:RANK.",
        ),
    ] = None
    distinct_event: Annotated[
        bool | None,
        typer.Option(
            "--distinct-event/--no-distinct-event",
            help="Accept a file whose tournament name and start date match a stored event: a genuinely "
            "different tournament, not a corrected copy (those are refused: correct an event with "
            "replace-event, which keeps this as the event was imported; --no-distinct-event switches it "
            "off).",
            show_default=False,
        ),
    ] = None
    section: Annotated[
        str | None,
        typer.Option(
            "--section",
            metavar="NAME",
            help="The section of a congress this file is (Masters, Major, …): stored with the event and "
            f'shown as "Bunratty 2011 — Major" ({AS_IMPORTED}).',
        ),
    ] = None
    national_id_start: Annotated[
        int | None,
        typer.Option(
            "--national-id-start",
            envvar="RATINGDB_NATIONAL_ID_START",
            min=1,
            metavar="N",
            help="First national ID given to a player registered without any ID (a federation setting; "
            "default 1).",
        ),
    ] = None
    max_file_size: Annotated[
        int,
        typer.Option(
            "--max-file-size",
            envvar="RATINGDB_TRF_MAX_BYTES",
            metavar="BYTES",
            min=1,
            help="Refuse a file larger than this: a tournament report has kilobytes, not megabytes.",
        ),
    ] = MAX_TRF_BYTES
    # Not a choice about the file: never stored with the event (ImportChoices has no such field).
    dry_run: DryRunOption = False

    def read(self, files: Sequence[Path]) -> "list[TrfEvent]":
        """The files, parsed (a missing or oversized file is refused naming it)."""
        for f in files:
            if not f.is_file():
                raise ConfigError(f"{f}: no such file")
        from ratingdb.formats import read_trf

        return [read_trf(f, max_bytes=self.max_file_size) for f in files]

    def choices(self, files: Sequence[Path]) -> "ImportChoices":
        """The choices as the services take them; a malformed value is refused naming its option."""
        from ratingdb.services.choices import ImportChoices

        if self.rating_type is not None:
            check_type(self.rating_type)
        section = None if self.section is None else " ".join(self.section.split())
        if section is not None and len(section) > SECTION:
            raise ConfigError(f"--section is longer than {SECTION} characters: give a short name")
        matching = matching_choices(
            files,
            id_field=self.id_field or "fide",
            match=self.match,
            new=self.new,
            accept_name=self.accept_name,
            drop=self.drop,
            start=self.national_id_start or 1,
        )
        return ImportChoices(
            rating_type=self.rating_type,
            type_override=self.type_override,
            official=self.official,
            closing_days=self.closing_days,
            period=parse_period(self.period) if self.period else None,
            distinct=self.distinct_event,
            section=section,
            id_field=self.id_field,
            federation_column=self.federation_column,
            matches=matching.matches if self.match else None,
            new=matching.new if self.new else None,
            accept_names=matching.accept_names if self.accept_name else None,
            drops=matching.drops if self.drop else None,
            national_id_start=self.national_id_start,
        )


def import_options(command: Callable[..., R]) -> Callable[..., R]:
    """Add ImportOptions' fields to `command`'s parameters; `command` receives them as `options=`."""
    return with_import_options(command)


def with_import_options(command: Callable[..., R], leave_out: tuple[str, ...] = ()) -> Callable[..., R]:
    """import_options, without the fields named in `leave_out` (they keep their defaults): `submission
    accept` reads a file kept in the database, which no --max-file-size concerns."""
    signature = inspect.signature(command)
    hints = get_type_hints(ImportOptions, include_extras=True)
    own = [p for name, p in signature.parameters.items() if name != "options"]
    taken = [f for f in fields(ImportOptions) if f.name not in leave_out]
    added = [
        inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=hints[f.name], default=f.default)
        for f in taken
    ]
    names = [f.name for f in taken]

    @wraps(command)
    def with_options(*args: Any, **kwargs: Any) -> R:
        given = {name: kwargs.pop(name) for name in names if name in kwargs}
        return command(*args, options=ImportOptions(**given), **kwargs)

    with_options.__signature__ = signature.replace(parameters=[*own, *added])  # type: ignore[attr-defined]
    with_options.__annotations__ = {
        **{p.name: p.annotation for p in own},
        **{f.name: hints[f.name] for f in taken},
        "return": signature.return_annotation,
    }
    return with_options
