"""What one served request costs, counted rather than timed: CPU ms and SQL statements per request.

    python bench/serve_requests.py --db URL [--requests 200] [--only SCENARIO,...] [--warm]
                                   [--profile SCENARIO --profile-out FILE] [--memory] [--no-pre-ping]

The scenarios of bench/serve.py (a player's JSON, a player's page, a list page of 100, a search), drawn
the same way, but asked one after another of the app in this process through an in-process client, so
that each request can be counted: the process's CPU time (user + system) and the statements sent on the
app's engines. On a loaded machine the wall clock says little, and these two figures say what a request
costs whatever the load. Each scenario's figures are per request, less the client's own cost (a request
for a static file, measured the same way, is taken off the CPU figure). By default each request is made
as if it were the first for its page (the app's page cache is emptied before it): what a visitor to one of
20,000 players meets; `--warm` keeps the cache; `--no-pre-ping` turns off the reader pool's ping of a
connection at each check-out (PostgreSQL, MySQL), to measure it. `--memory` prints what the app holds
after the scenarios (tracemalloc: the largest allocations by line and by the cache they are held for);
every run prints how full the app's caches are. `--db` is a federation bench/serve.py built.
Figures only: nothing is asserted. The last line printed is one JSON object.
Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve import scenarios  # noqa: E402

from ratingdb.web.app import create_app  # noqa: E402
from ratingdb.web.state import WebSettings  # noqa: E402


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def memory_held(snapshot: tracemalloc.Snapshot, top: int = 12) -> dict[str, Any]:
    """What the traced memory is, by the line of ratingdb that allocated it (the innermost frame in
    ratingdb) and by the app's cache it was made for (the innermost frame in ratingdb/web/state.py, or
    the page function a cached page came from), in MB."""
    by_line: dict[str, int] = {}
    by_cache: dict[str, int] = {}
    total = 0
    for trace in snapshot.traces:
        total += trace.size
        frames = list(trace.traceback)  # oldest first
        ours = [f for f in frames if "/ratingdb/" in f.filename]
        line = f"{ours[-1].filename.split('/ratingdb/')[-1]}:{ours[-1].lineno}" if ours else "(not ratingdb)"
        by_line[line] = by_line.get(line, 0) + trace.size
        held = [f for f in ours if f.filename.endswith("web/state.py")]
        cache = f"state.py:{held[-1].lineno}" if held else "(no cache)"
        by_cache[cache] = by_cache.get(cache, 0) + trace.size

    def biggest(sizes: dict[str, int]) -> dict[str, float]:
        return {k: round(v / 2**20, 1) for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])[:top]}

    return {"traced_mb": round(total / 2**20, 1), "by_line": biggest(by_line), "by_cache": biggest(by_cache)}


def cache_sizes(state: Any) -> dict[str, Any]:
    """How many entries each of the app's caches holds (and the pages' bytes)."""
    pages = list(state.pages.items.values())
    return {
        "pages": len(pages),
        "page_mb": round(sum(len(p) for p in pages if isinstance(p, bytes)) / 2**20, 1),
        "lines": len(state.lines.items),
        "rankings": len(state.rankings.items),
        "sites": len(state.sites.items),
        "lives": len(state.lives.items),
    }


def main(argv: list[str] | None = None) -> None:
    from fastapi.testclient import TestClient

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a federation built by bench/serve.py")
    parser.add_argument("--requests", type=int, default=200, help="per scenario")
    parser.add_argument("--only", help="comma-separated scenarios (player_json,player_page,list_page,search)")
    parser.add_argument("--warm", action="store_true", help="keep the app's page cache between requests")
    parser.add_argument("--profile", help="the scenario to run under cProfile")
    parser.add_argument("--profile-out", default="serve.prof", help="where its profile is written")
    parser.add_argument("--memory", action="store_true", help="tracemalloc: what the app holds after")
    parser.add_argument(
        "--no-pre-ping", action="store_true", help="the reader's pool without its ping at each check-out"
    )
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args(argv)
    if args.memory:
        tracemalloc.start(40)
    paths = scenarios(args.db, args.seed)
    app = create_app(WebSettings(url=args.db))
    state = app.state.ratingdb
    if args.no_pre_ping:  # to measure what the ping costs (engines/base.py turns it on for the servers)
        state.database.reader.pool._pre_ping = False
    statements = 0

    def count(*_: Any) -> None:
        nonlocal statements
        statements += 1

    event.listen(state.database.reader, "before_cursor_execute", count)
    event.listen(state.database.live, "before_cursor_execute", count)
    figures: dict[str, Any] = {}
    with TestClient(app) as client:

        def run(path: Callable[[], str], n: int) -> tuple[float, float, int]:
            nonlocal statements
            cpu_total = 0.0
            wall_total = 0.0
            statements_before = statements
            for _ in range(n):
                url = path()
                if not args.warm:
                    state.pages.items.clear()
                began_cpu, began = cpu(), time.perf_counter()
                response = client.get(url)
                cpu_total += cpu() - began_cpu
                wall_total += time.perf_counter() - began
                if response.status_code != 200:
                    raise SystemExit(f"{url}: {response.status_code} {response.text[:200]}")
            return cpu_total * 1000 / n, wall_total * 1000 / n, (statements - statements_before)

        def static() -> str:
            return "/static/site.css"

        run(static, 50)
        overhead, _, _ = run(static, 200)
        figures["client_cpu_ms"] = round(overhead, 2)
        chosen = args.only.split(",") if args.only else list(paths)
        for name in chosen:
            run(paths[name], 5)  # warm-up: the site's index, the lives, imports
            profiler = cProfile.Profile() if name == args.profile else None
            if profiler is not None:
                profiler.enable()
            cpu_ms, wall_ms, sent = run(paths[name], args.requests)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(args.profile_out)
            figures[name] = {
                "cpu_ms": round(cpu_ms - overhead, 2),
                "wall_ms": round(wall_ms, 2),
                "statements": round(sent / args.requests, 2),
            }
            print(f"{name}: {figures[name]}", file=sys.stderr)
    if args.memory:
        figures["memory"] = memory_held(tracemalloc.take_snapshot())
    figures["caches"] = cache_sizes(state)
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmRSS", "VmHWM")):
                name, value = line.split(":")
                figures[name] = round(int(value.split()[0]) / 1024, 1)
    state.database.dispose()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
