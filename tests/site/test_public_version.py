"""What the public sees changes only when something public changes (issue 54, H1).

The served site keys its pages and live ratings on the public data version (ratingdb.reports.live
.data_version). A submission, a withdrawal, a refused upload or a sign-in must not change it — one
organiser uploading five times a second made every page and the live list be made again each time — and an
import must. On every engine, in-process.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.reports.live import data_version
from ratingdb.web import state as web_state
from tests.site.test_desk_month import MONTH_FILE, prepare
from tests.site.test_desk_permissions import browser, csrf, sign_in

runner = CliRunner()


def version(engine: Engine) -> int:
    with db.read_transaction(engine) as session:
        return data_version(session)


def test_a_submission_does_not_change_the_public_version_and_an_import_does(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare(db_url, engine)  # a list in force, an organiser and an officer
    made: list[str] = []
    real = web_state.live_list

    def counted(session: object, rating_type: str) -> object:
        made.append(rating_type)
        return real(session, rating_type)  # type: ignore[arg-type]

    monkeypatch.setattr(web_state, "live_list", counted)
    with browser(db_url) as organiser:
        assert organiser.get("/live/standard.html").status_code == 200
        assert made == ["standard"]
        before = version(engine)
        assert sign_in(organiser, "galway-open") == 303
        sent = organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", (MONTH_FILE.name, MONTH_FILE.read_bytes(), "text/plain"))],
        )
        assert sent.status_code == 200
        assert organiser.get("/desk/submissions/1").status_code == 200
        withdrawn = organiser.post(
            "/desk/submissions/1/withdraw",
            data={"csrftoken": csrf(organiser), "confirm": "yes"},
            follow_redirects=False,
        )
        assert withdrawn.status_code == 303
        assert version(engine) == before
        # The live list is not made again: the data the public sees did not change.
        assert organiser.get("/live/standard.html").status_code == 200
        assert made == ["standard"]

        imported = runner.invoke(
            app, ["--db", db_url, "import-trf", str(MONTH_FILE), "--type", "standard", "--accept-name", "3"]
        )
        assert imported.exit_code == 0, imported.output
        assert version(engine) > before
        # The first request after the change starts the recompute in the background and is answered with
        # the previous live list (tests/site/test_live_background.py); once made, the new one is served.
        assert organiser.get("/live/standard.html").status_code == 200
        organiser.app.state.ratingdb.settle_live()  # type: ignore[attr-defined]
        live = organiser.get("/live/standard.html")
        assert live.status_code == 200 and "Dublin September Open" in live.text
        assert made == ["standard", "standard"]
