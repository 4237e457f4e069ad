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

import pg_cluster
from sqlalchemy import text
from sqlalchemy.engine import make_url

from ratingdb import db

# bench/pg_cluster.py points this variable at a throwaway cluster for the command it runs.
DEFAULT_PG_URL = os.environ.get(
    pg_cluster.URL_VARIABLE, "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
DEFAULT_MYSQL_URL = "mysql+pymysql://root@127.0.0.1:3306/test"
ENGINES = ("sqlite", "postgresql", "mysql")
SERVER_HELP = (
    f"server for the bench database (default: {DEFAULT_PG_URL} for postgresql, {DEFAULT_MYSQL_URL} for mysql)"
)


PG_CLUSTER_HELP = (
    "run PostgreSQL on a throwaway cluster of its own (bench/pg_cluster.py) with the tuned settings or "
    "initdb's defaults, instead of the shared server"
)
# The settings that decide write and read speed: printed with each PostgreSQL run's figures.
PG_SETTINGS = (
    "shared_buffers", "max_wal_size", "checkpoint_timeout", "checkpoint_completion_target", "wal_buffers",
    "maintenance_work_mem", "work_mem", "effective_cache_size", "random_page_cost", "fsync",
    "synchronous_commit", "full_page_writes",
)  # fmt: skip


@contextmanager
def server(engine_name: str, server_url: str | None, cluster: str | None) -> Iterator[str | None]:
    """The server to create the bench database on: `server_url` (None: the default), or with `cluster`
    (`tuned` or `default`) a throwaway PostgreSQL cluster started for this run and deleted after it."""
    if cluster is None:
        yield server_url
        return
    if engine_name != "postgresql" or server_url is not None:
        raise SystemExit("--pg-cluster goes with --engine postgresql and without --url")
    with pg_cluster.cluster(pg_cluster.cluster_settings(cluster)) as url:
        say(f"throwaway PostgreSQL cluster ({cluster} settings) at {url}")
        yield url


def server_settings(url: str) -> dict[str, str]:
    """The PostgreSQL settings of PG_SETTINGS as the server reports them (empty for other engines)."""
    engine = db.make_engine(url)
    try:
        if engine.dialect.name != "postgresql":
            return {}
        with engine.connect() as conn:
            return {name: conn.execute(text(f"SHOW {name}")).scalar_one() for name in PG_SETTINGS}
    finally:
        engine.dispose()


@contextmanager
def server_activity(url: str) -> Iterator[dict[str, int]]:
    """On PostgreSQL, fills the dict with the WAL bytes written and the checkpoints taken (by the timer,
    and requested because the WAL reached max_wal_size) while the block ran, by the whole server: a
    throwaway cluster (--pg-cluster) runs nothing else. Stays empty on other engines."""
    figures: dict[str, int] = {}
    engine = db.make_engine(url)
    query = text(
        "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, checkpoints_timed, checkpoints_req "
        "FROM pg_stat_bgwriter"
    )
    try:
        if engine.dialect.name != "postgresql":
            yield figures
            return
        with engine.connect() as conn:
            wal, timed, requested = conn.execute(query).one()
        yield figures
        with engine.connect() as conn:
            wal_after, timed_after, requested_after = conn.execute(query).one()
        figures |= {
            "wal_mb": round(int(wal_after - wal) / 1e6),
            "checkpoints_timed": timed_after - timed,
            "checkpoints_requested": requested_after - requested,
        }
    finally:
        engine.dispose()


def load_average() -> float:
    """The one-minute load average: the machine is shared, so every figure is printed with it."""
    return round(os.getloadavg()[0], 2)


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
