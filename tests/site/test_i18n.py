"""The pages in the federation's language: every text through the catalogues, each language complete, the
language per site (`publish --lang`) and per visitor (Accept-Language), numbers and dates per locale.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from jinja2 import nodes
from typer.testing import CliRunner

from ratingdb.cli import app as cli
from ratingdb.i18n import LANGUAGES, Language, check_language, negotiate
from ratingdb.site import catalogues
from ratingdb.site.publish import environment
from tests.site.conftest import publish
from tests.site.test_publish import DOYLE_PAGE, files, parse, text_of
from tests.site.web import client, without_marked_parts

TEMPLATES = Path(catalogues.PACKAGE, "site", "templates")
# FIDE's IT1 certificate is filed with FIDE in English, its own words; the sitemap holds only addresses.
NOT_PAGES_OF_THE_SITE = {"it1.html", "sitemap.xml"}
# Words the pages print as they are in every language: the regulations' symbols and file formats.
SYMBOLS = {"K", "D", "PD", "Ro", "Rp", "Ra", "Rc", "RD", "CSV", "ratingdb"}
# Expressions whose string constants are handed on, not printed: arguments, keys, names of templates.
NOT_PRINTED = (
    nodes.Call, nodes.Filter, nodes.Test, nodes.Getattr, nodes.Getitem, nodes.Compare, nodes.Operand,
    nodes.Dict, nodes.Pair, nodes.List, nodes.Tuple, nodes.Assign, nodes.Extends, nodes.FromImport,
)  # fmt: skip


def test_every_message_of_the_pages_is_in_the_catalogues_and_translated() -> None:
    # Extracted now from the templates and the Python that writes page texts, as tools/catalogues.py
    # does: a message written since the catalogues were last updated fails here, with its name.
    template = catalogues.extract()
    assert len(template) > 150
    assert [str(p) for p in catalogues.problems(template)] == []


def test_every_module_that_writes_a_message_is_extracted() -> None:
    # A message marked in a module the extraction does not read would never reach the catalogues (and
    # the test above could not see it): each such module must be named in catalogues.METHOD_MAP.
    marked = re.compile(r"\b(?:N_|_|gettext|ngettext)\(\s*[\"']")
    writers = [
        path
        for path in sorted(catalogues.PACKAGE.rglob("*.py"))
        if marked.search(path.read_text(encoding="utf-8")) and path.name != "catalogues.py"
    ]
    assert len(writers) >= 5
    assert [str(p) for p in writers if not catalogues.extracted(p)] == []


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[^\W\d_]{2,}", text) if w not in SYMBOLS]


def _pieces(node: nodes.Node, constants: list[str], inside_call: bool = False) -> Iterator[str]:
    """The template's raw text in source order, "\0" where an expression prints; string constants printed
    as they are (`{{ x or "unrated" }}`) go to `constants`, not those handed to a function or filter."""
    if isinstance(node, nodes.TemplateData):
        yield node.data
        return
    if isinstance(node, nodes.Const) and isinstance(node.value, str) and not inside_call:
        constants.append(node.value)
        return
    if isinstance(node, nodes.Expr) and not inside_call:
        yield "\0"
    handed = isinstance(node, NOT_PRINTED)
    for child in node.iter_child_nodes():
        yield from _pieces(child, constants, inside_call or handed)


def _unwrapped(tree: nodes.Node) -> list[str]:
    """Texts a template prints without a translation: words of its text outside tags, attributes that
    people read (placeholder, aria-label, title, alt), and string constants printed as they are."""
    constants: list[str] = []
    source = re.sub(r"<!--.*?-->", "", "".join(_pieces(tree, constants)), flags=re.S)
    found = re.findall(r'(?:placeholder|aria-label|title|alt)="([^"\0]*[A-Za-z][^"\0]*)"', source)
    found += _words(re.sub(r"<[^>]*>", " ", source))
    for constant in constants:
        found += _words(constant)
    return found


@pytest.mark.parametrize(
    "name", sorted(p.name for p in TEMPLATES.iterdir() if p.name not in NOT_PAGES_OF_THE_SITE)
)
def test_no_template_prints_a_text_outside_the_catalogue(name: str) -> None:
    env = environment()
    tree = env.parse((TEMPLATES / name).read_text(encoding="utf-8"))
    assert sorted(set(_unwrapped(tree))) == []


def test_the_check_finds_a_text_written_without_a_translation() -> None:
    env = environment()
    tree = env.parse(
        '<p title="Rating lists">Rated {{ x or "unrated" }} {{ _("Name") }} K {{ y|join(", ") }}</p>'
    )
    assert sorted(_unwrapped(tree)) == ["Rated", "Rating lists", "unrated"]


def test_a_browser_s_preferred_language_is_chosen_among_those_shipped() -> None:
    assert negotiate("de-CH;q=0.8, fr;q=0.9, en;q=0.1") == "fr"
    assert negotiate("pt-BR, de-AT;q=0.5") == "de"  # Portuguese is not shipped: the next one asked for
    assert negotiate("pt-BR, *;q=0.5", default="fr") == "fr"
    assert negotiate("de;q=0, fr;q=abc") == "en"  # q=0 means "not this one"; a bad q counts as 0
    assert negotiate(None, default="de") == "de"
    assert negotiate("EN-gb") == "en"
    assert check_language("de_AT") == "de"


def test_numbers_and_dates_are_written_as_each_locale_writes_them() -> None:
    day = dt.date(2025, 11, 1)
    assert [Language(c).date(day) for c in LANGUAGES] == ["Nov 1, 2025", "01.11.2025", "1 nov. 2025"]
    assert [Language(c).count(20000) for c in LANGUAGES] == ["20,000", "20.000", "20\u202f000"]
    # Points keep two decimals and are never grouped (Rc 2376.11); the sign is the calculation's.
    assert [Language(c).hundredths(237611) for c in LANGUAGES] == ["2376.11", "2376,11", "2376,11"]
    assert Language("de").hundredths(-51) == "-0,51" and Language("de").hundredths(0, signed=True) == "+0,00"


def test_a_language_not_shipped_is_one_line_naming_those_that_are(demo_url: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", demo_url, "publish", str(tmp_path / "www"), "--lang", "pt"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: there are no pages in 'pt' — choose one of en (English), de (Deutsch), fr (Français)\n"
    )
    assert not (tmp_path / "www").exists()


@pytest.fixture(scope="module")
def german(demo_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("de") / "www"
    publish(demo_url, folder, "--lang", "de", "--title", "Demo Chess Federation")
    return files(folder)


def test_publish_lang_de_writes_the_whole_site_in_german(german: dict[str, bytes]) -> None:
    home = parse(german["index.html"])
    assert home.get("lang") == "de"
    assert text_of(home.find(".//main//h2")) == "Standard-Liste 01.12.2025"  # type: ignore[arg-type]
    assert "Alle veröffentlichten Listen" in german["index.html"].decode()
    player = german[DOYLE_PAGE].decode()
    for words in ("Berechnungen", "Gegner", "die erwartete Punktzahl für diese Differenz", "Nationale ID"):
        assert words in player
    # The games table writes the expected score with the decimal comma: PD 0,97 where English has 0.97.
    assert re.search(r"<td>0,\d\d<td>", player) and not re.search(r"<td>0\.\d\d<td>", player)
    listing = german["lists/standard-2025-12-01.html"].decode()
    assert "<h1>Standard-Liste 01.12.2025</h1>" in listing and 'data-shown="{shown} von ' in listing


def test_the_served_page_is_in_the_visitor_s_language_and_says_so(demo_url: str) -> None:
    with client(demo_url, title="Demo Chess Federation") as served:
        english = served.get("/")
        french = served.get("/", headers={"accept-language": "fr-CA,fr;q=0.9,en;q=0.5"})
        assert english.headers["content-language"] == "en" and parse(english.content).get("lang") == "en"
        assert french.headers["content-language"] == "fr" and parse(french.content).get("lang") == "fr"
        for response in (english, french):
            assert response.headers["vary"] == "Accept-Language"  # a shared cache keeps one per language
        assert "Trouver un joueur" in french.text and "Liste standard du 1 déc. 2025" in french.text
        search = served.get("/search", params={"q": "Patrik Doyle"}, headers={"accept-language": "de"})
        assert "1 Spieler passt zu „Patrik Doyle“" in search.text
        missing = served.get("/players/1.html", headers={"accept-language": "de"})
        assert missing.status_code == 404 and "<h1>Nicht gefunden</h1>" in missing.text
    with client(demo_url, language="de") as served:  # `serve --lang de`: for browsers asking for none
        assert served.get("/").headers["content-language"] == "de"
        assert served.get("/", headers={"accept-language": "fr"}).headers["content-language"] == "fr"


def test_a_static_german_page_is_the_served_page_a_german_browser_gets(
    demo_url: str, german: dict[str, bytes]
) -> None:
    with client(demo_url, title="Demo Chess Federation") as served:
        for relative in ("index.html", DOYLE_PAGE, "periods/standard-2025-10.html"):
            response = served.get(f"/{relative}", headers={"accept-language": "de-DE,de;q=0.9"})
            assert without_marked_parts(response.content) == without_marked_parts(german[relative]), relative
