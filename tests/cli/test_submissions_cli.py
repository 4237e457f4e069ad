"""`ratingdb submission list|show|accept|request-changes|reject`: the officer's queue from a terminal."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.errors import NAME_DIFFERS, LineCandidate, UnresolvedLine
from ratingdb.schema.models import AuditEntry, Submission
from ratingdb.services import submissions, users
from tests.site.test_desk_month import LIST, MONTH_FILE

runner = CliRunner()
KEVIN = "Mac Aodha, Kevin (FIDE 25900230, national 10230, born 1993, IRL)"  # seeds/standard-2025-09-01.csv


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
        "id,organiser,file,type,status,importable,check,event",
        "1,galway-open,web-month-dublin-open.trf,standard,submitted,no,current,",
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


def test_a_refused_line_is_data_the_terminal_words_as_options(db_url: str, engine: Engine) -> None:
    """Issue 46: the check recovered a refused line's rank from the error text with a regex. The refusal
    is a value now — the line, its name and ID, the registered player it conflicts with, the choices that
    settle it — and the terminal's sentence is made from it (UnresolvedLine.as_options)."""
    result = runner.invoke(app, ["--db", db_url, "import-list", str(LIST), "--date", "2025-09-01"])
    assert result.exit_code == 0, result.output
    with db.transaction(engine, dry_run=True) as session:
        check = submissions.check_file(session, MONTH_FILE.read_bytes(), MONTH_FILE.name, "standard")
    [refusal] = check.refusals
    assert refusal.unresolved == UnresolvedLine(
        source="web-month-dublin-open.trf",
        line=12,
        rank=3,
        name="Mac Aodha, Caoimhin",
        ids="FIDE 25900230",
        problem=NAME_DIFFERS,
        choices=("match", "new", "accept-name"),
        candidates=(LineCandidate("25900230", "Mac Aodha, Kevin", KEVIN),),
        detail="the names do not match (score 73, below 90)",
    )
    assert (refusal.line, refusal.rank) == (12, 3)
    assert refusal.text == (
        f"web-month-dublin-open.trf line 12 (rank 3) 'Mac Aodha, Caoimhin' FIDE 25900230: that ID is "
        f"registered to {KEVIN}, but the names do not match (score 73, below 90) — say which: --match "
        "3=25900230 (this line is that player; or =ID of another player), --new 3 (a new player, registered "
        "without the ID), --accept-name 3 (the same player, another spelling: kept as an alias)"
    )
    refused = runner.invoke(app, ["--db", db_url, "import-trf", str(MONTH_FILE)])
    assert refused.stderr == f"Error: {refusal.text}; nothing was written\n"
    assert "\nimport re\n" not in Path(submissions.__file__).read_text(encoding="utf-8")
