"""Defaults for the open internet: security headers, request limits, an access log, generic errors.

A pure ASGI middleware (no per-request task of its own, unlike Starlette's BaseHTTPMiddleware), so it
costs little. No route code, no database here.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final, NamedTuple

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("ratingdb.web.access")
LOGGED: Final = 300  # characters of a path or query string written to the access log

# No inline script or style anywhere (the pages load site.js and site.css from the site itself); the
# history chart is inline SVG styled by the stylesheet. Nothing may frame the site.
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: Final = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


SECRET_PATHS: Final = ("/password-reset/",)  # a password reset's link: its token is a secret for an hour


def _logged_path(path: str) -> str:
    """The path as the access log writes it: at most LOGGED characters, a reset link's token left out."""
    for prefix in SECRET_PATHS:
        if path.startswith(prefix) and len(path) > len(prefix):
            return prefix + "…"
    return path[:LOGGED]


class AccessLine(NamedTuple):
    """One request as the access log keeps it (the record's `request`): what `JsonAccessFormatter` writes."""

    client: str
    method: str
    path: str
    query: str
    status: int
    bytes: int
    ms: float


class JsonAccessFormatter(logging.Formatter):
    """The access log as JSON lines (`serve --access-log json`; for `uvicorn ratingdb.web:app`, a logging
    configuration's formatter `ratingdb.web.security.JsonAccessFormatter` on the logger
    `ratingdb.web.access`): one object a request, with the time in UTC, for a log collector to read
    without a pattern. A record without a request (another logger's) is written as its message."""

    def format(self, record: logging.LogRecord) -> str:
        line = getattr(record, "request", None)
        at = dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds")
        if not isinstance(line, AccessLine):
            return json.dumps({"time": at, "message": record.getMessage()}, ensure_ascii=False)
        return json.dumps({"time": at, **line._asdict()}, ensure_ascii=False)


class Hardened:
    """Adds the security headers to every response, refuses over-long query strings (414) and bodies
    (413) before the app sees them, and writes one access-log line per request."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_query_bytes: int,
        max_body_bytes: int,
        upload_prefix: str = "/desk/",
        max_upload_bytes: int = 0,
        max_file_bytes: int = 0,
    ) -> None:
        self.app = app
        self.max_query = max_query_bytes
        self.max_body = max_body_bytes
        # The signed-in side takes tournament files: its requests may be as large as an upload.
        self.upload_prefix = upload_prefix
        self.max_upload = max(max_upload_bytes, max_body_bytes)
        self.max_file = max_file_bytes  # the file an upload carries (WebSettings.max_upload_bytes)

    def _body_limit(self, scope: Scope) -> int:
        return self.max_upload if str(scope.get("path", "")).startswith(self.upload_prefix) else self.max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0
        sent = 0
        head = scope.get("method") == "HEAD"
        if head:  # answered as GET without the body (the routes are declared for GET only)
            scope = {**scope, "method": "GET"}

        async def send_hardened(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [
                    *(_relative(n, v) for n, v in message.get("headers", [])),
                    *((n, v) for n, v in SECURITY_HEADERS if n not in names),
                ]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
                if head:
                    message = {**message, "body": b""}
            await send(message)

        try:
            refusal = self._refusal(scope)
            if refusal is not None:
                await _plain_error(scope, send_hardened, *refusal)
                return
            await self.app(scope, self._limited(receive, scope, send_hardened), send_hardened)
        finally:
            status = status or 500  # an exception escaped before a response started
            path = _logged_path(scope.get("path", ""))
            query = scope.get("query_string", b"")[:LOGGED]
            client = (scope.get("client") or ("-",))[0]
            method = "HEAD" if head else scope.get("method", "-")
            query_text = query.decode("latin-1")
            took = (time.perf_counter() - started) * 1000
            access_log.info(
                '%s "%s %s%s" %d %d %.1fms',
                client,
                method,
                path,
                "?" + query_text if query_text else "",
                status,
                sent,
                took,
                extra={"request": AccessLine(client, method, path, query_text, status, sent, round(took, 1))},
            )

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        query = scope.get("query_string", b"")
        if len(query) > self.max_query:
            return 414, f"the query is longer than {self.max_query} bytes — shorten it"
        if b"%00" in query or "\x00" in scope.get("path", ""):
            # No name, ID or page holds one, and PostgreSQL refuses it in any text it is handed.
            return 400, NUL_REFUSED
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    limit = self._body_limit(scope)
                    if int(value) > limit:
                        return 413, self._too_large(scope, limit)
                except ValueError:
                    return 400, "the request's Content-Length is not a number"
        return None

    def _too_large(self, scope: Scope, limit: int) -> str:
        if self.max_file and limit == self.max_upload:
            from ratingdb.services.submissions import too_large

            return too_large(self.max_file)
        return f"the request body is larger than {limit} bytes"

    def _limited(self, receive: Receive, scope: Scope, send: Send) -> Receive:
        received = 0
        limit = self._body_limit(scope)

        async def receive_limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        return receive_limited


def _relative(name: bytes, value: bytes) -> tuple[bytes, bytes]:
    """A header, its Location made relative: the site redirects only to itself, and an absolute address
    would be built from the request's Host header (Starlette's trailing-slash redirect), which a client
    chooses (issue 54, L6)."""
    if name.lower() == b"location" and value.startswith((b"http://", b"https://")):
        path = value.split(b"/", 3)[3] if value.count(b"/") >= 3 else b""
        # One leading slash: "//host" or "/\\host" would be another site's address to a browser.
        return name, b"/" + path.lstrip(b"/\\")
    return name, value


NUL_REFUSED: Final = "the address holds a NUL character (%00), which no page, name or ID contains — remove it"


class BodyTooLarge(Exception):
    """A chunked body grew past the limit (the app answers 413)."""


async def _plain_error(scope: Scope, send: Send, status: int, message: str) -> None:
    """The refusal in the form the path asks for: JSON under /api/, a short text page elsewhere."""
    if scope.get("path", "").startswith("/api/"):
        body = json.dumps({"error": message}, ensure_ascii=False).encode()
        kind = b"application/json"
    else:
        body = f"Error: {message}\n".encode()
        kind = b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
