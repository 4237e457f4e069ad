"""Benchmark of live ratings (issue 28) at national: the whole live list, one player's, in each front end.

    python bench/live.py --db URL [--runs 5] [--players 20] [--only list,cli,api,page] [--profile FILE]

`--db` is the national federation as bench/serve.py builds it (20,000 players, 24 closed periods; built into
the database when it holds none, as serve.py does — give a copy of the shared one, not the shared one).
The first run writes one more month of events and games (October's, moved on: bench/synthetic.py's
FollowingMonths) for the period after the newest list, which is left open; later runs find them and write
nothing. The live list is then the list in force plus that open period's 77 events (10,005 games), computed
by the close itself in a savepoint that is rolled back (ratingdb.reports.live). Then, each figure a
median of `--runs` (wall clock and CPU seconds of this process; on PostgreSQL also the server backend's
CPU, read from /proc, beside it):

- **list**: `live_list(session, "standard")` in this process, in a transaction that is rolled back, as
  `ratingdb live` and the web app call it: the list in force read, the open period closed in a savepoint
  (the close's whole work, its writes included), the new list and every player's calculation read back as
  plain values, the savepoint rolled back. The engine and its first connection are made before the clock.
  Target ≤ 1.5 s.
- **cli**: `ratingdb live FIDE_ID` and `ratingdb live --all --format csv` (every player of the list, on
  stdout, thrown away) as a user runs them, process start to exit (bytecode cached, as an installed package
  has it; bench/startup.py): start-up, the engine, the live list (the whole of it: the CLI has no cache),
  the output.
- **api** and **page**: `GET /api/v1/players/FIDE_ID/live` and `GET /players/KEY.html` (the player page,
  which shows the live rating) of the app in this process (ratingdb.web.create_app, an in-process client:
  no network, no server process). *first*: the first live request of a new data version — a request of
  another page has already made the app, its engines and the site's index for this version, so the first
  figure is the live list (computed once, for this request) plus the request; made with a new app each run.
  *kept*: the next requests, for `--players` other players who played in the open period, with the live
  list kept by the app (it is kept until the data changes); the page cache is emptied before each page
  request, so each page is rendered. Target for one player ≤ 20 ms.

Players are drawn at random (seed 28) from those with games in the open period. The last line printed is
one JSON object. Figures only: nothing is asserted. Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from close_command import _timed  # noqa: E402
from common import load_average, say  # noqa: E402
from publish import build_year  # noqa: E402
from serve import built, cpu_s  # noqa: E402
from startup import bytecode_env  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.rating import Period  # noqa: E402
from ratingdb.reports.live import LiveList, live_list  # noqa: E402
from ratingdb.site.publish import player_key  # noqa: E402

RATINGDB = Path(sys.executable).with_name("ratingdb")
TARGETS = {"list_s": 1.5, "player_ms": 20.0}
MONTHS = 24  # bench/serve.py's federation


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a copy of bench/serve.py's federation (built if empty)")
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each figure (medians)")
    parser.add_argument("--players", type=int, default=20, help="players asked for after the first request")
    parser.add_argument("--only", help="comma-separated figures: list,cli,api,page")
    parser.add_argument("--profile", help="write a cProfile of one live_list to this file")
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args(argv)
    url = args.db
    federation = built(url, MONTHS) or build_year(url, MONTHS)
    open_period = add_open_period(url)
    chosen = args.only.split(",") if args.only else ["list", "cli", "api", "page"]
    players = open_players(url, open_period, args.players + 1, args.seed)
    figures: dict[str, Any] = {"open_period": str(open_period), "load_before": load_average()}
    if "list" in chosen:
        figures["list"] = time_list(url, args.runs, args.profile)
    if "cli" in chosen:
        figures["cli"] = time_cli(url, args.runs, players[0][1])
    for kind in ("api", "page"):
        if kind in chosen:
            figures[kind] = time_requests(url, kind, args.runs, players)
    figures["load_after"] = load_average()
    figures["targets"] = TARGETS
    backend = make_url(url).get_backend_name()
    print(json.dumps({"scale": "national", "engine": backend} | federation | figures))


def add_open_period(url: str) -> Period:
    """The period after the newest standard list, with the template month's events and games written into
    it when it has none (October 2025's, moved on): an open period with a month of events."""
    with _engine(url) as engine, engine.begin() as conn:
        newest = conn.execute(
            text(
                "SELECT MAX(list_date) FROM rating_list WHERE rating_type = 'standard' "
                "AND withdrawn_by IS NULL"
            )
        ).scalar_one()
        period = Period.of(dt_date(newest))
        found = conn.execute(
            text("SELECT COUNT(*) FROM event WHERE period = :p"), {"p": str(period)}
        ).scalar_one()
        if found:
            say(f"open period {period}: {found} events already imported")
            return period
        template = synthetic.PERIOD
        events = conn.execute(
            text(f"SELECT {', '.join(synthetic.EVENT_COLUMNS)} FROM event WHERE period = :p ORDER BY id"),
            {"p": template},
        ).all()
        games = conn.execute(
            text(
                f"SELECT {', '.join('g.' + c for c in synthetic.GAME_COLUMNS)} FROM game g "
                "JOIN event e ON e.id = g.event_id WHERE e.period = :p ORDER BY g.id"
            ),
            {"p": template},
        ).all()
        next_event = conn.execute(text("SELECT MAX(id) FROM event")).scalar_one() + 1
        next_game = conn.execute(text("SELECT MAX(id) FROM game")).scalar_one() + 1
        start = Period.parse(template)
        months = (period.year - start.year) * 12 + period.month - start.month
        synthetic.FollowingMonths(list(events), list(games), next_event, next_game).write(conn, months)
    say(f"open period {period}: wrote {len(events)} events and {len(games)} games")
    return period


@contextmanager
def _engine(url: str) -> Iterator[Engine]:
    engine = db.make_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


def dt_date(value: Any) -> Any:
    import datetime as dt

    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


def open_players(url: str, period: Period, count: int, seed: int) -> list[tuple[int, str, str]]:
    """`count` players (id, FIDE ID, page key) drawn at random from those who played in `period`."""
    with _engine(url) as engine, engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT DISTINCT p.id, p.fide_id, p.national_id FROM player p JOIN game g "
                "ON p.id IN (g.white_id, g.black_id) JOIN event e ON e.id = g.event_id "
                "WHERE e.period = :p AND p.fide_id IS NOT NULL "
                "AND p.id IN (SELECT player_id FROM list_entry) ORDER BY p.id"
            ),
            {"p": str(period)},
        ).all()
    picked = random.Random(seed).sample(rows, count)
    return [(r.id, str(r.fide_id), player_key(r)) for r in picked]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Backends:
    """The CPU seconds of the PostgreSQL backends serving `engine`'s connections (the server runs on this
    machine; /proc/PID/stat of each backend, found with pg_backend_pid). Zero on other engines."""

    def __init__(self, engine: Engine) -> None:
        self.pids: set[int] = set()
        if engine.dialect.name != "postgresql":
            return
        from sqlalchemy import event

        @event.listens_for(engine, "connect")
        def remember(dbapi_connection: Any, _: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("SELECT pg_backend_pid()")
            self.pids.add(int(cursor.fetchone()[0]))
            cursor.close()

    def cpu(self) -> float:
        total = 0.0
        for pid in self.pids:
            try:
                total += cpu_s(pid)
            except OSError:
                pass  # the backend ended (a connection closed): its time is no longer counted
        return total


@contextmanager
def clock(figures: list[dict[str, float]], backends: Backends | None = None) -> Iterator[None]:
    wall, own = time.perf_counter(), cpu()
    server = backends.cpu() if backends else 0.0
    yield
    run = {"wall_s": time.perf_counter() - wall, "cpu_s": cpu() - own}
    if backends and backends.pids:
        run["server_cpu_s"] = backends.cpu() - server
    run["load"] = load_average()
    figures.append(run)


def medians(runs: list[dict[str, float]], scale: float = 1.0, unit: str = "s") -> dict[str, Any]:
    keys = [k for k in runs[0] if k != "load"]
    out: dict[str, Any] = {
        k.replace("_s", f"_{unit}"): round(statistics.median(r[k] for r in runs) * scale, 3) for k in keys
    }
    out["runs"] = [
        {(k if k == "load" else k.replace("_s", f"_{unit}")): round(v * (1 if k == "load" else scale), 3)
         for k, v in r.items()}
        for r in runs
    ]  # fmt: skip
    return out


def time_list(url: str, runs: int, profile: str | None) -> dict[str, Any]:
    times: list[dict[str, float]] = []
    live: LiveList | None = None
    with _engine(url) as engine:
        backends = Backends(engine)
        with engine.connect():
            pass  # the first connection (and its backend) before the clock
        for index in range(runs + 1):  # the first run warms the caches (SQLAlchemy's compiled statements)
            profiler = cProfile.Profile() if profile and index == 1 else None
            with db.session_factory(engine)() as session:
                session.begin()
                try:
                    with clock(times, backends):
                        if profiler:
                            profiler.enable()
                        live = live_list(session, "standard")
                        if profiler:
                            profiler.disable()
                finally:
                    session.rollback()
            if profiler:
                profiler.dump_stats(profile)
            say(f"live list run {index}{' (warm-up)' if index == 0 else ''}: {_shown(times[-1])}")
    assert live is not None
    changed = sum(1 for e in live.entries if e.games)
    figures = medians(times[1:])
    figures |= {"warm_up": {k: round(v, 3) for k, v in times[0].items()}}
    figures |= {"entries": len(live.entries), "players_with_games": changed, "events": len(live.events)}
    return figures


def _shown(run: dict[str, float]) -> str:
    server = f", server {run['server_cpu_s']:.3f} s CPU" if "server_cpu_s" in run else ""
    return f"{run['wall_s']:.3f} s wall, {run['cpu_s']:.3f} s CPU{server}, load {run['load']}"


def time_cli(url: str, runs: int, fide_id: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ratingdb-bench-live-") as folder:
        env = bytecode_env(Path(folder) / "pycache")
        commands = {
            "player": [str(RATINGDB), "--db", url, "live", fide_id],
            "all": [str(RATINGDB), "--db", url, "live", "--all", "--format", "csv"],
        }
        _timed(commands["player"], env)  # fills the bytecode cache, as an installation does
        times: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
        for index in range(runs):  # ABAB: the two commands alternate
            for name, command in commands.items():
                run = _timed(command, env)
                times[name].append({"wall_s": run.wall, "cpu_s": run.cpu, "load": run.load})
                say(f"cli {name} run {index + 1}: {_shown(times[name][-1])}")
    return {name: medians(t) for name, t in times.items()}


def time_requests(url: str, kind: str, runs: int, players: list[tuple[int, str, str]]) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from ratingdb.web.app import create_app
    from ratingdb.web.state import WebSettings

    def path(player: tuple[int, str, str]) -> str:
        return f"/api/v1/players/{player[1]}/live" if kind == "api" else f"/players/{player[2]}.html"

    first: list[dict[str, float]] = []
    kept: list[dict[str, float]] = []
    for index in range(runs):
        app = create_app(WebSettings(url=url))
        state = app.state.ratingdb
        backends = Backends(state.database.live)
        with TestClient(app) as client:
            # Another page first: the app, its reader, the site's index for this data version.
            get(client, f"/api/v1/players/{players[-1][1]}" if kind == "api" else "/index.html")
            with clock(first, backends):
                get(client, path(players[0]))
            say(f"{kind} first live request, run {index + 1}: {_shown(first[-1])}")
            for player in players[1:]:
                if kind == "page":
                    state.pages.items.clear()
                with clock(kept, backends):
                    get(client, path(player))
        state.database.dispose()
    say(f"{kind} kept: {_shown({k: statistics.median(r[k] for r in kept) for k in kept[0]})} (medians)")
    return {"first": medians(first, 1000, "ms"), "kept": medians(kept, 1000, "ms") | {"runs": len(kept)}}


def get(client: Any, address: str) -> None:
    response = client.get(address)
    if response.status_code != 200:
        raise SystemExit(f"{address}: {response.status_code} {response.text[:200]}")


if __name__ == "__main__":
    main()
