"""The Glicko calculator, explaining: a calculator.glicko calculation written out; no SQLAlchemy/Typer/I/O.

`lines(calculation)` gives the steps of Glickman's "The Glicko system" (what `ratingdb calc --system
glicko` prints), `as_dict(calculation)` the figures for JSON. Intermediate figures to four decimals (q,
g and E) or two (d², r′, RD′); the new rating and RD to hundredths as a list would publish them.
"""

from __future__ import annotations

import math
from typing import Any, Final

from ratingdb.calculator.glicko import GlickoCalculation
from ratingdb.calculator.glicko2_text import decimals as _f
from ratingdb.rating.glicko import DRAW, LOSS, WIN, Q

__all__ = ["as_dict", "lines"]

_SCORE_TEXT: Final = {WIN: "1", DRAW: "0.5", LOSS: "0"}


def lines(calculation: GlickoCalculation) -> list[str]:
    p, u = calculation.params, calculation.result
    text = [
        f"Rules: {calculation.rules_name} ({calculation.rules_reason}); Glicko, newcomers "
        f"{p.initial_rating:g} / {p.initial_deviation:g}, maximum deviation {p.maximum_deviation:g}, "
        f"c = {_f(p.c, 2)}",
        'System: Glicko (Glickman, "The Glicko system"): computed unrounded; the list rounds r and RD to '
        "hundredths",
    ]
    listed = u.listed
    if calculation.newcomer:
        text.append(f"Step 1: unrated: the newcomer's r = {listed.rating:g}, RD = {listed.deviation:g}")
    elif u.periods == 0:
        text.append(f"Step 1: r = {listed.rating:g}, RD = {listed.deviation:g} at the onset of the period")
    else:
        grown = math.sqrt(listed.deviation**2 + p.c**2 * u.periods)
        limit = f", above the maximum: {p.maximum_deviation:g}" if u.grown_to_maximum else ""
        text.append(
            f"Step 1: r = {listed.rating:g}; RD = min(√(RD² + c²t), {p.maximum_deviation:g}) = "
            f"√({listed.deviation:g}² + {_f(p.c, 2)}² × {u.periods}) = {_f(grown, 2)}{limit}"
        )
    if not u.played:
        text.append("No games: the rating stays, the deviation is Step 1's")
        text.append(_new_line(calculation))
        return text
    assert u.d2 is not None and u.improvement is not None
    rd = u.onset.deviation
    text.append(f"Step 2: q = ln 10 / 400 = {Q:.7f}; g(RD) = 1 / √(1 + 3q²RD²/π²), "
                "E = 1 / (1 + 10^(−g(RDj)(r − rj)/400))")  # fmt: skip
    header = ("Game", "Opponent", "RD", "g(RDj)", "E")
    widths = (4, 8, 6, 6, 6)
    text.append("  ".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True)) + "  S")
    for number, s in enumerate(u.games, start=1):
        text.append(
            f"{number:>4}  {s.opponent_rating:>8g}  {s.opponent_deviation:>6g}  {_f(s.g):>6}  {_f(s.e):>6}  "
            f"{_SCORE_TEXT[s.score]}"
        )
    terms = " + ".join(_f(s.g * s.g * s.e * (1 - s.e)) for s in u.games)
    text.append(f"d² = [q² Σ g(RDj)² E (1 − E)]⁻¹ = [{Q:.7f}² × ({terms})]⁻¹ = {_f(u.d2, 2)} "
                f"(d = {_f(math.sqrt(u.d2), 2)})")  # fmt: skip
    precision = 1 / rd**2 + 1 / u.d2
    text.append(
        f"r′ = r + q / (1/RD² + 1/d²) Σ g(RDj)(s − E) = {listed.rating:g} + {_f(Q / precision, 2)} × "
        f"{_f(u.improvement)} = {_f(u.after.rating, 2)}"
    )
    text.append(f"RD′ = √((1/RD² + 1/d²)⁻¹) = √((1/{_f(rd, 2)}² + 1/{_f(u.d2, 2)})⁻¹) = "
                f"{_f(u.after.deviation, 2)}")  # fmt: skip
    text.append(_new_line(calculation))
    return text


def _new_line(calculation: GlickoCalculation) -> str:
    u = calculation.result
    rating, deviation = round(u.after.rating, 2), round(u.after.deviation, 2)
    change = rating - u.listed.rating
    sign = "+" if change >= 0 else "\u2212"
    return f"New rating: {rating:.2f} ({sign}{abs(change):.2f}), RD {deviation:.2f}"


def as_dict(calculation: GlickoCalculation) -> dict[str, Any]:
    p, u = calculation.params, calculation.result
    return {
        "system": "glicko",
        "rules": calculation.rules_name,
        "rules_reason": calculation.rules_reason,
        "c": p.c,
        "maximum_deviation": p.maximum_deviation,
        "newcomer": calculation.newcomer,
        "rating": u.listed.rating,
        "deviation": u.listed.deviation,
        "periods": u.periods,
        "onset_deviation": u.onset.deviation,
        "games": [
            {
                "game": n,
                "opponent_rating": s.opponent_rating,
                "opponent_deviation": s.opponent_deviation,
                "g": s.g,
                "e": s.e,
                "score": s.score,
            }
            for n, s in enumerate(u.games, start=1)
        ],  # fmt: skip
        "d2": u.d2,
        "new_rating_unrounded": u.after.rating,
        "new_deviation_unrounded": u.after.deviation,
        "new_rating": round(u.after.rating, 2),
        "new_deviation": round(u.after.deviation, 2),
    }
