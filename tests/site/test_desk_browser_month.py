"""The trial's month in Debian's headless Chromium (issue 46, "Done when"), on the seeds, in one browser
session: the organiser sends two sections of one congress with the same record 012 and start date; the
officer accepts both from the queue as sections (no file edited), settles a mistyped ID as "a new player",
then corrects it by replacing the event with the organiser's corrected submission and choosing the
registered player; closes the empty month before from the Periods page; sees every warning of the dry run
on the dry-run page; and closes. The list published is byte for byte the one the same month done in the
terminal publishes (CliRunner: import-trf, replace-event, close-period).

The congress is tests/site/congress.py's (the Limerick City Open as the Masters, rank 3's ID mistyped; the
Sligo Autumn Open moved to its dates as a Minor of newcomers). With RATINGDB_SCREENSHOTS=FOLDER it saves
the officer's and organiser's pages at 1280 and 360 px wide, in English and German (docs/desk-*.png).
"""

from __future__ import annotations

import base64
import io
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app as cli
from ratingdb.services import users
from tests.site.congress import LIST, RIGHT_ID, TYPO_ID, write_files
from tests.site.test_browser import browser  # noqa: F401 - the browser fixture
from tests.site.test_desk_browser import follow, heading, served, sign_in, text
from tests.site.test_desk_permissions import PASSWORD

runner = CliRunner()
WIDTHS = (1280, 360)
LANGUAGES = ("en", "de")
TALLEST = 2400  # px: a longer page is shown from its top (the review's 32 lines end below its controls)


def run(url: str, *args: str) -> str:
    result = runner.invoke(cli, ["--db", url, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def seeded(url: str) -> None:
    run(url, "init")
    run(url, "import-list", str(LIST), "--date", "2025-09-01", "--type", "standard")


@pytest.fixture
def month(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, Path]]]:
    """The site on a seeded database (the demo's list of 2025-09-01, an organiser and an officer)."""
    url = f"sqlite:///{tmp_path / 'desk.sqlite'}"
    seeded(url)
    engine = db.make_engine(url)
    with db.transaction(engine) as session:
        users.add_user(session, "limerick", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)
    engine.dispose()
    files = write_files(tmp_path / "files")
    with served(url) as base:
        yield base, url, files


def in_the_terminal(tmp_path: Path, files: dict[str, Path]) -> tuple[str, list[str]]:
    """The same month done with the commands: the list published (CSV) and the dry run's warnings."""
    url = f"sqlite:///{tmp_path / 'terminal.sqlite'}"
    seeded(url)
    run(url, "import-trf", str(files["masters"]), "--section", "Masters", "--new", "3")
    run(url, "import-trf", str(files["minor"]), "--section", "Minor")
    run(url, "replace-event", "1", str(files["corrected"]), "--match", f"3={RIGHT_ID}")
    run(url, "close-period", "2025-09")
    dry = run(url, "close-period", "2025-10", "--dry-run")
    warnings = [line.strip().removeprefix("warning: ") for line in dry.splitlines() if "warning: " in line]
    run(url, "close-period", "2025-10")
    return run(url, "list", "--format", "csv", "--limit", "100000"), warnings


def screenshots(driver: WebDriver, name: str, show: Callable[[], None]) -> None:
    """With RATINGDB_SCREENSHOTS=FOLDER: the page `show` loads, whole, at each width and in each language
    (FOLDER/NAME-WIDTH[-de].png); then `show` again in English at the test's own size."""
    folder = os.environ.get("RATINGDB_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    driver.execute_cdp_cmd("Network.enable", {})  # type: ignore[attr-defined]
    for language in LANGUAGES:
        driver.execute_cdp_cmd(  # type: ignore[attr-defined]
            "Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language}}
        )
        for width in WIDTHS:
            metrics = {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": width < 600}
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # type: ignore[attr-defined]
            show()
            height = driver.execute_script("return Math.ceil(document.body.getBoundingClientRect().bottom)")
            driver.execute_cdp_cmd(  # type: ignore[attr-defined]
                "Emulation.setDeviceMetricsOverride", {**metrics, "height": min(int(height), TALLEST)}
            )
            shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})  # type: ignore[attr-defined]
            suffix = "" if language == "en" else f"-{language}"
            image = Image.open(io.BytesIO(base64.b64decode(shot["data"])))
            # 256 colours are plenty for text and a third the bytes in docs/ (Pillow comes with matplotlib).
            image.quantize(colors=256).save(Path(folder) / f"{name}-{width}{suffix}.png", optimize=True)
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": "en"}})  # type: ignore[attr-defined]
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]
    show()


def send(driver: WebDriver, base: str, file: Path, number: int) -> None:
    """The organiser sends `file` from their submissions page; the check's page is submission `number`."""
    driver.get(base + "/desk/submissions")
    Select(driver.find_element(By.ID, "rating_type")).select_by_value("standard")
    driver.find_element(By.ID, "file").send_keys(str(file))
    follow(driver, "send")
    WebDriverWait(driver, 30).until(lambda d: heading(d) == f"Submission {number}")


def test_the_trials_month_in_chromium_publishes_the_list_the_terminal_publishes(
    month: tuple[str, str, dict[str, Path]],
    browser: WebDriver,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    base, url, files = month
    wait = WebDriverWait(browser, 30)

    def page(path: str) -> Callable[[], None]:
        return lambda: browser.get(base + path)

    # The organiser sends both sections: the Masters is refused for its mistyped ID, in plain words.
    sign_in(browser, base, "limerick")
    send(browser, base, files["masters"], 1)
    assert text(browser, By.ID, "check-result") == "The file cannot be imported as it is:"
    refusal = browser.find_element(By.CSS_SELECTOR, "table.refusals tbody tr").text
    assert f"No player has the ID FIDE {TYPO_ID} of line 12 (Mac Aodha, Kevin)" in refusal
    assert "--" not in browser.find_element(By.TAG_NAME, "main").text
    screenshots(browser, "desk-organiser-check", page("/desk/submissions/1"))
    send(browser, base, files["minor"], 2)
    assert text(browser, By.ID, "check-result").startswith("The file can be imported: 'Limerick Congress'")
    assert "0 of 141 games can be rated" in text(browser, By.ID, "warnings")  # warned at once

    # The officer: the Masters as a section, its rank 3 settled as "a new player" (the trial's mistake).
    sign_in(browser, base, "aoife")
    assert heading(browser) == "Queue"
    screenshots(browser, "desk-queue", page("/desk/queue"))
    browser.get(base + "/desk/queue/1")
    decide = browser.find_element(By.CSS_SELECTOR, "table.choices tbody tr").text
    assert f"line 12 (Mac Aodha, Kevin) · FIDE {TYPO_ID}" in decide
    assert f"Mac Aodha, Kevin (FIDE {RIGHT_ID}" in decide  # the candidate
    screenshots(browser, "desk-officer-refused", page("/desk/queue/1"))
    browser.find_element(By.ID, "section").send_keys("Masters")
    Select(browser.find_element(By.ID, "choice_3")).select_by_value("new")
    follow(browser, "check")
    assert text(browser, By.ID, "check-result").startswith(
        "The file can be imported: 'Limerick Congress — Masters': standard, period 2025-10; 32 players"
    )
    follow(browser, "accept")
    assert heading(browser) == "Queue"
    # The Minor: the same 012 name and start date, accepted as the other section, no file edited.
    browser.get(base + "/desk/queue/2")
    browser.find_element(By.ID, "section").send_keys("Minor")
    follow(browser, "check")
    assert text(browser, By.ID, "check-result").startswith(
        "The file can be imported: 'Limerick Congress — Minor'"
    )
    screenshots(browser, "desk-officer-review", page("/desk/queue/2"))
    browser.get(base + "/desk/queue/2")  # the screenshots' reloads forget the section typed
    browser.find_element(By.ID, "section").send_keys("Minor")
    follow(browser, "accept")
    assert heading(browser) == "Queue"

    # The organiser's corrected Masters; the officer replaces event 1 with it, choosing the registered player.
    sign_in(browser, base, "limerick")
    send(browser, base, files["corrected"], 3)
    sign_in(browser, base, "aoife")
    browser.get(base + "/desk/queue/3")
    assert "looks like a corrected version of event 1 “Limerick Congress — Masters”" in text(
        browser, By.ID, "corrects"
    )
    follow(browser, "replace-1")
    assert heading(browser) == "Replace event 1"
    assert "new to the register: Mac Aodha, Kevin" in text(
        browser, By.ID, "replacement"
    )  # the stored --new 3
    screenshots(browser, "desk-replace", page("/desk/queue/3/replace/1"))
    Select(browser.find_element(By.ID, "choice_3")).select_by_value("match")
    browser.find_element(By.ID, "id_3").send_keys(RIGHT_ID)
    browser.find_element(By.ID, "reason").send_keys("rank 3's ID, as the organiser corrected it")
    follow(browser, "check")
    assert text(browser, By.ID, "check-result") == (
        "The file can replace the event: nothing is written until you replace it."
    )
    assert "new to the register" not in text(browser, By.ID, "replacement")
    follow(browser, "replace")
    assert text(browser, By.ID, "period-state") == "Open."

    # The Periods page lists the empty month the close needs first; it is closed from there.
    browser.get(base + "/desk/periods")
    periods = browser.find_element(By.CSS_SELECTOR, "ul.periods").text.splitlines()
    assert periods == [
        "standard 2025-09: 0 events · no events: close it to publish the list the next month needs",
        "standard 2025-10: 2 events",
    ]
    screenshots(browser, "desk-periods", page("/desk/periods"))
    browser.find_element(By.LINK_TEXT, "standard 2025-09").click()
    wait.until(lambda d: text(d, By.ID, "period-state") == "Open.")
    follow(browser, "dry-run")
    follow(browser, "close")
    wait.until(lambda d: text(d, By.ID, "period-state") == "Closed: its list is published.")

    # 2025-10: every warning the terminal's dry run prints is on the dry-run page, before the close.
    expected, warnings = in_the_terminal(tmp_path, files)
    assert warnings, "the Minor's newcomers rate none of its games: the dry run warns of it"

    def dry_run() -> None:
        browser.get(base + "/desk/periods/standard/2025-10")
        follow(browser, "dry-run")
        wait.until(lambda d: d.find_elements(By.ID, "dry-run-summary"))

    dry_run()
    shown = [re.sub(r"^Warning: ", "", w) for w in text(browser, By.ID, "warnings").splitlines()]
    assert shown == warnings
    screenshots(browser, "desk-dry-run", dry_run)
    follow(browser, "close")
    wait.until(lambda d: text(d, By.ID, "period-state") == "Closed: its list is published.")

    assert run(url, "list", "--format", "csv", "--limit", "100000") == expected
