"""Replacing an event with an organiser's corrected submission (issue 46): on the review page, in
`ratingdb submission replace ID EVENT` and in `ratingdb.api.replace_event_with_submission` — one service,
services.submissions.replace_with, which is replace-event's (services.corrections.replace_event).

The trial's congress (tests/site/congress.py): the Masters came with rank 3's FIDE ID mistyped, and the
officer settled it as "a new player" (`--new 3`), which registered Mac Aodha, Kevin a second time under
the mistyped ID. The organiser's corrected file has the right ID. Replaced with the stored choice, the
line would be registered anew once more; the officer chooses the registered player instead (`--match
3=25900230`), which replaces the stored choice. On every engine.
"""

from __future__ import annotations

import html
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select
from typer.testing import CliRunner

from ratingdb import api, db
from ratingdb.cli import app
from ratingdb.schema.models import AuditEntry, Event, EventPlayer, Player, Submission, WebUser
from ratingdb.services import submissions, users
from tests.site.congress import LIST, RIGHT_ID, TYPO_ID, masters, minor
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()
MASTERS, MINOR, CORRECTED = "limerick-congress-masters.trf", "limerick-congress-minor.trf", "corrected.trf"


def cli(url: str, *args: str) -> str:
    result = runner.invoke(app, ["--db", url, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def prepare(url: str, engine: Engine) -> None:
    """The seeded list, an organiser and an officer."""
    cli(url, "import-list", str(LIST), "--date", "2025-09-01", "--type", "standard")
    with db.transaction(engine) as session:
        users.add_user(session, "limerick", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)


def send(engine: Engine, name: str, content: bytes) -> int:
    """A file the organiser sends (the same service as the site's upload)."""
    # Checked in a dry-run transaction first, as the site does: a check in a SAVEPOINT alone would advance
    # PostgreSQL's and MariaDB's ID counters, and the events would not be 1 and 2.
    with db.transaction(engine, dry_run=True) as session:
        check = submissions.check_file(session, content, name, "standard")
    with db.transaction(engine) as session:
        organiser = session.scalars(select(WebUser).where(WebUser.username == "limerick")).one()
        sub, _ = submissions.submit(session, organiser, content, name, "standard", check=check)
        return sub.id


def sections_accepted_then_corrected(url: str, engine: Engine) -> None:
    """Both sections accepted from the terminal, the Masters with `--new 3`; the corrected file sent."""
    prepare(url, engine)
    assert (send(engine, MASTERS, masters(corrected=False)), send(engine, MINOR, minor())) == (1, 2)
    cli(url, "submission", "accept", "1", "--section", "Masters", "--new", "3")
    cli(url, "submission", "accept", "2", "--section", "Minor")
    assert send(engine, CORRECTED, masters(corrected=True)) == 3


def kevins(engine: Engine, masters: int) -> list[str]:
    """The FIDE IDs of the players named Mac Aodha, Kevin, and the one rank 3 of event `masters` is."""
    with db.transaction(engine, dry_run=True) as session:
        ids = sorted(
            str(i) for i in session.scalars(select(Player.fide_id).where(Player.name == "Mac Aodha, Kevin"))
        )
        current = session.scalar(
            select(Player.fide_id)
            .join(EventPlayer, EventPlayer.player_id == Player.id)
            .join(Event, Event.id == EventPlayer.event_id)
            .where(Event.id == masters, EventPlayer.start_rank == 3)
        )
    return [*ids, f"rank 3: {current}"]


def test_the_terminal_replaces_an_event_with_a_submission_and_the_option_replaces_the_stored_choice(
    db_url: str, engine: Engine
) -> None:
    sections_accepted_then_corrected(db_url, engine)
    shown = cli(db_url, "submission", "show", "3").splitlines()
    assert shown[:2] == [
        f"Submission 3: {CORRECTED} (standard), submitted.",
        "It looks like a corrected version of event 1 'Limerick Congress — Masters' (period 2025-10; 31 of "
        "the file's 32 players played in it): `ratingdb submission replace 3 1`",
    ]
    # With the stored --new 3 the line would be registered anew: a third Mac Aodha, Kevin.
    dry = cli(db_url, "submission", "replace", "3", "1", "--dry-run").splitlines()
    assert "  read as event 1 was imported: --new 3" in dry
    assert dry[dry.index("Registered 1 new player:") + 1].startswith(
        "  Mac Aodha, Kevin (national 10301, born 1993, IRL; national ID assigned; not FIDE 25900230"
    )
    assert kevins(engine, 1) == [RIGHT_ID, TYPO_ID, f"rank 3: {TYPO_ID}"]

    out = cli(
        db_url, "submission", "replace", "3", "1", "--match", f"3={RIGHT_ID}", "--reason", "ID of rank 3"
    )
    assert out.splitlines()[:5] == [
        "Replaced event 1 'Limerick Congress — Masters' (period 2025-10) with submission 3: the corrected "
        "tournament is event 3; event 1 is kept as its withdrawn version.",
        "  player added: Mac Aodha, Kevin",
        "  player removed: Mac Aodha, Kevin",
        "  pairings added: 9; removed: 9",  # rank 3's nine games, now with the registered player
        "Players: 31 matched by ID, 0 by name, 0 new, 1 resolved by options.",
    ]
    assert "--new 3" not in out
    assert kevins(engine, 3) == [RIGHT_ID, TYPO_ID, f"rank 3: {RIGHT_ID}"]
    with db.transaction(engine, dry_run=True) as session:
        sub = session.get_one(Submission, 3)
        assert (sub.status, sub.event_id, sub.choices) == ("accepted", 3, f"--match 3={RIGHT_ID}")
        audit = session.scalars(
            select(AuditEntry.detail).where(AuditEntry.action == "submission-accept")
        ).all()
    assert audit[-1] == f"submission 3: {CORRECTED} replaced event 1, as event 3"
    again = runner.invoke(app, ["--db", db_url, "submission", "replace", "3", "1"])
    assert (again.exit_code, again.stderr) == (1, "Error: submission 3 is already accepted, as event 3\n")


def test_the_api_replaces_an_event_with_a_submission_as_the_command_does(db_url: str, engine: Engine) -> None:
    sections_accepted_then_corrected(db_url, engine)
    with api.open_database(db_url) as database:
        with database.transaction() as session:
            done = api.replace_event_with_submission(
                session, 3, 1, match={3: RIGHT_ID}, reason="ID of rank 3"
            )
            assert (done.event_id, done.new_event_id, done.new_players) == (1, 3, [])
        with database.transaction() as session:
            try:
                api.replace_event_with_submission(session, 3, 1)
            except api.RatingDbError as exc:
                refused = str(exc)
    assert refused == "submission 3 is already accepted, as event 3"
    assert kevins(engine, 3) == [RIGHT_ID, TYPO_ID, f"rank 3: {RIGHT_ID}"]


def _text(response: object) -> str:
    return html.unescape(response.text)  # type: ignore[attr-defined]


def _upload(c: TestClient, name: str, content: bytes) -> None:
    response = c.post(
        "/desk/submissions",
        data={"csrftoken": csrf(c), "rating_type": "standard"},
        files=[("file", (name, content, "text/plain"))],
    )
    assert response.status_code == 200, response.text


def test_the_review_page_offers_the_event_the_file_corrects_and_replaces_it_with_the_line_chosen(
    db_url: str, engine: Engine
) -> None:
    prepare(db_url, engine)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "limerick") == 303
        _upload(organiser, MASTERS, masters(corrected=False))
        _upload(organiser, MINOR, minor())
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        for sub, section, lines in ((1, "Masters", {"choice_3": "new"}), (2, "Minor", {})):
            accepted = officer.post(
                f"/desk/queue/{sub}/accept",
                data={"csrftoken": csrf(officer), "section": section, **lines},
                follow_redirects=False,
            )
            assert accepted.status_code == 303, accepted.text
        with browser(db_url) as organiser:
            sign_in(organiser, "limerick")
            _upload(organiser, CORRECTED, masters(corrected=True))

        review = _text(officer.get("/desk/queue/3"))
        assert (
            "This file looks like a corrected version of event 1 “Limerick Congress — Masters” (period "
            "2025-10): 31 of its 32 players played in it." in review
        )
        assert 'href="/desk/queue/3/replace/1" id="replace-1"' in review
        assert 'id="replace-2"' not in review  # the Minor shares no player
        chosen = officer.get("/desk/queue/3/replace?event=1", follow_redirects=False)
        assert (chosen.status_code, chosen.headers["location"]) == (303, "/desk/queue/3/replace/1")

        # Checked at once with the event's choices: the stored "a new player" would register him anew.
        page = _text(officer.get("/desk/queue/3/replace/1"))
        assert "The corrected file: submission 3 from limerick (corrected.trf)" in page
        assert "The file can replace the event: nothing is written until you replace it." in page
        assert "read as the event was imported: --new 3" in page
        assert "new to the register: Mac Aodha, Kevin" in page
        assert '<option value="" selected>as the event was imported: a new player</option>' in page
        # The line's row names the line and the registered player its ID is (whom "is the player" names).
        row = page.split('<table class="choices">')[1].split("</tr>")[1]
        assert "line 12 (Mac Aodha, Kevin)" in row
        kevin = "Mac Aodha, Kevin (FIDE 25900230, national 10230, born 1993, IRL)"
        assert f'<span class="candidate">{kevin}' in row
        form = {"csrftoken": csrf(officer), "reason": "ID of rank 3", "choice_3": "match", "id_3": RIGHT_ID}
        checked = _text(officer.post("/desk/queue/3/replace/1", data={**form, "action": "check"}))
        assert "The file can replace the event" in checked and "new to the register" not in checked
        assert '<option value="match" selected>' in checked
        assert kevins(engine, 1) == [RIGHT_ID, TYPO_ID, f"rank 3: {TYPO_ID}"]  # checks write nothing

        done = officer.post(
            "/desk/queue/3/replace/1", data={**form, "action": "replace"}, follow_redirects=False
        )
        assert (done.status_code, done.headers["location"]) == (303, "/desk/periods/standard/2025-10")
        assert 'id="corrects"' not in _text(officer.get("/desk/queue/3"))  # accepted: nothing to offer
    assert kevins(engine, 3) == [RIGHT_ID, TYPO_ID, f"rank 3: {RIGHT_ID}"]
    with db.transaction(engine, dry_run=True) as session:
        sub = session.get_one(Submission, 3)
        assert (sub.status, sub.event_id, sub.choices) == ("accepted", 3, f"--match 3={RIGHT_ID}")
        assert session.scalar(select(func.count()).select_from(Event).where(Event.is_current.is_(True))) == 2
        actor = session.scalars(
            select(AuditEntry.actor)
            .where(AuditEntry.action == "submission-accept")
            .order_by(AuditEntry.id.desc())
        ).first()
    assert actor == "web:aoife"


def test_the_terminal_command_has_the_options_of_replace_event(tmp_path: Path) -> None:
    """`submission replace` reads the kept file as `replace-event` reads FILE: every option of it (so the
    replace page's controls, held by test_front_end_parity, are its controls), but --max-file-size."""
    from ratingdb.cli.reference import documented_params, is_option, option_names, walk

    commands = {" ".join(path): command for path, command, _ in walk() if path}

    def options(name: str) -> set[str]:
        return {option_names(p)[0] for p in documented_params(commands[name]) if is_option(p)}

    assert options("submission replace") == options("replace-event") - {"--max-file-size"}


# The options of `submission replace` that api.replace_event_with_submission has no parameter for, and why.
API_LEAVES_OUT = {
    "--dry-run": "a script's dry run is database.transaction(dry_run=True), the transaction it passes",
    "--national-id-start": "a federation setting (RATINGDB_NATIONAL_ID_START), not a choice about one file",
}


def test_the_api_function_has_a_parameter_for_every_option_of_the_command() -> None:
    import inspect

    from ratingdb.cli.reference import documented_params, is_option, option_names, walk

    command = next(c for path, c, _ in walk() if path == ("submission", "replace"))
    taken = set(inspect.signature(api.replace_event_with_submission).parameters)
    renamed = {"--type": "rating_type", "--accept-name": "accept_name", "--distinct-event": "distinct_event"}
    for param in documented_params(command):
        if not is_option(param):
            continue
        option = option_names(param)[0]
        if option in API_LEAVES_OUT:
            continue
        name = renamed.get(option, option.removeprefix("--").replace("-", "_"))
        assert name in taken, f"submission replace {option}: no parameter of replace_event_with_submission"
