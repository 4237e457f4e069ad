"""The signed-in pages in the visitor's language: every text of ratingdb/web/templates through the
catalogues (the same check as the public templates', tests/site/test_i18n.py), de and fr translated."""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2 import nodes
from sqlalchemy import Engine

from ratingdb.site import catalogues
from ratingdb.web.desk import _templates
from tests.site.test_desk_permissions import browser, csrf, setup_people, sign_in
from tests.site.test_i18n import _unwrapped

TEMPLATES = Path(catalogues.PACKAGE, "web", "templates")


@pytest.mark.parametrize("name", sorted(p.name for p in TEMPLATES.iterdir() if p.suffix == ".html"))
def test_no_signed_in_template_prints_a_text_outside_the_catalogue(name: str) -> None:
    tree = _templates().parse((TEMPLATES / name).read_text(encoding="utf-8"))
    for included in tree.find_all(nodes.Include):  # the name of a template included is not printed
        included.template = nodes.Const("")
    assert sorted(set(_unwrapped(tree))) == []


def test_the_signed_in_pages_are_in_the_visitor_s_language(db_url: str, engine: Engine) -> None:
    setup_people(engine)
    with browser(db_url) as c:
        german = c.get("/login", headers={"accept-language": "de-DE,de;q=0.9"})
        assert '<html lang="de">' in german.text and "<h1>Anmelden</h1>" in german.text
        assert german.headers["vary"] == "Accept-Language"
        assert sign_in(c, "officer") == 303
        french = c.get("/desk/queue", headers={"accept-language": "fr"})
        assert "<h1>File d’attente</h1>" in french.text and "Se déconnecter" in french.text
        assert "officer (responsable)" in french.text  # the role, in French
        english = c.get("/desk/periods")
        assert "<h1>Open periods</h1>" in english.text
        assert csrf(c)


def test_a_refused_line_is_said_in_plain_words_with_no_terminal_option_on_german_and_french_pages(
    db_url: str, engine: Engine
) -> None:
    """Issue 46: organisers were told to type terminal options ("--match 3=…"), untranslated. The refusal
    is data now; the organiser's and the officer's pages word it in the page's language."""
    from tests.site.test_desk_month import prepare, text_of, upload

    prepare(db_url, engine)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        upload(organiser)
        for lang, said in (
            ("de", "Die ID FIDE 25900230 von Zeile 12 (Mac Aodha, Caoimhin) gehört zu Mac Aodha, Kevin"),
            ("fr", "L’identifiant FIDE 25900230 de la ligne 12 (Mac Aodha, Caoimhin) est celui de Mac Aodha"),
        ):  # fmt: skip
            page = text_of(organiser.get("/desk/submissions/1", headers={"accept-language": lang}))
            assert said in page
            assert "--" not in page.split("<main>")[1]
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        for lang in ("de", "fr"):
            page = text_of(officer.get("/desk/queue/1", headers={"accept-language": lang}))
            assert 'name="choice_3"' in page and "Mac Aodha, Kevin (FIDE 25900230" in page
            assert "--" not in page.split("<main>")[1]
