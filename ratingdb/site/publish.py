"""Building the site: lists, players, events and closes read through ratingdb.reports, rendered by Jinja2.

Takes a Session and only reads; writes files through ratingdb.site.output. No CLI imports. Every page
is a function of the database alone (no clock, no environment), so a second publish is byte-identical.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol

from jinja2 import Environment, PackageLoader, StrictUndefined, pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup
from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.bundle.signing import WELL_KNOWN, Signer, well_known
from ratingdb.calc_notes import shown_note
from ratingdb.errors import MissingList, RatingDbError
from ratingdb.formats.spreadsheet import spreadsheet_safe_csv
from ratingdb.i18n import DEFAULT_LANGUAGE, N_, Language, capfirst, translatable
from ratingdb.rating import RATING_TYPES, Period
from ratingdb.reports import norm_texts
from ratingdb.reports.chart import history_svg
from ratingdb.reports.event import crosstable, event_ids, event_report
from ratingdb.reports.forecasts import ALL_BANDS, systems_report
from ratingdb.reports.list_query import ListQuery, RankedList, query_lines
from ratingdb.reports.lists import (
    Calculation,
    EventRecord,
    ExportFormat,
    HistoryLine,
    ListColumns,
    ListLine,
    ListVersionLine,
    PlayerLink,
    all_histories,
    calculation_summary,
    clubs_of,
    event_summary,
    list_calculations,
    list_lines,
    list_versions,
    player_calculations_in,
    player_links,
    players_of,
)
from ratingdb.reports.norms import published_norms
from ratingdb.reports.not_rated import NotRated, close_of_events, games_not_rated, player_not_rated_in
from ratingdb.reports.period import PeriodReport, period_report
from ratingdb.reports.systems import DEFAULT, SHOWN, ListShown, Shown, elo_list, list_shown, types_shown
from ratingdb.reports.systems import shown as system_shown
from ratingdb.reports.systems.base import signed_whole
from ratingdb.schema.models import Player, RatingList
from ratingdb.services.bundle import list_bundle
from ratingdb.services.bundle_keys import public_key, signer
from ratingdb.services.glicko2_lists import list_parameters
from ratingdb.services.players import aliases_of
from ratingdb.site.output import PublishResult, SiteFolder
from ratingdb.templating import Templates

if TYPE_CHECKING:
    from ratingdb.reports.glicko2 import Glicko2Calculation

STATIC_FILES: Final = ("site.css", "site.js")
DEFAULT_TITLE: Final = N_("Rating lists")
CLOSE_HIGHLIGHTS: Final = 10  # gains and losses shown on a period page
HOME_GAINS: Final = 5
# Parts of pages kept by a site for the pages that write them alike (Site.shared): some 200 bytes each.
SHARED_FRAGMENTS: Final = 20_000


@dataclass(frozen=True)
class SiteOptions:
    title: str = DEFAULT_TITLE  # this default is in the site's language; a title given is shown as it is
    rating_types: tuple[str, ...] = RATING_TYPES
    base_url: str | None = None  # where the site will be served: canonical links and sitemap.xml
    language: str = DEFAULT_LANGUAGE  # of every text, number and date (ratingdb.i18n.LANGUAGES)


def publish_site(session: Session, folder: Path, options: SiteOptions) -> PublishResult:
    """Write the whole site into `folder`, rewriting only changed files and removing stale ones."""
    out = SiteFolder(folder)
    try:
        for relative, content in site_files(session, options):
            out.write(relative, content)
    except BaseException:
        out.abandon()
        raise
    return out.finish()


# --- where things live -------------------------------------------------------------------------------


def list_path(version: ListVersionLine, suffix: str = "html") -> str:
    # The current version keeps the plain address; a withdrawn version keeps its own, with its number.
    withdrawn = "" if version.state == "current" else f"-v{version.version}"
    return f"lists/{version.rating_type}-{version.list_date.isoformat()}{withdrawn}.{suffix}"


def period_path(rating_type: str, period: str | Period) -> str:
    return f"periods/{rating_type}-{period}.html"


def event_path(event_id: int) -> str:
    return f"events/{event_id}.html"


# A national ID is an address as it is when it is made of these characters (and is not one of the other
# forms below); otherwise the player is addressed by FIDE ID.
_ADDRESS_ID: Final = re.compile(r"[0-9A-Za-z][0-9A-Za-z_.-]{0,39}")
_OTHER_FORMS: Final = re.compile(r"(fide-|id)[0-9]+")


class PlayerIds(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def fide_id(self) -> int | None: ...
    @property
    def national_id(self) -> str | None: ...


def player_key(player: PlayerIds) -> str:
    """What a player's page is named by: the federation's stable ID, the same in every database built
    from the same files — the national ID, else `fide-<FIDE ID>` (a player without a national ID), else
    `id<N>` (the database's row number: only for a player registered with neither ID).

    The one address scheme: every link to a player page, the served app's routes and the API's `page`
    and `key` come from here (docs/guide/publishing.md, "Addresses").
    """
    national = player.national_id
    if national is not None and _ADDRESS_ID.fullmatch(national) and not _OTHER_FORMS.fullmatch(national):
        return national
    if player.fide_id is not None:
        return f"fide-{player.fide_id}"
    return f"id{player.id}"


def player_path(player: PlayerIds) -> str:
    return f"players/{player_key(player)}.html"


def moved_player_pages(players: Iterable[PlayerIds]) -> dict[str, str]:
    """Old address → new page, for the addresses earlier versions used: `players/<FIDE ID>.html`.

    Only where no page has that address now (a national ID equal to another player's FIDE ID keeps its
    page). The old `players/id<N>.html` addresses are not redirected: they named a row of one database,
    so after a rebuild a redirect could lead to someone else (docs/guide/publishing.md, "Addresses").
    """
    players = list(players)
    pages = {player_path(p) for p in players}
    moved: dict[str, str] = {}
    for p in players:
        if p.fide_id is None:
            continue
        old = f"players/{p.fide_id}.html"
        if old not in pages:
            moved[old] = player_path(p)
    return moved


# --- rendering -----------------------------------------------------------------------------------------


def points_x10(value: int | None) -> str:
    """Tournament points from tenths: 55 → 5½, 5 → ½."""
    if value is None:
        return ""
    whole, rest = divmod(value, 10)
    if rest == 5:
        return f"{whole or ''}½"
    return str(whole) if rest == 0 else f"{value / 10:g}"


RESULT_SHOWN: Final = {
    "=": "½",
    "D": "½",
    "W": "1",
    "L": "0",
    "-": "−",
    "H": "½",
    "F": "1",
    "U": "1",
    "Z": "0",
}


def result_shown(code: str) -> str:
    return RESULT_SHOWN.get(code, code)


def page_query(query: ListQuery, page: int) -> str:
    """The query string of another page of the same filtered, sorted list (the served pager's links)."""
    from urllib.parse import urlencode

    defaults = ListQuery()
    fields = {
        "name": query.name,
        "federation": query.federation,
        "group": query.group,
        "active": "1" if query.active else "",
        "rating_min": "" if query.rating_min is None else str(query.rating_min),
        "rating_max": "" if query.rating_max is None else str(query.rating_max),
        "sort": "" if query.sort == defaults.sort else query.sort,
        "descending": "1" if query.descending else "",
        "per_page": "" if query.per_page == defaults.per_page else str(query.per_page),
        "page": str(page),
    }
    return urlencode({k: v for k, v in fields.items() if v})


def _page_gettext(lang: Language) -> Any:
    """The templates' `_` and `gettext`: what Jinja2's newstyle gettext does (the message translated, marked
    safe where the output is escaped, then formatted with its values, which are escaped), with each
    message looked up once per language. Jinja2's own took three calls through the template's context
    and a catalogue look-up for each of a page's fifty-odd messages: a sixth of a player page's CPU
    (bench/RESULTS.md, issue 28, "threads")."""
    translated: dict[str, str] = {}

    @pass_eval_context
    def gettext(eval_ctx: EvalContext, message: str, /, **variables: Any) -> str:
        found = translated.get(message)
        if found is None:
            found = translated[message] = lang.gettext(message)
        text = Markup(found) if eval_ctx.autoescape else found
        return text % variables  # always a format, as Jinja2's: "%%" is "%" even without values

    return gettext


def not_found(kind: type[RatingDbError], message: str, **values: object) -> RatingDbError:
    """A 404 whose sentence a page translates: the English sentence is the exception's text (what the API
    answers and the log keeps), the catalogue message and its values ride along for the page."""
    error = translatable(kind(message % values), message, **values)
    assert isinstance(error, RatingDbError)
    return error


@lru_cache(maxsize=8)
def environment(language: str = DEFAULT_LANGUAGE) -> Environment:
    """The templates with the translations of `language` installed (one environment per language)."""
    env = Templates(
        loader=PackageLoader("ratingdb.site", "templates"),
        autoescape=True,  # names come from files anyone can write
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
        # The templates are the installed package's and do not change under a running server: without
        # this, every page asked the loader to stat its template files (bench/RESULTS.md, issue 28, page).
        auto_reload=False,
    )
    lang = Language(language)
    # newstyle: `_("%(n)s players", n=…)` formats and escapes its values; a message is never HTML-escaped.
    env.install_gettext_translations(lang.catalogue, newstyle=True)  # type: ignore[attr-defined]
    env.globals["_"] = env.globals["gettext"] = _page_gettext(lang)
    env.filters |= {
        "signed": signed_whole,
        "tenths": points_x10,
        "result": result_shown,
        "capfirst": capfirst,
        "date": lang.date,
        "count": lang.count,
        "note": lambda text: shown_note(text, lang),  # a note the close stored (ratingdb.calc_notes)
    }
    env.globals |= {
        "list_path": list_path,
        "period_path": period_path,
        "event_path": event_path,
        # The period whose close publishes the list of `date` (the list of 2011-09-01 closes 2011-08).
        "closing_period": lambda date: str(Period.of(date).shift(-1)),
        "pts": lang.hundredths,
        "rd": lambda deviation: "" if deviation is None else lang.hundredths(round(deviation * 100)),
        "spts": lambda x100: lang.hundredths(x100, signed=True),
        "page_query": page_query,
        "lang": lang.code,
        "type_heading": lang.type_heading,
        "type_word": lang.type_word,
        "status_word": lang.status_word,
        "norm_verdict": lambda check: norm_texts.verdict(check, lang),
        "system_word": lambda system: norm_texts.system_word(system, lang),
        "system_source": lambda source: norm_texts.system_source(source, lang),
    }
    return env


@dataclass
class Site:
    """What every page needs: options, templates, and where each list and player has its page.

    The same object serves the static site (`publish`) and the served one (`ratingdb serve`, with
    `served` true): the served pages show what needs a server besides (the search box, live ratings,
    paging), each such part marked in the templates, so a page is otherwise the same bytes both ways.
    """

    options: SiteOptions
    env: Environment
    lists: list[ListVersionLine]  # every version of every list, withdrawn ones included, oldest first
    links: Sequence[PlayerLink]  # every player with a page
    served: bool = False
    by_fide: dict[int, str] = field(default_factory=dict)
    by_national: dict[str, str] = field(default_factory=dict)
    # player id → the other spellings of the name on record: the list pages' name filter finds them too
    aliases: dict[int, list[str]] = field(default_factory=dict)
    # player id → their club, of the latest event whose file names one (reports.lists.clubs_of)
    clubs: dict[int, str] = field(default_factory=dict)
    # rating type → how its lists are shown (ratingdb.reports.systems); FIDE's Elo where none is given
    systems: dict[str, Shown] = field(default_factory=dict)
    # The served site's players with anything beyond their history (ratingdb.site.served.with_records),
    # read when a player page first asks: None until then.
    with_records: frozenset[int] | None = None
    # The served site's events of its closes (event id → the close's list: ratingdb.reports.not_rated), read
    # when a player page first asks: None until then.
    close_events: dict[int, int] | None = None
    public_key: str | None = None  # the federation's key that signs list bundles (services.bundle_keys)
    # The parts many pages write alike, each kept as first written (shared): the site is one data version
    # in one language.
    fragments: dict[tuple[Any, ...], Markup] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for p in self.links:
            if p.fide_id is not None:
                self.by_fide[p.fide_id] = player_path(p)
            if p.national_id is not None:
                self.by_national[p.national_id] = player_path(p)
        self.urls: dict[int, str] = {p.id: player_path(p) for p in self.links}
        self.pages: dict[str, int] = {path: pid for pid, path in self.urls.items()}
        self.moved = moved_player_pages(self.links)  # old address → the page it moved to
        self.current = [lst for lst in self.lists if lst.state == "current"]
        newest = {lst.rating_type: lst for lst in self.current}  # by type and date: the last one wins
        # In the site's order of types (FIDE's three, then the stored rule sets' such as a club list).
        self.newest = {t: newest[t] for t in self.options.rating_types if t in newest}
        self.list_by_date = {(lst.rating_type, lst.list_date): lst for lst in self.current}
        # Each type's current lists, (date, id) by date: the lists that can be in force at an event's start.
        self.in_force: dict[str, list[tuple[dt.date, int]]] = defaultdict(list)
        for lst in sorted(self.current, key=lambda lst: lst.list_date):
            self.in_force[lst.rating_type].append((lst.list_date, lst.list_id))
        self.list_urls: dict[tuple[str, dt.date], str] = {
            key: list_path(lst) for key, lst in self.list_by_date.items()
        }
        self.language = Language(self.options.language)
        self._ = self.language.gettext  # the page functions' texts: `site._("…")`, extracted by Babel
        title = self.options.title
        self.title = self._(title) if title == DEFAULT_TITLE else title

    def system_of(self, rating_type: str) -> Shown:
        """How the lists of `rating_type` are shown."""
        return self.systems.get(rating_type) or SHOWN[DEFAULT]

    def systems_of(self, rating_types: Iterable[str]) -> list[Shown]:
        """The systems of `rating_types`, each once, in the site's order of types: a page's footer."""
        found = {t: self.system_of(t) for t in rating_types}
        return list({s.name: s for t in self.options.rating_types if (s := found.get(t))}.values())

    def shared(self, key: tuple[Any, ...], write: Callable[..., Markup], *values: Any) -> Markup:
        """What a template's macro `write` writes of `values`, kept by `key`, which holds every value the
        part depends on: each close's and each event's heading appears alike on the pages of all the
        players it rated, and writing them was a quarter of what such a page took to render
        (bench/RESULTS.md, issue 28). At most SHARED_FRAGMENTS parts are kept (all forgotten at once)."""
        found = self.fragments.get(key)
        if found is None:
            if len(self.fragments) >= SHARED_FRAGMENTS:
                self.fragments.clear()
            found = self.fragments[key] = write(*values)
        return found

    def player_url(self, player_id: int | None) -> str | None:
        return None if player_id is None else self.urls.get(player_id)

    def player_url_by_ids(self, fide_id: int | None, national_id: str | None) -> str | None:
        if fide_id is not None and fide_id in self.by_fide:
            return self.by_fide[fide_id]
        return self.by_national.get(national_id) if national_id is not None else None

    def render(
        self, template: str, path: str, heading: str, *, canonical_path: str | None = None, **context: Any
    ) -> tuple[str, bytes]:
        canonical_path = canonical_path or path
        # The footer names the rules of the lists the page shows (every list of the site by default).
        systems = context.pop("systems", None) or self.systems_of(self.options.rating_types)
        page = self.env.get_template(template).render(
            site=self,
            footer_systems=systems,
            root=root_of(path),
            path=path,
            heading=heading,
            canonical=(
                f"{self.options.base_url.rstrip('/')}/{canonical_path}" if self.options.base_url else None
            ),
            **context,
        )
        return path, page.encode("utf-8")


def new_site(session: Session, options: SiteOptions, *, served: bool = False) -> Site:
    """The site's index of lists and players, read from the database (a few light queries)."""
    links = player_links(session, options.rating_types)
    return Site(
        options,
        environment(options.language),
        sorted(
            (v for v in list_versions(session) if v.rating_type in options.rating_types),
            key=lambda v: (v.rating_type, v.list_date, v.version),
        ),
        links,
        served=served,
        aliases=aliases_of(session, [p.id for p in links]),
        clubs=clubs_of(session),
        systems=types_shown(session, options.rating_types),
        public_key=public_key(session),
    )


class Closes(Mapping[int, PeriodReport]):
    """The report of every close that published a current list of the site, by the list's id, each read
    when first asked for: the home page names every close and shows the latest of each type, and the
    served home page read all of them (twenty-four period reports, about 10 s at national, on the first
    visit after every change) to show one or two."""

    def __init__(self, session: Session, site: Site) -> None:
        self.session = session
        self.site = site
        self.lists = {
            lst.list_id: lst for lst in site.current if lst.origin == "computed" and lst.period is not None
        }
        self.read: dict[int, PeriodReport] = {}

    def __getitem__(self, list_id: int) -> PeriodReport:
        found = self.read.get(list_id)
        if found is None:
            lst = self.lists[list_id]
            assert lst.period is not None
            found = self.read[list_id] = period_report(
                self.session,
                Period.parse(lst.period),
                lst.rating_type,
                top=CLOSE_HIGHLIGHTS,
                lang=self.site.language,
            )
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(self.lists)

    def __len__(self) -> int:
        return len(self.lists)

    def __contains__(self, list_id: object) -> bool:
        return list_id in self.lists


def closes_of(session: Session, site: Site) -> Closes:
    """The reports of the site's closes (Closes: each read when first asked for)."""
    return Closes(session, site)


def site_files(session: Session, options: SiteOptions) -> Iterator[tuple[str, bytes]]:
    """Every file of the site as (relative path, content); with a base URL, a sitemap of the pages last."""
    pages: list[str] = []
    site = new_site(session, options)
    for relative, content in _files(session, site):
        if relative.endswith(".html") and relative not in site.moved:
            pages.append(relative)
        yield relative, content
    if options.base_url:
        base = options.base_url.rstrip("/")
        text = (
            environment(options.language)
            .get_template("sitemap.xml")
            .render(urls=[f"{base}/{p}" for p in sorted(pages)])
        )
        yield "sitemap.xml", text.encode("utf-8")


def _files(session: Session, site: Site) -> Iterator[tuple[str, bytes]]:
    """Static files, lists, closes, events, players, the pages at players' old addresses, the home page."""
    options = site.options
    for name in STATIC_FILES:
        yield (
            f"static/{name}",
            resources.files("ratingdb.site").joinpath("static", name).read_bytes(),
        )

    # player id → (type, list date) → their figures beyond the entry (a Glicko-2 list's RD) on current lists
    figures_of: dict[int, dict[tuple[str, dt.date], object]] = defaultdict(dict)
    for version in site.lists:
        rating_list = session.get_one(RatingList, version.list_id)
        lines = list(list_lines(session, rating_list))
        shown = list_shown(session, rating_list)
        if version.state == "current":
            for player_id, figures in shown.figures.by_player().items():
                figures_of[player_id][(version.rating_type, version.list_date)] = figures
        yield from list_downloads(version, lines, shown)
        yield list_page(site, version, ranked_list(lines, shown), shown=shown)
    yield from list_bundles(session, site)

    closes = closes_of(session, site)
    calculations: dict[int, list[Calculation]] = defaultdict(list)
    glicko2_calcs: dict[int, list[Glicko2Calculation]] = defaultdict(list)
    not_rated: dict[int, dict[tuple[str, dt.date], list[NotRated]]] = defaultdict(dict)
    for lst in site.current:
        if lst.list_id not in closes:
            continue
        yield period_page(site, lst, closes[lst.list_id])
        new_list = session.get_one(RatingList, lst.list_id)
        for player_id, g2 in _glicko2_calculations(session, new_list).items():
            glicko2_calcs[player_id].append(g2)
        for player_id, calc in list_calculations(session, new_list).items():
            calculations[player_id].append(calc)
        for player_id, games in games_not_rated(session, new_list).items():
            not_rated[player_id][(lst.rating_type, lst.list_date)] = games

    for event_id in event_ids(session, options.rating_types):
        yield event_page(site, session, event_id)

    if (systems := systems_page(site, session)) is not None:
        yield systems

    histories = all_histories(session, options.rating_types)
    for player in players_of(session, options.rating_types):
        yield player_page(
            site,
            player,
            histories.get(player.id, []),
            calculations.get(player.id, []),
            not_rated=not_rated.get(player.id, {}),
            figures=figures_of.get(player.id, {}),
            glicko2_calcs=glicko2_calcs.get(player.id, []),
        )

    for old, new in sorted(site.moved.items()):
        yield moved_page(site, old, new)

    yield home_page(site, closes)


def bundle_path(lst: ListVersionLine) -> str | None:
    """Where a computed list version's bundle is (an imported list has none), beside its downloads."""
    return list_path(lst, "zip") if lst.origin == "computed" and lst.period else None


def site_bundle(session: Session, site: Site, lst: ListVersionLine, sign: Signer | None) -> bytes:
    """One list version's bundle as the site offers it, named by the site's title (none for the default)."""
    title = site.options.title if site.options.title != DEFAULT_TITLE else ""
    return list_bundle(
        session, lst.rating_type, lst.list_date, version=lst.version, site_title=title, sign=sign
    ).data


def list_bundles(session: Session, site: Site) -> Iterator[tuple[str, bytes]]:
    """The bundle of every computed list version (docs/reference/bundle.md), signed when the federation
    has a key, and the key itself at /.well-known/ for verifiers (`ratingdb verify --site`)."""
    sign = signer(session) if site.public_key is not None else None
    for lst in site.lists:
        path = bundle_path(lst)
        if path is not None:
            yield path, site_bundle(session, site, lst, sign)
    if site.public_key is not None:
        yield WELL_KNOWN, well_known(site.public_key).encode("utf-8")


def list_download(
    lst: ListVersionLine, lines: Sequence[ListLine], fmt: ExportFormat, shown: ListShown
) -> bytes:
    """One download of a list: the file `ratingdb list --format FMT` writes (the list's system says which it
    offers and writes it: ratingdb.reports.systems), with CSV cells that a spreadsheet would run as
    formulas made text."""
    text = io.StringIO(newline="")
    shown.figures.write(fmt, lines, text, lst)
    content = text.getvalue()
    if fmt == "csv":
        # The public download is opened in spreadsheets: a name such as =HYPERLINK(…) is text there
        # (`ratingdb list --format csv` keeps the exact round-trip form).
        content = spreadsheet_safe_csv(content)
    return content.encode("utf-8")


def list_downloads(
    lst: ListVersionLine, lines: Sequence[ListLine], shown: ListShown
) -> Iterator[tuple[str, bytes]]:
    for download in shown.system.downloads:
        yield list_path(lst, download.suffix), list_download(lst, lines, download.format, shown)


def ranked_list(lines: Sequence[ListLine], shown: ListShown | None = None) -> RankedList:
    """A list version's lines ranked in the order its page shows them (its system's: a Glicko-2 list by
    its own ratings): made once per version, by the static site per page and by the served one per
    version."""
    return RankedList((shown or elo_list()).figures.order(lines))


def list_page(
    site: Site,
    lst: ListVersionLine,
    ranked: RankedList,
    query: ListQuery | None = None,
    *,
    shown: ListShown | None = None,
) -> tuple[str, bytes]:
    """The list page: every entry (the static site, whose script filters and sorts), or, served, the page
    of entries `query` asks for, filtered, sorted and paged by the server. The list's system gives the
    rating's cell and the columns after Games (an Elo list's K and flag, a Glicko-2 list's RD and mark);
    `ranked` is ranked_list(lines, shown)."""
    shown = shown or elo_list()
    rows = ranked.ranked
    matched = len(ranked)
    if query is not None:
        matched, rows = query_lines(ranked, query, lst.list_date.year, site.aliases)
        if query.page > 1 and not rows:  # past the last page ("page 99 of 3" over no rows said nothing)
            pages = max(1, -(-matched // query.per_page))
            message = N_("there is no page %(page)s: the last page is %(pages)s")
            raise not_found(MissingList, message, page=query.page, pages=pages)
    # One plain tuple per row, in the table's column order; the system's cells after Games.
    table: list[tuple[object, ...]] = []
    cells, change, by_player = shown.figures.cells, shown.system.change, shown.figures.by_player()
    lang = site.language
    for rank, line in rows:
        rating, *extra = cells(line, lang)
        table.append(
            (
                rank if rank is not None else "",
                line.title or "",
                line.name,
                site.urls.get(line.player_id),
                line.federation or "",
                line.sex or "",
                line.birth_year or "",
                rating,
                change(line.change, by_player.get(line.player_id), lang),
                line.games,
                extra,
                "|".join(site.aliases.get(line.player_id, ())),  # the static page's filter reads them
                line.club or "",
            )
        )
    return site.render(
        "list.html",
        list_path(lst),
        capfirst(
            site._("%(type)s list %(date)s")
            % {"type": site.language.type_word(lst.rating_type), "date": site.language.date(lst.list_date)}
        ),
        lst=lst,
        rows=table,
        system=shown.system,
        systems=[shown.system],
        note=shown.figures.note(lst, lang),
        players=len(ranked),
        matched=matched,
        query=query,
        pages=query.pages(matched) if query is not None else 1,
        rated=ranked.rated,
        federations=ranked.federations,
        clubs=ranked.clubs,
        downloads=[(d, list_path(lst, d.suffix)) for d in shown.system.downloads],
        bundle=bundle_path(lst),
        key_path=WELL_KNOWN if site.public_key is not None else None,
        close=period_path(lst.rating_type, lst.period) if lst.state == "current" and lst.period else None,
        current=None if lst.state == "current" else site.list_by_date.get((lst.rating_type, lst.list_date)),
    )


def event_page(site: Site, session: Session, event_id: int) -> tuple[str, bytes]:
    report = event_report(session, event_id)
    rated_by = ratings_from = None
    if report.list_date is not None:
        rated_by = site.list_by_date.get((report.rating_type, report.list_date))
    if report.ratings_from is not None:
        ratings_from = site.list_by_date.get((report.rating_type, report.ratings_from))
    system = site.system_of(report.rating_type)
    return site.render(
        "event.html",
        event_path(event_id),
        report.name,
        report=report,
        system=system,
        systems=[system],
        player_cells=system.event_cells(session, report, site.language),
        table=crosstable(session, report),
        rated_by=rated_by,
        ratings_from=ratings_from,
        norms=published_norms(session, event_id),
    )


def period_page(site: Site, lst: ListVersionLine, report: PeriodReport) -> tuple[str, bytes]:
    """A close's page: its counts, events and tables of moves as the close's rating system shows them."""
    in_force = site.list_by_date.get((report.rating_type, report.in_force_date))
    system = system_shown(report.system)
    return site.render(
        "period.html",
        period_path(report.rating_type, str(report.period)),
        capfirst(
            site._("%(type)s period %(period)s")
            % {"type": site.language.type_word(report.rating_type), "period": report.period}
        ),
        report=report,
        published=lst,
        in_force=in_force,
        system=system,
        systems=[system],
        counts=system.counts(report, site.language),
        sections=[
            (
                site._(section.title),
                moves_with_cells(site, system, getattr(report, section.moves)),
                section.flags,
            )
            for section in system.sections
        ],
    )


SYSTEMS_PATH: Final = "systems.html"


def systems_page(site: Site, session: Session) -> tuple[str, bytes] | None:
    """`ratingdb report systems` as a page: how well each rating type's system forecast the games of the
    site's closed periods (mean log-loss and Brier per rating band); None when the site has no close."""
    periods = sorted({Period.parse(c.period) for c in site_closes(site) if c.period})
    if not periods:
        return None
    lang = site.language
    by_type: dict[str, list[tuple[str, str, str, str, str, bool]]] = defaultdict(list)
    for x in systems_report(session, periods[0], periods[-1], list(site.options.rating_types)):
        total = x.band == ALL_BANDS
        by_type[x.rating_type].append(
            (
                SHOWN[x.system].title if x.system in SHOWN else x.system,
                site._("all bands") if total else x.band,
                lang.count(x.games),
                "" if x.log_loss is None or math.isnan(x.log_loss) else fixed(lang, x.log_loss, 4),
                "" if x.brier is None or math.isnan(x.brier) else fixed(lang, x.brier, 4),
                total,
            )
        )
    return site.render(
        "systems.html",
        SYSTEMS_PATH,
        site._("Which system forecast the games best"),
        first=str(periods[0]),
        last=str(periods[-1]),
        by_type=[(t, by_type[t]) for t in site.options.rating_types if t in by_type],
    )


class SiteClose(NamedTuple):
    """A close of the site, by the list it published (ratingdb.reports.lists.Close, with no query)."""

    id: int
    rating_type: str
    list_date: dt.date
    period: str | None


def site_closes(site: Site) -> list[SiteClose]:
    """Each close of the site (its current computed lists), in the site's order."""
    return [
        SiteClose(lst.list_id, lst.rating_type, lst.list_date, lst.period)
        for lst in site.current
        if lst.origin == "computed" and lst.period is not None
    ]


def moves_with_cells(site: Site, system: Shown, moves: Sequence[Any]) -> list[tuple[Any, tuple[str, ...]]]:
    """Each move of a close with the cells its system shows after Games (a Glicko-2 move's RDs)."""
    return [(move, system.move_cells(move, site.language)) for move in moves]


def player_calculations(session: Session, site: Site, player: Player) -> list[Calculation]:
    """One player's calculation in every close of the site (the served player page, the API)."""
    return player_calculations_in(session, player, site_closes(site))


def _glicko2_calculations(session: Session, new_list: RatingList) -> dict[int, Glicko2Calculation]:
    """The stored Glicko-2 calculation of every player of a Glicko-2 close; {} for another list."""
    params = list_parameters(session, new_list)
    if params is None:
        return {}
    from ratingdb.reports.glicko2 import list_glicko2_calculations

    return list_glicko2_calculations(session, new_list, params)


def player_glicko2_calculations(session: Session, site: Site, player: Player) -> list[Glicko2Calculation]:
    """One player's Glicko-2 calculation in every Glicko-2 close of the site (the served page, the API)."""
    from ratingdb.reports.glicko2 import list_glicko2_calculations
    from ratingdb.schema.models import Glicko2CalcPlayer

    closes = site_closes(site)
    # The closes with a Glicko-2 calculation of the player (one look-up by the key for all of them):
    # most often none, and each other close would be asked for its rule set.
    rated = set(
        session.scalars(
            select(Glicko2CalcPlayer.list_id).where(
                Glicko2CalcPlayer.list_id.in_([lst.id for lst in closes]),
                Glicko2CalcPlayer.player_id == player.id,
            )
        )
    )
    found: list[Glicko2Calculation] = []
    for close in closes:
        if close.id not in rated:
            continue
        new_list = session.get_one(RatingList, close.id)
        params = list_parameters(session, new_list)
        if params is not None:
            found += list_glicko2_calculations(session, new_list, params, player=player).values()
    return found


def player_not_rated(
    session: Session,
    site: Site,
    player: Player,
    calcs: Sequence[Calculation] | None = None,
    kept: Mapping[int, ListColumns] | None = None,
) -> dict[tuple[str, dt.date], list[NotRated]]:
    """One player's games not counted in each close of the site, by (type, list date); `calcs`: their
    calculations in the site's closes (player_calculations), when read already: what they count is not
    read again; `kept`: the site's current lists in memory by id (a server's), where ratings are looked up
    rather than read."""
    closes = {lst.id: lst for lst in site_closes(site)}
    # Read once per Site (a data version): two requests at once may both read it, the same.
    if site.close_events is None:
        site.close_events = close_of_events(session, list(closes.values()))
    counted = None
    if calcs is not None:  # each event's games its close counts: the close is the event's period's
        counted = {ev.event_id: {game.game_id for game in ev.games} for c in calcs for ev in c.events}
    found = player_not_rated_in(session, player.id, site.close_events, site.in_force, counted, kept)
    return {
        (closes[list_id].rating_type, closes[list_id].list_date): games for list_id, games in found.items()
    }


def moved_page(site: Site, old: str, new: str) -> tuple[str, bytes]:
    """The page left at an old address: it sends the visitor on to the new one (no script needed)."""
    target = PurePosixPath(new).name  # both addresses are in players/
    return site.render("moved.html", old, site._("This page has moved"), canonical_path=new, target=target)


class ShownPlayer(PlayerIds, Protocol):
    """What a player's page shows of the player: a Player, or a row of these columns (the served page of
    a player without calculations reads only them: site.served.player_view)."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def federation(self) -> str | None: ...
    @property
    def sex(self) -> str | None: ...
    @property
    def birth_year(self) -> int | None: ...


def player_page(
    site: Site,
    player: ShownPlayer,
    history: Sequence[HistoryLine],
    calcs: Sequence[Calculation],
    live: Sequence[Any] = (),
    not_rated: Mapping[tuple[str, dt.date], Sequence[NotRated]] | None = None,
    figures: Mapping[tuple[str, dt.date], object] | None = None,
    glicko2_calcs: Sequence[Glicko2Calculation] = (),
) -> tuple[str, bytes]:
    """A player's page; `figures`: theirs beyond the list entry on each current list, by (type, list
    date), as ratingdb.reports.systems gives them (a Glicko-2 list's rating, RD and mark);
    `glicko2_calcs`: their stored calculation in each Glicko-2 close, written out as Elo ones are."""
    figures = figures or {}
    ids = f" (FIDE {player.fide_id})" if player.fide_id else ""
    chart = None
    if any(h.rating is not None for h in history):
        # The chart's template escapes every text, so the SVG is safe to embed as it is.
        title = site._("%(player)s: ratings by list") % {"player": f"{player.name}{ids}"}
        chart = Markup(history_svg(history, title, site.language))
    by_type: dict[str, list[tuple[object, ...]]] = defaultdict(list)
    for h in reversed(history):  # newest first
        url = site.list_urls[(h.rating_type, h.list_date)]
        # The rating's cell and those after Games are the list's system's (K and flag, or RD and mark).
        system, own = site.system_of(h.rating_type), figures.get((h.rating_type, h.list_date))
        rating, *extra = system.history_cells(h, own, site.language)
        change = system.change(h.change, own, site.language)
        by_type[h.rating_type].append((url, site.language.date(h.list_date), rating, change, h.games, extra))
    order = {t: i for i, t in enumerate(site.options.rating_types)}
    shown = sorted(calcs, key=lambda c: (c.list_date, order.get(c.rating_type, len(order))), reverse=True)
    return site.render(
        "player.html",
        site.urls[player.id],
        player.name,
        player=player,
        club=site.clubs.get(player.id),
        history=[(t, by_type[t], site.system_of(t)) for t in site.options.rating_types if t in by_type],
        systems=site.systems_of(by_type),
        chart=chart,
        live=live,
        calculations=[
            (
                c,
                calculation_summary(c, site.language),
                [(ev, event_summary(ev, site.language), game_rows(site, ev)) for ev in c.events],
                (not_rated or {}).get((c.rating_type, c.list_date), []),
            )
            for c in shown
        ],
        glicko2_calculations=[
            glicko2_view(site, c)
            for c in sorted(
                glicko2_calcs,
                key=lambda c: (c.list_date, order.get(c.rating_type, len(order))),
                reverse=True,
            )
        ],
    )


def fixed(language: Language, value: float, places: int) -> str:
    """A computed float as the pages print it: `places` decimals (the language's separator), the true
    minus sign, never grouped (μ −0.2069 · −0,2069; 1464.05 · 1464,05)."""
    text = f"{value:.{places}f}"
    if language.code != DEFAULT_LANGUAGE:
        from babel.numbers import format_decimal

        text = format_decimal(Decimal(text), format="0." + "0" * places, locale=language.code)
        text = text.replace("\u2212", "-").replace("\u00a0", "")
    if text.startswith("-"):
        return "\u2212" + text[1:] if text.strip("-0.,") else text[1:]
    return text


@dataclass(frozen=True)
class Glicko2View:
    """A stored Glicko-2 calculation as the player page writes it (figures formatted, games as rows)."""

    calc: Glicko2Calculation
    before: tuple[str, str, str]  # rating, RD, σ before the period, as the list in force published them
    steps: tuple[str, ...]  # μ, φ, v, Δ, σ′, φ*, φ′, μ′ (v and Δ blank without games)
    after: tuple[str, str, str] | None  # rating, RD, σ on the new list; None: unrated
    provisional: bool  # the new RD is above the rule set's threshold
    threshold: str  # that threshold ("" without one)
    games: list[tuple[object, ...]]


def glicko2_view(site: Site, c: Glicko2Calculation) -> Glicko2View:
    lang, rec, entry = site.language, c.record, c.entry
    assert rec is not None  # the site shows the players the close rated or widened

    def f(value: float | None, places: int = 4) -> str:
        return "" if value is None else fixed(lang, value, places)

    def three(r100: int, d100: int, s1e6: int) -> tuple[str, str, str]:
        return lang.hundredths(r100), lang.hundredths(d100), f(s1e6 / 1e6, 6)

    threshold = c.params.provisional_deviation
    return Glicko2View(
        c,
        three(rec.rating_x100, rec.deviation_x100, rec.volatility_x1e6),
        tuple(f(x) for x in (rec.mu, rec.phi, rec.v, rec.delta))
        + (f(rec.new_sigma, 6),)
        + tuple(f(x) for x in (rec.phi_star, rec.new_phi, rec.new_mu)),
        None if entry is None else three(entry.rating_x100, entry.deviation_x100, entry.volatility_x1e6),
        entry is not None and c.params.is_provisional(entry.deviation_x100 / 100),
        "" if threshold is None else f"{threshold:g}",
        [
            (
                g.event_id,
                g.event,
                g.round,
                g.opponent,
                site.urls.get(g.opponent_id) if g.opponent_id is not None else None,
                g.opponent_fide_id or "",
                lang.hundredths(g.opponent_rating_x100),
                lang.hundredths(g.opponent_deviation_x100),
                f(g.g),
                f(g.e),
                lang.hundredths(g.score_x100),
            )
            for g in c.games
        ],
    )


def game_rows(site: Site, event: EventRecord) -> list[tuple[object, ...]]:
    """One event's games in a calculation, as the table shows them (the `calculation` command's columns):
    round, opponent, their page, FIDE ID, national ID, rating, D, PD, score, score − PD."""
    hundredths, urls = site.language.hundredths, site.urls
    return [
        (
            g.round,
            g.opponent,
            urls.get(g.opponent_id),
            g.opponent_fide_id or "",
            g.opponent_national_id or "",
            g.opponent_rating,
            "" if g.d is None else g.d,
            hundredths(g.pd_x100),
            hundredths(g.score_x100),
            hundredths(None if g.pd_x100 is None else g.score_x100 - g.pd_x100, signed=True),
        )
        for g in event.games
    ]


def root_of(path: str) -> str:
    """The way from the page at `path` (relative to the site) back to the site's root."""
    return "../" * path.count("/")


def home_page(site: Site, closes: Mapping[int, PeriodReport]) -> tuple[str, bytes]:
    latest: list[tuple[ListVersionLine, PeriodReport, Shown, list[tuple[Any, tuple[str, ...]]]]] = []
    for rating_type in site.options.rating_types:
        computed = [lst for lst in site.current if lst.rating_type == rating_type and lst.list_id in closes]
        if computed:
            report = closes[computed[-1].list_id]
            system = system_shown(report.system)
            latest.append(
                (computed[-1], report, system, moves_with_cells(site, system, report.gains[:HOME_GAINS]))
            )
    return site.render(
        "home.html",
        "index.html",
        site.title,
        systems_path=SYSTEMS_PATH if closes else None,
        newest=[site.newest[t] for t in site.options.rating_types if t in site.newest],
        latest=latest,
        by_type=[(t, [lst for lst in reversed(site.lists) if lst.rating_type == t]) for t in site.newest],
        closes=closes,
        gains=HOME_GAINS,
    )
