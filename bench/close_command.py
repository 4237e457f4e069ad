"""Benchmark of the whole `ratingdb close-period` command, start to exit, beside an in-memory baseline.

    python bench/close_command.py --scale national|large|fide --engine sqlite|postgresql|mysql [--url URL]
                                  [--runs N]

Builds a synthetic federation (bench/synthetic.py) in a new database, writes the close's inputs to CSV
files, then times, in the same run:

- **command**: `ratingdb close-period 2025-10 --db URL` as a user runs it, from process start to exit
  (start-up, schema check, the close's transaction, the summary it prints). Each run after the first
  closes a copy: on SQLite the database file is copied back before every run; on the servers the
  published list is withdrawn with `ratingdb reopen`, so later runs are corrections (version 2, 3, …) and
  include the comparison with the withdrawn version that a correction prints — reported apart.
- **baseline** (bench/in_memory_close.py): a fresh Python process that reads the same inputs from the CSV
  files, rates every rated player with the rules library alone (`ratingdb.rating.batch`: K, the capped
  differences, the change, the floor, the activity flag) and writes the new list as CSV — what the in-memory
  engines do, with no database, no calculation record and no unrated pool (at `national` 2,000 of 20,000
  players are unrated; the command rates them too, and a rated player's game against a player who gets a
  first rating counts for the command but not for the baseline). The run prints how many of the players the
  baseline rated got the same new rating from the command (seen: 2,490 of 2,535 at `national`; the others
  played such games), so the baseline is known to do the close's work and no more.

The ratio command / baseline is the figure the speed issue asks for. The last line printed is one JSON
object with the medians. Figures, not timed tests: run it on an idle machine. Imports ratingdb; nothing in
ratingdb imports this.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import ENGINES, SERVER_HELP, database, load_average, say, server  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.backup import sqlite_path  # noqa: E402

RATINGDB = Path(sys.executable).with_name("ratingdb")
IN_MEMORY = Path(__file__).with_name("in_memory_close.py")  # the baseline, a process of its own


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(synthetic.SCALES), default="national")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    parser.add_argument("--runs", type=int, default=3, help="repetitions of each (medians are reported)")
    args = parser.parse_args(argv)
    scale = synthetic.SCALES[args.scale]
    load_before = load_average()
    with server(args.engine, args.url, None) as server_url, database(args.engine, server_url) as url:
        figures = run(scale, url, args.runs)
    print(
        json.dumps(
            {"scale": scale.name, "engine": args.engine}
            | figures
            | {"load_before": load_before, "load_after": load_average(), "cpus": os.cpu_count()}
        )
    )


def run(scale: synthetic.Scale, url: str, runs: int) -> dict[str, Any]:
    engine = db.make_engine(url)
    db.upgrade(engine)
    fed = synthetic.build(engine, scale)
    say(f"built {scale.name}: {fed.players} players, {fed.played_games} games played")
    with tempfile.TemporaryDirectory(prefix="ratingdb-bench-inputs-") as folder:
        inputs = Path(folder)
        export_inputs(engine, inputs)
        engine.dispose()
        sqlite_file = sqlite_path(url)
        pristine = inputs / "pristine.sqlite"
        if sqlite_file is not None:
            shutil.copyfile(sqlite_file, pristine)
        first: list[float] = []
        again: list[float] = []
        for index in range(runs):
            if sqlite_file is not None:
                shutil.copyfile(pristine, sqlite_file)
            elif index:
                _ratingdb(url, "reopen", synthetic.PERIOD, "--reason", "benchmark run")
            seconds, out = _ratingdb(url, "close-period", synthetic.PERIOD)
            (first if sqlite_file is not None or not index else again).append(seconds)
            say(f"command run {index + 1}: {seconds:.2f} s — {out.splitlines()[0] if out else ''}")
        base: list[float] = []
        for index in range(runs):
            started = time.perf_counter()
            baseline = [sys.executable, str(IN_MEMORY), str(inputs), synthetic.PERIOD, synthetic.LIST_DATE]
            subprocess.run(baseline, check=True)
            base.append(time.perf_counter() - started)
            say(f"baseline run {index + 1}: {base[-1]:.2f} s")
        same, compared = agreement(url, inputs / "new-list.csv")
        say(f"baseline agrees with the published list on {same:,} of {compared:,} players who played")
    command_s = statistics.median(first)
    baseline_s = statistics.median(base)
    return {
        "players": fed.players,
        "games": fed.played_games,
        "command_s": round(command_s, 3),
        "command_runs_s": [round(s, 3) for s in first],
        "correction_runs_s": [round(s, 3) for s in again],
        "baseline_s": round(baseline_s, 3),
        "baseline_runs_s": [round(s, 3) for s in base],
        "ratio_command_to_baseline": round(command_s / baseline_s, 2),
        "baseline_agrees": [same, compared],
    }


def agreement(url: str, baseline_list: Path) -> tuple[int, int]:
    """How many of the players the baseline rated got the same new rating on the list the command
    published: the baseline must do the close's work, or its time means nothing."""
    engine = db.make_engine(url)
    with engine.connect() as conn:
        published = dict(
            conn.execute(
                text(
                    "SELECT e.player_id, e.rating FROM list_entry e JOIN rating_list l ON l.id = e.list_id "
                    "WHERE l.list_date = :day AND l.rating_type = 'standard' AND l.withdrawn_by IS NULL"
                ),
                {"day": "2025-11-01"},
            ).all()
        )
    engine.dispose()
    same = compared = 0
    with open(baseline_list, newline="") as source:
        for pid, new_rating, change, *_ in csv.reader(source):
            if change:
                compared += 1
                same += published.get(int(pid)) == (int(new_rating) if new_rating else None)
    return same, compared


def _ratingdb(url: str, *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([str(RATINGDB), "--db", url, *args], check=True, stdout=subprocess.PIPE, text=True)
    return time.perf_counter() - started, done.stdout


def export_inputs(engine: Any, folder: Path) -> None:
    """The close's inputs as the in-memory engines get them: the list in force with each player's facts,
    and the period's played games."""
    with engine.connect() as conn:
        entries = conn.execute(
            text(
                "SELECT e.player_id, e.rating, e.k, e.games_total, e.reached_2400, e.reached_2300, "
                "e.last_active, p.birth_year, p.sex FROM list_entry e JOIN player p ON p.id = e.player_id "
                "WHERE e.list_id = :id"
            ),
            {"id": synthetic.IN_FORCE_LIST_ID},
        ).all()
        games = conn.execute(
            text(
                "SELECT g.id, g.event_id, g.white_id, g.black_id, g.white_result, g.black_result "
                "FROM game g JOIN event e ON e.id = g.event_id WHERE e.period = :period "
                "AND g.rated = TRUE AND g.black_id IS NOT NULL"
            ),
            {"period": synthetic.PERIOD},
        ).all()
    for name, rows in (("entries.csv", entries), ("games.csv", games)):
        with open(folder / name, "w", newline="") as out:
            csv.writer(out).writerows(tuple(row) for row in rows)


if __name__ == "__main__":
    main()
