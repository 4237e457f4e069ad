"""Start-up time of the commands a person types most: wall clock and import time, median of N runs.

    python bench/startup.py [--runs 10]

Runs each command N times in a fresh process (the installed `ratingdb` script next to this Python) and
prints, per command, the median wall-clock time, the median CPU time and the median import time that
`python -X importtime` reports (the sum of every module's own import time), and the five costliest
top-level imports of one run. `list --limit 10` runs on a demo database built first in a temporary
folder (`ratingdb demo`). Imports nothing from ratingdb: it measures the commands as a user starts them.

As a user starts them means with compiled bytecode: pip compiles every module when it installs a package,
and Python caches what it compiles on first import. A shell with PYTHONDONTWRITEBYTECODE set (such as
this project's shared machine) would compile ratingdb's sources again in every run, so the runs use a
bytecode cache of their own in the temporary folder (PYTHONPYCACHEPREFIX), filled by one run of each
command first. The columns "no bytecode" time the same runs without it, interleaved run by run.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"--help": 0.25, "calc": 0.30, "list": 0.50}
IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def commands(demo_url: str) -> list[tuple[str, list[str]]]:
    return [
        ("--help", ["--help"]),
        ("calc", ["calc", "2000", "--opponent", "1800", "--k", "20"]),
        ("list", ["--db", demo_url, "list", "--limit", "10"]),
    ]


def timed(script: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one run of the command.

    On a shared, loaded machine the wall clock includes waiting for a core; the CPU time does not.
    """
    start = time.perf_counter()
    process = subprocess.Popen([str(script), *args], stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"ratingdb {' '.join(args)} exited with {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def import_profile(args: list[str], env: dict[str, str]) -> tuple[float, list[tuple[float, str]]]:
    """Total import time in seconds and the top-level imports by cumulative time, for one run."""
    code = "import sys; from ratingdb.cli import main; sys.argv[0] = 'ratingdb'; main()"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    total_us = 0
    top: list[tuple[float, str]] = []
    for line in result.stderr.splitlines():
        found = IMPORT_LINE.match(line)
        if not found:
            continue
        own, cumulative, indent, name = found.groups()
        total_us += int(own)
        if len(indent) == 1:  # imported by the program itself, not by another module
            top.append((int(cumulative) / 1e6, name))
    return total_us / 1e6, sorted(top, reverse=True)[:5]


def bytecode_env(pycache: Path | None) -> dict[str, str]:
    """A wide, plain terminal (the same help text whatever runs the benchmark); bytecode cached in `pycache`,
    or never written nor read when it is None (ratingdb's own; the installed packages' is still read).
    bench/close_command.py runs its processes with it too."""
    env = {**os.environ, "COLUMNS": "100", "TERM": "dumb"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # the installed packages' own bytecode is still read
    else:
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    options = parser.parse_args()
    script = Path(sys.executable).with_name("ratingdb")
    with tempfile.TemporaryDirectory(prefix="ratingdb-startup-") as folder:
        demo_url = f"sqlite:///{folder}/demo.sqlite"
        subprocess.run([str(script), "demo", "--db", demo_url], check=True, stdout=subprocess.DEVNULL)
        cached, uncached = bytecode_env(Path(folder) / "pycache"), bytecode_env(None)
        load = os.getloadavg()[0]
        print(f"runs per command: {options.runs}; Python {sys.version.split()[0]}; load average {load:.2f}")
        print(
            "| command | wall clock s | CPU s | import time s | no bytecode: wall / CPU s | target (wall) "
            "| costliest imports, s |"
        )
        print("|---|---:|---:|---:|---:|---|---|")
        for label, args in commands(demo_url):
            timed(script, args, cached)  # compiles into the cache, as an installation does
            runs = [(timed(script, args, cached), timed(script, args, uncached)) for _ in range(options.runs)]
            wall = statistics.median(w for (w, _), _ in runs)
            cpu = statistics.median(c for (_, c), _ in runs)
            uncached_wall = statistics.median(w for _, (w, _) in runs)
            uncached_cpu = statistics.median(c for _, (_, c) in runs)
            profiles = [import_profile(args, cached) for _ in range(options.runs)]
            imports = statistics.median(total for total, _ in profiles)
            target = TARGETS[label]
            verdict = "✔" if wall <= target else "✘"
            costly = ", ".join(f"{name} {seconds:.3f}" for seconds, name in profiles[0][1])
            shown = " ".join(args).replace(demo_url, "DEMO")
            no_bytecode = f"{uncached_wall:.3f} / {uncached_cpu:.3f}"
            figures = f"{wall:.3f} | {cpu:.3f} | {imports:.3f} | {no_bytecode} | ≤ {target} s {verdict}"
            print(f"| `ratingdb {shown}` | {figures} | {costly} |")


if __name__ == "__main__":
    main()
