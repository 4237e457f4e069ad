"""Email notices: queued in the database with the change they tell of, sent later, with retries.

Who hears what (issue 52):
- the organiser, when the officer accepts their file, sends it back with words for them, or rejects it
  (`queue_decision`, called by services.submissions);
- officers and admins, when a file waits: at once (`queue_files_waiting`, at each file sent) or in one
  daily digest (`queue_digests`, by the sender), as each chose (`UserContact.files_waiting`);
- an account's owner, when their role, password or second factor changes, or their address (told to the
  old one): `queue_account_change`, which services.users calls and a second factor's service may call;
- the owner of a password reset asked for: its link (services.password_reset).

A notice is a row of `notice`, written in the transaction of the change: sending never slows or fails a
request, and a change rolled back queues nothing. Only an account with an address (`web_user_contact`)
gets notices. The row keeps the facts (a file's name, the officer's words), never a secret; the text is
written when it is sent, in the recipient's language, plain, with a link to the site's public address.
A reset's token is made at that moment too, and only its SHA-256 is kept.

`send_due` sends what is due, one notice a transaction: it takes the notice (an UPDATE that one of several
workers wins), hands it to the SMTP server outside any transaction, and records what happened: sent, or
tried again after a wait that doubles from a minute to six hours, or failed for good (the server refused
the address, or MAX_ATTEMPTS tries) with the reason, which the admin's desk and `ratingdb notices list`
show. The served site runs it in the background (ratingdb.web.sending); `ratingdb notices send` runs it
once, for a timer. Takes a Session or the unit of work; never commits. No web or CLI imports.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from ratingdb import mail
from ratingdb.db import UnitOfWork
from ratingdb.errors import ConfigError
from ratingdb.i18n import LANGUAGES, N_, Language, translatable
from ratingdb.mail import SendFailed, SmtpSettings
from ratingdb.schema.models import (
    NOTICE_CHOICES,
    Notice,
    PasswordReset,
    Submission,
    UserContact,
    WebUser,
)
from ratingdb.services.versions import record_change

FIRST_WAIT: Final = dt.timedelta(minutes=1)  # after the first failed try; doubling with each further one
LONGEST_WAIT: Final = dt.timedelta(hours=6)
MAX_ATTEMPTS: Final = 12  # a day and a half of tries (1 + 2 + … + 256 minutes, then every 6 hours)
CLAIM: Final = dt.timedelta(minutes=5)  # a taken notice is someone's for this long (then taken again)
KEPT: Final = dt.timedelta(days=90)  # sent and failed notices are deleted after this
RESET_LIFETIME: Final = dt.timedelta(hours=1)  # a reset's link works this long after it was sent
DIGEST_HOUR: Final = 7  # the daily digest goes out at the first sending from this hour (UTC) on
ACCOUNT_CHANGES: Final = ("role", "password", "second_factor")


@dataclass(frozen=True)
class NoticeSettings:
    """How notices are sent: the SMTP server and from-address (ratingdb.mail), the site's public address
    (links are made from it) and its name (every subject starts with it)."""

    smtp: SmtpSettings
    public_url: str
    title: str


def notice_settings(
    smtp_url: str | None, mail_from: str | None, public_url: str | None, title: str
) -> NoticeSettings | None:
    """The settings RATINGDB_SMTP_URL, RATINGDB_MAIL_FROM and RATINGDB_PUBLIC_URL give (None when no SMTP
    URL is set: nothing is sent, notices wait in the queue), or a ConfigError naming what is missing."""
    if not (smtp_url or "").strip():
        return None
    if not (mail_from or "").strip():
        raise ConfigError(
            "RATINGDB_SMTP_URL is set but not the from-address — set RATINGDB_MAIL_FROM (or --mail-from), "
            "e.g. ratings@example.org"
        )
    return NoticeSettings(
        smtp=mail.smtp_settings(str(smtp_url), str(mail_from)),
        public_url=check_public_url(public_url),
        title=title,
    )


def check_public_url(public_url: str | None) -> str:
    """The site's public address as links start with it (https://ratings.example.org, no slash at the
    end), or a ConfigError: without it no notice could carry a link."""
    given = (public_url or "").strip().rstrip("/")
    if not given:
        raise ConfigError(
            "the site's public address is not set — set RATINGDB_PUBLIC_URL (or --public-url), e.g. "
            "https://ratings.example.org, so that notices can link to the site"
        )
    if not given.startswith(("https://", "http://")) or any(c.isspace() for c in given):
        raise ConfigError(
            f"the public address '{given}' is not a web address — write it as https://ratings.example.org"
        )
    return given


def now() -> dt.datetime:
    """The time as stored (UTC without a zone: the same on every engine)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


# -- where an account hears from the site -----------------------------------------------------------------


def contact_of(session: Session, user: WebUser) -> UserContact | None:
    return session.get(UserContact, user.id)


def set_contact(
    session: Session,
    user: WebUser,
    email: str | None = None,
    *,
    language: str | None = None,
    files_waiting: str | None = None,
) -> UserContact | None:
    """Set the account's address (`email`; "" takes it away: no more notices), its notices' language and,
    for officers and admins, when they hear of files waiting (at_once, daily, never); what is None stays.
    A new address is told to the old one (a stolen session cannot quietly redirect the account's mail)."""
    contact = contact_of(session, user)
    if language is not None and language not in LANGUAGES:
        raise ConfigError(f"'{language}' is not a language of the site — use {', '.join(LANGUAGES)}")
    if files_waiting is not None and files_waiting not in NOTICE_CHOICES:
        raise ConfigError(f"'{files_waiting}' is not a choice — use at_once, daily or never")
    if email is not None and not email.strip():
        if contact is not None:
            session.delete(contact)
            record_change(session, "user-contact", f"user {user.username}: no email address")
            session.flush()
        return None
    new = _address_of(email) if email is not None else None
    if contact is None:
        if new is None:
            raise ConfigError(f"{user.username} has no email address — give one first")
        contact = UserContact(user_id=user.id, email=new, language=language or "en")
        contact.files_waiting = files_waiting or "daily"
        session.add(contact)
    else:
        old = contact.email
        if new is not None and new != old:
            _queue(session, user, old, contact.language, "address", {"new": new})
            contact.email = new
        if language is not None:
            contact.language = language
        if files_waiting is not None:
            contact.files_waiting = files_waiting
    record_change(
        session,
        "user-contact",
        f"user {user.username}: {contact.email}, {contact.language}, files waiting {contact.files_waiting}",
    )
    session.flush()
    return contact


NOT_AN_ADDRESS: Final = N_("'%(address)s' is not an email address — write it as name@example.org")


def _address_of(email: str) -> str:
    try:
        return mail.check_address(email)
    except ConfigError:
        given = email.strip()
        raise translatable(
            ConfigError(NOT_AN_ADDRESS % {"address": given}), NOT_AN_ADDRESS, address=given
        ) from None


def user_by_address(session: Session, email: str) -> WebUser | None:
    """The account whose address is `email` (one: the first made, if two share it)."""
    return session.scalar(
        select(WebUser)
        .join(UserContact, UserContact.user_id == WebUser.id)
        .where(UserContact.email == email.strip().lower())
        .order_by(WebUser.id)
        .limit(1)
    )


# -- queueing ---------------------------------------------------------------------------------------------


def _queue(
    session: Session,
    user: WebUser | None,
    address: str,
    language: str,
    kind: str,
    details: dict[str, Any],
    at: dt.datetime | None = None,
) -> Notice:
    at = at or now()
    notice = Notice(
        user_id=None if user is None else user.id,
        address=address,
        language=language,
        kind=kind,
        details=json.dumps({"name": None if user is None else user.username, **details}, ensure_ascii=False),
        status="waiting",
        attempts=0,
        created_at=at,
        next_try_at=at,
    )
    session.add(notice)
    session.flush()
    session.info["notices_queued"] = True  # the served site wakes its sender after the commit
    return notice


def queue(
    session: Session, user: WebUser, kind: str, *, at: dt.datetime | None = None, **details: Any
) -> Notice | None:
    """A notice of `kind` to `user` at their address, in their language, due `at` (now); None when they
    have no address."""
    contact = contact_of(session, user)
    if contact is None:
        return None
    return _queue(session, user, contact.email, contact.language, kind, details, at)


def queue_decision(session: Session, sub: Submission) -> Notice | None:
    """Tell the organiser of `sub` what the officer decided (accepted, changes_requested, rejected)."""
    organiser = session.get(WebUser, sub.organiser_id)
    if organiser is None or sub.status not in ("accepted", "changes_requested", "rejected"):
        return None
    return queue(
        session,
        organiser,
        sub.status,
        submission=sub.id,
        file=sub.file_name,
        reason=sub.officer_reason,
        event=sub.event_id,
    )


def queue_files_waiting(session: Session, sub: Submission) -> list[Notice]:
    """Tell the officers and admins who chose to hear at once that `sub` waits in the queue."""
    organiser = session.get(WebUser, sub.organiser_id)
    told = session.scalars(
        select(WebUser)
        .join(UserContact, UserContact.user_id == WebUser.id)
        .where(
            WebUser.role.in_(("officer", "admin")),
            WebUser.disabled.is_(False),
            UserContact.files_waiting == "at_once",
            WebUser.id != sub.organiser_id,
        )
        .order_by(WebUser.id)
    )
    found = [
        queue(
            session,
            officer,
            "waiting",
            submission=sub.id,
            file=sub.file_name,
            type=sub.rating_type,
            organiser=None if organiser is None else organiser.username,
        )
        for officer in told
    ]
    return [n for n in found if n is not None]


def queue_account_change(session: Session, user: WebUser, what: str, **details: Any) -> Notice | None:
    """Tell the owner of `user` that their account changed: `what` is "role" (details: role, before),
    "password" or "second_factor" (details: change, e.g. "enrolled", "removed", "new recovery codes").
    The hook for every service that changes an account; no secret belongs in `details`."""
    if what not in ACCOUNT_CHANGES:
        raise ValueError(f"{what!r} is not an account change ({', '.join(ACCOUNT_CHANGES)})")
    return queue(session, user, what, **details)


def queue_digests(session: Session, at: dt.datetime) -> list[Notice]:
    """Once a day (from DIGEST_HOUR, UTC), tell each officer and admin who chose the daily digest which
    files wait, if any do. Each account's day is taken by an UPDATE, so of several senders one sends it."""
    if at.hour < DIGEST_HOUR:
        return []
    today = at.date()
    readers = list(
        session.scalars(
            select(WebUser)
            .join(UserContact, UserContact.user_id == WebUser.id)
            .where(
                WebUser.role.in_(("officer", "admin")),
                WebUser.disabled.is_(False),
                UserContact.files_waiting == "daily",
                or_(UserContact.digest_on.is_(None), UserContact.digest_on < today),
            )
            .order_by(WebUser.id)
        )
    )
    if not readers:
        return []
    waiting = [
        {"submission": sub.id, "file": sub.file_name, "organiser": name}
        for sub, name in session.execute(
            select(Submission, WebUser.username)
            .join(WebUser, WebUser.id == Submission.organiser_id)
            .where(Submission.status == "submitted")
            .order_by(Submission.id)
        )
    ]
    queued = []
    for reader in readers:
        taken = session.execute(
            update(UserContact)
            .where(
                UserContact.user_id == reader.id,
                or_(UserContact.digest_on.is_(None), UserContact.digest_on < today),
            )
            .values(digest_on=today)
            .execution_options(synchronize_session=False)
        )
        if taken.rowcount != 1 or not waiting:  # type: ignore[attr-defined]
            continue
        found = queue(session, reader, "digest", at=at, files=waiting)
        if found is not None:
            queued.append(found)
    return queued


# -- sending ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Written:
    """A notice taken for sending and written out."""

    id: int
    address: str
    language: str
    subject: str
    body: str


@dataclass
class SendReport:
    """What one `send_due` did: notices sent, put back to try later, failed for good."""

    sent: int = 0
    retried: int = 0
    failed: int = 0
    digests: int = 0
    last_error: str | None = None


def send_due(
    work: UnitOfWork,
    settings: NoticeSettings,
    *,
    at: dt.datetime | None = None,
    every_waiting: bool = False,
    limit: int = 500,
) -> SendReport:
    """Send the notices that are due (each in transactions of its own: taken, sent, recorded); with
    `every_waiting` also those waiting out a retry's wait (after the mail server is mended). The daily
    digests are queued first; old sent and failed notices, and resets asked for over a day ago, are
    deleted."""
    at = at or now()
    report = SendReport()
    with work.transaction() as session:
        report.digests = len(queue_digests(session, at))
        session.execute(delete(Notice).where(Notice.status != "waiting", Notice.created_at < at - KEPT))
        # Resets asked for over a day ago: used, expired or never sent, none opens anything any more.
        session.execute(delete(PasswordReset).where(PasswordReset.requested_at < at - dt.timedelta(days=1)))
    for _ in range(limit):
        with work.transaction() as session:
            written = _take(session, settings, at, every_waiting)
        if written is None:
            break
        try:
            mail.send(
                settings.smtp,
                mail.message(settings.smtp, written.address, written.subject, written.body, written.language),
            )
        except SendFailed as failed:
            with work.transaction() as session:
                gave_up = _record_failure(session, written.id, failed, at)
            report.last_error = failed.why
            if gave_up:
                report.failed += 1
            else:
                report.retried += 1
                if not failed.lasting:
                    # The server is down or busy: the other notices would fail alike. They wait their turn.
                    break
            continue
        with work.transaction() as session:
            session.execute(
                update(Notice)
                .where(Notice.id == written.id)
                .values(status="sent", sent_at=now(), claimed_until=None, last_error=None)
                .execution_options(synchronize_session=False)
            )
        report.sent += 1
    return report


def _take(session: Session, settings: NoticeSettings, at: dt.datetime, every_waiting: bool) -> Written | None:
    """The next notice due, taken for CLAIM and written out; None when none is."""
    free = or_(Notice.claimed_until.is_(None), Notice.claimed_until < at)
    due = select(Notice.id).where(Notice.status == "waiting", free)
    if not every_waiting:
        due = due.where(Notice.next_try_at <= at)
    for notice_id in session.scalars(due.order_by(Notice.next_try_at, Notice.id).limit(20)).all():
        taken = session.execute(
            update(Notice)
            .where(Notice.id == notice_id, Notice.status == "waiting", free)
            .values(claimed_until=at + CLAIM, attempts=Notice.attempts + 1)
            .execution_options(synchronize_session=False)
        )
        if taken.rowcount != 1:  # type: ignore[attr-defined]
            continue  # another sender took it
        notice = session.get_one(Notice, notice_id, populate_existing=True)
        try:
            subject, body = write(session, notice, settings, at)
        except Gone as gone:
            notice.status, notice.last_error, notice.claimed_until = "failed", gone.why, None
            session.flush()
            continue
        return Written(notice.id, notice.address, notice.language, subject, body)
    return None


def _record_failure(session: Session, notice_id: int, failed: SendFailed, at: dt.datetime) -> bool:
    """Record a try that failed: put back to try after a wait, or failed for good. True if given up."""
    notice = session.get_one(Notice, notice_id, populate_existing=True)
    notice.last_error = failed.why[:500]
    notice.claimed_until = None
    gave_up = failed.lasting or notice.attempts >= MAX_ATTEMPTS
    if gave_up:
        notice.status = "failed"
    else:
        notice.next_try_at = at + retry_wait(notice.attempts)
    session.flush()
    return gave_up


def retry_wait(attempts: int) -> dt.timedelta:
    """The wait after the `attempts`-th failed try: a minute, doubling, at most LONGEST_WAIT."""
    return min(LONGEST_WAIT, FIRST_WAIT * 2 ** min(attempts - 1, 20))


def send_again(session: Session, notice_id: int) -> Notice:
    """A failed notice queued again, due now (after the address or the server is mended)."""
    notice = session.get(Notice, notice_id)
    if notice is None:
        raise ConfigError(f"there is no notice {notice_id} — see `ratingdb notices list`")
    if notice.status != "failed":
        raise ConfigError(f"notice {notice_id} is {notice.status}: only a failed notice is sent again")
    notice.status, notice.attempts, notice.next_try_at, notice.claimed_until = "waiting", 0, now(), None
    record_change(session, "user-notice", f"notice {notice_id} to {notice.address} queued again")
    session.flush()
    return notice


def notices(session: Session, status: str | None = None, limit: int = 200) -> list[Notice]:
    """The newest notices, of `status` if given (waiting, sent, failed)."""
    query = select(Notice).order_by(Notice.id.desc()).limit(limit)
    if status is not None:
        if status not in ("waiting", "sent", "failed"):
            raise ConfigError(f"'{status}' is not a notice's status — use waiting, sent or failed")
        query = query.where(Notice.status == status)
    return list(session.scalars(query))


def counts(session: Session) -> dict[str, int]:
    """How many notices are waiting, sent and failed."""
    found = {
        str(status): int(n)
        for status, n in session.execute(select(Notice.status, func.count()).group_by(Notice.status))
    }
    return {status: int(found.get(status, 0)) for status in ("waiting", "sent", "failed")}


# -- the texts --------------------------------------------------------------------------------------------


class Gone(Exception):
    """A notice that can no longer be written (its reset was used or its account deleted)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


ROLE_WORDS: Final = {"organiser": N_("organiser"), "officer": N_("officer"), "admin": N_("admin")}
SUBJECTS: Final = {
    "accepted": N_("%(site)s: your file %(file)s was accepted"),
    "changes_requested": N_("%(site)s: your file %(file)s was sent back for changes"),
    "rejected": N_("%(site)s: your file %(file)s was rejected"),
    "waiting": N_("%(site)s: a file waits in the queue: %(file)s"),
    "role": N_("%(site)s: your role was changed"),
    "password": N_("%(site)s: your password was changed"),
    "second_factor": N_("%(site)s: your second factor was changed"),
    "address": N_("%(site)s: your email address was changed"),
    "reset": N_("%(site)s: choose a new password"),
}
BODIES: Final = {
    "accepted": N_(
        "The rating officer accepted your file %(file)s (submission %(number)s). It is imported, and its "
        "games are rated when their month is closed."
    ),
    "changes_requested": N_(
        "The rating officer sent your file %(file)s (submission %(number)s) back to you for changes, and "
        "wrote:"
    ),
    "rejected": N_("The rating officer rejected your file %(file)s (submission %(number)s), and wrote:"),
    "waiting": N_("%(organiser)s sent the %(type)s file %(file)s (submission %(number)s). It waits for you."),
    "role": N_(
        "Your account %(name)s is now %(role)s (it was %(before)s). You were signed out; sign in again to "
        "work with your new role."
    ),
    "password": N_(
        "The password of your account %(name)s was changed, and every session of the account was ended. "
        "If you did not change it, ask for a new password at once and tell an admin."
    ),
    "second_factor": N_(
        "The second factor of your account %(name)s was changed (%(change)s). If you did not do this, tell "
        "an admin at once."
    ),
    "address": N_(
        "The email address of your account %(name)s was changed to %(new)s: notices go there from now "
        "on. If you did not change it, tell an admin at once."
    ),
    "reset": N_(
        "Someone, you we hope, asked for a new password for the account %(name)s. Choose it at the address "
        "below within %(minutes)s minutes; the link works once. If you did not ask, ignore this message: "
        "your password stays as it is."
    ),
}
LINK_WORDS: Final = {
    "accepted": N_("Your submission:"),
    "changes_requested": N_("Send a corrected file here:"),
    "rejected": N_("Your submission:"),
    "waiting": N_("Review it here:"),
    "digest": N_("The queue:"),
    "role": N_("Sign in:"),
    "password": N_("Sign in:"),
    "second_factor": N_("Sign in:"),
    "address": N_("Sign in:"),
    "reset": N_("Choose a new password:"),
}
DIGEST_SUBJECT: Final = N_("%(site)s: files waiting in the queue: %(count)s")
DIGEST_BODY: Final = N_("Files waiting in the queue:")
DIGEST_LINE: Final = N_("%(file)s (submission %(number)s, from %(organiser)s)")
SIGNATURE: Final = N_(
    "This message was sent by %(site)s to the address of the account %(name)s. You can change the "
    "address, or whether you hear of files waiting, on your account page: %(account)s"
)
SECOND_FACTOR_CHANGES: Final = {
    "enrolled": N_("a new one was enrolled"),
    "removed": N_("it was removed"),
    "recovery_codes": N_("new recovery codes were made"),
    "recovery_code_used": N_("a recovery code was used"),
}


def write(session: Session, notice: Notice, settings: NoticeSettings, at: dt.datetime) -> tuple[str, str]:
    """A notice's subject and plain text, in its language, with its link (a reset's token made now)."""
    lang = Language(notice.language if notice.language in LANGUAGES else "en")
    facts: dict[str, Any] = json.loads(notice.details)
    site = settings.public_url
    values: dict[str, Any] = {
        "site": settings.title,
        "name": facts.get("name") or "",
        "file": facts.get("file") or "",
        "number": facts.get("submission") or "",
        "organiser": facts.get("organiser") or "",
        "type": lang.type_word(str(facts.get("type") or "")),
        "new": facts.get("new") or "",
    }
    kind = notice.kind
    paragraphs: list[str] = []
    if kind == "digest":
        files = facts.get("files") or []
        values["count"] = lang.count(len(files))
        subject = lang.gettext(DIGEST_SUBJECT) % values
        paragraphs.append(lang.gettext(DIGEST_BODY))
        paragraphs.append(
            "\n".join(
                "- " + lang.gettext(DIGEST_LINE) % {**values, "file": f["file"], "number": f["submission"],
                                                   "organiser": f["organiser"]}
                for f in files
            )
        )  # fmt: skip
        link = f"{site}/desk/queue"
    else:
        subject = lang.gettext(SUBJECTS[kind]) % values
        if kind == "role":
            values["role"] = _role(lang, facts.get("role"))
            values["before"] = _role(lang, facts.get("before"))
        if kind == "second_factor":
            change = str(facts.get("change") or "")
            values["change"] = (
                lang.gettext(SECOND_FACTOR_CHANGES[change]) if change in SECOND_FACTOR_CHANGES else change
            )
        link = _link(session, notice, facts, site, at)
        values["minutes"] = int(RESET_LIFETIME.total_seconds() // 60)
        paragraphs.append(lang.gettext(BODIES[kind]) % values)
        if kind in ("changes_requested", "rejected"):
            paragraphs.append("\n".join("> " + line for line in str(facts.get("reason") or "").splitlines()))
    paragraphs.append(f"{lang.gettext(LINK_WORDS[kind])}\n{link}")
    paragraphs.append("-- \n" + lang.gettext(SIGNATURE) % {**values, "account": f"{site}/desk/contact"})
    return " ".join(subject.split()), "\n\n".join(paragraphs) + "\n"


def _role(lang: Language, role: object) -> str:
    return lang.gettext(ROLE_WORDS[str(role)]) if str(role) in ROLE_WORDS else str(role or "")


def _link(session: Session, notice: Notice, facts: dict[str, Any], site: str, at: dt.datetime) -> str:
    kind = notice.kind
    if kind in ("accepted", "changes_requested", "rejected"):
        return f"{site}/desk/submissions/{facts['submission']}"
    if kind == "waiting":
        return f"{site}/desk/queue/{facts['submission']}"
    if kind == "reset":
        reset = session.get(PasswordReset, facts.get("reset"))
        if reset is None or reset.used_at is not None:
            raise Gone("the reset was used or withdrawn before its link was sent")
        # The token is made here and only its hash kept: the queue never holds a working link. A second
        # try makes a new one (the first was never received).
        token = secrets.token_urlsafe(32)
        reset.token_hash = reset_token_hash(token)
        reset.expires_at = at + RESET_LIFETIME
        session.flush()
        return f"{site}/password-reset/{token}"
    return f"{site}/login"


def reset_token_hash(token: str) -> str:
    """What password_reset keeps of a reset link's token: its SHA-256."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
