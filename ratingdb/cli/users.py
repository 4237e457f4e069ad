"""CLI: `user add|list|disable|enable|set-role|reset-password|unlock|contact|2fa` — the site's accounts.

The same service (ratingdb.services.users) as the admin pages. A password is never an option: it is
asked for (twice, hidden) or read from standard input with --password-stdin, so that it is in no shell
history, process list or audit row (the audit log records each command line).
"""

import os
import sys
from typing import Annotated

import typer

from ratingdb.cli.app import SETUP, RatingDbTyper, app
from ratingdb.cli.common import FormatOption, render_rows, transaction, user_errors
from ratingdb.cli.output import echo
from ratingdb.errors import ConfigError

user_app = RatingDbTyper(
    help="Accounts of the served site: organisers, officers and admins (README, 'Accounts and roles').",
    no_args_is_help=True,
)
app.add_typer(user_app, name="user", rich_help_panel=SETUP)

NameArgument = Annotated[str, typer.Argument(metavar="NAME", help="The user's sign-in name.")]
PasswordStdinOption = Annotated[
    bool,
    typer.Option(
        "--password-stdin", help="Read the password from the first line of standard input (for scripts)."
    ),
]


def _site_name() -> str | None:
    """The site's name, which no password may contain: the served site's title, RATINGDB_TITLE (the
    variable `serve --title` reads too; deploy/ratingdb.env sets it for both)."""
    return os.environ.get("RATINGDB_TITLE") or None


def _password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline().rstrip("\r\n")
        if not line:
            raise ConfigError("--password-stdin read no password — send it as the first line of input")
        return line
    typed: str = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return typed


@user_app.command("add")
@user_errors
def add(
    name: NameArgument,
    role: Annotated[
        str, typer.Option("--role", metavar="ROLE", help="organiser, officer or admin.")
    ] = "organiser",
    password_stdin: PasswordStdinOption = False,
) -> None:
    """Add an account; the first admin is made here (then admins can add accounts in the browser).

    The password has at least 12 characters for an officer or admin, 8 for an organiser, and is refused
    when it is a commonly used or breached password, a simple pattern, or contains the account's name or
    the site's (RATINGDB_TITLE).

    Examples:
      ratingdb user add mary --role admin
      printf '%s\\n' "$PASSWORD" | ratingdb user add galway-open --role organiser --password-stdin
    """
    from ratingdb.services.users import add_user, check_password, check_role, check_username

    username = check_username(name)
    check_role(role)
    password = _password(password_stdin)
    check_password(password, role=role, username=username, site_name=_site_name())
    with transaction() as session:
        user = add_user(session, name, role, password, site_name=_site_name())
        username = user.username
    echo(f"Added user {username} ({role}).")


@user_app.command("list")
@user_errors
def list_command(fmt: FormatOption = "table") -> None:
    """Every account: name, role, whether disabled, until when it waits after failed logins (UTC), failed
    logins in a row, whether it has a second factor."""
    from ratingdb.services.users import list_users, waits_until

    with transaction() as session:
        rows: list[list[object]] = []
        for u in list_users(session):
            until = waits_until(u)
            lockout = "" if until is None else f"until {until:%Y-%m-%d %H:%M:%S} UTC"
            state = "disabled" if u.disabled else "active"
            factor = "yes" if u.totp_enrolled_at is not None else "no"
            rows.append([u.username, u.role, state, lockout, u.failed_logins, factor])
    headers = ["name", "role", "state", "lockout", "failed_logins", "second_factor"]
    render_rows(headers, rows, fmt, title=None)


@user_app.command("disable")
@user_errors
def disable(name: NameArgument) -> None:
    """Disable an account: it cannot sign in, and its sessions end now."""
    from ratingdb.services.users import set_disabled

    with transaction() as session:
        user = set_disabled(session, name, True)
        username = user.username
    echo(f"Disabled user {username}; their sessions are ended.")


@user_app.command("enable")
@user_errors
def enable(name: NameArgument) -> None:
    """Enable a disabled account again."""
    from ratingdb.services.users import set_disabled

    with transaction() as session:
        username = set_disabled(session, name, False).username
    echo(f"Enabled user {username}.")


@user_app.command("set-role")
@user_errors
def set_role_command(
    name: NameArgument,
    role: Annotated[str, typer.Argument(metavar="ROLE", help="organiser, officer or admin.")],
) -> None:
    """Give an account another role; its sessions end (it signs in again with the new role)."""
    from ratingdb.services.users import set_role

    with transaction() as session:
        user, before = set_role(session, name, role)
        username = user.username
    echo(f"User {username}: {before} → {role}; their sessions are ended.")


@user_app.command("reset-password")
@user_errors
def reset_password_command(name: NameArgument, password_stdin: PasswordStdinOption = False) -> None:
    """Set a new password (asked for twice), under the rules of `user add`; the account is unlocked and its
    sessions end."""
    from ratingdb.services.users import reset_password

    password = _password(password_stdin)
    with transaction() as session:
        username = reset_password(session, name, password, site_name=_site_name()).username
    echo(f"New password for user {username}; the account is unlocked and its sessions are ended.")


@user_app.command("unlock")
@user_errors
def unlock_command(
    name: Annotated[str | None, typer.Argument(metavar="[NAME]", help="The waiting account.")] = None,
    address: Annotated[
        str | None,
        typer.Option("--address", metavar="ADDRESS", help="Lift the login limit of this network address."),
    ] = None,
) -> None:
    """End a wait now: of an account (which waits 1 s after 5 failed logins in a row, doubling with each
    further one up to 15 minutes, and its count of failures) or, with --address, of an address (the same
    after 20 failed logins in half an hour).

    Examples:
      ratingdb user unlock mary
      ratingdb user unlock --address 192.0.2.7
    """
    from ratingdb.services.users import unlock

    with transaction() as session:
        what = unlock(session, name, address)
    echo(f"Unlocked {what}.")


@user_app.command("contact")
@user_errors
def contact_command(
    name: NameArgument,
    email: Annotated[
        str | None,
        typer.Option("--email", metavar="ADDRESS", help='Where notices go; "" takes the address away.'),
    ] = None,
    language: Annotated[
        str | None, typer.Option("--lang", metavar="LANG", help="The notices' language: en, de or fr.")
    ] = None,
    files_waiting: Annotated[
        str | None,
        typer.Option(
            "--files-waiting",
            metavar="WHEN",
            help="Officers and admins: hear of files waiting at_once, daily (a digest) or never.",
        ),
    ] = None,
) -> None:
    """Set where and how an account hears from the site by email (notices; password resets go only to
    this address); without options, show it.

    Examples:
      ratingdb user contact galway-open --email fixtures@galwaychess.ie --lang en
      ratingdb user contact aoife --files-waiting at_once
    """
    from ratingdb.services.notices import contact_of, set_contact
    from ratingdb.services.users import find_user

    with transaction() as session:
        user = find_user(session, name)
        if email is None and language is None and files_waiting is None:
            contact = contact_of(session, user)
        else:
            contact = set_contact(session, user, email, language=language, files_waiting=files_waiting)
        username = user.username
        shown = None if contact is None else (contact.email, contact.language, contact.files_waiting)
    if shown is None:
        echo(f"User {username} has no email address: no notices are sent to it.")
    else:
        echo(f"User {username}: {shown[0]}, notices in {shown[1]}, files waiting: {shown[2]}.")


factor_app = RatingDbTyper(
    help="The second factor of an account (codes of an authenticator app): set it up here, or reset it "
    "when the device is lost.",
    no_args_is_help=True,
)
user_app.add_typer(factor_app, name="2fa")


@factor_app.command("enrol")
@user_errors
def enrol_command(
    name: NameArgument,
    code_stdin: Annotated[
        bool,
        typer.Option(
            "--code-stdin", help="Read the app's code from the first line of standard input (for scripts)."
        ),
    ] = False,
) -> None:
    """Set up the second factor of an account in the terminal (the first admin's, on a site that requires
    one, or anyone's): prints a QR code and the key for the app, asks for the code the app then shows, and
    prints the recovery codes, this once.

    Examples:
      ratingdb user 2fa enrol mary
    """
    import segno

    from ratingdb.services import second_factor
    from ratingdb.services.users import find_user

    with transaction() as session:
        enrolment = second_factor.begin_enrolment(
            session, find_user(session, name), _site_name() or "ratingdb"
        )
    qr = segno.make(enrolment.address, error="m")
    qr.terminal(compact=True)
    echo(f"Scan the QR code with the app, or type the key {enrolment.secret} into it.")
    code = sys.stdin.readline().strip() if code_stdin else str(typer.prompt("The code the app shows now"))
    with transaction() as session:
        codes = second_factor.confirm_enrolment(session, find_user(session, name), code)
        username = find_user(session, name).username
    echo(f"Second factor on for user {username}. Recovery codes (each signs in once; shown only now):")
    for recovery in codes:
        echo(f"  {recovery}")


@factor_app.command("reset")
@user_errors
def reset_command(name: NameArgument) -> None:
    """Take an account's second factor away (a lost device): its key and recovery codes go and its sessions
    end; it sets up a new one at its next sign-in (where the site requires one) or with `user 2fa enrol`."""
    from ratingdb.services.second_factor import reset

    with transaction() as session:
        username = reset(session, name).username
    echo(f"Second factor of user {username} reset; their sessions are ended.")
