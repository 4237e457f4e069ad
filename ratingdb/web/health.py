"""For the volunteer's supervisor: `/healthz` and, when allowed, `/metrics` (Prometheus's text format).

`/healthz` answers 200 `{"status": "ok", …}` when the process is up, the primary database answers, the
read-only side reads and the database is at this ratingdb's migration head; else 503 naming each failing
check with one sentence (never SQL or a URL). Always served: it tells nothing but that.

`/metrics` is served only when the site allows it (`serve --metrics`, RATINGDB_METRICS=1), else the
address does not exist (404): request counts and latency by route class, counted by a middleware that
touches no database (two dictionary look-ups and a clock per request), and the gauges read from the
database when scraped (ratingdb.services.supervision). No route code of the pages here.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Iterator
from typing import Final

from fastapi import APIRouter, FastAPI
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ratingdb import db
from ratingdb.errors import RatingDbError
from ratingdb.services.supervision import gauges
from ratingdb.services.versions import data_version_query
from ratingdb.web.database import Database

log = logging.getLogger("ratingdb.web")

API: Final = "/api/v1"
SUPERVISOR: Final = ("/healthz", "/metrics")
DESK: Final = ("/desk", "/login", "/logout", "/register")
ROUTE_CLASSES: Final = ("page", "api", "desk", "static", "supervisor")
# Seconds: a cached player page takes about a millisecond, a list page or a close on the desk seconds.
LATENCY_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
FAILED: Final = (SQLAlchemyError, OSError, RatingDbError)


def route_class(path: str) -> str:
    """The class of route a request's path falls in, for the metrics' `route` label."""
    if path.startswith("/static/"):
        return "static"
    if path == API or path.startswith(f"{API}/"):
        return "api"
    if path in SUPERVISOR:
        return "supervisor"
    if any(path == prefix or path.startswith(f"{prefix}/") for prefix in DESK):
        return "desk"
    return "page"


def health(database: Database, head: str | None) -> dict[str, str]:
    """Each check's outcome: "ok", or the sentence saying what failed."""
    checks = {"process": "ok"}
    try:
        db.refuse_missing_sqlite_file(database.url)  # never make an empty file by looking
        with database.live.connect() as connection:
            connection.execute(data_version_query())  # a table of ratingdb's, not just the server
        checks["database"] = "ok"
    except FAILED as exc:
        log.warning("health: the database does not answer: %s", exc)
        checks["database"] = "the database does not answer"
    try:
        with database.read() as session:
            session.execute(data_version_query()).one()
        checks["reader"] = "ok"
    except FAILED as exc:
        log.warning("health: the read-only side does not read: %s", exc)
        checks["reader"] = "the read-only side does not read"
    try:
        current = db.current_revision(database.plain)
        if current == head:
            checks["migrations"] = "ok"
        elif current is None:
            checks["migrations"] = f"the database has no migration, this ratingdb needs {head}"
        else:
            checks["migrations"] = f"the database is at migration {current}, this ratingdb needs {head}"
    except FAILED as exc:
        log.warning("health: the database's migration could not be read: %s", exc)
        checks["migrations"] = "the database's migration could not be read"
    return checks


class Metrics:
    """One app's metrics, in a registry of its own (several apps in one process do not mix)."""

    def __init__(self, database: Database) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "ratingdb_http_requests",
            "HTTP requests answered, by route class and status code.",
            ("route", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "ratingdb_http_request_duration_seconds",
            "Time from a request's arrival to the end of its answer, by route class.",
            ("route",),
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_DatabaseGauges(database))
        self._latency = {kind: self.latency.labels(kind) for kind in ROUTE_CLASSES}
        self._counted: dict[tuple[str, int], Counter] = {}

    def count(self, kind: str, status: int, seconds: float) -> None:
        counter = self._counted.get((kind, status))
        if counter is None:
            counter = self._counted.setdefault((kind, status), self.requests.labels(kind, str(status)))
        counter.inc()
        self._latency[kind].observe(seconds)


class _DatabaseGauges(Collector):
    """The gauges read from the database at each scrape (ratingdb.services.supervision)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def collect(self) -> Iterator[Metric]:
        with self.database.read() as session:
            found = gauges(session)
        yield GaugeMetricFamily(
            "ratingdb_submissions_waiting",
            "Submitted files waiting for an officer.",
            value=found.waiting_submissions,
        )
        notices = GaugeMetricFamily(
            "ratingdb_notices",
            "Email notices by status: waiting (to send or to try again), sent, failed for good.",
            labels=("status",),
        )
        for status, number in sorted(found.notices.items()):
            notices.add_metric((status,), number)
        yield notices
        closes = GaugeMetricFamily(
            "ratingdb_last_close_timestamp_seconds",
            "When the newest computed list of each rating type was written (Unix time).",
            labels=("rating_type",),
        )
        for kind, at in sorted(found.last_close.items()):
            closes.add_metric((kind,), at.replace(tzinfo=dt.UTC).timestamp())
        yield closes
        if found.database_bytes is not None:
            yield GaugeMetricFamily(
                "ratingdb_database_size_bytes",
                "The database's size as its server reports it.",
                value=found.database_bytes,
            )


class Measured:
    """ASGI middleware counting each HTTP request by route class and status, and timing it."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self.metrics.count(route_class(scope["path"]), status, time.perf_counter() - start)


def install(app: FastAPI, database: Database, *, metrics: bool) -> None:
    """`/healthz` on `app`, and `/metrics` with its middleware when `metrics` allows them."""
    router = APIRouter(include_in_schema=False)
    head = db.head_revision()

    @router.get("/healthz")
    def healthz() -> Response:
        checks = health(database, head)
        failing = [name for name, outcome in checks.items() if outcome != "ok"]
        if failing:
            return JSONResponse(
                {"status": "unhealthy", "failing": failing, "checks": checks},
                status_code=503,
                headers={"Cache-Control": "no-store"},
            )
        return JSONResponse({"status": "ok", "checks": checks}, headers={"Cache-Control": "no-store"})

    if metrics:
        measured = Metrics(database)

        @router.get("/metrics")
        def metrics_page() -> Response:
            return Response(
                generate_latest(measured.registry),
                media_type=CONTENT_TYPE_LATEST,
                headers={"Cache-Control": "no-store"},
            )

        app.add_middleware(Measured, metrics=measured)
    app.include_router(router)
