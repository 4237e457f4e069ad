"""Clubs on the public pages (issue 47): the player page says the club, the event page each line's, and a
list whose players have clubs has a Club column and a club filter — served and static alike.

On a copy of the SQLite demo with clubs written on three event lines, as an import with
`--federation-column clubs` writes them: the pages read them by the same query on every engine
(tests/integration/test_clubs.py runs it on each)."""

from __future__ import annotations

import functools
import sqlite3
import threading
from contextlib import closing
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from tests.site.conftest import publish
from tests.site.test_browser import QuietHandler, chromium, visible_rows
from tests.site.test_publish import DOYLE_PAGE, parse, rows, text_of
from tests.site.web import client

LIST = "lists/standard-2025-12-01.html"
EARLY_LIST = "lists/standard-2025-10-01.html"  # before any event that names a club
KILKENNY, SLIGO = (
    6,
    11,
)  # the demo's standard Kilkenny Congress (5 October) and Sligo Autumn Open (26 October)
DOYLE_ID, DUNNE_ID = 11, 213  # Doyle, Patrick and Dunne, Niamh (both at Kilkenny; Doyle at Sligo too)


@pytest.fixture(scope="module")
def clubbed(demo_sqlite_url: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The demo with the clubs written, and its static site published (the two tests only read them)."""
    folder = tmp_path_factory.mktemp("clubs")
    url = _with_clubs(demo_sqlite_url, folder)
    publish(url, folder / "www", "--title", "Demo Chess Federation")
    return url, folder / "www"


def _with_clubs(demo_sqlite_url: str, tmp_path: Path) -> str:
    path = tmp_path / "demo.sqlite"
    path.write_bytes(Path(demo_sqlite_url.removeprefix("sqlite:///")).read_bytes())
    # The demo's periods are closed, and their event lines cannot change: the guard is lifted on this copy
    # for the three lines (the clubs are written as an import would have written them), then restored.
    with closing(sqlite3.connect(path)) as conn, conn:
        guard = "trg_event_player_closed_update"
        (ddl,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (guard,)).fetchone()
        conn.execute(f"DROP TRIGGER {guard}")
        conn.executemany(
            "UPDATE event_player SET club = ? WHERE event_id = ? AND player_id = ?",
            [("KIL", KILKENNY, DOYLE_ID), ("KIL", KILKENNY, DUNNE_ID), ("SLI", SLIGO, DOYLE_ID)],
        )
        conn.execute(ddl)
    return f"sqlite:///{path}"


def _details(page: bytes) -> dict[str, str]:
    found = parse(page).find(".//dl[@class='details']")
    assert found is not None
    terms = [text_of(e) for e in found.findall("dt")]
    return dict(zip(terms, [text_of(e) for e in found.findall("dd")], strict=True))


def _options(page: bytes, select: str) -> list[str] | None:
    found = parse(page).find(f".//select[@{select}]")
    return None if found is None else [text_of(o) for o in found.findall("option")]


def test_clubs_show_on_the_player_event_and_list_pages_and_filter_the_list(clubbed: tuple[str, Path]) -> None:
    url, folder = clubbed
    with client(url, title="Demo Chess Federation") as served:
        for where, page in (
            ("served", lambda p: served.get(f"/{p}").content),
            ("static", lambda p: (folder / p).read_bytes()),
        ):
            # Doyle's club is his latest file's: Sligo's, after Kilkenny's.
            assert _details(page(DOYLE_PAGE))["Club"] == "SLI", where
            # The event page names each line's club beside the name.
            table = parse(page(f"events/{KILKENNY}.html")).find(".//table")
            assert table is not None
            named = {r[2] for r in rows(table) if r[2].endswith(" KIL")}
            assert named == {"Doyle, Patrick KIL", "Dunne, Niamh KIL"}, where
            # The list of 1 December: a Club column, and a club filter offering the clubs it holds.
            listed = parse(page(LIST)).find(".//table[@id='list']")
            assert listed is not None
            heads = [text_of(th) for th in listed.findall("thead/tr/th")]
            assert heads[3:5] == ["Fed", "Club"], where
            clubs = {r[2]: r[4] for r in rows(listed) if r[4]}
            assert clubs == {"Doyle, Patrick": "SLI", "Dunne, Niamh": "KIL"}, where
            select = "name='club'" if where == "served" else "id='f-club'"
            assert _options(page(LIST), select) == ["all", "KIL", "SLI"], where
            # The list of 1 October is older than every file naming a club: no column, no filter.
            early = parse(page(EARLY_LIST)).find(".//table[@id='list']")
            assert early is not None and "Club" not in [text_of(th) for th in early.findall("thead/tr/th")]
            assert _options(page(EARLY_LIST), select) is None
        # Served, the filter is the server's: ?club=KIL gives Dunne only (Doyle's is SLI by December).
        found = parse(served.get(f"/{LIST}", params={"club": "KIL"}).content).find(".//table[@id='list']")
        assert found is not None and [r[2] for r in rows(found)] == ["Dunne, Niamh"]
        assert served.get(f"/{LIST}", params={"club": "X" * 11}).status_code == 400


def test_the_static_list_page_filters_by_club_in_chromium(clubbed: tuple[str, Path]) -> None:
    # The static page's script (site.js) filters the rows by the Club column, as the server does.
    _, folder = clubbed
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with chromium() as driver:
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/{LIST}")
            wait = WebDriverWait(driver, 20)
            form = driver.find_element(By.ID, "filters")
            wait.until(lambda _: form.is_displayed())  # the script ran and showed the filters
            shown = driver.find_element(By.ID, "shown")
            Select(driver.find_element(By.ID, "f-club")).select_by_visible_text("KIL")
            wait.until(lambda _: shown.text == "Showing 1 of 300 players")
            assert [(row[2], row[4]) for row in visible_rows(driver)] == [("Dunne, Niamh", "KIL")]
            Select(driver.find_element(By.ID, "f-club")).select_by_value("")
            wait.until(lambda _: shown.text == "Showing 300 of 300 players")
    finally:
        server.shutdown()
        server.server_close()
