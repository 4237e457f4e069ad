"""The accounts of the desk as NIST SP 800-63B asks (issue 52): passwords refused for being common, a
pattern or the site's name, in the page's language; the second factor of officers and admins."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pyotp
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, text

from ratingdb import db
from ratingdb.schema.models import WebUser
from ratingdb.services import users
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings
from tests.site.test_desk_permissions import csrf, sign_in

SITE = "Irish Chess Union"
PASSWORD = "a long enough password"


@contextmanager
def browser(url: str, **settings: object) -> Iterator[TestClient]:
    """The app over HTTPS with the site's name SITE (and `settings`), as test_desk_permissions.browser."""
    app = create_app(WebSettings(url=url, title=SITE, **settings))  # type: ignore[arg-type]
    try:
        with TestClient(app, base_url="https://testserver", raise_server_exceptions=False) as c:
            yield c
    finally:
        app.state.ratingdb.database.dispose()


def text_of(response: object) -> str:
    return html.unescape(response.text)  # type: ignore[attr-defined]


def add_admin(engine: Engine, name: str = "mary") -> None:
    with db.transaction(engine) as session:
        users.add_user(session, name, "admin", PASSWORD)


def test_the_accounts_page_refuses_a_common_password_a_pattern_and_the_site_s_name_in_the_page_s_language(
    db_url: str, engine: Engine
) -> None:
    add_admin(engine)
    said = {
        "en": {
            "password123": "Error: the password is on a list of commonly used or breached passwords, which "
            "attackers try first — choose another",
            "aaaaaaaaaaaa": "Error: the password is a simple pattern (a character or piece repeated, a run "
            "such as 12345 or abcde, a row of the keyboard or a date) — choose another",
            SITE: "Error: the password contains the site's name — choose another",
        },
        "de": {
            "password123": "Fehler: das Passwort steht auf einer Liste häufig benutzter oder gestohlener "
            "Passwörter, die Angreifer zuerst ausprobieren — wählen Sie ein anderes",
            "aaaaaaaaaaaa": "Fehler: das Passwort ist ein einfaches Muster (ein wiederholtes Zeichen oder "
            "Stück, eine Folge wie 12345 oder abcde, eine Tastaturreihe oder ein Datum) — wählen Sie ein "
            "anderes",
            SITE: "Fehler: das Passwort enthält den Namen der Website — wählen Sie ein anderes",
        },
        "fr": {
            "password123": "Erreur : le mot de passe figure dans une liste de mots de passe courants ou "
            "volés, que les attaquants essaient en premier — choisissez-en un autre",
            "aaaaaaaaaaaa": "Erreur : le mot de passe est un motif simple (un caractère ou un morceau "
            "répété, une suite comme 12345 ou abcde, une rangée du clavier ou une date) — "
            "choisissez-en un autre",
            SITE: "Erreur : le mot de passe contient le nom du site — choisissez-en un autre",
        },
    }
    with browser(db_url) as c:
        assert sign_in(c, "mary") == 303
        for lang, sentences in said.items():
            for password, sentence in sentences.items():
                form = {"csrftoken": csrf(c), "username": "aoife", "role": "officer", "password": password}
                page = c.post("/desk/users", data=form, headers={"accept-language": lang})
                assert page.status_code == 400
                assert sentence in text_of(page), (lang, password)
                assert text_of(page).count("—") == 1  # one sentence, and no other refusal beside it
        # A new password for an account is checked too, for its role.
        form = {"csrftoken": csrf(c), "password": "password123"}
        refused = c.post("/desk/users/mary/password", data=form)
        assert refused.status_code == 400 and said["en"]["password123"] in text_of(refused)
    with db.transaction(engine) as session:
        assert session.scalars(select(WebUser.username)).all() == ["mary"]  # nothing added
        assert users._verify(session.scalars(select(WebUser.password_hash)).one(), PASSWORD)


# -- the second factor -----------------------------------------------------------------------------------

SECRET = re.compile(r'<code id="secret">([A-Z2-7]+)</code>')
RECOVERY = re.compile(r"<li><code>([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})</code></li>")
CODE_REFUSED = (
    "Error: the code is not right, was used already, or the account may not sign in now — type the code the "
    "app shows now, or one of the recovery codes"
)


def step_now() -> int:
    return int(time.time()) // 30


def not_a_code(secret: str) -> str:
    """Six digits that no step the server takes now (this one, one either side) has as its code."""
    taken = {pyotp.TOTP(secret).generate_otp(step_now() + d) for d in range(-2, 3)}
    return next(c for c in ("000000", "111111", "222222") if c not in taken)


def enrol(c: TestClient) -> tuple[str, list[str]]:
    """Set up the second factor on the desk: the secret read from the page, a wrong code refused, the
    right one taken; the secret and the recovery codes shown once."""
    page = c.get("/desk/second-factor")
    assert page.status_code == 200 and '<img src="data:image/png;base64,' in page.text
    secret = SECRET.search(page.text).group(1)  # type: ignore[union-attr]
    wrong = c.post("/desk/second-factor", data={"csrftoken": csrf(c), "code": not_a_code(secret)})
    assert wrong.status_code == 400
    assert "Error: the code is not the one the app shows now — scan the QR code again" in text_of(wrong)
    again = SECRET.search(wrong.text)  # the page again, with the same secret (one QR code, however often)
    assert again is not None and again.group(1) == secret
    done = c.post("/desk/second-factor", data={"csrftoken": csrf(c), "code": pyotp.TOTP(secret).now()})
    assert done.status_code == 200
    codes = RECOVERY.findall(done.text)
    assert len(codes) == 10 and len(set(codes)) == 10
    return secret, codes


def sign_out(c: TestClient) -> None:
    c.post("/logout", data={"csrftoken": csrf(c)})


def give_code(c: TestClient, code: str) -> int:
    page = c.post("/login/code", data={"csrftoken": csrf(c), "code": code}, follow_redirects=False)
    if page.status_code == 400:
        assert CODE_REFUSED in text_of(page)  # the one sentence, whatever was wrong
    return page.status_code


def test_totp_sign_in_refuses_a_wrong_code_and_a_reused_one_and_takes_a_recovery_code_once(
    db_url: str, engine: Engine
) -> None:
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as c:
        assert sign_in(c, "aoife") == 303
        secret, recovery = enrol(c)
        sign_out(c)
        with db.transaction(engine) as session:
            enrolled_step = session.scalars(select(WebUser.totp_last_step)).one()
        # The password alone opens only the code's page.
        first = c.post(
            "/login",
            data={"csrftoken": csrf(c), "username": "aoife", "password": PASSWORD},
            follow_redirects=False,
        )
        assert (first.status_code, first.headers["location"]) == (303, "/login/code")
        assert c.get("/desk/queue", follow_redirects=False).headers["location"] == "/login"
        assert give_code(c, not_a_code(secret)) == 400  # a wrong code
        # The code the enrolment took: the same 30-second step, refused whenever it comes again.
        assert give_code(c, pyotp.TOTP(secret).generate_otp(enrolled_step)) == 400
        fresh = pyotp.TOTP(secret).generate_otp(enrolled_step + 1)  # the next step: within one of now
        assert give_code(c, fresh) == 303
        assert c.get("/desk/queue").status_code == 200
        sign_out(c)
        assert sign_in(c, "aoife") == 303
        assert give_code(c, fresh) == 400  # reused, in another sign-in
        assert give_code(c, recovery[3].lower().replace("-", " ")) == 303  # as typed: case and spaces
        sign_out(c)
        assert sign_in(c, "aoife") == 303
        assert give_code(c, recovery[3]) == 400  # each recovery code works once
        page = c.post("/login/code", data={"csrftoken": csrf(c), "code": recovery[4]})
        assert page.status_code == 200 and "Recovery codes left: 8." in text_of(c.get("/desk/second-factor"))
    with db.transaction(engine) as session:
        cells = " ".join(
            str(value)
            for table in ("web_user", "web_recovery_code", "web_session", "audit_log")
            for row in session.execute(text(f"SELECT * FROM {table}"))
            for value in row
        )
        failures = session.scalars(select(WebUser.failed_logins)).one()
    for code in recovery:
        assert code not in cells and code.replace("-", "") not in cells  # only their SHA-256
    assert failures == 0  # the wrong codes counted (5 in a row make the account wait), then forgotten


def test_wrong_codes_count_as_failed_sign_ins_and_make_the_account_wait(db_url: str, engine: Engine) -> None:
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as c:
        assert sign_in(c, "aoife") == 303
        secret, _ = enrol(c)
        sign_out(c)
        assert sign_in(c, "aoife") == 303
        for _ in range(users.ACCOUNT_FREE_FAILURES):
            assert give_code(c, not_a_code(secret)) == 400
        with db.transaction(engine) as session:
            user = session.scalars(select(WebUser)).one()
            assert user.failed_logins == users.ACCOUNT_FREE_FAILURES
            assert user.locked_until is not None  # the 5th failure in a row: the account waits
        # While it waits even the right code is refused, as the right password is.
        assert give_code(c, pyotp.TOTP(secret).generate_otp(step_now() + 1)) == 400


def test_require_2fa_officer_sends_an_officer_without_a_factor_to_enrol_and_leaves_organisers_be(
    db_url: str, engine: Engine
) -> None:
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
        users.add_user(session, "juniors", "organiser", PASSWORD)
        users.add_user(session, "mary", "admin", PASSWORD)
    with browser(db_url, require_2fa="officer") as c:
        assert sign_in(c, "aoife") == 303
        for page in ("/desk", "/desk/queue", "/desk/players", "/desk/submissions"):
            sent = c.get(page, follow_redirects=False)
            assert (sent.status_code, sent.headers["location"]) == (303, "/desk/second-factor"), page
        enrolment = c.get("/desk/second-factor")
        assert "This site asks officers and admins for a second factor" in text_of(enrolment)
        enrol(c)
        assert c.get("/desk/queue").status_code == 200  # enrolled: the desk opens
        sign_out(c)
        assert sign_in(c, "juniors") == 303
        assert c.get("/desk/submissions").status_code == 200  # an organiser needs none
        sign_out(c)
        # The admin resets the officer's factor (a lost device): her sessions end, and the next sign-in
        # is sent to enrol again.
        assert sign_in(c, "mary") == 303
        enrol(c)  # an admin must have one too
        reset = c.post("/desk/users/aoife/2fa-reset", data={"csrftoken": csrf(c)}, follow_redirects=False)
        assert reset.status_code == 303
        sign_out(c)
        assert sign_in(c, "aoife") == 303
        assert c.get("/desk/queue", follow_redirects=False).headers["location"] == "/desk/second-factor"
    with db.transaction(engine) as session:
        aoife = users.find_user(session, "aoife")
        assert (aoife.totp_secret, aoife.totp_enrolled_at, aoife.totp_last_step) == (None, None, None)
