"""What route handlers are handed: the app's state, a read-only session, the site's index, errors.

A route asks for `Served` (one read transaction on the read-only engine, rolled back at the end, and
the site's index for the data the session sees; `Reader` is the session alone), calls one page or report
function and returns its result — the way cli/common.py hands a command its transaction. Routes that
need a signed-in officer (issue 29) add their own dependency beside these.

The public routers are made with `ServedRoute`: each request of theirs runs where its reader engine says
(ratingdb.engines: `reader_in_greenlets`, `reader_in_event_loop`, else `reader_threads`) — in a greenlet
in the event loop (PostgreSQL), in the loop itself (SQLite) or in one hop to the public threads (MySQL) —
and there the route runs, its answer is serialised and its read transaction ends (bench/RESULTS.md,
issue 28, "stack").
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, Request
from fastapi.responses import Response
from fastapi.routing import APIRoute
from pydantic import BaseModel
from sqlalchemy import Select
from sqlalchemy.orm import Session
from sqlalchemy.util import greenlet_spawn

from ratingdb.i18n import negotiate
from ratingdb.site.publish import Site
from ratingdb.web.state import AppState


async def app_state(request: Request) -> AppState:
    # async: FastAPI runs a plain function dependency in its thread pool, a hop that costs more than this
    state: AppState = request.app.state.ratingdb
    return state


State = Annotated[AppState, Depends(app_state)]


def read_session(state: State) -> Iterator[Session]:
    with state.database.read() as session:
        yield session


Reader = Annotated[Session, Depends(read_session)]


def language(request: Request) -> str:
    """The visitor's language: the shipped one their browser prefers (Accept-Language), else the site's."""
    state: AppState = request.app.state.ratingdb
    return negotiate(request.headers.get("accept-language"), state.settings.language)


class VersionMoved(Exception):
    """A read saw another data version than the one the request's answer is being made for (its guess):
    the request starts over (answered_in_one_thread)."""


class View:
    """The session, the data version it sees, the visitor's language and the served site's index for it.

    Each is made when the route first asks for it, in the route's own thread (or greenlet), and the session
    ends there when the route has answered (ServedRoute): a connection is held only while a thread of the
    pool is, so requests wait for a thread (in the event loop), never for a connection that a request
    waiting for a thread holds. (A request that held its connection while it waited for a second thread —
    FastAPI's for the response model, or a generator dependency's end — could wait for ever on a pool of
    fewer threads than clients: all threads waiting for connections, all connections waiting for threads.)
    In greenlets a request waits for a connection in the loop, in which the requests holding one go on.

    The data version: a request that asks for the site or the version before the session takes the one
    the latest request read (AppState.seen_version) as a guess, so that a page needing one statement (most
    player pages: `one`) or none (a page in the cache) sends no transaction; every read checks the guess
    — the transaction's beginning, `one`'s row, or at the end of a request that read nothing, the version
    itself (`checked`) — and on another version the request starts over (`start_over`), the version then
    read with the transaction. A page is therefore always made from, and cached for, the version it says.
    """

    def __init__(self, state: AppState, language: str) -> None:
        self.state = state
        self.language = language
        self.reading = ExitStack()
        self._session: Session | None = None
        self._version: int | None = None
        self._site: Site | None = None
        self._checked = False  # the version was read in this request, not only guessed
        self._together = False  # the version is the transaction's (a request started over)

    @property
    def session(self) -> Session:
        if self._session is None:
            session, version = self.reading.enter_context(self.state.database.snapshot())
            self._session = session
            self._check(version)
        return self._session

    @property
    def version(self) -> int:
        """The data version the answer is made for (see the class)."""
        if self._version is None:
            guess = None if self._together else self.state.seen_version
            if guess is None:
                self.session  # noqa: B018  the transaction's beginning reads it
            else:
                self._version = guess
        assert self._version is not None
        return self._version

    @property
    def site(self) -> Site:
        if self._site is None:
            self._site = self.state.site_of(lambda: self.session, self.version, self.language)
        return self._site

    def one(self, query: Select[Any], params: Mapping[str, Any]) -> Any:
        """The one row of `query`, whose first column is the data version: one statement alone on the
        reader (in the transaction, once there is one), checked against the version."""
        row: Any
        if self._session is not None or self._together:
            row = self.session.execute(query, params).one()
        else:
            row = self.state.database.row(query, params)
        self._check(row[0])
        return row

    def checked(self) -> None:
        """The end of an answer made for a guessed version that nothing has read: the version read now."""
        if self._version is not None and not self._checked:
            self._check(self.state.database.version())

    def start_over(self) -> None:
        """Forget what was read (the transaction ends); from now on the version is the transaction's."""
        self.reading.close()
        self.reading = ExitStack()
        self._session = self._version = self._site = None
        self._checked, self._together = False, True

    def _check(self, version: int) -> None:
        self.state.seen_version = version
        if self._version is None:
            self._version = version
        elif version != self._version:
            raise VersionMoved
        self._checked = True


async def served_view(request: Request) -> View:
    # async, and not a generator: FastAPI runs a plain dependency in its thread pool and a generator's
    # start and end in a thread each, hops that cost more than a player's JSON itself (bench/serve.py).
    # The view opens nothing until the route asks, and ServedRoute ends it in the route's thread.
    return View(request.app.state.ratingdb, language(request))


Served = Annotated[View, Depends(served_view)]


def answered_in_one_thread(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """`endpoint` (a plain function taking a `Served` view), run in one of the public routes' threads
    (AppState.public_threads: the reader engine's `reader_threads`, not the signed-in side's pool), in a
    greenlet in the event loop for an engine whose reader is SQLAlchemy's asyncio one
    (`reader_in_greenlets`: PostgreSQL) or, for an engine that never waits for a server
    (`reader_in_event_loop`: SQLite), in the event loop itself, made to serialise its answer and end the
    view's read transaction where it ran. (A lock that the route holds across a query is taken with
    ratingdb.web.state.held, which waits in the loop.)

    A response model is written as FastAPI writes it (pydantic's JSON of the model, `application/json`),
    but here rather than after another hop to the thread pool; the routes build their models from the
    report's values, so pydantic has validated them already. The end of the view is in a `finally`: the
    rollback always happens and the connection always goes back, whatever the route raised.
    """
    if getattr(endpoint, "answered_in_one_thread", False) or inspect.iscoroutinefunction(endpoint):
        return endpoint

    def answered(views: list[View], kwargs: dict[str, Any]) -> Any:
        """The endpoint's answer, checked against the data version (View): an error too, a "not found"
        from a guessed version being no answer for the one the database is at."""
        try:
            found = endpoint(**kwargs)
        except VersionMoved:
            raise
        except Exception:
            for view in views:
                view.checked()  # VersionMoved instead, if it moved
            raise
        for view in views:
            view.checked()
        return found

    def answer(kwargs: dict[str, Any]) -> Any:
        views = [value for value in kwargs.values() if isinstance(value, View)]
        try:
            try:
                found = answered(views, kwargs)
            except VersionMoved:
                for view in views:
                    view.start_over()
                found = answered(views, kwargs)  # the version read with the transaction: it cannot move
            if isinstance(found, BaseModel):
                return Response(found.__pydantic_serializer__.to_json(found), media_type="application/json")
            return found
        finally:
            for view in views:
                view.reading.close()

    @functools.wraps(endpoint)
    async def in_a_public_thread(**kwargs: Any) -> Any:
        views = [value for value in kwargs.values() if isinstance(value, View)]
        if views and views[0].state.database.in_greenlets:
            # PostgreSQL: in a greenlet in the event loop; each wait for the server goes back to the loop
            return await greenlet_spawn(answer, kwargs)
        if views and views[0].state.database.reader_backend.reader_in_event_loop:
            return answer(kwargs)  # SQLite: in the event loop, one request at a time
        limiter = views[0].state.public_threads() if views else None
        return await anyio.to_thread.run_sync(answer, kwargs, limiter=limiter)

    in_a_public_thread.answered_in_one_thread = True  # type: ignore[attr-defined]
    return in_a_public_thread


class ServedRoute(APIRoute):
    """A public route: its endpoint answered in one thread (answered_in_one_thread)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, answered_in_one_thread(endpoint), **kwargs)
