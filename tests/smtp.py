"""A real SMTP server for the notices' tests: aiosmtpd on 127.0.0.1, on a free port, started and stopped
by the test; every message it takes is parsed and kept in its inbox."""

from __future__ import annotations

import email
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import default
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Inbox:
    """What the server took: each message parsed, with the envelope's recipients."""

    messages: list[EmailMessage] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 — aiosmtpd's name
        parsed = email.message_from_bytes(envelope.original_content or envelope.content, policy=default)
        assert isinstance(parsed, EmailMessage)
        parsed["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(parsed)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]

    def wait_for(self, count: int, seconds: float = 10.0) -> list[EmailMessage]:
        """The messages once at least `count` came (a background sender's), or those that came in time."""
        end = time.monotonic() + seconds
        while len(self.messages) < count and time.monotonic() < end:
            time.sleep(0.05)
        return self.messages


def body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def smtp_server(port: int | None = None, inbox: Inbox | None = None) -> Iterator[tuple[Inbox, int]]:
    """An SMTP server on 127.0.0.1:`port` (a free one if None) until the block ends."""
    inbox = inbox if inbox is not None else Inbox()
    port = port or free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def subject(message: EmailMessage) -> str:
    """The subject as a mail program shows it (a long one is folded onto a line of its own)."""
    return " ".join(str(message["Subject"]).split())
