"""reporting views with the same column types on every engine

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-29

The views of 0001 answered the same query differently on SQLite and PostgreSQL: `x / 100.0` is a
float on SQLite and a NUMERIC with sixteen decimals on PostgreSQL, and booleans came back as 0/1 on one
and true/false on the other. These views return points as DOUBLE PRECISION (hundredths / 100 is exact
to print on both) and flags as integers 0/1, so `ratingdb sql` prints the same text on both engines.
v_rating_history also gains the list's origin. The SQL is written out here, as in 0001.
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0001"
branch_labels = None
depends_on = None


def _points(column: str) -> str:
    # Hundredths to points as a double on every engine (SQLite gives DOUBLE PRECISION REAL affinity).
    # MySQL spells the cast DOUBLE; `replace` below rewrites it there.
    return f"CAST({column} AS DOUBLE PRECISION) / 100"


def _flag(column: str) -> str:
    return f"CASE WHEN {column} THEN 1 ELSE 0 END"


VIEWS = {
    # Every entry of every list, with the player's details.
    "v_list_entry": f"""
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               p.id AS player_id, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title,
               p.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               {_flag("e.reached_2400")} AS reached_2400, {_flag("e.reached_2300")} AS reached_2300
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    # The newest list of each rating type.
    "v_current_list": """
        SELECT v.* FROM v_list_entry v
        WHERE v.list_date = (SELECT MAX(l2.list_date) FROM rating_list l2
                             WHERE l2.rating_type = v.rating_type)
    """,
    # A player's published ratings over time, one row per list.
    "v_rating_history": """
        SELECT p.id AS player_id, p.fide_id, p.national_id, p.name, l.rating_type, l.list_date, l.origin,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    # What each close did to each player it rated.
    "v_period_change": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.method, c.ro, c.new_rating, c.change, c.n AS games, c.k_base, c.k AS k_used,
               {_points("c.score_x100")} AS score, {_points("c.sum_dr_x100")} AS sum_dr,
               {_points("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_player c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
    """,
    # The calculation record per player, period and event.
    "v_calc_event": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               ev.id AS event_id, ev.name AS event_name, ev.start_date, ev.end_date,
               used.list_date AS ratings_from_list, c.ro, {_points("c.rc_x100")} AS rc, c.n,
               {_points("c.score_x100")} AS score, {_points("c.sum_dr_x100")} AS sum_dr, c.k,
               {_points("c.k_sum_dr_x100")} AS k_sum_dr, c.note
        FROM calc_event c
        JOIN rating_list l ON l.id = c.list_id
        JOIN rating_list used ON used.id = c.ratings_list_id
        JOIN player p ON p.id = c.player_id
        JOIN event ev ON ev.id = c.event_id
    """,
    # The calculation record per player and game.
    "v_calc_game": f"""
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.event_id, g.round, c.game_id, c.kind, o.id AS opponent_id, o.fide_id AS opponent_fide_id,
               o.name AS opponent_name, c.own_rating, c.opponent_rating, c.d, {_points("c.pd_x100")} AS pd,
               {_points("c.score_x100")} AS score, {_points("c.score_x100 - c.pd_x100")} AS dr
        FROM calc_game c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        JOIN player o ON o.id = c.opponent_id
        JOIN game g ON g.id = c.game_id
    """,
    # Events with their period and whether they were rated late (§9.1).
    "v_event": f"""
        SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
               ev.rating_type, {_flag("ev.official")} AS official, ev.rounds, ev.period, ev.natural_period,
               CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
               (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
               ev.source_name
        FROM event ev
    """,
}

# The views as 0001 created them, for the downgrade.
OLD_VIEWS = {
    "v_list_entry": """
        SELECT l.rating_type, l.list_date, l.origin, l.period AS closed_period,
               p.id AS player_id, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title,
               p.birth_year, e.rating, e.change, e.games, e.k, e.flag, e.games_total,
               e.reached_2400, e.reached_2300
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    "v_current_list": VIEWS["v_current_list"],
    "v_rating_history": """
        SELECT p.id AS player_id, p.fide_id, p.national_id, p.name, l.rating_type, l.list_date,
               e.rating, e.change, e.games, e.k, e.flag
        FROM list_entry e
        JOIN rating_list l ON l.id = e.list_id
        JOIN player p ON p.id = e.player_id
    """,
    "v_period_change": """
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.method, c.ro, c.new_rating, c.change, c.n AS games, c.k_base, c.k AS k_used,
               c.score_x100 / 100.0 AS score, c.sum_dr_x100 / 100.0 AS sum_dr,
               c.k_sum_dr_x100 / 100.0 AS k_sum_dr, c.note
        FROM calc_player c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
    """,
    "v_calc_event": """
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               ev.id AS event_id, ev.name AS event_name, ev.start_date, ev.end_date,
               used.list_date AS ratings_from_list, c.ro, c.rc_x100 / 100.0 AS rc, c.n,
               c.score_x100 / 100.0 AS score, c.sum_dr_x100 / 100.0 AS sum_dr, c.k,
               c.k_sum_dr_x100 / 100.0 AS k_sum_dr, c.note
        FROM calc_event c
        JOIN rating_list l ON l.id = c.list_id
        JOIN rating_list used ON used.id = c.ratings_list_id
        JOIN player p ON p.id = c.player_id
        JOIN event ev ON ev.id = c.event_id
    """,
    "v_calc_game": """
        SELECT l.rating_type, l.period, l.list_date, p.id AS player_id, p.fide_id, p.name,
               c.event_id, g.round, c.game_id, c.kind, o.id AS opponent_id, o.fide_id AS opponent_fide_id,
               o.name AS opponent_name, c.own_rating, c.opponent_rating, c.d, c.pd_x100 / 100.0 AS pd,
               c.score_x100 / 100.0 AS score, (c.score_x100 - c.pd_x100) / 100.0 AS dr
        FROM calc_game c
        JOIN rating_list l ON l.id = c.list_id
        JOIN player p ON p.id = c.player_id
        JOIN player o ON o.id = c.opponent_id
        JOIN game g ON g.id = c.game_id
    """,
    "v_event": """
        SELECT ev.id AS event_id, ev.name, ev.city, ev.federation, ev.start_date, ev.end_date,
               ev.rating_type, ev.official, ev.rounds, ev.period, ev.natural_period,
               CASE WHEN ev.period > ev.natural_period THEN 1 ELSE 0 END AS late,
               (SELECT COUNT(*) FROM game g WHERE g.event_id = ev.id AND g.rated = TRUE) AS rated_games,
               ev.source_name
        FROM event ev
    """,
}


def _replace(views: dict[str, str]) -> None:
    # v_current_list depends on v_list_entry: drop in reverse order, create in order.
    mysql = op.get_bind().dialect.name == "mysql"
    for name in reversed(list(views)):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    for name, sql in views.items():
        if mysql:
            sql = sql.replace("AS DOUBLE PRECISION)", "AS DOUBLE)")
        op.execute(f"CREATE VIEW {name} AS {sql}")


def upgrade() -> None:
    _replace(VIEWS)


def downgrade() -> None:
    _replace(OLD_VIEWS)
