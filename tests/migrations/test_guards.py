"""The database's own guards (docs/versioning.md), attacked with raw SQL as a careless client would.

Every statement here bypasses ratingdb's services; the triggers and constraints alone must refuse it and
leave the data as it was, on every engine.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from ratingdb import db
from ratingdb.rating import Period
from ratingdb.services.close import close_period
from ratingdb.services.corrections import reopen
from tests import builders as b


def _published(engine: Engine) -> None:
    """An imported October list of two players, a game, and the November list the close published."""
    with db.transaction(engine) as s:
        x, y = b.player(s, "X, X"), b.player(s, "Y, Y")
        b.player(s, "Z, Z")  # registered, on no list
        b.imported_list(s, "standard", Period(2025, 10).first_day, {x: (2000, 20), y: (2000, 20)})
        b.event(s, "Club", dt.date(2025, 10, 10), dt.date(2025, 10, 10), [(x, y, "1")])
    with db.transaction(engine) as s:
        close_period(s, Period(2025, 10), "standard")


def _refused(engine: Engine, statement: str, match: str) -> None:
    with pytest.raises(DBAPIError, match=match), engine.begin() as conn:
        conn.execute(text(statement))


def _count(engine: Engine, table: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one())


def test_no_row_can_be_added_to_a_sealed_list_or_its_calculation_record(engine: Engine) -> None:
    _published(engine)
    before = {t: _count(engine, t) for t in ("list_entry", "calc_player")}
    # The 2999 entry that the security review slipped into an old list.
    for list_id in (1, 2):  # the imported list and the computed one
        _refused(
            engine,
            "INSERT INTO list_entry (list_id, player_id, rating, games, games_total, reached_2400, "
            f"reached_2300, player_version_id) SELECT {list_id}, id, 2999, 0, 0, FALSE, FALSE, "
            "current_version_id FROM player WHERE name = 'Z, Z'",
            "no row can be added to a sealed list",
        )
    _refused(
        engine,
        "INSERT INTO calc_player (list_id, player_id, method, n, score_x100) "
        "SELECT 2, id, 'change', 1, 100 FROM player WHERE name = 'Z, Z'",
        "no row can be added to a sealed list",
    )
    assert {t: _count(engine, t) for t in before} == before


def test_no_row_can_be_added_to_a_list_that_does_not_exist(engine: Engine) -> None:
    # The sealed tables have no foreign keys since migration 0016: their insert guard refuses a row whose
    # list does not exist (the insert side of the list's key, checked per statement on PostgreSQL).
    _published(engine)
    before = {t: _count(engine, t) for t in ("list_entry", "calc_player", "calc_game", "calc_list_event")}
    for statement in (
        "INSERT INTO list_entry (list_id, player_id, rating, games, games_total, reached_2400, "
        "reached_2300, player_version_id) SELECT 999, id, 2999, 0, 0, FALSE, FALSE, current_version_id "
        "FROM player WHERE name = 'Z, Z'",
        "INSERT INTO calc_player (list_id, player_id, method, n, score_x100) "
        "SELECT 999, id, 'change', 1, 100 FROM player WHERE name = 'Z, Z'",
        "INSERT INTO calc_game (list_id, player_id, game_id, event_id, kind, opponent_id, opponent_rating, "
        "score_x100) SELECT 999, id, 1, 1, 'rated', id, 2000, 100 FROM player WHERE name = 'Z, Z'",
        "INSERT INTO calc_list_event (list_id, event_id, ratings_list_id) VALUES (999, 1, 1)",
    ):
        _refused(engine, statement, "published lists are immutable|foreign key|FOREIGN KEY")
    assert {t: _count(engine, t) for t in before} == before


def test_a_list_can_only_be_withdrawn_never_edited_unsealed_or_brought_back(engine: Engine) -> None:
    _published(engine)
    for statement in (
        "UPDATE rating_list SET list_date = '2025-12-01' WHERE id = 2",
        "UPDATE rating_list SET sealed = FALSE WHERE id = 2",
        "UPDATE rating_list SET is_current = NULL WHERE id = 2",  # withdrawn without saying by what
        "DELETE FROM rating_list WHERE id = 2",
        "UPDATE list_entry SET rating = 2999",
        "DELETE FROM calc_game",
    ):
        _refused(engine, statement, "never changed|never deleted|immutable|withdrawn")
    with db.transaction(engine) as s:
        reopen(s, Period(2025, 10), "standard", "test")
    # Withdrawn is final: it cannot be made current again, even by hand.
    _refused(
        engine,
        "UPDATE rating_list SET is_current = TRUE, withdrawn_by = NULL WHERE id = 2",
        "never changed",
    )


def test_truncate_is_refused_on_postgresql(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip(
            "TRUNCATE triggers are PostgreSQL's: SQLite has no TRUNCATE, MySQL fires no trigger for it"
        )
    _published(engine)
    tables = ("event_player", "audit_log", "list_entry", "game", "player", "rating_list", "calc_game")
    before = {t: _count(engine, t) for t in tables}
    for table in tables:
        _refused(engine, f"TRUNCATE {table} CASCADE", "TRUNCATE .* is refused")
    assert {t: _count(engine, t) for t in tables} == before


def test_a_listed_player_cannot_be_deleted_even_with_foreign_keys_off(engine: Engine) -> None:
    _published(engine)
    with pytest.raises(DBAPIError, match="cannot be deleted|foreign key|FOREIGN KEY"):
        with engine.begin() as conn:
            if engine.dialect.name == "sqlite":
                # A client that never turned foreign keys on (the sqlite3 shell's default).
                conn.exec_driver_sql("PRAGMA foreign_keys = OFF")
            if engine.dialect.name == "mysql":
                conn.exec_driver_sql("SET SESSION foreign_key_checks = 0")
            conn.execute(text("DELETE FROM player WHERE name = 'X, X'"))
    assert _count(engine, "player") == 3


def test_the_audit_log_is_append_only(engine: Engine) -> None:
    _published(engine)
    _refused(engine, "UPDATE audit_log SET reason = 'nothing to see'", "append-only")
    _refused(engine, "DELETE FROM audit_log", "append-only")


def test_alembic_version_changes_only_through_the_migrations(engine: Engine) -> None:
    head = db.head_revision()
    for statement in (
        "UPDATE alembic_version SET version_num = '0001'",
        "DELETE FROM alembic_version",
        "INSERT INTO alembic_version (version_num) VALUES ('9999')",
    ):
        _refused(engine, statement, "alembic_version changes only through|ratingdb_migrating")
    assert db.current_revision(engine) == head
    # The migrations themselves still move it, down and up again.
    db.downgrade(engine, "0009")
    assert db.current_revision(engine) == "0009"
    db.upgrade(engine)
    assert db.current_revision(engine) == head
    _refused(engine, "DELETE FROM alembic_version", "alembic_version changes only through|ratingdb_migrating")


def test_a_player_only_on_a_list_cannot_be_deleted(engine: Engine) -> None:
    # No event, no game: only the list refers to W, and list_entry has no foreign key since 0016, so the
    # player guard alone refuses (a trigger on every engine; PostgreSQL's added by 0016).
    with db.transaction(engine) as s:
        w = b.player(s, "W, W")
        b.imported_list(s, "standard", Period(2025, 10).first_day, {w: (1800, 20)})
    _refused(engine, "DELETE FROM player WHERE name = 'W, W'", "cannot be deleted")
    assert _count(engine, "player") == 1
