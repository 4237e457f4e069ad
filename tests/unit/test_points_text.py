"""Points printed from hundredths (the calculation's sentences and the site's game tables): exact text."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from ratingdb.reports.lists import points, signed_points


def test_points_are_printed_with_two_decimals_and_a_sign_when_asked() -> None:
    assert [points(x) for x in (326, -51, 0, 5, -100, 100_000)] == [
        "3.26",
        "-0.51",
        "0.00",
        "0.05",
        "-1.00",
        "1000.00",
    ]
    assert [signed_points(x) for x in (326, -51, 0)] == ["+3.26", "-0.51", "+0.00"]
    assert points(None) == signed_points(None) == "—"


@given(st.integers(min_value=-(10**9), max_value=10**9))
def test_points_read_as_the_decimal_value_of_the_hundredths(x100: int) -> None:
    assert points(x100) == f"{Decimal(x100) / 100:.2f}"
    assert signed_points(x100) == f"{Decimal(x100) / 100:+.2f}"


@given(
    st.integers(min_value=-(10**9), max_value=10**9),
    st.sampled_from(["de", "fr", "sv", "fa", "he", "hi", "pl"]),
)
def test_a_languages_points_are_babels_decimal_with_two_places(x100: int, code: str) -> None:
    # Language.hundredths writes them with the locale's minus and separator where that gives Babel's text
    # (de 1234,56; hi 1234.56), and through Babel where it would not (sv's minus sign, fa's and he's marks).
    from babel.numbers import format_decimal

    from ratingdb.i18n import Language

    assert Language(code).hundredths(x100) == format_decimal(Decimal(x100) / 100, format="0.00", locale=code)
