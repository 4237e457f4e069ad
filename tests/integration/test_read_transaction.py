"""db.read_transaction: a long read (a published site) sees one snapshot and does not hold writers up."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from ratingdb import db
from ratingdb.schema.models import AuditEntry
from ratingdb.services.versions import record_change


def audit_rows(session: object) -> int:
    return session.scalar(select(func.count()).select_from(AuditEntry))  # type: ignore[attr-defined, no-any-return]


def test_a_write_goes_on_during_a_read_transaction_which_keeps_its_snapshot(db_url: str) -> None:
    reader, writer = db.make_engine(db_url), db.make_engine(db_url)
    try:
        with db.read_transaction(reader) as session:
            assert audit_rows(session) == 0
            # On SQLite a writer's BEGIN IMMEDIATE would wait for a reader that had taken the write lock.
            with db.transaction(writer) as other:
                record_change(other, "test", "written while a publish reads")
            assert audit_rows(session) == 0  # the reader's snapshot does not move
        with db.transaction(writer) as other:
            assert audit_rows(other) == 1
    finally:
        reader.dispose()
        writer.dispose()


def test_a_read_transaction_refuses_writes_on_postgresql(db_url: str) -> None:
    engine = db.make_engine(db_url)
    if engine.dialect.name != "postgresql":
        engine.dispose()
        pytest.skip("SQLite has no read-only transactions; the read transaction there only takes no lock")
    try:
        with pytest.raises(DBAPIError, match="read-only transaction"), db.read_transaction(engine) as session:
            session.execute(text("INSERT INTO audit_log (action, detail) VALUES ('x', 'y')"))
    finally:
        engine.dispose()


def test_a_read_snapshot_gives_the_data_version_its_transaction_sees(db_url: str) -> None:
    """The served site's read: the transaction and its first statement, the data version (on PostgreSQL's
    read-only engine sent with BEGIN in one round trip). Its value is what data_version reads in the same
    transaction; a write after it is in neither; the transaction is read-only where the engine has such
    transactions, and ended when the block ends."""
    from ratingdb.services.versions import data_version, data_version_query

    reader, writer = db.read_only_engine(db_url), db.make_engine(db_url)
    try:
        with db.transaction(writer) as other:
            record_change(other, "test", "before the read")
        with db.transaction(writer) as other:
            before = data_version(other)
        with db.read_snapshot(reader, data_version_query()) as (session, version):
            with db.transaction(writer) as other:
                record_change(other, "test", "written while the read goes on")
            assert version == before == data_version(session) > 0
            assert audit_rows(session) == 1
            if reader.dialect.name == "postgresql":
                read_only, isolation = "transaction_read_only", "transaction_isolation"
                settings = f"SELECT current_setting('{read_only}'), current_setting('{isolation}')"
                assert tuple(session.execute(text(settings)).one()) == ("on", "repeatable read")
                with pytest.raises(DBAPIError, match="read-only transaction"):
                    session.execute(text("INSERT INTO audit_log (action, detail) VALUES ('x', 'y')"))
        if reader.dialect.name == "postgresql":
            with reader.connect() as conn:  # the pooled connection, its transaction ended
                driver = conn.connection.driver_connection
                assert driver is not None and driver.info.transaction_status.name == "IDLE"
        with db.read_snapshot(reader, data_version_query()) as (session, version):
            assert version == data_version(session) == before + 1
    finally:
        reader.dispose()
        writer.dispose()


def test_a_statement_read_in_many_read_snapshots_stays_prepared_on_postgresql(db_url: str) -> None:
    """psycopg prepares a statement sent five times on a connection, and forgets every prepared statement
    of the connection at a ROLLBACK: the read transactions of the served site end with COMMIT instead
    (nothing written), so a player page's statements are planned once per connection, not at each page."""
    from sqlalchemy import bindparam

    from ratingdb.services.versions import data_version_query

    reader = db.read_only_engine(db_url)
    if reader.dialect.name != "postgresql":
        reader.dispose()
        pytest.skip("prepared statements are psycopg's (PostgreSQL)")
    query = select(AuditEntry.id).where(AuditEntry.id == bindparam("wanted"))
    try:
        for _ in range(7):  # one pooled connection, used in turn by each read
            with db.read_snapshot(reader, data_version_query()) as (session, _version):
                session.execute(query, {"wanted": 1}).all()
        with db.read_snapshot(reader, data_version_query()) as (session, _version):
            prepared = session.execute(
                text("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%audit_log.id = $1%'")
            ).scalar_one()
        assert prepared == 1
    finally:
        reader.dispose()
