"""The arithmetic a write-up shows, evaluated, gives the published figure: first ratings of every method and
rating changes of every rounding (ratingdb.rating.working), read back from the text itself."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratingdb.rating import (
    INITIAL_METHODS,
    ROUNDINGS,
    InitialMethod,
    Period,
    PoolGame,
    dp_for_fraction,
    initial_rating,
    round_half_away_from_zero,
    round_with,
)
from ratingdb.rating.working import change_working, initial_ru, initial_working

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ARITHMETIC = re.compile(r"^(?:[\d.+\-*/(), ]|dp\(|min\()+$")


def _value(text: str) -> Fraction:
    return Fraction(text.replace("\u2212", "-").lstrip("+"))


def _places(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _evaluate(expression: str) -> Fraction | None:
    """An arithmetic segment of a write-up, evaluated exactly; None for a symbolic one (Σ, n, W, Ra …).
    dp(p) is table 8.1.1 read at p."""
    python = expression.replace("×", "*").replace("\u2212", "-")
    if not _ARITHMETIC.match(python):
        return None
    python = _NUMBER.sub(lambda m: f"F('{m.group()}')", python)

    def dp(p: Fraction) -> Fraction:
        assert p.denominator in (1, 2, 4, 5, 10, 20, 25, 50, 100)
        return Fraction(dp_for_fraction(int(p * 100)))

    result = eval(python, {"__builtins__": {}}, {"F": Fraction, "dp": dp, "min": min})  # our own text only
    return Fraction(result)


def check_step(step: str, rounding: str = "half_away") -> int | None:
    """Every arithmetic segment of `step` ("name = … = … = shown [→ whole]") evaluates to the shown figure
    at its decimals, and the whole after "→" is the rule's rounding of the exact value. Returns the whole
    (or the shown figure when it is whole and nothing is rounded)."""
    left, _, rounded = step.partition(" → ")
    name, *segments = left.split(" = ")
    assert segments, f"no equation in {step!r}"
    shown = segments[-1]
    assert _evaluate(shown) is not None, f"the result of {step!r} is not a figure"
    exact: Fraction | None = None
    evaluated = 0
    for segment in segments[:-1]:
        value = _evaluate(segment)
        if value is None:
            continue
        evaluated += 1
        places = _places(shown)
        assert round_half_away_from_zero(value.numerator * 10**places, value.denominator) == _value(shown) * (
            10**places
        ), f"{segment} is {float(value)}, shown {shown} in {step!r}"
        exact = value
    if not rounded:
        return int(_value(shown)) if _value(shown).denominator == 1 else None
    assert exact is not None, f"{step!r} rounds a figure it does not compute"
    whole = round_with(exact.numerator, exact.denominator, rounding)  # type: ignore[arg-type]
    assert _value(rounded) == whole, f"{exact} rounds to {whole}, shown {rounded} in {step!r}"
    return whole


def _method(draw: st.DrawFn) -> InitialMethod:
    name = draw(st.sampled_from(INITIAL_METHODS))
    return InitialMethod(
        name=name,
        min_games=draw(st.integers(1, 9)),
        max_rating=draw(st.sampled_from([None, 2200, 2000])),
        start_rating=draw(st.integers(1000, 2000)) if name == "fixed" else None,
    )


@st.composite
def pools(draw: st.DrawFn) -> tuple[InitialMethod, list[PoolGame]]:
    method = _method(draw)
    games = draw(
        st.lists(st.tuples(st.integers(1000, 2900), st.sampled_from([0, 50, 100])), min_size=0, max_size=40)
    )
    period = Period(2025, 6)
    return method, [PoolGame(r, s, period, f"e{i % 3}", (i % 3,)) for i, (r, s) in enumerate(games)]


@settings(max_examples=400, deadline=None)
@given(pools())
def test_a_first_ratings_working_adds_up_to_the_rating_its_method_computed(pool):
    method, games = pool
    result = initial_rating(games, Period(2025, 6), method=method, floor=0)
    working = initial_working(
        method, n=result.n, opponent_sum=result.opponent_sum, score_x100=result.wins_x100, p_x100=result.p,
        dp=result.dp,
    )  # fmt: skip
    last = None
    for step in working.lines():
        last = check_step(step)
    if result.status == "rated":
        assert last == result.rating
        assert initial_ru(working) == result.rating
    else:
        assert initial_ru(working) is None


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1000, 2900),
    st.sampled_from([10, 15, 20, 40]),
    st.lists(st.integers(-99, 99), min_size=1, max_size=30),
    st.sampled_from(ROUNDINGS),
)
def test_a_changes_working_adds_up_to_the_change_and_rating_its_rounding_gives(ro, k, drs, rounding):
    sum_dr = sum(drs)
    change = round_with(k * sum_dr, 100, rounding)
    working = change_working(k=k, sum_dr_x100=sum_dr, k_sum_dr_x100=k * sum_dr, change=change, ro=ro)
    first, second = working.lines()
    assert check_step(first, rounding) == change
    assert check_step(second) == ro + change


FIDE_2022 = InitialMethod(name="fide-2022", min_games=1, max_rating=None)


def test_the_2022_method_writes_its_own_formula_for_one_drawn_game_against_2237():
    # The trial case of issue 51: one pooled game, a draw against 2237, FIDE's 2022 method. Ra = 2237 / 1;
    # 0.5 of 1 is 50 %, no half point above it: dp = 20 × (2 × 0.5 − 1) = 0; Ru = 2237.
    result = initial_rating(
        [PoolGame(2237, 50, Period(2015, 3), "e")], Period(2015, 3), method=FIDE_2022, floor=1000
    )
    working = initial_working(FIDE_2022, n=1, opponent_sum=2237, score_x100=50, p_x100=result.p, dp=result.dp)
    assert result.rating == 2237
    assert working.lines() == [
        "Ra = Σ / n = 2237 / 1 = 2237.00",
        "dp = 20 × (2 × W − n) = 20 × (2 × 0.50 − 1) = 0",
        "Ru = Ra + dp = 2237 / 1 + 0 = 2237.00 → 2237",
    ]


def test_the_2024_method_writes_the_two_hypothetical_draws():
    # §8.2.2 by hand: opponents 2000 × 5, score 3.5: Ra = (10000 + 3600) / 7 = 1942.857…; p = 4.5 / 7 =
    # 0.642… → 0.64; dp(0.64) = 102; Ru = 1942.857… + 102 = 2044.857… → 2045.
    working = initial_working(InitialMethod(), n=5, opponent_sum=10000, score_x100=350, p_x100=64, dp=102)
    assert working.lines() == [
        "Ra = (Σ + 2 × 1800) / (n + 2) = (10000 + 2 × 1800) / 7 = 1942.86",
        "p = (W + 1) / (n + 2) = (3.50 + 1) / 7 = 0.64",
        "dp = dp(0.64) = 102",
        "Ru = Ra + dp = (10000 + 2 × 1800) / 7 + 102 = 2044.86 → 2045",
    ]


def test_the_2022_method_below_half_reads_the_table():
    # Opponents 2000 × 5, score 1.5: Ra = 2000; p = 1.5 / 5 = 0.30; dp(0.30) = −dp(0.70) = −149; Ru = 1851.
    method = dataclasses.replace(FIDE_2022, min_games=5)
    working = initial_working(method, n=5, opponent_sum=10000, score_x100=150, p_x100=30, dp=-149)
    assert working.lines() == [
        "Ra = Σ / n = 10000 / 5 = 2000.00",
        "p = W / n = 1.50 / 5 = 0.30",
        "dp = dp(0.30) = \u2212149",
        "Ru = Ra + dp = 10000 / 5 \u2212 149 = 1851.00 → 1851",
    ]


@pytest.mark.parametrize("mark", [".", ","])
def test_a_working_writes_the_decimal_mark_of_the_page(mark):
    working = initial_working(InitialMethod(), n=5, opponent_sum=10000, score_x100=350, p_x100=64, dp=102)
    assert working.lines(mark)[0].endswith(f"1942{mark}86")
