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
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from ratingdb import db
from ratingdb.cli import app
from ratingdb.schema.models import CalcListEvent, Event
from ratingdb.services import users
from tests.site.test_desk_month import LIST, MONTH_FILE, runner
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

ROOT = Path(__file__).parents[2]
RACING_FILE = ROOT / "seeds" / "trf" / "standard-leinster-club-quads.trf"  # 13–14 September: period 2025-09


# The CLI's import, held once it has stored the event (the period lock taken, nothing committed) until a
# line comes on its standard input: "holding" on its standard output says it got there.
HELD_IMPORT = """
import sys
from ratingdb.services import events
real = events.import_events
def held(*args, **kwargs):
    done = real(*args, **kwargs)
    print("holding", flush=True)
    sys.stdin.readline()
    return done
events.import_events = held
from ratingdb.cli import main
main()
"""


def _cli(url: str, *, held: bool = False) -> subprocess.Popen[str]:
    command = [
        sys.executable,
        "-c",
        HELD_IMPORT if held else "from ratingdb.cli import main; main()",
        "--db",
        url,
        "import-trf",
        str(RACING_FILE),
        "--type",
        "standard",
    ]
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE if held else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def _month_and_officer(db_url: str, engine: Engine) -> None:
    """The month's list and first event, and the officer who closes it."""
    for args in (
        ["import-list", str(LIST), "--date", "2025-09-01", "--type", "standard"],
        ["import-trf", str(MONTH_FILE), "--type", "standard", "--accept-name", "3"],
    ):
        result = runner.invoke(app, ["--db", db_url, *args])
        assert result.exit_code == 0, result.output
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)


def _close(officer: TestClient, answers: list[int]) -> threading.Thread:
    """The officer's close, posted from a thread of its own (it may wait on the period lock)."""
    token = csrf(officer)

    def close() -> None:
        answer = officer.post(
            "/desk/periods/standard/2025-09/close", data={"csrftoken": token}, follow_redirects=False
        )
        answers.append(answer.status_code)

    closing = threading.Thread(target=close)
    closing.start()
    return closing


def test_a_web_close_waiting_on_a_cli_import_rates_its_event(db_url: str, engine: Engine) -> None:
    """The import first, by the lock rather than by timing: the CLI's import is held after it has stored
    its event (the period lock taken, nothing committed); the web close starts then and is seen waiting on
    that lock; the import goes on and commits, and the close that follows rates both events."""
    _month_and_officer(db_url, engine)
    answers: list[int] = []
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        process = _cli(db_url, held=True)
        assert process.stdin is not None and process.stdout is not None
        try:
            assert process.stdout.readline() == "holding\n", process.stderr.read()  # type: ignore[union-attr]
            closing = _close(officer, answers)
            _until_waiting(engine, time.monotonic() + 120)
        finally:
            process.stdin.write("\n")
            process.stdin.flush()
        out, err = process.communicate(timeout=300)
        closing.join(300)
    assert process.returncode == 0, err
    assert out.startswith(f"Imported {RACING_FILE.name} as event 2 "), out
    assert answers == [303]
    with db.transaction(engine) as session:
        rated = set(session.scalars(select(CalcListEvent.event_id)))
        assert session.scalar(select(Event.id).where(Event.source_name == RACING_FILE.name)) == 2
    assert rated == {1, 2}


def test_a_cli_import_after_the_web_close_is_refused_in_one_line(db_url: str, engine: Engine) -> None:
    _month_and_officer(db_url, engine)
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        closed = officer.post(
            "/desk/periods/standard/2025-09/close", data={"csrftoken": csrf(officer)}, follow_redirects=False
        )
    assert closed.status_code == 303
    process = _cli(db_url)
    out, err = process.communicate(timeout=300)
    _refused_in_one_line(process, err)
    with db.transaction(engine) as session:
        assert session.scalar(select(Event.id).where(Event.source_name == RACING_FILE.name)) is None
        assert session.scalar(select(func.count()).select_from(Event)) == 1


def _refused_in_one_line(process: subprocess.Popen[str], err: str) -> None:
    """The import found the period closed: one line, exit 1, and no event of its file."""
    lines = err.splitlines()
    assert process.returncode == 1 and len(lines) == 1, err
    assert lines[0].startswith("Error: ") and "period 2025-09 is closed" in lines[0], err


def _until_waiting(engine: Engine, deadline: float) -> None:
    """Until another connection waits on the period lock (PostgreSQL: an advisory lock not granted;
    MySQL/MariaDB: a GET_LOCK in the process list). SQLite shows no waiter: the second comer waits on the
    write lock (BEGIN IMMEDIATE) that the first holds, and the outcome is the same whenever it gets there.
    The probe's pause is a poll, not what orders the two: the held side waits on an event meanwhile."""
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
    from ratingdb.services import close as close_service

    _month_and_officer(db_url, engine)
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
        closing = _close(officer, answers)
        try:
            assert holding.wait(300), "the close never took the lock"
            process = _cli(db_url)
            _until_waiting(engine, time.monotonic() + 120)
        finally:
            release.set()
            closing.join(300)
        out, err = process.communicate(timeout=300)
    assert answers == [303]
    _refused_in_one_line(process, err)
    with db.transaction(engine) as session:
        assert session.scalar(select(Event.id).where(Event.source_name == RACING_FILE.name)) is None
        assert session.scalar(select(func.count()).select_from(Event)) == 1
