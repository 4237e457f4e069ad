"""The accounts of the desk as NIST SP 800-63B asks (issue 52): passwords refused for being common, a
pattern or the site's name, in the page's language; the second factor of officers and admins."""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

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
