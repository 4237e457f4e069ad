"""Benchmark of the whole `ratingdb close-period` command, start to exit, beside an in-memory baseline.

    python bench/close_command.py --scale national|large|fide --engine sqlite|postgresql|mysql [--url URL]
                                  [--runs N] [--no-bytecode]

Builds a synthetic federation (bench/synthetic.py) in a new database, writes the close's inputs to CSV
files, then times, in the same run:

- **command**: `ratingdb close-period 2025-10 --db URL` as a user runs it, from process start to exit
  (start-up, schema check, the close's transaction, the summary it prints). Every run closes the same
  database as built: on SQLite the file is copied back before each run; on the servers see below. The
  runs go through bench/timed_command.py, the console script's own two steps with a clock around the
  close's transaction, so each run also says how much of it was **outside the transaction** (start-up,
  imports, engine and schema check, the summary, the exit: what is not the close's work).
- **baseline** (bench/in_memory_close.py): a fresh Python process that reads the same inputs from the CSV
  files, rates every rated player with the rules library alone (`ratingdb.rating.batch`: K, the capped
  differences, the change, the floor, the activity flag) and writes the new list as CSV — what the in-memory
  engines do, with no database, no calculation record and no unrated pool (at `national` 2,000 of 20,000
  players are unrated; the command rates them too, and a rated player's game against a player who gets a
  first rating counts for the command but not for the baseline). The run prints how many of the players the
  baseline rated got the same new rating from the command (seen: 2,490 of 2,535 at `national`; the others
  played such games), so the baseline is known to do the close's work and no more.

Both run with compiled bytecode, as an installed package does (pip compiles every module when it installs;
bench/startup.py says why): a shell with PYTHONDONTWRITEBYTECODE set, such as this project's machine, would
otherwise compile ratingdb's sources again in every run (about 0.1–0.2 s of the command). The runs use a
bytecode cache of their own in the temporary folder (PYTHONPYCACHEPREFIX), filled by a dry run of the close
and a run of the baseline first; `--no-bytecode` times them as that shell would.

On PostgreSQL every run is a first close too: the built database is kept as a template and each run gets a
fresh copy of it (CREATE DATABASE … TEMPLATE). On MariaDB the runs after the first are corrections (the list
withdrawn with `ratingdb reopen`, then closed again: version 2, 3, …, with the comparison with the
withdrawn version that a correction prints), reported apart.

Each run's wall clock and CPU time (user + system of the process, from wait4; on a server the server's own
work is not in it) are printed with the load average: the machine may be shared. The ratio command /
baseline is the figure the speed issue asks for. The last line printed is one JSON object with the medians.
Figures, not timed tests: run it on an idle machine. Imports ratingdb; nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import ENGINES, SERVER_HELP, database, load_average, say, server  # noqa: E402
from startup import bytecode_env  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.backup import sqlite_path  # noqa: E402

RATINGDB = Path(sys.executable).with_name("ratingdb")
TIMED = Path(__file__).with_name("timed_command.py")  # the console script with a clock (its docstring)
IN_MEMORY = Path(__file__).with_name("in_memory_close.py")  # the baseline, a process of its own


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(synthetic.SCALES), default="national")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    parser.add_argument("--runs", type=int, default=3, help="repetitions of each (medians are reported)")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="compile ratingdb's sources in every run (no bytecode cache)",
    )
    args = parser.parse_args(argv)
    scale = synthetic.SCALES[args.scale]
    load_before = load_average()
    with server(args.engine, args.url, None) as server_url, database(args.engine, server_url) as url:
        figures = run(scale, url, args.runs, bytecode=not args.no_bytecode)
    print(
        json.dumps(
            {"scale": scale.name, "engine": args.engine}
            | figures
            | {"load_before": load_before, "load_after": load_average(), "cpus": os.cpu_count()}
        )
    )


def run(scale: synthetic.Scale, url: str, runs: int, *, bytecode: bool = True) -> dict[str, Any]:
    engine = db.make_engine(url)
    db.upgrade(engine)
    fed = synthetic.build(engine, scale)
    say(f"built {scale.name}: {fed.players} players, {fed.played_games} games played")
    with tempfile.TemporaryDirectory(prefix="ratingdb-bench-inputs-") as folder:
        inputs = Path(folder)
        export_inputs(engine, inputs)
        engine.dispose()
        env = bytecode_env(inputs / "pycache" if bytecode else None)
        baseline = [sys.executable, str(IN_MEMORY), str(inputs), synthetic.PERIOD, synthetic.LIST_DATE]
        if bytecode:  # compiles into the cache, as an installation does; a dry run writes nothing
            _timed([str(RATINGDB), "--db", url, "close-period", synthetic.PERIOD, "--dry-run"], env)
            _timed(baseline, env)
        clock = inputs / "transaction.json"
        command = [sys.executable, str(TIMED), str(clock), "--db", url, "close-period", synthetic.PERIOD]
        dry_command = [*command, "--dry-run"]
        with _fresh_copies(url) as fresh:
            first: list[Run] = []
            again: list[Run] = []
            outside: list[
                tuple[float, float]
            ] = []  # (wall, CPU) outside the close's transaction, first closes
            dry_first: list[Run] = []
            dry_again: list[Run] = []
            dry_outside: list[tuple[float, float]] = []
            for index in range(runs):
                corrected = fresh(index)
                before = fingerprint(url) if index == 0 else None
                dry = _timed(dry_command, env)
                dry_inside = json.loads(clock.read_text())
                if before is not None and fingerprint(url) != before:
                    raise SystemExit("the dry run left the database changed")
                (dry_again if corrected else dry_first).append(dry)
                if not corrected:
                    dry_outside.append((dry.wall - dry_inside["wall_s"], dry.cpu - dry_inside["cpu_s"]))
                say(
                    f"dry run {index + 1}{' (of a correction)' if corrected else ''}: {_shown(dry)}"
                    + ("; the database is as it was (every row and ID counter)" if before is not None else "")
                )
                figures = _timed(command, env)
                inside = json.loads(clock.read_text())
                (again if corrected else first).append(figures)
                if not corrected:
                    outside.append((figures.wall - inside["wall_s"], figures.cpu - inside["cpu_s"]))
                say(
                    f"command run {index + 1}{' (a correction)' if corrected else ''}: {_shown(figures)}; "
                    f"outside the close's transaction {figures.wall - inside['wall_s']:.3f} s wall, "
                    f"{figures.cpu - inside['cpu_s']:.3f} s CPU"
                )
            base: list[Run] = []
            for index in range(runs):
                base.append(_timed(baseline, env))
                say(f"baseline run {index + 1}: {_shown(base[-1])}")
            same, compared = agreement(url, inputs / "new-list.csv")
        say(f"baseline agrees with the published list on {same:,} of {compared:,} players who played")
    command_s, command_cpu_s = (statistics.median(getattr(r, f) for r in first) for f in ("wall", "cpu"))
    dry_s, dry_cpu_s = (statistics.median(getattr(r, f) for r in dry_first) for f in ("wall", "cpu"))
    baseline_s = statistics.median(r.wall for r in base)
    return {
        "players": fed.players,
        "games": fed.played_games,
        "bytecode": bytecode,
        **_report("command", first, outside, "outside_transaction"),
        "correction_runs": [r.shown() for r in again],
        **_report("dry_run", dry_first, dry_outside, "dry_run_outside_transaction"),
        "dry_run_correction_runs": [r.shown() for r in dry_again],
        "ratio_dry_run_to_command": round(dry_s / command_s, 2),
        "ratio_dry_run_to_command_cpu": round(dry_cpu_s / command_cpu_s, 2),
        "dry_run_leaves_database": True,  # checked above: the benchmark stops otherwise
        "baseline_s": round(baseline_s, 3),
        "baseline_cpu_s": round(statistics.median(r.cpu for r in base), 3),
        "baseline_runs": [r.shown() for r in base],
        "ratio_command_to_baseline": round(command_s / baseline_s, 2),
        "baseline_agrees": [same, compared],
    }


def _report(
    name: str, runs: list[Run], outside: list[tuple[float, float]], outside_name: str
) -> dict[str, Any]:
    """The medians of a command's runs (wall, CPU) and of their time outside the close's transaction."""
    return {
        f"{name}_s": round(statistics.median(r.wall for r in runs), 3),
        f"{name}_cpu_s": round(statistics.median(r.cpu for r in runs), 3),
        f"{name}_runs": [r.shown() for r in runs],
        f"{outside_name}_s": round(statistics.median(w for w, _ in outside), 3),
        f"{outside_name}_cpu_s": round(statistics.median(c for _, c in outside), 3),
    }


class Run(NamedTuple):
    """One process: wall clock and CPU seconds (user + system), and the load average as it ended."""

    wall: float
    cpu: float
    load: float

    def shown(self) -> dict[str, float]:
        return {"wall_s": round(self.wall, 3), "cpu_s": round(self.cpu, 3), "load": self.load}


def _shown(run: Run) -> str:
    return f"{run.wall:.2f} s wall, {run.cpu:.2f} s CPU, load {run.load}"


def _timed(command: list[str], env: dict[str, str]) -> Run:
    """Run `command` to its end with its output thrown away; a failure stops the benchmark."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} exited with {os.waitstatus_to_exitcode(status)}")
    return Run(wall, usage.ru_utime + usage.ru_stime, load_average())


@contextmanager
def _fresh_copies(url: str) -> Iterator[Callable[[int], bool]]:
    """Puts the database back as built before run `index`; returns whether that run is a correction.

    SQLite: the file is copied back. PostgreSQL: the database as built becomes a template and each run
    after the first gets a new copy of it. MariaDB: the list is withdrawn (`ratingdb reopen`), so the runs
    after the first are corrections.
    """
    parsed = make_url(url)
    sqlite_file = sqlite_path(url)
    if sqlite_file is not None:
        with tempfile.TemporaryDirectory(prefix="ratingdb-bench-pristine-") as folder:
            pristine = Path(folder) / "pristine.sqlite"
            shutil.copyfile(sqlite_file, pristine)

            def copy_back(index: int) -> bool:
                if index:
                    shutil.copyfile(pristine, sqlite_file)
                return False

            yield copy_back
        return
    if parsed.get_backend_name() != "postgresql":

        def reopen(index: int) -> bool:
            if index:
                subprocess.run(
                    [str(RATINGDB), "--db", url, "reopen", synthetic.PERIOD, "--reason", "benchmark run"],
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
            return bool(index)

        yield reopen
        return
    name = parsed.database
    assert name is not None
    admin = db.make_engine(parsed.set(database="postgres").render_as_string(hide_password=False),
                           isolation_level="AUTOCOMMIT")  # fmt: skip
    quoted, template = (admin.dialect.identifier_preparer.quote(n) for n in (name, f"{name}_pristine"))
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {template} TEMPLATE {quoted}"))

    def from_template(index: int) -> bool:
        if index:
            with admin.connect() as conn:
                conn.execute(text(f"DROP DATABASE {quoted} WITH (FORCE)"))
                conn.execute(text(f"CREATE DATABASE {quoted} TEMPLATE {template}"))
        return False

    try:
        yield from_template
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {template}"))
        admin.dispose()


def fingerprint(url: str) -> dict[str, Any]:
    """The whole database as one value to compare: each table's row count and a hash of its rows in
    primary-key order, and the ID counters a rollback would leave advanced (db.id_counters)."""
    engine = db.make_engine(url)
    try:
        found: dict[str, Any] = {"id counters": dict(db.id_counters(engine))}
        with engine.connect() as conn:
            inspector = inspect(conn)  # on the same connection: a second one would wait for its lock
            for table in sorted(inspector.get_table_names()):
                key = inspector.get_pk_constraint(table)["constrained_columns"]
                columns = key or [c["name"] for c in inspector.get_columns(table)]
                quote = engine.dialect.identifier_preparer.quote
                order = ", ".join(quote(c) for c in columns)
                digest = hashlib.sha256()
                rows = 0
                for row in conn.execute(text(f"SELECT * FROM {quote(table)} ORDER BY {order}")):
                    digest.update(repr(tuple(row)).encode())
                    rows += 1
                found[table] = (rows, digest.hexdigest())
        return found
    finally:
        engine.dispose()


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
