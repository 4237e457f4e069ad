"""Benchmark of `ratingdb serve` for a national federation: 20,000 players, 24 monthly lists.

    python bench/serve.py [--engine sqlite|postgresql] [--url URL] [--months 24] [--clients 50]
                          [--seconds 20]

Builds the federation as bench/publish.py does (the real close for every period), starts the real
`ratingdb serve` with one worker in its own process, and drives it on loopback with an async HTTP/1.1
client written here (keep-alive connections, `--clients` at once, each request waiting for the last),
one scenario after another: a player's JSON, a player's page, a list page of 100 and a search — players,
pages and names drawn at random, so the app's page cache helps only as much as real traffic would let
it. Reports requests per second, p50 and p99 latency, errors, and the worker's memory (VmRSS, VmHWM).
Targets (issue 28): ≥ 300 requests/s and p99 ≤ 100 ms for the player's JSON and page, search p99 ≤
150 ms, ≤ 200 MB per worker. Figures only: nothing is asserted. The last line printed is one JSON object.
Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_PG_URL, database, say  # noqa: E402
from publish import build_year  # noqa: E402

from ratingdb import db  # noqa: E402

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


async def load(port: int, paths: Callable[[], str], clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal errors
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < stop:
                started = time.perf_counter()
                status = await fetch(reader, writer, paths())
                latencies.append((time.perf_counter() - started) * 1000)
                errors += status != 200
        finally:
            writer.close()

    began = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
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
    }


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--url", default=DEFAULT_PG_URL, help="PostgreSQL server for the bench database")
    parser.add_argument("--months", type=int, default=24)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0, help="per scenario")
    args = parser.parse_args(argv)
    with database(args.engine, args.url) as url:
        federation = build_year(url, args.months)
        engine = db.make_engine(url)
        with engine.connect() as conn:
            fide_ids = [
                r[0] for r in conn.execute(text("SELECT fide_id FROM player WHERE fide_id IS NOT NULL"))
            ]
            names = [r[0] for r in conn.execute(text("SELECT name FROM player ORDER BY id LIMIT 5000"))]
            newest = conn.execute(
                text(
                    "SELECT MAX(list_date) FROM rating_list "
                    "WHERE rating_type = 'standard' AND is_current = TRUE"
                )
            ).scalar_one()
        engine.dispose()
        newest = str(newest)[:10]
        rng = random.Random(28)
        scenarios: dict[str, Callable[[], str]] = {
            "player_json": lambda: f"/api/v1/players/{rng.choice(fide_ids)}",
            "player_page": lambda: f"/players/{rng.choice(fide_ids)}.html",
            "list_page": lambda: f"/lists/standard-{newest}.html?page={rng.randint(1, 200)}",
            "search": lambda: "/search?q=" + rng.choice(names).split(",")[0].replace(" ", "+"),
        }
        port = free_port()
        command = [str(Path(sys.executable).parent / "ratingdb"), "--db", url, "serve", "--port", str(port)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
            for name, paths in scenarios.items():
                asyncio.run(load(port, paths, 5, 2.0))  # warm-up: imports, first queries, the site index
                figures[name] = asyncio.run(load(port, paths, args.clients, args.seconds))
                figures[name]["target_p99_ms"] = TARGETS.get(name)
                say(f"{name}: {figures[name]}")
            figures["worker_memory_mb"] = memory_mb(server.pid)
        finally:
            server.terminate()
            server.wait(30)
    result = {"scale": "national", "engine": args.engine, "clients": args.clients} | federation | figures
    result["load_average"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
