"""The desk's check shows what issue 47 made data: the ID column refusal with its control, and the
register differences of a file whose IDs and names identify registered players (the CLI's service)."""

from __future__ import annotations

import html
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.services import users
from tests.cli.test_correction_choices import LIST as QUAD_LIST
from tests.cli.test_correction_choices import QUAD
from tests.cli.test_export_trf_roundtrip import with_old_rules
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()


def test_the_check_refuses_icu_numbers_as_fide_ids_and_lists_register_differences_read_as_national(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    # The list registers Finnegan, Mark (ICU 4191) born 1966; the quad's line says 1967/09/12.
    with_old_rules(db_url, tmp_path)
    (tmp_path / "list.csv").write_text(QUAD_LIST.replace("IRL,M,1967", "IRL,M,1966"), encoding="utf-8")
    listed = runner.invoke(
        app, ["--db", db_url, "import-list", str(tmp_path / "list.csv"), "--date", "2011-07-01"]
    )
    assert listed.exit_code == 0, listed.output
    with db.transaction(engine) as session:
        users.add_user(session, "juniors", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "juniors") == 303
        organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", (QUAD.name, QUAD.read_bytes(), "text/plain"))],
        )
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        as_fide = html.unescape(
            officer.post("/desk/queue/1/check", data={"csrftoken": csrf(officer), "id_field": "fide"}).text
        )
        assert "icu-junior-quad-2011.tab: 4 of the file's 4 IDs cannot be FIDE IDs" in as_fide
        assert '<option value="national" ' in as_fide  # the control that settles it
        national = {"csrftoken": csrf(officer), "id_field": "national"}
        page = html.unescape(officer.post("/desk/queue/1/check", data=national).text)
        assert "The file can be imported: " in page
        assert "<h2>Register differences</h2>" in page
        assert (
            "<tr><td>15</td><td>1</td><td>Finnegan, Mark</td><td>birth year</td><td>1967</td><td>1966</td>"
            '<td><a href="/desk/players/4191">edit the player</a></td></tr>'
        ) in page
