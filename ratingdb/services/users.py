"""People who sign in to the served site: accounts, passwords, login limits and server-side sessions.

Not database accounts (ratingdb.accounts is about those). One service for both front ends: `ratingdb user
add|list|disable|enable|set-role|reset-password|unlock` and the admin pages call these functions, and the
login page calls `log_in`, `session_user` and `log_out`.

- Passwords are hashed with argon2id (argon2-cffi, the reference implementation's bindings, at its
  RFC 9106 "low memory" profile); only the hash is stored, and no function logs or returns a password.
- A session is a random token in the browser's cookie and the SHA-256 of it in `web_session`: logout,
  disabling, a role change and a new password delete the rows, which ends the session at the next request.
- Login limits: an account is locked after MAX_ACCOUNT_FAILURES failures in a row (an admin lifts it:
  `user unlock NAME`), an address is refused for ADDRESS_WINDOW after MAX_ADDRESS_FAILURES failures in
  it (`user unlock --address ADDR` lifts it). Every refusal says the same sentence (LOGIN_REFUSED), for a
  wrong password, an unknown name, a disabled or a locked account alike: no account can be found out.

Takes a Session, never commits. No web or CLI imports.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.schema.models import WEB_ROLES, LoginAttempt, WebSession, WebUser
from ratingdb.services.versions import record_change

if TYPE_CHECKING:
    from argon2 import PasswordHasher

MIN_PASSWORD: Final = 10
MAX_PASSWORD: Final = 1000  # argon2 takes any length; a megabyte "password" is a denial of service
MAX_ACCOUNT_FAILURES: Final = 5
MAX_ADDRESS_FAILURES: Final = 20
ADDRESS_WINDOW: Final = dt.timedelta(minutes=15)
SESSION_LIFETIME: Final = dt.timedelta(hours=8)
LOGIN_REFUSED: Final = (
    "the name or password is not right, or the account may not sign in now — try again, or ask an admin"
)
_USERNAME = re.compile(r"[a-z0-9][a-z0-9._-]{1,63}")


def _hasher() -> PasswordHasher:
    from argon2 import PasswordHasher
    from argon2.profiles import RFC_9106_LOW_MEMORY

    return PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY)


def now() -> dt.datetime:
    """The time as stored (UTC without a zone: the same on every engine)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def hash_password(password: str) -> str:
    check_password(password)
    return str(_hasher().hash(password))


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise ConfigError(f"the password is shorter than {MIN_PASSWORD} characters — choose a longer one")
    if len(password) > MAX_PASSWORD:
        raise ConfigError(f"the password is longer than {MAX_PASSWORD} characters — choose a shorter one")


def _verify(stored: str, password: str) -> bool:
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return bool(_hasher().verify(stored, password))
    except (VerificationError, InvalidHashError):
        return False


# A hash to verify against when the name is unknown, so that an unknown name takes as long as a known one.
_DUMMY: list[str] = []


def _dummy_hash() -> str:
    if not _DUMMY:
        _DUMMY.append(str(_hasher().hash(secrets.token_urlsafe(16))))
    return _DUMMY[0]


def check_role(role: str) -> str:
    if role not in WEB_ROLES:
        raise ConfigError(f"'{role}' is not a role — use organiser, officer or admin")
    return role


def check_username(username: str) -> str:
    name = username.strip().lower()
    if not _USERNAME.fullmatch(name):
        raise ConfigError(
            f"'{username}' is not a user name — use 2 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def find_user(session: Session, username: str) -> WebUser:
    user = session.scalar(select(WebUser).where(WebUser.username == username.strip().lower()))
    if user is None:
        raise ConfigError(f"there is no user {username.strip().lower()!r} — see `ratingdb user list`")
    return user


def add_user(session: Session, username: str, role: str, password: str) -> WebUser:
    """A new account; refused if the name is taken."""
    name = check_username(username)
    check_role(role)
    if session.scalar(select(WebUser.id).where(WebUser.username == name)) is not None:
        raise ConfigError(f"there is already a user {name!r} — choose another name")
    user = WebUser(username=name, role=role, password_hash=hash_password(password))
    session.add(user)
    session.flush()
    record_change(session, "user-add", f"added user {name} ({role})")
    return user


def list_users(session: Session) -> list[WebUser]:
    return list(session.scalars(select(WebUser).order_by(WebUser.username)))


def end_sessions(session: Session, user: WebUser) -> int:
    """Delete every session of `user`: each browser signed in as them is signed out at its next request."""
    result = session.execute(delete(WebSession).where(WebSession.user_id == user.id))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def set_disabled(session: Session, username: str, disabled: bool) -> WebUser:
    user = find_user(session, username)
    user.disabled = disabled
    if disabled:
        end_sessions(session, user)
    record_change(session, "user-disable" if disabled else "user-enable", f"user {user.username}")
    session.flush()
    return user


def set_role(session: Session, username: str, role: str) -> tuple[WebUser, str]:
    """The user's new role and the old one; their sessions end (a role is read at sign-in)."""
    user = find_user(session, username)
    check_role(role)
    before = user.role
    user.role = role
    end_sessions(session, user)
    record_change(session, "user-role", f"user {user.username}: {before} → {role}")
    session.flush()
    return user, before


def reset_password(session: Session, username: str, password: str) -> WebUser:
    """A new password; the account is unlocked and its sessions end."""
    user = find_user(session, username)
    user.password_hash = hash_password(password)
    user.failed_logins = 0
    user.locked = False
    end_sessions(session, user)
    record_change(session, "user-password", f"new password for user {user.username}")
    session.flush()
    return user


def unlock(session: Session, username: str | None = None, address: str | None = None) -> str:
    """Lift the lockout of an account (its failures forgotten) or of an address (its failures deleted)."""
    if (username is None) == (address is None):
        raise ConfigError("name a user or give --address ADDRESS, not both")
    if username is not None:
        user = find_user(session, username)
        user.failed_logins = 0
        user.locked = False
        record_change(session, "user-unlock", f"user {user.username}")
        session.flush()
        return f"user {user.username}"
    assert address is not None
    session.execute(
        delete(LoginAttempt).where(LoginAttempt.address == address, LoginAttempt.succeeded.is_(False))
    )
    record_change(session, "user-unlock", f"address {address}")
    return f"address {address}"


def address_blocked(session: Session, address: str) -> bool:
    failures = session.scalar(
        select(func.count())
        .select_from(LoginAttempt)
        .where(
            LoginAttempt.address == address,
            LoginAttempt.succeeded.is_(False),
            LoginAttempt.at >= now() - ADDRESS_WINDOW,
        )
    )
    return int(failures or 0) >= MAX_ADDRESS_FAILURES


@dataclass(frozen=True)
class NewSession:
    token: str  # for the cookie only: the database keeps its hash
    user: WebUser
    expires_at: dt.datetime


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def log_in(session: Session, username: str, password: str, address: str) -> NewSession | None:
    """A new session for the right name and password, or None (LOGIN_REFUSED is the one answer to give).

    The attempt is recorded either way, so the caller commits after a refusal too: the limits count it.
    """
    address = address[:64]
    name = username.strip().lower()[:64]
    attempt = LoginAttempt(address=address, username=name, succeeded=False, at=now())
    session.add(attempt)
    session.flush()
    user = session.scalar(select(WebUser).where(WebUser.username == name))
    if len(password) > MAX_PASSWORD or address_blocked(session, address):
        return None
    if user is None:
        _verify(_dummy_hash(), password)  # as long as a known name takes
        return None
    if not _verify(user.password_hash, password):
        user.failed_logins += 1
        if user.failed_logins >= MAX_ACCOUNT_FAILURES:
            user.locked = True
        session.flush()
        return None
    if user.disabled or user.locked:
        return None
    attempt.succeeded = True
    user.failed_logins = 0
    token = secrets.token_urlsafe(32)
    started = now()
    expires = started + SESSION_LIFETIME
    session.add(
        WebSession(
            token_hash=token_hash(token),
            user_id=user.id,
            created_at=started,
            expires_at=expires,
            address=address,
        )
    )
    session.flush()
    return NewSession(token, user, expires)


def session_user(session: Session, token: str | None) -> WebUser | None:
    """The signed-in user of a cookie's token, or None (no token, an unknown or expired one, a disabled
    or locked account)."""
    if not token or len(token) > 200:
        return None
    row = session.scalar(select(WebSession).where(WebSession.token_hash == token_hash(token)))
    if row is None:
        return None
    if row.expires_at <= now():
        session.delete(row)
        session.flush()
        return None
    user = session.get(WebUser, row.user_id)
    if user is None or user.disabled or user.locked:
        return None
    return user


def log_out(session: Session, token: str | None) -> None:
    if token:
        session.execute(delete(WebSession).where(WebSession.token_hash == token_hash(token)))
