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
from sqlalchemy import Engine, event, func, select
from sqlalchemy import text as text_sql
from typer.testing import CliRunner

from ratingdb import api, db
from ratingdb.cli import app
from ratingdb.schema.models import AuditEntry, Event, PendingUpload, WebUser
from ratingdb.services import submissions as subs
from ratingdb.services import users
from ratingdb.services.players import alias_history, find_by_id
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings
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


def kept_token(page: str) -> str:
    """The token naming the file the replace page checked (kept on the server since)."""
    return page.split('name="pending" value="')[1].split('"')[0]


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
        # First the confirmation page, from a dry run: what it withdraws, and nothing changed yet.
        asked = text_of(
            post(officer, "/desk/periods/standard/2011-07/reopen", reason="round 1 the wrong way")
        )
        assert "<h1>Reopen the standard period 2011-07?</h1>" in asked
        assert "<li>2011-08-01, version 1 (computed by closing 2011-07)</li>" in asked
        assert '<input type="hidden" name="reason" value="round 1 the wrong way">' in asked
        page = text_of(officer.get("/desk/periods/standard/2011-07"))
        assert "Closed: its list is published." in page
        reopened = post(
            officer, "/desk/periods/standard/2011-07/reopen", reason="round 1 the wrong way", confirm="yes"
        )
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
        assert 'name="content"' not in shown  # the file is kept on the server, not in the page
        replaced = officer.post(
            "/desk/events/1/replace",
            data={
                "csrftoken": csrf(officer), "action": "replace", "reason": "round 1",
                "pending": kept_token(shown),
            },
            follow_redirects=False,
        )  # fmt: skip
        assert (replaced.status_code, replaced.headers["location"]) == (303, "/desk/periods/standard/2011-07")
        closed = post(officer, "/desk/periods/standard/2011-07/close")
        assert closed.status_code == 303  # type: ignore[attr-defined]
        # The period page links the new list's bundle; the withdrawn version's says what the correction did.
        page = text_of(officer.get("/desk/periods/standard/2011-07"))
        assert 'Its list\'s <a href="/api/v1/lists/standard/2011-08-01/bundle">bundle</a>' in page
        new = officer.get("/api/v1/lists/standard/2011-08-01/bundle").content
        old = officer.get("/api/v1/lists/standard/2011-08-01/bundle", params={"version": 1}).content
    assert api.verify_bundle(new).ok and api.verify_bundle(old).ok
    moved = api.compare_bundles(new, old).players
    assert len(moved) == 2 and all(
        any(c.startswith("result corrected: ") and ", round 1 against " in c for c in p.causes) for p in moved
    )
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
    ok(db_url, "player", "add", "--name", "Finegan, Mark", "--national-id", "99999", "--birth-year", "1967",
       "--title", "FM")  # fmt: skip
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
        # The page says what the merge took from the duplicate, as the command's line does.
        assert merged.status_code == 200  # type: ignore[attr-defined]
        assert (
            "Merged Finegan, Mark (national 99999, born 1967) into this player. Taken from it: title FM. "
            "Its name 'Finegan, Mark' is kept as an alias."
        ) in text_of(merged)
        again = post(officer, "/desk/players/national:4191/merge", duplicates="99999", reason="again")
        assert again.status_code == 400  # type: ignore[attr-defined]
    with db.transaction(engine) as session:
        kept = find_by_id(session, "99999")  # the duplicate's ID finds the player kept
        assert (kept.national_id, kept.birth_year, kept.title) == ("4191", 1968, "FM")
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
        # What a browser sends unless the officer changes it: the ID column as imported (it sent fide).
        chosen = page.split('id="id_field">')[1].split("</select>")[0]
        assert '<option value="" selected>as the event was imported (national IDs)</option>' in chosen
        assert '<option value="fide" >' in chosen
        assert '<option value="" selected>as imported: on</option>' in page.split('id="official"')[1]
        assert '<option value="" selected>as imported: off</option>' in page.split('id="distinct_event"')[1]
        form = {"csrftoken": csrf(officer), "reason": "round 1", "official": "off", "id_field": ""}
        checked = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "check"},
            files=[("file", (fixed.name, fixed.read_bytes(), "text/plain"))],
        )
        shown = text_of(checked)
        assert "read as the event was imported: --id-field national</li>" in shown
        assert '<option value="off" selected>off (--no-official)</option>' in shown
        replaced = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "replace", "pending": kept_token(shown)},
            follow_redirects=False,
        )
        assert replaced.status_code == 303
    with db.transaction(engine) as session:
        [(event_id, official)] = session.execute(
            select(Event.id, Event.official).where(Event.is_current.is_(True))
        ).all()
    assert (event_id, official) == (2, False)


def _padded(fixed: Path, size: int) -> tuple[str, bytes]:
    """The corrected quad padded with comment records (###, kept and ignored) to `size` bytes."""
    content = fixed.read_bytes().rstrip(b"\r\n") + b"\r\n"
    line = b"### padding that brings the report near the limit of the served site\r\n"
    content += line * ((size - len(content)) // len(line))
    return fixed.name, content + b"#" * (size - len(content) - 2) + b"\r\n"


def test_a_corrected_file_near_the_upload_limit_is_checked_and_replaces_the_event(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    """A file of 1,990,000 bytes, under the 2,000,000 the site takes (WebSettings.max_upload_bytes): when
    the page carried it as base64 (2,653,336 bytes) the Replace form was over the 2 MB request limit and
    refused with 413. It is kept on the server between the check and the replacement, bound to the
    session: another browser's session cannot use its token. A file one byte over the limit is refused
    in one sentence, and one larger than the request limit too."""
    closed_quad(db_url, engine, tmp_path)
    ok(db_url, "reopen", "2011-07", "--reason", "round 1 the wrong way")
    name, big = _padded(corrected(tmp_path), 1_990_000)
    assert len(big) == 1_990_000
    with browser(db_url) as officer, browser(db_url) as other:
        assert sign_in(officer, "aoife") == 303 and sign_in(other, "aoife") == 303
        form = {"csrftoken": csrf(officer), "reason": "round 1"}
        checked = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "check"},
            files=[("file", (name, big, "text/plain"))],
        )
        shown = text_of(checked)
        assert checked.status_code == 200, shown
        assert "result changed: round 1: Finnegan, Mark – O'Connell, Denis 0-1 → 1-0" in shown
        assert len(checked.content) < 50_000  # the page does not carry the file
        token = kept_token(shown)
        stolen = other.post(
            "/desk/events/1/replace",
            data={"csrftoken": csrf(other), "reason": "x", "action": "replace", "pending": token},
            follow_redirects=False,
        )
        assert stolen.status_code == 400
        assert f"Error: {subs.PENDING_GONE}" in text_of(stolen)
        replaced = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "replace", "pending": token},
            follow_redirects=False,
        )
        assert (replaced.status_code, replaced.headers["location"]) == (303, "/desk/periods/standard/2011-07")
        again = officer.post(  # the file kept went with the replacement
            "/desk/events/2/replace",
            data={**form, "action": "replace", "pending": token},
            follow_redirects=False,
        )
        assert again.status_code == 400 and f"Error: {subs.PENDING_GONE}" in text_of(again)

        over = officer.post(
            "/desk/events/2/replace",
            data={**form, "action": "check"},
            files=[("file", _padded(corrected(tmp_path), 2_000_001))],
        )
        assert over.status_code == 400
        assert (
            "Error: the file sent is larger than the 2,000,000 bytes a file sent here may have — send the "
            "tournament report (TRF) only"
        ) in text_of(over)
        huge = officer.post(
            "/desk/events/2/replace",
            data={**form, "action": "check"},
            files=[("file", _padded(corrected(tmp_path), 2_100_000))],
        )
        assert (huge.status_code, huge.text) == (
            413,
            "Error: the file sent is larger than the 2,000,000 bytes a file sent here may have — send the "
            "tournament report (TRF) only\n",
        )
    with db.transaction(engine) as session:
        assert session.scalars(select(Event.id).where(Event.is_current.is_(True))).all() == [2]
        assert session.scalar(select(func.count()).select_from(PendingUpload)) == 0


def test_the_configured_upload_limit_holds_on_the_replace_page(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    """WebSettings.max_upload_bytes, not the services' default: a site that takes 20,000 bytes refuses a
    corrected file of 20,001 (it took up to 2,000,000 whatever the setting)."""
    closed_quad(db_url, engine, tmp_path)
    ok(db_url, "reopen", "2011-07", "--reason", "round 1 the wrong way")
    app = create_app(WebSettings(url=db_url, max_upload_bytes=20_000))
    try:
        with TestClient(app, base_url="https://testserver", raise_server_exceptions=False) as officer:
            assert sign_in(officer, "aoife") == 303
            form = {"csrftoken": csrf(officer), "reason": "round 1", "action": "check"}
            near = officer.post(
                "/desk/events/1/replace", data=form, files=[("file", _padded(corrected(tmp_path), 20_000))]
            )
            assert near.status_code == 200 and "The file can replace the event" in text_of(near)
            over = officer.post(
                "/desk/events/1/replace", data=form, files=[("file", _padded(corrected(tmp_path), 20_001))]
            )
            assert over.status_code == 400
            assert (
                "Error: the file sent is larger than the 20,000 bytes a file sent here may have"
                in text_of(over)
            )
    finally:
        app.state.ratingdb.database.dispose()


def test_the_replace_page_shows_each_stored_line_choice_and_undoes_one(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    """Issue 46, item 4: rank 3 of the Dublin Open (Kevin Mac Aodha, FIDE 25900230, spelt "Caoimhin") was
    imported as "a new player" (--new 3). The organiser's corrected file spells him right; replacing the
    event applied --new 3 again (a third player). The replace page lists the stored choice of each line,
    and "undo" lets the corrected line be matched by its ID and name."""
    from tests.cli.test_correction_choices import MONTH, SEPTEMBER

    ok(db_url, "import-list", SEPTEMBER, "--date", "2025-09-01", "--type", "standard")
    ok(db_url, "import-trf", MONTH, "--new", "3")
    fixed = tmp_path / "dublin-fixed.trf"
    fixed.write_bytes(MONTH.read_bytes().replace(b"Mac Aodha, Caoimhin", b"Mac Aodha, Kevin   "))
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        page = text_of(officer.get("/desk/events/1/replace"))
        assert '<option value="" selected>as the event was imported: a new player</option>' in page
        assert '<option value="auto" >undo that choice: matched by ID and name</option>' in page
        form = {"csrftoken": csrf(officer), "action": "check", "reason": "Kevin", "choice_3": "auto"}
        sent = [("file", (fixed.name, fixed.read_bytes(), "text/plain"))]
        checked = officer.post("/desk/events/1/replace", data=form, files=sent)
        shown = text_of(checked)
        assert checked.status_code == 200, shown
        assert "The file can replace the event" in shown and "--new 3" not in shown
        replaced = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "replace", "pending": kept_token(shown)},
            follow_redirects=False,
        )
        assert replaced.status_code == 303
    with db.transaction(engine) as session:
        event = session.scalars(select(Event).where(Event.is_current.is_(True))).one()
        rank3 = session.execute(
            text_sql("SELECT p.fide_id FROM event_player ep JOIN player p ON p.id = ep.player_id "
                     "WHERE ep.event_id = :e AND ep.start_rank = 3"), {"e": event.id},
        ).scalar_one()  # fmt: skip
    assert rank3 == 25900230
