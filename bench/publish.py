"""Benchmark of `ratingdb publish` for a national federation: 20,000 players and a year of monthly lists.

    python bench/publish.py [--engine sqlite|postgresql] [--url URL] [--months 12] [--keep DIR]

Builds the synthetic `national` federation (bench/synthetic.py: the lists of 2025-09-01 and 2025-10-01
and the events of period 2025-10), repeats October's events in each following month (dates moved, new
ids) and closes every period with the real close, so the database holds a year of lists with their
calculation records. Then runs the real `ratingdb publish` in a fresh process into a new folder, again
into the same folder (nothing changed: nothing written), and reports wall and CPU times, file count
and size. The last line printed is one JSON object. Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import DEFAULT_PG_URL, database, say  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.rating import Period  # noqa: E402
from ratingdb.services.close import close_period  # noqa: E402

TARGET_S = 30.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--url", default=DEFAULT_PG_URL, help="PostgreSQL server for the bench database")
    parser.add_argument("--months", type=int, default=12, help="periods closed (12: a year of lists)")
    parser.add_argument("--keep", type=Path, help="publish into this folder and keep it (new or empty)")
    args = parser.parse_args(argv)
    with database(args.engine, args.url) as url:
        federation = build_year(url, args.months)
        if args.keep:
            figures = run(url, args.keep)
        else:
            with tempfile.TemporaryDirectory(prefix="ratingdb-site-") as folder:
                figures = run(url, Path(folder) / "site")
    print(json.dumps({"scale": "national", "engine": args.engine} | federation | figures))


def build_year(url: str, months: int) -> dict[str, Any]:
    """The national federation with `months` closed periods (2025-10 onward)."""
    engine = db.make_engine(url)
    db.upgrade(engine)
    started = time.perf_counter()
    fed = synthetic.build(engine, synthetic.SCALES["national"])
    first = Period.parse(synthetic.PERIOD)
    with engine.begin() as conn:
        following = synthetic.FollowingMonths.read(conn)
        for month in range(1, months):
            following.write(conn, month)
    say(
        f"built national: {fed.players} players, {months} periods of {fed.events} events "
        f"({time.perf_counter() - started:.1f} s)"
    )
    started = time.perf_counter()
    for month in range(months):
        with db.transaction(engine) as session:
            close_period(session, first.shift(month), "standard")
    say(f"closed {months} periods in {time.perf_counter() - started:.1f} s")
    with engine.connect() as conn:
        lists = conn.execute(text("SELECT COUNT(*) FROM rating_list")).scalar_one()
        entries = conn.execute(text("SELECT COUNT(*) FROM list_entry")).scalar_one()
        calc_games = conn.execute(text("SELECT COUNT(*) FROM calc_game")).scalar_one()
    engine.dispose()
    return {
        "players": fed.players,
        "lists": lists,
        "list_entries": entries,
        "events": fed.events * months,
        "calc_games": calc_games,
    }


def run(url: str, folder: Path) -> dict[str, Any]:
    """Publish twice into `folder` in fresh processes; the figures of both runs and of the site."""
    command = [str(Path(sys.executable).parent / "ratingdb"), "--db", url, "publish", str(folder)]
    figures: dict[str, Any] = {}
    for name in ("first", "again"):
        started, cpu = time.perf_counter(), _children_cpu()
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        figures[f"publish_{name}_s"] = round(time.perf_counter() - started, 2)
        # CPU seconds of the publish process: on a shared machine closer to an idle run's wall time.
        figures[f"publish_{name}_cpu_s"] = round(_children_cpu() - cpu, 2)
        say(
            f"publish ({name}): {figures[f'publish_{name}_s']:.1f} s, "
            f"{figures[f'publish_{name}_cpu_s']:.1f} s CPU — {done.stdout.strip()}"
        )
    files = [p for p in folder.rglob("*") if p.is_file()]
    figures["files"] = len(files)
    figures["site_mb"] = round(sum(p.stat().st_size for p in files) / 1_000_000, 1)
    figures["player_pages"] = sum(1 for _ in (folder / "players").iterdir())
    figures["target_s"] = TARGET_S
    figures["load_average"] = os.getloadavg()[0]
    return figures


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
