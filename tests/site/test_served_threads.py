"""The served app under more visitors at once than it has threads and reader connections: every request is
answered, none waits for a connection (a public route holds its connection only while it holds its thread:
ratingdb.web.deps.ServedRoute)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text

from ratingdb import db
from ratingdb.engines import base, postgresql, sqlite
from ratingdb.web.deps import Reader
from tests.site.test_publish import DOYLE, DOYLE_PAGE
from tests.site.web import client

# The JSON answers (a response model), a page, and an answer that raises (404): each kind of route.
ADDRESSES = (
    f"/api/v1/players/{DOYLE}",
    f"/api/v1/players/{DOYLE}/history",
    f"/{DOYLE_PAGE}",
    "/api/v1/lists",
    "/api/v1/players/999999999",
)


def test_more_visitors_than_threads_and_connections_are_all_answered(
    demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One thread and one reader connection, twelve visitors at once. A request that kept its connection
    while it waited for a second thread (FastAPI's for a response model, or a generator dependency's end)
    would wait for ever behind a request holding the thread and waiting for the connection — until the
    pool's timeout turned it into a 500."""
    for backend in (base.Backend, sqlite.SQLite, postgresql.PostgreSQL):  # MySQL's is Backend's
        monkeypatch.setattr(backend, "reader_threads", 1)
    with client(demo_url) as c:
        state = c.app.state.ratingdb  # type: ignore[attr-defined]
        reader = state.database.reader
        assert reader.pool.size() == 1
        assert c.portal is not None

        async def public_threads() -> float:
            return state.public_threads().total_tokens  # type: ignore[no-any-return]

        assert c.portal.call(public_threads) == 1
        with ThreadPoolExecutor(12) as visitors:
            answers = list(visitors.map(c.get, ADDRESSES * 6))
        assert reader.pool.checkedout() == 0
    statuses = [a.status_code for a in answers]
    assert statuses == [200, 200, 200, 200, 404] * 6, statuses


def test_a_reader_connection_the_server_closed_costs_no_request(demo_url: str) -> None:
    """The PostgreSQL reader pings no connection at check-out (a round trip per request): its transaction's
    first statement finds a connection the server closed — here its backend terminated, as a restart or a
    standby coming back would — and the request is read on a new connection, answered as if nothing
    happened."""
    if not demo_url.startswith("postgresql"):
        pytest.skip("the reader's own disconnect handling is PostgreSQL's (the others ping)")
    with client(demo_url) as c:
        app = c.app

        @app.get("/backend")  # type: ignore[attr-defined]
        def backend(session: Reader) -> dict[str, int]:
            return {"pid": session.connection().connection.driver_connection.info.backend_pid}

        first = c.get("/backend").json()["pid"]
        assert c.get("/backend").json()["pid"] == first  # one pooled connection, used again
        before = c.get(f"/api/v1/players/{DOYLE}")
        engine = db.make_engine(demo_url)
        try:
            with engine.connect() as conn:
                assert conn.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": first}) is True
        finally:
            engine.dispose()
        after = c.get(f"/api/v1/players/{DOYLE}")
        assert (after.status_code, after.content) == (200, before.content)
        assert c.get("/backend").json()["pid"] != first
