"""The order of FIDE's titles (Title Regulations B.01, 0.3) as a merge keeps the higher."""

from __future__ import annotations

import pytest

from ratingdb.rating.titles import higher_title


@pytest.mark.parametrize(
    ("a", "b", "higher"),
    [
        ("IM", None, "IM"),
        (None, "WCM", "WCM"),
        (None, None, None),
        ("IM", "GM", "GM"),
        ("WGM", "IM", "IM"),  # B.01 0.3 lists IM before WGM
        ("WGM", "FM", "WGM"),  # … and WGM before FM
        ("FM", "WIM", "FM"),
        ("WFM", "CM", "CM"),
        ("WCM", "WFM", "WFM"),
    ],
)
def test_the_higher_title_is_the_one_fide_lists_first(
    a: str | None, b: str | None, higher: str | None
) -> None:
    assert higher_title(a, b) == higher
    assert higher_title(b, a) == higher
