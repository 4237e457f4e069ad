"""Past one machine: the site and the API read from a PostgreSQL streaming standby (`--read-url`) while the
officer's close writes to the primary, and the new list appears once the standby has replayed it.

Starts a throwaway primary (bench/pg_cluster.py) and a standby made from it by pg_basebackup, both on
this machine's loopback. Skipped where PostgreSQL's programs are missing, except in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from bench.pg_cluster import BIN, _as_owner, _run, cluster, free_port
from ratingdb.cli import app
from tests.site.web import client, on_public_engine

runner = CliRunner()


@pytest.fixture(scope="module")
def primary_and_standby() -> Iterator[tuple[str, str]]:
    if not (BIN / "pg_basebackup").exists():
        message = f"the standby test needs PostgreSQL's programs in {BIN} (RATINGDB_PG_BIN)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with cluster() as primary:
        port = primary.rsplit(":", 1)[1].split("/")[0]
        prefix, owner = _as_owner()
        folder = Path(tempfile.mkdtemp(prefix="ratingdb-standby-"))
        data = folder / "data"
        try:
            if owner is not None:
                shutil.chown(folder, owner)
            # -R writes primary_conninfo and standby.signal: the copy starts as a streaming standby.
            _run(
                [*prefix, str(BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", port, "-U", "postgres",
                 "-D", str(data), "-R", "-X", "stream"],
                "pg_basebackup",
            )  # fmt: skip
            standby_port = free_port()
            with open(data / "postgresql.auto.conf", "a") as conf:
                conf.write(f"port = {standby_port}\nunix_socket_directories = '{folder}'\nhot_standby = on\n")
            _run(
                [*prefix, str(BIN / "pg_ctl"), "-D", str(data), "-l", str(folder / "server.log"), "-w",
                 "-t", "60", "start"],
                "pg_ctl start (standby)",
            )  # fmt: skip
            try:
                yield primary, f"postgresql+psycopg://postgres@127.0.0.1:{standby_port}/postgres"
            finally:
                subprocess.run([*prefix, str(BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_the_site_reads_from_the_standby_and_sees_the_close_after_replication(
    primary_and_standby: tuple[str, str],
) -> None:
    primary, standby = primary_and_standby
    invoke("demo", "--db", primary, "--force")
    invoke("--db", primary, "reopen", "2025-11", "--type", "standard", "--reason", "standby test")
    with client(primary, read_url=standby) as c:

        def in_recovery(engine: Engine) -> bool:
            with engine.connect() as conn:
                return bool(conn.scalar(text("SELECT pg_is_in_recovery()")))

        assert on_public_engine(c, in_recovery) is True  # the pages read the standby

        def newest() -> tuple[str, int]:
            lists = c.get("/api/v1/lists", params={"type": "standard"}).json()["lists"]
            current = [v for v in lists if v["state"] == "current"]
            return current[0]["list_date"], current[0]["version"]

        deadline = time.monotonic() + 60
        while newest() != ("2025-11-01", 1):  # the reopen, once the standby has replayed it
            assert time.monotonic() < deadline, newest()
            time.sleep(0.2)
        # Live ratings run the close on the primary (a standby refuses writes) and roll it back.
        live = c.get("/api/v1/players/25900011/live", params={"type": "standard"}).json()
        assert live["ratings"][0]["official"] == live["ratings"][0]["rating"] == 1901

        invoke("--db", primary, "close-period", "2025-11", "--type", "standard")
        deadline = time.monotonic() + 60
        while newest() != ("2025-12-01", 2):
            assert time.monotonic() < deadline, newest()
            time.sleep(0.2)
        assert c.get("/lists/standard-2025-12-01.html").status_code == 200
