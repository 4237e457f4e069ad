"""The arithmetic behind a published figure, written with its own figures; imports only the stdlib and rating.

A first rating is written by the method that computed it (§8.2 of 2024, FIDE's 2022 method, a rule set's
fixed start), a rating change with its rule set's rounding (§8.3.4): one rendering that the calculation
record's sentences (ratingdb.reports.lists.calculation_summary: `ratingdb calculation`, the pages, the
API, the live pages) and the calculator share. Each step is an equation whose figures, evaluated, give
the figure after its last "=" (to the decimals shown) and, after "→", the whole number the rule rounds
it to: tests/unit/test_working.py evaluates the text itself over every method and rounding.

Only symbols and figures here; the words around them ("Unrated", "first rating", the rounding's name) are
the caller's, in the reader's language. Decimals use `decimal_mark`; minus is the true minus sign.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from .initial import HYPOTHETICAL_GAMES, HYPOTHETICAL_OPPONENT, POINTS_PER_HALF_POINT_2022, InitialMethod
from .points import round_half_away_from_zero

MINUS: Final = "\u2212"


@dataclass(frozen=True)
class Figure:
    """A number as shown: `value` rounded half away from zero to `places` decimals."""

    value: Fraction
    places: int = 0
    signed: bool = False  # a + before zero and above (a change)

    def text(self, decimal_mark: str = ".") -> str:
        scaled = round_half_away_from_zero(self.value.numerator * 10**self.places, self.value.denominator)
        sign = MINUS if scaled < 0 else "+" if self.signed else ""
        whole, frac = divmod(abs(scaled), 10**self.places)
        return sign + str(whole) + (f"{decimal_mark}{frac:0{self.places}d}" if self.places else "")


Part = str | Figure


@dataclass(frozen=True)
class Working:
    """Equations, each a sequence of symbols and figures, shown joined by "; "."""

    steps: tuple[tuple[Part, ...], ...]

    def lines(self, decimal_mark: str = ".") -> list[str]:
        return [
            "".join(part if isinstance(part, str) else part.text(decimal_mark) for part in step)
            for step in self.steps
        ]

    def text(self, decimal_mark: str = ".") -> str:
        return "; ".join(self.lines(decimal_mark))


def _n(value: int | Fraction, places: int = 0, *, signed: bool = False) -> Figure:
    return Figure(Fraction(value), places, signed)


def _points(x100: int) -> Figure:
    return Figure(Fraction(x100, 100), 2)


def _plus(value: int) -> tuple[Part, ...]:
    """ " + 20" or " − 149": a term added, with its sign as the operator."""
    return (" + ", _n(value)) if value >= 0 else (f" {MINUS} ", _n(-value))


def _rounded(value: Fraction) -> int:
    return round_half_away_from_zero(value.numerator, value.denominator)


def initial_working(
    method: InitialMethod,
    *,
    n: int,
    opponent_sum: int,
    score_x100: int,
    p_x100: int | None,
    dp: int | None,
) -> Working:
    """How `method` turns a pool (n games, Σ opponents, score W, and the p and dp the close recorded) into
    Ru (§8.2.2 of 2024; FIDE 2022: Ra the opponents' average, +20 per half point above 50 %, else dp(p);
    "fixed": the rule set's start rating). Ru is written when the pool holds `method.min_games` games;
    `rating` (the published first rating) only decides nothing: the working computes Ru from the figures,
    and the test holds it equal to what the close published."""
    steps: list[tuple[Part, ...]] = []
    rated_size = n >= method.min_games
    if method.name == "fixed":
        if rated_size:
            steps.append(("Ru = ", _n(method.start_rating or 0)))
        return Working(tuple(steps))
    if not n:
        return Working(())
    dp_by_table = True
    if method.name == "fide-2024":
        n2 = n + HYPOTHETICAL_GAMES
        hypothetical = f" + {HYPOTHETICAL_GAMES} × {HYPOTHETICAL_OPPONENT})"
        ra_parts: tuple[Part, ...] = ("(", _n(opponent_sum), hypothetical, " / ", _n(n2))
        ra = Fraction(opponent_sum + HYPOTHETICAL_GAMES * HYPOTHETICAL_OPPONENT, n2)
        steps.append((f"Ra = (Σ{hypothetical} / (n + {HYPOTHETICAL_GAMES}) = ", *ra_parts, " = ", _n(ra, 2)))
        if p_x100 is not None:
            steps.append(
                (f"p = (W + 1) / (n + {HYPOTHETICAL_GAMES}) = (", _points(score_x100), " + 1) / ", _n(n2),
                 " = ", _points(p_x100))
            )  # fmt: skip
    else:  # fide-2022
        ra_parts = (_n(opponent_sum), " / ", _n(n))
        ra = Fraction(opponent_sum, n)
        steps.append(("Ra = Σ / n = ", *ra_parts, " = ", _n(ra, 2)))
        if 2 * score_x100 >= 100 * n:  # 50 % or more: 20 per half point above it
            dp_by_table = False
            if dp is not None:
                per = POINTS_PER_HALF_POINT_2022
                steps.append(
                    (f"dp = {per} × (2 × W − n) = {per} × (2 × ", _points(score_x100), " − ", _n(n), ") = ",
                     _n(dp))
                )  # fmt: skip
        elif p_x100 is not None:
            steps.append(("p = W / n = ", _points(score_x100), " / ", _n(n), " = ", _points(p_x100)))
    if dp_by_table and p_x100 is not None and dp is not None:
        steps.append(("dp = dp(", _points(p_x100), ") = ", _n(dp)))
    if rated_size and dp is not None:
        unrounded = ra + dp
        whole = _rounded(unrounded)
        steps.append(("Ru = Ra + dp = ", *ra_parts, *_plus(dp), " = ", _n(unrounded, 2), " → ", _n(whole)))
        if method.max_rating is not None and whole > method.max_rating:
            steps.append(("Ru = min(", _n(whole), ", ", _n(method.max_rating), ") = ", _n(method.max_rating)))
    return Working(tuple(steps))


def initial_ru(working: Working) -> int | None:
    """The Ru a working arrives at (its last figure when it writes Ru), or None when it writes none."""
    for step in reversed(working.steps):
        if isinstance(step[0], str) and step[0].startswith("Ru = "):
            last = step[-1]
            assert isinstance(last, Figure)
            return _rounded(last.value)
    return None


def change_working(
    *, k: int, sum_dr_x100: int, k_sum_dr_x100: int, change: int, ro: int, sum_name: str = "Σ(score − PD)"
) -> Working:
    """K × Σ(score − PD) and the change the record holds after the rule set's one rounding (§8.3.4; its
    name is the caller's words, as is `sum_name` in the reader's language), and Rn = Ro + change."""
    total: tuple[Part, ...] = (_points(sum_dr_x100),)
    if sum_dr_x100 < 0:  # K × (−0.82), not K × −0.82
        total = ("(", *total, ")")
    return Working(
        (
            (
                f"K × {sum_name} = ",
                _n(k),
                " × ",
                *total,
                " = ",
                _points(k_sum_dr_x100),
                " → ",
                _n(change, signed=True),
            ),
            ("Rn = Ro + change = ", _n(ro), *_plus(change), " = ", _n(ro + change)),
        )  # fmt: skip
    )
