"""What each engine must agree on beyond the rules: text compared and sorted the same way, values that do
not fit refused; and on MySQL/MariaDB, the URL forms and the session settings checked at connect."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

from ratingdb import db, engines
from ratingdb.cli import app
from ratingdb.errors import ConfigError
from ratingdb.schema.models import Player

NAMES = [
    "Müller, Jan",
    "Muller, Jan",
    "MÜLLER, Jan",
    "de Vries, Anna",
    "De Vries, Anna",
    "Zeta, Z",
    "alpha, A",
]


def test_names_and_ids_that_differ_only_in_case_or_accents_are_different_on_every_engine(
    engine: Engine,
) -> None:
    with engine.begin() as conn:
        for number, name in enumerate(NAMES):
            # national_id is UNIQUE: "ab" and "AB" are two players, as on SQLite and PostgreSQL.
            national_id = ["ab", "AB", "áb", "Ab", "aB", "zz", "ZZ"][number]
            conn.execute(
                text("INSERT INTO player (name, national_id) VALUES (:name, :id)"),
                {"name": name, "id": national_id},
            )
    with engine.connect() as conn:
        found = conn.execute(text("SELECT name FROM player WHERE name = 'Muller, Jan'")).scalars().all()
        ordered = conn.execute(text("SELECT name FROM player ORDER BY name")).scalars().all()
    assert found == ["Muller, Jan"]
    # By code point: capitals before small letters, accented letters after z ("Mu" < "MÜ" < "Mü").
    assert ordered == [
        "De Vries, Anna",
        "Muller, Jan",
        "MÜLLER, Jan",
        "Müller, Jan",
        "Zeta, Z",
        "alpha, A",
        "de Vries, Anna",
    ]


def test_one_of_finds_the_same_rows_as_an_in_list_on_every_engine(engine: Engine) -> None:
    # The condition services use for "column is one of these values" (an array parameter on PostgreSQL):
    # the rows whose name or id is among the values, none for an empty list, case and accents exact.
    with engine.begin() as conn:
        for name in NAMES:
            conn.execute(text("INSERT INTO player (name) VALUES (:name)"), {"name": name})
    one_of = engines.of(engine).one_of
    with db.transaction(engine) as session:
        by_name = session.scalars(
            select(Player.name)
            .where(one_of(Player.name, ["Muller, Jan", "Zeta, Z", "zeta, z"]))
            .order_by(Player.id)
        ).all()
        ids = session.scalars(select(Player.id).order_by(Player.id)).all()
        by_id = session.scalars(select(Player.id).where(one_of(Player.id, [ids[0], ids[-1], 999_999]))).all()
        none = session.scalars(select(Player.id).where(one_of(Player.id, []))).all()
    assert by_name == ["Muller, Jan", "Zeta, Z"]
    assert sorted(by_id) == [ids[0], ids[-1]]
    assert none == []


def test_a_name_too_long_for_its_column_is_refused_not_cut(engine: Engine) -> None:
    if engine.dialect.name == "sqlite":
        pytest.skip("SQLite does not enforce VARCHAR lengths")
    with pytest.raises(DBAPIError), engine.begin() as conn:
        conn.execute(text("INSERT INTO player (name) VALUES (:name)"), {"name": "x" * 121})
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM player")).scalar_one() == 0


def mysql_url(db_url: str) -> str:
    if not db_url.startswith("mysql"):
        pytest.skip("MySQL's URLs and session settings")
    return db_url


@pytest.mark.parametrize("scheme", ["mysql+pymysql", "mariadb+pymysql", "mysql", "mariadb"])
def test_every_mysql_url_form_reaches_the_database(db_url: str, scheme: str) -> None:
    url = make_url(mysql_url(db_url)).set(drivername=scheme).render_as_string(hide_password=False)
    result = CliRunner().invoke(app, ["--db", url, "db", "current"])
    assert result.exit_code == 0, result.output
    assert f"current migration: {db.head_revision()}" in result.stdout


def test_a_mysql_session_without_the_sql_mode_ratingdb_needs_is_refused(db_url: str) -> None:
    # A server (or a proxy) that ignores the session's sql_mode: simulated by an init command that sets none.
    engine = db.make_engine(mysql_url(db_url), connect_args={"init_command": "SET SESSION sql_mode = ''"})
    try:
        with pytest.raises(ConfigError, match="did not accept the SQL mode ratingdb needs"):
            engine.connect()
    finally:
        engine.dispose()


def test_mysql_sessions_are_strict_ansi_and_read_committed_on_innodb_tables(db_url: str) -> None:
    engine = db.make_engine(mysql_url(db_url))
    try:
        with engine.connect() as conn:
            modes = set(conn.exec_driver_sql("SELECT @@SESSION.sql_mode").scalar_one().split(","))
            isolation = conn.exec_driver_sql("SELECT @@SESSION.tx_isolation").scalar_one()
            engines = (
                conn.exec_driver_sql(
                    "SELECT DISTINCT engine FROM information_schema.tables "
                    "WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'"
                )
                .scalars()
                .all()
            )
            collation = conn.exec_driver_sql(
                "SELECT default_collation_name FROM information_schema.schemata "
                "WHERE schema_name = DATABASE()"
            ).scalar_one()
    finally:
        engine.dispose()
    assert {"STRICT_ALL_TABLES", "ANSI_QUOTES", "PIPES_AS_CONCAT", "NO_ZERO_DATE"} <= modes
    assert isolation == "READ-COMMITTED"
    assert collation == "utf8mb4_nopad_bin"
    assert engines == ["InnoDB"]  # transactions and foreign keys on every table
