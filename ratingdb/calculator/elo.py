"""The rating calculator: ratingdb.rating composed into calculations with every step; no SQLAlchemy/Typer/I/O.

A calculation is built from a `CalcRequest` by `calculate`. It holds every figure (for JSON) and the
steps written out with the player's own numbers (for text), so a player can check it by hand. The
rules come from `ratingdb.rating` only; this module adds presentation: formatting, the logistic curve
shown beside table 8.1.2, and goal seeking by trying opponent ratings through the same rules.

Rounding stated once: table values are exact (hundredths). Logistic values are computed in floating
point, shown with E to 4 decimals and changes to 1 decimal, half away from zero; the whole-number
change (and so the new rating) rounds the unrounded curve value, half away from zero (§8.3.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final, Literal

from ratingdb.errors import ConfigError
from ratingdb.rating import (
    DRAW,
    EXPECTED_SCORE_MAX_DIFFERENCE,
    EXPECTED_SCORE_TABLE,
    FIDE_2024_INITIAL,
    FIDE_K_RULES,
    HYPOTHETICAL_GAMES,
    HYPOTHETICAL_OPPONENT,
    INITIAL_RATING_CAP,
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
_FOUR: Final = Decimal("0.0001")
_ONE: Final = Decimal("0.1")
_LABELS: Final = {WIN: "Win", DRAW: "Draw", LOSS: "Loss"}
_RESULT_NAMES: Final = {WIN: "win", DRAW: "draw", LOSS: "loss"}
_VERBS: Final = {WIN: "win", DRAW: "draw", LOSS: "lose"}
_THIRD_PERSON: Final = {WIN: "wins", DRAW: "draws", LOSS: "loses"}


# ---------------------------------------------------------------------------------------------------
# Formatting: the text a player reads. Signs use the true minus sign, as printed rating rules do.


def _signed_int(value: int) -> str:
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"{MINUS}{-value}"
    return "0"


def _hundredths(x100: int, *, signed: bool = False) -> str:
    """An exact value in hundredths with one or two decimals: 720 → 7.2, 1568 → 15.68, 2000 → 20.0."""
    whole, frac = divmod(abs(x100), 100)
    text = f"{whole}.{frac:02d}"
    if text.endswith("0"):
        text = text[:-1]
    return _with_sign(text, x100, signed)


def _with_sign(text: str, value: int | Decimal, signed: bool) -> str:
    if value < 0:
        return MINUS + text
    return ("+" + text) if signed else text


def _expected(x100: int) -> str:
    """An expected score in hundredths, always two decimals: 24 → 0.24, 100 → 1.00."""
    return f"{x100 // 100}.{x100 % 100:02d}"


def _score(x100: int) -> str:
    return {WIN: "1", DRAW: "0.5", LOSS: "0"}.get(x100, _hundredths(x100))


def _total_score(x100: int) -> str:
    whole, frac = divmod(x100, 100)
    return str(whole) if frac == 0 else f"{whole}.{frac:02d}".rstrip("0")


def _decimal(value: Decimal, quantum: Decimal, *, signed: bool = False) -> str:
    rounded = value.quantize(quantum, rounding=ROUND_HALF_UP)  # half away from zero
    return _with_sign(f"{abs(rounded)}", rounded, signed)


def _round(value: Decimal) -> int:
    """A Decimal rounded to whole points by the rules' own rounding (§8.3.4)."""
    numerator, denominator = value.as_integer_ratio()
    return round_half_away_from_zero(numerator, denominator)


def _num(value: Decimal) -> float:
    return float(value)


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


def rules_description(rules: RuleSet) -> str:
    """One sentence on the 400-point rule (§8.3.1) of a rule set."""
    if rules.cap is None:
        return "the 400-point rule is off"
    if rules.one_upgrade_per_tournament:
        return (
            f"a difference above {rules.cap} counts as {rules.cap} for the higher-rated player, in one game "
            "per tournament: the one with the greatest difference (2022 rules)"
        )
    if rules.cap_exempt_from is not None:
        return (
            f"a difference above {rules.cap} counts as {rules.cap} for players rated below "
            f"{rules.cap_exempt_from} (§8.3.1)"
        )
    return f"a difference above {rules.cap} counts as {rules.cap} for every player (§8.3.1)"


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

    @property
    def rule_700(self) -> str | None:
        """The 700-rule step with the numbers, when it reduced K (§8.3.3)."""
        if self.k == self.base:
            return None
        return (
            f"{self.limit} rule: K × n = {self.base} × {self.n} = {self.base * self.n} > {self.limit} "
            f"→ K = floor({self.limit} / {self.n}) = {self.k} (§8.3.3)"
        )

    def lines(self) -> list[str]:
        text = [f"K: {self.base} — {self.source}"]
        if self.rule_700 is not None:
            text.append(self.rule_700)
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "source": self.source,
            "games_in_period": self.n,
            "k": self.k,
            "rule_700": self.rule_700,
        }


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

    def shown(self, formula: Formula) -> str:
        return _decimal(self.curve, _FOUR) if formula == "logistic" else _expected(self.table)

    def difference_step(self) -> str:
        head = f"D = {self.own} − {self.opponent} = {_signed_int(self.d_raw)}"
        rules = self.rules
        if self.d != self.d_raw:
            return f"{head}, counted as {_signed_int(self.d)} (400-point rule, §8.3.1)"
        if rules.cap is not None and abs(self.d_raw) > rules.cap and rules.one_upgrade_per_tournament:
            why = "the lower-rated player" if self.d_raw < 0 else "the one upgrade went to a greater D"
            return f"{head} (not capped: {why}, 2022 rules)"
        if rules.cap is not None and abs(self.d_raw) > rules.cap:
            return f"{head} (not capped: {self.own} is rated {rules.cap_exempt_from} or above, §8.3.1)"
        if rules.cap is None and abs(self.d_raw) > 400:
            return f"{head} (400-point rule off)"
        return head

    def table_step(self) -> str:
        abs_d = abs(self.d)
        higher = self.table if self.d >= 0 else 100 - self.table
        if abs_d > EXPECTED_SCORE_MAX_DIFFERENCE:
            band = f"|D| = {abs_d} is above {EXPECTED_SCORE_MAX_DIFFERENCE}"
        else:
            low = 0
            for bound, _ in EXPECTED_SCORE_TABLE:
                if abs_d <= bound:
                    band = f"|D| = {abs_d} is in {low}–{bound}"
                    break
                low = bound + 1
        shown = _expected(self.table)
        text = f"E = {shown} (table 8.1.2: {band} → {_expected(higher)} for the higher-rated player"
        if self.d < 0:
            text += f"; D < 0, so E = 1 − {_expected(higher)} = {_expected(self.table)}"
        return text + ")"

    def curve_step(self) -> str:
        exponent = format((Decimal(-self.d) / Decimal(400)).normalize(), "f")
        exponent = exponent.replace("-", MINUS)
        return f"E = 1 / (1 + 10^(−D/400)) = 1 / (1 + 10^({exponent})) = {self.shown('logistic')}"

    def curve_minus_table(self) -> Decimal:
        return self.curve - Decimal(self.table).scaleb(-2)

    def steps(self, formula: Formula) -> list[str]:
        if formula == "logistic":
            diff = _decimal(self.curve_minus_table(), _FOUR, signed=True)
            return [
                self.difference_step(),
                f"{self.curve_step()} (logistic curve; table 8.1.2 gives {_expected(self.table)}, "
                f"difference {diff})",
            ]
        return [
            self.difference_step(),
            self.table_step(),
            f"Logistic curve, for comparison only: {self.curve_step()}",
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "own_rating": self.own,
            "opponent_rating": self.opponent,
            "difference": self.d_raw,
            "difference_used": self.d,
            "expected_table": _num(Decimal(self.table).scaleb(-2)),
            "expected_curve": float(self.curve),
        }


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

    def line(self, expectation: Expectation, *, rating: int, label: str | None = None) -> str:
        label = label or f"{_LABELS[self.score] + ':':<5}"
        e_text = expectation.shown(self.formula)
        head = f"{label} K × (S − E) = {self.k} × ({_score(self.score)} − {e_text})"
        if self.formula == "logistic":
            table = f"{_hundredths(self.table_x100, signed=True)} → {rating + self.table_change}"
            return (
                f"{head} ≈ {_decimal(self.curve, _ONE, signed=True)} → {_signed_int(self.change)} → "
                f"{self.new_rating} (table 8.1.2: {table})"
            )
        return (
            f"{head} = {_hundredths(self.table_x100, signed=True)} → {_signed_int(self.change)} → "
            f"{self.new_rating}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "score": self.score / 100,
            "k": self.k,
            "change_table": self.table_x100 / 100,
            "change_curve": float(self.curve),
            "change_curve_shown": _num(self.curve.quantize(_ONE, rounding=ROUND_HALF_UP)),
            "change": self.change,
            "change_table_rounded": self.table_change,
            "new_rating": self.new_rating,
        }


def _outcome(rating: int, opponent: int, score: int, k: int, rules: RuleSet, formula: Formula) -> Outcome:
    expectation = Expectation.of(rating, opponent, rules)
    period = rating_change(rating, k, [RatedGame(rating, opponent, score)], rules)
    curve = k * (Decimal(score).scaleb(-2) - expectation.curve)
    change = _round(curve) if formula == "logistic" else period.change
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "rating": self.rating,
            "k": self.k.as_dict(),
            **self.expectation.as_dict(),
            "outcomes": {o.result: o.as_dict() for o in self.outcomes},
        }


@dataclass(frozen=True)
class SingleGame:
    """One game against one opponent: the player's three outcomes and, with the opponent's K, theirs."""

    player: SideOfGame
    opponent: SideOfGame | None
    excluded: str | None
    formula: Formula

    def lines(self) -> list[str]:
        p = self.player
        text = [f"Game: {p.rating} against {p.expectation.opponent}", *p.expectation.steps(self.formula)]
        if self.excluded is not None:
            return [*text, f"This game is {self.excluded}."]
        text += [o.line(p.expectation, rating=p.rating) for o in p.outcomes]
        if self.opponent is not None:
            o = self.opponent
            text += [f"Opponent {o.rating}:", *(f"  {line}" for line in o.k.lines())]
            text += [f"  {step}" for step in o.expectation.steps(self.formula)]
            for outcome, mine in zip(o.outcomes, p.outcomes, strict=True):
                label = f"If you {_VERBS[mine.score]}, {o.rating} {_THIRD_PERSON[outcome.score]}:"
                text.append(f"  {outcome.line(o.expectation, rating=o.rating, label=label)}")
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.player.as_dict(),
            "not_rated": self.excluded,
            "opponent": None if self.opponent is None else self.opponent.as_dict(),
        }


def _side(
    rating: int, opponent: int, k: KChoice, rules: RuleSet, formula: Formula, scores: Sequence[int]
) -> SideOfGame:
    outcomes = tuple(_outcome(rating, opponent, s, k.k, rules, formula) for s in scores)
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

    def lines(self) -> list[str]:
        t, lin = self.table, self.linear
        sign = "+" if lin.dp >= 0 else MINUS
        return [
            f"Performance, {t.method}: Ra {t.ra}, {t.percentage} % → dp {_signed_int(t.dp)} → {t.rating} "
            f"— rule used: {t.rule}",
            f"Performance, {lin.method}: Ra {lin.ra} {sign} {abs(lin.dp)} = {lin.rating} "
            f"— rule used: {lin.rule}",
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            key: {
                "rating": perf.rating,
                "average_opponent": perf.ra,
                "percentage": perf.percentage,
                "dp": perf.dp,
                "method": perf.method,
                "rule": perf.rule,
            }
            for key, perf in (("table", self.table), ("linear", self.linear))
        }


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


_ROW_HEADER: Final = (
    f"{'Game':>4}  {'Opponent':>8}  {'S':>3}  {'D':>5}  {'E':>6}  {'S − E':>7}  {'K × (S − E)':>11}"
)


def _row_line(row: GameRow, k: int, formula: Formula) -> str:
    head = f"{row.number:>4}  {row.game.opponent:>8}  {_score(row.game.score):>3}"
    if row.expectation is None:
        return f"{head}  {row.excluded}"
    e = row.expectation
    if formula == "logistic":
        dr, kdr = (
            _decimal(row.dr_curve(), _FOUR, signed=True),
            _decimal(k * row.dr_curve(), _ONE, signed=True),
        )
    else:
        dr, kdr = _hundredths(row.dr_table(), signed=True), _hundredths(k * row.dr_table(), signed=True)
    return f"{head}  {_signed_int(e.d):>5}  {e.shown(formula):>6}  {dr:>7}  {kdr:>11}"


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

    def lines(self) -> list[str]:
        k = self.k.k
        text = [f"Games: {len(self.rows)} (rated: {len(self.rated)})", _ROW_HEADER]
        text += [_row_line(row, k, self.formula) for row in self.rows]
        n = len(self.rated)
        text.append(f"Score: {_total_score(self.score)} / {n}")
        if self.formula == "logistic":
            sum_text = _decimal(self.sum_dr_curve, _FOUR, signed=True)
            table = f"{_hundredths(self.change_table_x100, signed=True)} → {self.rating + self.change_table}"
            text += [
                f"Σ(S − E) = {sum_text}",
                f"Change: K × Σ(S − E) = {k} × {sum_text.lstrip('+')} ≈ "
                f"{_decimal(self.change_curve, _ONE, signed=True)} → {_signed_int(self.change)} "
                f"(rounded once, half away from zero, §8.3.4; table 8.1.2: {table})",
            ]
        else:
            sum_text = _hundredths(self.sum_dr_table, signed=True)
            text += [
                f"Σ(S − E) = {sum_text}",
                f"Change: K × Σ(S − E) = {k} × {sum_text.lstrip('+')} = "
                f"{_hundredths(self.change_table_x100, signed=True)} → {_signed_int(self.change)} "
                "(rounded once for the period, half away from zero, §8.3.4)",
            ]
        sign = MINUS if self.change < 0 else "+"
        text.append(f"New rating: {self.rating} {sign} {abs(self.change)} = {self.new_rating}")
        if self.performance is not None:
            text += self.performance.lines()
        return text

    def as_dict(self) -> dict[str, Any]:
        rows = []
        for row in self.rows:
            item: dict[str, Any] = {
                "game": row.number,
                "opponent_rating": row.game.opponent,
                "score": row.game.score / 100,
                "not_rated": row.excluded,
            }
            if row.expectation is not None:
                item |= row.expectation.as_dict()
                item |= {
                    "s_minus_e_table": row.dr_table() / 100,
                    "s_minus_e_curve": float(row.dr_curve()),
                    "k_times_s_minus_e_table": self.k.k * row.dr_table() / 100,
                    "k_times_s_minus_e_curve": float(self.k.k * row.dr_curve()),
                }
            rows.append(item)
        return {
            "rating": self.rating,
            "k": self.k.as_dict(),
            "games": rows,
            "rated_games": len(self.rated),
            "score": self.score / 100,
            "sum_s_minus_e_table": self.sum_dr_table / 100,
            "sum_s_minus_e_curve": float(self.sum_dr_curve),
            "change_table_unrounded": self.change_table_x100 / 100,
            "change_table": self.change_table,
            "change_curve_unrounded": float(self.change_curve),
            "change_curve": _round(self.change_curve),
            "change": self.change,
            "new_rating": self.new_rating,
            "performance": None if self.performance is None else self.performance.as_dict(),
        }


@dataclass(frozen=True)
class InitialCalc:
    """An unrated player's games against rated opponents → the initial rating of §8.2, or what is missing."""

    games: tuple[Game, ...]
    result: InitialRating
    performance: PerformancePair | None
    method: InitialMethod = FIDE_2024_INITIAL
    floor: int = 1400

    def lines(self) -> list[str]:
        if self.method.name != "fide-2024":
            return self._other_method_lines()
        r = self.result
        text = [
            "Unrated player: initial rating from the games against rated opponents (§8.2)",
            f"{'Game':>4}  {'Opponent':>8}  {'S':>3}",
        ]
        text += [f"{i:>4}  {g.opponent:>8}  {_score(g.score):>3}" for i, g in enumerate(self.games, start=1)]
        text += [
            f"{'H' + str(i):>4}  {HYPOTHETICAL_OPPONENT:>8}  {_score(DRAW):>3}  hypothetical draw (§8.2.2)"
            for i in range(1, HYPOTHETICAL_GAMES + 1)
        ]
        if r.status == "too_few_games":
            more = "game" if r.games_needed == 1 else "games"
            text.append(
                f"Not yet rated: {r.n} of the 5 games needed; {r.games_needed} more {more} "
                "against rated opponents needed (§8.2)"
            )
        else:
            hyp = HYPOTHETICAL_GAMES * HYPOTHETICAL_OPPONENT
            n2 = r.n + HYPOTHETICAL_GAMES
            ra = _fraction2(r.ra_rounded.numerator * 100 // r.ra_rounded.denominator)
            wins = _total_score(r.wins_x100)
            assert r.unrounded is not None
            unrounded = round_half_away_from_zero(100 * r.unrounded.numerator, r.unrounded.denominator)
            whole = round_half_away_from_zero(r.unrounded.numerator, r.unrounded.denominator)
            text += [
                f"Ra = (Σ opponents + {HYPOTHETICAL_GAMES} × {HYPOTHETICAL_OPPONENT}) / "
                f"(n + {HYPOTHETICAL_GAMES}) = ({r.opponent_sum} + {hyp}) / {n2} = {ra}",
                f"p = (W + 1) / (n + {HYPOTHETICAL_GAMES}) = ({wins} + 1) / {n2} → "
                f"{_expected(r.p)} (to the hundredth, .005 up)",
                f"dp = {_signed_int(r.dp)} (table 8.1.1)",
                f"Ru = Ra + dp = {ra} {'+' if r.dp >= 0 else MINUS} {abs(r.dp)} = {_fraction2(unrounded)} → "
                f"{whole} (half away from zero)"
                + (
                    f", at most {INITIAL_RATING_CAP} → {INITIAL_RATING_CAP}"
                    if whole > INITIAL_RATING_CAP
                    else ""
                ),
            ]
            if r.status == "rated":
                text.append(f"Initial rating: {r.rating}")
            else:
                text.append("Below 1400: no rating is published; the results stay in the pool (§7.2.1)")
        if self.performance is not None:
            text += self.performance.lines()
        return text

    def _other_method_lines(self) -> list[str]:
        """FIDE's 2022 method or a fixed start rating, step by step with the numbers."""
        r, method = self.result, self.method
        text = ["Unrated player: initial rating from the games against rated opponents (rule set)"]
        text += [f"{i:>4}  {g.opponent:>8}  {_score(g.score):>3}" for i, g in enumerate(self.games, start=1)]
        if r.status == "too_few_games":
            text.append(f"Not yet rated: {r.n} of the {method.min_games} games needed")
        elif method.name == "fixed":
            text.append(f"{r.n} games: the rule set's start rating {method.start_rating}")
        else:
            ra = _fraction2(r.ra_rounded.numerator * 100 // r.ra_rounded.denominator)
            wins = _total_score(r.wins_x100)
            text.append(f"Ra = Σ opponents / n = {r.opponent_sum} / {r.n} = {ra}")
            if 2 * r.wins_x100 >= 100 * r.n:
                text.append(
                    f"Score {wins} / {r.n}: 20 per half point above 50 % → {_signed_int(r.dp)} (2022 rules)"
                )
            else:
                text.append(f"p = {wins} / {r.n} → {_expected(r.p)}; dp = {_signed_int(r.dp)} (table 8.1.1)")
            assert r.unrounded is not None
            whole = round_half_away_from_zero(r.unrounded.numerator, r.unrounded.denominator)
            text.append(f"Ru = Ra + dp = {whole} (half away from zero)")
        if r.status == "rated":
            text.append(f"Initial rating: {r.rating}")
        elif r.status == "below_floor":
            text.append(f"Below {self.floor}: no rating is published; the results stay in the pool")
        if self.performance is not None:
            text += self.performance.lines()
        return text

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        rows = [
            {"opponent_rating": g.opponent, "score": g.score / 100, "hypothetical": False} for g in self.games
        ]
        rows += [
            {"opponent_rating": HYPOTHETICAL_OPPONENT, "score": DRAW / 100, "hypothetical": True}
        ] * HYPOTHETICAL_GAMES
        return {
            "status": r.status,
            "games": rows,
            "n": r.n,
            "score": r.wins_x100 / 100,
            "opponent_sum": r.opponent_sum,
            "ra": float(r.ra),
            "p": r.p / 100,
            "dp": r.dp,
            "unrounded": None if r.unrounded is None else float(r.unrounded),
            "rating": r.rating,
            "games_needed": r.games_needed,
            "performance": None if self.performance is None else self.performance.as_dict(),
        }


def _fraction2(x100: int) -> str:
    """A value in hundredths always with two decimals: 187243 → 1872.43."""
    whole, frac = divmod(abs(x100), 100)
    return _with_sign(f"{whole}.{frac:02d}", x100, False)


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

    def lines(self) -> list[str]:
        result = _RESULT_NAMES[self.score]
        aim = f"Target: a {result} worth {_signed_int(self.target)} (a single game's change in whole points)"
        if self.low is None or self.high is None:
            return [
                aim,
                f"No opponent rating makes a {result} worth {_signed_int(self.target)} at K {self.k.k}: "
                f"a {result} is worth {_signed_int(self.achievable_min)} "
                f"to {_signed_int(self.achievable_max)}",
            ]
        if self.open_low and self.open_high:
            span = "Every opponent rating"
        elif self.open_low:
            span = f"Opponents rated {self.high} or lower"
        elif self.open_high:
            span = f"Opponents rated {self.low} or higher"
        elif self.low == self.high:
            span = f"An opponent rated {self.low}"
        else:
            span = f"Opponents rated {self.low} to {self.high}"
        text = [aim, f"{span}:"]
        ends = [self.low] if self.open_high or self.low == self.high else [self.high] if self.open_low else []
        for opponent in ends or [self.low, self.high]:
            expectation = Expectation.of(self.rating, opponent, self.rules)
            outcome = _outcome(self.rating, opponent, self.score, self.k.k, self.rules, self.formula)
            text.append(f"  against {opponent}: {outcome.line(expectation, rating=self.rating)}")
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": _RESULT_NAMES[self.score],
            "target": self.target,
            "opponent_low": None if self.open_low else self.low,
            "opponent_high": None if self.open_high else self.high,
            "found": self.low is not None,
            "achievable_min": self.achievable_min,
            "achievable_max": self.achievable_max,
        }


def goal_seek(rating: int, k: KChoice, score: int, target: int, rules: RuleSet, formula: Formula) -> GoalSeek:
    """Opponent ratings making one result worth `target` whole points, by trying each within the span.

    The change of one result is monotonic in the opponent's rating, so the hits form one range.
    """
    bottom, top = max(0, rating - GOAL_SEARCH_SPAN), rating + GOAL_SEARCH_SPAN
    hits: list[int] = []
    changes: list[int] = []
    for opponent in range(bottom, top + 1):
        change = _outcome(rating, opponent, score, k.k, rules, formula).change
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "difference": self.difference,
            "table_higher": self.table_higher / 100,
            "table_lower": self.table_lower / 100,
            "curve_higher": float(self.curve_higher),
            "curve_lower": float(self.curve_lower),
        }


def expected_table(differences: Sequence[int] = EXPECTED_TABLE_DIFFERENCES) -> tuple[ExpectedRow, ...]:
    """Expected scores by rating difference, table 8.1.2 beside the logistic curve (no 400-point rule)."""
    return tuple(
        ExpectedRow(d, expected_score(d), Decimal(repr(expected_score_logistic(d)))) for d in differences
    )


def _percent(value: Decimal) -> str:
    return f"{(value * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)} %"


def expected_table_lines(rows: Sequence[ExpectedRow]) -> list[str]:
    text = [
        "Expected score by rating difference D (no 400-point rule applied):",
        f"{'D':>5}  {'table 8.1.2 higher | lower':>26}  {'logistic curve higher | lower':>29}",
    ]
    for row in rows:
        table = f"{row.table_higher:>3} % | {row.table_lower:>3} %"
        curve = f"{_percent(row.curve_higher):>5} | {_percent(row.curve_lower):>5}"
        text.append(f"{row.difference:>5}  {table:>26}  {curve:>29}")
    return text


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

    def lines(self) -> list[str]:
        req = self.request
        text = [f"Rules: {req.rules.name} ({req.rules_reason}); {rules_description(req.rules)}"]
        if req.formula == "logistic":
            text.append(
                "Expected score: logistic curve 1 / (1 + 10^(−D/400)), labelled; FIDE rates with table 8.1.2 "
                "(E shown to 4 decimals, changes to 1 decimal, half away from zero)"
            )
        else:
            text.append("Expected score: FIDE table 8.1.2")
        if req.player_label is not None:
            text.append(f"Player: {req.player_label}")
        if req.rating is not None or self.initial is not None:
            text.append(f"Rating: {'unrated' if req.rating is None else req.rating}")
        if self.k is not None:
            text += self.k.lines()
        for part in (self.single, self.period, self.initial, self.goal):
            if part is not None:
                text += part.lines()
        if self.table is not None:
            text += expected_table_lines(self.table)
        return text

    def as_dict(self) -> dict[str, Any]:
        req = self.request
        return {
            "rules": req.rules.name,
            "rules_reason": req.rules_reason,
            "cap": req.rules.cap,
            "cap_exempt_from": req.rules.cap_exempt_from,
            "formula": req.formula,
            "rating": req.rating,
            "player": req.player_label,
            "k": None if self.k is None else self.k.as_dict(),
            "single_game": None if self.single is None else self.single.as_dict(),
            "period": None if self.period is None else self.period.as_dict(),
            "initial": None if self.initial is None else self.initial.as_dict(),
            "goal": None if self.goal is None else self.goal.as_dict(),
            "expected_table": None if self.table is None else [row.as_dict() for row in self.table],
        }


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
    final = _round(change_curve) if formula == "logistic" else change.change
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
