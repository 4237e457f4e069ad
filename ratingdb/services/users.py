"""People who sign in to the served site: accounts, passwords, login limits and server-side sessions.

Not database accounts (ratingdb.accounts is about those). One service for both front ends: `ratingdb user
add|list|disable|enable|set-role|reset-password|unlock` and the admin pages call these functions, and the
login page calls `begin_log_in`, `password_matches`, `finish_log_in`, `session_user` and `log_out`.

- A password is checked where it is set (`check_password`: ratingdb.passwords, NIST SP 800-63B's length
  by role, common-password list and context words) and refused as data (WeakPassword, worded by each
  front end).
- Passwords are hashed with argon2id (argon2-cffi, the reference implementation's bindings, at its
  RFC 9106 "low memory" profile); only the hash is stored, and no function logs or returns a password.
- A session is a random token in the browser's cookie and the SHA-256 of it in `web_session`: logout,
  disabling, a role change and a new password delete the rows, which ends the session at the next request.
- Login limits that strangers cannot turn against a user (issue 54): each failure adds 1 to the account's
  `failed_logins` in the database (one UPDATE: concurrent guesses lose no count) and to its address's row
  of the window (`login_failure`, one row per address and ADDRESS_WINDOW, counted up in place and pruned
  after KEPT_FAILURES). From its ACCOUNT_FREE_FAILURES-th failure in a row the account waits
  (`locked_until`), from its ADDRESS_FREE_FAILURES-th in two windows the address: 1 s, doubling with each
  further failure, at most LONGEST_DELAY, and then it ends by itself. A guess while the account waits is
  counted but does not move the end, so no one can keep it shut by guessing on; open sessions go on (a
  wait refuses new sign-ins only). `user unlock` ends a wait at once. Every refusal says the same
  sentence (LOGIN_REFUSED), for a wrong password, an unknown name, a disabled or a waiting account alike:
  no account can be found out, and an unknown name costs the same hash as a known one.
- A sign-in is three steps so that the front end can run the slow one, argon2 at 64 MiB, in a bounded pool
  outside any transaction (ratingdb.web.desk): `begin_log_in` reads, `password_matches` hashes,
  `finish_log_in` records; `log_in` is the three in one session.

Takes a Session, never commits. No web or CLI imports.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from sqlalchemy import DateTime, bindparam, delete, func, select, text, update
from sqlalchemy.orm import Session

from ratingdb import engines, passwords
from ratingdb.errors import ConfigError
from ratingdb.i18n import N_, translatable
from ratingdb.schema.models import WEB_ROLES, LoginFailure, WebSession, WebUser
from ratingdb.services.notices import queue_account_change
from ratingdb.services.versions import record_change

if TYPE_CHECKING:
    from argon2 import PasswordHasher

MAX_PASSWORD: Final = passwords.MAX_LENGTH
ACCOUNT_FREE_FAILURES: Final = 5  # the 5th failure in a row makes the account wait 1 s, the 6th 2 s, …
ADDRESS_FREE_FAILURES: Final = 20  # the same for an address, counted over this window and the one before
ADDRESS_WINDOW: Final = dt.timedelta(minutes=15)
LONGEST_DELAY: Final = dt.timedelta(minutes=15)
KEPT_FAILURES: Final = dt.timedelta(days=1)  # an address's windows older than this are deleted
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
    """The argon2id hash of a password already checked (`check_password`)."""
    return str(_hasher().hash(password))


class WeakPassword(ConfigError):
    """A password the rules refuse (ratingdb.passwords): its reason is data, worded by each front end."""

    def __init__(self, weakness: passwords.Weakness) -> None:
        super().__init__(weakness.sentence())
        self.weakness = weakness
        translatable(self, weakness.message, **weakness.values)


def check_password(password: str, *, role: str, username: str = "", site_name: str | None = None) -> None:
    """Refuse (WeakPassword) a password that an account of `role` named `username` may not have on the
    site named `site_name` (ratingdb.passwords: length by role, the common-password list, patterns,
    the account's and the site's name)."""
    found = passwords.weakness(password, role=role, user_name=username, site_name=site_name or "")
    if found is not None:
        raise WeakPassword(found)


def _verify(stored: str, password: str) -> bool:
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return bool(_hasher().verify(stored, password))
    except (VerificationError, InvalidHashError):
        return False


# A hash to verify against when the name is unknown, so that an unknown name takes as long as a known one:
# made once, by the first sign-in that needs it (the others wait for it rather than make one each).
_DUMMY: list[str] = []
_MAKING_DUMMY = threading.Lock()


def _dummy_hash() -> str:
    with _MAKING_DUMMY:
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


def add_user(
    session: Session, username: str, role: str, password: str, *, site_name: str | None = None
) -> WebUser:
    """A new account; refused if the name is taken or the password is weak for the role (check_password,
    with the site's name `site_name` where the front end knows it)."""
    name = check_username(username)
    check_role(role)
    if session.scalar(select(WebUser.id).where(WebUser.username == name)) is not None:
        raise ConfigError(f"there is already a user {name!r} — choose another name")
    check_password(password, role=role, username=name, site_name=site_name)
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


class LastAdmin(ConfigError):
    """Disabling or demoting the only active admin: no one could manage the accounts afterwards."""

    def __init__(self, username: str) -> None:
        super().__init__(LAST_ADMIN % {"name": username})
        self.username = username
        translatable(self, LAST_ADMIN, name=username)


LAST_ADMIN: Final = N_(
    "%(name)s is the only active admin — make another account an admin first, so that someone can still "
    "manage the accounts"
)


def _keep_an_admin(session: Session, user: WebUser) -> None:
    others = session.scalar(
        select(func.count())
        .select_from(WebUser)
        .where(WebUser.role == "admin", WebUser.disabled.is_(False), WebUser.id != user.id)
    )
    if user.role == "admin" and not user.disabled and not others:
        raise LastAdmin(user.username)


def set_disabled(session: Session, username: str, disabled: bool) -> WebUser:
    """Disable or enable an account; the only active admin is not disabled (LastAdmin)."""
    user = find_user(session, username)
    if disabled:
        _keep_an_admin(session, user)
    user.disabled = disabled
    if disabled:
        end_sessions(session, user)
    record_change(session, "user-disable" if disabled else "user-enable", f"user {user.username}")
    session.flush()
    return user


def set_role(session: Session, username: str, role: str) -> tuple[WebUser, str]:
    """The user's new role and the old one; their sessions end (a role is read at sign-in). The only
    active admin keeps the role (LastAdmin)."""
    user = find_user(session, username)
    check_role(role)
    if role != "admin":
        _keep_an_admin(session, user)
    before = user.role
    user.role = role
    end_sessions(session, user)
    record_change(session, "user-role", f"user {user.username}: {before} → {role}")
    if role != before:
        queue_account_change(session, user, "role", role=role, before=before)
    session.flush()
    return user, before


def reset_password(
    session: Session, username: str, password: str, *, site_name: str | None = None
) -> WebUser:
    """A new password, checked for the account's role (check_password); the account is unlocked and its
    sessions end."""
    user = find_user(session, username)
    check_password(password, role=user.role, username=user.username, site_name=site_name)
    user.password_hash = hash_password(password)
    user.failed_logins = 0
    user.locked_until = None
    end_sessions(session, user)
    record_change(session, "user-password", f"new password for user {user.username}")
    queue_account_change(session, user, "password")
    session.flush()
    return user


def unlock(session: Session, username: str | None = None, address: str | None = None) -> str:
    """Lift the lockout of an account (its failures forgotten) or of an address (its failures deleted)."""
    if (username is None) == (address is None):
        raise ConfigError("name a user or give --address ADDRESS, not both")
    if username is not None:
        user = find_user(session, username)
        user.failed_logins = 0
        user.locked_until = None
        record_change(session, "user-unlock", f"user {user.username}")
        session.flush()
        return f"user {user.username}"
    assert address is not None
    session.execute(delete(LoginFailure).where(LoginFailure.address == address[:64]))
    record_change(session, "user-unlock", f"address {address}")
    return f"address {address}"


@dataclass(frozen=True)
class NewSession:
    token: str  # for the cookie only: the database keeps its hash
    user: WebUser
    expires_at: dt.datetime
    # Signed in by password, the second factor's code still to come (services.second_factor): the
    # session opens the code's page only, and lives CODE_WAIT.
    awaiting_code: bool = False


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Attempt:
    """A sign-in begun (`begin_log_in`): the hash its password is checked against and what to record."""

    name: str
    address: str
    at: dt.datetime
    user_id: int | None  # None: no such account
    stored_hash: str | None  # None: the address waits, so no password is checked (no hash is spent); "":
    # no such account, checked against a hash of nothing (made in password_matches, in the caller's pool)
    refused: bool  # refused whatever the password: no such account, disabled, waiting


def window_of(at: dt.datetime) -> dt.datetime:
    """The start of the ADDRESS_WINDOW holding `at` (windows start at midnight)."""
    midnight = at.replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight + ((at - midnight) // ADDRESS_WINDOW) * ADDRESS_WINDOW


def delay(failures: int, free: int) -> dt.timedelta:
    """How long sign-in waits after `failures` failures in a row, the first `free - 1` of them costing no
    wait: 1 s after the `free`-th, doubling with each further one, at most LONGEST_DELAY."""
    if failures < free:
        return dt.timedelta(0)
    return min(LONGEST_DELAY, dt.timedelta(seconds=2 ** min(failures - free, 30)))


def address_waits_until(session: Session, address: str, at: dt.datetime) -> dt.datetime | None:
    """When `address` may try again, if it must wait at `at`: its failures of this window and the one
    before (two rows at most, found by their key; no attempt is counted)."""
    found = session.execute(
        select(func.sum(LoginFailure.failures), func.max(LoginFailure.last_at)).where(
            LoginFailure.address == address[:64],
            LoginFailure.window_start >= window_of(at) - ADDRESS_WINDOW,
        )
    ).one()
    if found[0] is None:
        return None
    until = found[1] + delay(int(found[0]), ADDRESS_FREE_FAILURES)
    return until if until > at else None


def waits_until(user: WebUser, at: dt.datetime | None = None) -> dt.datetime | None:
    """When the account may sign in again, if it waits out its delay now."""
    at = at or now()
    return user.locked_until if user.locked_until is not None and user.locked_until > at else None


def begin_log_in(session: Session, username: str, address: str) -> Attempt:
    """The first step of a sign-in: what the password is to be checked against (reads only)."""
    at = now()
    address = address[:64]
    name = username.strip().lower()[:64]
    user = session.execute(
        select(WebUser.id, WebUser.password_hash, WebUser.disabled, WebUser.locked_until).where(
            WebUser.username == name
        )
    ).first()
    user_id = None if user is None else int(user.id)
    if address_waits_until(session, address, at) is not None:
        return Attempt(name, address, at, user_id, None, True)
    if user is None:
        return Attempt(name, address, at, None, "", True)  # checked as long as a known name is
    waiting = user.locked_until is not None and user.locked_until > at
    return Attempt(name, address, at, user_id, str(user.password_hash), bool(user.disabled) or waiting)


def password_matches(attempt: Attempt, password: str) -> bool:
    """The second step: argon2's check of the password (slow and memory-hungry by design; no database).
    The hash is computed for a refused attempt too, so that a refusal takes as long as a wrong password."""
    if attempt.stored_hash is None or len(password) > MAX_PASSWORD:
        return False
    return _verify(attempt.stored_hash or _dummy_hash(), password) and not attempt.refused


def finish_log_in(session: Session, attempt: Attempt, matched: bool) -> NewSession | None:
    """The last step: a new session when the password matched (and the account has not changed since the
    first step), else the failure counted for the account and the address; None is LOGIN_REFUSED."""
    if matched and attempt.user_id is not None:
        user = session.get(WebUser, attempt.user_id)
        if user is not None and not user.disabled and user.password_hash == attempt.stored_hash:
            # An account with a second factor waits for its code (services.second_factor).
            return open_session(session, user, attempt, awaiting_code=user.totp_enrolled_at is not None)
    count_failure(session, attempt)
    return None


def log_in(session: Session, username: str, password: str, address: str) -> NewSession | None:
    """A new session for the right name and password, or None (LOGIN_REFUSED is the one answer to give).

    A failure is recorded, so the caller commits after a refusal too: the limits count it.
    """
    attempt = begin_log_in(session, username, address)
    return finish_log_in(session, attempt, password_matches(attempt, password))


# How long a session signed in by password waits for the second factor's code (second_factor.CODE_WAIT).
CODE_WAIT: Final = dt.timedelta(minutes=5)


def open_session(
    session: Session, user: WebUser, attempt: Attempt, *, awaiting_code: bool = False
) -> NewSession:
    """A new session of `user`: a whole one, or with `awaiting_code` one that waits CODE_WAIT for the
    second factor (services.second_factor.complete_sign_in) and opens nothing else. The account's
    failures are forgotten only by a whole one: a right password followed by wrong codes keeps counting."""
    if not awaiting_code:
        user.failed_logins = 0  # constants, not a count read and written back
        user.locked_until = None
    token = secrets.token_urlsafe(32)
    started = now()
    expires = started + (CODE_WAIT if awaiting_code else SESSION_LIFETIME)
    session.add(
        WebSession(
            token_hash=token_hash(token),
            user_id=user.id,
            created_at=started,
            expires_at=expires,
            address=attempt.address,
            awaiting_code=awaiting_code,
        )
    )
    session.flush()
    return NewSession(token, user, expires, awaiting_code)


def count_failure(session: Session, attempt: Attempt) -> None:
    """One failure more (a wrong password, or a wrong code: services.second_factor) for the address's
    window and the account, each added in the database (a count read, then written back, lost 43 of 48
    concurrent guesses: issue 54, L3)."""
    window = window_of(attempt.at)
    count_up = engines.of(session).count_up(
        "login_failure", ("address", "window_start"), "failures", ("last_at",)
    )
    values = {"address": attempt.address, "window_start": window, "last_at": attempt.at}
    session.execute(text(count_up).bindparams(*_STAMPS), values)
    counted = session.scalar(
        select(LoginFailure.failures).where(
            LoginFailure.address == attempt.address, LoginFailure.window_start == window
        )
    )
    if counted == 1:  # the address's first failure of the window: a moment to forget the old ones
        session.execute(delete(LoginFailure).where(LoginFailure.window_start < attempt.at - KEPT_FAILURES))
    if attempt.user_id is None:
        return
    session.execute(
        update(WebUser)
        .where(WebUser.id == attempt.user_id)
        .values(failed_logins=WebUser.failed_logins + 1)
        .execution_options(synchronize_session=False)
    )
    failures, until = session.execute(
        select(WebUser.failed_logins, WebUser.locked_until).where(WebUser.id == attempt.user_id)
    ).one()
    wait = delay(int(failures), ACCOUNT_FREE_FAILURES)
    # A failure while the account waits does not move the wait's end: guessing on cannot keep it shut.
    if wait and (until is None or until <= attempt.at):
        session.execute(
            update(WebUser)
            .where(WebUser.id == attempt.user_id)
            .values(locked_until=attempt.at + wait)
            .execution_options(synchronize_session=False)
        )


def count_address_failure(session: Session, address: str) -> None:
    """One failure more for `address` alone, as a wrong password counts (a password reset's request or a
    wrong link: ratingdb.services.password_reset), so that the same waits limit them."""
    count_failure(session, Attempt("", address[:64], now(), None, None, True))


_STAMPS: Final = (bindparam("window_start", type_=DateTime()), bindparam("last_at", type_=DateTime()))


def session_user(session: Session, token: str | None) -> WebUser | None:
    """The signed-in user of a cookie's token, or None (no token, an unknown or expired one, a disabled
    account; a waiting one's sessions go on)."""
    if not token or len(token) > 200:
        return None
    row = session.scalar(select(WebSession).where(WebSession.token_hash == token_hash(token)))
    if row is None or row.awaiting_code:  # a session waiting for its code opens no page but the code's
        return None
    if row.expires_at <= now():
        session.delete(row)
        session.flush()
        return None
    user = session.get(WebUser, row.user_id)
    if user is None or user.disabled:  # a wait refuses new sign-ins only: open sessions go on
        return None
    return user


def log_out(session: Session, token: str | None) -> None:
    if token:
        session.execute(delete(WebSession).where(WebSession.token_hash == token_hash(token)))
