"""The player register's service and its database guards, on every engine."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import DBAPIError

from ratingdb import db
from ratingdb.schema.models import Player, PlayerNameToken, PlayerVersion
from ratingdb.services.bulk import Driver
from ratingdb.services.players import FIND_PAGE, Details, find_players, register_players
from ratingdb.services.versions import record_change


def _register(engine: Engine, details: list[Details]) -> None:
    with db.transaction(engine) as session:
        driver = Driver(session)
        try:
            register_players(driver, details, record_change(session, "test", "players for a test").id)
        finally:
            driver.restore()


def test_find_reads_the_name_index_page_by_page_until_it_has_enough(engine: Engine) -> None:
    count = 2 * FIND_PAGE + 200  # three pages of the token "kelly"
    _register(
        engine,
        [
            Details(
                name=f"Kelly, Aoife{i:04d}", federation="ENG" if i == count - 1 else "IRL", birth_year=2010
            )
            for i in range(count)
        ],
    )
    with db.transaction(engine) as session:
        first = find_players(session, "kel", limit=50)
        assert [p.name for p in first] == [f"Kelly, Aoife{i:04d}" for i in range(50)]
        # The only English Kelly is the last entry of the last page.
        assert [p.name for p in find_players(session, "kel", federation="eng")] == [
            f"Kelly, Aoife{count - 1:04d}"
        ]
        assert find_players(session, "kelly aoife0007")[0].name == "Kelly, Aoife0007"
        assert find_players(session, "kelly zed") == []


def test_a_version_is_never_changed_nor_deleted_while_its_player_exists(engine: Engine) -> None:
    _register(engine, [Details(name="Walsh, Liam", birth_year=2011, national_id="1")])
    for statement, message in (
        ("UPDATE player_version SET name = 'X'", "player_version rows are never changed"),
        ("DELETE FROM player_version", "player_version rows are never deleted"),
    ):
        with pytest.raises(DBAPIError, match=message), engine.begin() as conn:
            conn.execute(text(statement))
    # Removing the player (nothing refers to it) takes its versions and search tokens with it.
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM player"))
    with db.transaction(engine) as session:
        for model in (Player, PlayerVersion, PlayerNameToken):
            assert session.scalar(select(func.count()).select_from(model)) == 0
