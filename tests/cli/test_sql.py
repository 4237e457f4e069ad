"""`ratingdb sql`: the documented view queries give the same text on every engine, and nothing can write.

The read-only guarantee is tested with INSERT, UPDATE, DELETE, DROP and multi-statement strings on
SQLite, PostgreSQL and MySQL: each is refused with one error line, exit 1, and the database is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, inspect, text
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.cli.test_sql_privileges import without_privilege_warning
from tests.conftest import ENGINES, new_database_url
from tests.fixtures.reports.club import build_club, run

runner = CliRunner()
TABLES = ("player", "event", "event_player", "game", "rating_list", "list_entry", "calc_player", "calc_event")


@pytest.fixture(scope="module", params=ENGINES)
def club_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    for url in new_database_url(request.param, request, tmp_path_factory.mktemp("club")):
        build_club(url)
        yield url


def sql(url: str, statement: str, *options: str):  # type: ignore[no-untyped-def]
    # The MySQL tests connect as root, of whom `sql` warns (tests/cli/test_sql_privileges.py tests it).
    return without_privilege_warning(runner.invoke(app, ["--db", url, "sql", statement, *options]))


def csv_lines(url: str, statement: str) -> list[str]:
    result = sql(url, statement, "--format", "csv")
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def snapshot(url: str) -> dict[str, int]:
    engine = create_engine(url)
    with engine.connect() as conn:
        counts = {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in TABLES}
        counts["views"] = len(inspect(conn).get_view_names())
        counts["names"] = conn.execute(
            text("SELECT COUNT(*) FROM player WHERE name LIKE '%Ash%'")
        ).scalar_one()
    engine.dispose()
    return counts


# --- the documented examples (docs/reference/views.md), one per view ----------------------------------
# Every expected line is the club database of tests/fixtures/reports/club.py, worked out there by hand.

VIEW_EXAMPLES = [
    (
        "SELECT list_date, name, rating, k, flag FROM v_current_list WHERE rating_type = 'standard' "
        "AND rating IS NOT NULL ORDER BY rating DESC, fide_id LIMIT 3",
        [
            "list_date,name,rating,k,flag",
            '2026-01-01,"Ash, Adam",2180,20,',
            '2026-01-01,"Elm, Eli",2100,20,i',
            '2026-01-01,"Birch, Bea",2008,20,w',
        ],
    ),
    (
        "SELECT list_date, COUNT(*) AS entries, COUNT(rating) AS rated, MAX(rating) AS best "
        "FROM v_list_entry WHERE rating_type = 'standard' GROUP BY list_date ORDER BY list_date",
        [
            "list_date,entries,rated,best",
            "2025-10-01,6,5,2200",  # Fay unrated
            "2025-11-01,6,5,2185",  # Fay in (1886), Cedar out (1399 < 1400)
            "2025-12-01,6,5,2180",  # Ash 2185 − 5 after the late event
            "2026-01-01,6,5,2180",
        ],
    ),
    (
        'SELECT list_date, origin, rating, "change", games, k FROM v_rating_history '
        "WHERE fide_id = 300002 AND rating_type = 'standard' ORDER BY list_date",
        [
            "list_date,origin,rating,change,games,k",
            "2025-10-01,imported,2000,,0,40",
            "2025-11-01,computed,1998,-2,2,40",
            "2025-12-01,computed,2008,10,1,40",
            "2026-01-01,computed,2008,0,0,20",
        ],
    ),
    (
        'SELECT name, method, ro, new_rating, "change", games, k_used, score, k_sum_dr FROM v_period_change '
        "WHERE rating_type = 'standard' AND period = '2025-10' ORDER BY fide_id",
        [
            "name,method,ro,new_rating,change,games,k_used,score,k_sum_dr",
            '"Ash, Adam",change,2200,2185,-15,2,20,1.0,-15.4',
            '"Birch, Bea",change,2000,1998,-2,2,40,1.5,-2.4',
            '"Cedar, Cal",change,1405,1399,-6,2,40,0.0,-6.4',
            '"Dove, Dana",change,1900,1920,20,2,20,1.5,19.8',
            '"Fir, Fay",initial,,1886,,5,,2.5,',
        ],
    ),
    (
        "SELECT event_name, name, ratings_from_list, ro, rc, n, score, k, k_sum_dr FROM v_calc_event "
        "WHERE period = '2025-11' ORDER BY event_id, fide_id",
        [
            "event_name,name,ratings_from_list,ro,rc,n,score,k,k_sum_dr",
            # The late event uses the 2025-10-01 ratings: Ash 2200 vs 2000 ½ → −.26 × 20; Birch +.26 × 40.
            'Late Open,"Ash, Adam",2025-10-01,2200,2000.0,1,0.5,20,-5.2',
            'Late Open,"Birch, Bea",2025-10-01,2000,2200.0,1,0.5,40,10.4',
        ],
    ),
    (
        "SELECT round, opponent_name, own_rating, opponent_rating, d, pd, score, dr FROM v_calc_game "
        "WHERE fide_id = 300001 AND period = '2025-10' ORDER BY event_id, round",
        [
            "round,opponent_name,own_rating,opponent_rating,d,pd,score,dr",
            '1,"Cedar, Cal",2200,1405,400,0.92,1.0,0.08',  # D 795 capped at 400 (§8.3.1)
            '2,"Dove, Dana",2200,1900,300,0.85,0.0,-0.85',
        ],
    ),
    (
        # Birch was registered by the import of the October list and never edited: one version.
        "SELECT version, name, federation, birth_year, is_current, action FROM v_player_version "
        "WHERE fide_id = 300002 ORDER BY version",
        [
            "version,name,federation,birth_year,is_current,action",
            '1,"Birch, Bea",IRL,2007,1,import-list',
        ],
    ),
    (
        "SELECT event_id, name, period, natural_period, late, official, rated_games FROM v_event "
        "ORDER BY event_id",
        [
            "event_id,name,period,natural_period,late,official,rated_games",
            "1,Club Autumn,2025-10,2025-10,0,0,4",
            "2,Newcomer Cup,2025-10,2025-10,0,0,5",
            "3,Late Open,2025-11,2025-10,1,0,1",
        ],
    ),
]


@pytest.mark.parametrize(
    ("statement", "expected"), VIEW_EXAMPLES, ids=lambda x: x.split()[0] if isinstance(x, str) else ""
)
def test_each_documented_view_query_gives_the_same_answer(
    club_url: str, statement: str, expected: list[str]
) -> None:
    assert csv_lines(club_url, statement) == expected


def test_the_examples_are_the_ones_the_docs_show() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "views.md").read_text("utf-8")
    for statement, _ in VIEW_EXAMPLES:
        assert statement in " ".join(docs.split()), statement


def test_json_output_is_a_list_of_objects(club_url: str) -> None:
    result = sql(club_url, "SELECT name, late FROM v_event WHERE late = 1", "-f", "json")
    assert result.exit_code == 0, result.output
    assert result.stdout == '[\n  {\n    "name": "Late Open",\n    "late": 1\n  }\n]\n'


def test_a_table_column_that_is_boolean_prints_as_0_or_1_on_both_engines(club_url: str) -> None:
    assert csv_lines(club_url, "SELECT official FROM event WHERE id = 1") == ["official", "0"]


# --- read-only --------------------------------------------------------------------------------------------


def refusal(url: str, sqlite: str, postgresql: str, mysql: str | None = None) -> str:
    """The error line of a refused statement; MySQL's reason is SQLite's unless it is given."""
    if url.startswith("mysql"):
        reason = sqlite if mysql is None else mysql
    else:
        reason = sqlite if url.startswith("sqlite") else postgresql
    return f"Error: the database refused the statement: {reason}\n"


MYSQL_SYNTAX = (
    "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version "
    "for the right syntax to use near '{}' at line 1"
)


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO player (name) VALUES ('Intruder, Ivy')",
        "UPDATE player SET name = 'Renamed' WHERE fide_id = 300001",
        "DELETE FROM event_player",
        "DROP TABLE calc_event",
        "DROP VIEW v_event",
        "CREATE TABLE scratch (x INTEGER)",
    ],
)
def test_a_write_is_refused_and_changes_nothing(club_url: str, statement: str) -> None:
    # PostgreSQL: a statement that returns no rows is not run at all (ratingdb sql runs queries).
    before = snapshot(club_url)
    result = sql(club_url, statement)
    assert result.exit_code == 1
    message = "not authorized: ratingdb sql only reads"
    assert result.stderr == refusal(club_url, message, message)
    assert result.stdout == ""
    assert snapshot(club_url) == before


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT 1; DELETE FROM player",
        "DELETE FROM player; SELECT 1",
        "SELECT COUNT(*) FROM player; DROP TABLE calc_game;",
        "SELECT 1; COMMIT; DELETE FROM player",
        "SELECT ';' AS semicolon; /* one */ DELETE FROM player -- two",
    ],
)
def test_more_than_one_statement_is_refused_and_changes_nothing(club_url: str, statement: str) -> None:
    before = snapshot(club_url)
    result = sql(club_url, statement)
    assert result.exit_code == 1
    message = "only one statement at a time (the text holds more than one)"
    assert result.stderr == refusal(club_url, message, message)
    assert snapshot(club_url) == before


def test_a_trailing_semicolon_and_comments_are_one_statement(club_url: str) -> None:
    assert csv_lines(club_url, "SELECT COUNT(*) AS players FROM player; -- six") == ["players", "6"]
    assert csv_lines(club_url, "SELECT 'a;b' AS x; /* a comment; */\n-- another\n") == ["x", "a;b"]


def test_a_write_inside_a_cte_is_refused(club_url: str) -> None:
    before = snapshot(club_url)
    result = sql(club_url, "WITH gone AS (DELETE FROM player RETURNING id) SELECT COUNT(*) FROM gone")
    assert result.exit_code == 1
    assert result.stderr == refusal(
        # PostgreSQL names the outer statement of a data-modifying WITH.
        club_url,
        'near "DELETE": syntax error',
        "cannot execute SELECT in a read-only transaction",
        # MariaDB has no data-modifying WITH: its parser refuses the text before anything runs.
        MYSQL_SYNTAX.format("DELETE FROM player RETURNING id) SELECT COUNT(*) FROM gone"),
    )
    assert snapshot(club_url) == before


def test_sqlite_refuses_turning_query_only_off(club_url: str) -> None:
    if not club_url.startswith("sqlite"):
        pytest.skip("a SQLite pragma")
    result = sql(club_url, "PRAGMA query_only = OFF")
    assert result.stderr == refusal(club_url, "not authorized: ratingdb sql only reads", "")


def test_sqlite_schema_pragmas_run_in_their_statement_form_only(club_url: str) -> None:
    # As docs/operations/security.md says: the table-valued form is refused, since SQLite authorizes the
    # pragma's table as a write to sqlite_master.
    if not club_url.startswith("sqlite"):
        pytest.skip("SQLite pragmas")
    assert sql(club_url, "PRAGMA table_info(player)", "-f", "csv").stdout.splitlines()[:2] == [
        "cid,name,type,notnull,dflt_value,pk",
        "0,id,INTEGER,1,,1",
    ]
    result = sql(club_url, "SELECT name FROM pragma_table_info('player')")
    assert (result.exit_code, result.stderr) == (
        1,
        refusal(club_url, "not authorized: ratingdb sql only reads", ""),
    )


def test_a_syntax_error_is_one_line(club_url: str) -> None:
    result = sql(club_url, "SELEC 1")
    assert result.exit_code == 1
    assert result.stderr == refusal(
        club_url,
        'near "SELEC": syntax error',
        'syntax error at or near "SELEC"',
        MYSQL_SYNTAX.format("SELEC 1"),
    )


def test_an_empty_statement_is_refused(club_url: str) -> None:
    result = sql(club_url, "   ")
    assert result.exit_code == 1
    assert result.stderr == 'Error: no SQL given: write one statement, e.g. "SELECT * FROM v_current_list"\n'


def test_a_refused_write_leaves_no_lock_behind(db_url: str) -> None:
    build_club(db_url, through="2025-11")
    assert sql(db_url, "DELETE FROM list_entry").exit_code == 1
    assert sql(db_url, "SELECT 1; DELETE FROM list_entry").exit_code == 1
    assert "published the list dated 2026-01-01" in run(db_url, "close-period", "2025-12")


# --- MySQL: what a READ ONLY transaction alone would let through ------------------------------------------


def mysql_only(url: str) -> None:
    if not url.startswith("mysql"):
        pytest.skip("MySQL's own statement checks")


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        # DDL commits the READ ONLY transaction implicitly and would then run outside it.
        ("CREATE TEMPORARY TABLE scratch (x INTEGER)", "not authorized: ratingdb sql only reads"),
        ("ALTER TABLE player ADD COLUMN scratch INTEGER", "not authorized: ratingdb sql only reads"),
        # INTO OUTFILE writes a file on the server.
        (
            "SELECT name FROM player INTO OUTFILE '/tmp/ratingdb-sql-test.txt'",
            "not authorized: ratingdb sql only reads",
        ),
        # MySQL runs the text of a /*! comment.
        (
            "/*!50000 DROP TABLE calc_game */",
            "not authorized: ratingdb sql only reads (an executable /*! comment runs its text)",
        ),
        ("SET @x = 1", "not authorized: ratingdb sql only reads"),
        # The server's files, and the named locks that ratingdb's close uses.
        ("SELECT LOAD_FILE('/etc/passwd') AS f", "not authorized: ratingdb sql only reads"),
        ("SELECT GET_LOCK ('x', 0) AS l", "not authorized: ratingdb sql only reads"),
    ],
)
def test_mysql_refuses_what_a_read_only_transaction_would_let_through(
    club_url: str, statement: str, reason: str
) -> None:
    mysql_only(club_url)
    before = snapshot(club_url)
    result = sql(club_url, statement)
    assert (result.exit_code, result.stderr) == (1, f"Error: the database refused the statement: {reason}\n")
    assert snapshot(club_url) == before


def test_mysql_reads_quotes_and_comments_by_its_own_rules(club_url: str) -> None:
    mysql_only(club_url)
    # A backslash escapes a quote inside a string; `#` comments out the rest of the line.
    assert csv_lines(club_url, "SELECT 'it\\'s; fine' AS x") == ["x", "it's; fine"]
    assert csv_lines(club_url, "SELECT COUNT(*) AS players FROM player # ; DELETE FROM player") == [
        "players",
        "6",
    ]
    # "--" without a space after it is not a comment in MySQL: two statements.
    two = sql(club_url, "SELECT 1 --; DELETE FROM player")
    assert two.stderr == refusal(club_url, "only one statement at a time (the text holds more than one)", "")


# --- readable on a terminal (issue 18) -------------------------------------------------------------------


def test_a_result_too_wide_for_the_terminal_prints_one_block_per_row_with_every_value_whole(
    club_url: str,
) -> None:
    import io

    from rich.console import Console

    from ratingdb import db
    from ratingdb.cli.common import print_readable
    from ratingdb.reports.sql import run_read_only

    engine = db.make_engine(club_url)
    try:
        result = run_read_only(
            engine,
            "SELECT event_id, name, city, federation, start_date, end_date, rating_type, official, rounds, "
            "period, natural_period, late, rated_games, source_name FROM v_event WHERE event_id = 1",
        )
        narrow = run_read_only(
            engine,
            "SELECT event_id, name, start_date, end_date FROM v_event WHERE event_id < 3 ORDER BY event_id",
        )
    finally:
        engine.dispose()
    screen = io.StringIO()
    print_readable(Console(file=screen, width=120), result.columns, result.rows)
    assert screen.getvalue().splitlines() == [
        "-[ row 1 ]------------------------------",
        "event_id       │ 1",
        "name           │ Club Autumn",
        "city           │ Dublin",
        "federation     │ IRL",
        "start_date     │ 2025-10-03",
        "end_date       │ 2025-10-05",
        "rating_type    │ standard",
        "official       │ 0",
        "rounds         │ 2",
        "period         │ 2025-10",
        "natural_period │ 2025-10",
        "late           │ 0",
        "rated_games    │ 4",
        "source_name    │ club_autumn.trf",
    ]
    screen = io.StringIO()
    print_readable(Console(file=screen, width=60), narrow.columns, narrow.rows)
    assert screen.getvalue().splitlines() == [
        "┏━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━┓",
        "┃ event_id ┃ name         ┃ start_date ┃ end_date   ┃",
        "┡━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━┩",
        "│ 1        │ Club Autumn  │ 2025-10-03 │ 2025-10-05 │",
        "│ 2        │ Newcomer Cup │ 2025-10-10 │ 2025-10-14 │",
        "└──────────┴──────────────┴────────────┴────────────┘",
    ]
