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
