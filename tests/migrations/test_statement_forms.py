"""No sealed or guarded table can be emptied or rewritten by any statement form its engine offers.

Issue 26: SQLite's `INSERT OR REPLACE` deleted guarded rows without firing DELETE triggers, and
MariaDB's `TRUNCATE` fires no trigger at all. Each table below is attacked, after a close, with every
form that can remove or rewrite a row on its engine — DELETE, UPDATE, INSERT OR REPLACE / REPLACE,
INSERT … ON CONFLICT DO UPDATE / ON DUPLICATE KEY UPDATE, TRUNCATE (and DROP on MySQL) — and every
table's rows are compared with a snapshot taken before. On MySQL/MariaDB the attacks run as the officer
account that `ratingdb db accounts` sets up (TRUNCATE needs DROP, which the officer does not have), and
the officer's rights are shown to suffice for the monthly work by building the data as that account.
A control rewrites an unguarded table with the same statements, so the snapshot is shown to see them.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from ratingdb import accounts, db
from ratingdb.rating import Period
from ratingdb.services.close import close_period
from ratingdb.services.corrections import reopen
from tests import builders as b
from tests.conftest import MYSQL_ENV

# table: (its primary key, a column and a new value for it that every CHECK admits)
GUARDED: dict[str, tuple[tuple[str, ...], str, str]] = {
    "audit_log": (("id",), "reason", "'rewritten'"),
    "rating_list": (("id",), "origin", "'imported'"),  # a computed list turned into an imported one
    "rule_set": (("id",), "source", "'forged.toml'"),
    "player_version": (("id",), "name", "'Forged, Name'"),
    "list_entry": (("list_id", "player_id"), "rating", "1900"),
    "calc_player": (("list_id", "player_id"), "note", "'forged'"),
    "calc_game": (("list_id", "player_id", "game_id"), "own_rating", "1900"),
    "calc_list_event": (("list_id", "event_id"), "note", "'forged'"),
    "list_rule_set": (("list_id",), "rule_set_id", "rule_set_id"),  # the REPLACE alone removes the row
    "event": (("id",), "name", "'Forged'"),
    "event_player": (("event_id", "start_rank"), "points_x10", "points_x10 + 10"),
    "game": (("id",), "black_result", "'='"),
}
CONTROL = ("event_record", ("event_id", "seq"), "text", "'rewritten'")  # no guard: the attacks change it


def _columns(engine: Engine, table: str) -> list[str]:
    from sqlalchemy import inspect

    return [c["name"] for c in inspect(engine).get_columns(table)]


def _forms(
    dialect: str, table: str, key: tuple[str, ...], column: str, value: str, cols: list[str]
) -> list[str]:
    listed = ", ".join(f'"{c}"' for c in cols)
    changed = ", ".join(f'{value} AS "{c}"' if c == column else f'"{c}"' for c in cols)
    forms = [f"DELETE FROM {table}", f'UPDATE {table} SET "{column}" = {value}']
    if dialect == "sqlite":
        forms += [
            f"INSERT OR REPLACE INTO {table} ({listed}) SELECT {changed} FROM {table}",
            f"REPLACE INTO {table} ({listed}) SELECT {changed} FROM {table}",
            f"INSERT INTO {table} ({listed}) SELECT {changed} FROM {table} WHERE TRUE "
            f'ON CONFLICT DO UPDATE SET "{column}" = excluded."{column}"',
        ]
    elif dialect == "postgresql":
        forms += [
            f"INSERT INTO {table} ({listed}) SELECT {changed} FROM {table} "
            f'ON CONFLICT ({", ".join(key)}) DO UPDATE SET "{column}" = excluded."{column}"',
            f"TRUNCATE {table} CASCADE",
        ]
    else:
        forms += [
            f"REPLACE INTO {table} ({listed}) SELECT {changed} FROM {table}",
            f"INSERT INTO {table} ({listed}) SELECT * FROM (SELECT {changed} FROM {table}) AS t "
            f'ON DUPLICATE KEY UPDATE "{column}" = t."{column}"',
            f"TRUNCATE TABLE {table}",
            f"DROP TABLE {table}",
        ]
    return forms


def _snapshot(engine: Engine, tables: list[str]) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as conn:
        return {t: sorted(map(tuple, conn.execute(text(f"SELECT * FROM {t}"))), key=repr) for t in tables}


def _attack(engine: Engine, statement: str) -> bool:
    """Run `statement` as a raw client would; True if the engine refused it."""
    try:
        with engine.begin() as conn:
            if engine.dialect.name == "sqlite":
                # The sqlite3 shell's defaults: neither pragma set, so neither can be what protects.
                conn.exec_driver_sql("PRAGMA foreign_keys = OFF")
                conn.exec_driver_sql("PRAGMA recursive_triggers = OFF")
            conn.execute(text(statement))
    except DBAPIError:
        return True
    return False


@pytest.fixture
def officer(engine: Engine) -> Iterator[Engine]:
    """The engine of the account that does the monthly work: on MySQL the officer of `db accounts`."""
    if engine.dialect.name != "mysql":
        yield engine
        return
    name = f"rdb_officer_{uuid.uuid4().hex[:8]}"
    password = uuid.uuid4().hex
    database = str(engine.url.database)
    [grant] = [s for s in accounts.setup_statements("mysql", database, "o", name, "r") if f"TO '{name}'" in s]
    with engine.connect() as conn:
        conn.exec_driver_sql(f"CREATE USER '{name}'@'%%' IDENTIFIED BY '{password}'")
        conn.exec_driver_sql(grant.rstrip(";").replace("%", "%%"))
    url = make_url(os.environ[MYSQL_ENV]).set(username=name, password=password, database=database)
    eng = db.make_engine(url.render_as_string(hide_password=False))
    try:
        yield eng
    finally:
        eng.dispose()
        with engine.connect() as conn:
            conn.exec_driver_sql(f"DROP USER '{name}'@'%%'")


def _published(engine: Engine) -> None:
    """A closed October with an imported and a computed list, a reopened and re-closed one, a rule set."""
    with db.transaction(engine) as s:
        x, y = b.player(s, "X, X"), b.player(s, "Y, Y")
        b.imported_list(s, "standard", Period(2025, 10).first_day, {x: (2000, 20), y: (2000, 20)})
        b.event(s, "Club", dt.date(2025, 10, 10), dt.date(2025, 10, 10), [(x, y, "1")])
    with db.transaction(engine) as s:
        close_period(s, Period(2025, 10), "standard")
    with db.transaction(engine) as s:
        reopen(s, Period(2025, 10), "standard", "test")
    with db.transaction(engine) as s:
        close_period(s, Period(2025, 10), "standard")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO rule_set (name, rating_type, effective_from, content, sha256, source, "
                "created_at, version, is_current) VALUES ('club', 'standard', '2025-01', 'x', :h, "
                "'club.toml', CURRENT_TIMESTAMP, 1, TRUE)"
            ),
            {"h": "0" * 64},
        )
        # The club rule set's list: written unsealed with its list_rule_set row, then sealed, as a close does
        conn.execute(
            text(
                "INSERT INTO rating_list (rating_type, list_date, origin, source, created_at, version, "
                "is_current, sealed) VALUES ('standard', '2025-01-01', 'imported', 'club', "
                "CURRENT_TIMESTAMP, 1, TRUE, FALSE)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO list_rule_set (list_id, rule_set_id) SELECT l.id, r.id FROM rating_list l, "
                "rule_set r WHERE l.list_date = '2025-01-01' AND r.name = 'club'"
            )
        )
        conn.execute(text("UPDATE rating_list SET sealed = TRUE WHERE list_date = '2025-01-01'"))
        conn.execute(
            text("INSERT INTO event_record (event_id, seq, text) SELECT id, 1, '012 Club' FROM event")
        )


def test_no_guarded_table_can_be_emptied_or_rewritten_by_any_statement_form(
    engine: Engine, officer: Engine
) -> None:
    _published(officer)
    tables = [*GUARDED, CONTROL[0]]
    before = _snapshot(engine, tables)
    empty = [t for t in tables if not before[t]]
    assert empty == [], "every attacked table must hold rows, or the attack proves nothing"
    passed = []
    for table, (key, column, value) in GUARDED.items():
        for statement in _forms(engine.dialect.name, table, key, column, value, _columns(engine, table)):
            _attack(officer, statement)
            after = _snapshot(engine, tables)
            if after != before:
                passed.append(statement)
                before = after
    assert passed == []


def test_the_attacks_do_change_a_table_without_a_guard(engine: Engine, officer: Engine) -> None:
    # The control: the same statement forms rewrite event_record (no guard), so the snapshot sees them.
    _published(officer)
    table, key, column, value = CONTROL
    forms = _forms(engine.dialect.name, table, key, column, value, _columns(engine, table))
    forms = [f for f in forms if not f.startswith(("DELETE", "TRUNCATE", "DROP"))]
    for statement in forms:
        with engine.begin() as conn:
            conn.execute(text(f"UPDATE {table} SET text = '012 Club'"))
        before = _snapshot(engine, [table])
        assert not _attack(engine, statement), statement
        assert _snapshot(engine, [table]) != before, statement


def test_the_officer_account_cannot_truncate_or_drop_and_root_is_warned(
    engine: Engine, officer: Engine
) -> None:
    if engine.dialect.name != "mysql":
        pytest.skip("TRUNCATE fires no trigger on MySQL/MariaDB only; PostgreSQL's triggers refuse it")
    with officer.connect() as conn:
        assert accounts.mysql_dangerous_privileges(conn) == []
        assert accounts.privilege_warnings(conn) == []
    with engine.connect() as conn:  # the tests' root account
        assert accounts.mysql_dangerous_privileges(conn) == ["ALL PRIVILEGES"]
        [warning] = accounts.privilege_warnings(conn)
    assert warning.startswith("this MySQL/MariaDB account holds ALL PRIVILEGES on the ratingdb tables")
