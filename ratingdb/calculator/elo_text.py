"""The Elo calculator, explaining: a ratingdb.calculator.elo calculation written out; no SQLAlchemy/Typer/I/O.

`lines(calculation)` gives the steps with the player's own numbers (what `ratingdb calc` prints) and
`as_dict(calculation)` the figures for JSON (`calc --json`). Nothing here computes a rating: each
figure comes from the calculation; goal seeking's end points are recomputed through elo.outcome_of.
Imports only ratingdb.calculator.elo and ratingdb.rating.

Shown figures: E by the logistic curve to 4 decimals and changes to 1 decimal, half away from zero;
table values exactly (hundredths). Signs use the true minus sign, as printed rating rules do.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

from ratingdb.calculator.elo import (
    _RESULT_NAMES,
    MINUS,
    Calculation,
    Expectation,
    ExpectedRow,
    Formula,
    GameRow,
    GoalSeek,
    InitialCalc,
    KChoice,
    Outcome,
    PerformancePair,
    PeriodCalc,
    SideOfGame,
    SingleGame,
    outcome_of,
    whole_points,
)
from ratingdb.rating import (
    DRAW,
    EXPECTED_SCORE_MAX_DIFFERENCE,
    EXPECTED_SCORE_TABLE,
    HYPOTHETICAL_GAMES,
    HYPOTHETICAL_OPPONENT,
    INITIAL_RATING_CAP,
    LOSS,
    WIN,
    RuleSet,
    initial_working,
    round_half_away_from_zero,
)

__all__ = ["as_dict", "expected_table_lines", "lines", "rule_700", "rules_description"]

_FOUR: Final = Decimal("0.0001")
_ONE: Final = Decimal("0.1")
_LABELS: Final = {WIN: "Win", DRAW: "Draw", LOSS: "Loss"}

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


def _num(value: Decimal) -> float:
    return float(value)


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
    return f"{head}  {_signed_int(e.d):>5}  {_shown(e, formula):>6}  {dr:>7}  {kdr:>11}"


def _fraction2(x100: int) -> str:
    """A value in hundredths always with two decimals: 187243 → 1872.43."""
    whole, frac = divmod(abs(x100), 100)
    return _with_sign(f"{whole}.{frac:02d}", x100, False)


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


def rule_700(k: KChoice) -> str | None:
    """The 700-rule step with the numbers, when it reduced K (§8.3.3)."""
    if k.k == k.base:
        return None
    return (
        f"{k.limit} rule: K × n = {k.base} × {k.n} = {k.base * k.n} > {k.limit} "
        f"→ K = floor({k.limit} / {k.n}) = {k.k} (§8.3.3)"
    )


def _k_lines(k: KChoice) -> list[str]:
    text = [f"K: {k.base} — {k.source}"]
    step = rule_700(k)
    if step is not None:
        text.append(step)
    return text


def _k_dict(k: KChoice) -> dict[str, Any]:
    return {
        "base": k.base,
        "source": k.source,
        "games_in_period": k.n,
        "k": k.k,
        "rule_700": rule_700(k),
    }


def _shown(e: Expectation, formula: Formula) -> str:
    return _decimal(e.curve, _FOUR) if formula == "logistic" else _expected(e.table)


def _difference_step(e: Expectation) -> str:
    head = f"D = {e.own} − {e.opponent} = {_signed_int(e.d_raw)}"
    rules = e.rules
    if e.d != e.d_raw:
        return f"{head}, counted as {_signed_int(e.d)} (400-point rule, §8.3.1)"
    if rules.cap is not None and abs(e.d_raw) > rules.cap and rules.one_upgrade_per_tournament:
        why = "the lower-rated player" if e.d_raw < 0 else "the one upgrade went to a greater D"
        return f"{head} (not capped: {why}, 2022 rules)"
    if rules.cap is not None and abs(e.d_raw) > rules.cap:
        return f"{head} (not capped: {e.own} is rated {rules.cap_exempt_from} or above, §8.3.1)"
    if rules.cap is None and abs(e.d_raw) > 400:
        return f"{head} (400-point rule off)"
    return head


def _table_step(e: Expectation) -> str:
    abs_d = abs(e.d)
    higher = e.table if e.d >= 0 else 100 - e.table
    if abs_d > EXPECTED_SCORE_MAX_DIFFERENCE:
        band = f"|D| = {abs_d} is above {EXPECTED_SCORE_MAX_DIFFERENCE}"
    else:
        low = 0
        for bound, _ in EXPECTED_SCORE_TABLE:
            if abs_d <= bound:
                band = f"|D| = {abs_d} is in {low}–{bound}"
                break
            low = bound + 1
    shown = _expected(e.table)
    text = f"E = {shown} (table 8.1.2: {band} → {_expected(higher)} for the higher-rated player"
    if e.d < 0:
        text += f"; D < 0, so E = 1 − {_expected(higher)} = {_expected(e.table)}"
    return text + ")"


def _curve_step(e: Expectation) -> str:
    exponent = format((Decimal(-e.d) / Decimal(400)).normalize(), "f")
    exponent = exponent.replace("-", MINUS)
    return f"E = 1 / (1 + 10^(−D/400)) = 1 / (1 + 10^({exponent})) = {_shown(e, 'logistic')}"


def _steps(e: Expectation, formula: Formula) -> list[str]:
    if formula == "logistic":
        diff = _decimal(e.curve_minus_table(), _FOUR, signed=True)
        return [
            _difference_step(e),
            f"{_curve_step(e)} (logistic curve; table 8.1.2 gives {_expected(e.table)}, difference {diff})",
        ]
    return [
        _difference_step(e),
        _table_step(e),
        f"Logistic curve, for comparison only: {_curve_step(e)}",
    ]


def _expectation_dict(e: Expectation) -> dict[str, Any]:
    return {
        "own_rating": e.own,
        "opponent_rating": e.opponent,
        "difference": e.d_raw,
        "difference_used": e.d,
        "expected_table": _num(Decimal(e.table).scaleb(-2)),
        "expected_curve": float(e.curve),
    }


def _outcome_line(o: Outcome, expectation: Expectation, *, rating: int, label: str | None = None) -> str:
    label = label or f"{_LABELS[o.score] + ':':<5}"
    e_text = _shown(expectation, o.formula)
    head = f"{label} K × (S − E) = {o.k} × ({_score(o.score)} − {e_text})"
    if o.formula == "logistic":
        table = f"{_hundredths(o.table_x100, signed=True)} → {rating + o.table_change}"
        return (
            f"{head} ≈ {_decimal(o.curve, _ONE, signed=True)} → {_signed_int(o.change)} → "
            f"{o.new_rating} (table 8.1.2: {table})"
        )
    return f"{head} = {_hundredths(o.table_x100, signed=True)} → {_signed_int(o.change)} → {o.new_rating}"


def _outcome_dict(o: Outcome) -> dict[str, Any]:
    return {
        "result": o.result,
        "score": o.score / 100,
        "k": o.k,
        "change_table": o.table_x100 / 100,
        "change_curve": float(o.curve),
        "change_curve_shown": _num(o.curve.quantize(_ONE, rounding=ROUND_HALF_UP)),
        "change": o.change,
        "change_table_rounded": o.table_change,
        "new_rating": o.new_rating,
    }


def _side_dict(side: SideOfGame) -> dict[str, Any]:
    return {
        "rating": side.rating,
        "k": _k_dict(side.k),
        **_expectation_dict(side.expectation),
        "outcomes": {o.result: _outcome_dict(o) for o in side.outcomes},
    }


def single_lines(single: SingleGame) -> list[str]:
    p = single.player
    text = [f"Game: {p.rating} against {p.expectation.opponent}", *_steps(p.expectation, single.formula)]
    if single.excluded is not None:
        return [*text, f"This game is {single.excluded}."]
    text += [_outcome_line(o, p.expectation, rating=p.rating) for o in p.outcomes]
    if single.opponent is not None:
        o = single.opponent
        text += [f"Opponent {o.rating}:", *(f"  {line}" for line in _k_lines(o.k))]
        text += [f"  {step}" for step in _steps(o.expectation, single.formula)]
        for outcome, mine in zip(o.outcomes, p.outcomes, strict=True):
            label = f"If you {_VERBS[mine.score]}, {o.rating} {_THIRD_PERSON[outcome.score]}:"
            text.append(f"  {_outcome_line(outcome, o.expectation, rating=o.rating, label=label)}")
    return text


def _single_dict(single: SingleGame) -> dict[str, Any]:
    return {
        **_side_dict(single.player),
        "not_rated": single.excluded,
        "opponent": None if single.opponent is None else _side_dict(single.opponent),
    }


def _performance_lines(perf: PerformancePair) -> list[str]:
    t, lin = perf.table, perf.linear
    sign = "+" if lin.dp >= 0 else MINUS
    return [
        f"Performance, {t.method}: Ra {t.ra}, {t.percentage} % → dp {_signed_int(t.dp)} → {t.rating} "
        f"— rule used: {t.rule}",
        f"Performance, {lin.method}: Ra {lin.ra} {sign} {abs(lin.dp)} = {lin.rating} — rule used: {lin.rule}",
    ]


def _performance_dict(perf: PerformancePair) -> dict[str, Any]:
    return {
        key: {
            "rating": perf.rating,
            "average_opponent": perf.ra,
            "percentage": perf.percentage,
            "dp": perf.dp,
            "method": perf.method,
            "rule": perf.rule,
        }
        for key, perf in (("table", perf.table), ("linear", perf.linear))
    }


def period_lines(period: PeriodCalc) -> list[str]:
    k = period.k.k
    text = [f"Games: {len(period.rows)} (rated: {len(period.rated)})", _ROW_HEADER]
    text += [_row_line(row, k, period.formula) for row in period.rows]
    n = len(period.rated)
    text.append(f"Score: {_total_score(period.score)} / {n}")
    if period.formula == "logistic":
        sum_text = _decimal(period.sum_dr_curve, _FOUR, signed=True)
        table = (
            f"{_hundredths(period.change_table_x100, signed=True)} → {period.rating + period.change_table}"
        )
        text += [
            f"Σ(S − E) = {sum_text}",
            f"Change: K × Σ(S − E) = {k} × {sum_text.lstrip('+')} ≈ "
            f"{_decimal(period.change_curve, _ONE, signed=True)} → {_signed_int(period.change)} "
            f"(rounded once, half away from zero, §8.3.4; table 8.1.2: {table})",
        ]
    else:
        sum_text = _hundredths(period.sum_dr_table, signed=True)
        text += [
            f"Σ(S − E) = {sum_text}",
            f"Change: K × Σ(S − E) = {k} × {sum_text.lstrip('+')} = "
            f"{_hundredths(period.change_table_x100, signed=True)} → {_signed_int(period.change)} "
            "(rounded once for the period, half away from zero, §8.3.4)",
        ]
    sign = MINUS if period.change < 0 else "+"
    text.append(f"New rating: {period.rating} {sign} {abs(period.change)} = {period.new_rating}")
    if period.performance is not None:
        text += _performance_lines(period.performance)
    return text


def _period_dict(period: PeriodCalc) -> dict[str, Any]:
    rows = []
    for row in period.rows:
        item: dict[str, Any] = {
            "game": row.number,
            "opponent_rating": row.game.opponent,
            "score": row.game.score / 100,
            "not_rated": row.excluded,
        }
        if row.expectation is not None:
            item |= _expectation_dict(row.expectation)
            item |= {
                "s_minus_e_table": row.dr_table() / 100,
                "s_minus_e_curve": float(row.dr_curve()),
                "k_times_s_minus_e_table": period.k.k * row.dr_table() / 100,
                "k_times_s_minus_e_curve": float(period.k.k * row.dr_curve()),
            }
        rows.append(item)
    return {
        "rating": period.rating,
        "k": _k_dict(period.k),
        "games": rows,
        "rated_games": len(period.rated),
        "score": period.score / 100,
        "sum_s_minus_e_table": period.sum_dr_table / 100,
        "sum_s_minus_e_curve": float(period.sum_dr_curve),
        "change_table_unrounded": period.change_table_x100 / 100,
        "change_table": period.change_table,
        "change_curve_unrounded": float(period.change_curve),
        "change_curve": whole_points(period.change_curve),
        "change": period.change,
        "new_rating": period.new_rating,
        "performance": None if period.performance is None else _performance_dict(period.performance),
    }


def initial_lines(initial: InitialCalc) -> list[str]:
    if initial.method.name != "fide-2024":
        return _other_method_lines(initial)
    r = initial.result
    text = [
        "Unrated player: initial rating from the games against rated opponents (§8.2)",
        f"{'Game':>4}  {'Opponent':>8}  {'S':>3}",
    ]
    text += [f"{i:>4}  {g.opponent:>8}  {_score(g.score):>3}" for i, g in enumerate(initial.games, start=1)]
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
                f", at most {INITIAL_RATING_CAP} → {INITIAL_RATING_CAP}" if whole > INITIAL_RATING_CAP else ""
            ),
        ]
        if r.status == "rated":
            text.append(f"Initial rating: {r.rating}")
        else:
            text.append("Below 1400: no rating is published; the results stay in the pool (§7.2.1)")
    if initial.performance is not None:
        text += _performance_lines(initial.performance)
    return text


def _other_method_lines(initial: InitialCalc) -> list[str]:
    """FIDE's 2022 method or a fixed start rating, step by step with the numbers."""
    r, method = initial.result, initial.method
    text = ["Unrated player: initial rating from the games against rated opponents (rule set)"]
    text += [f"{i:>4}  {g.opponent:>8}  {_score(g.score):>3}" for i, g in enumerate(initial.games, start=1)]
    if r.status == "too_few_games":
        text.append(f"Not yet rated: {r.n} of the {method.min_games} games needed")
    elif method.name == "fixed":
        text.append(f"{r.n} games: the rule set's start rating {method.start_rating}")
    else:
        # The rule's own formula with its figures, as the calculation record writes it (rating.working).
        method_name = "FIDE 2022" if method.name == "fide-2022" else method.name
        text.append(
            f"Method: {method_name} (Ra the opponents' average; 20 per half point above 50 %, else dp)"
        )
        text += initial_working(
            method, n=r.n, opponent_sum=r.opponent_sum, score_x100=r.wins_x100, p_x100=r.p, dp=r.dp
        ).lines()
    if r.status == "rated":
        text.append(f"Initial rating: {r.rating}")
    elif r.status == "below_floor":
        text.append(f"Below {initial.floor}: no rating is published; the results stay in the pool")
    if initial.performance is not None:
        text += _performance_lines(initial.performance)
    return text


def _initial_dict(initial: InitialCalc) -> dict[str, Any]:
    r = initial.result
    rows = [
        {"opponent_rating": g.opponent, "score": g.score / 100, "hypothetical": False} for g in initial.games
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
        "performance": None if initial.performance is None else _performance_dict(initial.performance),
    }


def goal_lines(goal: GoalSeek) -> list[str]:
    result = _RESULT_NAMES[goal.score]
    aim = f"Target: a {result} worth {_signed_int(goal.target)} (a single game's change in whole points)"
    if goal.low is None or goal.high is None:
        return [
            aim,
            f"No opponent rating makes a {result} worth {_signed_int(goal.target)} at K {goal.k.k}: "
            f"a {result} is worth {_signed_int(goal.achievable_min)} "
            f"to {_signed_int(goal.achievable_max)}",
        ]
    if goal.open_low and goal.open_high:
        span = "Every opponent rating"
    elif goal.open_low:
        span = f"Opponents rated {goal.high} or lower"
    elif goal.open_high:
        span = f"Opponents rated {goal.low} or higher"
    elif goal.low == goal.high:
        span = f"An opponent rated {goal.low}"
    else:
        span = f"Opponents rated {goal.low} to {goal.high}"
    text = [aim, f"{span}:"]
    ends = [goal.low] if goal.open_high or goal.low == goal.high else [goal.high] if goal.open_low else []
    for opponent in ends or [goal.low, goal.high]:
        expectation = Expectation.of(goal.rating, opponent, goal.rules)
        outcome = outcome_of(goal.rating, opponent, goal.score, goal.k.k, goal.rules, goal.formula)
        text.append(f"  against {opponent}: {_outcome_line(outcome, expectation, rating=goal.rating)}")
    return text


def _goal_dict(goal: GoalSeek) -> dict[str, Any]:
    return {
        "result": _RESULT_NAMES[goal.score],
        "target": goal.target,
        "opponent_low": None if goal.open_low else goal.low,
        "opponent_high": None if goal.open_high else goal.high,
        "found": goal.low is not None,
        "achievable_min": goal.achievable_min,
        "achievable_max": goal.achievable_max,
    }


def _expected_row_dict(row: ExpectedRow) -> dict[str, Any]:
    return {
        "difference": row.difference,
        "table_higher": row.table_higher / 100,
        "table_lower": row.table_lower / 100,
        "curve_higher": float(row.curve_higher),
        "curve_lower": float(row.curve_lower),
    }


def lines(calculation: Calculation) -> list[str]:
    req = calculation.request
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
    if req.rating is not None or calculation.initial is not None:
        text.append(f"Rating: {'unrated' if req.rating is None else req.rating}")
    if calculation.k is not None:
        text += _k_lines(calculation.k)
    if calculation.single is not None:
        text += single_lines(calculation.single)
    if calculation.period is not None:
        text += period_lines(calculation.period)
    if calculation.initial is not None:
        text += initial_lines(calculation.initial)
    if calculation.goal is not None:
        text += goal_lines(calculation.goal)
    if calculation.table is not None:
        text += expected_table_lines(calculation.table)
    return text


def as_dict(calculation: Calculation) -> dict[str, Any]:
    req = calculation.request
    return {
        "rules": req.rules.name,
        "rules_reason": req.rules_reason,
        "cap": req.rules.cap,
        "cap_exempt_from": req.rules.cap_exempt_from,
        "formula": req.formula,
        "rating": req.rating,
        "player": req.player_label,
        "k": None if calculation.k is None else _k_dict(calculation.k),
        "single_game": None if calculation.single is None else _single_dict(calculation.single),
        "period": None if calculation.period is None else _period_dict(calculation.period),
        "initial": None if calculation.initial is None else _initial_dict(calculation.initial),
        "goal": None if calculation.goal is None else _goal_dict(calculation.goal),
        "expected_table": None
        if calculation.table is None
        else [_expected_row_dict(row) for row in calculation.table],
    }
