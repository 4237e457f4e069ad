"""Email notices (issue 52) sent to a real SMTP server the test starts on 127.0.0.1 (tests/smtp.py): each
notice to its recipient, in their language, with its text and link; the server down, then back.

The notices are queued by the services the CLI and the desk share (a file sent, the officer's decision, a
role or password changed) and sent by `ratingdb notices send` or services.notices.send_due.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from ratingdb import api, db
from ratingdb.cli import app
from ratingdb.schema.models import Notice
from ratingdb.services import notices, submissions, users
from tests.site.test_desk_month import LIST, MONTH_FILE
from tests.smtp import body, free_port, smtp_server, subject

runner = CliRunner()
PASSWORD = "a long enough password"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "trf"
SITE = "https://ratings.example.org"


def settings_env(port: int) -> dict[str, str]:
    return {
        "RATINGDB_SMTP_URL": f"smtp://127.0.0.1:{port}",
        "RATINGDB_MAIL_FROM": "ratings@example.org",
        "RATINGDB_PUBLIC_URL": SITE,
        "RATINGDB_TITLE": "Irish Chess Union",
    }


def invoke(db_url: str, *args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
    result = runner.invoke(app, ["--db", db_url, *args], env=env, input=stdin)
    assert result.exit_code == 0, result.output
    return result.stdout


def people(engine: Engine, db_url: str) -> None:
    """An organiser reading German, an officer reading French who hears of files at once, an admin reading
    English who reads the daily digest, and an organiser without an address."""
    invoke(db_url, "import-list", str(LIST), "--date", "2025-09-01")
    with db.transaction(engine) as session:
        for name, role in (("galway-open", "organiser"), ("aoife", "officer"), ("mary", "admin")):
            users.add_user(session, name, role, PASSWORD)
        users.add_user(session, "silent", "organiser", PASSWORD)
    invoke(db_url, "user", "contact", "galway-open", "--email", "Fixtures@GalwayChess.ie", "--lang", "de")
    invoke(db_url, "user", "contact", "aoife", "--email", "aoife@example.org", "--lang", "fr",
           "--files-waiting", "at_once")  # fmt: skip
    assert invoke(db_url, "user", "contact", "mary", "--email", "mary@example.org") == (
        "User mary: mary@example.org, notices in en, files waiting: daily.\n"
    )


def send_files(engine: Engine) -> None:
    """Three files from galway-open and one from silent, submitted through the service the desk calls."""
    with db.transaction(engine) as session:
        galway = users.find_user(session, "galway-open")
        for path in (MONTH_FILE, FIXTURES / "fide-example1.trf", FIXTURES / "bad_result_code.trf"):
            submissions.submit(session, galway, path.read_bytes(), path.name, "standard")


def test_each_notice_goes_to_its_recipient_in_their_language_with_its_link(
    db_url: str, engine: Engine
) -> None:
    people(engine, db_url)
    with smtp_server() as (inbox, port):
        send_files(engine)
        settings = notices.notice_settings(f"smtp://127.0.0.1:{port}", "ratings@example.org", SITE, "ICU")
        assert settings is not None
        # From 07:00 UTC the daily digest goes out with the notices due; at any time of the test's day.
        at = max(notices.now(), notices.now().replace(hour=7, minute=0))
        report = notices.send_due(db.UnitOfWork(engine), settings, at=at)
        assert (report.sent, report.retried, report.failed, report.digests) == (4, 0, 0, 1)
        # The officer who hears at once: one notice per file, in French, linking the file's review.
        told = inbox.to("aoife@example.org")
        assert [subject(m) for m in told] == [
            "ICU : un fichier attend dans la file : web-month-dublin-open.trf",
            "ICU : un fichier attend dans la file : fide-example1.trf",
            "ICU : un fichier attend dans la file : bad_result_code.trf",
        ]
        assert told[0]["Content-Language"] == "fr" and told[0]["From"] == "ratings@example.org"
        assert body(told[0]).startswith(
            "galway-open a envoyé le fichier standard web-month-dublin-open.trf (soumission 1). Il vous "
            "attend.\n\nExaminez-le ici :\nhttps://ratings.example.org/desk/queue/1\n"
        )
        # The admin's digest, in English: the three files waiting.
        (digest,) = inbox.to("mary@example.org")
        assert subject(digest) == "ICU: files waiting in the queue: 3"
        assert body(digest).startswith(
            "Files waiting in the queue:\n\n"
            "- web-month-dublin-open.trf (submission 1, from galway-open)\n"
            "- fide-example1.trf (submission 2, from galway-open)\n"
            "- bad_result_code.trf (submission 3, from galway-open)\n\n"
            "The queue:\nhttps://ratings.example.org/desk/queue\n"
        )
        assert inbox.to("fixtures@galwaychess.ie") == []  # no decision yet
        # The officer decides from the terminal; the admin changes a role and a password.
        invoke(db_url, "submission", "accept", "1", "--accept-name", "3")
        invoke(
            db_url, "submission", "request-changes", "2", "--reason", "Round 5 is missing.\nSend it again."
        )
        invoke(db_url, "submission", "reject", "3", "--reason", "Not a rated event.")
        invoke(db_url, "user", "set-role", "aoife", "admin")
        invoke(db_url, "user", "reset-password", "galway-open", "--password-stdin", stdin=PASSWORD + " 2\n")
        sent = invoke(db_url, "notices", "send", env=settings_env(port))
        assert sent == "Sent 5 notices (0 digests queued); 0 to try again later, 0 failed.\n"
    organiser = inbox.to("fixtures@galwaychess.ie")
    assert [subject(m) for m in organiser] == [
        "Irish Chess Union: Ihre Datei web-month-dublin-open.trf wurde angenommen",
        "Irish Chess Union: Ihre Datei fide-example1.trf wurde zur Überarbeitung zurückgeschickt",
        "Irish Chess Union: Ihre Datei bad_result_code.trf wurde abgelehnt",
        "Irish Chess Union: Ihr Passwort wurde geändert",
    ]
    assert all(m["Content-Language"] == "de" for m in organiser)
    assert body(organiser[1]).startswith(
        "Der Wertungsreferent hat Ihre Datei fide-example1.trf (Einreichung 2) zur Überarbeitung an Sie "
        "zurückgeschickt und schreibt:\n\n> Round 5 is missing.\n> Send it again.\n\n"
        "Schicken Sie hier eine korrigierte Datei:\nhttps://ratings.example.org/desk/submissions/2\n"
    )
    assert "> Not a rated event." in body(organiser[2])
    assert "\nhttps://ratings.example.org/desk/submissions/1\n" in body(organiser[0])
    assert PASSWORD not in body(organiser[3])  # no secret in any notice
    (role,) = [m for m in inbox.to("aoife@example.org") if "rôle" in subject(m)]
    assert body(role).startswith("Votre compte aoife est maintenant administrateur (il était responsable).")
    assert all(PASSWORD not in body(m) for m in inbox.messages)
    # The organiser without an address was told nothing, and nothing waits for them.
    with db.transaction(engine) as session:
        assert session.scalars(select(Notice.status).where(Notice.status != "sent")).all() == []


def test_with_the_mail_server_down_the_change_is_made_and_its_notice_goes_out_once_it_is_back(
    db_url: str, engine: Engine
) -> None:
    people(engine, db_url)
    invoke(db_url, "user", "contact", "mary", "--files-waiting", "never")  # no digest, whatever the hour
    port = free_port()  # no server on it yet
    send_files(engine)
    invoke(db_url, "submission", "reject", "3", "--reason", "Not a rated event.")  # the change is made
    env = settings_env(port)
    down = runner.invoke(app, ["--db", db_url, "notices", "send"], env=env)
    assert down.exit_code == 1
    assert down.stderr == (
        f"Error: the mail server did not take the notices: cannot reach smtp://127.0.0.1:{port}: "
        "Connection refused\n"
    )
    with db.transaction(engine) as session:
        waiting = session.scalars(select(Notice).order_by(Notice.id)).all()
        assert [(n.kind, n.status, n.attempts) for n in waiting] == [
            ("waiting", "waiting", 1), ("waiting", "waiting", 0), ("waiting", "waiting", 0),
            ("rejected", "waiting", 0),
        ]  # fmt: skip
        # The first waits a minute before its second try (the others were not tried: the server is down).
        first = waiting[0]
        assert first.last_error == f"cannot reach smtp://127.0.0.1:{port}: Connection refused"
        assert dt.timedelta(seconds=59) < first.next_try_at - first.created_at < dt.timedelta(seconds=70)
    listed = invoke(db_url, "notices", "list", "--status", "waiting", "--format", "csv")
    assert "Connection refused" in listed.splitlines()[-1]
    with smtp_server(port) as (inbox, _):
        later = invoke(db_url, "notices", "send", "--now", env=env)
        assert later == "Sent 4 notices (0 digests queued); 0 to try again later, 0 failed.\n"
        again = invoke(db_url, "notices", "send", "--now", env=env)
        assert again.startswith("Sent 0 notices")
    assert sorted((m["To"], subject(m).split(": ", 1)[1]) for m in inbox.messages) == [
        ("aoife@example.org", "un fichier attend dans la file : bad_result_code.trf"),
        ("aoife@example.org", "un fichier attend dans la file : fide-example1.trf"),
        ("aoife@example.org", "un fichier attend dans la file : web-month-dublin-open.trf"),
        ("fixtures@galwaychess.ie", "Ihre Datei bad_result_code.trf wurde abgelehnt"),
    ]


def test_the_api_sends_the_second_factor_s_notice_and_tells_the_old_address_of_a_new_one(
    db_url: str,
) -> None:
    with api.open_database(db_url) as database:
        with database.transaction() as session:
            mary = users.add_user(session, "mary", "admin", PASSWORD)
            assert api.set_contact(session, "mary", "mary@example.org", language="fr") is not None
            # The hook a second factor's service calls (issue 52: the accounts branch enrols TOTP).
            notices.queue_account_change(session, mary, "second_factor", change="enrolled")
            api.set_contact(session, "mary", "Mary.Byrne@example.org")
        with smtp_server() as (inbox, port):
            report = api.send_notices(
                database, smtp_url=f"smtp://127.0.0.1:{port}", mail_from="ratings@example.org",
                public_url=SITE + "/", title="ICU",
            )  # fmt: skip
        with database.read() as session:
            listed = [(n.kind, n.address, n.status) for n in api.list_notices(session)]
    assert (report.sent, report.retried, report.failed) == (2, 0, 0)
    factor, address = inbox.messages
    assert (factor["To"], subject(factor)) == ("mary@example.org", "ICU : votre second facteur a été changé")
    assert body(factor).startswith(
        "Le second facteur de votre compte mary a été changé (un nouveau a été enregistré). Si ce n'était "
        "pas vous, prévenez tout de suite un administrateur.\n\nConnexion :\nhttps://ratings.example.org/login\n"
    )
    # The old address hears of the new one; from now on the notices go to the new one.
    assert (address["To"], subject(address)) == (
        "mary@example.org",
        "ICU : votre adresse e-mail a été changée",
    )
    assert "a été changée en mary.byrne@example.org : les avis y vont désormais." in body(address)
    assert listed == [
        ("address", "mary@example.org", "sent"),
        ("second_factor", "mary@example.org", "sent"),
    ]


def test_notices_send_names_what_is_missing_in_one_line() -> None:
    cases = [
        (
            {},
            "Error: no SMTP server is set — set RATINGDB_SMTP_URL (or --smtp-url), e.g. smtp://127.0.0.1:25",
        ),
        (
            {"RATINGDB_SMTP_URL": "smtp://127.0.0.1"},
            "Error: RATINGDB_SMTP_URL is set but not the from-address — set RATINGDB_MAIL_FROM (or "
            "--mail-from), e.g. ratings@example.org",
        ),
        (
            {"RATINGDB_SMTP_URL": "ftp://mail.example.org", "RATINGDB_MAIL_FROM": "r@example.org"},
            "Error: RATINGDB_SMTP_URL starts with 'ftp://' — use smtp://, smtp+starttls:// or smtps://",
        ),
        (
            {
                "RATINGDB_SMTP_URL": "smtp://ratings:s3cret@mail.example.org",
                "RATINGDB_MAIL_FROM": "r@example.org",
            },
            "Error: RATINGDB_SMTP_URL gives a login to plain smtp:// — use smtp+starttls:// or smtps://, so "
            "that the password travels encrypted",
        ),
        (
            {"RATINGDB_SMTP_URL": "smtps://mail.example.org", "RATINGDB_MAIL_FROM": "ratings"},
            "Error: the from-address (RATINGDB_MAIL_FROM) 'ratings' is not an email address — write it as "
            "name@example.org",
        ),
        (
            {"RATINGDB_SMTP_URL": "smtps://mail.example.org", "RATINGDB_MAIL_FROM": "r@example.org"},
            "Error: the site's public address is not set — set RATINGDB_PUBLIC_URL (or --public-url), e.g. "
            "https://ratings.example.org, so that notices can link to the site",
        ),
    ]
    unset = {name: "" for name in ("RATINGDB_SMTP_URL", "RATINGDB_MAIL_FROM", "RATINGDB_PUBLIC_URL")}
    for env, error in cases:
        result = runner.invoke(app, ["notices", "send"], env={**unset, **env})
        assert (result.exit_code, result.stderr) == (1, error + "\n")
        assert "s3cret" not in result.output


def test_two_senders_at_once_send_each_notice_once(db_url: str, engine: Engine) -> None:
    # Two workers of `serve --workers 2` (or serve and a timer's `notices send`) look at the queue at the
    # same moment: each notice is taken by one UPDATE that only one of them wins.
    with db.transaction(engine) as session:
        mary = users.add_user(session, "mary", "admin", PASSWORD)
        notices.set_contact(session, mary, "mary@example.org")
        for n in range(8):
            notices.queue_account_change(session, mary, "role", role="admin", before=f"r{n}")
    with smtp_server() as (inbox, port):
        settings = notices.notice_settings(f"smtp://127.0.0.1:{port}", "ratings@example.org", SITE, "ICU")
        assert settings is not None
        reports: list[notices.SendReport] = []
        start = threading.Barrier(2)

        def sender() -> None:
            start.wait()
            reports.append(notices.send_due(db.UnitOfWork(engine), settings))

        threads = [threading.Thread(target=sender) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert sum(r.sent for r in reports) == 8 and len(reports) == 2
    sent = sorted(body(m).split("(", 1)[1].split(")", 1)[0] for m in inbox.messages)
    assert sent == [f"it was r{n}" for n in range(8)]  # each once
    with db.transaction(engine) as session:
        assert session.scalars(select(Notice.attempts)).all() == [1] * 8
