"""Every row of every table, and the ID counters: what a rolled-back command must leave as it found them.

Compared by the dry-run tests (issue 25). On SQLite the counters are the table sqlite_sequence, which is
in the snapshot; on PostgreSQL (sequences) and MySQL/MariaDB (AUTO_INCREMENT) they are outside the
transaction and are compared on their own.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.pool import NullPool

from ratingdb import db


def every_row(url: str, *, counters: bool = True) -> dict[str, Any]:
    """{table: its rows sorted} for every table, plus "id counters" (the sequences' last values) unless
    `counters` is False: a refused command's rollback leaves a server's counters advanced, as any does."""
    engine = db.make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            tables = inspect(conn).get_table_names()
            if conn.dialect.name == "sqlite":
                tables.append("sqlite_sequence")
            rows: dict[str, Any] = {
                t: sorted((tuple(r) for r in conn.execute(text(f'SELECT * FROM "{t}"'))), key=repr)
                for t in sorted(tables)
            }
        if counters:
            rows["id counters"] = db.id_counters(engine)
        return rows
    finally:
        engine.dispose()
