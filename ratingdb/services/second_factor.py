"""The second factor of the served site's accounts: TOTP (RFC 6238) codes from an app, and one-time
recovery codes for a lost device (issue 52). One service for every front end: the desk's enrolment page
and sign-in code page, `ratingdb user 2fa enrol|reset`, the accounts page's reset, ratingdb.api.

- **Enrolment** is two steps: `begin_enrolment` gives the account a new secret (pyotp: 160 random bits,
  base32) and the otpauth:// address the app reads from a QR code; `confirm_enrolment` takes a code the
  app made from it, and only then is the factor in force (`totp_enrolled_at`). It returns the recovery
  codes, shown once: the database keeps their SHA-256 (`web_recovery_code`).
- **Signing in** with a factor is the password (ratingdb.services.users, which opens a session that
  waits for the code, `awaiting_code`, for CODE_WAIT at most) and then `complete_sign_in` with a code:
  the app's code of this 30-second step or the one either side (a clock a little off, a code typed at the
  turn of a step), each step taken once (`totp_last_step`, moved forward in one conditional UPDATE, so
  two requests with one code cannot both pass), or an unused recovery code (marked used in one
  conditional UPDATE). A wrong code counts as a failed sign-in for the account and the address, under the
  same waits as a wrong password (services.users), and every refusal says one sentence, CODE_REFUSED.
  A session signed in by code gets a new token: the one that waited for the code is deleted.
- **Required** by the site's setting (`serve --require-2fa officer`, RATINGDB_REQUIRE_2FA): `required`
  says whether an account must have a factor before it may use the desk (the desk sends it to enrol).
- **Reset** (`reset`, for a lost device): the secret, the last step and the recovery codes go, and every
  session of the account ends; it enrols again at its next sign-in.

Takes a Session, never commits. No web or CLI imports.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Final

import pyotp
from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.i18n import N_, translatable
from ratingdb.schema.models import RecoveryCode, WebSession, WebUser
from ratingdb.services import users
from ratingdb.services.notices import queue_account_change
from ratingdb.services.versions import record_change

STEP_SECONDS: Final = 30  # RFC 6238's default, which every authenticator app uses
STEPS_EITHER_SIDE: Final = 1  # RFC 6238 section 5.2: one step of network delay or clock drift
CODE_WAIT: Final = users.CODE_WAIT  # how long a session signed in by password waits for the code
RECOVERY_CODES: Final = 10
RECOVERY_ALPHABET: Final = (
    "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 letters, none read as another (no I, O, 0, 1)
)
RECOVERY_LENGTH: Final = 16  # 16 letters of 32: 80 bits, out of reach of a search of their SHA-256s
# Who must have a second factor, by the site's setting (serve --require-2fa).
REQUIREMENTS: Final = {"none": (), "officer": ("officer", "admin"), "admin": ("admin",)}

CODE_REFUSED: Final = N_(
    "the code is not right, was used already, or the account may not sign in now — type the code the app "
    "shows now, or one of the recovery codes"
)
WRONG_CODE: Final = N_(
    "the code is not the one the app shows now — scan the QR code again and type the newest code (the "
    "phone's clock must be right)"
)
ALREADY_ENROLLED: Final = N_(
    "the account has a second factor already — when the device is lost, an admin resets it first"
)


class CodeRefused(ConfigError):
    """A code that an enrolment or a new set of recovery codes did not take (one sentence, translated)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        translatable(self, message)


def check_requirement(value: str) -> str:
    """The site's setting of who must have a second factor: none, officer (officers and admins) or admin."""
    if value not in REQUIREMENTS:
        raise ConfigError(f"'{value}' is not a --require-2fa setting — use none, officer or admin")
    return value


def is_enrolled(user: WebUser) -> bool:
    return user.totp_enrolled_at is not None


def required(user: WebUser, requirement: str) -> bool:
    """Whether `user` must have a second factor before using the desk, by the site's `requirement`."""
    return user.role in REQUIREMENTS.get(requirement, ()) and not is_enrolled(user)


@dataclass(frozen=True)
class Enrolment:
    """What the app needs: the secret (for typing in) and the otpauth:// address (for a QR code)."""

    secret: str
    address: str


def begin_enrolment(session: Session, user: WebUser, issuer: str) -> Enrolment:
    """The secret for `user` to enrol with (made at the first call and kept until confirmed, so a page
    loaded twice shows one QR code), named in the app by the site's name `issuer` and the account's name."""
    if is_enrolled(user):
        raise translatable(ConfigError(ALREADY_ENROLLED), ALREADY_ENROLLED)
    if user.totp_secret is None:
        user.totp_secret = pyotp.random_base32()
        session.flush()
    address = pyotp.TOTP(user.totp_secret).provisioning_uri(name=user.username, issuer_name=issuer)
    return Enrolment(user.totp_secret, address)


def confirm_enrolment(session: Session, user: WebUser, code: str, at: dt.datetime | None = None) -> list[str]:
    """Put the factor in force with a code the app made from the secret of `begin_enrolment` (CodeRefused
    otherwise); returns the recovery codes, in clear this once."""
    at = at or users.now()
    if is_enrolled(user):
        raise translatable(ConfigError(ALREADY_ENROLLED), ALREADY_ENROLLED)
    if user.totp_secret is None or not _take_app_code(session, user, code, at):
        raise CodeRefused(WRONG_CODE)
    user.totp_enrolled_at = at
    session.flush()
    codes = _new_recovery_codes(session, user, at)
    record_change(session, "user-2fa-enrol", f"second factor for user {user.username}")
    queue_account_change(session, user, "second_factor", change="enrolled")
    return codes


def new_recovery_codes(
    session: Session, user: WebUser, code: str, at: dt.datetime | None = None
) -> list[str]:
    """A new set of recovery codes for an enrolled account, the old ones void, given a code of the app."""
    at = at or users.now()
    if not is_enrolled(user) or not _take_app_code(session, user, code, at):
        raise CodeRefused(WRONG_CODE)
    codes = _new_recovery_codes(session, user, at)
    record_change(session, "user-2fa-codes", f"new recovery codes for user {user.username}")
    queue_account_change(session, user, "second_factor", change="recovery_codes")
    return codes


def recovery_codes_left(session: Session, user: WebUser) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(RecoveryCode)
            .where(RecoveryCode.user_id == user.id, RecoveryCode.used_at.is_(None))
        )
        or 0
    )


def reset(session: Session, username: str) -> WebUser:
    """Take the second factor of `username` away (a lost device): secret, last step and recovery codes;
    every session of the account ends. It enrols again, at its next sign-in where the site requires it."""
    user = users.find_user(session, username)
    user.totp_secret = None
    user.totp_enrolled_at = None
    user.totp_last_step = None
    session.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    users.end_sessions(session, user)
    record_change(session, "user-2fa-reset", f"second factor of user {user.username} reset")
    queue_account_change(session, user, "second_factor", change="removed")
    session.flush()
    return user


def awaiting_user(session: Session, token: str | None) -> WebUser | None:
    """The account whose session `token` waits for its code (None: no such session, or it is too old)."""
    row = _awaiting(session, token)
    if row is None:
        return None
    user = session.get(WebUser, row.user_id)
    return None if user is None or user.disabled else user


def complete_sign_in(session: Session, token: str | None, code: str, address: str) -> users.NewSession | None:
    """The second step of a sign-in with a factor: a whole session (a new token) for the right code, else
    None (CODE_REFUSED), the failure counted as a wrong password's is. The caller commits either way."""
    at = users.now()
    address = address[:64]
    row = _awaiting(session, token)
    user = None if row is None else session.get(WebUser, row.user_id)
    if row is None or user is None:
        return None
    attempt = users.Attempt(user.username, address, at, user.id, user.password_hash, False)
    waiting = (
        users.waits_until(user, at) is not None
        or users.address_waits_until(session, address, at) is not None
    )
    if user.disabled or waiting or not is_enrolled(user):
        return None
    if not (_take_app_code(session, user, code, at) or _take_recovery_code(session, user, code, at)):
        users.count_failure(session, attempt)
        return None
    session.delete(row)
    session.flush()
    return users.open_session(session, user, attempt)


def _awaiting(session: Session, token: str | None) -> WebSession | None:
    if not token or len(token) > 200:
        return None
    row = session.scalar(
        select(WebSession).where(
            WebSession.token_hash == users.token_hash(token), WebSession.awaiting_code.is_(True)
        )
    )
    if row is None or row.expires_at <= users.now():
        return None
    return row


def _take_app_code(session: Session, user: WebUser, code: str, at: dt.datetime) -> bool:
    """Whether `code` is the app's for a step around `at` not taken before; the step is then taken (the
    account's last step moved to it in one conditional UPDATE: of two requests with one code, one wins)."""
    typed = "".join(code.split())
    if user.totp_secret is None or len(typed) != 6 or not typed.isdigit():
        return False
    app = pyotp.TOTP(user.totp_secret)
    now_step = int(at.replace(tzinfo=dt.UTC).timestamp()) // STEP_SECONDS
    for step in range(now_step - STEPS_EITHER_SIDE, now_step + STEPS_EITHER_SIDE + 1):
        if hmac.compare_digest(app.generate_otp(step), typed):
            taken = session.execute(
                update(WebUser)
                .where(
                    WebUser.id == user.id,
                    or_(WebUser.totp_last_step.is_(None), WebUser.totp_last_step < step),
                )
                .values(totp_last_step=step)
                .execution_options(synchronize_session=False)
            )
            if int(taken.rowcount or 0) == 1:  # type: ignore[attr-defined]
                session.refresh(user, ["totp_last_step"])
                return True
            return False  # this step's code, or a later one, was taken already
    return False


def _take_recovery_code(session: Session, user: WebUser, code: str, at: dt.datetime) -> bool:
    """Whether `code` is one of the account's unused recovery codes; it is then used (one conditional
    UPDATE)."""
    digest = _code_hash(code)
    if digest is None:
        return False
    used = session.execute(
        update(RecoveryCode)
        .where(
            RecoveryCode.user_id == user.id,
            RecoveryCode.code_hash == digest,
            RecoveryCode.used_at.is_(None),
        )
        .values(used_at=at)
        .execution_options(synchronize_session=False)
    )
    if int(used.rowcount or 0) != 1:  # type: ignore[attr-defined]
        return False
    record_change(session, "user-2fa-recovery", f"user {user.username} signed in with a recovery code")
    queue_account_change(session, user, "second_factor", change="recovery_code_used")
    return True


def _code_hash(code: str) -> str | None:
    """The stored form of a recovery code as typed: letters only, capitals, without spaces or dashes."""
    plain = "".join(c for c in code.upper() if c not in " -\t")
    if len(plain) != RECOVERY_LENGTH or any(c not in RECOVERY_ALPHABET for c in plain):
        return None
    return hashlib.sha256(plain.encode("ascii")).hexdigest()


def _new_recovery_codes(session: Session, user: WebUser, at: dt.datetime) -> list[str]:
    session.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    codes = [
        "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_LENGTH))
        for _ in range(RECOVERY_CODES)
    ]
    for code in codes:
        session.add(RecoveryCode(user_id=user.id, code_hash=_code_hash(code), created_at=at))
    session.flush()
    return ["-".join(code[i : i + 4] for i in range(0, RECOVERY_LENGTH, 4)) for code in codes]
