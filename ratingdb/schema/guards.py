"""What the database-level guards refuse, said once for every engine: the columns and the messages.

The trigger DDL that does it is each engine's: ratingdb.engines.base composes `versioned_table_guard`,
`sealed_rows_guard`, `owned_versioned_table_guard` and the rest from each engine's `same`, `refusal` and
trigger shapes (ratingdb.engines.<engine>), and the guards only one engine needs (SQLite's `no_replace`,
PostgreSQL's `player_referenced_guard`, MySQL's `refusal_trigger`) are that engine's alone. So
engine-specific SQL lives in one place per engine, beside that engine's locks and bulk writes, and a
fourth engine adds a module instead of a branch in every function; what is the same on every engine (which
columns a withdrawal may change, the sentences a refusal says) stays here, below the engines: this module
imports nothing. A new migration copies the SQL it runs (migrations are frozen, docs/development.md):
what an engine's guard returns may change only together with a new migration that needs the new form.
docs/versioning.md says what the guards promise.
"""

from __future__ import annotations

# The columns a versioned row may change, and how (docs/versioning.md): current → withdrawn only.
WITHDRAW_COLUMNS = ("is_current", "withdrawn_by")

PLAYER_REFERENCED_MESSAGE = "a player that a list, an event or a game refers to cannot be deleted"


def versioned_messages(table: str) -> tuple[str, str]:
    """What a refused UPDATE and a refused DELETE of a versioned row of `table` say."""
    return (
        f"{table} rows are never changed, only withdrawn (docs/versioning.md)",
        f"{table} rows are never deleted, only withdrawn (docs/versioning.md)",
    )


def sealed_messages(table: str, *, refuse_missing: bool) -> tuple[str, str]:
    """What a refused INSERT and a refused UPDATE or DELETE of a row of a sealed list say."""
    where = ", or to no list" if refuse_missing else ""
    insert = f"published lists are immutable: no row can be added to a sealed list{where} ({table})"
    return insert, f"published lists are immutable: the rows of {table} never change"
