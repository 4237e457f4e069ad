"""Live ratings equal what the next closes publish, and computing them leaves the database as it was.

The demo federation with its October and November standard closes reopened (both lists withdrawn, the
events stay): the live list is then the list of 1 October plus two open periods' events. Closing both
periods must publish exactly the live ratings, games, K, flags and calculations — on every engine.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.rating import Period
from ratingdb.reports.lists import calculation_summary, list_calculations, list_lines
from ratingdb.reports.live import PROVISIONAL, LiveList, live_list
from ratingdb.services.lists import list_on
from tests.site.web import client

runner = CliRunner()
TABLES = ("rating_list", "list_entry", "calc_player", "calc_game", "calc_list_event", "audit_log", "event")


@pytest.fixture
def reopened(db_url: str) -> Iterator[str]:
    for args in (
        ["demo", "--db", db_url, "--force"],
        ["--db", db_url, "reopen", "2025-10", "--type", "standard", "--reason", "live-rating test"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    yield db_url


def counts(url: str) -> dict[str, int]:
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            return {t: conn.scalar(text(f"SELECT COUNT(*) FROM {t}")) or 0 for t in TABLES}
    finally:
        engine.dispose()


def compute(url: str) -> LiveList:
    engine = db.make_engine(url)
    try:
        with db.session_factory(engine)() as session:
            session.begin()
            try:
                return live_list(session, "standard")
            finally:
                session.rollback()
    finally:
        engine.dispose()


def test_live_ratings_equal_what_the_closes_then_publish(reopened: str) -> None:
    before = counts(reopened)
    live = compute(reopened)
    assert counts(reopened) == before  # nothing written, not even an audit row
    assert live.in_force.isoformat() == "2025-10-01"
    assert live.periods == ["2025-10", "2025-11"]
    assert len(live.events) == len({e.event_id for e in live.events}) > 3
    changed = [e for e in live.entries if e.games]
    assert len(changed) > 50

    for period in ("2025-10", "2025-11"):
        result = runner.invoke(app, ["--db", reopened, "close-period", period, "--type", "standard"])
        assert result.exit_code == 0, result.output
    engine = db.make_engine(reopened)
    try:
        with db.transaction(engine) as session:
            published = list_on(session, "standard", Period(2025, 11).published_list_date)
            assert published is not None and published.version == 2
            lines = list(list_lines(session, published))
            assert [(e.player_id, e.rating, e.k, e.flag) for e in live.entries] == [
                (line.player_id, line.rating, line.k, line.flag) for line in lines
            ]
            # Each player's calculation in each period, sentence for sentence and game for game.
            for period in (Period(2025, 10), Period(2025, 11)):
                closed = list_on(session, "standard", period.published_list_date)
                assert closed is not None
                record = list_calculations(session, closed)
                shown = {
                    e.player_id: c for e in live.entries for c in e.calculations if c.period == str(period)
                }
                assert shown.keys() == record.keys()
                for player_id, calc in record.items():
                    assert shown[player_id].summary == calculation_summary(calc)
                    assert shown[player_id].events == calc.events
    finally:
        engine.dispose()
    # Doyle's October: 39 games, 1846 → 1901 (README, "What each seeded case shows"), then no games.
    doyle = next(e for e in live.entries if e.fide_id == 25900011)
    assert (doyle.official, doyle.rating, doyle.change, doyle.games) == (1846, 1901, 55, 39)


def test_the_live_pages_api_and_command_say_provisional_and_agree(reopened: str) -> None:
    live = compute(reopened)
    doyle = next(e for e in live.entries if e.fide_id == 25900011)
    with client(reopened) as c:
        api = c.get("/api/v1/players/25900011/live", params={"type": "standard"}).json()
        assert api["notice"] == PROVISIONAL
        [standard] = api["ratings"]
        assert (standard["official"], standard["rating"], standard["change"], standard["games"]) == (
            1846,
            1901,
            55,
            39,
        )
        assert [c["period"] for c in standard["calculations"]] == ["2025-10"]
        page = c.get("/players/10011.html").text
        assert "Live standard rating: 1901" in page and PROVISIONAL in page
        assert "the events imported since change it by +55" in page
        listing = c.get("/live/standard.html", params={"name": "doyle"}).text
        assert PROVISIONAL.capitalize() in listing and "Doyle, Patrick" in listing
    result = runner.invoke(
        app, ["--db", reopened, "live", "25900011", "--type", "standard", "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].startswith(
        f'standard,25900011,{doyle.national_id},"Doyle, Patrick",1846,1901,55,39,'
    )
    table = runner.invoke(app, ["--db", reopened, "live", "25900011", "--type", "standard"])
    assert table.stdout.splitlines()[:3] == [
        "Live ratings: provisional — not an official rating.",
        f"standard: the list of 2025-10-01 plus {len(live.events)} events of open periods (2025-10, 2025-11)",
        "Doyle, Patrick (FIDE 25900011, national "
        f"{doyle.national_id}), born {table.stdout.split('born ')[1][:4]}, IRL",
    ]


def test_live_without_a_list_is_one_sentence(db_url: str) -> None:
    result = runner.invoke(app, ["--db", db_url, "live", "--type", "standard"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: there is no standard list yet, so no live ratings: import one with `ratingdb import-list`\n"
    )


def test_the_live_pages_name_the_list_they_foresee_and_say_it_is_not_published(reopened: str) -> None:
    # Issue 51: a November event of the reopened demo took its ratings from the list of 1 November, which the
    # close of 2025-10 would publish: the pages said "ratings from the list dated Nov 1, 2025" as if it were
    # published. Doyle played in October only: his events use the list in force (1 October), which exists.
    live = compute(reopened)
    november = next(
        e for e in live.entries if e.national_id and [c.period for c in e.calculations] == ["2025-11"]
    )
    with client(reopened) as c:
        doyle = c.get("/players/10011.html").text
        assert (
            "Period 2025-10 (open): the list the next close would publish, dated Nov 1, 2025, would say — "
            "not published yet" in doyle
        )
        assert "ratings from the list dated Oct 1, 2025" in doyle
        page = c.get(f"/players/{november.national_id}.html")
        assert page.status_code == 200
        assert (
            "Period 2025-11 (open): the list its close would publish, dated Dec 1, 2025, would say — not "
            "published yet" in page.text
        )
        assert (
            "ratings from the list the close of 2025-10 would publish, dated Nov 1, 2025 — not published yet"
            in page.text
        )
        live_part = page.text.split("<!--/served-->")[0]  # below: the closed calculations of other types
        assert "ratings from the list dated Nov 1, 2025" not in live_part
    table = runner.invoke(app, ["--db", reopened, "live", "25900011", "--type", "standard"])
    assert (
        "standard, period 2025-10 (open): the list the next close would publish, dated 2025-11-01 — not "
        "published yet:" in table.stdout
    )
