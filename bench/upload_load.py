"""Load test of issue 54 (H1): does one organiser uploading files slow the public side down?

    python bench/upload_load.py [--engine sqlite|postgresql|mysql] [--seconds 15] [--clients 20]
                                [--uploads 5] [--url SERVER_URL]

Builds the demo federation (`ratingdb demo`) in a new database, adds an organiser, starts the real
`ratingdb serve` (one worker, 127.0.0.1 only, upload limits raised so that every file is checked and
stored: the worst case) and drives it with bench/serve.py's client: the player page's throughput in a
closed loop for `--seconds` without uploads, then again while the organiser sends `--uploads` files a
second (each a different text file the check refuses, as in the review: kept with its check). Reports both
figures, their ratio, the uploads answered and the load average (the machine is shared). Bounded: fixed
durations, loopback only, the database dropped afterwards. The last line printed is one JSON object.
Target (issue 54): with the uploads, at least 80 % of the throughput without.
Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import database, say  # noqa: E402
from serve import free_port, load, scenarios  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.services import users  # noqa: E402

PASSWORD = "a long enough password for the bench"
TOKEN = re.compile(r'name="csrftoken" value="([^"]+)"')


class Organiser:
    """A signed-in organiser on one kept-alive connection: cookies kept by hand (the session cookie is
    Secure, which a cookie jar would not send over http://127.0.0.1)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.cookies: dict[str, str] = {}
        self.token = ""

    def request(self, method: str, path: str, body: bytes = b"", kind: str = "") -> tuple[int, str]:
        headers = {"Host": "127.0.0.1"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if kind:
            headers["Content-Type"] = kind
        self.conn.request(method, path, body=body or None, headers=headers)
        response = self.conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
        found = TOKEN.search(text)
        if found:
            self.token = found.group(1)
        return response.status, text

    def sign_in(self, name: str) -> None:
        self.request("GET", "/login")
        form = f"csrftoken={self.token}&username={name}&password={PASSWORD.replace(' ', '+')}"
        status, _ = self.request("POST", "/login", form.encode(), "application/x-www-form-urlencoded")
        if status != 303:
            raise SystemExit(f"the organiser could not sign in ({status})")
        self.request("GET", "/desk/submissions")  # a token for the session signed in

    def upload(self, n: int) -> int:
        boundary = uuid.uuid4().hex
        content = f"012 Bench upload {n} {uuid.uuid4().hex}\nthis is not a tournament report line\n".encode()
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="csrftoken"\r\n\r\n{self.token}\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="rating_type"\r\n\r\nstandard\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench{n}.trf"\r\n'
                "Content-Type: text/plain\r\n\r\n"
            ).encode()
            + content
            + f"\r\n--{boundary}--\r\n".encode()
        )
        status, _ = self.request(
            "POST", "/desk/submissions", body, f"multipart/form-data; boundary={boundary}"
        )
        return status


def uploading(port: int, per_second: float, stop: threading.Event, answers: list[int]) -> None:
    """Send `per_second` files a second on a fixed schedule until `stop` (a late one is sent at once)."""
    organiser = Organiser(port)
    organiser.sign_in("bench-organiser")
    due = time.perf_counter()
    n = 0
    while not stop.is_set():
        wait = due - time.perf_counter()
        if wait > 0:
            stop.wait(wait)
            if stop.is_set():
                break
        n += 1
        answers.append(organiser.upload(n))
        due += 1 / per_second


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["sqlite", "postgresql", "mysql"], default="sqlite")
    parser.add_argument("--url", help="the server to make the bench database on (PostgreSQL, MySQL)")
    parser.add_argument("--seconds", type=float, default=15.0, help="per run")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--uploads", type=float, default=5.0, help="files a second")
    args = parser.parse_args(argv)
    ratingdb = str(Path(sys.executable).parent / "ratingdb")
    with database(args.engine, args.url) as url:
        built = subprocess.run([ratingdb, "demo", "--db", url, "--force"], capture_output=True, text=True)
        if built.returncode != 0:
            raise SystemExit(built.stderr.strip() or built.stdout.strip())
        engine = db.make_engine(url)
        with db.transaction(engine) as session:
            users.add_user(session, "bench-organiser", "organiser", PASSWORD)
        engine.dispose()
        player_page = scenarios(url)["player_page"]
        port = free_port()
        env = {
            **os.environ,
            "RATINGDB_UPLOADS_PER_HOUR": "1000000",
            "RATINGDB_UPLOAD_QUOTA_BYTES": str(10**12),
        }
        log_path = Path(tempfile.gettempdir()) / f"ratingdb-bench-upload-{port}.log"
        with log_path.open("w") as log:
            server = subprocess.Popen(
                [ratingdb, "--db", url, "serve", "--host", "127.0.0.1", "--port", str(port)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
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
                asyncio.run(load(port, player_page, 5, 3.0))  # warm-up: the site's index, the lists
                load_before = os.getloadavg()[0]
                quiet = asyncio.run(load(port, player_page, args.clients, args.seconds))
                say(f"without uploads: {quiet}")
                stop, answers = threading.Event(), []
                sender = threading.Thread(target=uploading, args=(port, args.uploads, stop, answers))
                sender.start()
                time.sleep(1.0)  # signed in, the first uploads under way
                started = len(answers)
                busy = asyncio.run(load(port, player_page, args.clients, args.seconds))
                sent = len(answers) - started
                stop.set()
                sender.join(120)
                say(f"with {args.uploads:g} uploads a second: {busy}; uploads answered {sent}")
            finally:
                server.terminate()
                server.wait(30)
    statuses = {str(s): answers.count(s) for s in sorted(set(answers))}
    result: dict[str, Any] = {
        "engine": args.engine,
        "clients": args.clients,
        "seconds": args.seconds,
        "uploads_per_second_asked": args.uploads,
        "uploads_per_second_answered": round(sent / args.seconds, 2),
        "upload_statuses": statuses,
        "rps_without_uploads": quiet["rps"],
        "rps_with_uploads": busy["rps"],
        "ratio": round(busy["rps"] / quiet["rps"], 3) if quiet["rps"] else None,
        "p99_ms_without": quiet["p99_ms"],
        "p99_ms_with": busy["p99_ms"],
        "errors": quiet["errors"] + busy["errors"],
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
