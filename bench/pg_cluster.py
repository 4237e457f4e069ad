"""A throwaway PostgreSQL cluster for a benchmark: initdb into a temporary folder, start, yield a URL, delete.

    python bench/pg_cluster.py tuned|default -- COMMAND ...

runs COMMAND (any benchmark) with RATINGDB_BENCH_PG_URL pointing at a fresh cluster started with the
tuned settings below or with initdb's defaults, then stops the cluster and deletes its folder. The
benchmarks read that variable as their default PostgreSQL server (bench/common.py), and close_period.py
and growth.py also take `--pg-cluster tuned|default` directly. The shared server on 127.0.0.1:5432 and
its configuration are never touched. Imports nothing of ratingdb; only the benchmarks import it.
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

BIN = Path(os.environ.get("RATINGDB_PG_BIN", "/usr/lib/postgresql/15/bin"))
URL_VARIABLE = "RATINGDB_BENCH_PG_URL"

# A federation's server holding FIDE's list (1 M players, a few GB of data) on a machine of 8-24 GiB that
# runs little else (README: PostgreSQL server settings for a federation). fsync, synchronous_commit and
# full_page_writes keep their defaults (on): a close that was reported committed is never lost.
TUNED: dict[str, str] = {
    # The close reads both lists and writes the new one with its calculation record: with a quarter of
    # memory the whole working set of a national federation, and the hot indexes of FIDE's, stay cached.
    "shared_buffers": "4GB",
    # A FIDE close writes 2-4 GB of WAL (rows, index entries, full-page images after each checkpoint).
    # With the default 1 GB a close forces several checkpoints in the middle of its writes; with 16 GB
    # checkpoints come from the timer only, and each writes a page once however often it changed.
    "max_wal_size": "16GB",
    "min_wal_size": "1GB",
    "checkpoint_timeout": "30min",
    "checkpoint_completion_target": "0.9",  # spread each checkpoint's writes over 90 % of the interval
    "wal_buffers": "64MB",  # COPY writes WAL faster than the default 16 MB is flushed between commits
    "maintenance_work_mem": "1GB",  # CREATE INDEX in migrations, VACUUM and ANALYZE of million-row tables
    "work_mem": "64MB",  # the close's and the reports' sorts and hashes in memory, not in temporary files
    "effective_cache_size": "12GB",  # what the planner may assume the OS caches: favours index scans
    "random_page_cost": "1.1",  # SSD storage: random reads cost about as much as sequential ones
}

# Every cluster, default or tuned: reachable on the loopback only, on its own port and socket folder.
BASE: dict[str, str] = {"listen_addresses": "'127.0.0.1'"}


class ClusterError(RuntimeError):
    """The throwaway cluster could not be created or started (the message says which step and why)."""


def free_port() -> int:
    """A TCP port nobody listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_owner() -> tuple[list[str], str | None]:
    """The command prefix that runs the server's programs and the user that owns the folder.

    initdb and postgres refuse to run as root: as root they run as the `postgres` system user (runuser)."""
    if os.geteuid() != 0:
        return [], None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise ClusterError(
            "running as root and there is no 'postgres' user to run the cluster as: run as another user"
        ) from None
    if shutil.which("runuser") is None:
        raise ClusterError("running as root and runuser is missing: run as another user")
    return ["runuser", "-u", "postgres", "--"], "postgres"


def _run(command: Sequence[str], step: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        output = done.stderr.strip() or done.stdout.strip()
        raise ClusterError(f"{step} failed (exit {done.returncode}): {output}")


@contextmanager
def cluster(settings: dict[str, str] | None = None) -> Iterator[str]:
    """A new PostgreSQL cluster in a temporary folder, started with `settings` (None: initdb's defaults);
    yields the URL of its `postgres` database. Stopped (fast shutdown) and deleted afterwards."""
    if not (BIN / "initdb").exists():
        raise ClusterError(f"{BIN / 'initdb'} not found: set RATINGDB_PG_BIN to PostgreSQL's bin folder")
    prefix, owner = _as_owner()
    folder = Path(tempfile.mkdtemp(prefix="ratingdb-pg-"))
    data = folder / "data"
    try:
        if owner is not None:
            shutil.chown(folder, owner)
        # The same encoding and collation as the shared server (C.UTF-8), so sorts compare alike.
        _run(
            [*prefix, str(BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
             "-E", "UTF8", "--locale=C.UTF-8", "--no-instructions"],
            "initdb",
        )  # fmt: skip
        port = free_port()
        options = BASE | {"port": str(port), "unix_socket_directories": f"'{folder}'"} | (settings or {})
        with open(data / "postgresql.auto.conf", "a") as conf:  # read at start, like ALTER SYSTEM
            conf.writelines(f"{name} = {value}\n" for name, value in options.items())
        _run(
            [*prefix, str(BIN / "pg_ctl"), "-D", str(data), "-l", str(folder / "server.log"), "-w",
             "-t", "60", "start"],
            "pg_ctl start",
        )  # fmt: skip
        try:
            yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        finally:
            _run([*prefix, str(BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], "pg_ctl stop")
    except ClusterError as error:
        log = folder / "server.log"
        if log.exists():
            error.add_note(f"server log:\n{log.read_text()[-2000:]}")
        raise
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cluster_settings(name: str) -> dict[str, str] | None:
    """The settings of `--pg-cluster NAME`: `tuned` or `default` (initdb's)."""
    return {"tuned": TUNED, "default": None}[name]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("settings", choices=("tuned", "default"))
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the benchmark to run, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    try:
        with cluster(cluster_settings(args.settings)) as url:
            print(f"throwaway {args.settings} cluster: {url}", file=sys.stderr, flush=True)
            return subprocess.run(command, env=os.environ | {URL_VARIABLE: url}).returncode
    except ClusterError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
