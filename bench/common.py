"""Plumbing the benchmarks share: a throwaway database per run, memory readings, progress on stderr.

Imports SQLAlchemy and ratingdb.db only; the benchmarks import it, ratingdb never does.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text
from sqlalchemy.engine import make_url

from ratingdb import db

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
DEFAULT_MYSQL_URL = "mysql+pymysql://root@127.0.0.1:3306/test"
ENGINES = ("sqlite", "postgresql", "mysql")
SERVER_HELP = (
    f"server for the bench database (default: {DEFAULT_PG_URL} for postgresql, {DEFAULT_MYSQL_URL} for mysql)"
)


@contextmanager
def database(engine_name: str, server_url: str | None = None) -> Iterator[str]:
    """A new, empty database for one run: a SQLite file in a temporary folder, or a PostgreSQL or MySQL
    database `ratingdb_bench_<random>` on `server_url`, dropped afterwards."""
    if engine_name == "sqlite":
        with tempfile.TemporaryDirectory(prefix="ratingdb-bench-") as folder:
            yield f"sqlite:///{folder}/bench.sqlite"
        return
    if server_url is None:
        server_url = DEFAULT_MYSQL_URL if engine_name == "mysql" else DEFAULT_PG_URL
    name = f"ratingdb_bench_{uuid.uuid4().hex[:10]}"
    admin = db.make_engine(server_url, isolation_level="AUTOCOMMIT")
    quoted = admin.dialect.identifier_preparer.quote(name)
    force = " WITH (FORCE)" if admin.dialect.name == "postgresql" else ""
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {quoted}"))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {quoted}{force}"))
        admin.dispose()


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """Resident memory of this process now (Linux /proc)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
