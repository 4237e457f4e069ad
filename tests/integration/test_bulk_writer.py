"""The bulk driver's writer thread (the close writes while it rates): order, errors, nothing half-done."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import Engine, text

from ratingdb import db
from ratingdb.services.bulk import Driver

COLUMNS = ("name", "federation")


def _players(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(text("SELECT name FROM player ORDER BY id")).scalars())


def test_batches_handed_to_the_writer_are_all_written_before_the_next_read(engine: Engine) -> None:
    with db.transaction(engine) as session:
        driver = Driver(session, background=True)
        rows = driver.buffer("player", COLUMNS)
        try:
            for batch in range(5):
                rows.extend((f"Player {batch}-{i}", "IRL") for i in range(3))
                driver.flush()  # returns at once; the reads below wait for the writes
                assert driver.rows("SELECT COUNT(*) FROM player")[0][0] == 3 * (batch + 1)
        finally:
            driver.restore()
    assert _players(engine)[:4] == ["Player 0-0", "Player 0-1", "Player 0-2", "Player 1-0"]


def test_a_failed_background_write_is_raised_to_the_caller_and_nothing_is_kept(engine: Engine) -> None:
    # A player without a name breaks NOT NULL on every engine; the driver's error happens in the writer
    # thread and reaches the caller at its next use of the connection, and the transaction rolls back.
    with pytest.raises(engine.dialect.dbapi.Error), db.transaction(engine) as session:
        driver = Driver(session, background=True)
        try:
            driver.write("player", COLUMNS, [("Fine, F", "IRL")])
            driver.buffer("player", COLUMNS).append((None, "IRL"))
            driver.flush()
            driver.drain()
        finally:
            driver.restore()
    assert _players(engine) == []


def test_a_bulk_write_gets_a_bounded_page_cache_and_puts_it_back(engine: Engine) -> None:
    # 256 MiB whatever the size of the work: a cache sized to a FIDE list grew memory with the file.
    if engine.dialect.name != "sqlite":
        pytest.skip("the page cache is SQLite's; the servers keep their own")
    with db.transaction(engine) as session:
        raw = session.connection().connection.driver_connection
        before = raw.execute("PRAGMA cache_size").fetchone()[0]
        assert before != -256 * 1024
        driver = Driver(session, background=True)
        try:
            assert raw.execute("PRAGMA cache_size").fetchone()[0] == -256 * 1024
        finally:
            driver.restore()
        assert raw.execute("PRAGMA cache_size").fetchone()[0] == before


def test_a_failed_queued_write_is_raised_on_the_way_out_and_nothing_commits(engine: Engine) -> None:
    # No use of the connection follows the last batch: restore() itself waits for it and raises, so the
    # transaction cannot commit without the rows it failed to write (SQLite keeps the transaction open
    # after a failed statement).
    with pytest.raises(engine.dialect.dbapi.Error), db.transaction(engine) as session:
        driver = Driver(session, background=True)
        try:
            driver.queue("player", COLUMNS, [("Fine, F", "IRL")])
            driver.queue("player", COLUMNS, [(None, "IRL")])
        finally:
            driver.restore()
    assert _players(engine) == []


def test_an_interrupt_drops_the_queued_batches_and_the_transaction_keeps_nothing(engine: Engine) -> None:
    # Ctrl-C in the caller while batches wait for the writer: the ones not yet begun are dropped, the one
    # being written is waited for, and the rollback finds the connection idle.
    with pytest.raises(KeyboardInterrupt), db.transaction(engine) as session:
        driver = Driver(session, background=True)
        try:
            for batch in range(20):
                driver.queue("player", COLUMNS, [(f"Player {batch}-{i}", "IRL") for i in range(2_000)])
            raise KeyboardInterrupt
        finally:
            driver.restore()
    assert _players(engine) == []
    with db.transaction(engine) as session:  # the connection serves the next transaction as before
        driver = Driver(session, background=True)
        try:
            driver.queue("player", COLUMNS, [("After, A", "IRL")])
        finally:
            driver.restore()
    assert _players(engine) == ["After, A"]


def test_a_batch_longer_than_one_statement_is_written_whole_and_in_order(engine: Engine) -> None:
    # SQLite writes a batch as multi-row INSERTs of at most as many rows as it takes parameters; with
    # room for 5 rows of 2 columns a statement, 23 rows take statements of 4, 4, 4, 4, 4, 2 and 1 rows.
    if engine.dialect.name != "sqlite":
        pytest.skip("the statements of a batch are SQLite's; the servers take a batch in one COPY or INSERT")
    names = [f"Player {i:02d}" for i in range(23)]
    with db.transaction(engine) as session:
        raw = session.connection().connection.driver_connection
        limit = raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 10)
        try:
            driver = Driver(session, background=True)
            try:
                driver.queue("player", COLUMNS, [(name, "IRL") for name in names])
                driver.queue("player", COLUMNS, [("Last, One", None)])
            finally:
                driver.restore()
        finally:
            raw.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, limit)
    assert _players(engine) == [*names, "Last, One"]
