"""The JSON API under /api/v1: players, their history, calculations and live ratings; lists; events;
closes. Each route: the session, one report call, the response model (which is also the OpenAPI
document at /api/v1/openapi.json, so the two cannot differ).

Field names are stable: a field is never renamed or removed within v1, only added. Ratings are integers;
points and sums are strings with two decimals, exactly as the calculation pages print them ("+3.26"),
so no float rounding enters. Errors are {"error": "<one sentence>"}. Pages: `page` (from 1) and
`per_page`, and each paged answer says `total` and `pages`. A list version never changes once
published: its answers carry an ETag and may be cached for a year; send If-None-Match to get 304.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
from typing import TYPE_CHECKING, Annotated, Any, Final

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from ratingdb.errors import MissingList, UnknownEvent
from ratingdb.formats.spreadsheet import spreadsheet_safe_csv
from ratingdb.rating import Period
from ratingdb.reports.event import event_report
from ratingdb.reports.events import find_events
from ratingdb.reports.list_query import MAX_PER_PAGE, PER_PAGE, ListQuery, query_lines
from ratingdb.reports.lists import (
    Calculation,
    EventRecord,
    ListVersionLine,
    calculation_summary,
    player_history,
    points,
    signed_points,
    write_list_file,
)
from ratingdb.reports.live import PROVISIONAL, LiveCalculation, LiveList
from ratingdb.reports.period import period_report
from ratingdb.reports.search import search_players
from ratingdb.reports.systems import list_shown, types_shown
from ratingdb.schema.models import Player, RatingList
from ratingdb.services.players import versions
from ratingdb.site.publish import player_calculations, player_glicko2_calculations, player_key, player_path
from ratingdb.site.served import bundle, player_by_key
from ratingdb.web.deps import Served, ServedRoute

if TYPE_CHECKING:
    from ratingdb.reports.glicko2 import Glicko2Calculation

DESCRIPTION: Final = (
    "Read-only access to the federation's published rating lists, players, calculations, events, "
    'closes and live (provisional) ratings. Errors are `{"error": "<sentence>"}`. Published list '
    "versions are immutable: they carry an ETag and long cache headers, and answer 304 to If-None-Match."
)
router = APIRouter(route_class=ServedRoute)
IMMUTABLE: Final = "public, max-age=31536000, immutable"
# A rating period, YYYY-MM, years 1000 to 9998 (ratingdb.rating.Period's range).
# What a text parameter may hold: anything but the control characters (a NUL is refused before the app
# sees it, web.security.Hardened, and no name, key or type holds any): said by the OpenAPI document, so a
# client (or schemathesis) knows what the API takes (issue 54).
TEXT: Final = r"^[^\x00-\x1f\x7f]*$"
PERIOD: Final = r"^(1[0-9]{3}|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-(0[1-9]|1[0-2])$"
SHORT: Final = "public, max-age=60"


class ErrorOut(BaseModel):
    error: str = Field(description="What went wrong, as one sentence.")


ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    400: {"model": ErrorOut, "description": "A parameter is not valid."},
    404: {"model": ErrorOut, "description": "No such player, list, event or close."},
}


# --- models: the stable field names ---------------------------------------------------------------------


class PlayerOut(BaseModel):
    key: str = Field(
        description="The player's key in addresses (players/<key>.html): the national ID, else "
        "`fide-<FIDE ID>`, else `id<N>`."
    )
    fide_id: int | None
    national_id: str | None
    name: str = Field(description="Surname, first names, as registered now.")
    title: str | None
    federation: str | None
    sex: str | None = Field(description="M or F.")
    birth_year: int | None
    page: str = Field(description="The player's page, relative to the site's root.")


class PlayerDetailOut(PlayerOut):
    aliases: list[str] = Field(description="Other names the register has held for the player, oldest first.")
    deceased: bool


class SearchOut(BaseModel):
    query: str
    players: list[PlayerOut]
    alike: int = Field(description="How many of the players (the last ones) only have a name spelt alike.")


class HistoryEntryOut(BaseModel):
    rating_type: str
    list_date: dt.date
    origin: str = Field(description="computed (by a close here) or imported.")
    rating: int | None
    change: int | None
    games: int
    k: int | None
    flag: str | None = Field(description="i inactive, w woman, wi both.")


class HistoryOut(BaseModel):
    player: PlayerOut
    entries: list[HistoryEntryOut]


class GameOut(BaseModel):
    round: int
    opponent: str
    opponent_fide_id: int | None
    opponent_national_id: str | None
    opponent_rating: int
    own_rating: int | None
    d: int | None = Field(description="Rating difference after the cap (§8.3.1).")
    pd: str = Field(description="Expected score (table 8.1.2), two decimals.")
    score: str


class CalcEventOut(BaseModel):
    event_id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    ratings_from: dt.date = Field(description="The list whose ratings the event used (its start).")
    ro: int | None
    rc: str
    n: int
    score: str
    sum_score_minus_pd: str
    k: int | None
    k_times_sum: str
    note: str | None
    games: list[GameOut]


class CalculationOut(BaseModel):
    rating_type: str
    period: str
    list_date: dt.date = Field(description="The list the close published (or, live, would publish).")
    summary: list[str] = Field(description="The sentences `ratingdb calculation` prints.")
    events: list[CalcEventOut]


class Glicko2GameOut(BaseModel):
    event_id: int
    event: str
    round: int
    opponent: str
    opponent_fide_id: int | None
    opponent_national_id: str | None
    opponent_rating: float = Field(description="On the list in force, as published (hundredths).")
    opponent_deviation: float = Field(description="The opponent's RD on the list in force (hundredths).")
    g: float = Field(description="g(φj): how much the opponent's deviation discounts the game.")
    e: float = Field(description="E: the expected score against the opponent.")
    score: str


class Glicko2CalculationOut(BaseModel):
    rating_type: str
    period: str
    list_date: dt.date = Field(description="The list the close published.")
    summary: list[str] = Field(description="The sentences `ratingdb calculation` prints.")
    games_played: int
    newcomer: bool = Field(description="Not rated on the list in force: the newcomer's figures (Step 1).")
    rating_before: float
    deviation_before: float
    volatility_before: float
    mu: float
    phi: float
    v: float | None = Field(description="Step 3; null in a period without games.")
    delta: float | None = Field(description="Step 4; null in a period without games.")
    new_sigma: float
    phi_star: float
    phi_star_capped: bool = Field(
        description="φ* capped at the initial deviation: lists closed before ratingdb followed the paper "
        "(Step 6 uncapped); false since."
    )
    new_phi: float
    new_mu: float
    iterations: int
    deviation_clamped_to: float | None = Field(
        default=None,
        description="The rule set's maximum deviation when the new RD (173.7178 φ′) was above it and "
        "clamped to it; null: not clamped.",
    )
    note: str | None
    rating: float | None = Field(description="On the new list (hundredths); null: unrated.")
    deviation: float | None
    volatility: float | None
    provisional: bool | None = Field(
        description="The new deviation is above the rule set's threshold: the rating is shown provisional."
    )
    provisional_deviation: float | None = Field(description="That threshold; null: never provisional.")
    games: list[Glicko2GameOut]


class CalculationsOut(BaseModel):
    player: PlayerOut
    calculations: list[CalculationOut]
    glicko2_calculations: list[Glicko2CalculationOut] = Field(
        default_factory=list, description="The player's calculations in Glicko-2 closes, newest first."
    )


class LiveEventOut(BaseModel):
    event_id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    period: str


class LiveRatingOut(BaseModel):
    rating_type: str
    in_force: dt.date = Field(description="The date of the official list in force.")
    official: int | None
    rating: int | None = Field(description="The live rating: provisional, not an official rating.")
    change: int | None
    games: int
    events: list[LiveEventOut]
    calculations: list[CalculationOut]


class PlayerLiveOut(BaseModel):
    provisional: bool = True
    notice: str = PROVISIONAL
    player: PlayerOut
    ratings: list[LiveRatingOut]


class ListVersionOut(BaseModel):
    rating_type: str
    list_date: dt.date
    version: int
    state: str = Field(description="current, or withdrawn.")
    origin: str
    period: str | None = Field(description="The period whose close computed it.")
    rules: str | None
    source: str | None
    players: int
    withdrawn_at: dt.datetime | None
    withdrawn_reason: str | None
    url: str = Field(description="This version's entries in the API.")


class ListsOut(BaseModel):
    lists: list[ListVersionOut]


class EntryOut(BaseModel):
    rank: int | None
    fide_id: int | None
    national_id: str | None
    name: str
    title: str | None
    federation: str | None
    sex: str | None
    birth_year: int | None
    rating: int | None
    change: int | None
    games: int
    k: int | None
    flag: str | None
    # A list of a system with deviations (Glicko-2, Glicko: docs/guide/glicko2.md, glicko.md): the rating
    # and deviation as published (hundredths), Glicko-2's volatility, and whether the deviation is above
    # the rule set's provisional threshold. glicko2_rating: exact_rating's first name, on Glicko-2 lists.
    exact_rating: float | None = None
    glicko2_rating: float | None = None
    deviation: float | None = None
    volatility: float | None = None
    provisional: bool | None = None


class ListPageOut(BaseModel):
    rating_type: str
    list_date: dt.date
    version: int
    page: int
    per_page: int
    total: int
    pages: int
    entries: list[EntryOut]


class EventOut(BaseModel):
    id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    rating_type: str
    period: str
    late: bool
    players: int
    games: int
    rated: bool


class EventsOut(BaseModel):
    events: list[EventOut]


class EventPlayerOut(BaseModel):
    start_rank: int
    fide_id: int | None
    national_id: str | None
    name: str
    title: str | None
    ro: int | None
    games: int
    score: str | None
    k: int | None
    k_times_sum: str | None
    performance: int | None
    status: str
    new_rating: int | None


class EventDetailOut(BaseModel):
    id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    rating_type: str
    period: str
    list_date: dt.date | None = Field(description="The list that rated it; null while the period is open.")
    ratings_from: dt.date | None
    excluded_reason: str | None = Field(
        default=None,
        description="Why the rating officer excluded the event from rating (FIDE's right not to rate a "
        "tournament); null when it is rated.",
    )
    players: list[EventPlayerOut]


class CloseOut(BaseModel):
    rating_type: str
    period: str
    list_date: dt.date
    version: int
    rules: str | None
    players: int


class ClosesOut(BaseModel):
    closes: list[CloseOut]


class MoveOut(BaseModel):
    fide_id: int | None
    national_id: str | None
    name: str
    before: int | None
    after: int | None
    change: int | None
    games: int
    deviation_before: float | None = Field(
        default=None, description="A Glicko-2 close: the RD on the list in force (hundredths)."
    )
    deviation_after: float | None = Field(default=None, description="A Glicko-2 close: the new list's RD.")


class CloseDetailOut(BaseModel):
    rating_type: str
    period: str
    list_date: dt.date
    in_force_date: dt.date
    rules: str | None
    players_on_list: int
    players_rated: int
    games_played: int = Field(description="Games played over the board in the period's events.")
    games_rated: int = Field(
        description="Of those, games counted for a rating change or a first rating's pool."
    )
    games_changing_a_rating: int = Field(
        description="Games in a rated player's change or in a first rating the close published."
    )
    newly_rated_count: int = Field(description="Players with a rating on the new list and none before.")
    warnings: list[str] = Field(
        description="Events the close rated little of, or longer than one event may be."
    )
    events: list[LiveEventOut]
    newly_rated: list[MoveOut]
    gains: list[MoveOut]
    losses: list[MoveOut]


class LiveEntryOut(BaseModel):
    rank: int | None = Field(description="The rank on the live list (None: unrated).")
    fide_id: int | None
    national_id: str | None
    name: str
    title: str | None
    federation: str | None
    official: int | None = Field(description="The rating on the list in force.")
    rating: int | None = Field(description="The live rating: provisional, not an official rating.")
    change: int | None
    games: int = Field(description="Games rated in the open periods.")


class LiveListOut(BaseModel):
    provisional: bool = True
    notice: str = PROVISIONAL
    rating_type: str
    in_force: dt.date
    periods: list[str]
    events: list[LiveEventOut]
    page: int
    per_page: int
    total: int
    pages: int
    entries: list[LiveEntryOut]


# --- conversions ------------------------------------------------------------------------------------------


def player_out(p: Player) -> PlayerOut:
    return PlayerOut(
        key=player_key(p),
        fide_id=p.fide_id,
        national_id=p.national_id,
        name=p.name,
        title=p.title,
        federation=p.federation,
        sex=p.sex,
        birth_year=p.birth_year,
        page=player_path(p),
    )


def event_out(ev: EventRecord) -> CalcEventOut:
    return CalcEventOut(
        event_id=ev.event_id,
        name=ev.name,
        start_date=ev.start_date,
        end_date=ev.end_date,
        ratings_from=ev.ratings_from,
        ro=ev.ro,
        rc=points(ev.rc_x100),
        n=ev.n,
        score=points(ev.score_x100),
        sum_score_minus_pd=signed_points(ev.sum_dr_x100),
        k=ev.k,
        k_times_sum=signed_points(ev.k_sum_dr_x100),
        note=ev.note,
        games=[
            GameOut(
                round=g.round,
                opponent=g.opponent,
                opponent_fide_id=g.opponent_fide_id,
                opponent_national_id=g.opponent_national_id,
                opponent_rating=g.opponent_rating,
                own_rating=g.own_rating,
                d=g.d,
                pd=points(g.pd_x100),
                score=points(g.score_x100),
            )
            for g in ev.games
        ],
    )


def calculation_out(c: Calculation) -> CalculationOut:
    return CalculationOut(
        rating_type=c.rating_type,
        period=str(c.period),
        list_date=c.list_date,
        summary=calculation_summary(c),
        events=[event_out(ev) for ev in c.events],
    )


def glicko2_calculation_out(c: Glicko2Calculation) -> Glicko2CalculationOut:
    from ratingdb.reports.glicko2 import glicko2_summary

    rec, entry, params = c.record, c.entry, c.params
    assert rec is not None  # a calculation the close stored
    return Glicko2CalculationOut(
        rating_type=c.rating_type,
        period=str(c.period),
        list_date=c.list_date,
        summary=glicko2_summary(c),
        games_played=rec.games,
        newcomer=rec.newcomer,
        rating_before=rec.rating_x100 / 100,
        deviation_before=rec.deviation_x100 / 100,
        volatility_before=rec.volatility_x1e6 / 1e6,
        mu=rec.mu,
        phi=rec.phi,
        v=rec.v,
        delta=rec.delta,
        new_sigma=rec.new_sigma,
        phi_star=rec.phi_star,
        phi_star_capped=rec.phi_star_capped,
        deviation_clamped_to=c.clamped_to,
        new_phi=rec.new_phi,
        new_mu=rec.new_mu,
        iterations=rec.iterations,
        note=rec.note,
        rating=None if entry is None else entry.rating_x100 / 100,
        deviation=None if entry is None else entry.deviation_x100 / 100,
        volatility=None if entry is None else entry.volatility_x1e6 / 1e6,
        provisional=None if entry is None else params.is_provisional(entry.deviation_x100 / 100),
        provisional_deviation=params.provisional_deviation,
        games=[
            Glicko2GameOut(
                event_id=g.event_id,
                event=g.event,
                round=g.round,
                opponent=g.opponent,
                opponent_fide_id=g.opponent_fide_id,
                opponent_national_id=g.opponent_national_id,
                opponent_rating=g.opponent_rating_x100 / 100,
                opponent_deviation=g.opponent_deviation_x100 / 100,
                g=g.g,
                e=g.e,
                score=points(g.score_x100),
            )
            for g in c.games
        ],
    )


def live_calculation_out(rating_type: str, c: LiveCalculation) -> CalculationOut:
    return CalculationOut(
        rating_type=rating_type,
        period=c.period,
        list_date=c.list_date,
        summary=c.summary,
        events=[event_out(ev) for ev in c.events],
    )


def version_out(v: ListVersionLine) -> ListVersionOut:
    return ListVersionOut(
        rating_type=v.rating_type,
        list_date=v.list_date,
        version=v.version,
        state=v.state,
        origin=v.origin,
        period=v.period,
        rules=v.rules,
        source=v.source,
        players=v.players,
        withdrawn_at=v.withdrawn_at,
        withdrawn_reason=v.withdrawn_reason,
        url=f"/api/v1/lists/{v.rating_type}/{v.list_date.isoformat()}?version={v.version}",
    )


def live_rating_out(live: LiveList, player_id: int) -> LiveRatingOut | None:
    entry = live.entry(player_id)
    if entry is None:
        return None
    played = {ev.event_id for c in entry.calculations for ev in c.events}
    return LiveRatingOut(
        rating_type=live.rating_type,
        in_force=live.in_force,
        official=entry.official,
        rating=entry.rating,
        change=entry.change,
        games=entry.games,
        events=[LiveEventOut(**vars(ev)) for ev in live.events if ev.event_id in played],
        calculations=[live_calculation_out(live.rating_type, c) for c in entry.calculations],
    )


# --- players ------------------------------------------------------------------------------------------------

Key = Annotated[
    str,
    Path(
        max_length=40,
        pattern=TEXT,
        description="A player's `key` (national ID, fide-<FIDE ID>, id<N>) or FIDE ID.",
    ),
]
TypeQuery = Annotated[
    str | None, Query(alias="type", max_length=20, pattern=TEXT, description="Only this rating type.")
]
TypePath = Annotated[str, Path(max_length=20, pattern=TEXT, description="A rating type of the site.")]


def _of_site(view: Served, rating_type: str | None) -> None:
    """Refuses `rating_type` (a TypeQuery's, or a path's) when the site has no such lists: a misspelt type
    answered an empty result, as if nothing had been published."""
    if rating_type is not None and rating_type not in view.site.options.rating_types:
        raise MissingList(f"this site has no {rating_type} lists: /api/v1/lists lists the lists it has")


@router.get("/players", response_model=SearchOut, responses=ERRORS, tags=["players"])
def search(
    view: Served,
    q: Annotated[
        str,
        Query(
            min_length=1, max_length=100, pattern=TEXT, description="Part of a name, a FIDE or national ID."
        ),
    ],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> SearchOut:
    """Players by name (misspelt names too), FIDE ID or national ID."""
    found = search_players(view.session, q, limit=limit)
    return SearchOut(query=q, players=[player_out(p) for p in found.players], alike=found.alike)


@router.get("/players/{key}", response_model=PlayerDetailOut, responses=ERRORS, tags=["players"])
def player(view: Served, key: Key) -> PlayerDetailOut:
    """One player: IDs, details and the other names the register has held for them."""
    p = player_by_key(view.session, key)
    names = list(dict.fromkeys(v.name for v, _ in versions(view.session, p.id)))
    return PlayerDetailOut(
        **player_out(p).model_dump(), aliases=[n for n in names if n != p.name], deceased=bool(p.deceased)
    )


@router.get("/players/{key}/history", response_model=HistoryOut, responses=ERRORS, tags=["players"])
def history(view: Served, key: Key, rating_type: TypeQuery = None) -> HistoryOut:
    """The player's entry on every published list, oldest first (per type when `type` is given)."""
    _of_site(view, rating_type)
    p = player_by_key(view.session, key)
    lines = player_history(view.session, p, rating_type)
    return HistoryOut(
        player=player_out(p),
        entries=[HistoryEntryOut(**line._asdict()) for line in lines],
    )


@router.get("/players/{key}/calculations", response_model=CalculationsOut, responses=ERRORS, tags=["players"])
def calculations(view: Served, key: Key, rating_type: TypeQuery = None) -> CalculationsOut:
    """Every calculation of the player in the closes of this site, newest first, game by game (a Glicko-2
    close's in `glicko2_calculations`: Glickman's steps, the deviation and the provisional mark)."""
    _of_site(view, rating_type)
    p = player_by_key(view.session, key)
    found = [
        c for c in player_calculations(view.session, view.site, p) if rating_type in (None, c.rating_type)
    ]
    found.sort(key=lambda c: (c.list_date, c.rating_type), reverse=True)
    glicko2 = [
        c
        for c in player_glicko2_calculations(view.session, view.site, p)
        if rating_type in (None, c.rating_type)
    ]
    glicko2.sort(key=lambda c: (c.list_date, c.rating_type), reverse=True)
    return CalculationsOut(
        player=player_out(p),
        calculations=[calculation_out(c) for c in found],
        glicko2_calculations=[glicko2_calculation_out(c) for c in glicko2],
    )


@router.get("/players/{key}/live", response_model=PlayerLiveOut, responses=ERRORS, tags=["live"])
def player_live(view: Served, key: Key, rating_type: TypeQuery = None) -> PlayerLiveOut:
    """The player's live ratings: provisional, not official (the list in force plus open periods' events)."""
    _of_site(view, rating_type)
    p = player_by_key(view.session, key)
    types = [t for t in view.site.newest if rating_type in (None, t)]
    ratings = [r for t in types if (r := live_rating_out(view.state.live(t, view.version), p.id)) is not None]
    return PlayerLiveOut(player=player_out(p), ratings=ratings)


# --- lists --------------------------------------------------------------------------------------------------


@router.get("/lists", response_model=ListsOut, responses=ERRORS, tags=["lists"])
def lists(view: Served, rating_type: TypeQuery = None) -> ListsOut:
    """Every published list version of the site, withdrawn ones included, newest first."""
    _of_site(view, rating_type)
    shown = [v for v in reversed(view.site.lists) if rating_type in (None, v.rating_type)]
    shown.sort(key=lambda v: (v.list_date, v.rating_type, v.version), reverse=True)
    return ListsOut(lists=[version_out(v) for v in shown])


def _version(view: Served, rating_type: str, list_date: dt.date, version: int | None) -> ListVersionLine:
    found = [
        v
        for v in view.site.lists
        if v.rating_type == rating_type
        and v.list_date == list_date
        and (v.version == version if version is not None else v.state == "current")
    ]
    if not found:
        which = f" version {version}" if version is not None else ""
        raise MissingList(
            f"there is no {rating_type} list dated {list_date.isoformat()}{which}: /api/v1/lists lists them"
        )
    return found[-1]


def _etag(*parts: object) -> str:
    return '"' + hashlib.sha256(repr(parts).encode()).hexdigest()[:32] + '"'


def _not_modified(request: Request, etag: str) -> bool:
    sent = request.headers.get("if-none-match", "")
    return any(tag.strip() in (etag, f"W/{etag}", "*") for tag in sent.split(",")) if sent else False


def _cache_headers(version: int | None, etag: str) -> dict[str, str]:
    # A named version never changes; "the current version" may be replaced by a reopen: a short cache.
    return {"etag": etag, "cache-control": IMMUTABLE if version is not None else SHORT}


@router.get(
    "/lists/{rating_type}/{list_date}",
    response_model=ListPageOut,
    responses={**ERRORS, 304: {"description": "Not modified (If-None-Match matched the ETag)."}},
    tags=["lists"],
)
def list_page(
    request: Request,
    view: Served,
    rating_type: TypePath,
    list_date: dt.date,
    version: Annotated[
        int | None, Query(ge=1, le=1000, description="A version; the current one if absent.")
    ] = None,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE)] = PER_PAGE,
) -> Response:
    """One list version's entries in list order, a page at a time."""
    lst = _version(view, rating_type, list_date, version)
    etag = _etag("list", lst.list_id, page, per_page)
    headers = _cache_headers(version, etag)
    if _not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    query = ListQuery(page=page, per_page=per_page)
    ranked = view.state.ranked(view.session, lst.list_id, as_shown=False)
    total, shown = query_lines(ranked, query, 0)
    # The list's system adds its figures (a Glicko-2 or Glicko list: rating to hundredths, RD, mark).
    shown_list = list_shown(view.session, view.session.get_one(RatingList, lst.list_id))
    figures = shown_list.figures.by_player()
    body = ListPageOut(
        rating_type=lst.rating_type,
        list_date=lst.list_date,
        version=lst.version,
        page=page,
        per_page=per_page,
        total=total,
        pages=query.pages(total),
        entries=[
            EntryOut(
                rank=rank,
                fide_id=line.fide_id,
                national_id=line.national_id,
                name=line.name,
                title=line.title,
                federation=line.federation,
                sex=line.sex,
                birth_year=line.birth_year,
                rating=line.rating,
                change=line.change,
                games=line.games,
                k=line.k,
                flag=line.flag,
                **shown_list.system.api_fields(figures.get(line.player_id)),
            )
            for rank, line in shown
        ],
    )
    return Response(body.model_dump_json(), media_type="application/json", headers=headers)


@router.get(
    "/lists/{rating_type}/{list_date}/csv",
    responses={
        **ERRORS,
        200: {
            "content": {"text/csv": {}},
            "description": (
                "The list as `ratingdb list --format csv` writes it, but for a text cell that a spreadsheet "
                "would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return), "
                "which starts with `'` here. The exact round-trip file, to import again: `ratingdb list "
                "--format csv` on the database."
            ),
        },
        304: {"description": "Not modified."},
    },
    response_class=Response,
    tags=["lists"],
)
def list_csv(
    request: Request,
    view: Served,
    rating_type: TypePath,
    list_date: dt.date,
    version: Annotated[int | None, Query(ge=1, le=1000)] = None,
) -> Response:
    """One list version as CSV, made safe for spreadsheets: a text cell a spreadsheet would run as a
    formula starts with `'` (as the site's download; `ratingdb list --format csv` writes the round-trip
    file)."""
    lst = _version(view, rating_type, list_date, version)
    etag = _etag("csv", lst.list_id)
    headers = _cache_headers(version, etag)
    if _not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    text = io.StringIO(newline="")
    shown_list = list_shown(view.session, view.session.get_one(RatingList, lst.list_id))
    if shown_list.system.cli_list_columns:  # a system's own list format (Glicko-2's, Glicko's)
        lines = shown_list.figures.order(list(view.state.list_lines(view.session, lst.list_id)))
        shown_list.figures.write("csv", lines, text, lst)
    else:
        write_list_file(
            view.state.list_lines(view.session, lst.list_id), text, "csv", lst.rating_type, lst.list_date
        )
    # Opened in spreadsheets: =HYPERLINK(…) is text there, as in the site's download (issue 54, L5)
    safe = spreadsheet_safe_csv(text.getvalue())
    return Response(safe, media_type="text/csv; charset=utf-8", headers=headers)


@router.get(
    "/lists/{rating_type}/{list_date}/bundle",
    responses={
        **ERRORS,
        200: {
            "content": {"application/zip": {}},
            "description": (
                "The list version's bundle: the list with everything it was computed from, which `ratingdb "
                "verify` recomputes without the database (docs/reference/bundle.md). Signed when the "
                "federation has a key; a withdrawn version's says so, by which version and why."
            ),
        },
        304: {"description": "Not modified."},
    },
    response_class=Response,
    tags=["lists"],
)
def list_bundle(
    request: Request,
    view: Served,
    rating_type: TypePath,
    list_date: dt.date,
    version: Annotated[int | None, Query(ge=1, le=1000)] = None,
) -> Response:
    """One computed list version's bundle (a zip); an imported list has none (404)."""
    lst = _version(view, rating_type, list_date, version)
    # A version's bundle changes once, when a reopen withdraws it: tagged by the data version, kept briefly.
    etag = _etag("bundle", view.version, lst.list_id)
    headers = {"etag": etag, "cache-control": SHORT}
    if _not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    body = view.state.cached(
        ("bundle", view.version, lst.list_id), lambda: bundle(view.session, view.site, lst)
    )
    name = f"{lst.rating_type}-{lst.list_date.isoformat()}-v{lst.version}.zip"
    return Response(
        body,
        media_type="application/zip",
        headers={**headers, "content-disposition": f'attachment; filename="{name}"'},
    )


# --- events and closes -----------------------------------------------------------------------------------


def _period(text: str | None) -> Period | None:
    from ratingdb.rating import RulesError

    if text is None:
        return None
    try:
        return Period.parse(text)
    except RulesError as exc:
        from ratingdb.errors import ConfigError

        raise ConfigError(str(exc)) from None


@router.get("/events", response_model=EventsOut, responses=ERRORS, tags=["events"])
def events(
    view: Served,
    rating_type: TypeQuery = None,
    period: Annotated[str | None, Query(pattern=PERIOD, description="YYYY-MM")] = None,
) -> EventsOut:
    """The imported events by start date, of one type or period if asked."""
    _of_site(view, rating_type)
    found = find_events(view.session, period=_period(period), rating_type=rating_type)
    return EventsOut(
        events=[
            EventOut(
                id=e.id,
                name=e.name,
                start_date=e.start_date,
                end_date=e.end_date,
                rating_type=e.rating_type,
                period=e.period,
                late=e.late,
                players=e.players,
                games=e.games,
                rated=e.rated,
            )
            for e in found
            if e.rating_type in view.site.options.rating_types
        ]
    )


@router.get("/events/{event_id}", response_model=EventDetailOut, responses=ERRORS, tags=["events"])
def event(view: Served, event_id: Annotated[int, Path(ge=1, le=2**31 - 1)]) -> EventDetailOut:
    """One event with every player's result and what the close made of it."""
    try:
        report = event_report(view.session, event_id)
    except UnknownEvent:  # the command line's sentence names its command: the API's names its call
        raise UnknownEvent(f"there is no event {event_id}: /api/v1/events lists them") from None
    # Games and status as the event's rating system recorded them (a Glicko-2 close keeps no Elo record).
    system = types_shown(view.session, [report.rating_type])[report.rating_type]
    standings = system.event_standings(view.session, report)
    return EventDetailOut(
        id=report.event_id,
        name=report.name,
        start_date=report.start_date,
        end_date=report.end_date,
        rating_type=report.rating_type,
        period=report.period,
        list_date=report.list_date,
        ratings_from=report.ratings_from,
        excluded_reason=report.excluded_reason,
        players=[
            EventPlayerOut(
                start_rank=line.start_rank,
                fide_id=line.fide_id,
                national_id=line.national_id,
                name=line.name,
                title=line.title,
                ro=line.ro,
                games=standings[line.player_id].games,
                score=None if line.score_x100 is None else points(line.score_x100),
                k=line.k,
                k_times_sum=None if line.k_sum_dr_x100 is None else signed_points(line.k_sum_dr_x100),
                performance=line.performance,
                status=standings[line.player_id].status,
                new_rating=line.new_rating,
            )
            for line in report.lines
        ],
    )


@router.get("/closes", response_model=ClosesOut, responses=ERRORS, tags=["closes"])
def closes(view: Served, rating_type: TypeQuery = None) -> ClosesOut:
    """Every close (a period rated here), newest first."""
    _of_site(view, rating_type)
    shown = [
        CloseOut(
            rating_type=v.rating_type,
            period=v.period,
            list_date=v.list_date,
            version=v.version,
            rules=v.rules,
            players=v.players,
        )
        for v in reversed(view.site.current)
        if v.origin == "computed" and v.period is not None and rating_type in (None, v.rating_type)
    ]
    shown.sort(key=lambda c: (c.list_date, c.rating_type), reverse=True)
    return ClosesOut(closes=shown)


@router.get(
    "/closes/{rating_type}/{period}", response_model=CloseDetailOut, responses=ERRORS, tags=["closes"]
)
def close(
    view: Served,
    rating_type: TypePath,
    period: Annotated[str, Path(pattern=PERIOD, description="YYYY-MM")],
) -> CloseDetailOut:
    """What one close did: the events, the newly rated, the largest gains and losses."""
    parsed = _period(period)
    assert parsed is not None
    _of_site(view, rating_type)
    if not any(v.rating_type == rating_type and v.period == period for v in view.site.lists):
        # else the report's own sentence, about the list the close would have published
        raise MissingList(
            f"period {period} of the {rating_type} lists is not closed: /api/v1/closes lists the closes"
        )
    report = period_report(view.session, parsed, rating_type, top=10)

    def moves(found: list[object]) -> list[MoveOut]:
        return [MoveOut.model_validate(m, from_attributes=True) for m in found]

    return CloseDetailOut(
        rating_type=rating_type,
        period=str(report.period),
        list_date=report.list_date,
        in_force_date=report.in_force_date,
        rules=report.rules,
        players_on_list=report.players_on_list,
        players_rated=report.counts.players_rated,
        games_played=report.counts.games_played,
        games_rated=report.counts.games_rated,
        games_changing_a_rating=report.counts.games_changing_a_rating,
        newly_rated_count=report.counts.newly_rated,
        warnings=report.warnings,
        events=[
            LiveEventOut(
                event_id=e.event_id, name=e.name, start_date=e.start_date, end_date=e.end_date, period=period
            )
            for e in report.events
        ],
        newly_rated=moves(list(report.newly_rated)),
        gains=moves(list(report.gains)),
        losses=moves(list(report.losses)),
    )


# --- live ------------------------------------------------------------------------------------------------


@router.get("/live/{rating_type}", response_model=LiveListOut, responses=ERRORS, tags=["live"])
def live_list(
    view: Served,
    rating_type: TypePath,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE)] = PER_PAGE,
) -> LiveListOut:
    """The live list of a type: provisional ratings of every player, in list order, a page at a time."""
    if rating_type not in view.site.newest:
        raise MissingList(f"this site has no {rating_type} list, so no live ratings")
    live = view.state.live(rating_type, view.version)
    query = ListQuery(page=page, per_page=per_page)
    start = (page - 1) * per_page
    ranks: list[int | None] = []
    rank = 0
    for e in live.entries:
        rank += e.rating is not None
        ranks.append(rank if e.rating is not None else None)
    return LiveListOut(
        rating_type=rating_type,
        in_force=live.in_force,
        periods=live.periods,
        events=[LiveEventOut(**vars(ev)) for ev in live.events],
        page=page,
        per_page=per_page,
        total=len(live.entries),
        pages=query.pages(len(live.entries)),
        entries=[
            LiveEntryOut(
                rank=ranks[i],
                fide_id=e.fide_id,
                national_id=e.national_id,
                name=e.name,
                title=e.title,
                federation=e.federation,
                official=e.official,
                rating=e.rating,
                change=e.change,
                games=e.games,
            )
            for i, e in enumerate(live.entries[start : start + per_page], start)
        ],
    )
