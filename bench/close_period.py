"""Benchmark of the period close at a chosen scale, against the I/O floor of the same engine.

    python bench/close_period.py --scale national|large|fide --engine sqlite|postgresql|mysql [--url URL]
                                 [--pg-cluster tuned|default]

Builds a synthetic federation (bench/synthetic.py) in a new database, runs the real `close_period` in a
fresh process (so its peak memory is its own), then measures the I/O floor: reading the same inputs
and writing the same number of rows with plain bulk SQL on the same engine. The last line printed is
one JSON object with the figures (PostgreSQL runs include the server's settings). With `--pg-cluster` the
PostgreSQL run gets a throwaway cluster of its own (bench/pg_cluster.py). Imports ratingdb; nothing in
ratingdb imports this.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Column, MetaData, Table, event, text

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import (  # noqa: E402
    ENGINES,
    PG_CLUSTER_HELP,
    SERVER_HELP,
    database,
    load_average,
    peak_rss_mb,
    say,
    server,
    server_activity,
    server_settings,
)

from ratingdb import db  # noqa: E402
from ratingdb.engines.sqlite import SQLITE_CACHE_KIB  # noqa: E402
from ratingdb.rating import Period  # noqa: E402
from ratingdb.schema.models import Base  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(synthetic.SCALES), default="national")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    parser.add_argument("--pg-cluster", choices=("tuned", "default"), help=PG_CLUSTER_HELP)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the close to stderr")
    parser.add_argument("--close-only", metavar="URL", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args(argv)
    if args.close_only:
        _close_child(args.close_only, args.profile)
        return
    scale = synthetic.SCALES[args.scale]
    load_before = load_average()
    with server(args.engine, args.url, args.pg_cluster) as server_url:
        with database(args.engine, server_url) as url:
            figures = run(scale, url, profile=args.profile)
            settings = server_settings(url)
    figures = (
        {"scale": scale.name, "engine": args.engine, "pg_cluster": args.pg_cluster}
        | figures
        | {"load_before": load_before, "load_after": load_average(), "pg_settings": settings}
    )
    print(json.dumps(figures))


def run(scale: synthetic.Scale, url: str, *, profile: bool = False) -> dict[str, Any]:
    engine = db.make_engine(url)
    db.upgrade(engine)
    started = time.perf_counter()
    fed = synthetic.build(engine, scale)
    build_s = time.perf_counter() - started
    say(
        f"built {scale.name}: {fed.players} players, {fed.list_entries} list entries, {fed.events} events, "
        f"{fed.games} games ({fed.played_games} played) in {build_s:.1f} s"
    )
    engine.dispose()

    with server_activity(url) as activity:
        child = subprocess.run(
            [sys.executable, __file__, "--close-only", url] + (["--profile"] if profile else []),
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
    close = json.loads(child.stdout.strip().splitlines()[-1])
    say(f"close: {close['close_s']:.2f} s, peak {close['peak_rss_mb']:.0f} MB {activity}")

    engine = db.make_engine(url)
    if engine.dialect.name == "sqlite":
        # The same page cache the close gives itself (ratingdb.services.close), for a fair floor.
        @event.listens_for(engine, "connect")
        def _cache(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")

    rows = _rows_written(engine, close["list_id"])
    floor_s = io_floor(engine, rows)
    say(f"I/O floor, the schema's tables: {floor_s:.2f} s for {sum(rows.values())} rows written {rows}")
    _create_bare_tables(engine)
    bare_s = io_floor(engine, rows, prefix="bare_")
    engine.dispose()
    say(f"bare I/O floor, tables with primary keys only: {bare_s:.2f} s")
    return {
        "players": fed.players,
        "games": fed.played_games,
        "game_rows": fed.games,
        "events": fed.events,
        "close_s": round(close["close_s"], 3),
        "floor_s": round(floor_s, 3),
        "ratio": round(close["close_s"] / floor_s, 2),
        "bare_floor_s": round(bare_s, 3),
        "bare_ratio": round(close["close_s"] / bare_s, 2),
        "peak_rss_mb": round(close["peak_rss_mb"], 1),
        "games_per_s": round(fed.played_games / close["close_s"]),
        "players_per_s": round(close["players_on_list"] / close["close_s"]),
        "players_on_list": close["players_on_list"],
        "players_rated": close["players_rated"],
        "rows_written": sum(rows.values()),
        "build_s": round(build_s, 1),
        "close_server": activity,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }


def _close_child(url: str, profile: bool) -> None:
    """Run the real close once, in this (fresh) process, and print its time and peak memory as JSON."""
    from ratingdb.services.close import close_period

    engine = db.make_engine(url)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    started = time.perf_counter()
    with db.transaction(engine) as session:
        summary = close_period(session, Period.parse(synthetic.PERIOD), "standard")
    close_s = time.perf_counter() - started
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    engine.dispose()
    assert not summary.already_closed
    print(
        json.dumps(
            {
                "close_s": close_s,
                "peak_rss_mb": peak_rss_mb(),
                "list_id": summary.list_id,
                "players_on_list": summary.players_on_list,
                "players_rated": summary.players_rated,
                "games_rated": summary.games_rated,
            }
        )
    )


TABLES = ("list_entry", "calc_player", "calc_list_event", "calc_game")


def _rows_written(engine: Any, list_id: int) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            t: conn.execute(text(f"SELECT COUNT(*) FROM {t} WHERE list_id = :id"), {"id": list_id}).scalar()
            for t in TABLES
        }


def _create_bare_tables(engine: Any) -> None:
    """`bare_<table>` for each table the close writes: the same columns, the primary key only (no foreign
    keys, secondary indexes, checks or triggers): what the rows cost the engine with nothing else."""
    bare = MetaData()
    for name in TABLES:
        table = Base.metadata.tables[name]
        Table(
            f"bare_{name}",
            bare,
            *(Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable) for c in table.columns),
        )
    bare.create_all(engine)


def io_floor(engine: Any, rows: dict[str, int], prefix: str = "") -> float:
    """Seconds to read the close's inputs and write as many rows to the same tables with plain bulk SQL.

    Reads what the close must read (both lists, the period's events and games, the players) with one
    query each, builds rows of the same shape from them with no rules at all, writes them with
    executemany (SQLite) or COPY (PostgreSQL) under a list of its own, and commits. With `prefix`
    "bare_", the rows go to the tables of `_create_bare_tables` instead.
    """
    dialect = engine.dialect.name
    started = time.perf_counter()
    with engine.begin() as conn:
        raw = conn.connection.driver_connection
        cur = raw.cursor()
        cur.execute(
            "SELECT player_id, rating, k, games_total, reached_2400, reached_2300, last_active, pool_from, "
            f"flag FROM list_entry WHERE list_id = {synthetic.IN_FORCE_LIST_ID}"
        )
        entries = cur.fetchall()
        cur.execute(
            f"SELECT player_id, rating FROM list_entry WHERE list_id = {synthetic.PREVIOUS_LIST_ID} "
            "AND rating IS NOT NULL"
        )
        previous = dict(cur.fetchall())
        cur.execute(f"SELECT id, start_date FROM event WHERE period = '{synthetic.PERIOD}'")
        events = cur.fetchall()
        cur.execute(
            "SELECT g.id, g.event_id, g.white_id, g.black_id, g.white_result, g.black_result FROM game g "
            f"JOIN event e ON e.id = g.event_id WHERE e.period = '{synthetic.PERIOD}' AND g.rated = TRUE "
            "AND g.black_id IS NOT NULL"
        )
        games = cur.fetchall()
        cur.execute("SELECT id, birth_year, sex, name, current_version_id FROM player")
        players = cur.fetchall()
        assert previous and events
        # A list of its own (blitz, 2999) so the rows do not collide with the close's.
        day = "2998-01-01" if prefix else "2999-01-01"
        cur.execute(
            f"INSERT INTO rating_list (rating_type, list_date, origin) VALUES ('blitz', '{day}', 'computed')"
        )
        cur.execute(f"SELECT id FROM rating_list WHERE list_date = '{day}'")
        list_id = cur.fetchone()[0]
        cur.close()
        pairs = _sides(games)
        synthetic.write_rows(
            raw,
            dialect,
            f"{prefix}list_entry",
            synthetic.ENTRY_COLUMNS,
            (
                (list_id, p[0], e[1], 0, e[2], e[8], None, e[3], e[4], e[5], e[6], e[7], p[4])
                for p, e in zip(players[: rows["list_entry"]], _cycle(entries), strict=False)
            ),
        )
        first_sides: dict[int, tuple] = {}
        for side in pairs:
            first_sides.setdefault(side[0], side)
        synthetic.write_rows(
            raw,
            dialect,
            f"{prefix}calc_player",
            ("list_id", "player_id", "method", "ro", "k_base", "k", "n", "score_x100", "sum_dr_x100",
             "k_sum_dr_x100", "change", "new_rating"),
            (
                (list_id, pid, "change", 2000, 20, 20, 1, 50, 0, 0, 0, 2000)
                for pid in list(first_sides)[: rows["calc_player"]]
            ),
        )  # fmt: skip
        synthetic.write_rows(
            raw,
            dialect,
            f"{prefix}calc_list_event",
            ("list_id", "event_id", "ratings_list_id"),
            ((list_id, event_id, 2) for event_id, _start in events[: rows["calc_list_event"]]),
        )
        synthetic.write_rows(
            raw,
            dialect,
            f"{prefix}calc_game",
            ("list_id", "player_id", "game_id", "event_id", "kind", "opponent_id", "own_rating",
             "opponent_rating", "d", "pd_x100", "score_x100"),
            (
                (list_id, pid, game_id, event_id, "rated", opp, 2000, 2000, 0, 50, score)
                for pid, game_id, event_id, opp, score in pairs[: rows["calc_game"]]
            ),
        )  # fmt: skip
    return time.perf_counter() - started


def _sides(games: list[tuple]) -> list[tuple[int, int, int, int, int]]:
    score = {"1": 100, "=": 50, "0": 0}
    sides = []
    for game_id, event_id, white, black, wr, br in games:
        sides.append((white, game_id, event_id, black, score[wr]))
        sides.append((black, game_id, event_id, white, score[br]))
    return sides


def _cycle(items: list[tuple]) -> Iterator[tuple]:
    while True:
        yield from items


if __name__ == "__main__":
    main()
