"""SQLite: the same data checks in a form SQLite evaluates cheaply (code lists as OR chains, an ASCII path)

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-01

Two forms of 0015's CHECKs cost most of a row's insert on SQLite (bench/RESULTS.md, issue 32): an `IN`
list of constants (a game's result, 12 codes; a title, 8) is evaluated through an ephemeral index built
for every row, about 1.7 µs a row a check, where the same test written `=` … OR … costs about 0.1 µs;
and the refused-characters class of a text (C0/C1 controls, bidi overrides) is matched by GLOB decoding
every character against thirteen ranges, about 1.5 µs a name. The new forms refuse exactly what the old
ones refused: the `IN` lists become OR chains of the same codes, and a text first meets `NOT GLOB
'*[^ -~]*'` (only printable ASCII, which no refused range reaches), which admits it at once; any other
text is matched against the old class as before (the NUL test stays ahead of both, since GLOB reads a
text only up to its first NUL).

SQLite cannot change a constraint in place: each table with a changed check is rebuilt as 0015 rebuilt
them, from its own CREATE TABLE text with the old condition replaced by the new one (so 0015's kept-row
exceptions, `id IN (…) OR (<condition>)`, stay as they are), its rows copied out and back, its indexes,
triggers and AUTOINCREMENT counter restored and nothing renamed. PostgreSQL and MariaDB evaluate `IN`
lists and their regular expressions cheaply: nothing changes there.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    _rewrite(old=2, new=3)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    _rewrite(old=3, new=2)


def _rewrite(old: int, new: int) -> None:
    bind = op.get_bind()
    for table in dict.fromkeys(c[0] for c in CHECKS):
        changes = [(c[1], c[old], c[new]) for c in CHECKS if c[0] == table]
        _rebuild_sqlite(bind, table, lambda sql, t=table, ch=changes: _replaced(t, sql, ch))  # type: ignore[misc]


def _replaced(table: str, create: str, changes: list[tuple[str, str, str]]) -> str:
    """`create` with each named constraint's condition `before` replaced by `after` (exactly once)."""
    for name, before, after in changes:
        start = create.find(f"CONSTRAINT {name} CHECK (")
        if start < 0:
            raise RuntimeError(f"migration 0025: {table} has no constraint {name}")
        opening = create.index("CHECK (", start) + len("CHECK")
        end = _closing_paren(create, opening)
        body = create[opening:end]
        if body.count(before) != 1:
            raise RuntimeError(f"migration 0025: the constraint {name} of {table} is not as 0015 made it")
        create = create[:opening] + body.replace(before, after) + create[end:]
    return create


# --- Frozen: the SQLite rebuild, copied from 0015 as it ran (December 2026). Never edit.


def _closing_paren(text: str, opening: int) -> int:
    """Index of the parenthesis closing the one at `opening`, skipping quoted strings."""
    depth, i, quote = 0, opening, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced CHECK constraint text")


def _rebuild_sqlite(bind: sa.Connection, table: str, change: Callable[[str], str]) -> None:
    """Create `table` again from its own CREATE TABLE text as `change` rewrites it, keeping its rows,
    indexes, triggers and AUTOINCREMENT counter, without renaming anything (views stay as they are)."""
    create = bind.execute(
        sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :t"), {"t": table}
    ).scalar_one()
    dependents = (
        bind.execute(
            sa.text(
                "SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = :t "
                "AND sql IS NOT NULL ORDER BY type, name"
            ),
            {"t": table},
        )
        .scalars()
        .all()
    )
    sequence = (
        bind.execute(
            sa.text("SELECT seq FROM sqlite_sequence WHERE name = :t"), {"t": table}
        ).scalar_one_or_none()
        if _has_sequence_table(bind)
        else None
    )
    # The copy's columns have the table's declared types, so each value keeps its stored type both ways.
    columns = bind.execute(sa.text(f"PRAGMA table_info({table})")).all()
    copy = f"ratingdb_copy_{table}"
    declared = ", ".join(f'"{c.name}" {c.type}' for c in columns)
    for statement in (
        f"CREATE TEMP TABLE {copy} ({declared})",
        f"INSERT INTO temp.{copy} SELECT * FROM main.{table}",
        f"DROP TABLE main.{table}",  # its indexes and triggers go with it
        change(create),
        f"INSERT INTO main.{table} SELECT * FROM temp.{copy}",
        f"DROP TABLE temp.{copy}",
        *dependents,
    ):
        bind.exec_driver_sql(statement)
    if sequence is not None:
        bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = :t"), {"t": table})
        bind.execute(
            sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :s)"), {"t": table, "s": sequence}
        )


def _has_sequence_table(bind: sa.Connection) -> bool:
    return (
        bind.execute(
            sa.text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'")
        ).first()
        is not None
    )


# --- Frozen: each changed constraint as (table, name, condition of 0015, condition of this migration), as
# ratingdb/schema/checks.py and ratingdb/engines/sqlite.py gave them (December 2026). Never edit.
CHECKS: tuple[tuple[str, str, str, str], ...] = (
    (
        "player",
        "ck_player_name",
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 120 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 120 AND instr("name", char(0)) = 0 AND ("name" NOT GLOB \'*[^ -~]*\' OR "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "player",
        "ck_player_federation",
        '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND ("federation" NOT GLOB \'*[^ -~]*\' OR "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "player",
        "ck_player_title",
        "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
        '"title" IS NULL OR ("title" = \'GM\' OR "title" = \'IM\' OR "title" = \'FM\' OR "title" = \'CM\' OR "title" = \'WGM\' OR "title" = \'WIM\' OR "title" = \'WFM\' OR "title" = \'WCM\')',
    ),
    (
        "player",
        "ck_player_national_id",
        '"national_id" IS NULL OR (typeof("national_id") = \'text\' AND length("national_id") BETWEEN 1 AND 20 AND instr("national_id", char(0)) = 0 AND "national_id" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"national_id" IS NULL OR (typeof("national_id") = \'text\' AND length("national_id") BETWEEN 1 AND 20 AND instr("national_id", char(0)) = 0 AND ("national_id" NOT GLOB \'*[^ -~]*\' OR "national_id" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "player_version",
        "ck_player_version_name",
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 120 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 120 AND instr("name", char(0)) = 0 AND ("name" NOT GLOB \'*[^ -~]*\' OR "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "player_version",
        "ck_player_version_federation",
        '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND ("federation" NOT GLOB \'*[^ -~]*\' OR "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "player_version",
        "ck_player_version_title",
        "\"title\" IS NULL OR \"title\" IN ('GM', 'IM', 'FM', 'CM', 'WGM', 'WIM', 'WFM', 'WCM')",
        '"title" IS NULL OR ("title" = \'GM\' OR "title" = \'IM\' OR "title" = \'FM\' OR "title" = \'CM\' OR "title" = \'WGM\' OR "title" = \'WIM\' OR "title" = \'WFM\' OR "title" = \'WCM\')',
    ),
    (
        "player_version",
        "ck_player_version_national_id",
        '"national_id" IS NULL OR (typeof("national_id") = \'text\' AND length("national_id") BETWEEN 1 AND 20 AND instr("national_id", char(0)) = 0 AND "national_id" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"national_id" IS NULL OR (typeof("national_id") = \'text\' AND length("national_id") BETWEEN 1 AND 20 AND instr("national_id", char(0)) = 0 AND ("national_id" NOT GLOB \'*[^ -~]*\' OR "national_id" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "rating_list",
        "ck_rating_list_rules",
        '"rules" IS NULL OR (typeof("rules") = \'text\' AND length("rules") BETWEEN 1 AND 40 AND instr("rules", char(0)) = 0 AND "rules" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"rules" IS NULL OR (typeof("rules") = \'text\' AND length("rules") BETWEEN 1 AND 40 AND instr("rules", char(0)) = 0 AND ("rules" NOT GLOB \'*[^ -~]*\' OR "rules" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "event",
        "ck_event_name",
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 200 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 200 AND instr("name", char(0)) = 0 AND ("name" NOT GLOB \'*[^ -~]*\' OR "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "event",
        "ck_event_city",
        '"city" IS NULL OR (typeof("city") = \'text\' AND length("city") BETWEEN 1 AND 100 AND instr("city", char(0)) = 0 AND "city" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"city" IS NULL OR (typeof("city") = \'text\' AND length("city") BETWEEN 1 AND 100 AND instr("city", char(0)) = 0 AND ("city" NOT GLOB \'*[^ -~]*\' OR "city" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "event",
        "ck_event_federation",
        '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"federation" IS NULL OR (typeof("federation") = \'text\' AND length("federation") BETWEEN 1 AND 3 AND instr("federation", char(0)) = 0 AND ("federation" NOT GLOB \'*[^ -~]*\' OR "federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "event",
        "ck_event_time_control",
        '"time_control" IS NULL OR (typeof("time_control") = \'text\' AND length("time_control") BETWEEN 1 AND 100 AND instr("time_control", char(0)) = 0 AND "time_control" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"time_control" IS NULL OR (typeof("time_control") = \'text\' AND length("time_control") BETWEEN 1 AND 100 AND instr("time_control", char(0)) = 0 AND ("time_control" NOT GLOB \'*[^ -~]*\' OR "time_control" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "event_player",
        "ck_event_player_national_federation",
        '"national_federation" IS NULL OR (typeof("national_federation") = \'text\' AND length("national_federation") BETWEEN 1 AND 3 AND instr("national_federation", char(0)) = 0 AND "national_federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"national_federation" IS NULL OR (typeof("national_federation") = \'text\' AND length("national_federation") BETWEEN 1 AND 3 AND instr("national_federation", char(0)) = 0 AND ("national_federation" NOT GLOB \'*[^ -~]*\' OR "national_federation" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "event_record",
        "ck_event_record_text",
        '"text" IS NULL OR (typeof("text") = \'text\' AND length("text") BETWEEN 1 AND 65536 AND instr("text", char(0)) = 0 AND "text" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"text" IS NULL OR (typeof("text") = \'text\' AND length("text") BETWEEN 1 AND 65536 AND instr("text", char(0)) = 0 AND ("text" NOT GLOB \'*[^ -~]*\' OR "text" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
    (
        "game",
        "ck_game_white_result",
        "\"white_result\" IS NULL OR \"white_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
        '"white_result" IS NULL OR ("white_result" = \'+\' OR "white_result" = \'-\' OR "white_result" = \'0\' OR "white_result" = \'1\' OR "white_result" = \'=\' OR "white_result" = \'D\' OR "white_result" = \'F\' OR "white_result" = \'H\' OR "white_result" = \'L\' OR "white_result" = \'U\' OR "white_result" = \'W\' OR "white_result" = \'Z\')',
    ),
    (
        "game",
        "ck_game_black_result",
        "\"black_result\" IS NULL OR \"black_result\" IN ('+', '-', '0', '1', '=', 'D', 'F', 'H', 'L', 'U', 'W', 'Z')",
        '"black_result" IS NULL OR ("black_result" = \'+\' OR "black_result" = \'-\' OR "black_result" = \'0\' OR "black_result" = \'1\' OR "black_result" = \'=\' OR "black_result" = \'D\' OR "black_result" = \'F\' OR "black_result" = \'H\' OR "black_result" = \'L\' OR "black_result" = \'U\' OR "black_result" = \'W\' OR "black_result" = \'Z\')',
    ),
    (
        "rule_set",
        "ck_rule_set_name",
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 64 AND instr("name", char(0)) = 0 AND "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\')',
        '"name" IS NULL OR (typeof("name") = \'text\' AND length("name") BETWEEN 1 AND 64 AND instr("name", char(0)) = 0 AND ("name" NOT GLOB \'*[^ -~]*\' OR "name" NOT GLOB \'*[\' || char(1, 45, 31, 127, 45, 159, 1564, 8206, 45, 8207, 8232, 45, 8233, 8234, 45, 8238, 8294, 45, 8297) || \']*\'))',
    ),
)
