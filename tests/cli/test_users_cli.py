"""`ratingdb user add|list|disable|enable|set-role|reset-password|unlock`: the served site's accounts."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import Engine, select, text
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import AuditEntry, WebSession, WebUser
from ratingdb.services import users

runner = CliRunner()
PASSWORD = "correct horse battery"
T0 = dt.datetime(2026, 12, 7, 12, 0, 0)


def run(db_url: str, *args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", db_url, *args], input=stdin)


def add(db_url: str, name: str, role: str, password: str = PASSWORD):  # type: ignore[no-untyped-def]
    return run(db_url, "user", "add", name, "--role", role, "--password-stdin", stdin=password + "\n")


def test_the_first_admin_is_added_with_a_hashed_password_and_listed(db_url: str, engine: Engine) -> None:
    result = add(db_url, "Mary", "admin")
    assert (result.exit_code, result.stdout) == (0, "Added user mary (admin).\n")
    listed = run(db_url, "user", "list", "--format", "csv")
    assert listed.stdout.splitlines() == [
        "name,role,state,lockout,failed_logins,second_factor",
        "mary,admin,active,,0,no",
    ]
    with db.transaction(engine) as session:
        stored = session.scalars(select(WebUser.password_hash)).one()
        audit = session.scalars(select(AuditEntry).where(AuditEntry.action == "user-add")).one()
        rows = [
            row
            for table in ("web_user", "audit_log")
            for row in session.execute(text(f"SELECT * FROM {table}"))
        ]
        every_cell = " ".join(str(v) for row in rows for v in row)
    assert stored.startswith("$argon2id$")
    assert PASSWORD not in every_cell
    assert audit.detail == "added user mary (admin)"


def test_the_prompt_asks_twice_and_a_short_password_or_unknown_role_is_refused(db_url: str) -> None:
    result = run(db_url, "user", "add", "ann", "--role", "organiser", stdin=f"{PASSWORD}\n{PASSWORD}\n")
    assert result.exit_code == 0
    assert result.stdout.endswith("Added user ann (organiser).\n")
    short = add(db_url, "bob", "organiser", "shrt pw")
    assert (short.exit_code, short.stderr) == (
        1,
        "Error: the password is shorter than 8 characters — choose a longer one\n",
    )
    role = add(db_url, "bob", "chief")
    assert (role.exit_code, role.stderr) == (
        1,
        "Error: 'chief' is not a role — use organiser, officer or admin\n",
    )
    twice = add(db_url, "ann", "officer")
    assert (twice.exit_code, twice.stderr) == (
        1,
        "Error: there is already a user 'ann' — choose another name\n",
    )


def test_a_common_password_a_pattern_and_the_site_s_name_are_refused_with_one_sentence_each(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NIST SP 800-63B's blocklist (ratingdb.passwords): what was accepted for admins before (issue 52)."""
    monkeypatch.setenv("RATINGDB_TITLE", "Irish Chess Union")
    refusals = {
        "password123": "the password is on a list of commonly used or breached passwords, which attackers "
        "try first — choose another",
        "aaaaaaaaaaaa": "the password is a simple pattern (a character or piece repeated, a run such as "
        "12345 or abcde, a row of the keyboard or a date) — choose another",
        "Irish Chess Union": "the password contains the site's name — choose another",
        "mary, queen of the board": "the password contains the account's name — choose another",
        "eleven char": "the password is shorter than 12 characters — choose a longer one",
    }
    for password, sentence in refusals.items():
        result = add(db_url, "mary", "admin", password)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"Error: {sentence}\n")
    with db.transaction(engine) as session:
        assert session.scalars(select(WebUser)).all() == []  # nothing written
    assert add(db_url, "ann", "organiser", "eleven char").exit_code == 0  # 8 is enough for an organiser
    # A new password is checked for the account's role: ann is an organiser, then an officer.
    refused = run(db_url, "user", "reset-password", "ann", "--password-stdin", stdin="password123\n")
    assert (refused.exit_code, refused.stderr) == (1, f"Error: {refusals['password123']}\n")
    assert run(db_url, "user", "set-role", "ann", "officer").exit_code == 0
    short = run(db_url, "user", "reset-password", "ann", "--password-stdin", stdin="eleven char\n")
    assert (short.exit_code, short.stderr) == (1, f"Error: {refusals['eleven char']}\n")
    with db.transaction(engine) as session:
        before = session.scalars(select(WebUser.password_hash)).one()
    assert users._verify(before, "eleven char")  # the refused resets changed nothing


def test_disable_set_role_and_reset_password_end_the_users_sessions(db_url: str, engine: Engine) -> None:
    add(db_url, "olga", "organiser")

    def signed_in() -> str:
        with db.transaction(engine) as session:
            started = users.log_in(session, "olga", PASSWORD, "127.0.0.1")
            assert started is not None
            return started.token

    def still_signed_in(token: str) -> bool:
        with db.transaction(engine) as session:
            return users.session_user(session, token) is not None

    token = signed_in()
    assert still_signed_in(token)
    result = run(db_url, "user", "set-role", "olga", "officer")
    assert (result.exit_code, result.stdout) == (
        0,
        "User olga: organiser → officer; their sessions are ended.\n",
    )
    assert not still_signed_in(token)
    token = signed_in()
    assert run(db_url, "user", "disable", "olga").stdout == "Disabled user olga; their sessions are ended.\n"
    assert not still_signed_in(token)
    with db.transaction(engine) as session:
        assert users.log_in(session, "olga", PASSWORD, "127.0.0.1") is None
        assert session.scalar(select(WebSession.id)) is None
    assert run(db_url, "user", "enable", "olga").stdout == "Enabled user olga.\n"
    token = signed_in()
    new = run(db_url, "user", "reset-password", "olga", "--password-stdin", stdin="another long one\n")
    assert new.stdout == "New password for user olga; the account is unlocked and its sessions are ended.\n"
    assert not still_signed_in(token)


def test_five_wrong_passwords_make_the_account_wait_a_second_or_until_an_admin_unlocks_it(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(db_url, "olga", "organiser")
    monkeypatch.setattr(users, "now", lambda: T0)  # the service's clock, stopped
    for _ in range(users.ACCOUNT_FREE_FAILURES):
        with db.transaction(engine) as session:
            assert users.log_in(session, "olga", "wrong password", "192.0.2.1") is None
    with db.transaction(engine) as session:
        assert users.log_in(session, "olga", PASSWORD, "192.0.2.2") is None  # the right one, but it waits
    # The fifth failure's wait is 2**(5 - 5) = 1 s; the right password while it waited was the sixth.
    assert (
        run(db_url, "user", "list", "--format", "csv").stdout.splitlines()[1]
        == "olga,organiser,active,until 2026-12-07 12:00:01 UTC,6,no"
    )
    assert run(db_url, "user", "unlock", "olga").stdout == "Unlocked user olga.\n"
    with db.transaction(engine) as session:
        assert users.log_in(session, "olga", PASSWORD, "192.0.2.2") is not None


def test_an_address_with_twenty_failures_waits_unless_unlocked(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(db_url, "olga", "organiser")
    monkeypatch.setattr(users, "now", lambda: T0)
    for i in range(users.ADDRESS_FREE_FAILURES):
        with db.transaction(engine) as session:
            users.log_in(session, f"nobody{i}", "wrong password", "198.51.100.9")
    with db.transaction(engine) as session:
        assert users.log_in(session, "olga", PASSWORD, "198.51.100.9") is None
        assert users.log_in(session, "olga", PASSWORD, "198.51.100.10") is not None
    assert (
        run(db_url, "user", "unlock", "--address", "198.51.100.9").stdout
        == "Unlocked address 198.51.100.9.\n"
    )
    with db.transaction(engine) as session:
        assert users.log_in(session, "olga", PASSWORD, "198.51.100.9") is not None


def test_the_only_active_admin_keeps_the_role_and_stays_enabled(db_url: str) -> None:
    add(db_url, "mary", "admin")
    sentence = (
        "Error: mary is the only active admin — make another account an admin first, so that someone can "
        "still manage the accounts\n"
    )
    for args in (("disable", "mary"), ("set-role", "mary", "organiser")):
        result = run(db_url, "user", *args)
        assert (result.exit_code, result.stderr) == (1, sentence)
    assert run(db_url, "user", "list", "--format", "csv").stdout.splitlines()[1] == "mary,admin,active,,0,no"


def test_unknown_users_and_a_missing_target_are_one_line(db_url: str) -> None:
    result = run(db_url, "user", "disable", "ghost")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: there is no user 'ghost' — see `ratingdb user list`\n",
    )
    result = run(db_url, "user", "unlock")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: name a user or give --address ADDRESS, not both\n",
    )


def test_the_second_factor_is_set_up_and_reset_in_the_terminal(db_url: str, engine: Engine) -> None:
    """The first admin's path, and a lost device's: `user 2fa enrol` and `user 2fa reset` (issue 52)."""
    import pyotp

    from ratingdb.services import second_factor

    add(db_url, "mary", "admin")
    with db.transaction(engine) as session:  # the secret `enrol` shows is kept until a code confirms it
        secret = second_factor.begin_enrolment(session, users.find_user(session, "mary"), "ratingdb").secret
    wrong = run(db_url, "user", "2fa", "enrol", "mary", "--code-stdin", stdin="12345\n")
    assert wrong.exit_code == 1
    assert wrong.stderr == (
        "Error: the code is not the one the app shows now — scan the QR code again and type the newest code "
        "(the phone's clock must be right)\n"
    )
    assert f"type the key {secret} into it" in wrong.stdout
    code = pyotp.TOTP(secret).now()
    enrolled = run(db_url, "user", "2fa", "enrol", "mary", "--code-stdin", stdin=f"{code}\n")
    assert enrolled.exit_code == 0, enrolled.output
    lines = enrolled.stdout.splitlines()
    start = lines.index(
        "Second factor on for user mary. Recovery codes (each signs in once; shown only now):"
    )
    assert len(lines[start + 1 :]) == 10 and all(len(c.strip()) == 19 for c in lines[start + 1 :])
    assert run(db_url, "user", "list", "--format", "csv").stdout.splitlines()[1] == "mary,admin,active,,0,yes"
    again = run(db_url, "user", "2fa", "enrol", "mary", "--code-stdin", stdin=f"{code}\n")
    assert (again.exit_code, again.stderr) == (
        1,
        "Error: the account has a second factor already — when the device is lost, an admin resets it "
        "first\n",
    )
    with db.transaction(engine) as session:
        started = users.log_in(session, "mary", PASSWORD, "127.0.0.1")
        assert started is not None and started.awaiting_code  # the password alone: a session awaiting a code
    reset = run(db_url, "user", "2fa", "reset", "mary")
    assert (reset.exit_code, reset.stdout) == (
        0,
        "Second factor of user mary reset; their sessions are ended.\n",
    )
    with db.transaction(engine) as session:
        mary = users.find_user(session, "mary")
        assert (mary.totp_secret, mary.totp_enrolled_at, mary.totp_last_step) == (None, None, None)
        assert session.scalars(select(WebSession)).all() == []
        assert session.execute(text("SELECT COUNT(*) FROM web_recovery_code")).scalar() == 0
        actions = session.scalars(select(AuditEntry.action).order_by(AuditEntry.id)).all()
    assert actions[-2:] == ["user-2fa-enrol", "user-2fa-reset"]
    unknown = run(db_url, "user", "2fa", "reset", "nobody")
    assert (unknown.exit_code, unknown.stderr) == (
        1,
        "Error: there is no user 'nobody' — see `ratingdb user list`\n",
    )
