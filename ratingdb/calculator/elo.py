"""The Elo calculator, computing: ratingdb.rating composed into calculations; no SQLAlchemy/Typer/I/O.

A calculation is built from a `CalcRequest` by `calculate`. It holds every figure a player needs to
check it by hand; ratingdb.calculator.elo_text writes it out (the steps as text, the figures for JSON).
The rules come from `ratingdb.rating` only; this module adds the logistic curve shown beside table
8.1.2, and goal seeking by trying opponent ratings through the same rules. Imports only ratingdb.rating
and ratingdb.errors.

Rounding stated once: table values are exact (hundredths). Logistic values are computed in floating
point; the whole-number change (and so the new rating) rounds the unrounded curve value, half away
from zero (§8.3.4). How figures are shown (E to 4 decimals, changes to 1) is elo_text's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Final, Literal

from ratingdb.errors import ConfigError
from ratingdb.rating import (
    DRAW,
    FIDE_2024_INITIAL,
    FIDE_K_RULES,
    LOSS,
    MAX_K_TIMES_GAMES,
    WIN,
    InitialMethod,
    InitialRating,
    Performance,
    Period,
    PoolGame,
    RatedGame,
    RulesError,
    RuleSet,
    capped_difference,
    excluded_by_difference,
    expected_score,
    expected_score_logistic,
    initial_rating,
    k_after_700_rule,
    k_factor,
    performance_linear,
    performance_rating,
    rating_change,
    round_half_away_from_zero,
    upgraded_games,
)

Formula = Literal["table", "logistic"]
FORMULAS: Final[tuple[Formula, ...]] = ("table", "logistic")
RESULTS: Final[dict[str, int]] = {"win": WIN, "draw": DRAW, "loss": LOSS}
EXPECTED_TABLE_DIFFERENCES: Final = (0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 600, 700, 800)
# Goal seeking tries every opponent rating within this distance of the player's own rating; beyond
# ±735 (or ±400 with the cap) table 8.1.2 no longer changes, so a range reaching the edge is open.
GOAL_SEARCH_SPAN: Final = 1000

MINUS: Final = "\u2212"
_RESULT_NAMES: Final = {WIN: "win", DRAW: "draw", LOSS: "loss"}


def whole_points(value: Decimal) -> int:
    """A Decimal rounded to whole points by the rules' own rounding (§8.3.4)."""
    numerator, denominator = value.as_integer_ratio()
    return round_half_away_from_zero(numerator, denominator)


# ---------------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class Game:
    """One game given to the calculator: the opponent's rating and the score in hundredths."""

    opponent: int
    score: int


@dataclass(frozen=True)
class KState:
    """What §8.3.3 derives K from: total rated games, birth year, and the stored 2400/2300 flags."""

    games_total: int
    birth_year: int | None = None
    reached_2400: bool = False
    reached_2300: bool = False


def parse_score(text: str) -> int | None:
    """A game score written 1, 0.5, .5, ½, 1/2, =, or 0 → hundredths; None when it is none of these."""
    cleaned = text.strip().replace(",", ".")
    if cleaned in ("1", "1.0", "1.00", "w", "W"):
        return WIN
    if cleaned in ("0.5", ".5", "0.50", "½", "1/2", "=", "d", "D"):
        return DRAW
    if cleaned in ("0", "0.0", "0.00", "l", "L"):
        return LOSS
    return None


def parse_rating(text: str) -> int | None:
    """A rating written as a whole number from 0 to 3999; None when it is not one."""
    cleaned = text.strip()
    if not (cleaned.isascii() and cleaned.isdigit()) or len(cleaned) > 4:
        return None
    return int(cleaned)


def parse_game(text: str) -> Game:
    """`OPP:SCORE` as the --game option takes it (1600:1, 1550:0.5, 1400:0); ConfigError otherwise."""
    opponent_text, sep, score_text = text.partition(":")
    if not sep:
        raise ConfigError(f"--game '{text}': write the game as OPPONENT:SCORE, e.g. 1600:0.5")
    opponent = parse_rating(opponent_text)
    if opponent is None:
        raise ConfigError(f"--game '{text}': '{opponent_text}' is not a rating (a whole number, e.g. 1600)")
    score = parse_score(score_text)
    if score is None:
        raise ConfigError(f"--game '{text}': the score must be 1, 0.5 (or ½, =) or 0, not '{score_text}'")
    return Game(opponent, score)


def parse_target(text: str) -> int:
    """A goal-seeking target in whole rating points: +10, 10, -5 or −5."""
    cleaned = text.strip().replace(MINUS, "-")
    body = cleaned.lstrip("+-")
    if not body.isdigit() or len(cleaned) - len(body) > 1:
        raise ConfigError(f"--target '{text}' is not a whole number of rating points, e.g. +10 or -5")
    return int(cleaned)


# ---------------------------------------------------------------------------------------------------
# K


@dataclass(frozen=True)
class KChoice:
    """The K used: its source (given, derived by §8.3.3, or from a list) and the 700 rule over n games."""

    base: int
    source: str
    n: int
    k: int
    limit: int = MAX_K_TIMES_GAMES  # the rule set's K × n limit (only shown when it reduced K)


def choose_k(
    *,
    k: int | None,
    state: KState | None,
    list_date: date,
    n: int,
    source: str | None = None,
    rules: RuleSet | None = None,
) -> KChoice:
    """K given directly, or derived from `state` by §8.3.3 on the list dated `list_date`; then the 700 rule.

    `n` is the number of rated games of the period (all events): K 40 with 20 games → 35.
    """
    if k is not None:
        if k <= 0:
            raise ConfigError(f"K must be a positive whole number, not {k}")
        base, why = k, source or "given with --k"
    elif state is not None:
        if state.games_total < 0:
            raise ConfigError(f"the number of rated games cannot be negative ({state.games_total})")
        decision = k_factor(
            reached_2400=state.reached_2400,
            reached_2300=state.reached_2300,
            birth_year=state.birth_year,
            games_total=state.games_total,
            list_date=list_date,
            rules=rules.k_rules if rules is not None else FIDE_K_RULES,
        )
        base, why = decision.k, decision.rule
    else:
        raise ConfigError(
            "K is needed: give --k K, or --games N (with --birth-year and --reached-2400/--reached-2300) "
            "to derive it by the FIDE rules"
        )
    limit = rules.k_times_games_max if rules is not None else MAX_K_TIMES_GAMES
    return KChoice(base=base, source=why, n=n, k=k_after_700_rule(base, n, limit), limit=limit or 0)


# ---------------------------------------------------------------------------------------------------
# One game's expected score


@dataclass(frozen=True)
class Expectation:
    """D (raw and after the 400-point rule), E by table 8.1.2 and E by the logistic curve for one game."""

    own: int
    opponent: int
    d_raw: int
    d: int
    table: int  # hundredths, table 8.1.2
    curve: Decimal  # logistic curve at the same (capped) D
    rules: RuleSet = field(repr=False)

    @classmethod
    def of(cls, own: int, opponent: int, rules: RuleSet, *, upgrade: bool = True) -> Expectation:
        d = capped_difference(own, opponent, rules, upgrade=upgrade)
        curve = Decimal(repr(expected_score_logistic(d)))
        return cls(own, opponent, own - opponent, d, expected_score(d), curve, rules)

    def value(self, formula: Formula) -> Decimal:
        return self.curve if formula == "logistic" else Decimal(self.table).scaleb(-2)

    def curve_minus_table(self) -> Decimal:
        return self.curve - Decimal(self.table).scaleb(-2)


@dataclass(frozen=True)
class Outcome:
    """One result of one game: K × (S − E) by the table and by the curve, the whole change and new rating."""

    score: int
    k: int
    table_x100: int  # K × (S − PD) in hundredths of a point, exact
    curve: Decimal  # K × (S − E curve), unrounded
    change: int  # whole points, by the formula in use
    table_change: int
    new_rating: int
    formula: Formula

    @property
    def result(self) -> str:
        return _RESULT_NAMES[self.score]


def outcome_of(rating: int, opponent: int, score: int, k: int, rules: RuleSet, formula: Formula) -> Outcome:
    expectation = Expectation.of(rating, opponent, rules)
    period = rating_change(rating, k, [RatedGame(rating, opponent, score)], rules)
    curve = k * (Decimal(score).scaleb(-2) - expectation.curve)
    change = whole_points(curve) if formula == "logistic" else period.change
    return Outcome(score, k, period.k_sum_dr, curve, change, period.change, rating + change, formula)


# ---------------------------------------------------------------------------------------------------
# Calculations


_RAPID_BLITZ_EXCLUSION: Final = (
    "not rated: the difference is {diff} or more and a player is rated above {above} "
    "(rapid and blitz rules from 1 December 2024)"
)


def _exclusion(own: int, opponent: int, rules: RuleSet) -> str | None:
    if excluded_by_difference(own, opponent, rules):
        return _RAPID_BLITZ_EXCLUSION.format(diff=rules.exclusion_difference, above=rules.exclusion_above)
    return None


@dataclass(frozen=True)
class SideOfGame:
    """One player's view of a single game: E and the three outcomes (win, draw, loss)."""

    rating: int
    k: KChoice
    expectation: Expectation
    outcomes: tuple[Outcome, ...]


@dataclass(frozen=True)
class SingleGame:
    """One game against one opponent: the player's three outcomes and, with the opponent's K, theirs."""

    player: SideOfGame
    opponent: SideOfGame | None
    excluded: str | None
    formula: Formula


def _side(
    rating: int, opponent: int, k: KChoice, rules: RuleSet, formula: Formula, scores: Sequence[int]
) -> SideOfGame:
    outcomes = tuple(outcome_of(rating, opponent, s, k.k, rules, formula) for s in scores)
    return SideOfGame(rating, k, Expectation.of(rating, opponent, rules), outcomes)


@dataclass(frozen=True)
class GameRow:
    """One row of a period: the game, and its E and S − E unless the game is not rated."""

    number: int
    game: Game
    expectation: Expectation | None
    excluded: str | None

    def dr_table(self) -> int:
        assert self.expectation is not None
        return self.game.score - self.expectation.table

    def dr_curve(self) -> Decimal:
        assert self.expectation is not None
        return Decimal(self.game.score).scaleb(-2) - self.expectation.curve


@dataclass(frozen=True)
class PerformancePair:
    """The performance rating by table 8.1.1 and the linear approximation, each with its rule."""

    table: Performance
    linear: Performance
    wins: int
    losses: int
    n: int


def _performance(games: Sequence[Game]) -> PerformancePair | None:
    if not games:
        return None
    ratings = [g.opponent for g in games]
    wins = sum(1 for g in games if g.score == WIN)
    losses = sum(1 for g in games if g.score == LOSS)
    return PerformancePair(
        performance_rating(ratings, sum(g.score for g in games)),
        performance_linear(ratings, wins, losses),
        wins,
        losses,
        len(games),
    )


@dataclass(frozen=True)
class PeriodCalc:
    """Several games of a rated player (an event or a whole period): rows, total, one rounding, new rating."""

    rating: int
    k: KChoice
    rows: tuple[GameRow, ...]
    score: int  # hundredths, rated games
    sum_dr_table: int  # hundredths
    sum_dr_curve: Decimal
    change_table_x100: int  # K × Σ(S − PD), hundredths
    change_table: int
    change_curve: Decimal
    change: int  # by the formula in use
    new_rating: int
    performance: PerformancePair | None
    formula: Formula

    @property
    def rated(self) -> tuple[GameRow, ...]:
        return tuple(row for row in self.rows if row.expectation is not None)


@dataclass(frozen=True)
class InitialCalc:
    """An unrated player's games against rated opponents → the initial rating of §8.2, or what is missing."""

    games: tuple[Game, ...]
    result: InitialRating
    performance: PerformancePair | None
    method: InitialMethod = FIDE_2024_INITIAL
    floor: int = 1400


@dataclass(frozen=True)
class GoalSeek:
    """Which opponent ratings make one result worth `target` whole points (one game, as on the list)."""

    rating: int
    k: KChoice
    score: int
    target: int
    low: int | None  # lowest opponent rating reaching the target; None if none does
    high: int | None
    open_low: bool  # the range reaches the bottom of the search: "or lower"
    open_high: bool
    achievable_min: int
    achievable_max: int
    rules: RuleSet = field(repr=False)
    formula: Formula


def goal_seek(rating: int, k: KChoice, score: int, target: int, rules: RuleSet, formula: Formula) -> GoalSeek:
    """Opponent ratings making one result worth `target` whole points, by trying each within the span.

    The change of one result is monotonic in the opponent's rating, so the hits form one range.
    """
    bottom, top = max(0, rating - GOAL_SEARCH_SPAN), rating + GOAL_SEARCH_SPAN
    hits: list[int] = []
    changes: list[int] = []
    for opponent in range(bottom, top + 1):
        change = outcome_of(rating, opponent, score, k.k, rules, formula).change
        changes.append(change)
        if change == target:
            hits.append(opponent)
    low, high = (hits[0], hits[-1]) if hits else (None, None)
    return GoalSeek(
        rating=rating,
        k=k,
        score=score,
        target=target,
        low=low,
        high=high,
        open_low=low == bottom,
        open_high=high == top,
        achievable_min=min(changes),
        achievable_max=max(changes),
        rules=rules,
        formula=formula,
    )


@dataclass(frozen=True)
class ExpectedRow:
    """One rating difference: E of the higher- and lower-rated player by table 8.1.2 and by the curve."""

    difference: int
    table_higher: int  # hundredths
    curve_higher: Decimal

    @property
    def table_lower(self) -> int:
        return 100 - self.table_higher

    @property
    def curve_lower(self) -> Decimal:
        return 1 - self.curve_higher


def expected_table(differences: Sequence[int] = EXPECTED_TABLE_DIFFERENCES) -> tuple[ExpectedRow, ...]:
    """Expected scores by rating difference, table 8.1.2 beside the logistic curve (no 400-point rule)."""
    return tuple(
        ExpectedRow(d, expected_score(d), Decimal(repr(expected_score_logistic(d)))) for d in differences
    )


# ---------------------------------------------------------------------------------------------------
# The whole request


@dataclass(frozen=True)
class CalcRequest:
    """Everything `ratingdb calc` can ask: the player, the games, K, the rules, the formula, the extras."""

    rating: int | None  # None: an unrated player (initial rating)
    rules: RuleSet
    rules_reason: str  # how the rule set was chosen, for the header
    list_date: date  # the list in force: K is derived for it
    opponent: int | None = None
    games: tuple[Game, ...] = ()
    k: int | None = None
    k_source: str | None = None  # why K is what it is when given (e.g. "from the list dated ...")
    k_state: KState | None = None
    period_games: int | None = None  # rated games in the period if more than those given (700 rule)
    opponent_k: int | None = None
    formula: Formula = "table"
    target: int | None = None
    result: str | None = None  # win | draw | loss, with target
    show_expected_table: bool = False
    player_label: str | None = None  # e.g. "Jane Doe (FIDE ID 123), standard list 2026-11-01"


@dataclass(frozen=True)
class Calculation:
    """The answer to a CalcRequest: the parts asked for, each with its figures and written-out steps."""

    request: CalcRequest
    k: KChoice | None
    single: SingleGame | None
    period: PeriodCalc | None
    initial: InitialCalc | None
    goal: GoalSeek | None
    table: tuple[ExpectedRow, ...] | None


def calculate(request: CalcRequest) -> Calculation:
    """Run every part the request asks for; ConfigError for a request that does not make sense."""
    try:
        return _calculate(request)
    except RulesError as exc:
        raise ConfigError(str(exc)) from exc


def _check(request: CalcRequest) -> None:
    if request.formula not in FORMULAS:
        raise ConfigError(f"'{request.formula}' is not a formula: use table or logistic")
    if request.opponent is not None and request.games:
        raise ConfigError("give either --opponent or --game/--games-file, not both")
    if request.opponent_k is not None and request.opponent is None:
        raise ConfigError("--opponent-k needs --opponent (the opponent's side of one game)")
    if (request.target is None) != (request.result is None):
        raise ConfigError("goal seeking needs both --target POINTS and --result win|draw|loss")
    if request.result is not None and request.result not in RESULTS:
        raise ConfigError(f"'{request.result}' is not a result: use win, draw or loss")
    if request.period_games is not None and request.period_games < 0:
        raise ConfigError(f"--period-games cannot be negative ({request.period_games})")
    if request.rating is None and request.opponent is not None:
        raise ConfigError("an unrated player is rated from results: give --game OPP:SCORE for each game")
    if request.rating is None and (request.target is not None or request.opponent_k is not None):
        raise ConfigError("an unrated player has no rating change: --target and --opponent-k need a rating")
    for value in (request.rating, request.opponent, *(g.opponent for g in request.games)):
        if value is not None and value < 0:
            raise ConfigError(f"a rating cannot be negative ({value})")
    if not (request.opponent is not None or request.games or request.target is not None):
        if not request.show_expected_table and request.rating is None:
            raise ConfigError("nothing to calculate: give --game OPP:SCORE for an unrated player")


def _calculate(request: CalcRequest) -> Calculation:
    _check(request)
    rules, formula, rating = request.rules, request.formula, request.rating
    games = request.games
    given = [g.opponent for g in games] or ([request.opponent] if request.opponent is not None else [])
    k: KChoice | None = None
    if rating is not None and (
        given or request.target is not None or request.k is not None or request.k_state
    ):
        # The 700 rule counts every rated game of the period: those given here, or --period-games if more.
        rated = sum(1 for opponent in given if _exclusion(rating, opponent, rules) is None)
        n = max(rated, request.period_games or 0, 1)
        k = choose_k(
            k=request.k,
            state=request.k_state,
            list_date=request.list_date,
            n=n,
            source=request.k_source,
            rules=rules,
        )

    single = period = initial = goal = None
    if rating is not None and request.opponent is not None:
        assert k is not None
        scores = (WIN, DRAW, LOSS)
        player = _side(rating, request.opponent, k, rules, formula, scores)
        opponent_side = None
        if request.opponent_k is not None:
            opp_k = choose_k(
                k=request.opponent_k,
                state=None,
                list_date=request.list_date,
                n=1,
                source="given with --opponent-k",
            )
            opponent_side = _side(request.opponent, rating, opp_k, rules, formula, (LOSS, DRAW, WIN))
        single = SingleGame(player, opponent_side, _exclusion(rating, request.opponent, rules), formula)
    elif rating is not None and request.games:
        assert k is not None
        period = _period(rating, request.games, k, rules, formula)
    elif rating is None and games:
        pool_period = Period.of(request.list_date)
        pool = [PoolGame(g.opponent, g.score, pool_period, "calc") for g in games]
        # The calculator does not know which event came first, so §8.2.1 (a zero score in the first
        # event is disregarded) is left to the period close.
        result = initial_rating(
            pool, pool_period, first_event_rule=False, method=rules.initial, floor=rules.floor
        )
        initial = InitialCalc(tuple(games), result, _performance(games), rules.initial, rules.floor)

    if request.target is not None and request.result is not None and rating is not None:
        assert k is not None
        goal = goal_seek(rating, k, RESULTS[request.result], request.target, rules, formula)

    table = expected_table() if request.show_expected_table else None
    return Calculation(request, k, single, period, initial, goal, table)


def _period(rating: int, games: Sequence[Game], k: KChoice, rules: RuleSet, formula: Formula) -> PeriodCalc:
    rows = []
    # The games given are one tournament: under a one-upgrade rule set (2022) only one is capped.
    upgraded = upgraded_games([(rating - game.opponent, None) for game in games], rules)
    for number, game in enumerate(games, start=1):
        excluded = _exclusion(rating, game.opponent, rules)
        upgrade = number - 1 in upgraded
        expectation = None if excluded else Expectation.of(rating, game.opponent, rules, upgrade=upgrade)
        rows.append(GameRow(number, game, expectation, excluded))
    rated = [row for row in rows if row.expectation is not None]
    # K already carries the 700 rule over the whole period (possibly more games than given here), so
    # rating_change's own 700 rule cannot reduce it further.
    change = rating_change(
        rating, k.k, [RatedGame(rating, row.game.opponent, row.game.score) for row in rated], rules
    )
    sum_curve = sum((row.dr_curve() for row in rated), Decimal(0))
    change_curve = k.k * sum_curve
    final = whole_points(change_curve) if formula == "logistic" else change.change
    return PeriodCalc(
        rating=rating,
        k=k,
        rows=tuple(rows),
        score=sum(row.game.score for row in rated),
        sum_dr_table=change.sum_dr,
        sum_dr_curve=sum_curve,
        change_table_x100=change.k_sum_dr,
        change_table=change.change,
        change_curve=change_curve,
        change=final,
        new_rating=rating + final,
        performance=_performance([row.game for row in rated]),
        formula=formula,
    )
