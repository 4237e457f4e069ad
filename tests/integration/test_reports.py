"""The report functions on a database built through the real import and close path (tests/fixtures/reports).

Expected values are worked out by hand in tests/fixtures/reports/club.py and in the comments here.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from ratingdb import db
from ratingdb.errors import ConfigError, MissingList, UnknownEvent
from ratingdb.rating import Period
from ratingdb.reports.chart import k_changes, write_history_chart
from ratingdb.reports.event import event_report
from ratingdb.reports.lists import find_list, find_player, list_lines, player_history
from ratingdb.reports.period import period_report
from ratingdb.reports.sql import run_read_only
from ratingdb.reports.top import top_list
from ratingdb.schema.models import RatingList
from ratingdb.services.list_diff import Bin, list_changes, list_diff
from ratingdb.services.lists import require_list
from tests import builders
from tests.conftest import ENGINES, new_database_url
from tests.fixtures.reports.club import CLUB_AUTUMN, LATE_OPEN, NEWCOMER_CUP, build_club, run

OCT_1, NOV_1, DEC_1, JAN_1 = (
    dt.date(2025, 10, 1),
    dt.date(2025, 11, 1),
    dt.date(2025, 12, 1),
    dt.date(2026, 1, 1),
)


@pytest.fixture(scope="module", params=ENGINES)
def club(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    # Reports only read, so the tests of this module share one club database per engine.
    for url in new_database_url(request.param, request, tmp_path_factory.mktemp("club")):
        build_club(url)
        eng = db.make_engine(url)
        yield eng
        eng.dispose()


@pytest.fixture
def session(club: Engine) -> Iterator[Session]:
    with db.transaction(club) as s:
        yield s


def names(lines: list) -> list[str]:  # type: ignore[type-arg]
    return [line.name for line in lines]


# --- top ----------------------------------------------------------------------------------------------


# The imported list of 2025-10-01: Ash 2200 (1980), Elm 2100 (1955, i), Birch 2000 (F 2007),
# Dove 1900 (F 1960, wi), Cedar 1405 (1970); Fay (F 2005) unrated. Ages are 2025 − birth year.
@pytest.mark.parametrize(
    ("category", "expected"),
    [
        ("open", ["Ash, Adam", "Elm, Eli", "Birch, Bea", "Dove, Dana", "Cedar, Cal"]),
        ("women", ["Birch, Bea", "Dove, Dana"]),
        ("juniors", ["Birch, Bea"]),  # 18; Fay (20) is unrated on this list
        ("girls", ["Birch, Bea"]),
        ("seniors50", ["Elm, Eli", "Dove, Dana", "Cedar, Cal"]),  # 70, 65, 55
        ("seniors65", ["Elm, Eli", "Dove, Dana"]),  # Dove is exactly 65: included
    ],
)
def test_top_lists_rank_each_category_by_rating(session: Session, category: str, expected: list[str]) -> None:
    lines = top_list(session, find_list(session, "standard", OCT_1), category=category)  # type: ignore[arg-type]
    assert names(lines) == expected
    assert [line.rank for line in lines] == list(range(1, len(expected) + 1))


def test_juniors_are_20_or_younger_in_the_list_year(session: Session) -> None:
    # 2025-11-01: Birch 1998 (18) and Fay 1886 (newly rated, born 2005: exactly 20).
    lines = top_list(session, find_list(session, "standard", NOV_1), category="juniors")
    assert [(line.name, line.rating, line.birth_year) for line in lines] == [
        ("Birch, Bea", 1998, 2007),
        ("Fir, Fay", 1886, 2005),
    ]


def test_top_filters_by_federation_activity_and_limit(session: Session) -> None:
    nov = find_list(session, "standard", NOV_1)
    # 2025-11-01: Ash 2185, Elm 2100 (i), Birch 1998, Dove 1920 (w), Fay 1886; Cedar is unrated.
    assert names(top_list(session, nov, federation="eng")) == ["Dove, Dana"]
    assert names(top_list(session, nov, active_only=True)) == [
        "Ash, Adam",
        "Birch, Bea",
        "Dove, Dana",
        "Fir, Fay",
    ]
    assert [(x.rank, x.name, x.rating) for x in top_list(session, nov, limit=2)] == [
        (1, "Ash, Adam", 2185),
        (2, "Elm, Eli", 2100),
    ]


def test_top_refuses_a_limit_below_one(session: Session) -> None:
    with pytest.raises(ConfigError, match="--limit must be at least 1, not 0"):
        top_list(session, find_list(session, "standard", NOV_1), limit=0)


# --- list ---------------------------------------------------------------------------------------------


def test_the_first_n_entries_of_a_list_are_the_full_list_cut_after_n(engine: Engine) -> None:
    # Ties at every cut (two 2000s, three 1900s: name then id breaks them) and unrated players last.
    ratings = [1900, 2000, None, 1800, 1900, 2000, 1900, None]
    with db.transaction(engine) as session:
        players = [builders.player(session, f"Name{(7 * i) % 8}, P") for i in range(len(ratings))]
        lst = builders.imported_list(session, "standard", OCT_1, dict(zip(players, ratings, strict=True)))
        for rated_only in (False, True):
            full = list(list_lines(session, lst, rated_only=rated_only))
            assert len(full) == (6 if rated_only else 8)
            for n in range(len(full) + 2):
                assert list(list_lines(session, lst, rated_only=rated_only, limit=n)) == full[:n], n


# --- event --------------------------------------------------------------------------------------------


def test_the_event_report_shows_the_stored_calculation_and_performance(session: Session) -> None:
    report = event_report(session, CLUB_AUTUMN)
    assert (report.name, report.period, report.list_date, report.ratings_from, report.late) == (
        "Club Autumn",
        "2025-10",
        NOV_1,
        OCT_1,
        False,
    )
    got = [
        (x.name, x.ro, x.rc_x100, x.games, x.score_x100, x.k, x.k_sum_dr_x100, x.performance, x.status)
        for x in report.lines
    ]
    # Rc: Ash and Birch met 1405 and 1900 → 3305 / 2 = 1652.50; Cedar and Dove met 2200 and 2000 → 2100.
    # Rp = Ra (rounded, .5 up) + dp(percentage): Ash 1653 + dp(50 %) 0 = 1653; Birch 1653 + dp(75 %) 193
    # = 1846; Cedar 2100 − 800 (0 %) = 1300; Dove 2100 + 193 = 2293. K × Σ as in club.py.
    assert got == [
        ("Ash, Adam", 2200, 165250, 2, 100, 20, -1540, 1653, "rated"),
        ("Birch, Bea", 2000, 165250, 2, 150, 40, -240, 1846, "rated"),
        ("Cedar, Cal", 1405, 210000, 2, 0, 40, -640, 1300, "rated"),
        ("Dove, Dana", 1900, 210000, 2, 150, 20, 1980, 2293, "rated"),
    ]


def test_the_event_report_flags_the_player_it_newly_rated(session: Session) -> None:
    report = event_report(session, NEWCOMER_CUP)
    fay, *others = report.lines
    # Fay's opponents: 2200, 2000, 1900, 1405, 2100 → Rc 9605 / 5 = 1921.00; 2.5 / 5 = 50 % → Rp 1921.
    assert (fay.name, fay.ro, fay.rc_x100, fay.games, fay.score_x100, fay.performance) == (
        "Fir, Fay",
        None,
        192100,
        5,
        250,
        1921,
    )
    assert (fay.status, fay.new_rating) == ("newly rated", 1886)
    # Their games against an unrated player are not rated for them (docs/rules/index.md).
    assert {(x.name, x.status, x.games) for x in others} == {
        (name, "not rated", 0) for name in ("Ash, Adam", "Birch, Bea", "Dove, Dana", "Cedar, Cal", "Elm, Eli")
    }


def test_a_late_event_reports_its_own_period(session: Session) -> None:
    report = event_report(session, LATE_OPEN)
    assert (report.period, report.natural_period, report.late, report.list_date, report.ratings_from) == (
        "2025-11",
        "2025-10",
        True,
        DEC_1,
        OCT_1,
    )


def test_an_unknown_event_is_refused(session: Session) -> None:
    with pytest.raises(UnknownEvent, match="there is no event 99"):
        event_report(session, 99)


def test_an_event_of_an_open_period_has_no_calculation_yet(db_url: str, engine: Engine) -> None:
    build_club(db_url, through="2025-10")
    with db.transaction(engine) as s:
        report = event_report(s, LATE_OPEN)
    assert report.list_date is None
    assert [(x.name, x.status, x.new_rating) for x in report.lines] == [
        ("Ash, Adam", "not rated yet", None),
        ("Birch, Bea", "not rated yet", None),
    ]


# --- period -------------------------------------------------------------------------------------------


def test_the_period_report_names_what_the_october_close_did(session: Session) -> None:
    report = period_report(session, Period(2025, 10), "standard")
    assert (report.list_date, report.in_force_date, report.players_on_list, report.players_rated) == (
        NOV_1,
        OCT_1,
        6,
        4,
    )
    assert [(m.name, m.before, m.after, m.games) for m in report.newly_rated] == [("Fir, Fay", None, 1886, 5)]
    assert [(m.name, m.before, m.after) for m in report.dropped_below_floor] == [("Cedar, Cal", 1405, None)]
    assert [(m.name, m.flag_before, m.flag_after) for m in report.active_again] == [("Dove, Dana", "wi", "w")]
    assert report.became_inactive == []
    assert [(m.name, m.change) for m in report.gains] == [("Dove, Dana", 20)]
    # Cedar's −6 is a loss of the close even though the result (1399) is shown as unrated.
    assert [(m.name, m.before, m.after, m.change) for m in report.losses] == [
        ("Ash, Adam", 2200, 2185, -15),
        ("Cedar, Cal", 1405, 1399, -6),
        ("Birch, Bea", 2000, 1998, -2),
    ]
    assert report.k_changes == []
    assert [(e.name, e.players, e.games_played, e.games_rated, e.late) for e in report.events] == [
        ("Club Autumn", 4, 4, 4, False),
        ("Newcomer Cup", 6, 5, 5, False),
    ]


def test_the_period_report_lists_a_late_event(session: Session) -> None:
    report = period_report(session, Period(2025, 11), "standard")
    assert [(e.name, e.natural_period) for e in report.late_events] == [("Late Open", "2025-10")]
    assert [(m.name, m.change) for m in report.gains + report.losses] == [
        ("Birch, Bea", 10),
        ("Ash, Adam", -5),
    ]


def test_the_january_list_shows_a_junior_leaving_k_40(session: Session) -> None:
    report = period_report(session, Period(2025, 12), "standard")
    assert [(k.name, k.k_before, k.k_after) for k in report.k_changes] == [("Birch, Bea", 40, 20)]
    assert report.k_changes[0].reason == "53 rated games and never reached 2400 → K 20 (§8.3.3)"
    assert (report.players_rated, report.events) == (0, [])


def test_the_largest_gains_and_losses_are_cut_to_top(session: Session) -> None:
    report = period_report(session, Period(2025, 10), "standard", top=1)
    assert [(m.name, m.change) for m in report.gains + report.losses] == [
        ("Dove, Dana", 20),
        ("Ash, Adam", -15),
    ]


def test_a_period_whose_list_was_imported_has_no_close_to_report(session: Session) -> None:
    with pytest.raises(MissingList) as refused:
        period_report(session, Period(2025, 9), "standard")
    assert str(refused.value) == (
        "the standard list dated 2025-10-01 was imported, not computed here: "
        "period 2025-09 has no close to report"
    )


def test_a_period_not_closed_yet_is_refused_with_the_lists_there_are(session: Session) -> None:
    with pytest.raises(MissingList) as refused:
        period_report(session, Period(2026, 1), "standard")
    assert str(refused.value) == (
        "there is no standard list dated 2026-02-01 (lists in the database: 2025-10-01, 2025-11-01, "
        "2025-12-01, 2026-01-01)"
    )


def test_a_player_becomes_inactive_after_twelve_periods_without_a_rated_game(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    # An imported active entry counts as active in the period before its list (2025-09); with no rated
    # game in the 12 periods 2025-10 … 2026-09 the close of 2026-09 flags him i (§7.2.2).
    csv = tmp_path / "quiet.csv"
    csv.write_text('fide_id,name,sex,birth_year,rating,k\n400001,"Quiet, Quentin",M,1980,2000,20\n', "utf-8")
    run(db_url, "import-list", csv, "--date", "2025-10-01", "--type", "standard")
    periods = [Period(2025, 10).shift(i) for i in range(12)]
    for p in periods:
        run(db_url, "close-period", str(p))
    with db.transaction(engine) as s:
        before = period_report(s, periods[-2], "standard")
        last = period_report(s, periods[-1], "standard")
    assert before.became_inactive == []
    assert [(m.name, m.before, m.after, m.flag_before, m.flag_after) for m in last.became_inactive] == [
        ("Quiet, Quentin", 2000, 2000, None, "i")
    ]


# --- diff ---------------------------------------------------------------------------------------------


def test_the_diff_of_two_lists_counts_entries_exits_and_changes(session: Session) -> None:
    diff = list_diff(
        session, require_list(session, "standard", OCT_1), require_list(session, "standard", NOV_1)
    )
    assert [(x.name, x.before, x.after) for x in diff.entered] == [("Fir, Fay", None, 1886)]
    # Cedar is still on the November list, below the floor: unrated, not gone.
    assert [(x.name, x.before, x.after) for x in diff.became_unrated] == [("Cedar, Cal", 1405, None)]
    assert diff.left == []
    assert [(x.name, x.change) for x in diff.changed] == [
        ("Dove, Dana", 20),
        ("Birch, Bea", -2),
        ("Ash, Adam", -15),
    ]
    assert diff.unchanged == 1  # Elm, inactive: 2100 on both
    # Bins of 10: −15 → −20..−11, −2 → −10..−1, +20 → +11..+20, and the empty +1..+10 between them.
    assert diff.histogram == [Bin(-20, -11, 1), Bin(-10, -1, 1), Bin(1, 10, 0), Bin(11, 20, 1)]
    assert [b.label for b in diff.histogram] == ["-20..-11", "-10..-1", "+1..+10", "+11..+20"]


def test_a_wider_bin_puts_all_changes_in_two_bins(session: Session) -> None:
    diff = list_diff(
        session,
        require_list(session, "standard", OCT_1),
        require_list(session, "standard", NOV_1),
        bin_width=50,
    )
    assert diff.histogram == [Bin(-50, -1, 2), Bin(1, 50, 1)]


def test_the_changes_of_two_lists_are_the_diffs_lines_without_the_unchanged(session: Session) -> None:
    # list_changes (what a close changed: `close-period --dry-run`) asks the database for the changed rows
    # only; it must give list_diff's lines, in its order, for any two lists of a type: here every ordered
    # pair of the four, which between them have each kind of line (November against October has Fir
    # entering; October against November has her leaving, absent from October).
    lists = [require_list(session, "standard", day) for day in (OCT_1, NOV_1, DEC_1, JAN_1)]
    kinds = _same_changes(session, lists)
    assert kinds == {"changed": 26, "entered": 6, "became_unrated": 6, "left": 0}


def test_the_changes_of_two_imported_lists_name_who_left_and_who_entered(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    # The club's lists all hold every player; imported lists need not: Ash leaves, Dee enters, Bo and Cy
    # (two players of one name, as list_diff orders them) change, Eve stays.
    head = "fide_id,name,sex,birth_year,rating,k\n"
    october = tmp_path / "october.csv"
    october.write_text(
        head + '500001,"Ash, A",M,1980,2000,20\n500002,"Bo, B",F,1990,1800,20\n'
        '500003,"Bo, B",M,1991,1700,20\n500005,"Eve, E",F,1985,1600,20\n',
        "utf-8",
    )
    november = tmp_path / "november.csv"
    november.write_text(
        head + '500002,"Bo, B",F,1990,1810,20\n500003,"Bo, B",M,1991,1710,20\n'
        '500004,"Dee, D",M,2000,1500,40\n500005,"Eve, E",F,1985,1600,20\n',
        "utf-8",
    )
    run(db_url, "import-list", october, "--date", "2025-10-01", "--type", "standard")
    run(db_url, "import-list", november, "--date", "2025-11-01", "--type", "standard", "--replace-list")
    with db.transaction(engine) as s:
        lists = [require_list(s, "standard", day) for day in (OCT_1, NOV_1)]
        assert _same_changes(s, lists) == {"changed": 4, "entered": 2, "became_unrated": 0, "left": 2}
        lines = list_changes(s, *lists)
    assert [(x.fide_id, x.before, x.after) for x in lines] == [
        (500002, 1800, 1810),
        (500003, 1700, 1710),
        (500004, None, 1500),
        (500001, 2000, None),
    ]


def _same_changes(session: Session, lists: list[RatingList]) -> dict[str, int]:
    """list_changes of every ordered pair of `lists` checked against list_diff; the lines of each kind."""
    kinds = {"changed": 0, "entered": 0, "became_unrated": 0, "left": 0}
    for a in lists:
        for b in lists:
            diff = list_diff(session, a, b)
            expected = [*diff.changed, *diff.entered, *diff.became_unrated, *diff.left]
            assert list_changes(session, a, b) == expected, (a.list_date, b.list_date)
            for kind in kinds:
                kinds[kind] += len(getattr(diff, kind))
    return kinds


# --- history and chart --------------------------------------------------------------------------------


def test_the_history_marks_the_published_k_change(session: Session) -> None:
    history = player_history(session, find_player(session, "300002"))
    assert [(h.list_date, h.rating, h.k) for h in history] == [
        (OCT_1, 2000, 40),
        (NOV_1, 1998, 40),
        (DEC_1, 2008, 40),
        (JAN_1, 2008, 20),
    ]
    assert [(line.list_date, before, line.k) for line, before in k_changes(history)] == [(JAN_1, 40, 20)]


def test_the_chart_is_a_real_png_of_the_documented_size(session: Session, tmp_path: Path) -> None:
    history = player_history(session, find_player(session, "300002"))
    path = tmp_path / "birch.png"
    write_history_chart(history, path, "Birch, Bea")
    with Image.open(path) as image:
        assert (image.format, image.size) == ("PNG", (900, 450))  # 9 × 4.5 inches at 100 dpi
        # A drawn chart, not a blank canvas: many distinct colours (lines, text, grid).
        assert len(image.convert("RGB").getcolors(maxcolors=100_000) or []) > 20


def test_the_chart_can_be_an_svg(session: Session, tmp_path: Path) -> None:
    history = player_history(session, find_player(session, "300002"))
    path = tmp_path / "birch.svg"
    write_history_chart(history, path, "Birch, Bea")
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == ("648pt", "324pt")  # 9 × 72, 4.5 × 72
    assert "K 40→20" in path.read_text("utf-8") or "K 40" in path.read_text("utf-8")


def test_a_chart_needs_a_png_or_svg_name(session: Session, tmp_path: Path) -> None:
    history = player_history(session, find_player(session, "300002"))
    with pytest.raises(ConfigError, match="a chart is written as .png or .svg"):
        write_history_chart(history, tmp_path / "birch.jpg", "Birch")


# --- sql ----------------------------------------------------------------------------------------------


def test_a_view_query_gives_the_same_rows_on_every_engine(club: Engine) -> None:
    result = run_read_only(
        club,
        "SELECT c.name, c.rc, c.score, c.k_sum_dr, e.reached_2300 AS reached "
        "FROM v_calc_event c JOIN v_list_entry e ON e.player_id = c.player_id AND e.list_date = c.list_date "
        "WHERE c.event_id = 1 ORDER BY c.player_id",
    )
    assert result.columns == ["name", "rc", "score", "k_sum_dr", "reached"]
    # Points as numbers with two decimals (exact as doubles), booleans as 0/1, on both engines.
    assert result.rows == [
        ("Ash, Adam", 1652.5, 1.0, -15.4, 0),
        ("Birch, Bea", 1652.5, 1.5, -2.4, 0),
        ("Cedar, Cal", 2100.0, 0.0, -6.4, 0),
        ("Dove, Dana", 2100.0, 1.5, 19.8, 0),
    ]
