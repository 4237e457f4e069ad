"""What route handlers are handed: the app's state, a read-only session, the site's index, errors.

A route asks for `Reader` (one read transaction on the read-only engine, rolled back at the end) and
`Served` (the site's index for the data the session sees), calls one page or report function and
returns its result — the way cli/common.py hands a command its transaction. Routes that will need a
signed-in officer (issue 29) add their own dependency beside these.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from ratingdb.i18n import negotiate
from ratingdb.reports.live import data_version
from ratingdb.site.publish import Site
from ratingdb.web.state import AppState


def app_state(request: Request) -> AppState:
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
    """The session, the data version it sees, the visitor's language and the served site's index for it."""

    def __init__(self, state: AppState, session: Session, language: str) -> None:
        self.state = state
        self.session = session
        self.version = data_version(session)
        self.language = language
        self.site: Site = state.site(session, self.version, language)


def served_view(state: State, session: Reader, request: Request) -> View:
    return View(state, session, language(request))


Served = Annotated[View, Depends(served_view)]
