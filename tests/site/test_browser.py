"""The published list and player pages in a real browser: Debian's headless Chromium driven by Selenium.

Needs /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium chromium-driver; .ci/run
installs them). Skipped where they are missing, except in CI, where a missing browser is a failure.
With RATINGDB_SCREENSHOTS=FOLDER the test also saves the screenshots the README shows.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import os
import threading
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from tests.site.conftest import publish
from tests.site.web import shown_text

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
LIST_PAGE = "lists/standard-2025-12-01.html"


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def site_url(demo_sqlite_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo site, published and served on 127.0.0.1 (a free port) for the length of the module."""
    folder = tmp_path_factory.mktemp("browser") / "www"
    publish(demo_sqlite_url, folder, "--title", "Demo Chess Federation")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with chromium() as driver:
        yield driver


@contextlib.contextmanager
def chromium(language: str | None = None) -> Iterator[WebDriver]:
    """Debian's headless Chromium; with `language`, a browser that asks for pages in it (Accept-Language)."""
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        message = (
            f"the browser test needs {CHROMIUM} and {CHROMEDRIVER}: apt-get install chromium chromium-driver"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)  # given explicitly: nothing is looked up or downloaded
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"):
        options.add_argument(argument)
    if language:
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def visible_rows(driver: WebDriver) -> list[list[str]]:
    """The cells of the list rows the browser shows (hidden rows left out)."""
    return driver.execute_script(  # type: ignore[no-any-return]
        "return Array.from(document.querySelectorAll('#list tbody tr'))"
        ".filter(function (row) { return !row.hidden; })"
        ".map(function (row) { return Array.from(row.cells).map(function (c) { return c.textContent; }); });"
    )


def women_active(site_url: str) -> list[str]:
    """Names of the active women on the list, read from the page's own CSV download."""
    with urllib.request.urlopen(site_url + LIST_PAGE.replace(".html", ".csv")) as response:
        text = response.read().decode("utf-8")
    return [
        row["name"]
        for row in csv.DictReader(io.StringIO(text))
        if row["sex"] == "F" and row["flag"] not in ("i", "wi")
    ]


def screenshot(driver: WebDriver, name: str) -> None:
    folder = os.environ.get("RATINGDB_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / name))


def test_filter_sort_and_open_a_player_in_chromium(site_url: str, browser: WebDriver) -> None:
    browser.get(site_url + LIST_PAGE)
    wait = WebDriverWait(browser, 10)
    form = browser.find_element(By.ID, "filters")
    wait.until(lambda _: form.is_displayed())  # the script ran and showed the filters
    shown = browser.find_element(By.ID, "shown")
    assert shown.text == "Showing 300 of 300 players"
    screenshot(browser, "publish-list.png")

    # A name typed in the filter: only the three Doyles stay, in rating order.
    name = browser.find_element(By.ID, "f-name")
    name.send_keys("doyle")
    wait.until(lambda _: shown.text == "Showing 3 of 300 players")
    assert [(row[2], row[6]) for row in visible_rows(browser)] == [
        ("Doyle, Siobhán", "1908"),
        ("Doyle, Patrick", "1901"),
        ("Doyle, Cian", "1819"),
    ]

    # Women who are active, counted from the list's own CSV download.
    name.clear()
    Select(browser.find_element(By.ID, "f-group")).select_by_value("women")
    browser.find_element(By.ID, "f-active").click()
    wait.until(lambda _: shown.text != "Showing 3 of 300 players")
    expected = women_active(site_url)
    assert shown.text == f"Showing {len(expected)} of 300 players"
    assert sorted(row[2] for row in visible_rows(browser)) == sorted(expected)

    # Sorted by rating: the first click keeps best first, the second turns it round (blanks stay last).
    Select(browser.find_element(By.ID, "f-group")).select_by_value("")
    browser.find_element(By.ID, "f-active").click()
    wait.until(lambda _: shown.text == "Showing 300 of 300 players")
    rating = browser.find_element(By.CSS_SELECTOR, "th[data-key='rating']")
    rating.find_element(By.TAG_NAME, "button").click()
    assert rating.get_attribute("aria-sort") == "descending"
    rating.find_element(By.TAG_NAME, "button").click()
    assert rating.get_attribute("aria-sort") == "ascending"
    ratings = [row[6] for row in visible_rows(browser)]
    rated = [int(r) for r in ratings if r]
    assert rated == sorted(rated) and len(rated) == 293
    assert ratings[-7:] == [""] * 7

    # The lowest rated player's page, by the link in the first row: the chart is there.
    first = browser.find_element(By.CSS_SELECTOR, "#list tbody tr td:nth-child(3) a")
    player = first.text
    first.click()
    wait.until(lambda _: shown_text(lambda: str(browser.find_element(By.TAG_NAME, "h1").text)) == player)
    chart = browser.find_element(By.CSS_SELECTOR, "figure.chart svg.history-chart")
    assert chart.is_displayed() and chart.size["width"] > 300
    points = chart.find_elements(By.CSS_SELECTOR, "g.series circle")
    # The chart draws every type the page tables (reports/chart.py): FIDE's, the demo's national list
    # and its club (Glicko-2) list, so its scale spans only what it draws; one point per rated list.
    listed = [
        row
        for table in browser.find_elements(By.CSS_SELECTOR, "table.history")
        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    rated_lists = [row for row in listed if row.find_elements(By.TAG_NAME, "td")[1].text != "unrated"]
    assert len(points) == len(rated_lists) > 0


def test_the_chart_marks_the_k_change_of_the_readme_player(site_url: str, browser: WebDriver) -> None:
    # The README's history-chart player: standard 2085 → 1988 in November, where K goes from 40 to 20.
    browser.get(site_url + "players/10230.html")  # FIDE 25900230: by national ID
    assert browser.find_element(By.TAG_NAME, "h1").text == "Mac Aodha, Kevin"
    chart = browser.find_element(By.CSS_SELECTOR, "svg.history-chart")
    assert chart.is_displayed()
    assert [g.get_attribute("class") for g in chart.find_elements(By.CSS_SELECTOR, "g.series")] == [
        # drawn in this order: the federation's lists under FIDE's (his national line is his standard one)
        "series club",
        "series league",  # the demo's Glicko league (issue 48), fed by the standard files as the club's
        "series national",
        "series standard",
        "series rapid",
    ]
    assert chart.find_element(By.CSS_SELECTOR, "g.k-changes text").text == "K 40→20"
    screenshot(browser, "publish-player.png")


def test_the_name_filter_finds_a_player_by_an_alias_in_chromium(
    demo_sqlite_url: str, tmp_path: Path, browser: WebDriver
) -> None:
    # "Ó Dúill, Pádraig" recorded as an alias of Patrick Doyle (FIDE 25900011) on a copy of the demo: the
    # static page's script finds his row by it, typed without accents (tests/site/test_served.py serves it).
    from typer.testing import CliRunner

    from ratingdb.cli import app

    path = tmp_path / "demo.sqlite"
    path.write_bytes(Path(demo_sqlite_url.removeprefix("sqlite:///")).read_bytes())
    url = f"sqlite:///{path}"
    edit = CliRunner().invoke(
        app,
        ["--db", url, "player", "edit", "25900011", "--add-alias", "Ó Dúill, Pádraig", "--reason", "Irish"],
    )
    assert edit.exit_code == 0, edit.output
    folder = tmp_path / "www"
    publish(url, folder, "--title", "Demo Chess Federation")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/{LIST_PAGE}")
        wait = WebDriverWait(browser, 10)
        form = browser.find_element(By.ID, "filters")
        wait.until(lambda _: form.is_displayed())
        shown = browser.find_element(By.ID, "shown")
        browser.find_element(By.ID, "f-name").send_keys(
            "duill"
        )  # "padraig" alone finds Lynch and Ó Briain too
        wait.until(lambda _: shown.text == "Showing 1 of 300 players")
        assert [(row[2], row[6]) for row in visible_rows(browser)] == [("Doyle, Patrick", "1901")]
    finally:
        server.shutdown()
        server.server_close()
