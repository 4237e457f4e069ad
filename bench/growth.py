"""Benchmark of growth: database size and lookup times as monthly closes pile up lists and records.

    python bench/growth.py [--scale large] [--closes 24] [--engine sqlite|postgresql|mysql] [--url URL]
                           [--pg-cluster tuned|default] [--runs 5] [--explain]

Builds a synthetic federation (bench/synthetic.py) in a new database, then closes `--closes` consecutive
monthly periods with the real close, each after writing that month's events and games (the synthetic
month again, dates moved on). After each close it reports the database's size (SQLite: the file and its
WAL; PostgreSQL: pg_database_size; MariaDB: data and indexes) and its growth, and times the lookups of
four commands on the newest and on the oldest computed list, through the same report and service functions
the commands call: `player show ID`, `list DATE --limit 100`, `calculation ID PERIOD` and
`report history ID`. Each time is the median of `--runs` runs of the queries alone (no start-up, no
rendering), measured twice: each run on a new connection, as a command has (connecting is not timed, but
a new PostgreSQL backend's catalogue lookups and SQLite's empty page cache are), and on one connection
already used (warm: the queries' own time). The player is the one
with the most games in the synthetic month, so on every list. With `--explain`, the plan of every query
of the two slowest commands' lookups after the last close is printed (SQLite EXPLAIN QUERY PLAN, PostgreSQL
EXPLAIN ANALYZE, MariaDB EXPLAIN), recorded as the report functions send them. The last line printed is
one JSON object.
Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import (  # noqa: E402
    ENGINES,
    PG_CLUSTER_HELP,
    SERVER_HELP,
    database,
    load_average,
    say,
    server,
    server_settings,
)

from ratingdb import db  # noqa: E402
from ratingdb.rating import Period  # noqa: E402
from ratingdb.reports.lists import calculation, find_list, find_player, list_lines, player_history  # noqa: E402
from ratingdb.services.close import close_period  # noqa: E402
from ratingdb.services.players import find_by_id, versions  # noqa: E402

RATING_TYPE = "standard"
LIST_LIMIT = 100  # `list DATE --limit 100`
TARGET_MS = 50.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(synthetic.SCALES), default="large")
    parser.add_argument("--closes", type=int, default=24, help="monthly periods closed (24: two years)")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    parser.add_argument("--pg-cluster", choices=("tuned", "default"), help=PG_CLUSTER_HELP)
    parser.add_argument("--runs", type=int, default=5, help="runs of each lookup; the median is reported")
    parser.add_argument("--explain", action="store_true", help="print the plans of the slowest two commands")
    args = parser.parse_args(argv)
    if args.closes < 1 or args.runs < 1:
        parser.error("--closes and --runs are at least 1")
    scale = synthetic.SCALES[args.scale]
    load_before = load_average()
    with server(args.engine, args.url, args.pg_cluster) as server_url:
        with database(args.engine, server_url) as url:
            rows = run(scale, url, args.closes, args.runs, explain=args.explain)
            settings = server_settings(url)
    say(markdown_table(rows))
    figures = {
        "scale": scale.name,
        "engine": args.engine,
        "pg_cluster": args.pg_cluster,
        "closes": args.closes,
        "runs": args.runs,
        "target_ms": TARGET_MS,
        "slowest_ms": max(ms for row in rows for ms in row["lookup_ms"].values()),
        "slowest_warm_ms": max(ms for row in rows for ms in row["lookup_warm_ms"].values()),
        "load_before": load_before,
        "load_after": load_average(),
        "pg_settings": settings,
        "per_close": rows,
    }
    print(json.dumps(figures))


def run(
    scale: synthetic.Scale, url: str, closes: int, runs: int, *, explain: bool = False
) -> list[dict[str, Any]]:
    """Build the federation, close `closes` months one after the other; one row of figures per close."""
    engine = db.make_engine(url)
    db.upgrade(engine)
    started = time.perf_counter()
    fed = synthetic.build(engine, scale)
    with engine.begin() as conn:
        following = synthetic.FollowingMonths.read(conn)
        ident = str(_busiest_player(conn))
    say(
        f"built {scale.name}: {fed.players} players, {fed.events} events and {fed.games} games a month "
        f"({time.perf_counter() - started:.1f} s); lookups of the player with FIDE ID {ident}"
    )
    first = Period.parse(synthetic.PERIOD)
    rows: list[dict[str, Any]] = []
    size_before = database_mb(engine)
    for month in range(closes):
        period = first.shift(month)
        started = time.perf_counter()
        if month:
            with engine.begin() as conn:
                following.write(conn, month)
        events_s = time.perf_counter() - started
        started = time.perf_counter()
        with db.transaction(engine) as session:
            summary = close_period(session, period, RATING_TYPE)
        close_s = time.perf_counter() - started
        assert not summary.already_closed
        if engine.dialect.name == "postgresql":
            # As autovacuum would soon after a close: fresh statistics for the planner.
            with engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
        size = database_mb(engine)
        lookups, warm = time_lookups(engine, ident, newest=period, oldest=first, runs=runs)
        rows.append(
            {
                "close": month + 1,
                "period": str(period),
                "size_mb": round(size, 1),
                "growth_mb": round(size - size_before, 1),
                "events_s": round(events_s, 2),
                "close_s": round(close_s, 2),
                "lookup_ms": lookups,
                "lookup_warm_ms": warm,
                "load": load_average(),
            }
        )
        size_before = size
        say(
            f"close {month + 1} ({period}): {close_s:.1f} s, {size:.0f} MB (+{rows[-1]['growth_mb']:.0f}); "
            + ", ".join(f"{name} {ms:.1f} ({warm[name]:.1f})" for name, ms in lookups.items())
            + f" ms; load {rows[-1]['load']}"
        )
    if explain:
        last = rows[-1]["lookup_ms"]
        lookups = _lookups(ident, newest=first.shift(closes - 1), oldest=first)
        # The two slowest commands (calculation on the newest and on the oldest list are one command).
        slowest: dict[str, str] = {}
        for name in sorted(last, key=last.__getitem__, reverse=True):
            slowest.setdefault(name.removesuffix("_newest").removesuffix("_oldest"), name)
        for name in list(slowest.values())[:2]:
            say(f"\n## {name}: {last[name]:.1f} ms\n")
            for statement, plan in plans(engine, lookups[name]):
                say(f"{statement}\n\n{plan}\n")
    engine.dispose()
    return rows


def _busiest_player(conn: Any) -> int:
    """The FIDE ID of the player with the most rated games in the synthetic month (played every month)."""
    return conn.execute(
        text(
            "SELECT p.fide_id FROM player p JOIN ("
            " SELECT white_id AS player_id FROM game WHERE rated = TRUE"
            " UNION ALL SELECT black_id FROM game WHERE rated = TRUE AND black_id IS NOT NULL"
            ") g ON g.player_id = p.id GROUP BY p.fide_id ORDER BY COUNT(*) DESC, p.fide_id LIMIT 1"
        )
    ).scalar_one()


def database_mb(engine: Engine) -> float:
    """The database's size on disk in MB (10^6 bytes)."""
    dialect = engine.dialect.name
    if dialect == "sqlite":
        # Closing the last connection checkpoints the WAL into the file (and removes it): the size is
        # then the data's, not that of the largest transaction since the WAL last restarted.
        engine.dispose()
        path = Path(make_url(engine.url).database or "")
        files = (path, path.with_name(path.name + "-wal"))
        return sum(f.stat().st_size for f in files if f.exists()) / 1e6
    with engine.connect() as conn:
        if dialect == "postgresql":
            size = conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
        else:  # InnoDB's own estimate of its data and index pages
            size = conn.execute(
                text(
                    "SELECT SUM(data_length + index_length) FROM information_schema.tables "
                    "WHERE table_schema = DATABASE()"
                )
            ).scalar_one()
    return int(size) / 1e6


# --- the lookups, as the commands make them (ratingdb/cli/players.py, lists.py, reports.py) --------------


def player_show(session: Session, ident: str) -> None:
    player = find_by_id(session, ident)
    player_history(session, player, None)
    versions(session, player.id)


def list_first(session: Session, list_date: Any) -> None:
    rating_list = find_list(session, RATING_TYPE, list_date)
    with contextlib.closing(list_lines(session, rating_list, rated_only=True, limit=LIST_LIMIT)) as entries:
        lines = list(entries)
    assert len(lines) == LIST_LIMIT


def player_calculation(session: Session, ident: str, period: Period) -> None:
    calc = calculation(session, find_player(session, ident), period, RATING_TYPE)
    assert calc.events, "the busiest player has games in every period"


def report_history(session: Session, ident: str) -> None:
    player_history(session, find_player(session, ident), None)


def time_lookups(
    engine: Engine, ident: str, *, newest: Period, oldest: Period, runs: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median milliseconds of each lookup on the newest and the oldest computed list: each run on a new
    connection (as a command runs), and again on one connection used before (the server's catalogue and
    SQLite's page cache warm), which leaves the queries' own time."""
    lookups = _lookups(ident, newest=newest, oldest=oldest)
    new = {name: round(median_ms(engine, lookup, runs, fresh=True), 2) for name, lookup in lookups.items()}
    warm = {name: round(median_ms(engine, lookup, runs, fresh=False), 2) for name, lookup in lookups.items()}
    return new, warm


def _lookups(ident: str, *, newest: Period, oldest: Period) -> dict[str, Callable[[Session], None]]:
    return {
        "player_show": lambda s: player_show(s, ident),
        "history": lambda s: report_history(s, ident),
        "list_newest": lambda s: list_first(s, newest.published_list_date),
        "list_oldest": lambda s: list_first(s, oldest.published_list_date),
        "calc_newest": lambda s: player_calculation(s, ident, newest),
        "calc_oldest": lambda s: player_calculation(s, ident, oldest),
    }


def median_ms(engine: Engine, lookup: Callable[[Session], None], runs: int, *, fresh: bool) -> float:
    times = []
    if not fresh:
        with db.transaction(engine) as session:
            lookup(session)  # once untimed, on the connection the timed runs reuse
    for _ in range(runs):
        if fresh:
            engine.dispose()  # a new connection, as each command opens: SQLite's page cache starts empty
        with db.transaction(engine) as session:
            session.connection()  # connect and BEGIN outside the timing
            started = time.perf_counter()
            lookup(session)
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def plans(engine: Engine, lookup: Callable[[Session], None]) -> list[tuple[str, str]]:
    """Each SELECT the lookup sends, with the engine's plan for it run with the same parameters."""
    sent: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        with db.transaction(engine) as session:
            lookup(session)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    dialect = engine.dialect.name
    prefix = {"sqlite": "EXPLAIN QUERY PLAN ", "postgresql": "EXPLAIN (ANALYZE, BUFFERS) "}.get(
        dialect, "EXPLAIN "
    )
    found = []
    with engine.connect() as conn:
        for statement, parameters in sent:
            if not statement.lstrip().upper().startswith("SELECT"):
                continue
            rows = conn.exec_driver_sql(prefix + statement, parameters).all()
            if dialect == "sqlite":  # (id, parent, notused, detail): indent each step under its parent
                depth = {0: -1}
                lines = []
                for step, parent, _, detail in rows:
                    depth[step] = depth.get(parent, -1) + 1
                    lines.append("  " * depth[step] + detail)
            elif dialect == "postgresql":
                lines = [row[0] for row in rows]
            else:
                lines = [" | ".join(str(v) for v in row) for row in rows]
            found.append((f"{statement}\n-- parameters: {parameters}", "\n".join(lines)))
    return found


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The figures of every close as a Markdown table (for bench/RESULTS.md)."""
    names = list(rows[0]["lookup_ms"])
    lines = [
        "| close | period | size MB | growth MB | close s | "
        + " | ".join(f"{n} ms, new / warm" for n in names)
        + " | load |",
        "|---:|---|---:|---:|---:|" + "---:|" * len(names) + "---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['close']} | {row['period']} | {row['size_mb']:,.1f} | {row['growth_mb']:,.1f} | "
            f"{row['close_s']:.1f} | "
            + " | ".join(f"{row['lookup_ms'][n]:.1f} / {row['lookup_warm_ms'][n]:.1f}" for n in names)
            + f" | {row['load']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
