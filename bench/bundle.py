"""Benchmark of a list's bundle and its verification (issue 49) at a chosen scale.

    python bench/bundle.py --scale national|large|fide --engine sqlite|postgresql|mysql [--url URL]

Builds a synthetic federation (bench/synthetic.py) in a new database, gives its events their player
lines (the synthetic games name players, the bundle's TRF files need start ranks), closes the period with
the real `close_period`, then times, each in a fresh process, `list_bundle` of the new list (the zip
written to a file) and `verify` of that file (no database: read, hashes, recompute, compare). The last
line printed is one JSON object with the figures. Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import ENGINES, SERVER_HELP, database, load_average, peak_rss_mb, say, server  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.rating import Period  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(synthetic.SCALES), default="national")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    parser.add_argument("--child", nargs=2, metavar=("WHAT", "ARG"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return
    scale = synthetic.SCALES[args.scale]
    load_before = load_average()
    with server(args.engine, args.url, None) as server_url:
        with database(args.engine, server_url) as url, tempfile.TemporaryDirectory() as folder:
            figures = run(scale, url, Path(folder) / "bundle.zip")
    print(
        json.dumps(
            {"scale": scale.name, "engine": args.engine}
            | figures
            | {"load_before": load_before, "load_after": load_average()}
        )
    )


def _event_players(url: str) -> int:
    """Start ranks for every player of every synthetic event, in the order of their first game."""
    engine = db.make_engine(url)
    ranks: dict[int, dict[int, int]] = {}
    with engine.begin() as conn:
        for event_id, white, black in conn.execute(
            text("SELECT event_id, white_id, black_id FROM game ORDER BY id")
        ):
            players = ranks.setdefault(event_id, {})
            for p in (white, black):
                if p is not None and p not in players:
                    players[p] = len(players) + 1
        rows = [{"e": e, "r": r, "p": p} for e, players in ranks.items() for p, r in players.items()]
        conn.execute(
            text("INSERT INTO event_player (event_id, start_rank, player_id) VALUES (:e, :r, :p)"), rows
        )
    engine.dispose()
    return len(rows)


def run(scale: synthetic.Scale, url: str, path: Path) -> dict[str, Any]:
    engine = db.make_engine(url)
    db.upgrade(engine)
    started = time.perf_counter()
    fed = synthetic.build(engine, scale)
    engine.dispose()
    lines = _event_players(url)
    built = time.perf_counter() - started
    say(f"built {scale.name}: {fed.players} players, {fed.events} events ({lines} player lines)")
    say(f"  {fed.played_games} games in {built:.1f} s")
    close = _in_child("close", url)
    say(f"close: {close['seconds']:.2f} s (CPU {close['cpu_s']:.2f} s)")
    made = _in_child("bundle", f"{url} {path}")
    size = made["bytes"] / 2**20
    say(f"bundle: {made['seconds']:.2f} s (CPU {made['cpu_s']:.2f} s), {size:.1f} MB")
    checked = _in_child("verify", str(path))
    say(f"verify: {checked['seconds']:.2f} s (CPU {checked['cpu_s']:.2f} s), ok {checked['ok']}")
    return {
        "players": fed.players,
        "games": fed.played_games,
        "events": fed.events,
        "close_s": round(close["seconds"], 2),
        "close_cpu_s": round(close["cpu_s"], 2),
        "bundle_s": round(made["seconds"], 2),
        "bundle_cpu_s": round(made["cpu_s"], 2),
        "bundle_mb": round(made["bytes"] / 2**20, 1),
        "bundle_peak_rss_mb": round(made["peak_rss_mb"]),
        "verify_s": round(checked["seconds"], 2),
        "verify_cpu_s": round(checked["cpu_s"], 2),
        "verify_peak_rss_mb": round(checked["peak_rss_mb"]),
        "verified": checked["ok"],
        "entries": checked["entries"],
        "record_rows": checked["record_rows"],
    }


def _in_child(what: str, arg: str) -> dict[str, Any]:
    child = subprocess.run(
        [sys.executable, __file__, "--child", what, arg], check=True, stdout=subprocess.PIPE, text=True
    )
    return json.loads(child.stdout.strip().splitlines()[-1])


def _child(what: str, arg: str) -> None:
    """One step in this fresh process: its time and peak memory, as JSON."""
    figures: dict[str, Any] = {}
    started, cpu = time.perf_counter(), time.process_time()
    if what == "close":
        from ratingdb.services.close import close_period

        engine = db.make_engine(arg)
        with db.transaction(engine) as session:
            close_period(session, Period.parse(synthetic.PERIOD), "standard")
        engine.dispose()
    elif what == "bundle":
        from ratingdb.services.bundle import list_bundle

        url, path = arg.split(" ", 1)
        engine = db.make_engine(url)
        with db.read_transaction(engine) as session:
            made = list_bundle(session, "standard", Period.parse(synthetic.PERIOD).published_list_date)
        Path(path).write_bytes(made.data)
        engine.dispose()
        figures["bytes"] = len(made.data)
    else:
        from ratingdb.bundle.archive import read_bundle
        from ratingdb.bundle.verify import verify

        result = verify(read_bundle(Path(arg).read_bytes()))
        figures |= {"ok": result.ok, "entries": result.entries, "record_rows": result.record_rows}
        if not result.ok:
            say(
                f"NOT VERIFIED: {result.tampered} {[(d.player, d.lines[:2]) for d in result.differences[:5]]}"
            )
    figures |= {
        "seconds": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,  # the machine is shared: CPU time says what the wall time hides
        "peak_rss_mb": peak_rss_mb(),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
