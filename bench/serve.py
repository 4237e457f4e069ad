"""Benchmark of `ratingdb serve` for a national federation: 20,000 players, 24 monthly lists.

    python bench/serve.py [--engine sqlite|postgresql] [--url URL] [--months 24] [--clients 50]
                          [--seconds 20] [--rate 300] [--db URL] [--only SCENARIO,...]

Builds the federation as bench/publish.py does (the real close for every period), starts the real
`ratingdb serve` with one worker in its own process, and drives it on loopback with an async HTTP/1.1
client written here (keep-alive connections, `--clients` at once, each request waiting for the last),
one scenario after another: a player's JSON, a player's page, a list page of 100 and a search — players,
pages and names drawn at random, so the app's page cache helps only as much as real traffic would let
it. Each scenario runs twice: in a closed loop (each client asks again as soon as it is answered: the
most requests a second the worker answers, at which the latency is only the queue, clients / rate), then
in an open loop at `--rate` requests a second (300, the issue's figure; the latency counts from when a
request was due, as wrk2's does: what visitors meet at that traffic). Reports requests per second, p50
and p99 latency, errors, the worker's CPU seconds per scenario and per request and its memory (VmRSS,
VmHWM), and the load average around each scenario (the machine may be shared).
`--db URL` keeps the federation: built into that database when it holds none (a SQLite file that does
not exist yet, or an empty PostgreSQL database), used on later runs (upgraded to this ratingdb's
migrations first) — building takes minutes.
Targets (issue 28): ≥ 300 requests/s and p99 ≤ 100 ms for the player's JSON and page, search p99 ≤
150 ms, ≤ 200 MB per worker. Figures only: nothing is asserted. The last line printed is one JSON object.
Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_PG_URL, database, say  # noqa: E402
from publish import build_year  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.site.publish import player_key  # noqa: E402

TARGETS = {"player_json": 100.0, "player_page": 100.0, "search": 150.0}


async def fetch(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> int:
    """One GET on a kept-alive connection; returns the status (the body is read and dropped)."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            length = int(value)
    if length:
        await reader.readexactly(length)
    return status


async def load(
    port: int, paths: Callable[[], str], clients: int, seconds: float, rate: float | None = None
) -> dict[str, Any]:
    """`clients` keep-alive connections asking for `paths()` for `seconds`.

    Without `rate` each client asks again as soon as it is answered (closed loop): the figures are the
    server's saturation, where latency is the queue, clients / requests per second (Little's law). With
    `rate` the clients together send `rate` requests a second on a fixed schedule (open loop, as wrk2
    does): each client's k-th request is due at start + k × clients / rate, and its latency counts from
    when it was due, so a late answer also counts against the requests it held up (no coordinated
    omission): the latency visitors meet at that traffic."""
    latencies: list[float] = []
    errors = dropped = 0
    stop = time.perf_counter() + seconds
    began = time.perf_counter()

    async def client(index: int) -> None:
        nonlocal errors, dropped
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        interval = clients / rate if rate else 0.0
        due = began + index * interval / clients
        try:
            while time.perf_counter() < stop:
                if rate:
                    wait = due - time.perf_counter()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    started = due
                    due += interval
                else:
                    started = time.perf_counter()
                try:
                    status = await fetch(reader, writer, paths())
                except (ConnectionError, asyncio.IncompleteReadError):
                    # The server closed the connection: counted, and the client connects again.
                    dropped += 1
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    continue
                latencies.append((time.perf_counter() - started) * 1000)
                errors += status != 200
        finally:
            writer.close()

    await asyncio.gather(*(client(i) for i in range(clients)))
    elapsed = time.perf_counter() - began
    latencies.sort()

    def pct(p: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))], 1) if latencies else 0.0

    return {
        "requests": len(latencies),
        "rps": round(len(latencies) / elapsed, 1),
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "errors": errors,
        "dropped_connections": dropped,
    }


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def built(url: str, months: int) -> dict[str, Any] | None:
    """The federation's figures when `url` already holds it (a run with --db), else None; a database
    with part of it (a build that was stopped) is refused."""
    if url.startswith("sqlite") and not Path(url.split(":///", 1)[1]).exists():
        return None
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            try:
                lists = conn.execute(text("SELECT COUNT(*) FROM rating_list")).scalar_one()
            except Exception:  # no tables yet: an empty database to build into
                return None
            if not lists:
                return None
            if lists < months + 2:  # the two imported lists and one per closed period
                raise SystemExit(
                    f"{url} holds {lists} lists, not the {months + 2} of a built federation: a build was "
                    "stopped — drop the database (or delete the file) and run again"
                )
            count = {
                table: conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
                for table in ("player", "list_entry", "event", "calc_game")
            }
        # A federation built by an earlier ratingdb: brought to this one's migrations, as `ratingdb init`
        # would (the server refuses a database behind its schema).
        db.upgrade(engine)
    finally:
        engine.dispose()
    return {
        "players": count["player"],
        "lists": lists,
        "list_entries": count["list_entry"],
        "events": count["event"],
        "calc_games": count["calc_game"],
        "reused": True,
    }


def gather_statistics(url: str) -> None:
    """ANALYZE on PostgreSQL, as a server's autovacuum does some time after a close writes a list. This
    machine's PostgreSQL runs with autovacuum off, and without statistics for the 24 closes' lists the
    planner takes each for a few rows (the public side must not depend on them: bench/RESULTS.md, issue
    28, "threads", but a federation's server has them)."""
    if not url.startswith("postgresql"):
        return
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))
    finally:
        engine.dispose()


def memory_mb(pid: int) -> dict[str, float]:
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            figures[name] = round(int(value.split()[0]) / 1024, 1)
    return figures


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def scenarios(url: str, seed: int = 28) -> dict[str, Callable[[], str]]:
    """Each scenario's next address, drawn at random (with `seed`) from the federation at `url`: also
    bench/serve_requests.py's, which counts what the same requests cost."""
    engine = db.make_engine(url)
    with engine.connect() as conn:
        fide_ids = [r[0] for r in conn.execute(text("SELECT fide_id FROM player WHERE fide_id IS NOT NULL"))]
        # A player page is at its key (ratingdb.site.publish.player_key: the national ID, else
        # fide-<FIDE ID>); a FIDE ID alone is an old address, answered with a redirect. Players on
        # no list have no page (404).
        keys = [
            player_key(r)
            for r in conn.execute(
                text(
                    "SELECT id, fide_id, national_id FROM player WHERE fide_id IS NOT NULL "
                    "AND id IN (SELECT player_id FROM list_entry)"  # the players with a page
                )
            )
        ]
        names = [r[0] for r in conn.execute(text("SELECT name FROM player ORDER BY id LIMIT 5000"))]
        newest = conn.execute(
            text(
                "SELECT MAX(list_date) FROM rating_list WHERE rating_type = 'standard' AND is_current = TRUE"
            )
        ).scalar_one()
    engine.dispose()
    newest = str(newest)[:10]
    rng = random.Random(seed)
    return {
        "player_json": lambda: f"/api/v1/players/{rng.choice(fide_ids)}",
        "player_page": lambda: f"/players/{rng.choice(keys)}.html",
        "list_page": lambda: f"/lists/standard-{newest}.html?page={rng.randint(1, 200)}",
        "search": lambda: "/search?q=" + rng.choice(names).split(",")[0].replace(" ", "+"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--url", default=DEFAULT_PG_URL, help="PostgreSQL server for the bench database")
    parser.add_argument("--months", type=int, default=24)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0, help="per scenario")
    parser.add_argument(
        "--rate",
        type=float,
        default=300.0,
        help="after the closed-loop runs, each scenario again at this many requests a second (0: not)",
    )
    parser.add_argument("--db", help="keep the federation in this database URL (built when it holds none)")
    parser.add_argument(
        "--only", help="comma-separated scenarios to run (player_json,player_page,list_page,search)"
    )
    args = parser.parse_args(argv)
    kept = contextlib.nullcontext(args.db) if args.db else database(args.engine, args.url)
    with kept as url:
        federation = built(url, args.months) or build_year(url, args.months)
        gather_statistics(url)
        paths = scenarios(url)
        port = free_port()
        command = [str(Path(sys.executable).parent / "ratingdb"), "--db", url, "serve", "--port", str(port)]
        # The server's log (its access log and any error) is kept beside the bench's temporary files and
        # its last lines are printed when a scenario saw errors.
        log_path = Path(tempfile.gettempdir()) / f"ratingdb-bench-serve-{port}.log"
        log = log_path.open("w")
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.2)
            figures: dict[str, Any] = {}
            chosen = args.only.split(",") if args.only else list(paths)
            runs = [(name, None) for name in chosen]
            if args.rate:  # each scenario again at the fixed rate: the latency at that traffic
                runs += [(name, args.rate) for name in chosen]
            for name, rate in runs:
                path = paths[name]
                key = name if rate is None else f"{name}@{rate:g}/s"
                asyncio.run(load(port, path, 5, 2.0))  # warm-up: imports, first queries, the site index
                load_before, cpu_before = os.getloadavg()[0], cpu_s(server.pid)
                figures[key] = asyncio.run(load(port, path, args.clients, args.seconds, rate))
                figures[key]["worker_cpu_s"] = round(cpu_s(server.pid) - cpu_before, 1)
                figures[key]["worker_cpu_ms_per_request"] = round(
                    1000 * figures[key]["worker_cpu_s"] / max(1, figures[key]["requests"]), 2
                )
                figures[key]["load_before"] = round(load_before, 2)
                figures[key]["load_after"] = round(os.getloadavg()[0], 2)
                figures[key]["target_p99_ms"] = TARGETS.get(name)
                figures[key]["worker_rss_mb"] = memory_mb(server.pid).get("VmRSS")
                say(f"{key}: {figures[key]}")
                if figures[key]["errors"] or figures[key]["dropped_connections"]:
                    log.flush()
                    tail = log_path.read_text(errors="replace").splitlines()[-5:]
                    say("  the server's log ends:\n  " + "\n  ".join(tail))
            figures["worker_memory_mb"] = memory_mb(server.pid)
        finally:
            server.terminate()
            server.wait(30)
            log.close()
            say(f"the server's log: {log_path}")
    backend = "sqlite" if url.startswith("sqlite") else "postgresql"
    result = {"scale": "national", "engine": backend, "clients": args.clients} | federation | figures
    result["load_average"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
