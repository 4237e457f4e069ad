"""The served site's pages, at the addresses of the static site: one page function call each.

`ratingdb publish` writes index.html, lists/…, players/…, events/…, periods/…; the app answers the
same paths with the same page functions and templates (ratingdb.site.publish, ratingdb.site.served),
plus /search and /live/… which need a server. Every handler: the session, one call, the response.
"""

from __future__ import annotations

from importlib import resources
from typing import Annotated, Final

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BeforeValidator, Field
from starlette.routing import Route

from ratingdb.i18n import N_
from ratingdb.reports.list_query import PER_PAGE, ListQuery
from ratingdb.reports.lists import ExportFormat
from ratingdb.reports.live import LiveList
from ratingdb.site import served
from ratingdb.site.publish import STATIC_FILES, list_download
from ratingdb.web.deps import Served, ServedRoute, answered_in_one_thread, served_view

router = APIRouter(include_in_schema=False, route_class=ServedRoute)

HTML: Final = "text/html; charset=utf-8"
# Pages change with the data (a close, an import): browsers revalidate after a minute.
PAGE_CACHE: Final = {"cache-control": "public, max-age=60"}
# A list version's downloads never change once published.
IMMUTABLE: Final = {"cache-control": "public, max-age=31536000, immutable"}


# A bound of the list pages' rating filter. The filter form sends the field it shows even when it is left
# empty (`rating_min=`): empty is no bound, as leaving the parameter out is.
RatingBound = Annotated[
    Annotated[int, Field(ge=0, le=4000)] | None,
    BeforeValidator(lambda value: None if value == "" else value),
    Query(),
]


def page(view: Served, body: bytes) -> HTMLResponse:
    # Each page is in the visitor's language (Accept-Language): a cache keeps one copy per language.
    return HTMLResponse(
        body, headers={**PAGE_CACHE, "content-language": view.language, "vary": "Accept-Language"}
    )


@router.get("/")
@router.get("/index.html")
def home(view: Served) -> HTMLResponse:
    return page(
        view,
        view.state.cached(
            (view.version, view.language, "home"), lambda: served.home(view.session, view.site)
        ),
    )


@router.get("/lists/{name}.html")
def list_page(
    view: Served,
    name: str,
    page_number: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=1000)] = PER_PAGE,
    sort: Annotated[str, Query(max_length=20)] = "rank",
    descending: bool = False,
    player_name: Annotated[str, Query(alias="name", max_length=100)] = "",
    federation: Annotated[str, Query(max_length=3)] = "",
    group: Annotated[str, Query(max_length=10)] = "",
    active: bool = False,
    rating_min: RatingBound = None,
    rating_max: RatingBound = None,
    club: Annotated[str, Query(max_length=10)] = "",
) -> HTMLResponse:
    query = ListQuery(
        page_number,
        per_page,
        sort,
        descending,
        player_name,
        federation,
        group,
        active,
        rating_min,
        rating_max,
        club,
    )
    return page(
        view,
        view.state.cached(
            (view.version, view.language, "list", name, query),
            lambda: served.list_view(
                view.site,
                name,
                lambda list_id: view.state.ranked(view.session, list_id),
                query,
                lambda list_id: view.state.list_shown(view.session, list_id),
            ),
        ),
    )


@router.get("/lists/{name}.csv")
def list_csv(view: Served, name: str) -> Response:
    return _download(view, name, "csv", "text/csv; charset=utf-8")


@router.get("/lists/{name}.txt")
def list_txt(view: Served, name: str) -> Response:
    return _download(view, name, "txt", "text/plain; charset=utf-8")


@router.get("/lists/{name}.zip")
def list_bundle(view: Served, name: str) -> Response:
    # A version's bundle changes once, when a reopen withdraws it (its manifest says so): not immutable.
    body = view.state.cached(
        (view.version, "bundle", name), lambda: served.bundle_view(view.session, view.site, name)
    )
    return Response(body, media_type="application/zip", headers=PAGE_CACHE)


@router.get("/.well-known/ratingdb-bundle-key.json")
def bundle_key(view: Served) -> Response:
    """The federation's public key for list bundles (`ratingdb verify --site URL` reads it here)."""
    return Response(served.public_key_file(view.site), media_type="application/json", headers=PAGE_CACHE)


def _download(view: Served, name: str, suffix: str, media_type: str) -> Response:
    lst = served.offered_download(
        view.site, name, suffix, lambda list_id: view.state.list_shown(view.session, list_id)
    )
    fmt: ExportFormat = "csv" if suffix == "csv" else "fide-txt"
    body = view.state.cached(
        ("download", lst.list_id, fmt),
        lambda: list_download(
            lst,
            view.state.list_lines(view.session, lst.list_id),
            fmt,
            view.state.list_shown(view.session, lst.list_id),
        ),
    )
    return Response(body, media_type=media_type, headers=IMMUTABLE)


def player_page(view: Served, key: str) -> HTMLResponse | RedirectResponse:
    """GET /players/{key}.html (the route is `player_route`)."""
    moved = served.moved_player(view.site, key)
    if moved is not None:
        # The static site leaves a page at the old address (moved.html) that says the same.
        return RedirectResponse(moved, status_code=301)

    def lives() -> list[LiveList]:
        return [view.state.live(t, view.version) for t in view.site.newest]

    return page(
        view,
        view.state.cached(
            (view.version, view.language, "player", key),
            lambda: served.player_view(
                view, view.site, key, lives, lambda: view.state.histories(lambda: view.session, view.site)
            ),
        ),
    )


_player_page = answered_in_one_thread(player_page)


async def player_route(request: Request) -> Response:
    """The player page's route: a plain Starlette route rather than one of the router's. The page most
    visited takes one path parameter and no query, and FastAPI's dependency solving and parameter
    validation were a fifth of its CPU on PostgreSQL (bench/RESULTS.md, issue 28, "one statement"); the
    view is the one `Served` gives, the page answered as every public route's (answered_in_one_thread)."""
    return await _player_page(view=await served_view(request), key=request.path_params["key"])


ROUTES: Final = [Route("/players/{key}.html", player_route, methods=["GET"])]  # app.py mounts them


@router.get("/events/{event_id}.html")
def event_page(view: Served, event_id: int) -> HTMLResponse:
    return page(
        view,
        view.state.cached(
            (view.version, view.language, "event", event_id),
            lambda: served.event_view(view.session, view.site, event_id),
        ),
    )


@router.get("/periods/{name}.html")
def period_page(view: Served, name: str) -> HTMLResponse:
    return page(
        view,
        view.state.cached(
            (view.version, view.language, "period", name),
            lambda: served.period_view(view.session, view.site, name),
        ),
    )


@router.get("/systems.html")
def systems_page(view: Served) -> HTMLResponse:
    return page(
        view,
        view.state.cached(
            (view.version, view.language, "systems"),
            lambda: served.systems_view(view.session, view.site),
        ),
    )


@router.get("/search")
def search(view: Served, q: Annotated[str, Query(max_length=100)] = "") -> HTMLResponse:
    # Kept per data version as every page is: the names visitors look for repeat (a strong player, a
    # common surname), and a search that fills the candidates (a word thousands share) costs the most.
    return page(
        view,
        view.state.cached(
            (view.version, view.language, "search", q.strip()),
            lambda: served.search_view(view.session, view.site, q),
        ),
    )


@router.get("/live/")
def live_folder() -> RedirectResponse:
    return RedirectResponse("/live/index.html", status_code=308)


@router.get("/live/index.html")
def live_index(view: Served) -> HTMLResponse:
    return page(
        view, served.live_index(view.site, [view.state.live(t, view.version) for t in view.site.newest])
    )


@router.get("/live/{rating_type}.html")
def live_page(
    view: Served,
    rating_type: str,
    page_number: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=1000)] = PER_PAGE,
    player_name: Annotated[str, Query(alias="name", max_length=100)] = "",
) -> HTMLResponse:
    if rating_type not in view.site.newest:
        raise served.not_found(
            served.PageNotFound,
            N_("this site has no %(type)s list: the home page links every list"),
            type=rating_type,
        )
    query = ListQuery(page=page_number, per_page=per_page, name=player_name)
    return page(view, served.live_view(view.site, view.state.live(rating_type, view.version), query))


@router.get("/static/{name}")
def static(name: str) -> Response:
    if name not in STATIC_FILES:
        raise served.not_found(served.PageNotFound, N_("there is no file static/%(name)s"), name=name)
    kind = "text/css" if name.endswith(".css") else "text/javascript"
    body = resources.files("ratingdb.site").joinpath("static", name).read_bytes()
    return Response(
        body, media_type=f"{kind}; charset=utf-8", headers={"cache-control": "public, max-age=3600"}
    )
