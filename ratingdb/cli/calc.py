"""CLI: `calc` — the rating calculator; parses options, reads --player from the database, prints the steps.

The calculation itself is ratingdb.calculator.elo (pure); this module only reads input and renders output.
The calculator and the rules are imported when the command runs: `ratingdb --help` does not load them.
"""

import csv
import json
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ratingdb.cli.app import TOOLS, app
from ratingdb.cli.calc_rules import PERIOD_TEXT, named_rule_set, rule_set_in_force
from ratingdb.cli.common import check_type, parse_period, transaction, user_errors
from ratingdb.errors import ConfigError, FormatError

if TYPE_CHECKING:
    from ratingdb.calculator.elo import Formula, Game
    from ratingdb.rating import RuleSet
    from ratingdb.reports.player_state import PlayerState

OUTPUT_FORMATS = ("text", "json")


@app.command("calc", rich_help_panel=TOOLS)
@user_errors
def calc_command(
    rating: Annotated[
        str | None,
        typer.Argument(
            metavar="RATING",
            help="Your rating (a whole number), or 'unrated' for an initial rating.",
            show_default=False,
        ),
    ] = None,
    opponent: Annotated[
        int | None,
        typer.Option(
            "--opponent", "-o", metavar="RATING", help="One opponent's rating: shows win, draw and loss."
        ),
    ] = None,
    game: Annotated[
        list[str] | None,
        typer.Option(
            "--game",
            "-g",
            metavar="OPPONENT:SCORE",
            help="A game as OPPONENT:SCORE (1600:1, 1550:0.5, 1400:0); repeatable.",
        ),
    ] = None,
    games_file: Annotated[
        Path | None,
        typer.Option(
            "--games-file", metavar="FILE", help="A CSV file of opponent,score rows (header optional)."
        ),
    ] = None,
    k: Annotated[int | None, typer.Option("--k", metavar="K", help="Your K factor, given directly.")] = None,
    games: Annotated[
        int | None,
        typer.Option("--games", metavar="N", help="Your rated games in total: K is then derived (§8.3.3)."),
    ] = None,
    birth_year: Annotated[
        int | None, typer.Option("--birth-year", metavar="YYYY", help="Birth year, for the junior K.")
    ] = None,
    reached_2400: Annotated[
        bool, typer.Option("--reached-2400", help="Your published rating has reached 2400 (K 10).")
    ] = False,
    reached_2300: Annotated[
        bool, typer.Option("--reached-2300", help="Your published rating has reached 2300 (no junior K 40).")
    ] = False,
    period_games: Annotated[
        int | None,
        typer.Option(
            "--period-games",
            metavar="N",
            help="Rated games in the whole period, if more than given (700 rule).",
        ),
    ] = None,
    opponent_k: Annotated[
        int | None,
        typer.Option("--opponent-k", metavar="K", help="The opponent's K: shows their side of the game too."),
    ] = None,
    no_cap: Annotated[bool, typer.Option("--no-cap", help="Switch off the 400-point rule (§8.3.1).")] = False,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="YYYY-MM|NAME",
            help="The rules in force in this period (e.g. 2024-03: FIDE's, or the set stored in --db that "
            "covers it), or a rule set's name (e.g. standard-2022-01, or a stored one). Default: now.",
        ),
    ] = None,
    rating_type: Annotated[
        str, typer.Option("--type", "-t", metavar="TYPE", help="Rating type: standard, rapid or blitz.")
    ] = "standard",
    formula: Annotated[
        str,
        typer.Option(
            "--formula",
            metavar="FORMULA",
            help="Expected score: table (FIDE table 8.1.2) or logistic (the curve).",
        ),
    ] = "table",
    target: Annotated[
        str | None,
        typer.Option(
            "--target", metavar="CHANGE", help="Goal seeking: the change wanted, e.g. +10 (with --result)."
        ),
    ] = None,
    result: Annotated[
        str | None,
        typer.Option("--result", metavar="RESULT", help="Goal seeking: the result, win, draw or loss."),
    ] = None,
    expected_table: Annotated[
        bool, typer.Option("--expected-table", help="Print expected scores by rating difference.")
    ] = False,
    player: Annotated[
        int | None,
        typer.Option(
            "--player", metavar="FIDE_ID", help="FIDE ID: rating, K state and birth year from the database."
        ),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="Output: text or json.")
    ] = "text",
    system: Annotated[
        str | None,
        typer.Option(
            "--system",
            metavar="SYSTEM",
            help="Rating system: elo (FIDE's), glicko2 or glicko. Default: the rule set's (elo for FIDE's "
            "types).",
        ),
    ] = None,
    deviation: Annotated[
        float | None,
        typer.Option(
            "--deviation",
            "--rd",
            metavar="RD",
            help="Glicko-2: your rating deviation; Glicko: your RD at the onset of the period.",
        ),  # fmt: skip
    ] = None,
    volatility: Annotated[
        float | None, typer.Option("--volatility", metavar="SIGMA", help="Glicko-2: your volatility σ.")
    ] = None,
    tau: Annotated[
        float | None,
        typer.Option("--tau", metavar="TAU", help="Glicko-2: the constant τ (default: the rule set's)"),
    ] = None,
) -> None:
    """Rating calculator: expected score, the change for a win, draw or loss, a whole period, K, the
    700 rule, an initial rating, performance, goal seeking — every step written out with your numbers.

    No database is needed unless --player is given.

    Examples:
      ratingdb calc 1500 --opponent 1700 --k 20
      ratingdb calc 1500 --game 1400:1 --game 1600:0.5 --game 1550:0 --k 20
      ratingdb calc unrated --game 1902:0.5 --game 1877:0.5 --game 1884:1 --game 2012:0 --game 1832:1
    """
    from ratingdb.calculator import elo_text
    from ratingdb.calculator.elo import (
        FORMULAS,
        CalcRequest,
        KState,
        calculate,
        parse_game,
        parse_rating,
        parse_target,
    )

    if output_format not in OUTPUT_FORMATS:
        raise ConfigError(f"'{output_format}' is not an output format: use text or json")
    if system not in (None, "elo", "glicko2", "glicko"):
        raise ConfigError(f"'{system}' is not a rating system: use elo, glicko2 or glicko")
    glicko_only = {"--deviation": deviation, "--volatility": volatility, "--tau": tau}
    if system == "glicko" or (system is None and _is_glicko_type(rating_type, rules)):
        from ratingdb.cli.calc_glicko import glicko_calc

        others = [name for name, value in {**glicko_only, "--deviation": None}.items() if value is not None]
        others += ["--player"] if player is not None else []
        if others:
            raise ConfigError(f"{', '.join(others)}: not an option of Glicko (see calc --help)")
        glicko_calc(rating, game or [], rating_type, rules, deviation, output_format)
        return
    if system == "glicko2" or (system is None and _is_glicko2_type(rating_type, rules)):
        from ratingdb.cli.calc_glicko2 import glicko2_calc

        elo_only = {"--opponent": opponent, "--games-file": games_file, "--k": k, "--games": games,
                    "--birth-year": birth_year, "--period-games": period_games, "--opponent-k": opponent_k,
                    "--target": target, "--result": result}  # fmt: skip
        given = [name for name, value in elo_only.items() if value is not None]
        given += [name for name, flag in (("--reached-2400", reached_2400), ("--reached-2300", reached_2300),
                  ("--no-cap", no_cap), ("--expected-table", expected_table)) if flag]  # fmt: skip
        if formula != "table":
            given.append("--formula")
        if given:
            raise ConfigError(f"{', '.join(given)}: an Elo option, not used by Glicko-2 (see calc --help)")
        glicko2_calc(
            rating, game or [], rating_type, rules, deviation, volatility, tau, output_format, player
        )
        return
    if given_glicko := [name for name, value in glicko_only.items() if value is not None]:
        raise ConfigError(f"{', '.join(given_glicko)}: a Glicko-2 option: add --system glicko2")
    if formula not in FORMULAS:
        raise ConfigError(f"'{formula}' is not a formula: use table or logistic")
    check_type(rating_type)
    chosen_rules, reason, list_date = _rules(rating_type, rules, no_cap)

    own: int | None = None
    if rating is not None:
        own = None if rating.strip().lower() == "unrated" else parse_rating(rating)
        if own is None and rating.strip().lower() != "unrated":
            raise ConfigError(f"'{rating}' is not a rating: give a whole number such as 1500, or 'unrated'")
    derive = games is not None or birth_year is not None or reached_2400 or reached_2300
    if k is not None and derive:
        raise ConfigError(
            "give --k, or --games/--birth-year/--reached-2400/--reached-2300 to derive K, not both"
        )
    if derive and games is None:
        raise ConfigError("deriving K needs --games N (your rated games in total)")
    k_state = None if games is None else KState(games, birth_year, reached_2400, reached_2300)
    k_source: str | None = None
    label: str | None = None

    if player is not None:
        if rating is not None:
            raise ConfigError("give RATING or --player, not both")
        if derive:
            raise ConfigError("--player takes the K state from the database; give --k to override K")
        from ratingdb.reports.player_state import player_state

        with transaction() as session:
            state = player_state(session, player, rating_type)
        own, label = state.rating, _player_label(state)
        if k is None and state.k is not None:
            k, k_source = state.k, f"from the {state.rating_type} list dated {state.list_date.isoformat()}"
        elif k is None:
            k_state = KState(state.games_total, state.birth_year, state.reached_2400, state.reached_2300)
            list_date = state.list_date
    elif rating is None and (not expected_table or opponent is not None or game or games_file or target):
        raise ConfigError("give RATING (or 'unrated'), or --player FIDE_ID")

    game_list = [parse_game(text) for text in game or []]
    if games_file is not None:
        game_list += read_games_file(games_file)

    request = CalcRequest(
        rating=own,
        rules=chosen_rules,
        rules_reason=reason,
        list_date=list_date,
        opponent=opponent,
        games=tuple(game_list),
        k=k,
        k_source=k_source,
        k_state=k_state,
        period_games=period_games,
        opponent_k=opponent_k,
        formula=_formula(formula),
        target=None if target is None else parse_target(target),
        result=result,
        show_expected_table=expected_table,
        player_label=label,
    )
    calculation = calculate(request)
    if output_format == "json":
        typer.echo(json.dumps(elo_text.as_dict(calculation), indent=2, ensure_ascii=False))
    else:
        for line in elo_text.lines(calculation):
            typer.echo(line)


def _is_glicko2_type(rating_type: str, rules: str | None) -> bool:
    """Whether the rule set `--type`/`--rules` choose rates by Glicko-2 (FIDE's three types never do)."""
    from ratingdb.rating import RATING_TYPES

    if rating_type in RATING_TYPES and (rules is None or PERIOD_TEXT.fullmatch(rules.strip())):
        return False
    from ratingdb.cli.calc_glicko2 import glicko2_rules

    return glicko2_rules(rating_type, rules) is not None


def _is_glicko_type(rating_type: str, rules: str | None) -> bool:
    """Whether the rule set `--type`/`--rules` choose rates by Glicko (FIDE's three types never do)."""
    from ratingdb.rating import RATING_TYPES

    if rating_type in RATING_TYPES and (rules is None or PERIOD_TEXT.fullmatch(rules.strip())):
        return False
    from ratingdb.cli.calc_glicko import glicko_rules

    return glicko_rules(rating_type, rules) is not None


def _formula(text: str) -> "Formula":
    from ratingdb.calculator.elo import FORMULAS

    for known in FORMULAS:
        if text == known:
            return known
    raise ConfigError(f"'{text}' is not a formula: use table or logistic")


def _rules(rating_type: str, rules: str | None, no_cap: bool) -> "tuple[RuleSet, str, date]":
    """The rule set of --rules PERIOD or NAME, or of the current period (today's date); the list date."""
    from ratingdb.rating import Period

    today = Period.of(date.today())
    if rules is not None and not PERIOD_TEXT.fullmatch(rules.strip()):
        chosen = named_rule_set(rules.strip())
        # K by the list of the current period, or of the set's nearest period when it is history.
        period = max(today, chosen.effective_from) if chosen.effective_from else today
        period = min(period, chosen.effective_to) if chosen.effective_to else period
        reason = "from --rules"
    else:
        if rules is None:
            period, reason = today, f"in force in {today}, the current period"
        else:
            period, reason = parse_period(rules), f"in force in {rules}, from --rules"
        chosen = rule_set_in_force(rating_type, period)
    if no_cap:
        chosen, reason = chosen.without_cap(), f"{reason}, 400-point rule off by --no-cap"
    return chosen, reason, period.first_day


def _player_label(state: "PlayerState") -> str:
    listed = f"{state.rating_type} list dated {state.list_date.isoformat()}"
    return f"{state.name} (FIDE ID {state.fide_id}), {listed}"


def read_games_file(path: Path) -> "list[Game]":
    """Games from a CSV of `opponent,score` rows; a first row that is not a game is taken as a header."""
    from ratingdb.calculator.elo import Game, parse_rating, parse_score

    name = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"cannot read {name}: {exc.strerror}") from exc
    games: list[Game] = []
    for line_no, row in enumerate(csv.reader(text.splitlines()), start=1):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != 2:
            raise FormatError(name, line_no, None, f"expected 2 columns (opponent,score), found {len(row)}")
        opponent, score = parse_rating(row[0]), parse_score(row[1])
        if line_no == 1 and opponent is None and score is None:
            continue  # a header such as "opponent,score"
        if opponent is None:
            raise FormatError(name, line_no, 1, f"'{row[0].strip()}' is not a rating")
        if score is None:
            raise FormatError(name, line_no, 2, f"the score must be 1, 0.5 or 0, not '{row[1].strip()}'")
        games.append(Game(opponent, score))
    if not games:
        raise FormatError(name, None, None, "no games in the file")
    return games
