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
        ConfigError, match="no display for the rating system 'trueskill': known are elo, glicko, glicko2"
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


def test_each_system_shows_a_change_to_the_precision_of_its_ratings() -> None:
    from ratingdb.rating.glicko2 import PublishedGlicko2
    from ratingdb.services.glicko2_lists import Glicko2Shown

    english, german = Language("en"), Language("de")
    elo, glicko2 = shown("elo").change, shown("glicko2").change
    # Elo's ratings are whole points, and so is its change.
    assert [elo(c, None, english) for c in (12, 0, -69, None)] == ["+12", "0", "-69", ""]
    # The demo's Noel Byrne on the club list: 1412.00 → 1342.89 is −69.11 (1342.89 − 1412.00), whatever
    # list_entry's whole points say (1343 − 1412 = −69); idle, 1342.89 → 1342.89 is 0.00; a newcomer or
    # a row of an imported list has no change.
    byrne = Glicko2Shown(PublishedGlicko2(134289, 10500, 60003), False, -6911)
    idle = Glicko2Shown(PublishedGlicko2(134289, 10552, 60003), False, 0)
    gain = Glicko2Shown(PublishedGlicko2(141230, 10000, 60000), False, 1230)  # 1400.00 → 1412.30
    newcomer = Glicko2Shown(PublishedGlicko2(150000, 35000, 60000), True, None)
    assert [glicko2(-69, f, english) for f in (byrne, idle, gain, newcomer, None)] == [
        "-69.11", "0.00", "+12.30", "", ""
    ]  # fmt: skip
    assert glicko2(-69, byrne, german) == "-69,11"
