"""Killing is safe: `import-list`, `import-trf` and `close-period` are SIGKILLed mid-way (as a separate
process, once the command holds its transaction) on SQLite, PostgreSQL and MySQL/MariaDB; the database is
then exactly as before, and the same command succeeds.

Each kill runs on a fresh copy of the prepared database. On SQLite and PostgreSQL a probe sees the command
inside its transaction and the kill follows at several delays: a kill that arrives after the commit (while
the summary prints) must find the whole work done; at least one kill per command must land inside the
transaction and find the database exactly as before.

On MySQL/MariaDB no probe sees the command's transaction in time (information_schema.innodb_trx missed
import-list's burst of writes on an idle machine), so the kill is made certain instead of timed, as
tests/cli/test_corrections_killed.py does: a test connection holds `LOCK TABLES t READ` on a table the
command writes part-way through, the command blocks there (seen in the server's process list), a third
connection reading uncommitted rows sees that it has already written to other tables, and then it is
SIGKILLed. Two such points per command; every table is compared afterwards.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from ratingdb import db
from ratingdb.formats import ListRating, ListRow, TrfEvent, TrfGame, TrfPlayer, write_csv_list, write_trf16
from tests.conftest import PG_ENV, MySQLTemplate, new_mysql_database

PLAYERS = 6_000
EVENTS = 12
EXTRA_DELAYS = (0.0, 0.3, 0.8)  # seconds after the command is first seen inside a transaction
ROOT = Path(__file__).parents[2]


def list_rows() -> Iterator[ListRow]:
    rng = random.Random(11)
    for line in range(2, PLAYERS + 2):
        rating = rng.randint(1400, 2500) if rng.random() < 0.8 else None
        yield ListRow(
            line, 3_000_000 + line, None, f"Player, Number {line}", "IRL", "M", None, rng.randint(1950, 2012),
            None, {"standard": ListRating(rating, 0, None if rating is None else 20, 40)},
        )  # fmt: skip


def event_file(folder: Path, number: int, rng: random.Random) -> Path:
    """A 7-round event of 40 players of the list, random pairings, every game played."""
    ids = rng.sample(range(3_000_002, 3_000_002 + PLAYERS), 40)
    start = date(2025, 10, 1 + number)
    players = tuple(
        TrfPlayer(
            rank, 0, f"Player, Number {i - 3_000_000}", "M", None, None, "IRL", i, None, None, None, None
        )
        for rank, i in enumerate(ids, start=1)
    )
    games: list[TrfGame] = []
    for rnd in range(1, 8):
        order = rng.sample(range(1, 41), 40)
        for board in range(0, 40, 2):
            white, black = order[board], order[board + 1]
            w, b = rng.choice((("1", "0"), ("=", "="), ("0", "1")))
            games.append(TrfGame(rnd, None, white, black, w, b, True))
    event = TrfEvent(
        f"kill-{number}.trf", "", 16, f"Kill test open {number}", "Cork", "IRL", start,
        start + timedelta(days=2), None, None, "standard", 7, (None,) * 7, players, tuple(games),
    )  # fmt: skip
    path = folder / event.source_name
    path.write_text(write_trf16(event), encoding="utf-8")
    return path


class Copies:
    """Copies of a prepared database, per engine: a file copy, CREATE DATABASE ... TEMPLATE, or on MySQL
    (which has no template databases) the template's tables, every row copied, then its triggers."""

    def __init__(self, url: str, tmp_path: Path, mysql: MySQLTemplate | None = None) -> None:
        self.url = url
        self.tmp_path = tmp_path
        self.mysql = mysql
        self.made: list[str] = []
        self.mysql_copies: list[Iterator[str]] = []

    @property
    def sqlite(self) -> bool:
        return make_url(self.url).get_backend_name() == "sqlite"

    def copy(self, source: str) -> str:
        if self.sqlite:
            path = self.tmp_path / f"copy-{uuid.uuid4().hex[:8]}.sqlite"
            shutil.copyfile(make_url(source).database or "", path)
            return f"sqlite:///{path}"
        if self.mysql is not None:
            return self._mysql_copy(source)
        name = f"ratingdb_kill_{uuid.uuid4().hex[:10]}"
        admin = create_engine(make_url(os.environ[PG_ENV]), isolation_level="AUTOCOMMIT")
        for attempt in range(50):  # the server may still be closing the last command's session
            try:
                with admin.connect() as conn:
                    conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{make_url(source).database}"'))
                break
            except OperationalError:
                if attempt == 49:
                    raise
                time.sleep(0.1)
        admin.dispose()
        self.made.append(name)
        return make_url(source).set(database=name).render_as_string(hide_password=False)

    def _mysql_copy(self, source: str) -> str:
        """A new database of the template's schema (conftest), its triggers dropped while every row of
        `source` is copied in (a guard refuses rows into a sealed list), then made again."""
        assert self.mysql is not None
        database = new_mysql_database(self.mysql)
        url = next(database)
        self.mysql_copies.append(database)
        triggers = [t for t in self.mysql.statements if " TRIGGER " in t[:120].upper()]
        engine = db.make_engine(url)
        try:
            with engine.begin() as conn:
                conn.exec_driver_sql("SET SESSION foreign_key_checks = 0")
                names = conn.exec_driver_sql(
                    "SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = DATABASE()"
                ).scalars()
                for name in list(names):
                    conn.exec_driver_sql(f'DROP TRIGGER "{name}"')
                tables = conn.exec_driver_sql(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() "
                    "AND table_type = 'BASE TABLE'"
                ).scalars()
                origin = make_url(source).database
                for table in list(tables):
                    conn.exec_driver_sql(f'DELETE FROM "{table}"')
                    conn.exec_driver_sql(f'INSERT INTO "{table}" SELECT * FROM "{origin}"."{table}"')
                for trigger in triggers:
                    conn.exec_driver_sql(trigger)
        finally:
            engine.dispose()
        return url

    def drop(self) -> None:
        for database in self.mysql_copies:  # conftest empties or drops each
            next(database, None)
        if not self.made:
            return
        admin = create_engine(make_url(os.environ[PG_ENV]), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            for name in self.made:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def snapshot(url: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, sorted here (two copies on MySQL may return rows that tie on the leading
    columns in different orders); sequences aside: they are not transactional."""
    engine = db.make_engine(url)  # on MySQL, ANSI_QUOTES: "t" is a table
    try:
        with engine.connect() as conn:
            tables = sorted(inspect(conn).get_table_names())
            return {
                t: sorted((tuple(r) for r in conn.execute(text(f'SELECT * FROM "{t}"'))), key=repr)
                for t in tables
            }
    finally:
        engine.dispose()


def counts(rows: dict[str, list[tuple[object, ...]]]) -> dict[str, int]:
    return {table: len(found) for table, found in rows.items()}


@contextmanager
def transaction_probe(url: str) -> Iterator[Callable[[], bool]]:
    """A probe: is another connection inside a transaction on this database (on PostgreSQL: one that has
    written, so it holds a transaction ID)? MySQL has none that works (the module's docstring)."""
    if make_url(url).get_backend_name() == "sqlite":
        path = make_url(url).database or ""

        def sqlite_probe() -> bool:
            conn = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                conn.execute("BEGIN IMMEDIATE")  # every ratingdb transaction holds this lock (db.py)
                conn.execute("ROLLBACK")
                return False
            except sqlite3.OperationalError:
                return True
            finally:
                conn.close()

        yield sqlite_probe
        return
    engine = create_engine(url, pool_size=1)

    def pg_probe() -> bool:
        with engine.connect() as conn:
            query = (
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL"
            )
            return bool(conn.scalar(text(query)))

    try:
        yield pg_probe
    finally:
        engine.dispose()


def ratingdb(url: str, *args: str | Path) -> list[str]:
    return [sys.executable, "-c", "from ratingdb.cli import main; main()", "--db", url, *map(str, args)]


def run_killed(url: str, args: list[str | Path], extra: float) -> int:
    """Start the command, wait until it is inside a transaction, wait `extra` seconds, SIGKILL it."""
    with transaction_probe(url) as probe:
        process = subprocess.Popen(
            ratingdb(url, *args), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 120
        while process.poll() is None and not probe():
            assert time.monotonic() < deadline, "the command never began a transaction"
            time.sleep(0.005)
        time.sleep(extra)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait()
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert process.returncode in (0, -signal.SIGKILL), stderr
    return process.returncode


# MySQL/MariaDB: per command, the tables whose lock stops it part-way, each after it has written others
# (seen with the uncommitted counts): import-list after its audit row (rating_list), then after the list
# and its players' rows (list_entry); import-trf after its events and their players (game), then after
# the games too (event_record); close-period after the new list and its calculation's players
# (calc_game), then after the whole calculation record (list_entry).
MYSQL_STOPS = {"import-list": ("rating_list", "list_entry"), "import-trf": ("game", "event_record"),
               "close-period": ("calc_game", "list_entry")}  # fmt: skip
WAITING = text(
    "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND state LIKE 'Waiting for%lock%' "
    "AND id <> CONNECTION_ID()"
)


def table_counts(conn: Connection, skip: str) -> dict[str, int]:
    tables = sorted(inspect(conn).get_table_names())
    return {t: conn.execute(text(f'SELECT COUNT(*) FROM "{t}"')).scalar_one() for t in tables if t != skip}


def run_killed_while_blocked(url: str, args: list[str | Path], locked: str) -> None:
    """MySQL: hold a READ lock on `locked`, start the command, wait until it waits for that lock, check
    (reading uncommitted rows) that it has written other tables by then, SIGKILL it, release the lock and
    wait until the server has ended the orphaned connection (rolling its transaction back)."""
    engine = db.make_engine(url, poolclass=NullPool)  # ANSI_QUOTES, as the commands connect
    try:
        with engine.connect() as holder, engine.connect() as watcher:
            watcher.exec_driver_sql("SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
            before = table_counts(watcher, locked)
            watcher.rollback()
            holder.exec_driver_sql(f'LOCK TABLES "{locked}" READ')  # reads go on, writers wait
            process = subprocess.Popen(
                ratingdb(url, *args), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            try:
                waiting = None
                deadline = time.monotonic() + 120
                while waiting is None and process.poll() is None:
                    assert time.monotonic() < deadline, f"`{args[0]}` never waited for the lock on {locked}"
                    waiting = watcher.execute(WAITING).scalar()
                    watcher.rollback()
                    time.sleep(0.02)
                assert waiting is not None, f"`{args[0]}` ended ({process.returncode}) before {locked}"
                written = table_counts(watcher, locked)  # its uncommitted rows: it is mid-write
                watcher.rollback()
                grown = [t for t in written if written[t] > before[t]]
                assert grown, f"`{args[0]}` had written nothing when it waited for {locked}"
                process.send_signal(signal.SIGKILL)
                process.wait()
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
                assert process.stderr is not None
                process.stderr.close()
            assert process.returncode == -signal.SIGKILL
            holder.exec_driver_sql("UNLOCK TABLES")  # the orphaned thread finds its client gone, rolls back
            alive = 1
            deadline = time.monotonic() + 120
            while alive:
                assert time.monotonic() < deadline, "the server never ended the killed command's connection"
                alive = watcher.execute(
                    text("SELECT COUNT(*) FROM information_schema.processlist WHERE id = :id"),
                    {"id": waiting},
                ).scalar_one()
                watcher.rollback()
                time.sleep(0.02)
    finally:
        engine.dispose()


def succeed(url: str, *args: str | Path) -> str:
    done = subprocess.run(ratingdb(url, *args), cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_killing_an_import_or_a_close_leaves_the_database_as_it_was(
    db_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    mysql = make_url(db_url).get_backend_name() == "mysql"
    copies = Copies(db_url, tmp_path, request.getfixturevalue("mysql_template") if mysql else None)
    try:
        big_list = tmp_path / "big.csv"
        with big_list.open("w", encoding="utf-8", newline="") as out:
            write_csv_list(list_rows(), out, "standard")
        rng = random.Random(7)
        trf_files = [event_file(tmp_path, n, rng) for n in range(1, EVENTS + 1)]
        with_list = copies.copy(db_url)
        succeed(with_list, "import-list", big_list, "--date", "2025-10-01")
        with_events = copies.copy(with_list)
        succeed(with_events, "import-trf", *trf_files, "--type", "standard")
        work: list[tuple[str, list[str | Path]]] = [
            (db_url, ["import-list", big_list, "--date", "2025-10-01"]),
            (with_list, ["import-trf", *trf_files, "--type", "standard"]),
            (with_events, ["close-period", "2025-10"]),
        ]
        for prepared, args in work:
            before = snapshot(prepared)
            rolled_back: list[str] = []
            committed: list[str] = []  # killed after the commit, while printing its summary
            if mysql:
                for locked in MYSQL_STOPS[str(args[0])]:
                    copy = copies.copy(prepared)
                    run_killed_while_blocked(copy, args, locked)
                    assert snapshot(copy) == before, f"`{args[0]}` killed waiting for {locked} left rows"
                    rolled_back.append(copy)
            for extra in () if mysql else EXTRA_DELAYS:
                copy = copies.copy(prepared)
                if run_killed(copy, args, extra) != -signal.SIGKILL:
                    continue  # it finished first: a successful run
                if copies.sqlite:
                    with sqlite3.connect(make_url(copy).database or "") as conn:
                        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                (rolled_back if snapshot(copy) == before else committed).append(copy)
            assert rolled_back, f"`{args[0]}` was never killed inside its transaction: make its work larger"
            succeed(rolled_back[0], *args)
            after = counts(snapshot(rolled_back[0]))
            assert after != counts(before)
            for copy in committed:  # all or nothing: a kill never leaves part of the work
                assert counts(snapshot(copy)) == after, f"`{args[0]}` left part of its work"
    finally:
        copies.drop()
