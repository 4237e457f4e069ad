"""The officer closes a period in the browser while `ratingdb import-trf` imports into it from a terminal.

Both take the period lock of the type (services.lists.lock_periods; on SQLite the write lock of BEGIN
IMMEDIATE), so one waits for the other: either the import commits first and the close rates its event,
or the close commits first and the import is refused in one line, writing nothing. Nothing is lost
either way: an event in the period is rated on the new list, or it was never stored. Run both ways on
every engine, the CLI as its own process (a terminal's), the web close in-process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import CalcListEvent, Event
from ratingdb.services import users
from tests.site.test_desk_month import LIST, MONTH_FILE, runner
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

ROOT = Path(__file__).parents[2]
RACING_FILE = ROOT / "seeds" / "trf" / "standard-leinster-club-quads.trf"  # 13–14 September: period 2025-09


def _cli(url: str) -> subprocess.Popen[str]:
    command = [
        sys.executable,
        "-c",
        "from ratingdb.cli import main; main()",
        "--db",
        url,
        "import-trf",
        str(RACING_FILE),
        "--type",
        "standard",
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


@pytest.mark.parametrize("first", ["cli", "web"])
def test_a_web_close_racing_a_cli_import_loses_nothing(first: str, db_url: str, engine: Engine) -> None:
    for args in (
        ["import-list", str(LIST), "--date", "2025-09-01", "--type", "standard"],
        ["import-trf", str(MONTH_FILE), "--type", "standard", "--accept-name", "3"],
    ):
        result = runner.invoke(app, ["--db", db_url, *args])
        assert result.exit_code == 0, result.output
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        token = csrf(officer)
        process = _cli(db_url) if first == "cli" else None
        closed = officer.post(
            "/desk/periods/standard/2025-09/close", data={"csrftoken": token}, follow_redirects=False
        )
        if process is None:
            process = _cli(db_url)
        out, err = process.communicate(timeout=300)
    assert closed.status_code == 303
    with db.transaction(engine) as session:
        racing = session.scalar(select(Event.id).where(Event.source_name == RACING_FILE.name))
        rated = set(session.scalars(select(CalcListEvent.event_id)))
        events = session.scalar(select(func.count()).select_from(Event))
    if process.returncode == 0:  # the import won: the close waited for it and rated its event
        assert racing is not None and racing in rated, out
        assert events == 2
    else:  # the close won: the import is refused in one line and wrote nothing
        lines = err.splitlines()
        assert (
            len(lines) == 1 and lines[0].startswith("Error: ") and "period 2025-09 is closed" in lines[0]
        ), err
        assert racing is None and events == 1
    if first == "web":
        assert process.returncode == 1  # started after the close returned: it can only find the period closed


def _until_waiting(engine: Engine, deadline: float) -> None:
    """Until another connection waits on the period lock (PostgreSQL: an advisory lock not granted;
    MySQL/MariaDB: a GET_LOCK in the process list). SQLite shows no waiter: its import waits on the write
    lock (BEGIN IMMEDIATE), and the outcome below is the same whenever it gets there."""
    import time

    from sqlalchemy import text

    probe = {
        "postgresql": "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        "mysql": "SELECT count(*) FROM information_schema.processlist WHERE state = 'User lock'",
    }.get(engine.dialect.name)
    if probe is None:
        return
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            if conn.execute(text(probe)).scalar_one():
                return
        time.sleep(0.1)
    raise AssertionError("the import never waited on the period lock")


def test_an_import_waiting_on_the_web_close_s_lock_is_refused_in_one_line(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic, by the lock rather than by timing: the web close is held after it has written the
    list (the period lock taken, nothing committed) until the CLI's import is seen waiting on that lock;
    then the close commits, and the import finds the period closed: one line, nothing written."""
    import threading
    import time

    from ratingdb.services import close as close_service

    for args in (
        ["import-list", str(LIST), "--date", "2025-09-01", "--type", "standard"],
        ["import-trf", str(MONTH_FILE), "--type", "standard", "--accept-name", "3"],
    ):
        result = runner.invoke(app, ["--db", db_url, *args])
        assert result.exit_code == 0, result.output
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
    holding, release = threading.Event(), threading.Event()
    real = close_service.close_period

    def held(*args: object, **kwargs: object) -> object:
        done = real(*args, **kwargs)  # type: ignore[arg-type]
        holding.set()
        assert release.wait(300)
        return done

    monkeypatch.setattr(close_service, "close_period", held)
    answers: list[int] = []
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        token = csrf(officer)

        def close() -> None:
            answer = officer.post(
                "/desk/periods/standard/2025-09/close", data={"csrftoken": token}, follow_redirects=False
            )
            answers.append(answer.status_code)

        closing = threading.Thread(target=close)
        closing.start()
        try:
            assert holding.wait(300), "the close never took the lock"
            process = _cli(db_url)
            _until_waiting(engine, time.monotonic() + 120)
        finally:
            release.set()
            closing.join(300)
        out, err = process.communicate(timeout=300)
    assert answers == [303]
    lines = err.splitlines()
    assert process.returncode == 1 and len(lines) == 1, err
    assert lines[0].startswith("Error: ") and "period 2025-09 is closed" in lines[0], err
    with db.transaction(engine) as session:
        assert session.scalar(select(Event.id).where(Event.source_name == RACING_FILE.name)) is None
        assert session.scalar(select(func.count()).select_from(Event)) == 1
