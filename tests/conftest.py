"""Test databases: every database test runs on SQLite, and on PostgreSQL when RATINGDB_TEST_PG_URL is set.

Each test gets a new database built by the migrations (never create_all): a copy of a migrated SQLite
file, or a PostgreSQL database cloned from a migrated template. Tests drop what they create.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from ratingdb import db

PG_ENV = "RATINGDB_TEST_PG_URL"
ENGINES = ["sqlite", "postgresql"]


def pytest_report_header() -> str:
    if os.environ.get(PG_ENV):
        return f"PostgreSQL tests: on ({db.display_url(os.environ[PG_ENV])})"
    return f"PostgreSQL tests: skipped ({PG_ENV} is not set)"


def _pg_admin_engine() -> Engine:
    return create_engine(make_url(os.environ[PG_ENV]), isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.sqlite"
    engine = db.make_engine(f"sqlite:///{path}")
    db.upgrade(engine)
    engine.dispose()  # closing the last connection checkpoints the WAL into the file
    assert not path.with_name(path.name + "-wal").exists()
    return path


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    if not os.environ.get(PG_ENV):
        pytest.skip(f"PostgreSQL tests skipped: set {PG_ENV} to run them")
    name = f"ratingdb_tmpl_{uuid.uuid4().hex[:10]}"
    admin = _pg_admin_engine()
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(os.environ[PG_ENV]).set(database=name)
    engine = db.make_engine(url.render_as_string(hide_password=False))
    db.upgrade(engine)
    engine.dispose()
    yield name
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def new_database_url(engine_name: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of a new, migrated, empty database of the given engine; dropped afterwards."""
    if engine_name == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "test.sqlite"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    template_name: str = request.getfixturevalue("pg_template")
    name = f"ratingdb_test_{uuid.uuid4().hex[:10]}"
    admin = _pg_admin_engine()
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template_name}"'))
    yield make_url(os.environ[PG_ENV]).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=ENGINES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of a fresh migrated database, once per engine."""
    yield from new_database_url(request.param, request, tmp_path)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = db.make_engine(db_url)
    yield eng
    eng.dispose()
