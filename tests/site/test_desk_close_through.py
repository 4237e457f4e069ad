"""The period page closes several periods at once, as `close-period PERIOD --through LAST` does (issue
46): each in a transaction of its own, through the same service (services.closing.close_periods).

A list dated 2011-02-01 and no events: closing 2011-02 through 2011-04 publishes the three empty months'
lists (2011-03-01, 2011-04-01 and 2011-05-01), and the officer lands on the page of the last.
"""

from __future__ import annotations

import html
from pathlib import Path

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import RatingList
from ratingdb.services import users
from tests.cli.test_export_trf_roundtrip import with_old_rules
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()


def test_the_period_page_closes_every_period_through_the_one_given(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    with_old_rules(db_url, tmp_path)
    (tmp_path / "list.csv").write_text('national_id,name,rating\nX1,"Idle, Ida",1500\n', encoding="utf-8")
    listed = runner.invoke(
        app, ["--db", db_url, "import-list", str(tmp_path / "list.csv"), "--date", "2011-02-01"]
    )
    assert listed.exit_code == 0, listed.output
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        dry = html.unescape(
            officer.post("/desk/periods/standard/2011-02/dry-run", data={"csrftoken": csrf(officer)}).text
        )
        assert '<input id="through" name="through" maxlength="7" size="8">' in dry
        for through, error in (
            ("2011-13", "'2011-13' is not a rating period"),
            ("2011-01", "2011-01 is before 2011-02: name the last period to close"),
        ):
            refused = officer.post(
                "/desk/periods/standard/2011-02/close", data={"csrftoken": csrf(officer), "through": through}
            )
            assert (refused.status_code, error in html.unescape(refused.text)) == (400, True)
        closed = officer.post(
            "/desk/periods/standard/2011-02/close",
            data={"csrftoken": csrf(officer), "through": "2011-04"},
            follow_redirects=False,
        )
        assert (closed.status_code, closed.headers["location"]) == (303, "/desk/periods/standard/2011-04")
    with db.transaction(engine, dry_run=True) as session:
        dates = session.scalars(select(RatingList.list_date).order_by(RatingList.list_date)).all()
    assert [str(d) for d in dates] == ["2011-02-01", "2011-03-01", "2011-04-01", "2011-05-01"]
