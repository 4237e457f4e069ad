"""The replace page has replace-event's --type, --period, --section, --closing-days and
--federation-column (issue 46): each control left empty reads the file as the event was imported, and
a value given replaces that choice, as the option does in the terminal (the same service).

The club round robin is imported from the terminal; the officer replaces it with the corrected file
(Horvat won round 3 against Kowalski) as section "A" with 5 closing days.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import Event
from ratingdb.services import users
from tests.integration.test_api_import_choices import ROUND_ROBIN
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()
FIXED = (
    (b"  2.5          4 w 1     2 w =     3 b 1\n", b"  1.5          4 w 1     2 w =     3 b 0\n"),
    (b"  1.5          2 b =     4 b 1     1 w 0\n", b"  2.5          2 b =     4 b 1     1 w 1\n"),
)


def test_the_replace_page_reads_the_file_with_the_settings_given_and_keeps_the_others(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    imported = runner.invoke(
        app, ["--db", db_url, "import-trf", str(ROUND_ROBIN), "--federation-column", "mixed"]
    )
    assert imported.exit_code == 0, imported.output
    content = ROUND_ROBIN.read_bytes()
    for before, after in FIXED:
        content = content.replace(before, after)
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        page = html.unescape(officer.get("/desk/events/1/replace").text)
        assert '<option value="" selected>as imported: standard</option>' in page
        assert "as imported: both: FIDE codes are federations, the rest clubs" in page
        assert "as imported: none" in page and "as imported: 3" in page  # the federation's, kept at import
        form = {"csrftoken": csrf(officer), "reason": "round 3", "section": "A", "closing_days": "5"}
        wrong = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "check", "period": "2025-13"},
            files=[("file", ("fixed.trf", content, "text/plain"))],
        )
        assert wrong.status_code == 400
        assert "'2025-13' is not a rating period" in html.unescape(wrong.text)
        checked = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "check"},
            files=[("file", ("fixed.trf", content, "text/plain"))],
        )
        shown = html.unescape(checked.text)
        assert "The file can replace the event" in shown
        assert 'name="section" maxlength="80" value="A"' in shown  # the settings are sent again
        token = shown.split('name="pending" value="')[1].split('"')[0]
        replaced = officer.post(
            "/desk/events/1/replace",
            data={**form, "action": "replace", "pending": token},
            follow_redirects=False,
        )
        assert replaced.status_code == 303
    with db.transaction(engine, dry_run=True) as session:
        new = session.scalars(select(Event).where(Event.is_current.is_(True))).one()
        stored = json.loads(new.import_choices or "{}")
        assert (new.id, new.section, new.rating_type, str(new.period)) == (2, "A", "standard", "2025-10")
        # Given: 5 closing days; not given: the federation column as imported.
        assert (stored.get("closing_days"), stored.get("federation_column")) == (5, "mixed")
