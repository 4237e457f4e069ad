"""The pages in the federation's language: every text through the catalogues, each language complete, the
language per site (`publish --lang`) and per visitor (Accept-Language), numbers and dates per locale.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from jinja2 import nodes
from sqlalchemy import text
from typer.testing import CliRunner

from ratingdb import calc_notes
from ratingdb.cli import app as cli
from ratingdb.db import make_engine
from ratingdb.i18n import LANGUAGES, Language, check_language, negotiate
from ratingdb.rating.kfactor import FIDE_K_RULES, KRule, k_factor
from ratingdb.rating.norms import RuleCheck
from ratingdb.reports import norm_texts
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
        assert "5 Spieler passen zu „Patrik Doyle“" in search.text
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


# --- texts the pages show that are not written in the templates ---------------------------------------


def test_every_note_the_close_stores_is_read_back_as_its_phrases(demo_url: str) -> None:
    # The demo's closes store notes of four kinds (pool, first rating, below the floor, a rapid player
    # rated with the standard rating): each part of each note must be a phrase of ratingdb.calc_notes,
    # so a page can translate it; a close that writes a new wording fails here until it is one.
    engine = make_engine(demo_url)
    try:
        with engine.connect() as conn:
            stored = [
                row[0]
                for table in ("calc_player", "calc_list_event")
                for row in conn.execute(text(f"SELECT note FROM {table} WHERE note IS NOT NULL"))
            ]
    finally:
        engine.dispose()
    assert len(stored) >= 8
    parts = [part for note in stored for part in note.split("; ")]
    assert [p for p in parts if calc_notes.parse(p) is None] == []
    assert {calc_notes.parse(p)[0] for p in parts} >= {  # type: ignore[index]
        calc_notes.POOL_RATED,
        calc_notes.POOL_TOO_FEW,
        calc_notes.BELOW_FLOOR_UNRATED,
        calc_notes.SUBSTITUTE,
    }


def test_a_stored_note_is_shown_in_the_page_s_language_and_other_text_as_it_is() -> None:
    note = (
        "no rapid rating: rated with the standard rating 1500 (§7); new rating 1373 is below the floor "
        "of 1400 (§7.2.1): unrated on the new list; checked by hand"
    )
    assert calc_notes.shown_note(note, Language("de")) == (
        "keine Wertungszahl (Schnellschach): mit der Standard-Wertungszahl 1500 gewertet (§7); neue "
        "Wertungszahl 1373 liegt unter der Untergrenze 1400 (§7.2.1): ohne Wertungszahl auf der neuen "
        "Liste; checked by hand"
    )
    assert calc_notes.shown_note(note, Language("en")) == note
    assert calc_notes.shown_note("first rating from 9 pooled games (§8.2)", Language("fr")) == (
        "premier classement sur 9 parties regroupées (§8.2)"
    )


@pytest.mark.parametrize(
    ("rules", "state", "phrase"),
    [
        (FIDE_K_RULES, {"reached_2400": True}, calc_notes.K_REACHED),
        (FIDE_K_RULES, {"birth_year": 2010}, calc_notes.K_JUNIOR_NEVER),
        (FIDE_K_RULES, {"games_total": 12}, calc_notes.K_FEWER),
        (FIDE_K_RULES, {}, calc_notes.K_GAMES_NEVER),
        ((KRule(15, reached=2400), KRule(25)), {}, calc_notes.K_NEVER),
        ((KRule(30, fewer_games_than=20), KRule(25)), {}, calc_notes.K_GAMES),
        ((KRule(30, junior_max_age=20), KRule(25)), {"birth_year": 2010}, calc_notes.K_JUNIOR),
        ((KRule(25),), {}, calc_notes.K_EVERY),
    ],
)
def test_every_k_sentence_of_the_rules_is_a_phrase_the_pages_translate(
    rules: tuple[KRule, ...], state: dict[str, object], phrase: str
) -> None:
    figures: dict[str, object] = {
        "reached_2400": False, "reached_2300": False, "birth_year": 1980, "games_total": 40
    } | state  # fmt: skip
    decision = k_factor(**figures, list_date=dt.date(2025, 11, 1), rules=rules)  # type: ignore[arg-type]
    found = calc_notes.parse(decision.rule)
    assert found is not None and found[0] == phrase, decision.rule
    assert calc_notes.shown_note(decision.rule, Language("de")) != decision.rule


def test_a_norm_rule_and_the_event_s_system_are_written_in_the_page_s_language() -> None:
    german = Language("de")
    failed = RuleCheck("1.4.4", "one federation", "7", "≤", "6 (2/3 of 9)", False)
    assert norm_texts.rule_text(failed, german) == "eine Föderation 7 > 6 (2/3 von 9)"
    assert norm_texts.rule_text(failed, Language("en")) == failed.text == "one federation 7 > 6 (2/3 of 9)"
    assert norm_texts.rule_text(RuleCheck("1.4.8", "Rp", "2566", "≥", "2600", False), german) == (
        "Rp 2566 < 2600"
    )
    assert norm_texts.system_word("round_robin", Language("fr")) == "toutes rondes"
    assert norm_texts.system_source("assumed (no 092 line; --system sets it)", german) == (
        "angenommen (keine 092-Zeile; --system legt es fest)"
    )


def test_a_german_close_page_gives_the_k_reasons_and_the_site_title_in_german(
    german: dict[str, bytes],
) -> None:
    close = german["periods/standard-2025-10.html"].decode()
    assert "gewertete Partien und nie 2400 erreicht → K 20 (§8.3.3)" in close
    assert "rated games" not in close


def test_error_pages_are_in_the_visitor_s_language_and_the_api_s_errors_in_english(demo_url: str) -> None:
    with client(demo_url) as served:
        german = {"accept-language": "de"}
        nothing = served.get("/nowhere", headers=german)
        assert nothing.status_code == 404 and "<h1>Nicht gefunden</h1>" in nothing.text
        assert "Fehler: unter /nowhere gibt es nichts — die Startseite verlinkt jede Seite" in nothing.text
        assert "<title>Wertungslisten</title>" not in nothing.text  # the error page has its own title
        player = served.get("/players/99999999.html", headers={"accept-language": "fr"})
        assert player.status_code == 404
        assert (
            "Erreur : aucun joueur n&#39;a l&#39;identifiant FIDE ou national « 99999999 » : cherchez par le "
            "nom sur la page d&#39;accueil"
        ) in player.text
        home = served.get("/", headers=german)
        assert "<title>Wertungslisten</title>" in home.text  # the default title, in the site's language
        api = served.get("/api/v1/players/99999999", headers=german)
        assert api.status_code == 404
        assert api.json() == {
            "error": "no player has FIDE ID or national ID '99999999': search by name on the home page"
        }


def test_the_live_pages_name_their_periods_in_each_language(demo_sqlite_url: str, tmp_path: Path) -> None:
    # With events imported for an open period the live pages say "period" or "periods" by how many
    # periods are open — the number Babel's plural forms are chosen by (a German or French page failed
    # when the date was taken for it).
    path = tmp_path / "live.sqlite"
    shutil.copyfile(demo_sqlite_url.removeprefix("sqlite:///"), path)
    url = f"sqlite:///{path}"
    reopen = ["--db", url, "reopen", "2025-11", "--type", "standard", "--reason", "live pages"]
    assert CliRunner().invoke(cli, reopen).exit_code == 0  # one period open: its events are live
    expected = {
        "en": ("events of period 2025-11", "plus the events imported for period 2025-11:"),
        "de": ("Turniere der Periode 2025-11", "für die Periode 2025-11 importierten Turniere:"),
        "fr": ("tournois de la période 2025-11", "importés pour la période 2025-11 :"),
    }
    with client(url) as served:
        for language, (index_words, page_words) in expected.items():
            headers = {"accept-language": language}
            index = served.get("/live/index.html", headers=headers)
            page = served.get("/live/standard.html", headers=headers)
            assert (index.status_code, page.status_code) == (200, 200), language
            assert index_words in text_of(parse(index.content).find(".//main")), language  # type: ignore[arg-type]
            assert page_words in text_of(parse(page.content).find(".//main")), language  # type: ignore[arg-type]
