"""Self-service password resets by email (issue 52): asked for with a name or address, finished with the
link's token and a new password.

- The answer to a request is the same whether the name or address is known or not (REQUESTED), and an
  unknown one costs the same work but the email; the link goes only to the account's own address.
- A token is 32 random bytes, made when its notice is sent (ratingdb.services.notices) so that it is never
  stored: `password_reset` keeps its SHA-256, when it expires (notices.RESET_LIFETIME after sending) and
  when it was used. It works once; a new password ends every session of the account (users.reset_password,
  which also unlocks it and tells the owner), and every other reset of the account is withdrawn.
- Limited like sign-in: every request and every wrong token counts as a failure of the address
  (users.count_address_failure: the same windows and doubling waits as wrong passwords), and an account
  gets at most REQUESTS_PER_HOUR links an hour, so no one can fill a stranger's mailbox.

Takes a Session, never commits. No web or CLI imports.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ratingdb.i18n import N_
from ratingdb.schema.models import PasswordReset, WebUser
from ratingdb.services import notices, users
from ratingdb.services.versions import record_change

REQUESTS_PER_HOUR: Final = 3
REQUESTED: Final = N_(
    "If the name or address belongs to an account with an email address, a link to choose a new password "
    "is on its way to that address. It works once, for an hour. If nothing comes, ask an admin."
)
NOT_VALID: Final = N_(
    "This link to choose a new password is not valid: it was used already, it is too old, or it was "
    "mistyped — ask for a new one"
)
WAIT: Final = N_("Too many tries from your address — wait a few minutes and try again")


@dataclass(frozen=True)
class Requested:
    """What a request did (for the tests and the audit; the visitor sees REQUESTED whatever it is)."""

    queued: bool
    waiting: bool  # the address waits: nothing was looked up


def request_reset(session: Session, who: str, address: str) -> Requested:
    """A reset asked for by a user name or an email address `who`, from the network address `address`.
    The caller commits whatever happens (the failure counted) and shows REQUESTED."""
    at = users.now()
    if users.address_waits_until(session, address, at) is not None:
        return Requested(False, True)
    users.count_address_failure(session, address)  # every request counts, as a wrong password does
    given = who.strip().lower()[:254]
    user = notices.user_by_address(session, given) if "@" in given else None
    if user is None and given:
        user = session.scalar(select(WebUser).where(WebUser.username == given[:64]))
    if user is None or user.disabled or notices.contact_of(session, user) is None:
        return Requested(False, False)
    asked = session.scalar(
        select(func.count())
        .select_from(PasswordReset)
        .where(PasswordReset.user_id == user.id, PasswordReset.requested_at > at - dt.timedelta(hours=1))
    )
    if int(asked or 0) >= REQUESTS_PER_HOUR:
        return Requested(False, False)
    reset = PasswordReset(user_id=user.id, requested_at=at, address=address[:64])
    session.add(reset)
    session.flush()
    notices.queue(session, user, "reset", reset=reset.id)
    record_change(session, "user-reset-asked", f"password reset asked for user {user.username}")
    return Requested(True, False)


def reset_for(session: Session, token: str, at: dt.datetime | None = None) -> PasswordReset | None:
    """The reset the token opens: unused, not expired; None otherwise."""
    if not token or len(token) > 200:
        return None
    at = at or users.now()
    found = session.scalar(
        select(PasswordReset).where(PasswordReset.token_hash == notices.reset_token_hash(token))
    )
    if found is None or found.used_at is not None or found.expires_at is None or found.expires_at <= at:
        return None
    return found


@dataclass(frozen=True)
class Finished:
    """What finishing a reset did: `user` the account whose password changed, or None with `refusal` (the
    catalogue message NOT_VALID or WAIT); the caller commits either way (a wrong token is counted)."""

    user: WebUser | None
    refusal: str | None = None


def finish_reset(session: Session, token: str, password: str, address: str) -> Finished:
    """Set the new password of the reset `token` opens; its account's sessions end. A password the rules
    refuse raises their ConfigError (nothing changes, the link still works)."""
    at = users.now()
    if users.address_waits_until(session, address, at) is not None:
        return Finished(None, WAIT)
    # Taken first (an UPDATE that one of two clicks wins): a token works once, even twice at the same time.
    reset = reset_for(session, token, at)
    if reset is None:
        users.count_address_failure(session, address)
        return Finished(None, NOT_VALID)
    taken = session.execute(
        update(PasswordReset)
        .where(PasswordReset.id == reset.id, PasswordReset.used_at.is_(None))
        .values(used_at=at)
        .execution_options(synchronize_session=False)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        users.count_address_failure(session, address)
        return Finished(None, NOT_VALID)
    user = session.get_one(WebUser, reset.user_id)
    if user.disabled:
        return Finished(None, NOT_VALID)
    users.reset_password(session, user.username, password)  # ends every session; tells the owner
    # Every other link of the account is withdrawn: one new password, one way to it.
    session.execute(
        update(PasswordReset)
        .where(PasswordReset.user_id == user.id, PasswordReset.used_at.is_(None))
        .values(used_at=at)
        .execution_options(synchronize_session=False)
    )
    return Finished(user)
