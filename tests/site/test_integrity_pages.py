"""The integrity screen on the desk and the site (issue 50), every engine: the demo gets no high; the
officer sees each event's screen on the period page, records an exclusion there, and the dry-run close, the
public event page and the JSON API say it is excluded and why; the check of a file shows its screen.
"""

from __future__ import annotations

import html
from pathlib import Path

from sqlalchemy import Engine

from ratingdb import db
from ratingdb.rating import Period
from ratingdb.services import submissions as subs
from ratingdb.services import users
from ratingdb.services.integrity import screen_events
from tests.integration.test_integrity import _copy_with_other_names, _month
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in


def test_the_demos_events_get_no_high_from_the_screen(demo_url: str) -> None:
    engine = db.make_engine(demo_url)
    try:
        with db.transaction(engine, dry_run=True) as session:
            found = {
                (e.name, e.rating_type): e.level
                for kind in ("standard", "rapid", "national", "club")
                for period in ("2025-09", "2025-10", "2025-11")
                for e in screen_events(session, kind, period=Period.parse(period)).events
            }
    finally:
        engine.dispose()
    # Every one of them `none` (docs/guide/integrity.md says why: no pattern is seeded, and the Dublin
    # Open's top seed plays five opponents 400 below — fewer games than farming_min_games).
    assert len(found) == 44 and set(found.values()) == {"none"}


def test_the_officer_sees_the_screen_and_excludes_an_event_on_the_period_page(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    ids = _month(db_url, tmp_path)
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    invented = ids["Invented Open"]
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        page = html.unescape(officer.get("/desk/periods/standard/2025-09").text)
        assert page.count("Integrity screen:") == len(ids)
        assert f'id="risk-level-{invented}">high<' in page
        assert "30 of 31 players are new to the register and scored 0 % of the points" in page
        assert "A screen, not a verdict" in page and f'id="review-{invented}"' in page
        reason = "no arbiter's report"
        sent = officer.post(
            f"/desk/events/{invented}/review",
            data={"csrftoken": csrf(officer), "decision": "exclude", "reason": reason},
            follow_redirects=False,
        )
        assert sent.status_code == 303 and sent.headers["location"] == "/desk/periods/standard/2025-09"
        page = html.unescape(officer.get("/desk/periods/standard/2025-09").text)
        assert f"excluded from rating by the rating officer: {reason}" in page
        dry = html.unescape(
            officer.post("/desk/periods/standard/2025-09/dry-run", data={"csrftoken": csrf(officer)}).text
        )
        assert f"Not rated, excluded by the rating officer: Invented Open (event {invented}): {reason}" in dry
        german = html.unescape(
            officer.get(f"/events/{invented}.html", headers={"Accept-Language": "de"}).text
        )
        assert (
            "Nicht gewertet: Der Wertungsreferent hat dieses Turnier von der Wertung ausgeschlossen."
            in german
        )
        assert f"Begründung: {reason}" in german
        assert officer.get(f"/api/v1/events/{invented}").json()["excluded_reason"] == reason
        refused = officer.post(
            f"/desk/events/{invented}/review",
            data={"csrftoken": csrf(officer), "decision": "exclude", "reason": " "},
            follow_redirects=False,
        )
        assert refused.status_code == 400


def test_the_check_of_a_file_shows_its_screen_and_keeps_it(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    _month(db_url, tmp_path)
    # The Dublin crosstable a third time, under another event name: a copy of two events already there.
    content = _copy_with_other_names(tmp_path).read_bytes().replace(b"Some Other Open", b"Third Open")
    with db.transaction(engine, dry_run=True) as session:
        check = subs.check_file(session, content, "third.trf", "standard")
    assert check.ok and check.risk is not None and check.risk["level"] == "high"
    assert "duplicate-results" in {s["code"] for s in check.risk["signals"]}
    assert subs.Check.from_json(check.to_json()).risk == check.risk
