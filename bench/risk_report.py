"""Benchmark of the integrity screen (`report risk --period P`) against the close of the same period.

    python bench/risk_report.py --scale national|large|fide --engine sqlite|postgresql|mysql [--url URL]

Builds a synthetic federation (bench/synthetic.py) in a new database, then, each in a fresh process (so
its time and peak memory are its own): the screen of every event of the period
(ratingdb.services.integrity.screen_events, what `report risk` runs), and the real close of the period.
Issue 50's target: the screen takes at most a quarter of the close's time. The last line printed is one
JSON object with the figures. Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import ENGINES, SERVER_HELP, database, load_average, peak_rss_mb, say  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.rating import Period  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(synthetic.SCALES), default="national")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    parser.add_argument("--only", choices=("screen", "close"), help=argparse.SUPPRESS)  # the child
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.only:
        _child(args.only, args.db)
        return
    scale = synthetic.SCALES[args.scale]
    load_before = load_average()
    with database(args.engine, args.url) as url:
        engine = db.make_engine(url)
        db.upgrade(engine)
        started = time.perf_counter()
        fed = synthetic.build(engine, scale)
        engine.dispose()
        built = time.perf_counter() - started
        say(f"built {scale.name}: {fed.events} events, {fed.played_games} games in {built:.1f} s")
        screen = _run("screen", url)
        say(f"screen: {screen['seconds']:.2f} s, peak {screen['peak_rss_mb']:.0f} MB, {screen['levels']}")
        close = _run("close", url)
        say(f"close: {close['seconds']:.2f} s, peak {close['peak_rss_mb']:.0f} MB")
    print(
        json.dumps(
            {
                "scale": scale.name,
                "engine": args.engine,
                "events": fed.events,
                "games": fed.played_games,
                "screen_s": round(screen["seconds"], 3),
                "close_s": round(close["seconds"], 3),
                "ratio": round(screen["seconds"] / close["seconds"], 3),
                "screen_peak_rss_mb": round(screen["peak_rss_mb"], 1),
                "levels": screen["levels"],
                "load_before": load_before,
                "load_after": load_average(),
            }
        )
    )


def _run(what: str, url: str) -> dict:
    child = subprocess.run(
        [sys.executable, __file__, "--only", what, "--db", url], check=True, stdout=subprocess.PIPE, text=True
    )
    return json.loads(child.stdout.strip().splitlines()[-1])


def _child(what: str, url: str) -> None:
    from ratingdb.services.close import close_period
    from ratingdb.services.integrity import screen_events

    engine = db.make_engine(url)
    period = Period.parse(synthetic.PERIOD)
    levels: dict[str, int] = {}
    started = time.perf_counter()
    with db.transaction(engine, dry_run=what == "screen") as session:
        if what == "screen":
            levels = screen_events(session, "standard", period=period).counts()
        else:
            close_period(session, period, "standard")
    seconds = time.perf_counter() - started
    engine.dispose()
    print(json.dumps({"seconds": seconds, "peak_rss_mb": peak_rss_mb(), "levels": levels}))


if __name__ == "__main__":
    main()
