"""`/healthz` and `/metrics` for the volunteer's supervisor (issue 52), on every engine: healthy on a
current database, 503 naming the check when the database is gone or behind the migrations' head;
`/metrics` absent unless allowed, parsed by Prometheus's own parser, its counter moving with requests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from ratingdb import db
from ratingdb.schema.models import RatingList
from ratingdb.web.state import WebSettings
from tests.conftest import _mysql_admin_engine, _pg_admin_engine
from tests.site.web import client


def metrics_of(body: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """Every sample of a Prometheus text page, by name and labels, as Prometheus's own parser reads it."""
    found: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(body):
        for sample in family.samples:
            found.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def test_health_is_ok_on_a_current_database(db_url: str) -> None:
    with client(db_url) as c:
        response = c.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"process": "ok", "database": "ok", "reader": "ok", "migrations": "ok"},
    }
    assert response.headers["cache-control"] == "no-store"


def test_health_fails_on_a_database_behind_the_head(db_url: str) -> None:
    head = db.head_revision()
    assert head is not None
    previous = ScriptDirectory.from_config(db.alembic_config()).get_revision(head).down_revision
    assert isinstance(previous, str)
    with client(db_url) as c:  # the app starts only on a current database: it falls behind while served
        assert c.get("/healthz").status_code == 200
        engine = db.make_engine(db_url, poolclass=NullPool)
        try:
            db.downgrade(engine, previous)
            response = c.get("/healthz")
            assert response.status_code == 503
            body = response.json()
            assert body["status"] == "unhealthy"
            assert body["failing"] == ["migrations"]
            assert (
                body["checks"]["migrations"]
                == f"the database is at migration {previous}, this ratingdb needs {head}"
            )
            db.upgrade(engine)
            assert c.get("/healthz").status_code == 200
        finally:
            engine.dispose()


def test_health_fails_when_the_database_is_gone(db_url: str) -> None:
    parsed = make_url(db_url)
    with client(db_url) as c:
        assert c.get("/healthz").status_code == 200
        if parsed.get_backend_name() == "sqlite":
            assert parsed.database is not None
            Path(parsed.database).unlink()
        elif parsed.get_backend_name() == "postgresql":
            # Connections refused from now on, and the app's own ones ended by the server.
            admin = _pg_admin_engine()
            with admin.connect() as conn:
                conn.execute(text(f'ALTER DATABASE "{parsed.database}" ALLOW_CONNECTIONS false'))
                conn.execute(
                    text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name"),
                    {"name": parsed.database},
                )
            admin.dispose()
        else:
            admin = _mysql_admin_engine()
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE "{parsed.database}"')
            admin.dispose()
        try:
            response = c.get("/healthz")
        finally:
            if parsed.get_backend_name() == "mysql":
                # A near-empty one in its place (the fixture reads its migration table), which the fixture
                # finds unlike the template's and drops.
                admin = _mysql_admin_engine()
                with admin.connect() as conn:
                    conn.exec_driver_sql(f'CREATE DATABASE "{parsed.database}"')
                    conn.exec_driver_sql(
                        f'CREATE TABLE "{parsed.database}".alembic_version (version_num VARCHAR(32) NOT NULL)'
                    )
                admin.dispose()
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unhealthy"
    assert "database" in body["failing"]
    assert body["checks"]["database"] == "the database does not answer"
    assert body["checks"]["process"] == "ok"
    assert "Traceback" not in response.text and "sqlalchemy" not in response.text.lower()


def test_metrics_are_not_served_unless_allowed(db_url: str) -> None:
    with client(db_url) as c:
        assert c.get("/metrics").status_code == 404


def test_metrics_parse_and_count_requests(demo_url: str) -> None:
    with client(demo_url, metrics=True) as c:
        first = metrics_of(c.get("/metrics").text)
        for _ in range(3):
            assert c.get("/").status_code == 200
        assert c.get("/api/v1/lists").status_code in (200, 404)
        assert c.get("/static/site.css").status_code == 200
        second = metrics_of(c.get("/metrics").text)
        with db.transaction(db.make_engine(demo_url, poolclass=NullPool), dry_run=True) as session:
            closes = dict(
                session.query(RatingList.rating_type, RatingList.created_at)
                .filter(RatingList.origin == "computed", RatingList.is_current.is_(True))
                .order_by(RatingList.created_at)
                .all()
            )
    counted = second["ratingdb_http_requests_total"]
    before = first.get("ratingdb_http_requests_total", {})
    page = (("route", "page"), ("status", "200"))
    assert counted[page] - before.get(page, 0) == 3
    assert (
        counted[(("route", "static"), ("status", "200"))]
        - before.get((("route", "static"), ("status", "200")), 0)
        == 1
    )
    assert sum(v for k, v in counted.items() if ("route", "api") in k) >= 1
    # The first scrape itself was counted once it was answered: the supervisor's class.
    assert counted[(("route", "supervisor"), ("status", "200"))] >= 1
    latency = second["ratingdb_http_request_duration_seconds_count"]
    assert latency[(("route", "page"),)] >= 3
    assert second["ratingdb_submissions_waiting"][()] == 0  # the demo leaves no file waiting
    # The demo's accounts have no email address: no notice was ever queued.
    assert second["ratingdb_notices"] == {(("status", s),): 0 for s in ("failed", "sent", "waiting")}
    # The last close of each type: the newest computed list's time, as the database holds it (UTC).
    assert closes, "the demo closes periods"
    shown = second["ratingdb_last_close_timestamp_seconds"]
    for kind, at in closes.items():
        assert shown[(("rating_type", kind),)] == at.replace(tzinfo=dt.UTC).timestamp()
    assert second["ratingdb_database_size_bytes"][()] > 0


def test_metrics_are_allowed_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # `uvicorn ratingdb.web:app` and each of `serve --workers N`'s workers read the setting from here.
    monkeypatch.delenv("RATINGDB_METRICS", raising=False)
    assert WebSettings.from_environment().metrics is False
    monkeypatch.setenv("RATINGDB_METRICS", "1")
    assert WebSettings.from_environment().metrics is True
