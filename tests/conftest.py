"""Test databases: every database test runs on SQLite, on PostgreSQL when RATINGDB_TEST_PG_URL is set,
and on MySQL/MariaDB when RATINGDB_TEST_MYSQL_URL is set.

Each test gets a new database built by the migrations (never create_all): a copy of a migrated SQLite
file, a PostgreSQL database cloned from a migrated template, or on MySQL (which has no template
databases) a database into which the migrated template's tables, views and triggers are written again
by replaying their SHOW CREATE statements. Replaying takes a second or more per test on a loaded
machine, so a MySQL database a test is done with is emptied (TRUNCATE of the tables it wrote, which also
resets their AUTO_INCREMENT, and fires no trigger) and handed to the next test, if its schema is still
the template's; otherwise it is dropped. Tests drop what they create.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from hypothesis import settings
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from ratingdb import db
from ratingdb.services import users

# The tests connect to the servers as root and postgres, which every command would warn about (cli.common.
# warn_privileges): quiet here, and in the commands the tests start; tests/cli/test_accounts.py unsets it.
os.environ["RATINGDB_NO_PRIVILEGE_WARNING"] = "1"

PG_ENV = "RATINGDB_TEST_PG_URL"
MYSQL_ENV = "RATINGDB_TEST_MYSQL_URL"
ENGINES = ["sqlite", "postgresql", "mysql"]


# No time limit on a Hypothesis example: the default 200 ms deadline is a timed assertion, and on a loaded
# CI machine (two cores, parallel workers) an unchanged property failed on it. What an example computes is
# checked; how long it took is the benchmarks' business.
settings.register_profile("ratingdb", deadline=None)
settings.load_profile("ratingdb")


def pytest_report_header() -> list[str]:
    lines = []
    for name, env in (("PostgreSQL", PG_ENV), ("MySQL/MariaDB", MYSQL_ENV)):
        if os.environ.get(env):
            lines.append(f"{name} tests: on ({db.display_url(os.environ[env])})")
        else:
            lines.append(f"{name} tests: skipped ({env} is not set)")
    return lines


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


@dataclass(frozen=True)
class MySQLTemplate:
    """A migrated MySQL database and the statements that build a copy of it: tables, views, triggers."""

    name: str
    collation: str
    statements: list[str]
    schema: tuple[object, ...]  # what _mysql_schema_of says of the template
    free: list[str] = field(default_factory=list)  # emptied copies, ready for the next test


def _mysql_admin_engine() -> Engine:
    return db.make_engine(os.environ[MYSQL_ENV], isolation_level="AUTOCOMMIT", poolclass=NullPool)


def _mysql_url(name: str) -> str:
    return make_url(os.environ[MYSQL_ENV]).set(database=name).render_as_string(hide_password=False)


def _mysql_schema_statements(conn: Connection) -> list[str]:
    """SHOW CREATE of every table, view (each after the views it reads) and trigger of the database."""
    objects = conn.exec_driver_sql(
        "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = DATABASE() "
        "ORDER BY table_name"
    ).all()
    statements = [
        conn.exec_driver_sql(f'SHOW CREATE TABLE "{name}"').one()[1]
        for name, kind in objects
        if kind == "BASE TABLE"
    ]
    views = {
        name: conn.exec_driver_sql(f'SHOW CREATE VIEW "{name}"').one()[1]
        for name, kind in objects
        if kind == "VIEW"
    }
    while views:
        ready = [
            n for n, sql in views.items() if not any(f'"{other}"' in sql for other in views if other != n)
        ]
        statements += [views.pop(n) for n in ready]
    triggers = conn.exec_driver_sql(
        "SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = DATABASE() "
        "ORDER BY trigger_name"
    ).scalars()
    statements += [conn.exec_driver_sql(f'SHOW CREATE TRIGGER "{name}"').one()[2] for name in list(triggers)]
    return statements


def _mysql_schema_of(conn: Connection) -> tuple[object, ...]:
    """Counts of tables, views, columns and triggers, and the migration: a copy left as the template was."""
    row = conn.exec_driver_sql(
        "SELECT (SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()), "
        "(SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()), "
        "(SELECT COUNT(*) FROM information_schema.triggers WHERE trigger_schema = DATABASE()), "
        "(SELECT MAX(version_num) FROM alembic_version)"
    ).one()
    return tuple(row)


def _mysql_empty(conn: Connection, schema: tuple[object, ...]) -> bool:
    """Empty the tables a test wrote to; False (the database is then dropped) if its schema changed."""
    if _mysql_schema_of(conn) != schema:
        return False
    tables = conn.exec_driver_sql(
        "SELECT table_name, COALESCE(auto_increment, 1) FROM information_schema.tables "
        "WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' AND table_name <> 'alembic_version' "
        "ORDER BY table_name"
    ).all()
    has_rows = conn.exec_driver_sql(
        "SELECT " + ", ".join(f'EXISTS (SELECT 1 FROM "{name}")' for name, _ in tables)
    ).one()
    conn.exec_driver_sql("SET SESSION foreign_key_checks = 0, lock_wait_timeout = 10")
    for (name, next_id), rows in zip(tables, has_rows, strict=True):
        if rows or next_id > 1:
            conn.exec_driver_sql(f'TRUNCATE TABLE "{name}"')
    return True


@pytest.fixture(scope="session")
def mysql_template() -> Iterator[MySQLTemplate]:
    if not os.environ.get(MYSQL_ENV):
        pytest.skip(f"MySQL tests skipped: set {MYSQL_ENV} to run them")
    name = f"ratingdb_tmpl_{uuid.uuid4().hex[:10]}"
    admin = _mysql_admin_engine()
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        engine = db.make_engine(_mysql_url(name), poolclass=NullPool)
        db.upgrade(engine)
        with engine.connect() as conn:
            collation = conn.exec_driver_sql(
                "SELECT default_collation_name FROM information_schema.schemata "
                "WHERE schema_name = DATABASE()"
            ).scalar_one()
            statements = _mysql_schema_statements(conn)
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one()
            schema = _mysql_schema_of(conn)
        statements.append(f"INSERT INTO alembic_version (version_num) VALUES ('{version}')")
        engine.dispose()
        template = MySQLTemplate(name, collation, statements, schema)
        yield template
    finally:
        with admin.connect() as conn:
            for database in [name, *template.free]:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{database}"')
        admin.dispose()


def new_mysql_database(template: MySQLTemplate) -> Iterator[str]:
    """An empty MySQL database as the template's migrations left it: an emptied one a test is done with, or
    a new one built by the template's statements. Emptied for the next test afterwards, or dropped."""
    name = template.free.pop() if template.free else _build_mysql_database(template)
    reusable = False
    try:
        yield _mysql_url(name)
        engine = db.make_engine(_mysql_url(name), poolclass=NullPool)
        try:
            with engine.connect() as conn:
                reusable = _mysql_empty(conn, template.schema)
        finally:
            engine.dispose()
    finally:
        if reusable:
            template.free.append(name)
        else:
            admin = _mysql_admin_engine()
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
            admin.dispose()


def _build_mysql_database(template: MySQLTemplate) -> str:
    name = f"ratingdb_test_{uuid.uuid4().hex[:10]}"
    admin = _mysql_admin_engine()
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}" CHARACTER SET utf8mb4 COLLATE {template.collation}')
    admin.dispose()
    builder = db.make_engine(_mysql_url(name), poolclass=NullPool)
    try:
        with builder.begin() as conn:
            conn.exec_driver_sql("SET SESSION foreign_key_checks = 0")  # tables in any order
            conn.exec_driver_sql("SET @ratingdb_migrating = 1")  # alembic_version's guard lets it in
            for statement in template.statements:
                conn.exec_driver_sql(statement)
    finally:
        builder.dispose()
    return name


def new_database_url(engine_name: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of a new, migrated, empty database of the given engine; dropped afterwards."""
    if engine_name == "mysql":
        yield from new_mysql_database(request.getfixturevalue("mysql_template"))
        return
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


# argon2id as the site hashes passwords (RFC 9106's low-memory profile: 64 MiB, three passes) took 0.1–0.4 s
# a hash or a check here, and the desk's tests make and sign in hundreds of accounts: in the tests' own
# process the hasher is argon2id at its smallest cost (the same code paths, hashes and checks; what the
# production parameters are is held by tests/unit/test_password_hashing.py). Servers a test starts in a
# process of their own hash at the real cost.
_CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(users, "_hasher", lambda: _CHEAP_HASHER)
