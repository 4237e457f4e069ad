"""A month through the signed-in side: an organiser sends a file, the officer settles it, accepts it, runs
the dry-run close and closes; the public pages show the new list. On every engine, in-process.

The file is the demo's Dublin September Open with two lines changed (tests/fixtures/trf/
web-month-dublin-open.trf): rank 3 spells Kevin Mac Aodha (FIDE 25900230) "Mac Aodha, Caoimhin" (name
score 73: a choice, as `import-trf` refuses it), and rank 4 is Piotr Zabrodin with an ID no one has
(registered as new). The new ratings are not recomputed here: they must be the ones `ratingdb import-trf
--accept-name 3` and `ratingdb close-period` publish from the same inputs (the same services), which
the test runs on a second database and compares.
"""

from __future__ import annotations

import csv
import html
import io
import re
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import AuditEntry, Event, Submission
from ratingdb.services import users
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

ROOT = Path(__file__).parents[2]
MONTH_FILE = ROOT / "tests" / "fixtures" / "trf" / "web-month-dublin-open.trf"
LIST = ROOT / "seeds" / "standard-2025-09-01.csv"
runner = CliRunner()


def prepare(url: str, engine: Engine) -> None:
    for args in (["import-list", str(LIST), "--date", "2025-09-01", "--type", "standard"],):
        result = runner.invoke(app, ["--db", url, *args])
        assert result.exit_code == 0, result.output
    with db.transaction(engine) as session:
        users.add_user(session, "galway-open", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)


def cli_ratings(tmp_path: Path) -> dict[str, str]:
    """The list of 2025-10-01 as the CLI publishes it from the same file and choices."""
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    for args in (
        ["init"],
        ["import-list", str(LIST), "--date", "2025-09-01", "--type", "standard"],
        ["import-trf", str(MONTH_FILE), "--type", "standard", "--accept-name", "3"],
        ["close-period", "2025-09", "--type", "standard"],
    ):
        result = runner.invoke(app, ["--db", url, *args])
        assert result.exit_code == 0, result.output
    listed = runner.invoke(app, ["--db", url, "list", "--format", "csv", "--limit", "1000"]).stdout
    return {row["fide_id"]: row["rating"] for row in csv.DictReader(io.StringIO(listed))}


def text_of(response: object) -> str:
    return html.unescape(response.text)  # type: ignore[attr-defined]


def upload(c: TestClient) -> str:
    response = c.post(
        "/desk/submissions",
        data={"csrftoken": csrf(c), "rating_type": "standard", "note": "two new names"},
        files=[("file", (MONTH_FILE.name, MONTH_FILE.read_bytes(), "text/plain"))],
    )
    assert response.status_code == 200
    return text_of(response)


def test_a_month_in_the_browser_ends_with_the_list_the_cli_publishes(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    prepare(db_url, engine)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        page = upload(organiser)
        assert "The file cannot be imported as it is:" in page
        # In plain words, with what to fix in the file: no terminal options for an organiser.
        assert (
            "The ID FIDE 25900230 of line 12 (Mac Aodha, Caoimhin) belongs to Mac Aodha, Kevin (FIDE "
            "25900230" in page
        )
        assert "--" not in page.split("<main>")[1]
        again = organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", (MONTH_FILE.name, MONTH_FILE.read_bytes(), "text/plain"))],
        )
        assert (again.status_code, "Error: this file was sent before (submission 1)" in text_of(again)) == (
            400,
            True,
        )
        mine = text_of(organiser.get("/desk/submissions"))
        assert "web-month-dublin-open.trf" in mine and ">submitted<" in mine

    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        assert "needs a decision or a fix" in text_of(officer.get("/desk/queue"))
        review = text_of(officer.get("/desk/queue/1"))
        assert 'name="choice_3"' in review and 'id="accept"' not in review
        # The decision table names the line and the candidate, whose ID is filled in for "is the player".
        decide = review.split('<table class="choices">')[1]
        assert "line 12 (Mac Aodha, Caoimhin) · FIDE 25900230" in decide
        assert '<span class="candidate">Mac Aodha, Kevin (FIDE 25900230' in decide
        assert 'name="id_3" id="id_3" maxlength="20" size="10" value="25900230"' in decide
        checked = text_of(
            officer.post(
                "/desk/queue/1/check",
                data={"csrftoken": csrf(officer), "choice_3": "accept-name", "id_3": ""},
            )
        )
        assert "Checked with --accept-name 3." in checked
        assert (
            "The file can be imported: 'Dublin September Open': standard, period 2025-09; 61 players"
            in checked
        )
        assert "Zabrodin, Piotr (FIDE 25999999" in checked  # new to the register
        accepted = officer.post(
            "/desk/queue/1/accept",
            data={"csrftoken": csrf(officer), "choice_3": "accept-name", "id_3": ""},
            follow_redirects=False,
        )
        assert (accepted.status_code, accepted.headers["location"]) == (303, "/desk/queue")
        dry = text_of(
            officer.post("/desk/periods/standard/2025-09/dry-run", data={"csrftoken": csrf(officer)})
        )
        assert "The list of 2025-10-01: 1 events" in dry
        assert "Mac Aodha, Kevin" in dry and "Zabrodin, Piotr" in dry
        closed = officer.post(
            "/desk/periods/standard/2025-09/close", data={"csrftoken": csrf(officer)}, follow_redirects=False
        )
        assert closed.status_code == 303
        assert "Closed: its list is published." in text_of(officer.get("/desk/periods/standard/2025-09"))

        expected = cli_ratings(tmp_path)
        player = text_of(officer.get("/players/25900230.html"))
        assert re.search(rf"2025-10-01\D+{expected['25900230']}\b", player), expected["25900230"]

    with browser(db_url) as organiser:
        sign_in(organiser, "galway-open")
        assert ">rated<" in text_of(organiser.get("/desk/submissions"))
    with db.transaction(engine) as session:
        sub = session.scalars(select(Submission)).one()
        # Event 1, as the check said it would be, on every engine: the checks (the upload's, the review's
        # twice) and the dry-run close ran in dry-run transactions, which put back the ID counters that
        # PostgreSQL and MariaDB advance even in a rolled-back transaction.
        assert session.scalars(select(Event.id)).one() == 1
        assert (sub.status, sub.choices, sub.event_id) == ("accepted", "--accept-name 3", 1)
        actors = dict(session.execute(select(AuditEntry.action, AuditEntry.actor)).all())
    assert actors["submission"] == "web:galway-open"
    assert actors["submission-accept"] == "web:aoife"
