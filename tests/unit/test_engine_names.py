"""Only ratingdb/engines/ (and the frozen migrations) names a database engine: the rest names operations.

Read from the code's tokens, so comments and prose in docstrings may name the engines: what is refused is
code that tells them apart — a dialect (`engine.dialect.name`, `is_mariadb`), a URL's backend name
(`get_backend_name()`), a string that is an engine's name ("sqlite", "postgresql", "mysql", …), or an
import of a driver (sqlite3, psycopg, pymysql).
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import ratingdb

PACKAGE = Path(ratingdb.__file__).parent
ROOT = PACKAGE.parent

ENGINE_NAMES = {"sqlite", "postgresql", "postgres", "mysql", "mariadb"}
TELLING_NAMES = {"dialect", "get_backend_name", "is_mariadb"}
DRIVERS = {"sqlite3", "psycopg", "psycopg2", "pymysql"}

# Where the engines may be named: their own modules, and the migrations (frozen: each keeps its own SQL).
EXEMPT = ("ratingdb/engines/", "ratingdb/migrations/")


def _modules() -> list[str]:
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*.py")
        if not path.relative_to(ROOT).as_posix().startswith(EXEMPT)
    )


def engine_names(source: str) -> list[str]:
    """Where `source` tells engines apart, as `line: what` strings."""
    found: list[str] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        line = token.start[0]
        if token.type == tokenize.NAME and token.string in TELLING_NAMES:
            found.append(f"{line}: {token.string}")
        elif token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str) and value.strip().lower() in ENGINE_NAMES:
                found.append(f"{line}: {token.string}")
    for node in ast.walk(ast.parse(source)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        found.extend(f"{node.lineno}: import {m}" for m in modules if m.split(".")[0] in DRIVERS)
    return found


def test_no_module_outside_the_engines_tells_the_engines_apart() -> None:
    offending = {
        name: found
        for name in _modules()
        if (found := engine_names((ROOT / name).read_text(encoding="utf-8")))
    }
    assert offending == {}, (
        "engine names outside ratingdb/engines/ — make it an operation of ratingdb.engines.base.Backend: "
        f"{offending}"
    )


def test_the_check_sees_each_way_of_telling_engines_apart() -> None:
    samples = {
        'if engine.dialect.name == "postgresql":\n    pass\n': 2,
        "if parsed.get_backend_name() in ('mysql', 'mariadb'):\n    pass\n": 3,
        "import sqlite3\n": 1,
        "from psycopg import sql\n": 1,
        'x = "SQLite"\n': 1,
        "# on SQLite the dialect is told apart\n": 0,
        '"""PostgreSQL and MySQL in prose."""\n': 0,
        'name = "postgresql+psycopg"\n': 0,
    }
    assert {code: len(engine_names(code)) for code in samples} == samples
