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
