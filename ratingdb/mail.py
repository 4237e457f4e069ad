"""Email through an SMTP server: the server's settings read from one URL, and one message sent.

The standard library's smtplib and email packages (the protocol and the message format, well kept and
nothing to install); this module only reads the settings and sorts a failure into one that may pass (the
server down or busy: try again later) and one that will not (the server refuses the address: give up).
Imports the standard library and ratingdb.errors only.

RATINGDB_SMTP_URL names the server, one of:
    smtp://HOST[:PORT]               plain SMTP (port 25), for a relay on the same machine or network
    smtp+starttls://[USER:PASSWORD@]HOST[:PORT]    STARTTLS required (port 587), the submission port
    smtps://[USER:PASSWORD@]HOST[:PORT]            TLS from the first byte (port 465)
with `?timeout=SECONDS` (default 20). The user and password are percent-encoded in the URL, and never
shown: `SmtpSettings.shown` writes the URL without them.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import smtplib
import ssl
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Final
from urllib.parse import parse_qs, unquote, urlsplit

from ratingdb.errors import ConfigError

SCHEMES: Final = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}
DEFAULT_TIMEOUT: Final = 20.0


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how to hand a message over: the server, its security, the login, who it is from."""

    scheme: str
    host: str
    port: int
    sender: str
    user: str | None = None
    password: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @property
    def shown(self) -> str:
        """The URL as it may be printed: no user, no password."""
        return f"{self.scheme}://{self.host}:{self.port}"


def smtp_settings(url: str, sender: str) -> SmtpSettings:
    """The settings of RATINGDB_SMTP_URL `url` and the from-address `sender`, or a ConfigError naming what
    is wrong (never repeating the password)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise ConfigError(
            "RATINGDB_SMTP_URL is not a URL — write it as smtp://HOST:PORT, "
            "smtp+starttls://USER:PASSWORD@HOST or smtps://USER:PASSWORD@HOST"
        ) from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise ConfigError(
            f"RATINGDB_SMTP_URL starts with '{scheme}://' — use smtp://, smtp+starttls:// or smtps://"
        )
    if not parts.hostname:
        raise ConfigError("RATINGDB_SMTP_URL names no server — write it as smtp://HOST:PORT")
    if scheme == "smtp" and parts.username:
        # A password sent in the clear to a server on the network: refused rather than done quietly.
        raise ConfigError(
            "RATINGDB_SMTP_URL gives a login to plain smtp:// — use smtp+starttls:// or smtps://, so that "
            "the password travels encrypted"
        )
    query = parse_qs(parts.query)
    timeout = DEFAULT_TIMEOUT
    if "timeout" in query:
        try:
            timeout = float(query["timeout"][-1])
        except ValueError:
            raise ConfigError(
                "RATINGDB_SMTP_URL's timeout is not a number of seconds, e.g. ?timeout=20"
            ) from None
    return SmtpSettings(
        scheme=scheme,
        host=parts.hostname,
        port=port or SCHEMES[scheme],
        sender=check_address(sender, "the from-address (RATINGDB_MAIL_FROM)"),
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        timeout=timeout,
    )


def check_address(address: str, what: str = "the email address") -> str:
    """`address` as one plain mailbox (name@domain, no display name, no line breaks), lower-cased, or a
    ConfigError saying what it should look like."""
    given = address.strip()
    refused = ConfigError(f"{what} '{given}' is not an email address — write it as name@example.org")
    if (
        not given
        or len(given) > 254
        or any(c.isspace() or ord(c) < 32 for c in given)
        or given.count("@") != 1
    ):
        raise refused
    local, domain = given.split("@")
    if not local or "." not in domain or domain.startswith(".") or domain.endswith("."):
        raise refused
    try:
        Address(addr_spec=given)
    except (ValueError, IndexError):
        raise refused from None
    return given.lower()


class SendFailed(Exception):
    """A message not handed over. `lasting`: the server refused it for good (an address it will not take),
    so trying again would not help; otherwise (the server down, busy, a timeout) a later try may."""

    def __init__(self, why: str, lasting: bool) -> None:
        super().__init__(why)
        self.why = why
        self.lasting = lasting


def message(settings: SmtpSettings, to: str, subject: str, body: str, language: str) -> EmailMessage:
    """A plain-text message in UTF-8, marked as sent by a program (RFC 3834: no auto-replies to it)."""
    # Lines up to RFC 5322's limit: folded at 78, Python (3.11 to 3.13 at least) writes two encoded words
    # side by side for "Überarbeitung zurückgeschickt", and every reader drops the space between them.
    msg = EmailMessage(policy=email.policy.default.clone(max_line_length=998))
    msg["From"] = settings.sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(_now_utc())
    msg["Message-ID"] = make_msgid(domain=settings.sender.rsplit("@", 1)[-1])
    msg["Auto-Submitted"] = "auto-generated"
    msg.set_content(body, charset="utf-8")
    msg["Content-Language"] = language  # after set_content, which replaces the Content- headers
    return msg


def send(settings: SmtpSettings, msg: EmailMessage) -> None:
    """Hand `msg` to the server, or raise SendFailed with why, in one line without the password."""
    try:
        if settings.scheme == "smtps":
            context = ssl.create_default_context()
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                settings.host, settings.port, timeout=settings.timeout, context=context
            )
        else:
            client = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
        with client:
            if settings.scheme == "smtp+starttls":
                client.starttls(context=ssl.create_default_context())
            if settings.user is not None:
                client.login(settings.user, settings.password or "")
            client.send_message(msg)
    except smtplib.SMTPRecipientsRefused as exc:
        codes = [code for code, _ in exc.recipients.values()]
        lasting = all(500 <= code < 600 for code in codes)
        raise SendFailed(f"the server refused the address ({_said(exc.recipients)})", lasting) from None
    except smtplib.SMTPAuthenticationError as exc:
        raise SendFailed(f"the server refused the login ({exc.smtp_code})", False) from None
    except smtplib.SMTPResponseException as exc:
        lasting = 500 <= exc.smtp_code < 600
        raise SendFailed(f"the server answered {exc.smtp_code} {_text(exc.smtp_error)}", lasting) from None
    except smtplib.SMTPNotSupportedError:
        raise SendFailed(
            "the server does not offer STARTTLS — use smtps:// or another server", False
        ) from None
    except (smtplib.SMTPException, ssl.SSLError) as exc:
        raise SendFailed(f"the server could not be spoken with: {exc}", False) from None
    except TimeoutError:
        raise SendFailed(f"no answer from {settings.shown} within {settings.timeout:g} s", False) from None
    except OSError as exc:
        raise SendFailed(f"cannot reach {settings.shown}: {exc.strerror or exc}", False) from None


def _said(recipients: dict[str, tuple[int, bytes]]) -> str:
    return "; ".join(f"{code} {_text(words)}" for code, words in recipients.values())


def _text(words: bytes | str) -> str:
    said = words.decode("utf-8", "replace") if isinstance(words, bytes) else words
    return " ".join(said.split())[:200]


def _now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
