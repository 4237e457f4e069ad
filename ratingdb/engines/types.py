"""How the models' own SQL pieces (ratingdb.schema.types) compile: each through the engine's backend.

Imported by ratingdb.engines.base for what it registers with SQLAlchemy's compiler, so that compiling the
models on any engine ratingdb runs on finds it. Imports SQLAlchemy and ratingdb.schema.types only (the
backend is looked up by ratingdb.engines when a piece is compiled).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.compiler import compiles

from ratingdb import engines
from ratingdb.schema.types import CheckCondition, FileContent


@compiles(CheckCondition)
def _check_condition(element: CheckCondition, compiler: Any, **_: object) -> str:
    return element.check.sql(engines.of(compiler))


@compiles(FileContent)
def _file_content(type_: FileContent, compiler: Any, **kw: Any) -> str:
    named: str | None = engines.of(compiler).file_content_type
    return named or str(compiler.visit_large_binary(type_, **kw))
