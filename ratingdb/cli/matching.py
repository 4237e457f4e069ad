"""CLI: the matching options every command that reads player lines takes, defined once, and their output.

`import-trf` and `replace-event` (and any later command that reads events) declare the same parameters
with these Annotated types and turn them into a `ratingdb.services.matching.Matching` with
`matching_choices`; `print_matching` prints the summary line and the lines worth a look. No SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ratingdb.cli.output import echo
from ratingdb.errors import ConfigError

if TYPE_CHECKING:
    from ratingdb.services.list_matching import ListMatching
    from ratingdb.services.matching import Matching, MatchReport, RegisterDifference

IdFieldOption = Annotated[
    str,
    typer.Option(
        "--id-field",
        metavar="fide|national",
        help="What the ID column of the player lines (cols 58–68) holds: FIDE IDs or national IDs.",
    ),
]
MatchOption = Annotated[
    list[str] | None,
    typer.Option(
        "--match",
        metavar="RANK=ID",
        help="The line of starting RANK is the player with FIDE or national ID ID. With several files: "
        "FILE:RANK=ID.",
    ),
]
NewOption = Annotated[
    list[str] | None,
    typer.Option(
        "--new",
        metavar="RANK",
        help="The line of starting RANK is a new player, really (registered without an ID another player "
        "or line has). With several files: FILE:RANK.",
    ),
]
AcceptNameOption = Annotated[
    list[str] | None,
    typer.Option(
        "--accept-name",
        metavar="RANK",
        help="The line of starting RANK is the registered player of its ID, spelt another way: the "
        "spelling is recorded as an alias, so the next file matches. With several files: FILE:RANK.",
    ),
]
DropOption = Annotated[
    list[str] | None,
    typer.Option(
        "--drop",
        metavar="RANK",
        help="Leave out the line of starting RANK: a second line of a player, without games (refused if "
        "it has games). With several files: FILE:RANK.",
    ),
]
NationalIdStartOption = Annotated[
    int,
    typer.Option(
        "--national-id-start",
        envvar="RATINGDB_NATIONAL_ID_START",
        min=1,
        metavar="N",
        help="First national ID given to a player registered without any ID (a federation setting).",
    ),
]


# `import-list` names a row by its line in the file (a list has no starting ranks).
LineMatchOption = Annotated[
    list[str] | None,
    typer.Option(
        "--match",
        metavar="LINE=ID",
        help="The row on LINE of the file is the registered player with FIDE or national ID ID (the "
        "entry is theirs; their IDs stay).",
    ),
]
LineNewOption = Annotated[
    list[str] | None,
    typer.Option(
        "--new", metavar="LINE", help="The row on LINE is a new player, really (not a typo in the ID)."
    ),
]
MatchCertainOption = Annotated[
    bool,
    typer.Option(
        "--match-certain",
        help="A row whose new ID fits exactly one registered player by name, birth year and federation "
        "(without an ID of that kind, on no other row) is that player: the ID is recorded for them. "
        "A federation's first FIDE list over players registered by national ID; other rows refused as ever.",
    ),
]
LineAcceptNameOption = Annotated[
    list[str] | None,
    typer.Option(
        "--accept-name",
        metavar="LINE",
        help="The row on LINE is the registered player of its ID, renamed: the row's name is taken, the "
        "registered one kept as an alias.",
    ),
]


def list_matching_choices(
    file: Path,
    *,
    match: Sequence[str] | None = None,
    new: Sequence[str] | None = None,
    accept_name: Sequence[str] | None = None,
    match_certain: bool = False,
) -> ListMatching:
    """The options of `import-list` as the list matching step takes them; a malformed one is refused."""
    from ratingdb.services.list_matching import ListMatching

    def line(option: str, value: str) -> int:
        if not value.strip().isdigit():
            example = "--match 12=12345" if option == "--match" else f"{option} 12"
            raise ConfigError(f"{option} '{value}' does not name a line of the file (e.g. {example})")
        return int(value)

    matches: dict[int, str] = {}
    for value in match or []:
        target, sep, ident = value.partition("=")
        if not sep or not ident.strip():
            raise ConfigError(f"--match '{value}' is not LINE=ID (e.g. --match 12=12345, or --new 12)")
        matches[line("--match", target)] = ident.strip()
    return ListMatching(
        file.name,
        matches=matches,
        new=frozenset(line("--new", v) for v in new or []),
        accept_names=frozenset(line("--accept-name", v) for v in accept_name or []),
        match_certain=match_certain,
    )


def matching_choices(
    files: Sequence[Path],
    *,
    id_field: str = "fide",
    match: Sequence[str] | None = None,
    new: Sequence[str] | None = None,
    accept_name: Sequence[str] | None = None,
    drop: Sequence[str] | None = None,
    start: int = 1,
) -> Matching:
    """The options as the matching service takes them; a malformed value is refused naming it."""
    from ratingdb.services.matching import Matching

    if id_field not in ("fide", "national"):
        raise ConfigError(f"--id-field '{id_field}' is not fide or national")
    names = {f.name for f in files}
    ranks = {
        option: _ranks(option, values or [], names, len(files))
        for option, values in (("--new", new), ("--accept-name", accept_name), ("--drop", drop))
    }
    matches = _matches(match or [], names, len(files))
    for option, refs in ranks.items():
        both = refs & set(matches)
        if both:
            file, rank = min(both, key=lambda r: (r[0] or "", r[1]))
            raise ConfigError(f"--match and {option} both name rank {rank}: give one")
    both_drop = ranks["--drop"] & (ranks["--new"] | ranks["--accept-name"])
    if both_drop:
        raise ConfigError(
            f"--drop and another option both name rank {min(r for _, r in both_drop)}: give one"
        )
    return Matching(
        id_field=id_field,
        matches=matches,
        new=frozenset(ranks["--new"]),
        accept_names=frozenset(ranks["--accept-name"]),
        drops=frozenset(ranks["--drop"]),
        start=start,
    )


def _target(option: str, value: str, target: str, names: set[str], count: int) -> tuple[str | None, int]:
    file, colon, rank_text = target.rpartition(":")
    if not (rank_text.strip().isascii() and rank_text.strip().isdigit()):
        example = "--match 7=12345" if option == "--match" else f"{option} 7"
        raise ConfigError(f"{option} '{value}' does not name a starting rank (e.g. {example})")
    if colon and Path(file).name not in names:
        raise ConfigError(f"{option} '{value}': {file} is not one of the files given")
    if not colon and count > 1:
        raise ConfigError(f"{option} '{value}': several files are given, so name the file: FILE:{target}")
    return (Path(file).name if colon else None, int(rank_text))


def _ranks(option: str, values: Sequence[str], names: set[str], count: int) -> set[tuple[str | None, int]]:
    return {_target(option, v, v, names, count) for v in values}


def _matches(values: Sequence[str], names: set[str], count: int) -> dict[tuple[str | None, int], str]:
    """`--match RANK=ID` (one file) or `FILE:RANK=ID` → {(file name or None, rank): ID or "new"}."""
    chosen: dict[tuple[str | None, int], str] = {}
    for value in values:
        target, sep, ident = value.partition("=")
        if not sep or not ident.strip():
            raise ConfigError(f"--match '{value}' is not RANK=ID (e.g. --match 7=12345, or --new 7)")
        chosen[_target("--match", value, target, names, count)] = ident.strip()
    return chosen


def print_matching(report: MatchReport) -> None:
    """The summary line, then each line not matched exactly (with how), aliases recorded, lines dropped."""
    typer.echo(report.summary())
    for r in report.worth_a_look():
        echo(f"  {r.file} line {r.line} (rank {r.rank}) '{r.name}': {r.confidence}")
    for alias in report.aliases:
        echo(f"  alias recorded: {alias}")
    for dropped in report.dropped:
        echo(f"  dropped: {dropped}")
    print_differences(report)


# `ratingdb player edit`'s option for each attribute a register difference is about.
EDIT_OPTIONS = {
    "federation": "--federation",
    "sex": "--sex",
    "birth_year": "--birth-year",
    "title": "--title",
}
SHOWN_WORDS = {"federation": "federation", "sex": "sex", "birth_year": "born", "title": "title"}


def difference_line(d: RegisterDifference) -> str:
    """ "FILE line 15 (rank 1) 'NAME': federation IRL in the file, ROS registered — `ratingdb player
    edit 4191 --federation IRL --reason TEXT` takes the file's" """
    what = SHOWN_WORDS[d.attribute]
    had = f"{d.registered} registered" if d.registered else "none registered"
    return (
        f"{d.file} line {d.line} (rank {d.rank}) '{d.name}' is {d.player}: {what} {d.in_file} in the file, "
        f"{had} — `ratingdb player edit {d.ident} {EDIT_OPTIONS[d.attribute]} {d.in_file} --reason TEXT` "
        "takes the file's"
    )


def print_differences(report: MatchReport) -> None:
    """The files whose sex column was not taken, then the register differences (the register kept its)."""
    for u in report.uniform_sex:
        done = []
        if u.registered:
            done.append(f"{u.registered} player{'s' if u.registered != 1 else ''} registered without one")
        if u.contradicted:
            done.append(f"the register's kept for {u.contradicted} it contradicts")
        echo(
            f"  note: {u.file}: the sex column is {u.letter} on all {u.lines} lines, which says nothing "
            f"about "
            f"anyone's sex: {' and '.join(done)}"
        )
    if report.differences:
        count = len(report.differences)
        echo(
            f"Register differences: {count} detail{'s' if count != 1 else ''} in the files "
            f"{'differ' if count != 1 else 'differs'} from the register, which keeps its own (the lines are "
            "imported):"
        )
        for d in report.differences:
            echo(f"  {difference_line(d)}")
