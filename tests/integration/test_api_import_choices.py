"""ratingdb.api has every choice of `import-trf` (issue 46): `import_trf`, `replace_event` and
`accept_submission` take them as the commands do, through the same services.

The files: the club round robin (tests/fixtures/trf/round_robin.trf) and a second section of the same
congress — the same record 012 and dates, four other players — which the import refuses as a section
until it is given one, as `import-trf --section B` does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from ratingdb import api, db
from ratingdb.errors import RatingDbError
from ratingdb.schema.models import Event, WebUser
from ratingdb.services import submissions, users

ROUND_ROBIN = Path(__file__).parents[1] / "fixtures" / "trf" / "round_robin.trf"
OTHERS = (
    (b"Kowalski, Jan", b"Brennan, Liam"), (b"Novak, Petra", b"Walsh, Aoife"),
    (b"Horvat, Ivan", b"Byrne, Conor"), (b"Szabo, Eva", b"Ryan, Nora"),
    (b"200001", b"300001"), (b"200002", b"300002"), (b"200003", b"300003"), (b"200004", b"300004"),
)  # fmt: skip


def second_section(folder: Path) -> Path:
    content = ROUND_ROBIN.read_bytes()
    for before, after in OTHERS:
        assert len(before) == len(after) and before in content  # the columns stay where TRF puts them
        content = content.replace(before, after)
    path = folder / "section-b.trf"
    path.write_bytes(content)
    return path


def sections(engine: Engine) -> list[tuple[int, str | None, bool | None]]:
    with db.transaction(engine, dry_run=True) as session:
        rows = session.execute(select(Event.id, Event.section, Event.is_current).order_by(Event.id))
        return [(i, s, c) for i, s, c in rows]


def test_import_trf_takes_the_section_and_the_line_choices_as_import_trf_does(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    other = second_section(tmp_path)
    with api.open_database(db_url) as database:
        with database.transaction() as session:
            api.import_trf(session, [ROUND_ROBIN], closing_days=3)
        with pytest.raises(RatingDbError, match="another section of the same congress"):
            with database.transaction() as session:
                api.import_trf(session, [other])
        with pytest.raises(RatingDbError) as several:
            with database.transaction() as session:
                api.import_trf(session, [ROUND_ROBIN, other], new=[2])
        assert str(several.value) == "line 2: several files are given, so name the file: (FILE, 2)"
        with pytest.raises(RatingDbError) as twice:
            with database.transaction() as session:
                api.import_trf(session, [other], new=[2], drop=[2])
        assert str(twice.value) == "line 2 is given two choices: give one"
        with database.transaction() as session:
            summary = api.import_trf(session, [other], section="B", new=[("section-b.trf", 1)])
        assert [(e.id, e.name, e.players) for e in summary.events] == [(2, "Club round robin — B", 4)]
    assert sections(engine) == [(1, None, True), (2, "B", True)]
    with db.transaction(engine, dry_run=True) as session:  # kept with the event, as import-trf keeps them
        stored = [
            json.loads(e.import_choices or "{}") for e in session.scalars(select(Event).order_by(Event.id))
        ]
    assert (stored[0].get("closing_days"), stored[1].get("new")) == (3, [1])


def test_accept_submission_and_replace_event_take_the_choices_of_the_commands(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    other = second_section(tmp_path)
    with api.open_database(db_url) as database:
        with database.transaction() as session:
            api.import_trf(session, [ROUND_ROBIN])
    # The second section, sent in through the site (checked in a dry run, as the desk checks it).
    with db.transaction(engine, dry_run=True) as session:
        check = submissions.check_file(session, other.read_bytes(), other.name, "standard")
    assert not check.ok  # a section of event 1's congress: it needs --section or --distinct-event
    with db.transaction(engine) as session:
        organiser = users.add_user(session, "cork-club", "organiser", "a long enough password")
        submissions.submit(session, organiser, other.read_bytes(), other.name, "standard", check=check)
    with api.open_database(db_url) as database:
        with database.transaction() as session:
            assert api.accept_submission(session, 1, section="B") == 2
        # Event 1 corrected, shown as section A: Horvat won round 3 against Kowalski (the file had it
        # the other way).
        fixed = tmp_path / "round-robin-fixed.trf"
        fixed.write_bytes(
            ROUND_ROBIN.read_bytes()
            .replace(
                b"  2.5          4 w 1     2 w =     3 b 1\n", b"  1.5          4 w 1     2 w =     3 b 0\n"
            )
            .replace(
                b"  1.5          2 b =     4 b 1     1 w 0\n", b"  2.5          2 b =     4 b 1     1 w 1\n"
            )
        )
        with database.transaction() as session:
            done = api.replace_event(session, 1, fixed, reason="round 3 the wrong way", section="A")
        assert (done.event_id, done.new_event_id, len(done.results_changed)) == (1, 3, 1)
    assert sections(engine) == [(1, None, None), (2, "B", True), (3, "A", True)]
    with db.transaction(engine, dry_run=True) as session:
        assert session.scalars(select(WebUser.username)).all() == ["cork-club"]
