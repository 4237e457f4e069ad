"""CLI: `norm check` (one case from JSON) and `report norms` (an imported event): parse, check, render.

The rules are ratingdb.rating.norms; the case reader and the JSON document ratingdb.cli.norm_case;
the event's games and ratings ratingdb.reports.norms. Imported when a command runs, not at start-up.
"""

import contextlib
import csv
import io
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ratingdb.cli.app import TOOLS, RatingDbTyper, app
from ratingdb.cli.common import EventArgument, data_table, read_transaction, stdout_console, user_errors
from ratingdb.cli.output import ForceOption, OutputOption, cell, output_file
from ratingdb.cli.reports import _write_json, report_app
from ratingdb.errors import ConfigError

if TYPE_CHECKING:
    from rich.console import Console

    from ratingdb.rating.norms import NormCheck
    from ratingdb.reports.norms import EventNorms, PlayerNorms

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
    from ratingdb.cli.norm_case import read_norm_case
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
        case = replace(case, norm=norm.upper())
    checks = case.check()
    if fmt == "json":
        from ratingdb.cli.norm_case import check_document

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


def verdict(check: "NormCheck", *, brief: bool = False) -> str:
    return check.verdict(brief=brief)


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


# --- report norms -------------------------------------------------------------------------------------

REPORT_FORMATS = ("table", "json", "it1", "it1-html")


@report_app.command("norms")
@user_errors
def norms_command(
    event_id: EventArgument,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", "-p", metavar="ID", help="One player's full check (FIDE ID or national ID)."
        ),
    ] = None,
    norm: Annotated[
        str | None,
        typer.Option("--norm", metavar="NORM", help="With --format it1: the norm of the certificate."),
    ] = None,
    system: Annotated[
        str | None,
        typer.Option(
            "--system",
            metavar="SYSTEM",
            help="swiss, round_robin, double_round_robin or knockout (default: the file's 092 line, "
            "else swiss).",
        ),
    ] = None,
    team: Annotated[bool, typer.Option("--team", help="A team event (with --min-games 7: 1.4.1b).")] = False,
    min_games: Annotated[
        int,
        typer.Option(
            "--min-games", metavar="N", help="9 (1.4.1a), 7 (1.4.1b, team championships) or 8 (World Cup)."
        ),
    ] = 9,
    national_championship: Annotated[
        bool, typer.Option("--national-championship", help="The final of a national championship (1.4.3a).")
    ] = False,
    national_team_championship: Annotated[
        bool, typer.Option("--national-team-championship", help="A national team championship (1.4.3b).")
    ] = False,
    zonal: Annotated[bool, typer.Option("--zonal", help="A zonal or sub-zonal event (1.4.3c).")] = False,
    swiss_1_4_3d: Annotated[
        bool,
        typer.Option(
            "--swiss-1-4-3d",
            help="Every round had 20 foreign rated players of 3 federations, 10 titled (1.4.3d).",
        ),
    ] = False,
    fmt: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help="table, json, it1 (CSV) or it1-html.")
    ] = "table",
    output: OutputOption = None,
    force: ForceOption = False,
) -> None:
    """Title norms of an imported event: who made a GM, IM, WGM or WIM norm, who missed by what.

    Every player is checked with the ratings of the list in force at the event's start (the list the
    close rates the event with); an event of more than 30 days uses the list in force on each game's day.
    Titles, federations and sex are those that list recorded. What the database cannot know — the
    system when the file does not name it, the exemptions of 1.4.3a–d, the 1.4.1b minimum — are options.
    --player prints one player's full check; --format it1 (CSV) or it1-html writes the figures of the IT1
    certificate for that player's norm.
    """
    if fmt not in REPORT_FORMATS:
        raise ConfigError(f"'{fmt}' is not an output format here: use table, json, it1 or it1-html")
    if fmt.startswith("it1") and player is None:
        raise ConfigError("--format it1 is one player's certificate: give --player ID")
    from ratingdb.rating.norms import NORMS, SYSTEMS
    from ratingdb.reports.norms import NormOptions, event_norms
    from ratingdb.services.players import find_by_id

    if system is not None and system not in SYSTEMS:
        raise ConfigError(f"'{system}' is not a system: use {', '.join(SYSTEMS)}")
    if min_games not in (7, 8, 9):
        raise ConfigError(f"--min-games {min_games}: use 9 (1.4.1a), 7 (1.4.1b) or 8 (World Cup)")
    if norm is not None and norm.upper() not in NORMS:
        raise ConfigError(f"'{norm}' is not a norm: use GM, IM, WGM or WIM")
    options = NormOptions(
        system=system,
        team=team,
        national_championship=national_championship,
        national_team_championship=national_team_championship,
        zonal=zonal,
        swiss_1_4_3d=swiss_1_4_3d,
        min_games=min_games,
    )
    with read_transaction() as session:
        player_id = None
        if player is not None:
            player_id = find_by_id(session, player).id
        report = event_norms(session, event_id, options, player_id=player_id)
    if player is not None and not report.players:
        raise ConfigError(
            f"player {player} did not play in event {event_id}: `ratingdb report event {event_id}` lists them"
        )
    if fmt.startswith("it1"):
        _write_it1(report, norm.upper() if norm else None, fmt, output, force)
        return
    if fmt == "json":
        _write_json(_report_document(report), output, force)
        return
    with console_for(output, force) as out:
        for line in report_heading(report):
            out.print(cell(line), highlight=False)
        if player is not None:
            one = report.players[0]
            out.print(cell(_player_line(one)), highlight=False)
            for note in one.notes:
                out.print(cell(f"  note: {note}"), highlight=False)
            out.print("")
            print_checks(out, one.checks)
            return
        made = [
            [p.start_rank, p.name, p.title, p.federation, c.norm, c.games_counted, _points(c.score),
             c.average_rating, c.performance, verdict(c)]
            for p, c in report.made
        ]  # fmt: skip
        columns = ["rank", "name", "title", "federation", "norm", "games", "score", "Ra", "Rp", "verdict"]
        if made:
            out.print(data_table(columns, made, title="Norms made"))
        else:
            out.print(cell("No player made a norm."), highlight=False)
        near = [[p.start_rank, p.name, p.title, p.federation, verdict(c)] for p, c in report.near_misses]
        if near:
            out.print(
                data_table(["rank", "name", "title", "federation", "near miss"], near, title="Near misses")
            )
        rows = [
            [
                p.start_rank,
                p.name,
                p.title,
                p.federation,
                p.summary(brief=True) or "—",
            ]
            for p in report.players
        ]
        out.print(data_table(["rank", "name", "title", "federation", "norms"], rows, title="Every player"))


def report_heading(report: "EventNorms") -> list[str]:
    """The event, the system, the ratings used and the flags the officer gave."""
    where = ", ".join(x for x in (report.city, report.federation) if x)
    lines = [
        f"Event {report.event_id} '{report.name}'{f' ({where})' if where else ''}, "
        f"{report.start_date.isoformat()} … {report.end_date.isoformat()}, {report.rounds} rounds, "
        f"{report.event.players} players",
        f"System: {report.event.system.replace('_', ' ')} ({report.system_source}).",
        f"Ratings: the list in force at the start, dated {report.ratings_from.isoformat()} "
        "(as the close rates it)." + (f" Note: {report.ratings_note}." if report.ratings_note else ""),
    ]
    lines += [f"Ratings: {note}." for note in report.rating_notes]
    flags = [
        name
        for name, on in (
            ("team event", report.event.team),
            (f"minimum {report.event.min_games} games", report.event.min_games != 9),
            ("national championship (1.4.3a)", report.event.national_championship),
            ("national team championship (1.4.3b)", report.event.national_team_championship),
            ("zonal (1.4.3c)", report.event.zonal),
            ("Swiss of 1.4.3d", report.event.swiss_1_4_3d),
        )
        if on
    ]
    lines.append(
        "Given: " + ", ".join(flags) + "."
        if flags
        else "No exemption (1.4.3a–d) or other minimum (1.4.1b) given: the options set them."
    )
    lines.append(
        "The officer must still confirm the administration rules (1.1, 1.8–1.10): rounds a day, "
        "time control, registration 30 days before, the chief arbiter."
    )
    return lines


def _player_line(p: "PlayerNorms") -> str:
    ids = ", ".join(x for x in (f"FIDE {p.fide_id}" if p.fide_id else "", p.national_id or "") if x)
    title = f"{p.title} " if p.title else ""
    return f"{title}{p.name} ({ids or 'no ID'}), {p.federation or '—'}, start rank {p.start_rank}"


def _report_document(report: "EventNorms") -> dict[str, Any]:
    from ratingdb.cli.norm_case import check_document

    return {
        "event_id": report.event_id,
        "name": report.name,
        "start_date": report.start_date,
        "end_date": report.end_date,
        "rounds": report.rounds,
        "system": report.event.system,
        "system_source": report.system_source,
        "ratings_from": report.ratings_from,
        "ratings_note": report.ratings_note,
        "ratings_per_game": report.per_game,
        "rating_notes": list(report.rating_notes),
        "options": {
            "team": report.event.team,
            "min_games": report.event.min_games,
            "national_championship": report.event.national_championship,
            "national_team_championship": report.event.national_team_championship,
            "zonal": report.event.zonal,
            "swiss_1_4_3d": report.event.swiss_1_4_3d,
        },
        "players": [
            {
                "start_rank": p.start_rank,
                "player_id": p.player_id,
                "fide_id": p.fide_id,
                "national_id": p.national_id,
                "name": p.name,
                "title": p.title,
                "federation": p.federation,
                "sex": p.sex,
                "made": [c.norm for c in p.made],
                "near_misses": [c.norm for c in p.near_misses],
                "summary": p.summary(),
                "notes": list(p.notes),
                "norms": [check_document(c) for c in p.checks],
            }
            for p in report.players
        ],
    }


def _write_it1(report: "EventNorms", norm: str | None, fmt: str, output: Path | None, force: bool) -> None:
    """The figures of the IT1 certificate of the player's norm, as CSV or a printable HTML page."""
    from ratingdb.reports.norms import certificate

    one = report.players[0]
    made = [c.norm for c in one.made]
    if norm is None:
        if not made:
            raise ConfigError(
                f"{one.name} made no norm in event {report.event_id}: "
                f"`ratingdb report norms {report.event_id} --player ID` shows why"
            )
        norm = made[0]
    elif norm not in made:
        raise ConfigError(
            f"{one.name} made no {norm} norm in event {report.event_id}"
            + (f" (made: {', '.join(made)})" if made else "")
            + ": an IT1 certificate is for a norm made"
        )
    cert = certificate(report, one, norm)
    if fmt == "it1-html":
        from ratingdb.site.publish import environment

        page = environment().get_template("it1.html").render(cert=cert)
        if output is None:
            typer.echo(page, nl=False)
        else:
            with output_file(output, force=force) as fh:
                fh.write(page)
        return
    from ratingdb.formats.spreadsheet import spreadsheet_safe

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    rows: list[list[Any]] = [["field", "value"], *[[k, v] for k, v in cert.fields]]
    rows += [[], list(cert.GAME_COLUMNS), *[list(g) for g in cert.games]]
    rows += [[], ["paragraph", "rule", "holds"], *[list(r) for r in cert.rules]]
    for row in rows:
        writer.writerow(["" if v is None else spreadsheet_safe(v) for v in row])
    text = buffer.getvalue()
    if output is None:
        sys.stdout.write(text)
    else:
        with output_file(output, force=force) as fh:
            fh.write(text)
