"""The served site's pages: each one the same page function and template as the static site's, found by
its address, plus the pages only a server can give (search, live ratings).

Takes a Session and a Site (ratingdb.site.publish), reads only, returns (path, bytes); no web framework
imports, so the route handlers in ratingdb.web stay one call each.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from sqlalchemy import Select, bindparam, select
from sqlalchemy.orm import Session

from ratingdb.bundle.signing import well_known
from ratingdb.errors import ConfigError, MissingList, RatingDbError, UnknownEvent, UnknownPlayer
from ratingdb.i18n import N_
from ratingdb.rating import Period
from ratingdb.reports.list_query import ListQuery, RankedList
from ratingdb.reports.lists import (
    CurrentList,
    ListColumns,
    ListLine,
    ListVersionLine,
    history_in,
    player_history,
    players_with_records,
)
from ratingdb.reports.live import LiveEntry, LiveEvent, LiveList
from ratingdb.reports.period import period_report
from ratingdb.reports.search import search_players
from ratingdb.reports.systems import DEFAULT, ListShown, elo_list, player_figures
from ratingdb.schema.models import Player
from ratingdb.services.bundle_keys import signer
from ratingdb.services.players import find_by_id
from ratingdb.services.versions import data_version_query
from ratingdb.site.publish import (
    CLOSE_HIGHLIGHTS,
    Site,
    bundle_path,
    closes_of,
    event_page,
    home_page,
    list_path,
    not_found,
    period_page,
    period_path,
    player_calculations,
    player_glicko2_calculations,
    player_not_rated,
    player_page,
    site_bundle,
    systems_page,
)

Ranked = Callable[[int], RankedList]  # a list version's ranked lines by its id (kept by the app)
ShownOf = Callable[[int], ListShown]  # how a list version is shown (its system, its figures), by id (cached)


class PageNotFound(RatingDbError):
    """No page at this address (a 404, with the sentence)."""


def home(session: Session, site: Site) -> bytes:
    return home_page(site, closes_of(session, site))[1]


def list_version(site: Site, name: str, suffix: str = "html") -> ListVersionLine:
    """The list version whose page (or download) is `lists/<name>.<suffix>`."""
    for lst in site.lists:
        if list_path(lst, suffix) == f"lists/{name}.{suffix}":
            return lst
    raise not_found(
        PageNotFound, N_("there is no list %(name)s: the home page links every published list"), name=name
    )


def list_view(
    site: Site, name: str, ranked: Ranked, query: ListQuery | None, shown: ShownOf = lambda _: elo_list()
) -> bytes:
    """The list page at lists/<name>.html; `ranked` gives a version's ranked lines by its id (kept by the
    app: ranking 20,000 lines is most of what a list page would cost)."""
    from ratingdb.site.publish import list_page

    lst = list_version(site, name)
    return list_page(site, lst, ranked(lst.list_id), query, shown=shown(lst.list_id))[1]


def offered_download(site: Site, name: str, suffix: str, shown: ShownOf) -> ListVersionLine:
    """The list version of a download its system offers (a Glicko-2 list has no FIDE text: a 404)."""
    lst = list_version(site, name, suffix)
    if not shown(lst.list_id).system.offers(suffix):
        raise not_found(
            PageNotFound,
            N_("the list %(name)s is not offered as .%(suffix)s: its page links the downloads it has"),
            name=name,
            suffix=suffix,
        )
    return lst


def bundle(session: Session, site: Site, lst: ListVersionLine) -> bytes:
    """A computed list version's bundle, signed when the federation has a key the server can read (one it
    cannot read is served unsigned, which `ratingdb verify` says plainly); an imported list has none."""
    if bundle_path(lst) is None:
        raise not_found(
            MissingList,
            N_("the %(type)s list dated %(date)s was imported: it has no bundle, nothing was computed"),
            type=lst.rating_type,
            date=lst.list_date.isoformat(),
        )
    try:
        sign = signer(session) if site.public_key is not None else None
    except ConfigError:
        sign = None
    return site_bundle(session, site, lst, sign)


def public_key_file(site: Site) -> str:
    """The site's /.well-known/ key file (ratingdb.bundle.signing.well_known), if the federation signs."""
    if site.public_key is None:
        raise not_found(PageNotFound, N_("this federation signs no list bundles: it has no public key"))
    return well_known(site.public_key)


def bundle_view(session: Session, site: Site, name: str) -> bytes:
    """The bundle at lists/<name>.zip, the static site's address."""
    return bundle(session, site, list_version(site, name, "zip"))


def player_by_key(session: Session, key: str) -> Player:
    """A player by the key of their page's address (ratingdb.site.publish.player_key: the national ID,
    `fide-<FIDE ID>`, `id<N>`), or by a FIDE ID as the addresses of earlier versions had it."""
    if key.startswith("id") and key[2:].isascii() and key[2:].isdigit():
        found = session.get(Player, int(key[2:]))
        if found is None:
            raise not_found(
                UnknownPlayer, N_("there is no player %(key)s: search by name on the home page"), key=key
            )
        return found
    fide = key.removeprefix("fide-")
    try:
        if fide != key:
            return find_by_id(session, f"fide:{fide}")
        try:
            return find_by_id(session, f"national:{key}")  # a page key is a national ID first
        except UnknownPlayer:
            return find_by_id(session, key)
    except UnknownPlayer:
        raise not_found(
            UnknownPlayer,
            N_("no player has FIDE ID or national ID '%(key)s': search by name on the home page"),
            key=key,
        ) from None


@dataclass(frozen=True)
class PlayerLive:
    """One player's live rating of one type, as the player page shows it."""

    type: str
    in_force: dt.date
    official: int | None
    rating: int | None
    change: int | None
    events: list[LiveEvent]  # the events of the open periods the player played in
    calculations: list[Any]  # each with .period, .list_date, .summary and .rows (the games tables)


@dataclass(frozen=True)
class _LiveCalc:
    period: str
    list_date: dt.date
    summary: list[str]
    rows: list[tuple[Any, str, list[tuple[object, ...]]]]  # each event, its summary, its games (game_rows)
    next_close: bool  # the list of the next close (the first open period), else of a later one


def player_live(site: Site, player_id: int, lives: Sequence[LiveList]) -> list[PlayerLive]:
    """The player's live ratings: only of types with open periods in which the player has games."""
    from ratingdb.reports.lists import calculation_summary, event_summary
    from ratingdb.site.publish import game_rows

    shown: list[PlayerLive] = []
    for live in lives:
        entry = live.entry(player_id)
        if entry is None or not entry.calculations:
            continue
        played = {ev.event_id for c in entry.calculations for ev in c.events}
        shown.append(
            PlayerLive(
                live.rating_type,
                live.in_force,
                entry.official,
                entry.rating,
                entry.change,
                [ev for ev in live.events if ev.event_id in played],
                [
                    _LiveCalc(
                        c.period,
                        c.list_date,
                        calculation_summary(c.calculation, site.language),
                        [(ev, event_summary(ev, site.language), game_rows(site, ev)) for ev in c.events],
                        c.period == live.periods[0],
                    )
                    for c in entry.calculations
                ],
            )
        )
    return shown


def moved_player(site: Site, key: str) -> str | None:
    """Where the page at an old address `players/<key>.html` is now (relative to players/), if it moved."""
    new = site.moved.get(f"players/{key}.html")
    return None if new is None else new.removeprefix("players/")


class Reads(Protocol):
    """What a served page reads with (ratingdb.web.deps.View): the request's read transaction, begun when
    first asked for, or one statement alone whose first column is the data version, checked against the
    version the page is made for (a page that needs one statement sends no BEGIN and no ROLLBACK)."""

    @property
    def session(self) -> Session: ...

    def one(self, query: Select[Any], params: Mapping[str, Any]) -> Any: ...


def player_view(
    reads: Reads,
    site: Site,
    key: str,
    lives: Callable[[], Sequence[LiveList]],
    histories: Callable[[], Sequence[tuple[CurrentList, ListColumns]] | None] = lambda: None,
) -> bytes:
    """The player's page; `lives` gives the live lists (computed only for a player the site has),
    `histories` the site's current lists in columns when the server keeps them (else a query reads the
    player's history)."""
    player_id = site.pages.get(f"players/{key}.html")
    if player_id is None:
        player_by_key(reads.session, key)  # raises the sentence for an ID nobody has
        raise not_found(
            PageNotFound,
            N_("player %(key)s is on no list of this site: search by name on the home page"),
            key=key,
        )
    plain = player_id not in with_records(lambda: reads.session, site)
    lists = histories()
    if lists is not None and plain:
        # Most players: a history only, in memory, and the player's row, read with the data version by one
        # statement (no transaction: bench/RESULTS.md, issue 28). Nothing to find in the calculation
        # records, the games or the Glicko-2 figures: the five queries that would say so are not sent.
        shown = reads.one(_player_row(), {"id": player_id})
        history = history_in(lists, player_id)
        return player_page(site, shown, history, [], player_live(site, player_id, lives()), {}, {}, [])[1]
    session = reads.session
    player = session.scalars(_player_by_id(), {"id": player_id}).one()
    if lists is None:
        history = [h for h in player_history(session, player) if h.rating_type in site.options.rating_types]
    else:
        history = history_in(lists, player.id)
    live = player_live(site, player.id, lives())
    if plain:  # the lists not kept in memory: read by queries, in the transaction
        return player_page(site, player, history, [], live, {}, {}, [])[1]
    calcs = player_calculations(session, site, player)
    kept = None if lists is None else {lst.list_id: columns for lst, columns in lists}
    not_rated = player_not_rated(session, site, player, calcs, kept)
    if any(system.name != DEFAULT for system in site.systems.values()):
        glicko2_calcs = player_glicko2_calculations(session, site, player)
        figures = player_figures(session, player.id)
    else:  # every type of the site is an Elo one: no Glicko-2 close or figures to look for
        glicko2_calcs, figures = [], {}
    return player_page(site, player, history, calcs, live, not_rated, figures, glicko2_calcs)[1]


@cache
def _player_by_id() -> Select[Player]:
    # Built once: every player page asks it, and Session.get builds its statement and finds the compiled
    # form anew each time (0.08 ms of CPU a page on PostgreSQL, a twentieth of a page without
    # calculations: bench/RESULTS.md, issue 28).
    return select(Player).where(Player.id == bindparam("id"))


@cache
def _player_row() -> Select[Any]:
    """The data version and what a player page shows of player `id` (publish.ShownPlayer), one row."""
    return select(
        data_version_query().scalar_subquery().label("data_version"),
        Player.id, Player.name, Player.title, Player.fide_id, Player.national_id,
        Player.federation, Player.sex, Player.birth_year,
    ).where(Player.id == bindparam("id"))  # fmt: skip


def with_records(session: Callable[[], Session], site: Site) -> frozenset[int]:
    """The players with any calculation record, game or Glicko-2 figures (reports.lists
    .players_with_records), read once for the site's data version (a Site is made per version) in the
    transaction `session` gives."""
    found = site.with_records
    if found is None:  # two requests at once may both read it: the same set
        found = site.with_records = players_with_records(session())
    return found


def event_view(session: Session, site: Site, event_id: int) -> bytes:
    from ratingdb.reports.event import event_ids

    if event_id not in set(event_ids(session, site.options.rating_types)):
        raise not_found(
            UnknownEvent,
            N_("there is no event %(id)s: the close pages link every rated event"),
            id=event_id,
        )
    return event_page(site, session, event_id)[1]


def period_view(session: Session, site: Site, name: str) -> bytes:
    for lst in site.current:
        if (
            lst.origin == "computed"
            and lst.period
            and period_path(lst.rating_type, lst.period) == f"periods/{name}.html"
        ):
            report = period_report(
                session, Period.parse(lst.period), lst.rating_type, top=CLOSE_HIGHLIGHTS, lang=site.language
            )
            return period_page(site, lst, report)[1]
    raise not_found(
        PageNotFound, N_("there is no close %(name)s: the home page links every close"), name=name
    )


def systems_view(session: Session, site: Site) -> bytes:
    found = systems_page(site, session)
    if found is None:
        raise not_found(PageNotFound, N_("there is no close yet: the forecasts are scored on closed periods"))
    return found[1]


def search_view(session: Session, site: Site, text: str) -> bytes:
    text = text.strip()
    found = search_players(session, text) if text else None
    players = [] if found is None else [p for p in found.players if p.id in site.urls]
    return site.render(
        "search.html",
        "search",
        site._("Find a player"),
        search_text=text,
        players=players,
        alike=0 if found is None else found.alike,
    )[1]


def live_index(site: Site, lives: Sequence[LiveList]) -> bytes:
    return site.render("live_index.html", "live/index.html", site._("Live ratings"), lives=lives)[1]


def live_view(site: Site, live: LiveList, query: ListQuery) -> bytes:
    if live.rating_type not in site.options.rating_types:
        raise not_found(MissingList, N_("this site has no %(type)s lists"), type=live.rating_type)
    year, aliases = live.in_force.year, site.aliases
    matched = [e for e in live.entries if query.matches(_as_line(e), year, aliases.get(e.player_id, ()))]
    start = (query.page - 1) * query.per_page
    return site.render(
        "live.html",
        f"live/{live.rating_type}.html",
        site._("Live %(type)s ratings") % {"type": site.language.type_word(live.rating_type)},
        live=live,
        entries=matched[start : start + query.per_page],
        matched=len(matched),
        query=query,
        pages=query.pages(len(matched)),
    )[1]


def _as_line(entry: LiveEntry) -> ListLine:
    return ListLine(
        entry.fide_id, entry.national_id, entry.name, entry.federation, None, entry.title, None,
        entry.rating, entry.games, entry.k, entry.flag, entry.change, 0, False, False, entry.player_id,
    )  # fmt: skip
