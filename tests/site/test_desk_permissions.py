"""The signed-in side: every route × every kind of visitor, CSRF, sessions ending, lockout, no clear
passwords.

The kinds of visitor: the public (no account), organiser A, organiser B, the officer, an admin, and a
user who was signed in and then disabled. Each route is asked with a request that gets past the
permission check only to be refused by the service's own rule (a submission already decided, an
unknown account, an empty file): so "allowed" is a 200, a redirect elsewhere than the sign-in page, or
that 400, never a change — and "refused" is the sign-in page (303 to /login), 403 for a role that may not,
or 404 for another organiser's submission (it is not said to exist).
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, text

from ratingdb import db
from ratingdb.schema.models import Submission, WebSession
from ratingdb.services import users
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings

FIXTURES = Path(__file__).parents[1] / "fixtures" / "trf"
PASSWORD = "a long enough password"
WHO = ("public", "organiser_a", "organiser_b", "officer", "admin", "disabled")
TOKEN = re.compile(r'name="csrftoken" value="([^"]+)"')


@contextmanager
def browser(url: str) -> Iterator[TestClient]:
    """The app over HTTPS (its cookies are Secure), a client that shows a server error as its 500."""
    app = create_app(WebSettings(url=url))
    try:
        with TestClient(app, base_url="https://testserver", raise_server_exceptions=False) as c:
            yield c
    finally:
        app.state.ratingdb.database.dispose()


def csrf(c: TestClient) -> str:
    found = TOKEN.search(c.get("/login").text)
    assert found is not None
    return found.group(1)


def sign_in(c: TestClient, name: str, password: str = PASSWORD) -> int:
    response = c.post(
        "/login", data={"csrftoken": csrf(c), "username": name, "password": password}, follow_redirects=False
    )
    return response.status_code


def setup_people(engine: Engine) -> int:
    """Five accounts and one rejected submission of organiser A (so no route below changes anything)."""
    with db.transaction(engine) as session:
        for name, role in (
            ("organiser_a", "organiser"),
            ("organiser_b", "organiser"),
            ("officer", "officer"),
            ("admin", "admin"),
            ("disabled", "organiser"),
        ):
            users.add_user(session, name, role, PASSWORD)
        a = users.find_user(session, "organiser_a")
        sub = Submission(
            organiser_id=a.id, rating_type="standard", file_name="round_robin.trf", content=b"012 x\n",
            sha256="0" * 64, size=6, status="rejected", check_ok=False, check_text="-", officer_reason="test",
        )  # fmt: skip
        session.add(sub)
        session.flush()
        return sub.id


# route → (method, path, form, {visitor: expected}); "ok" = 200, 303 elsewhere or 400 (the service's rule)
OK, LOGIN, FORBIDDEN, HIDDEN = "ok", "login", "forbidden", "hidden"
SIGNED = {"organiser_a": OK, "organiser_b": OK, "officer": OK, "admin": OK}
OFFICERS = {"organiser_a": FORBIDDEN, "organiser_b": FORBIDDEN, "officer": OK, "admin": OK}
ADMINS = {"organiser_a": FORBIDDEN, "organiser_b": FORBIDDEN, "officer": FORBIDDEN, "admin": OK}
OUT = {"public": LOGIN, "disabled": LOGIN}
FILE = ("file", ("empty.trf", b"", "text/plain"))


def routes(sub: int) -> list[tuple[str, str, dict[str, str], object, dict[str, str]]]:
    return [
        ("GET", "/", {}, None, dict.fromkeys(WHO, OK)),  # the public side, for everyone
        ("GET", "/login", {}, None, dict.fromkeys(WHO, OK)),
        ("GET", "/desk", {}, None, {**OUT, **SIGNED}),
        ("GET", "/desk/submissions", {}, None, {**OUT, **SIGNED}),
        ("POST", "/desk/submissions", {"rating_type": "standard"}, FILE, {**OUT, **SIGNED}),
        (
            "GET", f"/desk/submissions/{sub}", {}, None,
            {**OUT, **SIGNED, "organiser_b": HIDDEN},
        ),
        (
            "POST", f"/desk/submissions/{sub}/withdraw", {}, None,
            {**OUT, "organiser_a": OK, "organiser_b": HIDDEN, "officer": FORBIDDEN, "admin": FORBIDDEN},
        ),
        (
            "POST", f"/desk/submissions/{sub}/replace", {"rating_type": "standard"}, FILE,
            {**OUT, "organiser_a": OK, "organiser_b": HIDDEN, "officer": FORBIDDEN, "admin": FORBIDDEN},
        ),
        ("GET", "/desk/queue", {}, None, {**OUT, **OFFICERS}),
        ("GET", f"/desk/queue/{sub}", {}, None, {**OUT, **OFFICERS}),
        ("POST", f"/desk/queue/{sub}/check", {"choice_1": "new"}, None, {**OUT, **OFFICERS}),
        ("POST", f"/desk/queue/{sub}/accept", {}, None, {**OUT, **OFFICERS}),
        ("POST", f"/desk/queue/{sub}/decide", {"decision": "rejected", "reason": "x"}, None,
         {**OUT, **OFFICERS}),
        ("GET", "/desk/periods", {}, None, {**OUT, **OFFICERS}),
        ("GET", "/desk/periods/standard/2025-10", {}, None, {**OUT, **OFFICERS}),
        ("POST", "/desk/periods/standard/2025-10/dry-run", {}, None, {**OUT, **OFFICERS}),
        ("POST", "/desk/periods/standard/2025-10/close", {}, None, {**OUT, **OFFICERS}),
        # Corrections and the register (reopen, replace-event, player find/edit/merge): officers only.
        ("POST", "/desk/periods/standard/2025-10/reopen", {"reason": "x"}, None, {**OUT, **OFFICERS}),
        ("GET", "/desk/events/999/replace", {}, None, {**OUT, **OFFICERS}),
        ("POST", "/desk/events/999/replace", {"action": "check", "reason": "x"}, FILE, {**OUT, **OFFICERS}),
        ("POST", "/desk/events/999/replace", {"action": "replace", "reason": "x"}, FILE,
         {**OUT, **OFFICERS}),
        ("GET", "/desk/players?q=murphy", {}, None, {**OUT, **OFFICERS}),
        ("GET", "/desk/players/999", {}, None, {**OUT, **OFFICERS}),
        ("POST", "/desk/players/999/edit", {"reason": "x"}, None, {**OUT, **OFFICERS}),
        ("POST", "/desk/players/999/merge", {"duplicates": "998", "reason": "x"}, None, {**OUT, **OFFICERS}),
        ("GET", "/desk/users", {}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/users", {"username": "new", "role": "organiser", "password": "short"}, None,
         {**OUT, **ADMINS}),
        ("POST", "/desk/users/ghost/disable", {}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/users/ghost/role", {"role": "admin"}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/users/ghost/password", {"password": PASSWORD}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/users/ghost/unlock", {}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/unlock-address", {"address": "192.0.2.99"}, None, {**OUT, **ADMINS}),
        ("GET", "/desk/federation", {}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/federation", {"national_ids": "none", "reason": ""}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/federation/renumber", {"low": "1", "high": "9", "reason": "x", "check": "yes"}, None,
         {**OUT, **ADMINS}),
        # Email (ratingdb.web.account_mail): one's own address, the admin's queue, the password reset.
        ("GET", "/desk/contact", {}, None, {**OUT, **SIGNED}),
        ("POST", "/desk/contact", {"email": "not an address"}, None, {**OUT, **SIGNED}),
        ("GET", "/desk/notices", {}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/notices/999/send-again", {}, None, {**OUT, **ADMINS}),
        ("POST", "/desk/contacts/ghost", {"email": "ghost@example.org"}, None, {**OUT, **ADMINS}),
        ("GET", "/password-reset", {}, None, dict.fromkeys(WHO, OK)),
        ("GET", "/password-reset/not-a-token", {}, None, dict.fromkeys(WHO, OK)),
        # The second factor (issue 52): anyone signed in may set up their own (a code of 5 digits is never
        # right: 400); only an admin resets another's; the code's page needs a session awaiting its code.
        ("GET", "/desk/second-factor", {}, None, {**OUT, **SIGNED}),
        ("POST", "/desk/second-factor", {"code": "12345"}, None, {**OUT, **SIGNED}),
        ("POST", "/desk/second-factor/recovery-codes", {"code": "12345"}, None, {**OUT, **SIGNED}),
        ("POST", "/desk/users/ghost/2fa-reset", {}, None, {**OUT, **ADMINS}),
        ("GET", "/login/code", {}, None, dict.fromkeys(WHO, LOGIN)),
        ("POST", "/login/code", {"code": "12345"}, None, dict.fromkeys(WHO, LOGIN)),
    ]  # fmt: skip


def outcome(status: int, location: str, body: str) -> str:
    if status == 303 and location.endswith("/login"):
        return LOGIN
    if status in (200, 400) or status == 303:
        return OK
    if status == 404 and "there is no submission" not in body:
        return OK  # the service's own refusal of a thing that is missing (closing with no list in force)
    return {403: FORBIDDEN, 404: HIDDEN}.get(status, f"status {status}")


def test_every_route_allows_exactly_the_visitors_it_should(db_url: str, engine: Engine) -> None:
    sub = setup_people(engine)
    found: dict[tuple[str, str, str], str] = {}
    expected: dict[tuple[str, str, str], str] = {}
    for who in WHO:
        with browser(db_url) as c:
            if who != "public":
                assert sign_in(c, who) == 303
            if who == "disabled":
                with db.transaction(engine) as session:
                    users.set_disabled(session, "disabled", True)
            token = csrf(c)
            for method, path, form, file, allowed in routes(sub):
                if method == "GET":
                    response = c.get(path, follow_redirects=False)
                else:
                    response = c.post(
                        path, data={"csrftoken": token, **form}, files=[file] if file else None,
                        follow_redirects=False,
                    )  # fmt: skip
                key = (method, path, who)
                found[key] = outcome(
                    response.status_code, response.headers.get("location", ""), response.text
                )
                expected[key] = allowed[who]
    assert found == expected
    with db.transaction(engine) as session:  # nothing was changed by any of it
        assert session.scalars(select(Submission.status)).all() == ["rejected"]
        assert [u.username for u in users.list_users(session)] == [
            "admin", "disabled", "officer", "organiser_a", "organiser_b",
        ]  # fmt: skip


def test_a_form_without_its_csrf_token_is_refused_and_changes_nothing(db_url: str, engine: Engine) -> None:
    setup_people(engine)
    with browser(db_url) as c:
        assert sign_in(c, "admin") == 303
        refused = c.post("/desk/users", data={"username": "mallory", "role": "admin", "password": PASSWORD})
        assert refused.status_code == 403
        assert "Error: the form was not sent by this site's page" in html.unescape(refused.text)
        forged = c.post(
            "/desk/users",
            data={"csrftoken": "forged", "username": "mallory", "role": "admin", "password": PASSWORD},
        )
        assert forged.status_code == 403
        fresh = TestClient(
            c.app, base_url="https://testserver"
        )  # no cookies at all: the login is checked too
        assert fresh.post("/login", data={"username": "admin", "password": PASSWORD}).status_code == 403
        made = c.post(
            "/desk/users",
            data={"csrftoken": csrf(c), "username": "mallory", "role": "organiser", "password": PASSWORD},
            follow_redirects=False,
        )
        assert (made.status_code, made.headers["location"]) == (303, "/desk/users")
    with db.transaction(engine) as session:
        assert users.find_user(session, "mallory").role == "organiser"


def test_a_csrf_token_of_one_session_is_refused_in_another(db_url: str, engine: Engine) -> None:
    # The token is signed with a key of the session (desk._csrf_key): the pair of cookie and form token
    # that session A got is worth nothing to session B, even when both are the same account's.
    setup_people(engine)
    with browser(db_url) as a:
        b = TestClient(a.app, base_url="https://testserver")  # the same app (and secret), another browser
        assert sign_in(a, "admin") == 303 and sign_in(b, "admin") == 303
        token_a, cookie_a = csrf(a), a.cookies.get("ratingdb_csrf")
        assert cookie_a is not None
        for cookie in [c for c in b.cookies.jar if c.name == "ratingdb_csrf"]:
            b.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)
        b.cookies.set("ratingdb_csrf", cookie_a, domain="testserver.local")
        assert b.cookies.get("ratingdb_csrf") == cookie_a
        form = {"csrftoken": token_a, "username": "mallory", "role": "admin", "password": PASSWORD}
        refused = b.post("/desk/users", data=form, follow_redirects=False)
        assert refused.status_code == 403
        assert "Error: the form was not sent by this site's page" in html.unescape(refused.text)
        taken = a.post("/desk/users", data={**form, "role": "organiser"}, follow_redirects=False)
        assert (taken.status_code, taken.headers["location"]) == (303, "/desk/users")  # A's own: good
        # Signing in again is a new session: the token of the page from before is no good either.
        old = csrf(a)
        assert sign_in(a, "officer") == 303
        stale = a.post("/logout", data={"csrftoken": old}, follow_redirects=False)
        assert stale.status_code == 403
    with db.transaction(engine) as session:
        assert users.find_user(session, "mallory").role == "organiser"


def test_the_session_cookie_is_secure_http_only_and_strict(db_url: str, engine: Engine) -> None:
    setup_people(engine)
    with browser(db_url) as c:
        response = c.post(
            "/login",
            data={"csrftoken": csrf(c), "username": "officer", "password": PASSWORD},
            follow_redirects=False,
        )
        cookie = next(
            v for k, v in response.headers.multi_items() if k == "set-cookie" and "ratingdb_session" in v
        )
        assert {"HttpOnly", "Secure", "SameSite=strict"} <= {part.strip() for part in cookie.split(";")}
        assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("ending", ["logout", "disable", "set-role", "reset-password"])
def test_a_session_ends_at_logout_on_disabling_and_on_a_role_change(
    ending: str, db_url: str, engine: Engine
) -> None:
    setup_people(engine)
    with browser(db_url) as c:
        assert sign_in(c, "officer") == 303
        assert c.get("/desk/queue").status_code == 200
        if ending == "logout":
            assert c.post("/logout", data={"csrftoken": csrf(c)}, follow_redirects=False).status_code == 303
        else:
            with browser(db_url) as admin:
                assert sign_in(admin, "admin") == 303
                action, form = {
                    "disable": ("disable", {"confirm": "yes"}),
                    "set-role": ("role", {"role": "organiser"}),
                    "reset-password": ("password", {"password": "another long password"}),
                }[ending]
                done = admin.post(
                    f"/desk/users/officer/{action}",
                    data={"csrftoken": csrf(admin), **form},
                    follow_redirects=False,
                )
                assert done.status_code == 303
        again = c.get("/desk/queue", follow_redirects=False)
        assert (again.status_code, again.headers["location"]) == (303, "/login")
    with db.transaction(engine) as session:
        officer = users.find_user(session, "officer")
        assert session.scalars(select(WebSession).where(WebSession.user_id == officer.id)).all() == []


def test_the_lockout_says_the_same_as_a_wrong_name_and_an_admin_lifts_it(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup_people(engine)
    stopped = users.now()
    monkeypatch.setattr(users, "now", lambda: stopped)  # the account's 1 s wait does not end meanwhile
    with browser(db_url) as c:
        unknown = c.post("/login", data={"csrftoken": csrf(c), "username": "nobody", "password": PASSWORD})
        for _ in range(users.ACCOUNT_FREE_FAILURES):
            wrong = c.post(
                "/login", data={"csrftoken": csrf(c), "username": "officer", "password": "wrong one!"}
            )
        locked = c.post("/login", data={"csrftoken": csrf(c), "username": "officer", "password": PASSWORD})
        sentence = f"Error: {users.LOGIN_REFUSED}"
        assert [r.status_code for r in (unknown, wrong, locked)] == [400, 400, 400]
        assert all(sentence in html.unescape(r.text) for r in (unknown, wrong, locked))
        with browser(db_url) as admin:
            assert sign_in(admin, "admin") == 303
            lifted = admin.post(
                "/desk/users/officer/unlock", data={"csrftoken": csrf(admin)}, follow_redirects=False
            )
            assert lifted.status_code == 303
        assert sign_in(c, "officer") == 303


def test_passwords_are_never_stored_or_logged_in_clear(
    db_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    setup_people(engine)
    with browser(db_url) as c:
        sign_in(c, "admin")
        sign_in(c, "officer", "a wrong password here")
        c.post(
            "/desk/users",
            data={
                "csrftoken": csrf(c),
                "username": "newbie",
                "role": "organiser",
                "password": "sesame opens slowly 1",
            },
        )
    with db.transaction(engine) as session:
        cells = " ".join(
            str(value)
            for table in ("web_user", "web_session", "login_failure", "audit_log", "submission")
            for row in session.execute(text(f"SELECT * FROM {table}"))
            for value in row
        )
    logged = caplog.text
    for secret in (PASSWORD, "a wrong password here", "sesame opens slowly 1"):
        assert secret not in cells
        assert secret not in logged
    assert "$argon2id$" in cells
