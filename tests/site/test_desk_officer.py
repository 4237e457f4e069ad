"""The officer's side of the desk beyond the queue: the review's --id-field, and the IDs a check leaves.

Each is the CLI's service with the CLI's choices: the review reads the ID column as `import-trf
--id-field national` does (services.submissions.import_choices), on every engine.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from sqlalchemy import Engine, func, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import Event, Player, Submission
from ratingdb.services import users
from tests.cli.test_correction_choices import LIST as QUAD_LIST
from tests.cli.test_correction_choices import QUAD
from tests.cli.test_export_trf_roundtrip import with_old_rules
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()


def text_of(response: object) -> str:
    return html.unescape(response.text)  # type: ignore[attr-defined]


def test_the_review_reads_national_ids_as_import_trf_id_field_national_does(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    # The quad's ID column holds ICU numbers (4191, 5963, 4273, 9606), the list's national IDs.
    with_old_rules(db_url, tmp_path)  # 2011: before FIDE's rule sets
    (tmp_path / "list.csv").write_text(QUAD_LIST, encoding="utf-8")
    listed = runner.invoke(
        app, ["--db", db_url, "import-list", str(tmp_path / "list.csv"), "--date", "2011-07-01"]
    )
    assert listed.exit_code == 0, listed.output
    with db.transaction(engine) as session:
        users.add_user(session, "juniors", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "juniors") == 303
        sent = organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", (QUAD.name, QUAD.read_bytes(), "text/plain"))],
        )
        assert sent.status_code == 200
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        page = text_of(officer.get("/desk/queue/1"))
        assert '<select name="id_field" id="id_field">' in page
        as_national = text_of(
            officer.post("/desk/queue/1/check", data={"csrftoken": csrf(officer), "id_field": "national"})
        )
        assert "Checked with --id-field national." in as_national
        assert "The file can be imported: " in as_national
        assert '<option value="national" selected>' in as_national
        refused = officer.post("/desk/queue/1/check", data={"csrftoken": csrf(officer), "id_field": "ICU"})
        assert refused.status_code == 400
        assert "Error: --id-field 'ICU' is not fide or national" in text_of(refused)
        accepted = officer.post(
            "/desk/queue/1/accept",
            data={"csrftoken": csrf(officer), "id_field": "national"},
            follow_redirects=False,
        )
        assert (accepted.status_code, accepted.headers["location"]) == (303, "/desk/queue")
    with db.transaction(engine) as session:
        sub = session.scalars(select(Submission)).one()
        event = session.get(Event, sub.event_id)
        assert event is not None and sub.choices == "--id-field national"
        assert json.loads(event.import_choices or "{}")["id_field"] == "national"
        # Matched by their national IDs: the four players of the list, no one registered anew.
        assert session.scalar(select(func.count()).select_from(Player)) == 4
    # The accepted submission's page says how it was imported.
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        assert "--id-field national" in text_of(officer.get("/desk/queue/1"))  # how it was imported


def test_the_officer_and_the_organiser_download_the_file_as_it_was_sent(db_url: str, engine: Engine) -> None:
    """Issue 46, item 3: the officer could not get the organiser's file. Its bytes as stored, to the
    organiser who sent it and the officers; another organiser is told it does not exist."""
    with db.transaction(engine) as session:
        users.add_user(session, "juniors", "organiser", PASSWORD)
        users.add_user(session, "other", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "juniors") == 303
        organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", ("Junior Quad ü.tab", QUAD.read_bytes(), "text/plain"))],
        )
        assert 'href="/desk/submissions/1/file"' in organiser.get("/desk/submissions/1").text
        own = organiser.get("/desk/submissions/1/file")
        assert (own.status_code, own.content) == (200, QUAD.read_bytes())
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        assert 'href="/desk/submissions/1/file"' in officer.get("/desk/queue/1").text
        got = officer.get("/desk/submissions/1/file")
        assert (got.status_code, got.content) == (200, QUAD.read_bytes())
        assert got.headers["content-disposition"] == (
            "attachment; filename=\"Junior_Quad__.tab\"; filename*=UTF-8''Junior%20Quad%20%C3%BC.tab"
        )
        assert got.headers["content-type"] == "application/octet-stream"
    with browser(db_url) as other:
        assert sign_in(other, "other") == 303
        assert other.get("/desk/submissions/1/file").status_code == 404


def test_the_periods_page_lists_an_empty_month_the_next_close_needs_and_closes_it(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    """Issue 46, item 2: with a list dated 2011-02-01 and Bunratty's Masters in period 2011-03, the dry run
    of 2011-03 said "close period 2011-02 first", and the Periods page listed only 2011-03."""
    from tests.cli.test_sections import MASTERS

    with_old_rules(db_url, tmp_path)
    (tmp_path / "list.csv").write_text('national_id,name,rating\nX1,"Idle, Ida",1500\n', encoding="utf-8")
    for args in (
        ["import-list", str(tmp_path / "list.csv"), "--date", "2011-02-01", "--type", "standard"],
        ["import-trf", str(MASTERS), "--id-field", "national", "--federation-column", "mixed"],
    ):
        result = runner.invoke(app, ["--db", db_url, *args])
        assert result.exit_code == 0, result.output
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        listed = text_of(officer.get("/desk/periods")).split('<ul class="periods">')[1].split("</ul>")[0]
        assert [line.split("</a>")[0].rsplit(">", 1)[1] for line in listed.strip().splitlines()] == [
            "standard 2011-02",
            "standard 2011-03",
        ]
        assert "0 events · no events: close it to publish the list the next month needs" in listed
        dry = text_of(
            officer.post("/desk/periods/standard/2011-03/dry-run", data={"csrftoken": csrf(officer)})
        )
        assert "close period 2011-02 first" in dry
        closed = officer.post(
            "/desk/periods/standard/2011-02/close", data={"csrftoken": csrf(officer)}, follow_redirects=False
        )
        assert closed.status_code == 303
        dry = text_of(
            officer.post("/desk/periods/standard/2011-03/dry-run", data={"csrftoken": csrf(officer)})
        )
        assert "close period 2011-02 first" not in dry and "The list of 2011-04-01: 1 events" in dry
        # The close's warning, as `close-period --dry-run` prints it (Bunratty's players are all new).
        assert "Warning: event 1 'Bunratty 2011': 0 of 97 games rated — not rated: unrated opponents" in dry
        listed = text_of(officer.get("/desk/periods"))
        assert "standard 2011-02" not in listed and "standard 2011-03" in listed
