"""The pages' languages: gettext catalogues (Babel), the visitor's language, numbers and dates per locale.

Every text of the pages is an English message id in the templates (`{{ _("…") }}`, `{% trans %}`) or in
the Python that writes page texts (`_("…")` on a `Language`: the site's page functions, and the reports
whose sentences the pages show, which take a `Language` and default to English, so the CLI is unchanged);
ratingdb/locale/LANG/LC_MESSAGES/messages.po holds
each language's translations and messages.pot the ids (`python tools/catalogues.py` extracts and
updates them). English is the language of the ids, so it needs no catalogue.

The .po files are the only form kept in the repository: each is compiled to a .mo in memory when a
language is first asked for (a few milliseconds, once per process), so a catalogue can never be stale.

Imports only the standard library and ratingdb.errors (Babel when a language is first used): reports
and pure code may take a Language.
"""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, lru_cache
from gettext import NullTranslations
from importlib import resources
from typing import Final

from ratingdb.errors import ConfigError

# The languages shipped, by the code `--lang` takes and Accept-Language names, with their own names.
LANGUAGES: Final = {"en": "English", "de": "Deutsch", "fr": "Français"}
DEFAULT_LANGUAGE: Final = "en"
DOMAIN: Final = "messages"


def N_(message: str) -> str:  # noqa: N802 — gettext's name for "translate later" (Babel extracts it)
    """Marks a message for the catalogue where it is defined; `Language.gettext` translates it where shown."""
    return message


def translatable(error: Exception, message: str, **values: object) -> Exception:
    """`error` (made with the English sentence, `message % values`) carrying the catalogue message and its
    values, so a page can show it in the visitor's language (ratingdb.web.app.error_response); the CLI
    and the API print the English sentence."""
    error.page_message = (message, values)  # type: ignore[attr-defined]
    return error


# The rating types as the pages name them: a heading ("Rapid lists") and within a sentence ("the rapid
# list"), which are different words in German ("Schnellschach", "Schnellschach-Liste").
TYPE_HEADINGS: Final = {"standard": N_("Standard"), "rapid": N_("Rapid"), "blitz": N_("Blitz")}
TYPE_WORDS: Final = {"standard": N_("standard"), "rapid": N_("rapid"), "blitz": N_("blitz")}
# A player's status in an event (ratingdb.reports.event.EventLine.status).
STATUS_WORDS: Final = {
    "rated": N_("rated"),
    "newly rated": N_("newly rated"),
    "unrated": N_("unrated"),
    "not rated": N_("not rated"),
    "not rated yet": N_("not rated yet"),
}


def capfirst(text: str) -> str:
    """The text with its first letter a capital: a message that starts with a rating type written as a
    sentence writes it ("rapid list …" → "Rapid list …"). Keeps Markup as Markup."""
    return text[:1].upper() + text[1:]


def check_language(code: str) -> str:
    """The language `code` names (`de`, `DE`, `de-AT` → `de`), or a one-line error naming those shipped."""
    base = code.strip().replace("_", "-").split("-")[0].lower()
    if base not in LANGUAGES:
        shipped = ", ".join(f"{c} ({name})" for c, name in LANGUAGES.items())
        raise ConfigError(f"there are no pages in '{code}' — choose one of {shipped}")
    return base


@cache
def translations(code: str) -> NullTranslations:
    """The compiled catalogue of a shipped language (English: the message ids themselves)."""
    if code == DEFAULT_LANGUAGE:
        return NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    po = resources.files("ratingdb").joinpath("locale", code, "LC_MESSAGES", f"{DOMAIN}.po")
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=code, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)  # a fuzzy (unchecked) translation is shown in English
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def negotiate(accept_language: str | None, default: str = DEFAULT_LANGUAGE) -> str:
    """The shipped language a browser prefers most (its Accept-Language header, RFC 9110 §12.5.4), else
    `default`. `de-CH;q=0.8, fr;q=0.9` → fr; a `*` or an unknown language is passed over."""
    if not accept_language:
        return default
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")[:20]):  # a long header is cut, not parsed
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        base = tag.strip().replace("_", "-").split("-")[0].lower()
        if base in LANGUAGES and 0 < quality <= 1:
            ranked.append((-quality, position, base))
    return min(ranked)[2] if ranked else default


@dataclass(frozen=True)
class Language:
    """One language of the pages: its translations and how its locale writes numbers and dates."""

    code: str = DEFAULT_LANGUAGE

    @property
    def catalogue(self) -> NullTranslations:
        return translations(self.code)

    def gettext(self, message: str) -> str:
        return self.catalogue.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.catalogue.ngettext(singular, plural, n)

    def count(self, value: int | None) -> str:
        """A count (players, games, events) with the locale's grouping: 20,000 · 20.000 · 20 000.
        Ratings, years and IDs are not counts and are printed as they are."""
        if value is None:
            return ""
        from babel.numbers import format_decimal

        return format_decimal(value, locale=self.code)

    def hundredths(self, x100: int | None, signed: bool = False) -> str:
        """Points from hundredths with two decimals as the locale writes them, never grouped (Rc 2376.11):
        -51 → -0.51 · -0,51; `signed` adds a + to zero and above: +0.64 · +0,64. None → —."""
        return _hundredths(self.code, x100, signed)

    @property
    def decimal_mark(self) -> str:
        """The locale's decimal mark in points: . · ,"""
        return self.hundredths(100)[1]

    def decimal(self, value: Decimal) -> str:
        """A computed figure with two decimals (Ra 2376.11 · 2376,11), rounded half to even, never grouped."""
        if self.code == DEFAULT_LANGUAGE:
            return f"{value:.2f}"
        from babel.numbers import format_decimal

        return format_decimal(value, format="0.00", locale=self.code)

    def month(self, value: dt.date) -> str:
        """The month's short name, as a chart's axis writes it: Nov · Nov. · nov."""
        return _month(value, self.code)

    def type_heading(self, rating_type: str) -> str:
        """A rating type as a heading names it: Standard, Rapid (de Schnellschach), Blitz."""
        found = TYPE_HEADINGS.get(rating_type)
        return self.gettext(found) if found else rating_type.capitalize()

    def type_word(self, rating_type: str) -> str:
        """A rating type within a sentence: standard, rapid (fr rapide)."""
        found = TYPE_WORDS.get(rating_type)
        return self.gettext(found) if found else rating_type

    def status_word(self, status: str) -> str:
        found = STATUS_WORDS.get(status)
        return self.gettext(found) if found else status

    def date(self, value: dt.date | dt.datetime) -> str:
        """A date as the locale writes it: Nov 1, 2025 · 01.11.2025 · 1 nov. 2025."""
        return _formatted_date(value, "medium", self.code)


@cache
def _points_symbols(code: str) -> tuple[str, str] | None:
    """The minus sign and decimal separator with which the locale writes hundredths as Babel's "0.00"
    does, or None where they would not give Babel's text (checked here on a few values). Babel's
    formatting of each figure was two thirds of a German player page with calculations (bench/RESULTS.md,
    issue 28): a page writes hundreds of them."""
    from babel.numbers import format_decimal, get_decimal_symbol, get_minus_sign_symbol

    minus, point = get_minus_sign_symbol(code), get_decimal_symbol(code)
    for x100 in (-237611, -100, -51, -1, 0, 1, 64, 100, 237611):
        whole, cents = divmod(abs(x100), 100)
        if f"{minus if x100 < 0 else ''}{whole}{point}{cents:02d}" != format_decimal(
            Decimal(x100) / 100, format="0.00", locale=code
        ):
            return None
    return minus, point


@lru_cache(maxsize=4096)
def _hundredths(code: str, x100: int | None, signed: bool) -> str:
    # Kept: a player page writes some five hundred of them (PD, score, score − PD of each game), nearly
    # all among a few hundred values (bench/RESULTS.md, issue 28).
    if x100 is None:
        return "—"
    whole, cents = divmod(abs(x100), 100)
    symbols = ("-", ".") if code == DEFAULT_LANGUAGE else _points_symbols(code)
    if symbols is None:
        from babel.numbers import format_decimal

        text = format_decimal(Decimal(x100) / 100, format="0.00", locale=code)
    else:
        text = f"{symbols[0] if x100 < 0 else ''}{whole}{symbols[1]}{cents:02d}"
    return f"+{text}" if signed and x100 >= 0 else text


@lru_cache(maxsize=4096)
def _month(value: dt.date, code: str) -> str:
    # Kept, as dates are: every player page's chart labels the same list dates.
    return value.strftime("%b") if code == DEFAULT_LANGUAGE else _formatted_date(value, "LLL", code)


@lru_cache(maxsize=4096)
def _formatted_date(value: dt.date | dt.datetime, form: str, code: str) -> str:
    # Kept: a player's page writes the same few dozen dates (the lists', the events') hundreds of times,
    # and Babel's formatting of one is a tenth of the page's cost (bench/RESULTS.md, issue 28, page).
    from babel.dates import format_date

    return format_date(value, format=form, locale=code)


ENGLISH: Final = Language()  # the language of the CLI, the API and every report not shown on a page
