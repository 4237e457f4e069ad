"""The ASGI application: `create_app(settings)`, the pages, the JSON API, the error handling.

FastAPI (on Starlette) because the API's OpenAPI document comes from the same typed route signatures
and response models that validate the answers, so the document cannot drift from the code (and
schemathesis can test the one against the other); its dependency injection hands each route its
session the way cli/common.py hands a command its transaction. Starlette alone would need the schema
written by hand.

Errors: a RatingDbError is the user's sentence (`Error: …`), 404 for something that does not exist,
400 otherwise; anything else is a bug, logged with its traceback and answered with a generic page or
`{"error": "internal error"}` — no traceback, SQL or URL ever reaches a response.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.telemetry import TelemetryConfig
from starlette.exceptions import HTTPException as StarletteHTTPException

from ratingdb.errors import MissingList, RatingDbError, UnknownEvent, UnknownPlayer
from ratingdb.i18n import N_, Language
from ratingdb.services.notices import notice_settings
from ratingdb.site.publish import environment
from ratingdb.site.served import PageNotFound
from ratingdb.web import health
from ratingdb.web.database import Database
from ratingdb.web.deps import language
from ratingdb.web.security import Hardened
from ratingdb.web.sending import Sender
from ratingdb.web.state import AppState, WebSettings, settled

log = logging.getLogger("ratingdb.web")
GC_YOUNGEST: Final = 10_000  # allocations between two collections of the youngest objects (_lifespan)

API: Final = "/api/v1"
NOT_FOUND: Final = (UnknownPlayer, UnknownEvent, MissingList, PageNotFound)
STATUS_TEXT: Final = {
    400: N_("Bad request"),
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Method not allowed"),
    413: N_("Too large"),
    414: N_("Too long"),
    500: N_("Something went wrong"),
}
OTHER_STATUS: Final = N_("Error")


def create_app(settings: WebSettings | None = None) -> FastAPI:
    """The app for `settings` (by default from the environment: RATINGDB_URL, RATINGDB_READ_URL, …)."""
    from ratingdb.web import account_mail, api, desk, pages, second_factor

    settings = settings or WebSettings.from_environment()
    database = Database(settings.url, settings.read_url)
    if not settings.rating_types:
        # Every type the database defines, in the site's order: FIDE's three, then the stored rule sets'.
        from ratingdb.services.rules import rating_types

        with database.read() as session:
            settings = replace(settings, rating_types=tuple(rating_types(session)))
    state = AppState(settings, database)
    # Checked now, so that a wrong SMTP URL or a missing address is one line when `serve` starts.
    state.notices = notice_settings(
        settings.smtp_url, settings.mail_from, settings.public_url, settings.title
    )
    if state.notices is not None:
        state.sender = Sender(database, state.notices, settings.notices_every)
    app = FastAPI(
        lifespan=_lifespan,
        telemetry=_telemetry(),
        title="ratingdb API",
        version="1",
        description=api.DESCRIPTION,
        openapi_url=f"{API}/openapi.json",
        docs_url=None,  # the interactive pages load scripts from a CDN, which the CSP forbids
        redoc_url=None,
    )
    app.state.ratingdb = state
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    app.include_router(api.router, prefix=API)
    app.include_router(pages.router)
    # First: the page most visited is then found without trying the API's and the pages' routes (their
    # matching was a twentieth of its CPU: bench/RESULTS.md, issue 28); no other route takes its paths.
    app.router.routes[0:0] = pages.ROUTES
    app.include_router(desk.router)
    app.include_router(account_mail.router)  # the notices' and password resets' pages
    app.include_router(second_factor.router)
    app.add_exception_handler(desk.SignInRequired, desk.to_sign_in)
    app.add_exception_handler(desk.EnrolmentRequired, desk.to_enrolment)
    app.add_exception_handler(RatingDbError, _user_error)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _bug)
    desk.protect(app, settings)  # CSRF tokens on every form of the signed-in side
    app.add_middleware(
        Hardened,
        max_query_bytes=settings.max_query_bytes,
        max_body_bytes=settings.max_body_bytes,
        max_upload_bytes=settings.max_upload_bytes + 64 * 1024,  # the file and the form around it
        max_file_bytes=settings.max_upload_bytes,
    )
    health.install(app, database, metrics=settings.metrics)  # last: its middleware counts every request
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's OpenAPI document without the 422 answer it adds to every call taking parameters: a value
    FastAPI refuses is answered 400 with one sentence (`_invalid_request`), as each call's 400 says."""
    if app.openapi_schema is None:
        document = FastAPI.openapi(app)
        for operations in document.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        schemas = document.get("components", {}).get("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            schemas.pop(unused, None)
        app.openapi_schema = document
    return app.openapi_schema


def _telemetry() -> TelemetryConfig:
    """FastAPI's OpenTelemetry on when the environment configures OpenTelemetry (an OTEL_ variable, as
    `opentelemetry-instrument` and every exporter read), off otherwise: unconfigured, it only asked for
    the global providers at every request, 5 % of a player's JSON (bench/RESULTS.md, issue 28, "stack")."""
    configured = any(name.startswith("OTEL_") for name in os.environ)
    return {"tracing": configured, "metrics": configured, "logs": configured}


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # The routes' thread pool as large as the reader's pool of connections (engines/base.py says why).
    import anyio.to_thread

    from ratingdb.engines.base import THREADS

    anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS
    # The collector less often while the app serves (put back when it stops): at Python's default it
    # collected the youngest objects every 700 allocations, so during nearly every request of the fifty in
    # flight, whose rows and objects were then kept to the oldest generation, which it went through whole
    # (the served site's indexes: 90 ms each time) every second and a half — a seventh of a player page's
    # CPU and the slowest requests (bench/RESULTS.md, issue 28, "collector").
    collecting = gc.get_threshold()
    gc.set_threshold(GC_YOUNGEST, *collecting[1:])
    settled(None)  # what the app is made of set aside from the collector (state.settled says why)
    sender = app.state.ratingdb.sender
    if sender is not None:
        sender.start()
    try:
        yield
    finally:
        if sender is not None:
            sender.stop()
        gc.set_threshold(*collecting)
        gc.unfreeze()
    # A live list being made in the background (AppState.live) finishes before the engines are let go.
    await anyio.to_thread.run_sync(app.state.ratingdb.settle_live)
    database = app.state.ratingdb.database
    if database.in_greenlets:
        # The reader's asyncio connections are closed in the loop they were opened in (Database.dispose,
        # outside it, could only drop them).
        from sqlalchemy.util import greenlet_spawn

        await greenlet_spawn(database.reader.dispose)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith(f"{API}/") or request.url.path == API


Translatable = tuple[str, dict[str, object]]  # a catalogue message and its values


def error_response(
    request: Request, status: int, message: str, translatable: Translatable | None = None
) -> Response:
    """One sentence, as JSON under the API (always in English: see docs/guide/serving.md, "Errors") and
    as a page elsewhere, in the visitor's language when the sentence is a catalogue message
    (`translatable`); a sentence from the services (the CLI's own) stays as they wrote it."""
    if _is_api(request):
        return JSONResponse({"error": message}, status_code=status)
    code = language(request)
    lang = Language(code)
    if translatable is not None:
        text, values = translatable
        words = {k: lang.type_word(str(v)) if k == "type" else v for k, v in values.items()}
        message = lang.gettext(text) % words
    body = (
        environment(code)
        .get_template("error.html")
        .render(
            heading=lang.gettext(STATUS_TEXT.get(status, OTHER_STATUS)),
            message=lang.gettext("Error: %(message)s") % {"message": message},
        )
    )
    return HTMLResponse(
        body, status_code=status, headers={"content-language": code, "vary": "Accept-Language"}
    )


async def _user_error(request: Request, exc: Exception) -> Response:
    from ratingdb.services.submissions import NotAllowed, UnknownSubmission

    status = (
        404
        if isinstance(exc, (*NOT_FOUND, UnknownSubmission))
        else 403
        if isinstance(exc, NotAllowed)
        else 400
    )
    return error_response(request, status, str(exc), getattr(exc, "page_message", None))


async def _invalid_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("query", "path"))
    given = first.get("input")
    kind = str(first.get("type", ""))
    # The CLI's sentences for the values both take (cli/common.py: parse_date, parse_period).
    if kind.startswith("date_"):
        return _translated(
            request,
            400,
            N_("'%(given)s' is not a date: write it as YYYY-MM-DD, e.g. 2025-11-01"),
            given=given,
        )
    if kind == "string_pattern_mismatch" and where == "period":
        return _translated(
            request,
            400,
            N_("'%(given)s' is not a rating period: write it as YYYY-MM, for example 2025-10"),
            given=given,
        )
    if first.get("loc", ("",))[0] == "path" and not request.url.path.startswith(f"{API}/"):
        # A page's address that does not parse (/events/abc.html) names no page, as any other such address.
        return _translated(request, 404, NOTHING_AT, path=request.url.path)
    limits = first.get("ctx") or {}
    sentence = _VALIDATION_SENTENCES.get(kind if given != "" else "empty")
    if sentence is not None and where:
        limit = next((limits[k] for k in ("ge", "le", "max_length") if k in limits), "")
        return _translated(request, 400, sentence, name=where, given=given, limit=limit)
    what = first.get("msg", "is not valid")
    return error_response(request, 400, f"{where or 'the request'}: {what}")


NOTHING_AT: Final = N_("there is nothing at %(path)s — the home page links every page")
# What a query parameter's value that FastAPI refuses means, by pydantic's kind of error (its own English
# sentences name no remedy and are not in the catalogues): one sentence each, translated.
_VALIDATION_SENTENCES: Final = {
    "int_parsing": N_("%(name)s is '%(given)s', which is not a whole number — write digits only"),
    "greater_than_equal": N_("%(name)s is %(given)s, less than %(limit)s — write %(limit)s or more"),
    "less_than_equal": N_("%(name)s is %(given)s, more than %(limit)s — write %(limit)s or less"),
    "string_too_long": N_("%(name)s is longer than %(limit)s characters — shorten it"),
    # The only pattern but a period's (api.TEXT): no control characters
    "string_pattern_mismatch": N_("%(name)s holds a control character, which no %(name)s has — remove it"),
    "empty": N_("%(name)s is empty — give it a value"),
    "bool_parsing": N_(
        "%(name)s is '%(given)s', which is neither yes nor no — write %(name)s=1 or %(name)s=0"
    ),
}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    found: dict[int, Translatable] = {
        404: (NOTHING_AT, {"path": request.url.path}),
        405: (
            N_("%(method)s is not allowed here: the public site only reads (GET)"),
            {"method": request.method},
        ),
    }
    translatable = found.get(exc.status_code)
    message = str(exc.detail) if translatable is None else translatable[0] % translatable[1]
    response = error_response(request, exc.status_code, message, translatable)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _bug(request: Request, exc: Exception) -> Response:
    log.exception("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    message = N_("internal error: the site could not answer this request; the error is in the server's log")
    return error_response(request, 500, message, (message, {}))


def _translated(request: Request, status: int, message: str, **values: object) -> Response:
    return error_response(request, status, message % values, (message, values))
