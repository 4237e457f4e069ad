"""CLI: `notices send|list|retry` — the email notices' queue (ratingdb.services.notices).

`serve` sends the queue in the background; `notices send` sends what is due once, for a timer or cron job
on a machine where the site is served by another process or not at all, and `list` shows what was sent,
what waits and what failed, and why (as the admin's desk does).
"""

from typing import Annotated

import typer

from ratingdb.cli.app import SETUP, RatingDbTyper, app
from ratingdb.cli.common import (
    FormatOption,
    MailFromOption,
    PublicUrlOption,
    SmtpUrlOption,
    command_unit_of_work,
    render_rows,
    transaction,
    user_errors,
)
from ratingdb.cli.output import echo
from ratingdb.errors import ConfigError

notices_app = RatingDbTyper(
    help="Email notices to organisers, officers and account owners: send the queue, list it.",
    no_args_is_help=True,
)
app.add_typer(notices_app, name="notices", rich_help_panel=SETUP)

TitleOption = Annotated[
    str,
    typer.Option(
        "--title",
        envvar="RATINGDB_TITLE",
        metavar="TEXT",
        help="The site's name, which starts every subject.",
    ),
]


@notices_app.command("send")
@user_errors
def send_command(
    smtp_url: SmtpUrlOption = None,
    mail_from: MailFromOption = None,
    public_url: PublicUrlOption = None,
    title: TitleOption = "Rating lists",
    now: Annotated[
        bool,
        typer.Option(
            "--now", help="Also the notices waiting out a retry's wait (once the mail server is mended)."
        ),
    ] = False,
) -> None:
    """Send the notices that are due, and the officers' daily digests (from 07:00 UTC); a notice the
    server does not take is tried again later (after 1 minute, doubling to 6 hours, 12 tries), one it
    refuses for good is marked failed with the reason. Exits 1 if the server could not be reached.

    Examples:
      export RATINGDB_SMTP_URL=smtp+starttls://ratings:SECRET@mail.example.org
      export RATINGDB_MAIL_FROM=ratings@example.org RATINGDB_PUBLIC_URL=https://ratings.example.org
      ratingdb notices send
    """
    from ratingdb.services.notices import notice_settings, send_due

    settings = notice_settings(smtp_url, mail_from, public_url, title)
    if settings is None:
        raise ConfigError(
            "no SMTP server is set — set RATINGDB_SMTP_URL (or --smtp-url), e.g. smtp://127.0.0.1:25"
        )
    with command_unit_of_work() as work:
        report = send_due(work, settings, every_waiting=now)
    echo(
        f"Sent {report.sent} notices ({report.digests} digests queued); {report.retried} to try again later, "
        f"{report.failed} failed."
    )
    if report.retried and not report.sent:
        raise ConfigError(f"the mail server did not take the notices: {report.last_error}")


@notices_app.command("list")
@user_errors
def list_command(
    status: Annotated[
        str | None, typer.Option("--status", metavar="STATUS", help="Only waiting, sent or failed.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", metavar="N", min=1, help="At most N, newest first.")] = 50,
    fmt: FormatOption = "table",
) -> None:
    """The newest notices: to whom, what, their status, tries, when sent or next tried (UTC), and why the
    last try failed."""
    from ratingdb.services.notices import notices

    with transaction() as session:
        rows = [
            [n.id, n.created_at.strftime("%Y-%m-%d %H:%M"), n.address, n.kind, n.status, n.attempts,
             (n.sent_at or n.next_try_at).strftime("%Y-%m-%d %H:%M") if n.status != "failed" else "",
             n.last_error or ""]
            for n in notices(session, status, limit)
        ]  # fmt: skip
    render_rows(
        ["id", "queued", "to", "kind", "status", "tries", "sent_or_next", "why"], rows, fmt, title=None
    )


@notices_app.command("retry")
@user_errors
def retry_command(
    notice_id: Annotated[int, typer.Argument(metavar="ID", help="A failed notice (`notices list`).")],
) -> None:
    """Queue a failed notice again, due now (after its address or the mail server is mended)."""
    from ratingdb.services.notices import send_again

    with transaction() as session:
        address = send_again(session, notice_id).address
    echo(f"Notice {notice_id} to {address} is queued again.")
