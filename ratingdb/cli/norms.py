"""CLI: `norm check` (one case from JSON) and `report norms` (an imported event): parse, check, render.

The rules are ratingdb.rating.norms; the case reader and the JSON document ratingdb.formats.norm_case;
the event's games and ratings ratingdb.reports.norms. Imported when a command runs, not at start-up.
"""

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ratingdb.cli.app import TOOLS, RatingDbTyper, app
from ratingdb.cli.common import data_table, stdout_console, user_errors
from ratingdb.cli.output import ForceOption, OutputOption, cell, output_file
from ratingdb.cli.reports import _write_json
from ratingdb.errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console

    from ratingdb.rating.norms import NormCheck

norm_app = RatingDbTyper(
    help="FIDE title norms (B.01, 2024): check one player's games for a GM, IM, WGM or WIM norm.",
    no_args_is_help=True,
)
app.add_typer(norm_app, name="norm", rich_help_panel=TOOLS)

CHECK_FORMATS = ("table", "json")


@norm_app.command("check")
@user_errors
def check_command(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE|-", help="The case as JSON (the docs give the schema); - reads standard input."
        ),
    ],
    norm: Annotated[
        str | None, typer.Option("--norm", metavar="NORM", help="Check one norm: GM, IM, WGM or WIM.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help="table or json.")] = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """Check one applicant's games for the GM, IM, WGM and WIM norms, with every figure and rule.

    The case names the applicant (federation, sex, title), the event (rounds, system, exemptions) and the
    games (round, opponent's rating or null, title, federation, result, forfeit, bye). The verdict of each
    norm lists the games counted and set aside, the opponent raised to the floor, Ra, p, dp, Rp and each
    rule of B.01 with its paragraph; games B.01 lets be left out (1.4.1e/f) are left out if that gives it.
    """
    if fmt not in CHECK_FORMATS:
        raise ConfigError(f"'{fmt}' is not an output format here: use table or json")
    from ratingdb.formats.norm_case import read_norm_case
    from ratingdb.rating.norms import NORMS

    if norm is not None and norm.upper() not in NORMS:
        raise ConfigError(f"'{norm}' is not a norm: use GM, IM, WGM or WIM")
    if file == "-":
        text, source = sys.stdin.read(), "standard input"
    else:
        path = Path(file)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise ConfigError(f"there is no file {file} — give the path of a norm case (JSON)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"{file} cannot be read as a UTF-8 text file ({exc.__class__.__name__})"
            ) from None
        source = file
    case = read_norm_case(text, source)
    if norm is not None:
        from dataclasses import replace

        case = replace(case, norm=norm.upper())
    checks = case.check()
    if fmt == "json":
        from ratingdb.formats.norm_case import check_document

        _write_json({"norms": [check_document(c) for c in checks]}, output, force)
        return
    with console_for(output, force) as out:
        print_checks(out, checks)


@contextlib.contextmanager
def console_for(output: Path | None, force: bool) -> Any:
    from rich.console import Console

    if output is None:
        yield stdout_console()
        return
    with output_file(output, force=force) as fh:
        yield Console(file=fh, width=200)


def verdict(check: "NormCheck") -> str:
    """'GM norm met' or 'GM: Rp 2566 < 2600', with what was left out or used to get there."""
    if check.met:
        extras = []
        if check.left_out:
            extras.append("leaving out round " + ", ".join(str(r) for r in check.left_out_rounds)
                          + " (" + "/".join(sorted({x.paragraph for x in check.left_out})) + ")")  # fmt: skip
        if check.forfeit_credit_round is not None:
            extras.append(f"8 games + forfeit/bye in round {check.forfeit_credit_round} (1.4.1c)")
        if check.forfeit_as_loss_round is not None:
            extras.append(f"round {check.forfeit_as_loss_round} forfeit counted as a loss (1.4.2c)")
        if check.exemption is not None:
            extras.append(f"federations exempt by {check.exemption}")
        return f"{check.norm} norm met" + (f" ({'; '.join(extras)})" if extras else "")
    failed = "; ".join(rule.text for rule in check.failed_rules)
    short = ""
    if check.points_short is not None:
        short = f" — {_points(check.points_short)} point{'' if check.points_short <= 100 else 's'} short"
    return f"{check.norm}: {failed}{short}"


def _points(x100: int) -> str:
    whole, rest = divmod(x100, 100)
    if rest == 50:
        return f"{whole}½" if whole else "½"
    return str(whole)


def print_checks(out: "Console", checks: Sequence["NormCheck"]) -> None:
    """Each norm: the verdict, the rules with their paragraphs, the games counted and those set aside."""
    for check in checks:
        out.print(cell(verdict(check)), highlight=False)
        if check.already_holds:
            out.print(
                cell(f"  (the applicant already holds {check.norm} or a higher title)"), highlight=False
            )
        figures = (
            f"  games {check.games_counted} (credited {check.games_credited}), score {_points(check.score)}, "
            f"Ra {check.average_rating} (sum {check.rating_sum}), p {check.percentage} %, dp {check.dp}, "
            f"Rp {check.performance}"
        )
        out.print(cell(figures), highlight=False)
        rules = [[r.paragraph, r.text, "yes" if r.passed else "NO"] for r in check.rules]
        out.print(data_table(["paragraph", "rule", "holds"], rules, title=f"{check.norm} norm: the rules"))
        games = [
            [g.round, g.opponent, g.title, g.federation, "unrated" if g.rating is None else g.rating,
             g.counted_rating, _points(g.score), g.note]
            for g in check.games
        ]  # fmt: skip
        columns = ["round", "opponent", "title", "federation", "rating", "counted", "result", "note"]
        out.print(data_table(columns, games, title=f"{check.norm} norm: the games counted"))
        aside = [[x.round, x.paragraph, x.reason] for x in (*check.excluded, *check.left_out)]
        if aside:
            out.print(data_table(["round", "paragraph", "set aside"], aside, title="not counted or left out"))
        for note in check.notes:
            out.print(cell(f"  note: {note}"), highlight=False)
        out.print("")
