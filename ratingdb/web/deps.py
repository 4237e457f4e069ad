"""What route handlers are handed: the app's state, a read-only session, the site's index, errors.

A route asks for `Served` (one read transaction on the read-only engine, rolled back at the end, and
the site's index for the data the session sees; `Reader` is the session alone), calls one page or report
function and returns its result — the way cli/common.py hands a command its transaction. Routes that
need a signed-in officer (issue 29) add their own dependency beside these.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from ratingdb.i18n import negotiate
from ratingdb.reports.live import data_version
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


class View:
    """The session, the data version it sees, the visitor's language and the served site's index for it.

    Each is made when the route first asks for it, in the route's own thread: the connection is taken
    while the route holds one of the thread pool's threads, so requests wait for a thread (in the event
    loop), never for a connection that a request waiting for a thread holds.
    """

    def __init__(self, state: AppState, language: str) -> None:
        self.state = state
        self.language = language
        self.reading = ExitStack()
        self._session: Session | None = None
        self._version: int | None = None
        self._site: Site | None = None

    @property
    def session(self) -> Session:
        if self._session is None:
            self._session = self.reading.enter_context(self.state.database.read())
        return self._session

    @property
    def version(self) -> int:
        if self._version is None:
            self._version = data_version(self.session)
        return self._version

    @property
    def site(self) -> Site:
        if self._site is None:
            self._site = self.state.site(self.session, self.version, self.language)
        return self._site


def served_view(request: Request) -> Iterator[View]:
    # One dependency for the view, which opens nothing until the route asks: FastAPI runs each plain
    # dependency in its thread pool, and a hop there per dependency cost more than a player's JSON itself
    # (bench/serve.py). The end of a generator dependency runs in a thread of its own, shielded from a
    # visitor who leaves: the rollback always happens and the connection always goes back.
    view = View(request.app.state.ratingdb, language(request))
    with view.reading:
        yield view


Served = Annotated[View, Depends(served_view)]
