"""A refusal of a whole file reaches the pages as data and each page words it (issue 46): the German and
French pages of a refused file contain no terminal option, where they showed the terminal's sentence
("import it with --section NAME …, or with --distinct-event …").

The club round robin is imported; an organiser sends a second section of the same congress (the same
record 012 and dates, four other players), which the check refuses as a section or another tournament.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.services import users
from tests.integration.test_api_import_choices import ROUND_ROBIN, second_section
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()
SAID = {
    "en": "has the name and start date of event 1 'Club round robin' (period 2025-10, not rated yet), but "
    "only 0 of its 4 players played in it: it is another section of the same congress",
    "de": "hat den Namen und das Anfangsdatum von Turnier 1 „Club round robin“ (Periode 2025-10, noch nicht "
    "gewertet), aber nur 0 seiner 4 Spieler haben darin gespielt",
    "fr": "porte le nom et la date de début du tournoi 1 « Club round robin » (période 2025-10, pas encore "
    "évaluée), mais seuls 0 de ses 4 joueurs y ont joué",
}


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_a_second_section_is_refused_in_the_page_s_words_with_no_terminal_option(
    language: str, db_url: str, engine: Engine, tmp_path: Path
) -> None:
    done = runner.invoke(app, ["--db", db_url, "import-trf", str(ROUND_ROBIN)])
    assert done.exit_code == 0, done.output
    other = second_section(tmp_path)
    with db.transaction(engine) as session:
        users.add_user(session, "cork-club", "organiser", PASSWORD)
        users.add_user(session, "aoife", "officer", PASSWORD)
    asked = {"accept-language": language}
    with browser(db_url) as organiser:
        assert sign_in(organiser, "cork-club") == 303
        sent = organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", (other.name, other.read_bytes(), "text/plain"))],
            headers=asked,
        )
        assert sent.status_code == 200
        # At upload, and read back from the stored check on the submission's page.
        for page in (sent.text, organiser.get("/desk/submissions/1", headers=asked).text):
            main = html.unescape(page).split("<main>")[1]
            assert SAID[language] in main
            assert "--" not in main
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        review = html.unescape(officer.get("/desk/queue/1", headers=asked).text).split("<main>")[1]
        assert SAID[language] in review and "--" not in review.split('<form method="post"')[0]
    # The terminal still says it with its options, from the same refusal.
    refused = runner.invoke(app, ["--db", db_url, "import-trf", str(other)])
    assert "import it with --section NAME (shown as 'Club round robin — NAME')" in refused.stderr


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de", "round_robin.trf wurde als Schnellschach gesendet, aber sein record 122"),
        ("fr", "round_robin.trf a été envoyé en rapide, mais son record 122"),
    ],
)
def test_a_file_sent_as_another_type_is_refused_in_the_page_s_words(
    language: str, said: str, db_url: str, engine: Engine
) -> None:
    with db.transaction(engine) as session:
        users.add_user(session, "cork-club", "organiser", PASSWORD)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "cork-club") == 303
        sent = organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "rapid"},
            files=[("file", (ROUND_ROBIN.name, ROUND_ROBIN.read_bytes(), "text/plain"))],
            headers={"accept-language": language},
        )
        main = html.unescape(sent.text).split("<main>")[1]
        assert said in main and "--" not in main


def test_a_check_stopped_at_its_time_limit_is_said_without_the_terminal_s_command() -> None:
    """Issue 46: the organiser read "ask the officer to import it with `ratingdb import-trf`"."""
    from ratingdb.services.submissions import Check, CheckTooLong, refusal_of
    from ratingdb.web.desk import _templates

    check = Check(refusals=[refusal_of(CheckTooLong(20.0))])
    check = Check.from_json(check.to_json())  # as stored with the submission
    shown = html.unescape(_templates("de").get_template("_check.html").render(check=check))
    assert "Die Prüfung dieser Datei dauerte länger als 20 Sekunden und wurde abgebrochen" in shown
    assert "ratingdb" not in shown


def test_a_file_of_a_closed_period_is_refused_in_the_page_s_words(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    (tmp_path / "list.csv").write_text('national_id,name,rating\nX1,"Idle, Ida",1500\n', encoding="utf-8")
    for args in (
        ["import-list", str(tmp_path / "list.csv"), "--date", "2025-10-01"],
        ["close-period", "2025-10"],
    ):
        done = runner.invoke(app, ["--db", db_url, *args])
        assert done.exit_code == 0, done.output
    with db.transaction(engine) as session:
        users.add_user(session, "cork-club", "organiser", PASSWORD)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "cork-club") == 303
        sent = organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", (ROUND_ROBIN.name, ROUND_ROBIN.read_bytes(), "text/plain"))],
            headers={"accept-language": "fr"},
        )
        main = html.unescape(sent.text).split("<main>")[1]
        assert (
            "round_robin.trf (Club round robin) se termine dans la période standard 2025-10, qui est "
            "clôturée (sa liste du 2025-11-01 est publiée)" in main
        )
        assert "--" not in main and "ratingdb" not in main
