"""The models' own SQL pieces whose SQL each engine says: a CHECK's condition and a file's bytes.

The models (ratingdb.schema.models) declare them without naming an engine; ratingdb.engines.types says
how each compiles, through the engine's backend (ratingdb.engines.base.Backend). Imports SQLAlchemy's
core types only (ratingdb.schema.checks for the type of a condition's check, when type checking).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import LargeBinary

if TYPE_CHECKING:
    from ratingdb.schema.checks import Check


class CheckCondition(ColumnElement[bool]):
    """The condition of a ratingdb.schema.checks CHECK, compiled in the SQL of the engine it is created on."""

    inherit_cache = False

    def __init__(self, check: Check) -> None:
        self.check = check


class FileContent(LargeBinary):
    """The bytes of a file (a submitted tournament file): the engine's binary type that holds one.

    The type is named by ratingdb.engines.types (a BLOB on SQLite, bytea on PostgreSQL, a MEDIUMBLOB on
    MySQL, whose BLOB holds 64 KB). Its visit name is ratingdb's own, so an engine without ratingdb's
    compilers loaded fails to compile it rather than writing a plain BLOB.
    """

    __visit_name__ = "ratingdb_file_content"
