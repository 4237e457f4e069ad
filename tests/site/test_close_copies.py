"""Every front end closes through one service (services.closing): the desk's Close button and
`ratingdb.api.close_period` make the copy before a close that `ratingdb close-period` makes.

RATINGDB_BACKUPS=2 asks for a checked copy of the database before each close that will publish. The copy
is asked for (ratingdb.backup.pre_close_copy, watched here and run for real) on every engine, before the
close publishes anything; on SQLite it is a file in `<database>-backups/` holding the lists from before
the close; on PostgreSQL and MySQL/MariaDB pre_close_copy makes none (their backups are `ratingdb
backup`'s), for every front end alike. A close that changes nothing asks for no copy.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, select, text
from typer.testing import CliRunner

from ratingdb import api, backup, db
from ratingdb.cli import app
from ratingdb.schema.models import AuditEntry
from ratingdb.services import users
from tests.cli.test_import_cli import FIXTURES, ROUND_ROBIN_LIST
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

runner = CliRunner()
FRONT_ENDS = ["cli", "desk", "api", "api-in-a-transaction"]


def prepare(url: str, engine: Engine, tmp_path: Path) -> None:
    """The October list and the round robin of October; an officer for the desk."""
    start = tmp_path / "oct.csv"
    start.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    for args in (
        ["import-list", str(start), "--date", "2025-10-01"],
        ["import-trf", str(FIXTURES / "round_robin.trf"), "--type", "standard"],
    ):
        result = runner.invoke(app, ["--db", url, *args])
        assert result.exit_code == 0, result.output
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)


def close_by(front_end: str, url: str) -> None:
    """Close the standard period 2025-10 through `front_end`."""
    if front_end == "cli":
        result = runner.invoke(app, ["--db", url, "close-period", "2025-10"])
        assert result.exit_code == 0, result.output
    elif front_end == "desk":
        with browser(url) as officer:
            assert sign_in(officer, "aoife") == 303
            closed = officer.post(
                "/desk/periods/standard/2025-10/close",
                data={"csrftoken": csrf(officer)},
                follow_redirects=False,
            )
            assert closed.status_code == 303, closed.text
    elif front_end == "api":
        with api.open_database(url) as database:
            api.close_period(database, "2025-10")
    else:
        with api.open_database(url) as database, database.transaction() as session:
            api.close_period(session, "2025-10")


def published(url: str) -> list[str]:
    """The dates of the computed lists, read on a connection of their own."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            dates = conn.execute(
                text("SELECT list_date FROM rating_list WHERE origin = 'computed'")
            ).scalars()
            return [str(d)[:10] for d in dates]
    finally:
        engine.dispose()


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_every_front_end_copies_the_database_before_a_close_as_the_cli_does(
    front_end: str, db_url: str, engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare(db_url, engine, tmp_path)
    asked: list[tuple[int, str, list[str], Path | None]] = []
    real = backup.pre_close_copy

    def watched(url: str, keep: int, label: str) -> Path | None:
        before = published(db_url)  # what the database holds when the copy is made
        made = real(url, keep, label)
        asked.append((keep, label, before, made))
        return made

    monkeypatch.setattr(backup, "pre_close_copy", watched)
    monkeypatch.setenv("RATINGDB_BACKUPS", "2")
    close_by(front_end, db_url)
    assert published(db_url) == ["2025-11-01"]
    ((keep, label, before, made),) = asked
    assert (keep, label, before) == (2, "2025-10-standard", [])  # asked for before the close published
    file = db.database_file(db_url)
    if file is None:
        assert made is None  # a server: pre_close_copy copies SQLite files only
    else:
        (copy,) = (file.parent / f"{file.name}-backups").glob("pre-close-2025-10-standard-*.sqlite")
        assert made == copy
        with sqlite3.connect(copy) as conn:
            dates = [d for (d,) in conn.execute("SELECT list_date FROM rating_list ORDER BY list_date")]
        assert dates == ["2025-10-01"]  # the database as it was before the close

    close_by(front_end, db_url)  # closed already: nothing changes, no copy is asked for
    assert len(asked) == 1
    if front_end == "desk":
        with db.transaction(engine) as session:
            actors = session.scalars(
                select(AuditEntry.actor).where(AuditEntry.action == "close-period")
            ).all()
        assert actors == ["web:aoife"]
