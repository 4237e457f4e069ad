"""Corrections and the player register in the browser: reopen, replace-event, player find/edit/merge —
each the CLI's service (services.corrections, services.register), on every engine.

The correction is tests/cli/test_correction_choices.py's, done from the officer's pages instead of the
terminal: the Irish Junior Quad 2011 (national IDs in the ID column, imported with --id-field national),
round 1 reported the wrong way round. Worked by hand there (table 8.1.2, K 20): Finnegan 1476 → 1496 and
O'Connell 1485 → 1465 once corrected; O'Kelly 1451 and Ogintas 1461 unchanged.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import AuditEntry, Event, WebUser
from ratingdb.services import submissions as subs
from ratingdb.services import users
from ratingdb.services.players import alias_history, find_by_id
from tests.cli.test_correction_choices import LIST, QUAD, by_national_id, corrected
from tests.cli.test_export_trf_roundtrip import with_old_rules
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()


def ok(url: str, *args: object) -> str:
    result = runner.invoke(app, ["--db", url, *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.stdout


def text_of(response: object) -> str:
    return html.unescape(response.text)  # type: ignore[attr-defined]


def post(c: TestClient, path: str, **form: str) -> object:
    return c.post(path, data={"csrftoken": csrf(c), **form}, follow_redirects=False)


def closed_quad(url: str, engine: Engine, folder: Path) -> None:
    with_old_rules(url, folder)
    (folder / "list.csv").write_text(LIST, encoding="utf-8")
    ok(url, "import-list", folder / "list.csv", "--date", "2011-07-01", "--type", "standard")
    ok(url, "import-trf", QUAD, "--id-field", "national")
    ok(url, "close-period", "2011-07")
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)


def test_the_officer_reopens_replaces_the_event_and_closes_again_in_the_browser(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    closed_quad(db_url, engine, tmp_path)
    fixed = corrected(tmp_path)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        page = text_of(officer.get("/desk/periods/standard/2011-07"))
        assert "Closed: its list is published." in page and 'id="reopen"' in page
        refused = post(officer, "/desk/periods/standard/2011-07/reopen", reason=" ")
        assert refused.status_code == 400  # type: ignore[attr-defined]
        reopened = post(officer, "/desk/periods/standard/2011-07/reopen", reason="round 1 the wrong way")
        assert reopened.headers["location"] == "/desk/periods/standard/2011-07"  # type: ignore[attr-defined]
        page = text_of(officer.get("/desk/periods/standard/2011-07"))
        assert "Open." in page and 'href="/desk/events/1/replace"' in page

        checked = officer.post(
            "/desk/events/1/replace",
            data={"csrftoken": csrf(officer), "action": "check", "reason": "round 1"},
            files=[("file", (fixed.name, fixed.read_bytes(), "text/plain"))],
        )
        shown = text_of(checked)
        assert checked.status_code == 200
        assert "The file can replace the event: nothing is written until you replace it." in shown
        assert "read as the event was imported: --id-field national" in shown
        assert "result changed: round 1: Finnegan, Mark – O'Connell, Denis 0-1 → 1-0" in shown
        with db.transaction(engine) as session:  # the check wrote nothing
            assert session.scalars(select(Event.id).where(Event.is_current.is_(True))).all() == [1]
        carried = shown.split('name="content" value="')[1].split('"')[0]
        replaced = officer.post(
            "/desk/events/1/replace",
            data={
                "csrftoken": csrf(officer), "action": "replace", "reason": "round 1",
                "content": carried, "file_name": fixed.name,
            },
            follow_redirects=False,
        )  # fmt: skip
        assert (replaced.status_code, replaced.headers["location"]) == (303, "/desk/periods/standard/2011-07")
        closed = post(officer, "/desk/periods/standard/2011-07/close")
        assert closed.status_code == 303  # type: ignore[attr-defined]
    assert by_national_id(db_url, "2011-08-01") == {"4191": 1496, "5963": 1465, "4273": 1451, "9606": 1461}
    with db.transaction(engine) as session:
        # Event 2, the next ID: the check ran in a dry-run transaction and left no gap.
        assert session.scalars(select(Event.id).where(Event.is_current.is_(True))).all() == [2]
        actors = {a: who for a, who in session.execute(select(AuditEntry.action, AuditEntry.actor))}
    assert actors["reopen"] == "web:aoife" and actors["replace-event"] == "web:aoife"


def test_the_officer_finds_corrects_and_merges_players_as_the_cli_does(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    closed_quad(db_url, engine, tmp_path)
    ok(db_url, "player", "add", "--name", "Finegan, Mark", "--national-id", "99999", "--birth-year", "1967")
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        found = text_of(officer.get("/desk/players", params={"q": "finnegan"}))
        assert 'href="/desk/players/national:4191"' in found and "Finnegan, Mark" in found
        assert "No registered player matches “zzzz”." in text_of(
            officer.get("/desk/players", params={"q": "zzzz"})
        )
        bad = post(officer, "/desk/players/national:4191/edit", birth_year="67", reason="typo")
        assert bad.status_code == 400  # type: ignore[attr-defined]
        assert "Error: --birth-year 67 is not a four-digit year" in text_of(bad)
        nothing = post(officer, "/desk/players/national:4191/edit", reason="nothing")
        assert "Error: nothing to change: give at least one of --name" in text_of(nothing)
        edited = post(
            officer, "/desk/players/national:4191/edit", birth_year="1968", add_alias="Finnegan, M.",
            reason="the federation's records",
        )  # fmt: skip
        assert edited.headers["location"] == "/desk/players/4191"  # type: ignore[attr-defined]
        page = text_of(officer.get("/desk/players/national:4191"))
        assert "Finnegan, M." in page and "1968" in page
        merged = post(
            officer, "/desk/players/national:4191/merge", duplicates="99999", reason="registered twice"
        )
        assert merged.status_code == 303  # type: ignore[attr-defined]
        again = post(officer, "/desk/players/national:4191/merge", duplicates="99999", reason="again")
        assert again.status_code == 400  # type: ignore[attr-defined]
    with db.transaction(engine) as session:
        kept = find_by_id(session, "99999")  # the duplicate's ID finds the player kept
        assert (kept.national_id, kept.birth_year) == ("4191", 1968)
        spellings = {a.name for a, _ in alias_history(session, kept.id)}
        assert spellings == {"Finnegan, M.", "Finegan, Mark"}


def test_the_replace_check_runs_once_in_the_dry_run_transaction_without_a_savepoint(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    closed_quad(db_url, engine, tmp_path)
    ok(db_url, "reopen", "2011-07", "--reason", "round 1 the wrong way")
    fixed = corrected(tmp_path)
    savepoints: list[str] = []
    event.listen(engine, "savepoint", lambda conn, name: savepoints.append(name))
    with db.transaction(engine, dry_run=True) as session:
        officer = session.scalars(select(WebUser).where(WebUser.username == "aoife")).one()
        found = subs.check_replacement(session, officer, 1, fixed.read_bytes(), fixed.name, "round 1", {})
        assert found.ok and found.replacement is not None
        assert found.replacement.results_changed == ["round 1: Finnegan, Mark – O'Connell, Denis 0-1 → 1-0"]
    assert savepoints == []  # the dry-run transaction's rollback is the only undoing
    with db.transaction(engine) as session:  # and it undid the replacement
        assert session.scalars(select(Event.id).where(Event.is_current.is_(True))).all() == [1]
        officer = session.scalars(select(WebUser).where(WebUser.username == "aoife")).one()
        with pytest.raises(RuntimeError, match="run it in a dry-run transaction"):
            subs.check_replacement(session, officer, 1, fixed.read_bytes(), fixed.name, "round 1", {})


def test_the_officer_switches_off_a_stored_switch_on_the_replace_page(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    """The quad imported as an official FIDE event: the replace page says so, and its "off" reads the
    correction as `replace-event --no-official` does — the corrected event is not official."""
    with_old_rules(db_url, tmp_path)
    ok(db_url, "import-trf", QUAD, "--id-field", "national", "--official")
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    fixed = corrected(tmp_path)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        page = text_of(officer.get("/desk/events/1/replace"))
        assert '<option value="" selected>as imported: on</option>' in page.split('id="official"')[1]
        assert '<option value="" selected>as imported: off</option>' in page.split('id="distinct_event"')[1]
        form = {"csrftoken": csrf(officer), "reason": "round 1", "official": "off"}
        checked = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "check"},
            files=[("file", (fixed.name, fixed.read_bytes(), "text/plain"))],
        )
        shown = text_of(checked)
        assert "read as the event was imported: --id-field national</li>" in shown
        assert '<option value="off" selected>off (--no-official)</option>' in shown
        carried = shown.split('name="content" value="')[1].split('"')[0]
        replaced = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "replace", "content": carried, "file_name": fixed.name},
            follow_redirects=False,
        )
        assert replaced.status_code == 303
    with db.transaction(engine) as session:
        [(event_id, official)] = session.execute(
            select(Event.id, Event.official).where(Event.is_current.is_(True))
        ).all()
    assert (event_id, official) == (2, False)
