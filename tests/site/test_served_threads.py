"""The served app under more visitors at once than it has threads and reader connections: every request is
answered, none waits for a connection (a public route holds its connection only while it holds its thread,
or on PostgreSQL its greenlet: ratingdb.web.deps.ServedRoute)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text
from sqlalchemy.util import await_, greenlet_spawn

from ratingdb import db
from ratingdb.engines import base, postgresql, sqlite
from ratingdb.web.deps import Served, ServedRoute
from ratingdb.web.state import held
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

        def backend(view: Served) -> dict[str, int]:  # a public route: the public routes' reader
            return {"pid": view.session.connection().connection.driver_connection.info.backend_pid}

        app.router.add_api_route("/backend", backend, route_class_override=ServedRoute)  # type: ignore[attr-defined]

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


def test_a_lock_held_across_a_wait_for_the_server_is_waited_for_in_the_event_loop() -> None:
    """PostgreSQL's public routes run in greenlets in one event loop (ratingdb.web.deps): a lock that one
    of them holds while it waits for the server (the site's index being made, the live list) is waited for
    by the others in the loop. Blocking the loop's thread instead would stop the holder too: for ever."""
    lock, order = threading.Lock(), []

    def first() -> None:
        with held(lock):
            order.append("first has it")
            await_(asyncio.sleep(0.05))  # as a query does: back to the loop until the answer comes
            order.append("first lets go")

    def second() -> None:
        with held(lock):
            order.append("second has it")

    async def both() -> None:
        await asyncio.gather(greenlet_spawn(first), greenlet_spawn(second))

    loop = threading.Thread(target=asyncio.run, args=(both(),), daemon=True)
    loop.start()
    loop.join(timeout=10)
    assert not loop.is_alive(), "the loop is stuck: a greenlet blocked its thread on the lock"
    assert order == ["first has it", "first lets go", "second has it"]
