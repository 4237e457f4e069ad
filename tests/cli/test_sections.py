"""Sections of a congress and how events are shown (issue 25, item 4), with the real Bunratty 2011 files.

Bunratty's Masters and Minor are two files with the same record 012 (`Bunratty 2011`) and the same dates
and no player in common. The second was refused as "a corrected version" of the first (following that
advice deletes a section); now it is refused as a section, offering --section and --distinct-event, and
only a file sharing at least half the players (CORRECTION_SHARE) is offered replace-event. `event edit`
changes how an event is shown — an audited version, ratings and published lists untouched — and every
report, `events`, `report event`, the player pages and the web API show "Bunratty 2011 — Masters".
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from ratingdb import db
from ratingdb.services import submissions, users
from tests.cli.test_dry_run import dry_then_real
from tests.cli.test_export_trf_roundtrip import with_old_rules
from tests.cli.test_matching_stories import FIXTURES, MINOR, ok, query, refused, run
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in
from tests.site.web import client

MASTERS = FIXTURES / "icu-bunratty_masters_2011.tab"  # a copy of /work/shared/data/trf-samples'


def test_a_second_section_is_refused_as_a_section_and_imported_with_its_section(
    db_url: str, tmp_path: Path
) -> None:
    with_old_rules(db_url, tmp_path)
    ok(db_url, "import-trf", MASTERS, "--id-field", "national", "--federation-column", "mixed")
    error = refused(db_url, "import-trf", MINOR, "--id-field", "national", "--federation-column", "clubs")
    assert error.splitlines() == [
        "Error: icu-bunratty_minor_2011.tab has the name and start date of event 1 'Bunratty 2011' (period "
        "2011-03, not rated yet) but only 0 of the file's 103 players played in it (a corrected file keeps "
        "at least half): another section of the same congress — import it with --section NAME (shown as "
        "'Bunratty 2011 — NAME'), or with --distinct-event if it is another tournament; to show event 1 with "
        "its section too: `ratingdb event edit 1 --section NAME --reason TEXT`"
    ]
    out = ok(
        db_url,
        "import-trf",
        MINOR,
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
        "--section",
        "Minor",
    )
    assert out.splitlines()[0] == (
        "Imported icu-bunratty_minor_2011.tab as event 2 'Bunratty 2011 — Minor': standard, period 2011-03; "
        "103 players, 320 pairings (298 played games)."
    )
    # v_event tells the sections apart: the file's --section, then the one `event edit` gives.
    sections = "SELECT event_id, name, section FROM v_event ORDER BY event_id"
    assert query(db_url, sections) == [(1, "Bunratty 2011", None), (2, "Bunratty 2011", "Minor")]
    edited = ok(db_url, "event", "edit", "1", "--section", "Masters", "--reason", "Bunratty's sections")
    assert query(db_url, sections) == [(1, "Bunratty 2011", "Masters"), (2, "Bunratty 2011", "Minor")]
    assert edited.splitlines() == [
        "Event 1 is shown as 'Bunratty 2011 — Masters' (was 'Bunratty 2011'): no rating changes, the "
        "published lists are as they were."
    ]
    assert ok(db_url, "events", "--format", "csv").splitlines()[1:] == [
        "1,Bunratty 2011 — Masters,2011-02-25,2011-02-27,standard,2011-03,no,34,97,no,"
        "icu-bunratty_masters_2011.tab",
        "2,Bunratty 2011 — Minor,2011-02-25,2011-02-27,standard,2011-03,no,103,298,no,"
        "icu-bunratty_minor_2011.tab",
    ]
    assert ok(db_url, "events", "--name", "masters", "--format", "csv").count("\n") == 2
    assert ok(db_url, "report", "event", "2").splitlines()[0] == (
        "Event 2 'Bunratty 2011 — Minor' (2011-02-25 … 2011-02-27), standard, period 2011-03"
    )
    # The Minor again, with its section: the same tournament, so the correction check applies.
    assert refused(
        db_url,
        "import-trf",
        MINOR,
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
        "--section",
        "minor",
    ).splitlines() == [
        "Error: icu-bunratty_minor_2011.tab was imported before as event 2 'Bunratty 2011 — Minor' (from "
        "icu-bunratty_minor_2011.tab); an event is imported once"
    ]


def corrected_minor(folder: Path) -> Path:
    """The Minor with round 2 of O'Brien (rank 1) and Man (rank 36) the other way round."""
    lines = MINOR.read_bytes().split(b"\r\n")
    for i, line in enumerate(lines):
        if line.startswith(b"001    1 "):
            at = line.index(b"  36 w 0")
            lines[i] = line[:80] + b" 4.0" + line[84:at] + b"  36 w 1" + line[at + 8 :]
        if line.startswith(b"001   36 "):
            at = line.index(b"   1 b 1")
            lines[i] = line[:at] + b"   1 b 0" + line[at + 8 :]
    path = folder / "minor-corrected.tab"
    path.write_bytes(b"\r\n".join(lines))
    return path


def test_a_file_sharing_most_players_is_offered_replace_event_and_keeps_the_section(
    db_url: str, tmp_path: Path
) -> None:
    with_old_rules(db_url, tmp_path)
    ok(
        db_url,
        "import-trf",
        MINOR,
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
        "--section",
        "Minor",
    )
    fixed = corrected_minor(tmp_path)
    assert refused(
        db_url,
        "import-trf",
        fixed,
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
        "--section",
        "Minor",
    ).splitlines() == [
        "Error: minor-corrected.tab looks like a corrected version of event 1 'Bunratty 2011 — Minor' "
        "(period 2011-03, not rated yet; 103 of the file's 103 players played in it): `ratingdb "
        "replace-event 1 minor-corrected.tab`; if it is a different tournament with the same name and "
        "start date, add --distinct-event (a section of a congress: --section NAME)"
    ]
    ok(db_url, "event", "edit", "1", "--city", "Bunratty, Co. Clare", "--reason", "the venue")
    out = ok(db_url, "replace-event", "1", fixed, "--reason", "round 2 the other way round")
    assert out.splitlines()[:3] == [
        "Replaced event 1 'Bunratty 2011 — Minor' (period 2011-03) with minor-corrected.tab: the corrected "
        "tournament is event 2; event 1 is kept as its withdrawn version.",
        "  read as event 1 was imported: --id-field national --federation-column clubs",
        "  result changed: round 2: O'Brien, Pat – Man, Yee Shing 0-1 → 1-0",
    ]
    # The corrected version is shown as the event was: its section and the edited city.
    assert query(db_url, "SELECT section FROM event WHERE id = 2") == [("Minor",)]
    assert query(db_url, "SELECT name, section, city FROM event_label WHERE event_id = 2") == [
        ("Bunratty 2011", "Minor", "Bunratty, Co. Clare")
    ]


def test_event_edit_changes_only_how_a_rated_event_is_shown(db_url: str, tmp_path: Path) -> None:
    with_old_rules(db_url, tmp_path)
    (tmp_path / "list.csv").write_text('national_id,name,rating\nX1,"Idle, Ida",1500\n', encoding="utf-8")
    ok(db_url, "import-list", tmp_path / "list.csv", "--date", "2011-03-01", "--type", "standard")
    ok(db_url, "import-trf", MASTERS, "--id-field", "national", "--federation-column", "mixed")
    ok(db_url, "close-period", "2011-03")
    published = ok(db_url, "list", "2011-04-01", "--format", "csv")
    before = query(db_url, "SELECT * FROM event")
    ok(db_url, "event", "edit", "1", "--name", "Bunratty Chess Congress 2011", "--reason", "full name")
    out = ok(db_url, "event", "edit", "1", "--section", "Masters", "--reason", "its section")
    assert out.splitlines() == [
        "Event 1 is shown as 'Bunratty Chess Congress 2011 — Masters' (was 'Bunratty Chess Congress 2011'): "
        "no rating changes, the published lists are as they were."
    ]
    # The event row, the games and the list are as they were; the versions and the audit rows are kept.
    assert query(db_url, "SELECT * FROM event") == before
    assert ok(db_url, "list", "2011-04-01", "--format", "csv") == published
    assert query(
        db_url,
        "SELECT version, name, section, is_current FROM event_label WHERE event_id = 1 ORDER BY version",
    ) == [(1, "Bunratty Chess Congress 2011", None, None), (2, "Bunratty Chess Congress 2011", "Masters", 1)]
    assert [
        r[0] for r in query(db_url, "SELECT reason FROM audit_log WHERE action = 'event-edit' ORDER BY id")
    ] == [
        "full name",
        "its section",
    ]
    # The player pages, the period report and the web API show the new name.
    assert "Bunratty Chess Congress 2011 — Masters" in ok(db_url, "report", "period", "2011-03")
    with client(db_url) as api:
        events = api.get("/api/v1/events").json()["events"]
        assert [e["name"] for e in events] == ["Bunratty Chess Congress 2011 — Masters"]
        assert api.get("/api/v1/events/1").json()["name"] == "Bunratty Chess Congress 2011 — Masters"
    # An empty --section removes the section again.
    ok(db_url, "event", "edit", "1", "--section", "", "--reason", "one section after all")
    assert (
        ok(db_url, "events", "--format", "csv").splitlines()[1].startswith("1,Bunratty Chess Congress 2011,")
    )


def test_event_edit_refusals_are_one_line_and_write_nothing(db_url: str, tmp_path: Path) -> None:
    with_old_rules(db_url, tmp_path)
    ok(db_url, "import-trf", MASTERS, "--id-field", "national", "--federation-column", "mixed")
    cases = {
        ("event", "edit", "1", "--reason", "x"): "Error: nothing to change: give --name, --section or --city",
        ("event", "edit", "9", "--name", "X", "--reason", "x"): (
            "Error: there is no event 9: `ratingdb events` lists them"
        ),
        ("event", "edit", "1", "--name", " ", "--reason", "x"): (
            "Error: --name is empty: give the name the event is to be shown with"
        ),
        ("event", "edit", "1", "--name", "Bunratty 2011", "--reason", "x"): (
            "Error: event 1 is shown as 'Bunratty 2011' already — nothing to change"
        ),
        ("event", "edit", "1", "--section", "M" * 101, "--reason", "x"): (
            "Error: --section is longer than 100 characters: give a shorter one"
        ),
        ("event", "edit", "1", "--section", "Major", "--reason", " "): (
            "Error: --reason is empty: say why the event is shown differently"
        ),
    }
    for args, line in cases.items():
        assert refused(db_url, *args).splitlines() == [line], args
    assert run(db_url, "event", "edit", "1", "--section", "Major").exit_code == 2  # --reason is required


def test_event_edit_dry_run_writes_nothing_and_prints_what_the_edit_does(db_url: str, tmp_path: Path) -> None:
    with_old_rules(db_url, tmp_path)
    ok(db_url, "import-trf", MASTERS, "--id-field", "national", "--federation-column", "mixed")
    real = dry_then_real(db_url, "event", "edit", "1", "--section", "Masters", "--reason", "its section")
    assert real == [
        "Event 1 is shown as 'Bunratty 2011 — Masters' (was 'Bunratty 2011'): no rating changes, the "
        "published lists are as they were."
    ]


def _two_sections_sent(db_url: str, engine: Engine, folder: Path) -> None:
    """An organiser sends Bunratty's Masters and Minor (the same 012 name and start date) through the site,
    and an officer is there to decide."""
    with_old_rules(db_url, folder)
    with db.transaction(engine) as session:
        users.add_user(session, "bunratty", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)
    for file in (MASTERS, MINOR):
        # Checked in a dry-run transaction, as the site does: the IDs the check used are put back.
        with db.transaction(engine, dry_run=True) as session:
            check = submissions.check_file(session, file.read_bytes(), file.name, "standard")
        with db.transaction(engine) as session:
            organiser = users.find_user(session, "bunratty")
            submissions.submit(session, organiser, file.read_bytes(), file.name, "standard", check=check)


def test_submission_accept_takes_a_section_and_distinct_event_as_import_trf_does(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    """The trial's block (issue 46, item 1): the second section of a congress was refused from the queue,
    and `submission accept` had no --section nor --distinct-event. Now it has every option of import-trf."""
    _two_sections_sent(db_url, engine, tmp_path)
    assert ok(
        db_url, "submission", "accept", "1", "--id-field", "national", "--federation-column", "mixed"
    ).splitlines() == [
        "Accepted submission 1: imported as event 1 (--id-field national --federation-column mixed)."
    ]
    assert refused(
        db_url, "submission", "accept", "2", "--id-field", "national", "--federation-column", "clubs"
    ).startswith("Error: icu-bunratty_minor_2011.tab has the name and start date of event 1 'Bunratty 2011'")
    # --distinct-event is taken too (a dry run: nothing is written).
    distinct = ok(
        db_url,
        "submission",
        "accept",
        "2",
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
        "--distinct-event",
        "--dry-run",
    )
    assert distinct.splitlines()[1] == (
        "Accepted submission 2: imported as event 2 "
        "(--id-field national --federation-column clubs --distinct-event)."
    )
    assert query(db_url, "SELECT status FROM submission WHERE id = 2") == [("submitted",)]
    out = ok(
        db_url,
        "submission",
        "accept",
        "2",
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
        "--section",
        "Minor",
    )
    assert out.splitlines() == [
        "Accepted submission 2: imported as event 2 "
        "(--section Minor --id-field national --federation-column clubs)."
    ]
    sections = "SELECT event_id, name, section FROM v_event ORDER BY event_id"
    assert query(db_url, sections) == [(1, "Bunratty 2011", None), (2, "Bunratty 2011", "Minor")]


def test_the_review_page_accepts_a_second_section_with_a_late_period_from_its_controls(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    """The same from the officer's review page: the section, and a later period (the Minor ends on
    2011-02-27, period 2011-03; rated in 2011-04 instead, the second list after it, §9.1)."""
    _two_sections_sent(db_url, engine, tmp_path)
    (tmp_path / "list.csv").write_text('national_id,name,rating\nX1,"Idle, Ida",1500\n', encoding="utf-8")
    ok(db_url, "import-list", tmp_path / "list.csv", "--date", "2011-02-01", "--type", "standard")
    ok(db_url, "submission", "accept", "1", "--id-field", "national", "--federation-column", "mixed")
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        page = officer.get("/desk/queue/2").text
        for control in ('name="section"', 'name="distinct_event"', 'name="period"', 'name="closing_days"',
                        'name="official"', 'name="type"', 'name="type_override"',
                        'name="federation_column"'):  # fmt: skip
            assert control in page
        form = {
            "csrftoken": csrf(officer), "id_field": "national", "federation_column": "clubs",
            "section": "Minor", "period": "2011-04",
        }  # fmt: skip
        checked = officer.post("/desk/queue/2/check", data=form).text
        assert (
            "The file can be imported: &#39;Bunratty 2011 — Minor&#39;: standard, period 2011-04" in checked
        )
        assert 'name="section" maxlength="80" value="Minor"' in checked
        # import-trf's warning, before accepting (no Minor player is on the list: none is rated).
        assert (
            "Warning: event 2 &#39;Bunratty 2011 — Minor&#39;: 0 of 298 games can be rated — not rated: "
            "unrated opponents: 0, unregistered players: 298" in checked
        )
        bad = officer.post("/desk/queue/2/check", data={**form, "period": "April"})
        assert bad.status_code == 400
        assert "Error: &#39;April&#39; is not a rating period: write it as YYYY-MM" in bad.text
        done = officer.post("/desk/queue/2/accept", data=form, follow_redirects=False)
        assert done.status_code == 303
    assert query(db_url, "SELECT id, period, section FROM event ORDER BY id") == [
        (1, "2011-03", None),
        (2, "2011-04", "Minor"),
    ]
    assert query(db_url, "SELECT choices FROM submission WHERE id = 2") == [
        ("--period 2011-04 --section Minor --id-field national --federation-column clubs",)
    ]
