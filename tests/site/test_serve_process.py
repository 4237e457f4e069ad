"""`ratingdb serve` as a process (issue 54: M2, L7, L9), on every engine: whose X-Forwarded-For it takes,
the settings it reads with one worker and with several, and the warning about a superuser's account.

Each test starts the real command on a free loopback port and speaks HTTP to it; the access log (stderr)
shows the visitor's address as the app saw it.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import make_url

ROOT = Path(__file__).parents[2]
TOKEN = re.compile(r'name="csrftoken" value="([^"]+)"')
SECRET = "a secret both servers share, long enough"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(url: str, *options: str, env: dict[str, str]) -> Iterator[tuple[int, list[str]]]:
    """`ratingdb serve` on a free port until the block ends; then `log` holds its stderr's lines."""
    port = _port()
    log: list[str] = []
    process = subprocess.Popen(
        [sys.executable, "-c", "from ratingdb.cli import main; main()", "--db", url, "serve",
         "--port", str(port), *options],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), 0.5):
                    break
            except OSError:
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "serve did not start in 180 s"
                time.sleep(0.2)
        yield port, log
    finally:
        process.terminate()
        log.extend(process.communicate(timeout=30)[1].splitlines())


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RATINGDB_")}
    return {**env, **extra}


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    response.body = response.read()  # type: ignore[attr-defined]
    conn.close()
    return response


def _form(port: int) -> tuple[str, str, str]:
    """The sign-in page's CSRF cookie (name=value), token and the whole Set-Cookie header."""
    page = _get(port, "/login")
    set_cookie = page.getheader("set-cookie") or ""
    cookie = re.search(r"ratingdb_csrf=[^;]+", set_cookie)
    token = TOKEN.search(page.body.decode())  # type: ignore[attr-defined]
    assert cookie is not None and token is not None
    return cookie.group(0), token.group(1), set_cookie


def _sign_in(port: int, cookie: str, token: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    body = f"csrftoken={token}&username=nobody&password=wrong+password"
    conn.request(
        "POST",
        "/login",
        body=body,
        headers={"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"},
    )
    status = conn.getresponse().status
    conn.close()
    return status


def _visitors(log: list[str]) -> list[str]:
    """The addresses of the access log's lines for GET / (`ADDRESS "GET /" STATUS BYTES TIME`)."""
    return [found.group(1) for line in log if (found := re.search(r'(\S+) "GET /" ', line))]


def _superuser(url: str) -> bool:
    """The test servers are reached as PostgreSQL's superuser and MariaDB's root; SQLite has no accounts."""
    return make_url(url).get_backend_name() != "sqlite"


def test_one_worker_ignores_x_forwarded_for_and_reads_the_secret_and_cookie_settings(db_url: str) -> None:
    env = _environment(RATINGDB_SECRET=SECRET, RATINGDB_INSECURE_COOKIES="1")
    with serving(db_url, env=env) as (first, log), serving(db_url, env=env) as (second, _):
        assert _get(first, "/", {"X-Forwarded-For": "203.0.113.7"}).status == 200
        cookie, token, set_cookie = _form(first)
        taken = _sign_in(second, cookie, token)
    # No proxy named: the address is the connection's, whatever the header says.
    assert _visitors(log) == ["127.0.0.1"], log
    assert "203.0.113.7" not in "\n".join(log)
    # As every writing command: a word about an account that may get past the guards.
    warned = [line for line in log if line.startswith("Warning: ")]
    assert bool(warned) == _superuser(db_url), log
    # RATINGDB_INSECURE_COOKIES=1: the cookie is sent over http:// (not marked Secure).
    assert "secure" not in set_cookie.lower()
    # RATINGDB_SECRET: a form of the first server is taken by the second (refused: 403; taken: the wrong
    # password's 400).
    assert taken == 400


def test_several_workers_share_one_secret_and_trust_only_the_named_proxy(db_url: str) -> None:
    env = _environment(RATINGDB_INSECURE_COOKIES="1")
    with serving(db_url, "--workers", "2", "--forwarded-allow-ips", "127.0.0.1", env=env) as (port, log):
        assert _get(port, "/", {"X-Forwarded-For": "203.0.113.7"}).status == 200
        # Twenty forms, each fetched and sent on new connections: any worker may make it, any check it.
        answers = [_sign_in(port, *_form(port)[:2]) for _ in range(20)]
    assert answers == [400] * 20
    assert _visitors(log) == ["203.0.113.7"], log


def test_access_log_json_writes_one_object_a_request_and_a_wrong_format_is_one_line(
    sqlite_template: Path, tmp_path: Path
) -> None:
    # The access log's format is the server's, not the engine's: one SQLite database.
    path = tmp_path / "served.sqlite"
    path.write_bytes(sqlite_template.read_bytes())
    url = f"sqlite:///{path}"
    with serving(url, "--access-log", "json", env=_environment()) as (port, log):
        assert _get(port, "/?page=2").status == 200
        assert _get(port, "/no-such-page").status == 404
    lines = [json.loads(line) for line in log if line.startswith("{")]
    requests = [(line["method"], line["path"], line["query"], line["status"]) for line in lines]
    assert requests == [("GET", "/", "page=2", 200), ("GET", "/no-such-page", "", 404)]
    for line in lines:
        assert set(line) == {"time", "client", "method", "path", "query", "status", "bytes", "ms"}
        assert line["client"] == "127.0.0.1" and line["bytes"] > 0 and line["time"].endswith("+00:00")
    wrong = subprocess.run(
        [sys.executable, "-c", "from ratingdb.cli import main; main()", "--db", url, "serve",
         "--access-log", "xml"],
        env=_environment(), cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (wrong.returncode, wrong.stderr) == (
        1,
        "Error: --access-log 'xml' is not text or json — choose one of them\n",
    )
