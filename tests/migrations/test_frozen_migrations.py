"""Migrations are frozen history: each carries the SQL it ran and imports nothing of ratingdb that changes.

The one import allowed is the exception base the CLI prints as one sentence (ratingdb.errors.RatingDbError,
promised by ratingdb.api); an earlier migration's SQL is copied forward, never loaded by file path.
(The schema they build is held by test_schema_snapshot.)
"""

from __future__ import annotations

import ast
from pathlib import Path

from ratingdb import db

VERSIONS = db.migrations_path() / "versions"
ALLOWED = {("ratingdb.errors", "RatingDbError")}


def _migrations() -> list[Path]:
    return sorted(p for p in VERSIONS.glob("*.py") if p.name != "__init__.py")


def test_no_migration_imports_ratingdb_code_that_changes() -> None:
    found = []
    for path in _migrations():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ratingdb"):
                found += [
                    f"{path.name}: from {node.module} import {a.name}"
                    for a in node.names
                    if (node.module, a.name) not in ALLOWED
                ]
            elif isinstance(node, ast.Import):
                found += [
                    f"{path.name}: import {a.name}" for a in node.names if a.name.startswith("ratingdb")
                ]
    assert found == []


def test_no_migration_loads_another_by_file_path() -> None:
    loading = ("importlib", "spec_from_file_location", "exec_module", "__file__")
    found = [
        f"{path.name}: {word}"
        for path in _migrations()
        for word in loading
        if word in path.read_text(encoding="utf-8")
    ]
    assert found == []
