"""Site.shared: the parts many pages write alike (a close's heading, an event's), written once per site."""

from __future__ import annotations

import pytest
from markupsafe import Markup

from ratingdb.site import publish
from ratingdb.site.publish import Site, SiteOptions, environment


def test_a_part_is_written_once_for_its_key_and_a_site_keeps_a_bounded_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = Site(SiteOptions(), environment("en"), [], [])
    written: list[str] = []

    def write(value: str) -> Markup:
        written.append(value)
        return Markup(value.upper())

    assert site.shared(("heading", 1), write, "a") == "A"
    assert site.shared(("heading", 1), write, "a") == "A"  # kept: not written again
    assert site.shared(("heading", 2), write, "b") == "B"
    assert written == ["a", "b"]
    monkeypatch.setattr(publish, "SHARED_FRAGMENTS", 2)
    assert site.shared(("heading", 3), write, "c") == "C"  # the third: the two kept are forgotten first
    assert list(site.fragments) == [("heading", 3)]
    assert site.shared(("heading", 1), write, "a") == "A"  # written again
    assert written == ["a", "b", "c", "a"]
