"""A reopen or a re-close killed midway leaves the database exactly as it was before the command.

On PostgreSQL the kill lands inside the transaction for certain: a test connection holds a lock on a
table the command writes late in its transaction, the command blocks there (seen in pg_stat_activity),
and is killed with SIGKILL. On MySQL the same with LOCK TABLES … READ (others read, writers wait),
the wait seen in the server's process list. On SQLite, whose writer holds the whole database from
BEGIN, the command is killed at several moments; each time the database is either untouched or the
command finished.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.cli.test_corrections import PEOPLE, ok, trf

# The players of the files (tests.cli.test_corrections.trf): the same names and sex, or matching refuses.
LIST = "fide_id,name,federation,sex,birth_year,rating,k\n" + "".join(
    f'{i},"{PEOPLE[i][1]}",IRL,{PEOPLE[i][0].upper().replace("W", "F")},1980,2000,20\n' for i in (1, 2, 3, 4)
)
TABLES = ("rating_list", "list_entry", "calc_player", "calc_event", "calc_game", "audit_log", "event", "game")


def _story(db_url: str, tmp_path: Path) -> None:
    (tmp_path / "oct.csv").write_text(LIST, encoding="utf-8")
    ok(db_url, "import-list", tmp_path / "oct.csv", "--date", "2025-10-01")
    for name, day, period in (("Club Open", "2025/10/10", "2025-10"), ("Cup", "2025/11/10", "2025-11")):
        (tmp_path / f"{period}.trf").write_text(trf(name, day, 1, 2, "1"), encoding="utf-8")
        ok(db_url, "import-trf", tmp_path / f"{period}.trf", "--type", "standard")
        ok(db_url, "close-period", period)


def _state(db_url: str) -> dict[str, object]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        state: dict[str, object] = {
            t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in TABLES
        }
        state["lists"] = conn.execute(
            text("SELECT id, version, is_current, sealed FROM rating_list ORDER BY id")
        ).all()
    engine.dispose()
    return state


def _command(db_url: str, *args: str) -> list[str]:
    return [sys.executable, "-c", "from ratingdb.cli import main; main()", "--db", db_url, *args]


REOPEN = ("reopen", "2025-10", "--reason", "a wrong result")


@pytest.mark.parametrize(
    ("prepare", "command", "locked"),
    [
        ((), REOPEN, "rating_list"),  # blocks on withdrawing the first list, after writing its audit row
        (REOPEN, ("close-period", "2025-10"), "calc_game"),  # blocks writing the calculation record
    ],
    ids=["reopen", "re-close"],
)
def test_a_killed_correction_leaves_the_database_as_it_was(
    db_url: str, tmp_path: Path, prepare: tuple[str, ...], command: tuple[str, ...], locked: str
) -> None:
    _story(db_url, tmp_path)
    if prepare:
        ok(db_url, *prepare)
    before = _state(db_url)
    if make_url(db_url).get_backend_name() == "postgresql":
        _kill_while_blocked(db_url, command, locked)
        assert _state(db_url) == before
    elif make_url(db_url).get_backend_name() == "mysql":
        _kill_while_blocked_on_mysql(db_url, command, locked)
        assert _state(db_url) == before
    else:
        after: dict[str, object] | None = None
        for delay in (0.2, 0.5, 0.8, 1.1, 1.5):
            with subprocess.Popen(
                _command(db_url, *command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            ) as process:
                time.sleep(delay)
                process.send_signal(signal.SIGKILL)
                process.wait()
            state = _state(db_url)
            if state != before:  # it finished before the kill: nothing half-done either
                after = state
                break
        if after is not None:
            assert after["audit_log"] == before["audit_log"] + 1  # type: ignore[operator]
            return
    # Killed midway: the command runs again to the end.
    finished = subprocess.run(_command(db_url, *command), capture_output=True, text=True, check=False)
    assert finished.returncode == 0, finished.stderr
    assert _state(db_url) != before


def _kill_while_blocked(db_url: str, command: tuple[str, ...], locked: str) -> None:
    admin = create_engine(db_url)
    database = make_url(db_url).database
    with admin.connect() as holder, admin.connect() as watcher:
        holder.execute(text(f"LOCK TABLE {locked} IN EXCLUSIVE MODE"))
        with subprocess.Popen(
            _command(db_url, *command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ) as process:
            waiting = None
            for _ in range(300):
                waiting = watcher.execute(
                    text(
                        "SELECT pid FROM pg_stat_activity WHERE datname = :db AND wait_event_type = 'Lock' "
                        "AND pid <> pg_backend_pid()"
                    ),
                    {"db": database},
                ).scalar()
                watcher.rollback()
                if waiting is not None or process.poll() is not None:
                    break
                time.sleep(0.1)
            assert waiting is not None, "the command never blocked on the lock"
            process.send_signal(signal.SIGKILL)
            process.wait()
        holder.rollback()  # release the lock: the orphaned backend finds its client gone and rolls back
        alive = 1
        for _ in range(300):
            alive = watcher.execute(
                text("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": waiting}
            ).scalar_one()
            watcher.rollback()
            if not alive:
                break
            time.sleep(0.1)
        assert not alive
    admin.dispose()


def _kill_while_blocked_on_mysql(db_url: str, command: tuple[str, ...], locked: str) -> None:
    admin = create_engine(db_url)
    database = make_url(db_url).database
    waiting_sql = text(
        "SELECT id FROM information_schema.processlist WHERE db = :db AND state LIKE 'Waiting for%lock%' "
        "AND id <> CONNECTION_ID()"
    )
    with admin.connect() as holder, admin.connect() as watcher:
        holder.execute(text(f"LOCK TABLES {locked} READ"))  # reads go on, writers wait
        with subprocess.Popen(
            _command(db_url, *command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ) as process:
            waiting = None
            for _ in range(300):
                waiting = watcher.execute(waiting_sql, {"db": database}).scalar()
                watcher.rollback()
                if waiting is not None or process.poll() is not None:
                    break
                time.sleep(0.1)
            assert waiting is not None, "the command never blocked on the lock"
            process.send_signal(signal.SIGKILL)
            process.wait()
        holder.execute(text("UNLOCK TABLES"))  # the orphaned server thread finds its client gone, rolls back
        alive = 1
        for _ in range(300):
            alive = watcher.execute(
                text("SELECT COUNT(*) FROM information_schema.processlist WHERE id = :id"), {"id": waiting}
            ).scalar_one()
            watcher.rollback()
            if not alive:
                break
            time.sleep(0.1)
        assert not alive
    admin.dispose()
