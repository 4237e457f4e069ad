"""The officer's queue (issue 46, item 7): it shows the waiting submissions unless another status is
chosen, and its check column says what the stored check says and when that check is out of date.

The story: an organiser sends the round robin and a copy with one name corrected. Both check clean when
they come (nothing is imported yet). Once the officer accepts the first, the copy is the same tournament as
event 1 and would be refused — the queue said "can be imported" for it until now. It is marked as
checked before the latest import; "Check again" keeps the new check, and the queue says what it says.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import Submission
from ratingdb.services import submissions, users
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()
ROUND_ROBIN = Path(__file__).parents[1] / "fixtures" / "trf" / "round_robin.trf"
OUTDATED = "checked before the latest import, close or register change — open it and check again"


def rows_of(page: str) -> dict[str, str]:
    """The queue's rows by submission number: each row's cells as text, joined by " | "."""
    body = html.unescape(page).split("<tbody>")[1].split("</tbody>")[0] if "<tbody>" in page else ""
    found = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = [re.sub(r"<[^>]+>", " ", c).split() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        found[cells[0][0]] = " | ".join(" ".join(c) for c in cells[1:])
    return found


def _send_both(db_url: str, engine: Engine) -> None:
    corrected = ROUND_ROBIN.read_bytes().replace(b"Novak, Petra ", b"Nowak, Petra ")
    with db.transaction(engine) as session:
        users.add_user(session, "cork-club", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)
    for name, content in (("round_robin.trf", ROUND_ROBIN.read_bytes()), ("corrected.trf", corrected)):
        # Checked in a dry run, as the desk checks an upload: the servers' ID counters are put back.
        with db.transaction(engine, dry_run=True) as session:
            check = submissions.check_file(session, content, name, "standard")
        assert check.ok, check.text()
        with db.transaction(engine) as session:
            organiser = users.find_user(session, "cork-club")
            submissions.submit(session, organiser, content, name, "standard", check=check)


def test_the_queue_filters_by_status_and_says_when_a_check_is_out_of_date(
    db_url: str, engine: Engine
) -> None:
    _send_both(db_url, engine)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        waiting = officer.get("/desk/queue").text
        assert rows_of(waiting) == {
            "1": f"cork-club | round_robin.trf | standard | {_sent(engine, 1)} | submitted | can be imported",
            "2": f"cork-club | corrected.trf | standard | {_sent(engine, 2)} | submitted | can be imported",
        }
        assert "Waiting (2)" in waiting and 'href="/desk/queue?status=accepted">accepted (0)' in waiting
        accepted = officer.post(
            "/desk/queue/1/accept", data={"csrftoken": csrf(officer)}, follow_redirects=False
        )
        assert accepted.status_code == 303
        # Only the waiting one now; its check was made before event 1 was imported.
        after = officer.get("/desk/queue").text
        assert rows_of(after) == {
            "2": f"cork-club | corrected.trf | standard | {_sent(engine, 2)} | submitted | can be imported "
            + OUTDATED
        }
        assert rows_of(officer.get("/desk/queue?status=accepted").text) == {
            "1": f"cork-club | round_robin.trf | standard | {_sent(engine, 1)} | accepted | event 1"
        }
        assert list(rows_of(officer.get("/desk/queue?status=all").text)) == ["2", "1"]  # the waiting first
        assert "No submission has this status." in officer.get("/desk/queue?status=rejected").text
        unknown = officer.get("/desk/queue?status=lost")
        assert unknown.status_code == 400
        assert "'lost' is not a status of a submission" in html.unescape(unknown.text)
        review = html.unescape(officer.get("/desk/queue/2").text)
        assert 'id="outdated"' in review and 'id="accept"' in review  # the stored check, as it was
        # "Check again" with no choice made: the new check is kept, and it refuses the copy.
        again = html.unescape(officer.post("/desk/queue/2/check", data={"csrftoken": csrf(officer)}).text)
        assert "is the same tournament as event 1 'Club round robin'" in again
        assert 'id="outdated"' not in again
        assert rows_of(officer.get("/desk/queue").text) == {
            "2": f"cork-club | corrected.trf | standard | {_sent(engine, 2)} | submitted | "
            "needs a decision or a fix"
        }
        assert 'id="outdated"' not in officer.get("/desk/queue/2").text
        # A check with the officer's choices is theirs to try: it is not kept as the submission's.
        officer.post("/desk/queue/2/check", data={"csrftoken": csrf(officer), "distinct_event": "yes"})
    with db.transaction(engine, dry_run=True) as session:
        kept = session.get_one(Submission, 2)
        assert kept.check_ok is False and "event 1" in kept.check_text


def _sent(engine: Engine, submission_id: int) -> str:
    with db.transaction(engine, dry_run=True) as session:
        return str(session.scalars(select(Submission.created_at).where(Submission.id == submission_id)).one())


def test_submission_list_filters_by_status_and_marks_an_outdated_check(db_url: str, engine: Engine) -> None:
    _send_both(db_url, engine)
    done = runner.invoke(app, ["--db", db_url, "submission", "accept", "1"])
    assert done.exit_code == 0, done.output
    listed = runner.invoke(app, ["--db", db_url, "submission", "list", "--format", "csv"])
    assert listed.stdout.splitlines() == [
        "id,organiser,file,type,status,importable,check,event",
        "2,cork-club,corrected.trf,standard,submitted,yes,outdated,",
        "1,cork-club,round_robin.trf,standard,accepted,,,1",
    ]
    accepted = runner.invoke(
        app, ["--db", db_url, "submission", "list", "--status", "accepted", "--format", "csv"]
    )
    assert accepted.stdout.splitlines()[1:] == ["1,cork-club,round_robin.trf,standard,accepted,,,1"]
    # `submission show` checks it again; with no choice given, that check is kept.
    shown = runner.invoke(app, ["--db", db_url, "submission", "show", "2"])
    assert "It cannot be imported as it is:" in shown.stdout.splitlines()
    listed = runner.invoke(
        app, ["--db", db_url, "submission", "list", "--status", "submitted", "--format", "csv"]
    )
    assert listed.stdout.splitlines()[1:] == ["2,cork-club,corrected.trf,standard,submitted,no,current,"]
    wrong = runner.invoke(app, ["--db", db_url, "submission", "list", "--status", "lost"])
    assert (wrong.exit_code, wrong.stderr) == (
        1,
        "Error: 'lost' is not a status of a submission — choose one of submitted, changes_requested, "
        "accepted, rejected, withdrawn, replaced\n",
    )
