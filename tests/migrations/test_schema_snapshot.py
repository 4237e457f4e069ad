"""The schema at head, on each engine, equals the stored snapshot (tests/migrations/schema/<engine>.txt).

A change to the schema (a new migration, or an old one edited by mistake) is a visible diff. After adding
a migration, regenerate the snapshots as tests/migrations/schema_snapshot.py says and commit the diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from sqlalchemy import Engine

from tests.migrations.schema_snapshot import describe

SNAPSHOTS = Path(__file__).resolve().parent / "schema"
UPDATE_ENV = "RATINGDB_UPDATE_SCHEMA_SNAPSHOT"


def test_the_schema_at_head_is_the_stored_snapshot(engine: Engine) -> None:
    stored = SNAPSHOTS / f"{engine.dialect.name}.txt"
    actual = describe(engine)
    if os.environ.get(UPDATE_ENV):
        stored.write_text(actual, encoding="utf-8")
    expected = stored.read_text(encoding="utf-8") if stored.is_file() else ""
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True), str(stored), "the database"
        )
    )
    assert not diff, (
        f"the schema differs from {stored.name} (regenerate with {UPDATE_ENV}=1 if meant):\n{diff}"
    )
