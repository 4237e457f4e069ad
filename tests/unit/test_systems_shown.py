"""The display seam (ratingdb.reports.systems): what differs per rating system comes from one place.

A template that shows lists, closes or the pages' frame loops over a `Shown`'s counts, columns, downloads
and footer; it never names a system, so a third system adds a module to ratingdb/reports/systems/ and a
line in SHOWN, not a branch in each template.
"""

from __future__ import annotations

import datetime as dt
import re
from importlib import resources

import pytest

from ratingdb.errors import ConfigError
from ratingdb.i18n import Language
from ratingdb.rating import Period
from ratingdb.reports.period import PeriodReport
from ratingdb.reports.systems import SHOWN, shown

FRAME_TEMPLATES = ("base.html", "home.html", "list.html", "period.html", "event.html", "macros.html")


@pytest.mark.parametrize("template", FRAME_TEMPLATES)
def test_no_template_of_lists_closes_or_the_frame_names_a_rating_system(template: str) -> None:
    source = resources.files("ratingdb.site").joinpath("templates", template).read_text("utf-8")
    named = re.findall(
        r"glicko|\belo\b|FIDE text|FIDE Rating Regulations|below the floor|K changes", source, re.I
    )
    assert named == [], f"{template} names {named}: it belongs in ratingdb/reports/systems/"


def test_every_system_a_close_can_run_is_shown() -> None:
    from ratingdb.services.systems import SYSTEMS

    assert set(SHOWN) == set(SYSTEMS)
    assert all(name == system.name for name, system in SHOWN.items())


def test_an_unknown_system_is_refused_with_the_known_ones() -> None:
    with pytest.raises(
        ConfigError, match="no display for the rating system 'trueskill': known are elo, glicko2"
    ):
        shown("trueskill")


def test_each_system_counts_a_close_in_its_own_terms() -> None:
    report = PeriodReport(Period.parse("2025-10"), "club", dt.date(2025, 11, 1), dt.date(2025, 10, 1), None)
    report.players_on_list, report.deviations_widened = 5, 1
    english = Language("en")
    elo, glicko2 = shown("elo").counts(report, english), shown("glicko2").counts(report, english)
    assert elo[0] == "5 players on the list: 0 players rated, 0 newly rated, 0 below the floor"
    assert elo[3] == "0 K changes, 0 events (0 late)"
    assert glicko2[0] == "5 players on the list: 0 players rated, 0 newly rated"
    assert glicko2[2] == "1 deviations widened: rated players without a game (Glickman's Step 6)"
    assert not any("floor" in line or "K changes" in line or "inactive" in line for line in glicko2)
    assert [d.suffix for d in shown("elo").downloads] == ["csv", "txt"]
    assert [d.suffix for d in shown("glicko2").downloads] == ["csv"]
