"""Benchmark: the public player page while strangers sign in with wrong passwords (issue 54, M3).

    python bench/sign_in_load.py [--engine sqlite|postgresql|mysql] [--url SERVER_URL] [--clients 8]
                                 [--attackers 16] [--seconds 10] [--warm 10] [--mode spread|one-address]
                                 [--plain-serve]

Builds the demo federation (`ratingdb demo`, 300 players) in a new database, adds one account, starts
the real `ratingdb serve` (one worker) in its own process on loopback, and measures the player page
(GET /players/<key>.html, players drawn at random) with `--clients` keep-alive clients in a closed loop
for `--seconds`: first alone, then while `--attackers` clients each post wrong sign-ins as fast as they
are answered (a CSRF token and cookie fetched once per client, as a browser's form would send).

`--mode spread` (the default, the worst case): serve trusts 127.0.0.1's X-Forwarded-For
(`--forwarded-allow-ips 127.0.0.1`) and every attempt comes "from" an address of its own for a name that
does not exist, so no address and no account ever waits: every attempt costs a full argon2 check (64
MiB), queued by the site's hashing pool. `--mode one-address`: every attempt from 127.0.0.1 for the
existing account, the default serve: the waits refuse most attempts without a hash.

Loopback only, bounded by --seconds; figures only, nothing is asserted. The last line printed is one JSON
object. Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import database, load_average, say  # noqa: E402
from serve import cpu_s, load, memory_mb  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.site.publish import player_key  # noqa: E402

PASSWORD = "correct horse battery staple"
RATINGDB = str(Path(sys.executable).parent / "ratingdb")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build(url: str) -> list[str]:
    """The demo federation and one account in `url`; the player pages' paths."""
    subprocess.run([RATINGDB, "demo", "--db", url], check=True, capture_output=True)
    subprocess.run(
        [RATINGDB, "--db", url, "user", "add", "mary", "--role", "admin", "--password-stdin"],
        input=PASSWORD + "\n",
        text=True,
        check=True,
        capture_output=True,
    )
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, fide_id, national_id FROM player")).all()
    finally:
        engine.dispose()
    return [f"/players/{player_key(row)}.html" for row in rows]


async def request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: str, body: bytes = b""
) -> tuple[int, str, bytes]:
    """One request on a kept-alive connection: the status, the head and the body of the answer."""
    writer.write(head.encode() + body)
    await writer.drain()
    raw = await reader.readuntil(b"\r\n\r\n")
    answer = raw.decode("latin-1")
    length = int(re.search(r"(?im)^content-length:\s*(\d+)", answer).group(1))  # type: ignore[union-attr]
    return int(answer.split()[1]), answer, await reader.readexactly(length)


async def attacker(port: int, stop: float, spread: bool, counts: dict[str, int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        _, head, body = await request(
            reader, writer, "GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n"
        )
        cookie = re.search(r"(?im)^set-cookie:\s*(ratingdb_csrf=[^;]+)", head).group(1)  # type: ignore[union-attr]
        token = re.search(rb'name="csrftoken" value="([^"]+)"', body).group(1).decode()  # type: ignore[union-attr]
        while time.perf_counter() < stop:
            name = f"nobody{random.randrange(10**9)}" if spread else "mary"
            form = f"csrftoken={token}&username={name}&password=wrong+password+{random.randrange(10**9)}"
            address = ".".join(str(random.randrange(256)) for _ in range(3))
            forwarded = f"X-Forwarded-For: 10.{address}\r\n" if spread else ""
            status, _, _ = await request(
                reader,
                writer,
                "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n"
                f"Cookie: {cookie}\r\n{forwarded}Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {len(form)}\r\n\r\n",
                form.encode(),
            )
            counts[str(status)] = counts.get(str(status), 0) + 1
    finally:
        writer.close()


async def measure(port: int, paths: list[str], args: argparse.Namespace, attackers: int) -> dict[str, Any]:
    stop = time.perf_counter() + args.seconds
    counts: dict[str, int] = {}
    attacks = [attacker(port, stop, args.mode == "spread", counts) for _ in range(attackers)]
    pages, *_ = await asyncio.gather(
        load(port, lambda: random.choice(paths), args.clients, args.seconds), *attacks
    )
    return {**pages, "sign_ins": counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["sqlite", "postgresql", "mysql"], default="sqlite")
    parser.add_argument("--url", help="the server for the bench database (postgresql, mysql)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--attackers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--mode", choices=["spread", "one-address"], default="spread")
    parser.add_argument("--warm", type=float, default=10.0, help="seconds of page requests first")
    parser.add_argument(
        "--plain-serve",
        action="store_true",
        help="no --forwarded-allow-ips (a ratingdb before issue 54, whose serve trusted 127.0.0.1 anyway)",
    )
    args = parser.parse_args()
    with database(args.engine, args.url) as url:
        say(f"building the demo federation in {args.engine} …")
        paths = build(url)
        port = free_port()
        command = [RATINGDB, "--db", url, "serve", "--port", str(port)]
        if args.mode == "spread" and not args.plain_serve:
            command += ["--forwarded-allow-ips", "127.0.0.1"]
        env = {**os.environ, "RATINGDB_INSECURE_COOKIES": "1"}
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                    break
                time.sleep(0.1)
            asyncio.run(load(port, lambda: random.choice(paths), args.clients, args.warm))  # warm the caches
            results: dict[str, Any] = {
                "engine": args.engine,
                "mode": args.mode,
                "load_before": load_average(),
            }
            for name, attackers in (("alone", 0), ("with_sign_ins", args.attackers)):
                before = cpu_s(server.pid)
                found = asyncio.run(measure(port, paths, args, attackers))
                found["worker_cpu_s"] = round(cpu_s(server.pid) - before, 1)
                found["memory"] = memory_mb(server.pid)
                results[name] = found
                say(f"{name}: {found}")
            results["ratio"] = round(results["with_sign_ins"]["rps"] / results["alone"]["rps"], 2)
            results["load_after"] = load_average()
        finally:
            server.terminate()
            server.wait(10)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
