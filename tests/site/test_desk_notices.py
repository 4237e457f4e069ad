"""The desk's email (issue 52), against a real SMTP server on 127.0.0.1 (tests/smtp.py): notices sent by
the served site's background sender after the request that queued them; the admin's view of the queue;
the mail server down while the officer works; the self-service password reset (the same answer for
known and unknown names, a link that works once and expires, every session ended)."""

from __future__ import annotations

import datetime as dt
import html
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from ratingdb import db
from ratingdb.schema.models import AuditEntry, LoginFailure, Notice, PasswordReset, Submission
from ratingdb.services import notices, users
from ratingdb.services.password_reset import NOT_VALID, WAIT, Requested, finish_reset, request_reset
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings
from tests.site.test_desk_permissions import PASSWORD, csrf, sign_in
from tests.smtp import Inbox, body, free_port, smtp_server, subject

SITE = "https://ratings.example.org"
LINK = re.compile(re.escape(SITE) + r"(/password-reset/[A-Za-z0-9_-]+)\n")


@contextmanager
def browser(url: str, port: int, language: str = "en") -> Iterator[TestClient]:
    """The app over HTTPS, sending notices to 127.0.0.1:`port`, its sender looking every 0.2 s."""
    settings = WebSettings(
        url=url,
        smtp_url=f"smtp://127.0.0.1:{port}",
        mail_from="ratings@example.org",
        public_url=SITE,
        title="ICU",
        notices_every=0.2,
    )
    app = create_app(settings)
    try:
        with TestClient(
            app,
            base_url="https://testserver",
            raise_server_exceptions=False,
            headers={"accept-language": language},
        ) as c:
            yield c
    finally:
        app.state.ratingdb.database.dispose()


def people(engine: Engine) -> int:
    """An organiser (German), an officer who hears at once (English), an admin without an address, and a
    submitted file of the organiser's; its id."""
    with db.transaction(engine) as session:
        organiser = users.add_user(session, "galway-open", "organiser", PASSWORD)
        officer = users.add_user(session, "aoife", "officer", PASSWORD)
        users.add_user(session, "mary", "admin", PASSWORD)
        notices.set_contact(session, organiser, "fixtures@galwaychess.ie", language="de")
        notices.set_contact(session, officer, "aoife@example.org", language="en", files_waiting="at_once")
        sub = Submission(
            organiser_id=organiser.id, rating_type="standard", file_name="galway.trf", content=b"012 x\n",
            sha256="1" * 64, size=6, status="submitted", check_ok=False, check_text="-",
        )  # fmt: skip
        session.add(sub)
        session.flush()
        return sub.id


def text_of(response: object) -> str:
    return html.unescape(response.text)  # type: ignore[attr-defined]


def test_the_officer_s_decision_reaches_the_organiser_by_the_background_sender(
    db_url: str, engine: Engine
) -> None:
    number = people(engine)
    with smtp_server() as (inbox, port), browser(db_url, port) as officer:
        assert sign_in(officer, "aoife") == 303
        # The officer's own page: the address and the choice for files waiting.
        page = text_of(officer.get("/desk/contact"))
        assert 'value="aoife@example.org"' in page
        assert '<option value="at_once" selected>at once, one email per file</option>' in page
        sent = officer.post(
            f"/desk/queue/{number}/decide",
            data={
                "csrftoken": csrf(officer),
                "decision": "changes_requested",
                "reason": "Round 5 is missing.",
            },
            follow_redirects=False,
        )
        assert sent.status_code == 303
        (told,) = inbox.wait_for(1)
    assert (told["To"], subject(told)) == (
        "fixtures@galwaychess.ie",
        "ICU: Ihre Datei galway.trf wurde zur Überarbeitung zurückgeschickt",
    )
    assert "\n\n> Round 5 is missing.\n\n" in body(told)
    assert f"\n{SITE}/desk/submissions/{number}\n" in body(told)


def test_with_the_mail_server_down_the_officer_s_work_goes_on_and_the_admin_sees_why(
    db_url: str, engine: Engine
) -> None:
    number = people(engine)
    port = free_port()  # nothing listens there
    with browser(db_url, port) as officer, browser(db_url, port) as admin:
        assert sign_in(officer, "aoife") == 303
        decided = officer.post(
            f"/desk/queue/{number}/decide",
            data={"csrftoken": csrf(officer), "decision": "rejected", "reason": "Not a rated event."},
            follow_redirects=False,
        )
        assert decided.status_code == 303  # the change is made whatever the mail server does
        with db.transaction(engine) as session:
            assert session.get_one(Submission, number).status == "rejected"
        assert sign_in(admin, "mary") == 303
        page = ""
        for _ in range(100):  # the sender's first try, in the background
            page = text_of(admin.get("/desk/notices"))
            if "Connection refused" in page:
                break
        assert "Waiting: 1 · sent: 0 · failed: 0" in page
        assert f"<td>cannot reach smtp://127.0.0.1:{port}: Connection refused</td>" in page
        # Only admins see the queue.
        assert officer.get("/desk/notices").status_code == 403
    with smtp_server(port) as (inbox, _):
        settings = notices.notice_settings(f"smtp://127.0.0.1:{port}", "ratings@example.org", SITE, "ICU")
        assert settings is not None
        # Once the server is back: at the retry's time (a minute after the failed try), sent, once.
        later = notices.now() + dt.timedelta(minutes=2)
        assert notices.send_due(db.UnitOfWork(engine), settings, at=later).sent == 1
        assert notices.send_due(db.UnitOfWork(engine), settings, at=later).sent == 0
    assert [(m["To"], subject(m)) for m in inbox.messages] == [
        ("fixtures@galwaychess.ie", "ICU: Ihre Datei galway.trf wurde abgelehnt")
    ]


def ask_reset(c: TestClient, who: str) -> str:
    response = c.post("/password-reset", data={"csrftoken": csrf(c), "who": who})
    assert response.status_code == 200
    return re.sub(r'name="csrftoken" value="[^"]+"', "", text_of(response))


def reset_link(inbox: Inbox, count: int) -> str:
    messages = inbox.wait_for(count)
    assert len(messages) == count
    found = LINK.search(body(messages[-1]))
    assert found is not None, body(messages[-1])
    return found.group(1)


def test_a_reset_link_works_once_ends_every_session_and_answers_alike_for_anyone(
    db_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ratingdb.web.access")
    people(engine)
    with smtp_server() as (inbox, port), browser(db_url, port) as signed, browser(db_url, port) as other:
        assert sign_in(signed, "galway-open") == 303
        assert signed.get("/desk/submissions").status_code == 200
        # The same page for an unknown name, a known one, and a known address in capitals.
        unknown = ask_reset(other, "nobody")
        assert ask_reset(other, "galway-open") == unknown
        assert ask_reset(other, "Fixtures@GalwayChess.IE") == unknown
        assert ask_reset(other, "mary") == unknown  # an admin without an address: nothing to send to
        assert "a link to choose a new password is on its way to that address" in unknown
        link = reset_link(inbox, 2)
        assert {m["To"] for m in inbox.messages} == {"fixtures@galwaychess.ie"}
        assert subject(inbox.messages[0]) == "ICU: Wählen Sie ein neues Passwort"
        # Two links came: the first is used, which withdraws the second.
        first = LINK.search(body(inbox.messages[0]))
        assert first is not None
        form = other.get(first.group(1))
        assert form.status_code == 200 and 'id="set-password"' in form.text
        # The link leaves the site in no Referer, is kept in no cache, and is written to no access log.
        assert form.headers["referrer-policy"] == "same-origin"
        assert form.headers["cache-control"] == "no-store"
        token = first.group(1).rsplit("/", 1)[1]
        logged = [r.getMessage() for r in caplog.records if r.name == "ratingdb.web.access"]
        assert any('"GET /password-reset/…" 200' in line for line in logged)
        assert not any(token in line for line in logged)
        differ = other.post(
            first.group(1),
            data={"csrftoken": csrf(other), "password": "new password 1", "again": "new password 2"},
        )
        assert differ.status_code == 400
        assert "Error: the two passwords differ — type the same new password twice" in text_of(differ)
        done = other.post(
            first.group(1),
            data={"csrftoken": csrf(other), "password": "new password 1", "again": "new password 1"},
        )
        assert done.status_code == 200 and 'id="reset-done"' in done.text
        # Every session of the account ended: the browser signed in before is sent to sign in.
        assert signed.get("/desk/submissions", follow_redirects=False).headers["location"] == "/login"
        assert sign_in(signed, "galway-open") == 400
        assert sign_in(signed, "galway-open", "new password 1") == 303
        # The link works once, and the other one of the account is withdrawn.
        for used in (first.group(1), link):
            again = other.post(
                used, data={"csrftoken": csrf(other), "password": "new password 3", "again": "new password 3"}
            )
            assert again.status_code == 400
            assert "This link to choose a new password is not valid" in text_of(again)
        assert other.get(link).status_code == 400
        # The owner is told their password changed (in German, no password in it).
        changed = [m for m in inbox.wait_for(3) if "Passwort wurde geändert" in subject(m)]
        assert len(changed) == 1 and "new password 1" not in body(changed[0])
    with db.transaction(engine) as session:
        audited = session.scalars(
            select(AuditEntry.actor).where(AuditEntry.action.in_(("user-reset-asked", "user-password")))
        ).all()
        assert audited == ["web:password-reset"] * 3  # two links asked for, one password set
        resets = session.scalars(select(PasswordReset).order_by(PasswordReset.id)).all()
        assert [r.used_at is not None for r in resets] == [True, True]
        assert all(r.token_hash is not None and len(r.token_hash) == 64 for r in resets)
        # No notice holds a link's token: the queue keeps the reset's number only.
        assert all("password-reset/" not in n.details for n in session.scalars(select(Notice)))


def test_a_reset_link_expires_an_hour_after_it_was_sent(db_url: str, engine: Engine) -> None:
    people(engine)
    with db.transaction(engine) as session:
        assert request_reset(session, "galway-open", "192.0.2.1").queued
    with smtp_server() as (inbox, port):
        settings = notices.notice_settings(f"smtp://127.0.0.1:{port}", "ratings@example.org", SITE, "ICU")
        assert settings is not None
        # Sent (and so its token made) an hour and a minute ago: past its hour.
        old = notices.now() - dt.timedelta(hours=1, minutes=1)
        assert notices.send_due(db.UnitOfWork(engine), settings, at=old, every_waiting=True).sent == 1
        link = reset_link(inbox, 1)
        with browser(db_url, port) as c:
            response = c.get(link)
            assert response.status_code == 400
            assert "it is too old" in text_of(response)
            refused = c.post(
                link, data={"csrftoken": csrf(c), "password": "new password 1", "again": "new password 1"}
            )
            assert refused.status_code == 400
    assert sign_in_works(db_url, "galway-open", PASSWORD)


def sign_in_works(db_url: str, name: str, password: str) -> bool:
    with browser(db_url, free_port()) as c:
        return sign_in(c, name, password) == 303


def test_an_account_gets_at_most_three_links_an_hour(db_url: str, engine: Engine) -> None:
    people(engine)
    with db.transaction(engine) as session:
        done = [request_reset(session, "galway-open", f"192.0.2.{n}").queued for n in range(5)]
    assert done == [True, True, True, False, False]


def test_reset_requests_and_wrong_links_count_against_the_address_as_wrong_passwords_do(
    db_url: str, engine: Engine
) -> None:
    people(engine)
    with db.transaction(engine) as session:
        for _ in range(users.ADDRESS_FREE_FAILURES):  # the address's free failures, spent on requests
            assert not request_reset(session, "nobody", "192.0.2.50").waiting
        for _ in range(3):  # three wrong passwords more: a wait of 8 s, so the check below is not a race
            users.count_address_failure(session, "192.0.2.50")
        # The address waits: nothing is looked up or sent, and a link is not tried.
        assert request_reset(session, "galway-open", "192.0.2.50") == Requested(queued=False, waiting=True)
        assert finish_reset(session, "forged", "new password 1", "192.0.2.50").refusal == WAIT
        # Another address is not held up; a wrong link counts one failure of its address.
        assert request_reset(session, "galway-open", "192.0.2.51").queued
        assert finish_reset(session, "forged", "new password 1", "192.0.2.52").refusal == NOT_VALID
        counted = select(LoginFailure.failures).where(LoginFailure.address == "192.0.2.52")
        assert session.scalar(counted) == 1
