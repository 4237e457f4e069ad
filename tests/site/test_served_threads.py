"""The served app under more visitors at once than it has threads and reader connections: every request is
answered, none waits for a connection (a public route holds its connection only while it holds its thread:
ratingdb.web.deps.ServedRoute)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import anyio.to_thread
import pytest

from ratingdb.engines import base, sqlite
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
    for module in (base, sqlite):
        monkeypatch.setattr(module, "READERS", 1)
        monkeypatch.setattr(module, "THREADS", 1)
    with client(demo_url) as c:
        reader = c.app.state.ratingdb.database.reader  # type: ignore[attr-defined]
        assert reader.pool.size() == 1
        assert c.portal is not None

        async def one_thread() -> None:
            anyio.to_thread.current_default_thread_limiter().total_tokens = 1

        c.portal.call(one_thread)
        with ThreadPoolExecutor(12) as visitors:
            answers = list(visitors.map(c.get, ADDRESSES * 6))
        assert reader.pool.checkedout() == 0
    statuses = [a.status_code for a in answers]
    assert statuses == [200, 200, 200, 200, 404] * 6, statuses

