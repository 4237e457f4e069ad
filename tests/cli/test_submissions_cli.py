"""`ratingdb submission list|show|accept|request-changes|reject`: the officer's queue from a terminal."""

from __future__ import annotations

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import AuditEntry, Submission
from ratingdb.services import submissions, users
from tests.site.test_desk_month import LIST, MONTH_FILE

runner = CliRunner()


def test_the_queue_from_the_terminal_accepts_with_the_choices_and_refuses_without(
    db_url: str, engine: Engine
) -> None:
    result = runner.invoke(app, ["--db", db_url, "import-list", str(LIST), "--date", "2025-09-01"])
    assert result.exit_code == 0, result.output
    with db.transaction(engine) as session:
        organiser = users.add_user(session, "galway-open", "organiser", "a long enough password")
        submissions.submit(session, organiser, MONTH_FILE.read_bytes(), MONTH_FILE.name, "standard")
    listed = runner.invoke(app, ["--db", db_url, "submission", "list", "--format", "csv"])
    assert listed.stdout.splitlines() == [
        "id,organiser,file,type,status,importable,event",
        "1,galway-open,web-month-dublin-open.trf,standard,submitted,no,",
    ]
    shown = runner.invoke(app, ["--db", db_url, "submission", "show", "1"])
    assert shown.stdout.splitlines()[:2] == [
        "Submission 1: web-month-dublin-open.trf (standard), submitted.",
        "It cannot be imported as it is:",
    ]
    refused = runner.invoke(app, ["--db", db_url, "submission", "accept", "1"])
    assert refused.exit_code == 1
    assert refused.stderr.startswith(
        "Error: web-month-dublin-open.trf line 12 (rank 3) 'Mac Aodha, Caoimhin'"
    )
    done = runner.invoke(app, ["--db", db_url, "submission", "accept", "1", "--accept-name", "3"])
    assert (done.exit_code, done.stdout) == (
        0,
        "Accepted submission 1: imported as event 1 (--accept-name 3).\n",
    )
    again = runner.invoke(app, ["--db", db_url, "submission", "reject", "1", "--reason", "late"])
    assert (again.exit_code, again.stderr) == (
        1,
        "Error: submission 1 is accepted: only a submitted file can be decided\n",
    )
    with db.transaction(engine) as session:
        assert session.scalars(select(Submission.decided_by)).one() is None  # the terminal, not an account
        accepted = session.scalars(select(AuditEntry).where(AuditEntry.action == "submission-accept")).one()
    assert accepted.actor is not None and not accepted.actor.startswith("web:")  # RATINGDB_USER or the login
