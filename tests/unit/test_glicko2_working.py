"""The Glicko-2 calculator's steps, evaluated, give the figures it shows (issue 51): each equation of
`ratingdb calc --system glicko2` (calculator/glicko2_text.py) is read back from the text and evaluated
with interval arithmetic — every shown figure stands for the interval its decimals allow — and the shown
result must lie in the interval its own figures give. Symbolic segments (μ, φ, v, Σ …) are skipped."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from ratingdb.calculator.glicko2 import calculate_glicko2
from ratingdb.calculator.glicko2_text import lines
from ratingdb.rating.glicko2 import Glicko2Game, Glicko2Parameters, Glicko2Rating

MINUS = "\u2212"


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def __add__(self, other: Interval) -> Interval:
        return Interval(self.low + other.low, self.high + other.high)

    def __sub__(self, other: Interval) -> Interval:
        return Interval(self.low - other.high, self.high - other.low)

    def __neg__(self) -> Interval:
        return Interval(-self.high, -self.low)

    def __mul__(self, other: Interval) -> Interval:
        products = [a * b for a in (self.low, self.high) for b in (other.low, other.high)]
        return Interval(min(products), max(products))

    def __truediv__(self, other: Interval) -> Interval:
        assert other.low > 0 or other.high < 0, "a divisor whose interval holds zero"
        return self * Interval(1 / other.high, 1 / other.low)


def _shown(text: str) -> Interval:
    """A figure as shown: the interval of the values its decimals round to (a whole number is exact)."""
    value = float(text)
    if "." not in text:
        return Interval(value, value)
    half = 0.5 * 10 ** -len(text.split(".")[1])
    return Interval(value - half, value + half)


def _square(x: Interval) -> Interval:
    ends = sorted([x.low * x.low, x.high * x.high])
    return Interval(0.0 if x.low <= 0 <= x.high else ends[0], ends[1])


def _root(x: Interval) -> Interval:
    return Interval(math.sqrt(max(x.low, 0.0)), math.sqrt(x.high))


def _inverse(x: Interval) -> Interval:
    return Interval(1.0, 1.0) / x


_ARITHMETIC = re.compile(r"^[\d.+\-×/() \[\]²√⁻¹]+$")
_FIGURE = re.compile(r"\d+(?:\.\d+)?")


def evaluate(segment: str) -> Interval | None:
    text = segment.replace(MINUS, "-").strip()
    if not _ARITHMETIC.match(text) or not _FIGURE.search(text):
        return None
    python = _FIGURE.sub(lambda m: f"S('{m.group()}')", text)
    python = python.replace("×", "*").replace("⁻¹", ")").replace("[", "INV((").replace("]", ")")
    python = re.sub(r"(S\('[\d.]+'\))²", r"SQ(\1)", python).replace("√(", "ROOT(")
    return eval(python, {"__builtins__": {}}, {"S": _shown, "SQ": _square, "ROOT": _root, "INV": _inverse})


def check(step: str) -> int:
    """Each equation of `step` ("name = … = shown", several joined by "; "): the shown result lies in the
    interval of each arithmetic segment before it. Returns how many segments were evaluated."""
    evaluated = 0
    # Step 6's cap is two equations: φ* as computed, then the cap that replaces it.
    step = step.replace(", capped at the initial deviation ", "; cap = ")
    for equation in step.split("; "):
        segments = [s.strip() for s in equation.split(" = ")]
        shown = segments[-1].replace(MINUS, "-")
        if not re.fullmatch(r"-?\d+(?:\.\d+)?", shown):
            continue
        result = _shown(shown)
        for segment in segments[1:-1]:
            value = evaluate(segment)
            if value is None:
                continue
            evaluated += 1
            slack = 1e-9 * max(1.0, abs(result.low))
            assert value.low - slack <= result.high and result.low <= value.high + slack, (
                f"{segment} is in [{value.low}, {value.high}], shown {shown}: {step!r}"
            )
    return evaluated


PAPER = Glicko2Parameters()


@settings(max_examples=200, deadline=None)
@given(
    st.floats(1000, 2500),
    st.floats(30, 350),
    st.floats(0.03, 0.1),
    st.lists(
        st.tuples(st.floats(1000, 2500), st.floats(30, 350), st.sampled_from([0.0, 0.5, 1.0])), max_size=8
    ),
)
def test_every_glicko2_step_shown_evaluates_to_the_figure_it_shows(rating, deviation, volatility, games):
    calculation = calculate_glicko2(
        Glicko2Rating(rating, deviation, volatility),
        [Glicko2Game(r, rd, s) for r, rd, s in games],
        PAPER,
        rules_name="paper",
        rules_reason="test",
    )
    steps = [line for line in lines(calculation) if line.startswith("Step ")]
    assert steps
    evaluated = sum(check(step) for step in steps)
    assert evaluated >= (1 if not games else 4)


def test_glickmans_example_reads_back_step_by_step():
    # The paper's example: 1500 / 200 / 0.06 against 1400/30 (win), 1550/100 (loss), 1700/300 (loss).
    calculation = calculate_glicko2(
        Glicko2Rating(1500, 200, 0.06),
        [Glicko2Game(1400, 30, 1.0), Glicko2Game(1550, 100, 0.0), Glicko2Game(1700, 300, 0.0)],
        PAPER,
        rules_name="paper",
        rules_reason="test",
    )
    step8 = next(line for line in lines(calculation) if line.startswith("Step 8"))
    assert "173.7178 × " + MINUS + "0.206" in step8
    assert check(step8) == 1
