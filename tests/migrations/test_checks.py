"""The CHECK constraints of migration 0015 (ratingdb.schema.checks), attacked with raw SQL on every engine.

Every statement here bypasses ratingdb's readers and services, as a client of `sqlite3`, `psql` or
`mariadb` would: the database alone must refuse it and leave the data as it was. PostgreSQL and MariaDB
refuse an over-long text or an out-of-range number by the column's type before any CHECK is looked at;
SQLite, which stores anything anywhere, refuses it by the CHECK.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import logging
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.errors import RatingDbError
from ratingdb.formats import limits
from ratingdb.schema import checks
from ratingdb.schema.models import Base, Player
from ratingdb.services.players import edit_player
from tests import builders as b

BEFORE = "0014"  # the migration before the checks
CHECKS_REVISION = "0015"  # the checks' own migration (later ones change other things)
runner = CliRunner()


def _migration() -> ModuleType:
    path = next(Path(db.migrations_path(), "versions").glob("0015_*.py"))
    spec = importlib.util.spec_from_file_location("ratingdb_migration_0015", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _insert(conn: Connection, table: str, values: dict[str, Any]) -> None:
    columns = ", ".join(f'"{c}"' for c in values)
    marks = ", ".join(f":{c}" for c in values)
    conn.execute(text(f"INSERT INTO {table} ({columns}) VALUES ({marks})"), values)


def _one(engine: Engine, sql: str) -> Any:
    with engine.connect() as conn:
        return conn.execute(text(sql)).scalar_one()


def _snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {
            table: [tuple(r) for r in conn.execute(text(f"SELECT * FROM {table} ORDER BY 1, 2"))]
            for table in checks.CHECKED_TABLES
        }


def _columns_of(
    before: dict[str, list[tuple[Any, ...]]], after: dict[str, list[tuple[Any, ...]]]
) -> dict[str, list[tuple[Any, ...]]]:
    """`after`'s rows cut to the columns `before` had: a later migration may add columns (0020: event)."""
    width = {table: len(rows[0]) for table, rows in before.items() if rows}
    return {table: [r[: width.get(table, len(r))] for r in rows] for table, rows in after.items()}


def _seed(engine: Engine) -> dict[str, int]:
    """Two registered players, a raw player without a version, an unsealed list and an open event."""
    with db.transaction(engine) as s:
        p, q = b.player(s, "Valid, Val", fide_id=300001), b.player(s, "Other, Oli")
        ids = {"p": p.id, "pv": p.current_version_id, "q": q.id}
    with engine.begin() as conn:
        _insert(conn, "player", {"name": "Raw, Player", "national_id": "K1"})
        _insert(
            conn,
            "rating_list",
            {"rating_type": "standard", "list_date": dt.date(2030, 1, 1), "origin": "imported"},
        )
        _insert(conn, "event", EVENT)
    ids["raw"] = _one(engine, "SELECT id FROM player WHERE name = 'Raw, Player'")
    ids["list"] = _one(engine, "SELECT id FROM rating_list WHERE list_date = '2030-01-01'")
    ids["event"] = _one(engine, "SELECT id FROM event WHERE source_name = 'open.trf'")
    return ids


EVENT = {
    "name": "Raw Open", "start_date": dt.date(2030, 2, 1), "end_date": dt.date(2030, 2, 2),
    "rating_type": "standard", "official": False, "rounds": 5, "period": "2030-02",
    "natural_period": "2030-02", "source_name": "open.trf", "source_hash": "raw",
}  # fmt: skip


def _bases(ids: dict[str, int]) -> dict[str, dict[str, Any]]:
    """A row of each table that every constraint accepts (not yet inserted)."""
    return {
        "player": {"name": "New, Nell", "federation": "IRL", "title": "WGM", "birth_year": 1990,
                   "fide_id": 777, "national_id": "N1"},
        "player_version": {"player_id": ids["raw"], "name": "Raw, Player", "deceased": False, "version": 1},
        "rating_list": {"rating_type": "standard", "list_date": dt.date(2031, 1, 1), "origin": "imported"},
        "list_entry": {"list_id": ids["list"], "player_id": ids["p"], "player_version_id": ids["pv"],
                       "rating": 2000, "games": 0, "games_total": 0, "reached_2400": False,
                       "reached_2300": False},
        "event": {**EVENT, "source_hash": "other"},
        "event_player": {"event_id": ids["event"], "start_rank": 1, "player_id": ids["p"]},
        "event_record": {"event_id": ids["event"], "seq": 1, "text": "012 Raw Open"},
        "game": {"event_id": ids["event"], "round": 1, "white_id": ids["p"], "black_id": ids["q"],
                 "white_result": "1", "black_result": "0", "rated": True, "colour_known": True},
        "rule_set": {"name": "raw-set", "rating_type": "standard", "effective_from": "2030-01",
                     "content": "x", "sha256": "0" * 64},
    }  # fmt: skip


CONTROLS = ["a\x00b", "Evil\x1b[2J", "Bidi\u202eName", "Line\u2028Sep", "Del\x7f", "C1\x85", "Iso\u2066"]

# (table, column, refused values): each row is the table's base row with the one column changed.
ATTACKS: list[tuple[str, str, list[Any]]] = [
    ("player", "name", ["x" * 121, "x" * 300, "", *CONTROLS]),
    ("player", "federation", ["IRELAND", "", "I\x01L", "\u202eRL"]),
    ("player", "title", ["XX", "gm", "G"]),
    ("player", "birth_year", [12, 999, 10000]),
    ("player", "fide_id", [0, -5, limits.FIDE_ID_MAX + 1]),
    ("player", "national_id", ["x" * 21, "", "N\x1b1"]),
    ("player_version", "name", ["x" * 121, "", "a\x00b", "a\x1bb"]),
    ("player_version", "federation", ["IRELAND", "I\x01L"]),
    ("player_version", "title", ["XX"]),
    ("player_version", "birth_year", [99]),
    ("player_version", "fide_id", [0, 10**11]),
    ("player_version", "national_id", ["x" * 21, "\x1b"]),
    ("rating_list", "period", ["2025-13", "2025-1", "25-10x", "2025-00"]),
    ("rating_list", "source", ["x" * 256, ""]),
    ("rating_list", "rules", ["x" * 41, "a\x1bb"]),
    ("list_entry", "rating", [0, -1, 4000, 99_999_999_999]),
    ("list_entry", "games", [-1, 10_000]),
    ("list_entry", "k", [0, 1001]),
    ("list_entry", "change", [4000, -4000]),
    ("list_entry", "games_total", [-1, 1_000_000]),
    ("list_entry", "last_active", ["2025-13", "2025/10"]),
    ("list_entry", "pool_from", ["x", "2025-1 "]),
    ("event", "name", ["x" * 201, "", "a\x00b", "Quads\x1b[31m"]),
    ("event", "city", ["x" * 101, "C\x1b"]),
    ("event", "federation", ["IRELAND", ""]),
    ("event", "time_control", ["x" * 101, "90\x0b"]),
    ("event", "rounds", [-1, 200]),
    ("event", "period", ["2030-2"]),
    ("event", "natural_period", ["2030-00"]),
    ("event", "source_name", ["x" * 256, ""]),
    ("event_player", "start_rank", [0, -1]),
    ("event_player", "file_rating", [0, 4000]),
    ("event_player", "points_x10", [-1]),
    ("event_player", "final_rank", [-1]),
    ("event_player", "national_rating", [0, 4000]),
    ("event_player", "national_federation", ["BELG", "B\x01L"]),
    ("event_record", "seq", [0]),
    ("event_record", "text", ["", "012 a\x00b", "012 \x1b[2J", "x" * (limits.LINE_MAX + 1)]),
    ("game", "round", [0, 200]),
    ("game", "white_result", ["X", "½"]),
    ("game", "black_result", ["x"]),
    ("game", "black_id", ["white"]),  # the white player's id: paired with themselves
    ("rule_set", "name", ["x" * 65, "a\x1bb"]),
    ("rule_set", "effective_from", ["2030-13"]),
    ("rule_set", "effective_until", ["never"]),
    ("rule_set", "source", ["x" * 256]),
]
CONSTRAINT_OF = {
    ("event", "period"): "ck_event_period_format",
    ("game", "black_id"): "ck_game_opponents",
}


def _constraint(table: str, column: str) -> str:
    return CONSTRAINT_OF.get((table, column), f"ck_{table}_{column}")


def test_every_constraint_is_attacked_here() -> None:
    assert {_constraint(t, c) for t, c, _ in ATTACKS} == {c.name for c in checks.CHECKS}


@pytest.mark.parametrize("table", checks.CHECKED_TABLES)
def test_raw_sql_breaking_a_check_is_refused_and_changes_nothing(engine: Engine, table: str) -> None:
    ids = _seed(engine)
    base = _bases(ids)[table]
    before = _snapshot(engine)
    sqlite = engine.dialect.name == "sqlite"
    for attacked, column, values in ATTACKS:
        if attacked != table:
            continue
        name = _constraint(table, column)
        # The engine's own type checks come first on PostgreSQL and MariaDB (and PostgreSQL's driver
        # refuses NUL before sending); on SQLite only the CHECK stands.
        match = name if sqlite else f"(?i){name}|too long|out of range|NUL|0x00"
        for value in values:
            row = {**base, column: ids["p"] if value == "white" else value}
            with pytest.raises(DBAPIError, match=match), engine.begin() as conn:
                _insert(conn, table, row)
    if table == "player":  # an UPDATE is checked as an INSERT is
        for value in ("x" * 300, "a\x00b", "a\x1bb"):
            with pytest.raises(
                DBAPIError, match="ck_player_name" if sqlite else "ck_player_name|too long|NUL"
            ):
                with engine.begin() as conn:
                    conn.execute(
                        text("UPDATE player SET name = :v WHERE id = :id"), {"v": value, "id": ids["q"]}
                    )
    assert _snapshot(engine) == before
    # The base row itself passes.
    with engine.begin() as conn:
        _insert(conn, table, base)


def test_values_at_the_limits_pass(engine: Engine) -> None:
    ids = _seed(engine)
    bases = _bases(ids)
    with engine.begin() as conn:
        _insert(
            conn,
            "player",
            {
                **bases["player"],
                "name": "É" * limits.PLAYER_NAME,
                "federation": "ST.",
                "birth_year": 9999,
                "fide_id": limits.FIDE_ID_MAX,
                "national_id": "x" * 20,
            },
        )
        _insert(
            conn,
            "player",
            {
                "name": "Ó Briain-Łukasz, Seán 'Óg'",
                "birth_year": 1000,
                "fide_id": 1,
                "title": "CM",
                "national_id": "N2",
            },
        )
        _insert(
            conn,
            "list_entry",
            {
                **bases["list_entry"],
                "rating": limits.RATING_MAX,
                "k": 1000,
                "change": -limits.RATING_MAX,
                "games": limits.GAMES_MAX,
                "games_total": limits.GAMES_TOTAL_MAX,
                "last_active": "2025-12",
                "pool_from": "1999-01",
            },
        )
        _insert(
            conn,
            "list_entry",
            {
                **bases["list_entry"],
                "player_id": ids["q"],
                "rating": 1,
                "k": 1,
                "player_version_id": _version_of(conn, ids["q"]),
            },
        )
        _insert(conn, "event_record", {**bases["event_record"], "text": "132 " + "x" * 10_000})
        _insert(conn, "game", {**bases["game"], "black_id": None, "black_result": None, "white_result": "U"})
    assert _one(engine, "SELECT COUNT(*) FROM list_entry") == 2


def _version_of(conn: Connection, player_id: int) -> int:
    return int(
        conn.execute(text(f"SELECT current_version_id FROM player WHERE id = {player_id}")).scalar_one()
    )


def test_sqlite_refuses_a_value_of_the_wrong_type(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL and MariaDB columns hold only values of their type")
    ids = _seed(engine)
    base = _bases(ids)["player"]
    for column, value, name in (
        ("birth_year", "abc", "ck_player_birth_year"),
        ("birth_year", 1990.5, "ck_player_birth_year"),
        ("name", b"A blob", "ck_player_name"),
        ("fide_id", 1e23, "ck_player_fide_id"),
    ):
        with pytest.raises(DBAPIError, match=name), engine.begin() as conn:
            _insert(conn, "player", {**base, column: value})


def test_the_models_declare_the_check_constraints_the_migrations_made(engine: Engine) -> None:
    inspector = inspect(engine)
    for table in Base.metadata.sorted_tables:
        in_models = {
            c.name for c in table.constraints if c.__class__.__name__ == "CheckConstraint" and c.name
        }
        in_database = {c["name"] for c in inspector.get_check_constraints(table.name)}
        assert in_database == in_models, table.name


def test_the_readers_limits_are_the_models_column_lengths() -> None:
    for check in checks.CHECKS:
        if isinstance(check.rule, checks.Text):
            column = Base.metadata.tables[check.table].columns[check.rule.column]
            length = getattr(column.type, "length", None)
            assert length in (None, check.rule.longest), check.name


def _schema(engine: Engine) -> set[tuple[str, str, str, str]]:
    with engine.connect() as conn:
        return {
            tuple(r)
            for r in conn.exec_driver_sql(
                "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL"
            )
        }


def test_on_sqlite_the_schema_differs_only_by_the_checks(engine: Engine) -> None:
    # Compared within one database: the text of tables that Alembic's batch mode rebuilt before 0015
    # lists their constraints in an order that can differ from one run to the next.
    if engine.dialect.name != "sqlite":
        pytest.skip("the rebuild of tables is SQLite's")
    db.downgrade(engine, CHECKS_REVISION)
    at_head = _schema(engine)
    db.downgrade(engine, BEFORE)
    before_checks = _schema(engine)
    names = {t: [c.name for c in checks.checks_of(t)] for t in checks.CHECKED_TABLES}
    strip = _migration()._without_checks
    assert {
        (kind, name, table, strip(sql, names[name]) if kind == "table" and name in names else sql)
        for kind, name, table, sql in at_head
    } == before_checks
    assert len([r for r in at_head - before_checks if r[0] == "table"]) == len(names)
    assert {r for r in at_head - before_checks if r[0] != "table"} == set()
    db.upgrade(engine, CHECKS_REVISION)
    # Upgraded again, the rebuilt tables may list their constraints in another order (0016's downgrade
    # added the foreign keys back at the end): compared line by line.
    assert _unordered(_schema(engine)) == _unordered(at_head)


def _unordered(schema: set[tuple[str, str, str, str]]) -> set[tuple[str, str, str, frozenset[str]]]:
    return {
        (kind, name, table, frozenset(line.strip().rstrip(",") for line in sql.splitlines()))
        for kind, name, table, sql in schema
    }


def _store_bad_rows(engine: Engine) -> dict[str, int]:
    """Rows the readers now refuse, written before migration 0015 (as SQLite kept them), one on a
    published list; the engine at BEFORE."""
    ids = _seed(engine)
    db.downgrade(engine, BEFORE)
    with engine.begin() as conn:
        _insert(conn, "player", {"name": "Bad, Title", "title": "XX", "national_id": "K2"})
        _insert(
            conn,
            "player_version",
            {
                "player_id": ids["raw"],
                "name": "Raw, Player",
                "deceased": False,
                "version": 1,
                "federation": "I\x01L",
                "national_id": "K1",
            },
        )
        raw_version = conn.execute(text("SELECT MAX(id) FROM player_version")).scalar_one()
        conn.execute(text(f"UPDATE player SET current_version_id = {raw_version}, federation = 'I\x01L' "
                          f"WHERE id = {ids['raw']}"))  # fmt: skip
        _insert(
            conn,
            "list_entry",
            {
                **_bases(ids)["list_entry"],
                "player_id": ids["raw"],
                "player_version_id": raw_version,
                "rating": 5000,
            },
        )
        conn.execute(text(f"UPDATE rating_list SET sealed = TRUE WHERE id = {ids['list']}"))
        if engine.dialect.name == "sqlite":
            _insert(conn, "player", {"name": "x" * 300})
    ids["raw_version"] = raw_version
    return ids


def test_stored_rows_that_break_a_check_are_kept_as_exceptions_and_reported(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    ids = _store_bad_rows(engine)
    before = _snapshot(engine)
    with caplog.at_level(logging.WARNING, logger="ratingdb.migrations"):
        db.upgrade(engine)
    assert db.current_revision(engine) == db.head_revision()
    # Nothing rewritten, the published list least of all (columns later migrations add aside).
    assert _columns_of(before, _snapshot(engine)) == before
    detail = _one(engine, "SELECT detail FROM audit_log WHERE action = 'migrate-checks'")
    assert f"list_entry.rating (ck_list_entry_rating): 1 row(s) kept as they were, by list_id, player_id: " \
           f"{ids['list']}, {ids['raw']}" in detail  # fmt: skip
    assert "player.title (ck_player_title): 1 row(s)" in detail
    assert f"player_version.federation (ck_player_version_federation): 1 row(s) kept as they were, by id: " \
           f"{ids['raw_version']}" in detail  # fmt: skip
    assert "list_entry.rating" in caplog.text and "player.title" in caplog.text
    # A new row like them is refused.
    with pytest.raises(DBAPIError, match="ck_player_title"), engine.begin() as conn:
        _insert(conn, "player", {"name": "New, Bad", "title": "XX"})
    # The officer corrects the player: the kept version is withdrawn, a valid one added.
    with db.transaction(engine) as s:
        player = s.get(Player, ids["raw"])
        assert player is not None
        edit_player(s, player, {"federation": "IRL"}, "control character in the federation")
    assert _one(engine, f"SELECT federation FROM player WHERE id = {ids['raw']}") == "IRL"
    # Down and up again: the exceptions are found again.
    db.downgrade(engine, BEFORE)
    db.upgrade(engine)
    assert _one(engine, "SELECT COUNT(*) FROM audit_log WHERE action = 'migrate-checks'") == 2


def test_too_many_stored_rows_breaking_a_check_refuse_the_upgrade_in_one_line(db_url: str) -> None:
    engine = db.make_engine(db_url)
    try:
        db.downgrade(engine, BEFORE)
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO player (name, title) VALUES (:name, 'XX')"),
                [{"name": f"Player {i}"} for i in range(1001)],
            )
        with pytest.raises(RatingDbError, match="more than 1000 rows of player break the new constraint"):
            db.upgrade(engine)
        assert db.current_revision(engine) == BEFORE
        result = runner.invoke(app, ["--db", db_url, "init"])
        assert result.exit_code == 1
        assert result.stderr.startswith(
            "Error: more than 1000 rows of player break the new constraint ck_player_title on title"
        )
        assert len(result.stderr.splitlines()) == 1
        assert "ck_player_name" not in {c["name"] for c in inspect(engine).get_check_constraints("player")}
    finally:
        engine.dispose()


def test_a_check_refusal_inside_a_command_is_one_line(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import ratingdb.services.players as players

    def add_raw(session: Any, *_: object, **__: object) -> None:
        session.execute(text("INSERT INTO player (name, title) VALUES ('Raw', 'XX')"))

    monkeypatch.setattr(players, "add_player", add_raw)
    result = runner.invoke(app, ["--db", db_url, "player", "add", "--name", "Raw"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: the database refused a value: player.title must be one of GM IM FM CM WGM WIM WFM WCM "
        "(ck_player_title) — nothing was written; ratingdb's readers refuse such values, so if this came "
        "from a ratingdb command please report it as a bug\n",
    )


def _refused_code_points() -> list[int]:
    """Every code point the text checks refuse (NUL aside: PostgreSQL's driver refuses it before sending)."""
    return [c for low, high in limits.REFUSED_RANGES for c in range(max(low, 1), high + 1)]


def test_every_refused_character_is_refused_inside_a_plain_ascii_name(engine: Engine) -> None:
    # Migration 0025 lets a text of printable ASCII alone pass SQLite's check at once and matches any other
    # text against the refused class: a refused character among printable ASCII must still be found, at
    # the start, the middle and the end, and the letters of names outside ASCII must still pass.
    ids = _seed(engine)
    base = _bases(ids)["player"]
    sqlite = engine.dialect.name == "sqlite"
    for code in _refused_code_points():
        for name in (f"{chr(code)}Kelly, Ann", f"Kelly,{chr(code)} Ann", f"Kelly, Ann{chr(code)}"):
            with pytest.raises(DBAPIError, match="ck_player_name" if sqlite else "(?i)ck_player_name"):
                with engine.begin() as conn:
                    _insert(conn, "player", {**base, "name": name})
    with engine.begin() as conn:
        for n, name in enumerate(("Ó Briain, Seán", "Łukasz ~ Müller", "Ann ' Kelly", " ", "~", "İ\u200d")):
            _insert(conn, "player", {**base, "name": name, "fide_id": 900 + n, "national_id": f"A{n}"})


def test_each_code_of_a_code_list_passes_and_near_misses_are_refused(engine: Engine) -> None:
    # Migration 0025 writes SQLite's code lists (results, titles) as OR chains: the same codes, no more.
    ids = _seed(engine)
    bases = _bases(ids)
    sqlite = engine.dialect.name == "sqlite"
    lists = [c for c in checks.CHECKS if isinstance(c.rule, checks.OneOf)]
    assert {c.name for c in lists} >= {"ck_game_white_result", "ck_player_title", "ck_player_version_title"}
    for check in lists:
        rule = check.rule
        assert isinstance(rule, checks.OneOf)
        admitted = set(rule.values)
        near = {v.lower() for v in admitted} | {v + v for v in admitted} | {f" {v}" for v in admitted}
        near |= {"", "½", "X", "0.5"}  # no trailing space: MariaDB's PAD SPACE collations ignore it
        for value in sorted(near - admitted):
            with pytest.raises(DBAPIError, match=check.name if sqlite else f"(?i){check.name}|too long"):
                with engine.begin() as conn:
                    _insert(conn, check.table, {**bases[check.table], rule.column: value})
        for value in rule.values:
            with engine.connect() as conn:
                attempt = conn.begin()
                _insert(conn, check.table, {**bases[check.table], rule.column: value})
                attempt.rollback()
