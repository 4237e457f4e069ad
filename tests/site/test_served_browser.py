"""The served site in a real browser: Debian's headless Chromium, driven by Selenium, against the app
served by uvicorn. A visitor searches a misspelt name, opens the player, reads a calculation and the
live rating. With RATINGDB_SCREENSHOTS=FOLDER the test saves the screenshot the README shows.

The demo with its October and November standard closes reopened, so two periods are open and the live
ratings differ from the list in force. Skipped without the browser, except in CI (as test_browser.py).
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from typer.testing import CliRunner

from ratingdb.cli import app as cli
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings
from tests.site.test_browser import browser, screenshot  # noqa: F401 - the browser fixture

__all__ = ["browser"]


@pytest.fixture(scope="module")
def served_url(demo_sqlite_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("served") / "live.sqlite"
    shutil.copyfile(demo_sqlite_url.removeprefix("sqlite:///"), path)
    url = f"sqlite:///{path}"
    reopen = ["--db", url, "reopen", "2025-10", "--type", "standard", "--reason", "demo"]
    result = CliRunner().invoke(cli, reopen)
    assert result.exit_code == 0, result.output
    app = create_app(WebSettings(url=url, title="Demo Chess Federation"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)
        app.state.ratingdb.database.dispose()


def test_search_a_misspelt_name_then_the_player_a_calculation_and_the_live_rating(
    served_url: str,
    browser: WebDriver,  # noqa: F811 - the fixture imported above
) -> None:
    wait = WebDriverWait(browser, 20)
    browser.get(served_url)
    box = browser.find_element(By.CSS_SELECTOR, "form.search input[name='q']")
    box.send_keys("Patrik Doyle")
    browser.find_element(By.CSS_SELECTOR, "form.search button").click()
    wait.until(lambda _: browser.find_element(By.TAG_NAME, "h1").text == "Find a player")
    first = browser.find_element(By.CSS_SELECTOR, "table.found tbody tr td a")
    assert first.text == "Doyle, Patrick"
    first.click()
    wait.until(lambda _: browser.find_element(By.TAG_NAME, "h1").text == "Doyle, Patrick")

    # The live rating: the list of 1 October (1846) plus October's 39 games (+55), provisional, with its
    # calculation game by game and D and PD explained above the games.
    live = browser.find_element(By.CSS_SELECTOR, "section.live")
    note = live.find_element(By.CSS_SELECTOR, "p.note")
    assert note.text.startswith("D: the rating difference")
    heading = live.find_element(By.TAG_NAME, "h2").text
    assert heading == "Live standard rating: 1901 provisional — not an official rating"
    paragraphs = [p.text for p in live.find_elements(By.TAG_NAME, "p")]
    assert paragraphs[0].startswith("The standard list in force (2025-10-01) says 1846")
    assert "Ro 1846, K 20 → 17 by the 700 rule (39 games)" in paragraphs[2]
    games = live.find_elements(By.CSS_SELECTOR, "table.games tbody tr")
    assert len(games) == 39
    browser.execute_script("arguments[0].scrollIntoView()", live)
    screenshot(browser, "serve-live.png")

    # The live list, from the header's link: his row says the same.
    browser.find_element(By.LINK_TEXT, "Live ratings (provisional)").click()
    wait.until(lambda _: browser.find_element(By.TAG_NAME, "h1").text == "Live ratings")
    browser.find_element(By.LINK_TEXT, "Standard").click()
    wait.until(lambda _: browser.find_element(By.TAG_NAME, "h1").text == "Live standard ratings")
    name = browser.find_element(By.CSS_SELECTOR, "form#query input[name='name']")
    name.send_keys("doyle, patrick")
    browser.find_element(By.CSS_SELECTOR, "form#query button").click()
    wait.until(lambda _: "1 players" in browser.find_element(By.ID, "shown").text)
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "table.live tbody tr td")]
    assert cells == ["Doyle, Patrick", "", "IRL", "1846", "1901", "+55", "39"]
