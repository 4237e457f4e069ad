"""Keeping the catalogues: extract every message of the pages (templates and page functions) with Babel,
write messages.pot, merge it into each language's messages.po, and say what is missing.

A tool for developers (tools/catalogues.py) and the catalogue test; the site itself never imports it.
No database imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from ratingdb.i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES

PACKAGE: Final = Path(__file__).resolve().parent.parent  # ratingdb/
LOCALE: Final = PACKAGE / "locale"
TEMPLATE: Final = LOCALE / f"{DOMAIN}.pot"
# Where messages are written: the site's templates and the Python that makes page texts. Paths are
# relative to ratingdb/; a module that gains `_("…")` texts for the pages is added here.
METHOD_MAP: Final = [
    ("site/templates/**.html", "jinja2"),
    ("web/templates/**.html", "jinja2"),  # the signed-in pages (ratingdb.web.desk)
    ("i18n.py", "python"),
    ("calc_notes.py", "python"),
    ("site/**.py", "python"),
    ("web/**.py", "python"),
    # The reports whose sentences the pages show: each takes a Language (English by default, for the CLI).
    ("reports/lists.py", "python"),
    ("reports/list_query.py", "python"),
    ("reports/chart.py", "python"),
    ("reports/not_rated.py", "python"),
    ("reports/norm_texts.py", "python"),
    ("reports/systems/**.py", "python"),  # how each rating system's lists and closes are shown
    ("services/event_warnings.py", "python"),
    ("services/submissions.py", "python"),  # an upload's refusals (UploadRefused), worded by the desk
    ("services/users.py", "python"),  # the accounts page's refusals (LastAdmin)
    ("services/federation.py", "python"),  # the federation page's refusals (SettingRefused)
    ("services/notices.py", "python"),  # the email notices, written in the recipient's language
    ("services/password_reset.py", "python"),  # the reset pages' answers
    ("passwords.py", "python"),  # a password refused, worded by the desk's accounts page
    ("services/second_factor.py", "python"),  # a code refused, worded by the sign-in and enrolment pages
]
OPTIONS: Final = {
    "site/templates/**.html": {
        # As ratingdb.site.publish.environment() reads them, so a message is extracted exactly as shown.
        "extensions": "jinja2.ext.i18n",
        "trim_blocks": "true",
        "lstrip_blocks": "true",
        "newstyle_gettext": "true",
        "silent": "false",
    },
    "web/templates/**.html": {  # as ratingdb.web.desk._templates reads them
        "extensions": "jinja2.ext.i18n",
        "trim_blocks": "true",
        "lstrip_blocks": "true",
        "newstyle_gettext": "true",
        "silent": "false",
    },
}
KEYWORDS: Final = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2)}
WIDTH: Final = 110


def extract() -> Catalog:
    """Every message of the pages, with where it is written."""
    catalog = Catalog(domain=DOMAIN, project="ratingdb", msgid_bugs_address=None, fuzzy=False)
    messages = extract_from_dir(
        str(PACKAGE), METHOD_MAP, OPTIONS, keywords=KEYWORDS, comment_tags=("Translators:",)
    )
    for filename, lineno, message, comments, context in messages:
        catalog.add(
            message, None, [(f"ratingdb/{filename}", lineno)], auto_comments=comments, context=context
        )
    return catalog


def extracted(path: Path) -> bool:
    """Whether the messages of a file below ratingdb/ are extracted (a pattern of METHOD_MAP matches)."""
    from babel.util import pathmatch

    relative = path.relative_to(PACKAGE).as_posix()
    return any(pathmatch(pattern, relative) for pattern, _ in METHOD_MAP)


def po_path(code: str) -> Path:
    return LOCALE / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as fh:
        return read_po(fh, locale=locale, domain=DOMAIN)


def write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        write_po(fh, catalog, width=WIDTH, omit_header=False, sort_output=False, include_previous=True)


def update() -> dict[str, list[str]]:
    """Write messages.pot and merge it into every language's .po; the messages each still lacks."""
    template = extract()
    write(TEMPLATE, template)
    for code in LANGUAGES:
        if code == DEFAULT_LANGUAGE:
            continue
        path = po_path(code)
        catalog = read(path, code) if path.exists() else Catalog(locale=code, domain=DOMAIN)
        catalog.update(template, no_fuzzy_matching=True)
        for key in [k for k in catalog.obsolete if k in catalog]:  # written again since: not obsolete
            del catalog.obsolete[key]
        write(path, catalog)
    return missing()


@dataclass(frozen=True)
class Problem:
    language: str
    message: str
    why: str

    def __str__(self) -> str:
        return f"{self.language}: {self.message!r}: {self.why}"


def _ids(message: object) -> tuple[str, ...]:
    ids = message.id if isinstance(message.id, tuple) else (message.id,)  # type: ignore[attr-defined]
    return tuple(str(i) for i in ids)


def problems(template: Catalog | None = None) -> list[Problem]:
    """What is wrong with the catalogues against the messages written now: a message not in messages.pot
    or a .po, untranslated, fuzzy, or with placeholders its translation does not keep."""
    current = template or extract()
    found: list[Problem] = []
    written = {_ids(m) for m in current if m.id}
    pot = {_ids(m) for m in read(TEMPLATE) if m.id}
    found += [Problem("pot", ids[0], "not in messages.pot") for ids in sorted(written - pot)]
    for code in LANGUAGES:
        if code == DEFAULT_LANGUAGE:
            continue
        catalog = read(po_path(code), code)
        by_id = {_ids(m): m for m in catalog if m.id}
        for ids in sorted(written):
            message = by_id.get(ids)
            if message is None:
                found.append(Problem(code, ids[0], "not in the catalogue"))
            elif message.fuzzy:
                found.append(Problem(code, ids[0], "fuzzy: check the translation and remove the flag"))
            elif not all(message.string if isinstance(message.string, tuple) else (message.string,)):
                found.append(Problem(code, ids[0], "not translated"))
        for message in catalog:
            if message.id:
                for error in message.check(catalog):
                    found.append(Problem(code, _ids(message)[0], str(error)))
    return found


def missing() -> dict[str, list[str]]:
    shown: dict[str, list[str]] = {}
    for problem in problems():
        shown.setdefault(problem.language, []).append(f"{problem.message!r}: {problem.why}")
    return shown
