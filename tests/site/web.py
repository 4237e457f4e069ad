"""Helpers of the served-site tests: the app on a database, an in-process client, page normalising."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlalchemy.util import greenlet_spawn

from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings

T = TypeVar("T")

SERVED_ONLY = re.compile(rb"<!--served-->.*?<!--/served-->\n?", re.S)
STATIC_ONLY = re.compile(rb"<!--static-->.*?<!--/static-->\n?", re.S)
SCRIPT = re.compile(rb'<script src="[./]*static/site\.js" defer></script>\n')


@contextmanager
def client(url: str, **settings: object) -> Iterator[TestClient]:
    """The app on `url`, with a client that answers a server error with its 500 (no exception)."""
    app = create_app(WebSettings(url=url, **settings))  # type: ignore[arg-type]
    try:
        with TestClient(app, raise_server_exceptions=False) as c:
            yield c
    finally:
        app.state.ratingdb.database.dispose()


def on_public_engine(c: TestClient, read: Callable[[Engine], T]) -> T:
    """`read(engine)` on the engine the public routes read from, where they use it: in a greenlet in the
    app's event loop (PostgreSQL's asyncio reader only works there; the others work anywhere)."""
    assert c.portal is not None
    engine = c.app.state.ratingdb.database.reader  # type: ignore[attr-defined]
    return c.portal.call(greenlet_spawn, read, engine)  # type: ignore[no-any-return]


def without_marked_parts(page: bytes) -> bytes:
    """A page without the parts only the served site or only the static site has (marked in the
    templates), nor the static list page's filter script."""
    return SCRIPT.sub(b"", STATIC_ONLY.sub(b"", SERVED_ONLY.sub(b"", page)))


def page_gone(exc: Exception) -> bool:
    """Whether a browser's error says the element read was on a page being replaced: Selenium's stale
    element, or Chromium's own form of it ("does not belong to the document"), which Selenium raises as a
    plain WebDriverException (a failed CI run, 5 December 2026)."""
    from selenium.common.exceptions import StaleElementReferenceException

    return isinstance(exc, StaleElementReferenceException) or "does not belong to the document" in str(exc)


def shown_text(read: Callable[[], str]) -> str:
    """`read()` — an element's text in the browser — or "" while its page is being replaced."""
    from selenium.common.exceptions import NoSuchElementException, WebDriverException

    try:
        return read()
    except NoSuchElementException:
        return ""
    except WebDriverException as exc:
        if not page_gone(exc):
            raise
        return ""
