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
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait
from typer.testing import CliRunner

from ratingdb.cli import app as cli
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings
from tests.site.test_browser import browser, chromium, screenshot  # noqa: F401 - the browser fixture
from tests.site.web import shown_text

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


def h1(browser: WebDriver) -> str:
    """The page's heading, or "" while the page is being replaced."""
    return shown_text(lambda: str(browser.find_element(By.TAG_NAME, "h1").text))


def test_search_a_misspelt_name_then_the_player_a_calculation_and_the_live_rating(
    served_url: str,
    browser: WebDriver,  # noqa: F811 - the fixture imported above
) -> None:
    # A condition may read an element of the page a click is leaving: that read is retried, as a missing
    # element is, until the next page answers (or the wait times out).
    wait = WebDriverWait(browser, 20, ignored_exceptions=[StaleElementReferenceException])
    browser.get(served_url)
    box = browser.find_element(By.CSS_SELECTOR, "form.search input[name='q']")
    box.send_keys("Patrik Doyle")
    browser.find_element(By.CSS_SELECTOR, "form.search button").click()
    wait.until(lambda _: h1(browser) == "Find a player")
    first = browser.find_element(By.CSS_SELECTOR, "table.found tbody tr td a")
    assert first.text == "Doyle, Patrick"
    first.click()
    wait.until(lambda _: h1(browser) == "Doyle, Patrick")

    # The live rating: the list of 1 October (1846) plus October's 39 games (+55), provisional, with its
    # calculation game by game and D and PD explained above the games.
    live = browser.find_element(By.CSS_SELECTOR, "section.live")
    note = live.find_element(By.CSS_SELECTOR, "p.note")
    assert note.text.startswith("D: the rating difference")
    heading = live.find_element(By.TAG_NAME, "h2").text
    assert heading == "Live standard rating: 1901 provisional — not an official rating"
    paragraphs = [p.text for p in live.find_elements(By.TAG_NAME, "p")]
    assert paragraphs[0].startswith("The standard list in force (Oct 1, 2025) says 1846")
    assert "Ro 1846, K 20 → 17 by the 700 rule (39 games)" in paragraphs[2]
    games = live.find_elements(By.CSS_SELECTOR, "table.games tbody tr")
    assert len(games) == 39
    browser.execute_script("arguments[0].scrollIntoView()", live)
    screenshot(browser, "serve-live.png")

    # The live list, from the header's link: his row says the same.
    browser.find_element(By.LINK_TEXT, "Live ratings (provisional)").click()
    wait.until(lambda _: h1(browser) == "Live ratings")
    browser.find_element(By.LINK_TEXT, "Standard").click()
    wait.until(lambda _: h1(browser) == "Live standard ratings")
    name = browser.find_element(By.CSS_SELECTOR, "form#query input[name='name']")
    name.send_keys("doyle, patrick")
    browser.find_element(By.CSS_SELECTOR, "form#query button").click()
    wait.until(lambda _: "1 players" in shown_text(lambda: browser.find_element(By.ID, "shown").text))
    cells = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "table.live tbody tr td")]
    assert cells == ["Doyle, Patrick", "", "IRL", "1846", "1901", "+55", "39"]


# What a German and a French visitor read on the same way through the site: the browser asks for its
# language (Accept-Language), the same figures are written as that language writes them. (Selenium reads
# the no-break space French puts before a colon as a space.)
IN_LANGUAGE = {
    "de": {
        "search": "Spieler suchen",
        "live": "Live-Wertungszahl Standard: 1901 vorläufig — keine offizielle Wertungszahl",
        "in_force": "Die gültige Standard-Liste (01.10.2025) sagt 1846",
        "calculation": "Ro 1846, K 20 → 17 nach der 700er-Regel (39 Partien); 39 Partien; "
        "K × Σ(Punkte − PD) = 17 × 3,26 = 55,42 → +55",
        "note": "D: die Wertungsdifferenz",
    },
    "fr": {
        "search": "Trouver un joueur",
        "live": "Classement standard en direct : 1901 provisoire — pas un classement officiel",
        "in_force": "La liste standard en vigueur (1 oct. 2025) indique 1846",
        "calculation": "Ro 1846, K 20 → 17 par la règle des 700 (39 parties) ; 39 parties ; "
        "K × Σ(score − PD) = 17 × 3,26 = 55,42 → +55",
        "note": "D : l’écart de classement",
    },
}


@pytest.mark.parametrize("language", sorted(IN_LANGUAGE))
def test_a_visitor_whose_browser_asks_for_german_or_french_reads_the_pages_in_it(
    served_url: str, language: str
) -> None:
    words = IN_LANGUAGE[language]
    with chromium(f"{language},en;q=0.5") as browser:
        wait = WebDriverWait(browser, 20, ignored_exceptions=[StaleElementReferenceException])
        browser.get(served_url)
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
        browser.find_element(By.CSS_SELECTOR, "form.search input[name='q']").send_keys("Patrik Doyle")
        browser.find_element(By.CSS_SELECTOR, "form.search button").click()
        wait.until(lambda _: h1(browser) == words["search"])
        browser.find_element(By.CSS_SELECTOR, "table.found tbody tr td a").click()
        wait.until(lambda _: h1(browser) == "Doyle, Patrick")
        live = browser.find_element(By.CSS_SELECTOR, "section.live")
        assert live.find_element(By.TAG_NAME, "h2").text == words["live"]
        assert live.find_element(By.CSS_SELECTOR, "p.note").text.startswith(words["note"])
        paragraphs = [p.text for p in live.find_elements(By.TAG_NAME, "p")]
        assert paragraphs[0].startswith(words["in_force"])
        assert words["calculation"] in paragraphs[2]
        browser.execute_script("arguments[0].scrollIntoView()", live)
        screenshot(browser, f"serve-live-{language}.png")
