"""Benchmark of `import-list`: stream a FIDE-size per-type text list into a new database.

    python bench/import_list.py [--lines 1900000] [--engine sqlite|postgresql|mysql] [--url URL]

Writes a synthetic standard list in FIDE's fixed-width text layout (ratingdb.formats.write_fide_txt)
into a temporary folder, then times `read_list` + `import_list` in one transaction as the CLI runs
them (with what the imports made frozen, as the CLI's process has it), sampling resident memory after
every batch to show that it stays flat. The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import random
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ENGINES, SERVER_HELP, current_rss_mb, database, peak_rss_mb, say  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.formats import ListRating, ListRow, read_list, write_fide_txt  # noqa: E402
from ratingdb.services.list_import import import_list  # noqa: E402

LIST_DATE = dt.date(2025, 11, 1)
TARGET_S = 60


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_900_000)
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory(prefix="ratingdb-bench-list-") as folder,
        database(args.engine, args.url) as url,
    ):
        path = Path(folder) / "standard_rating_list.txt"
        started = time.perf_counter()
        with path.open("w", encoding="utf-8") as out:
            write_fide_txt(rows(args.lines), out, "standard", LIST_DATE)
        say(
            f"wrote {args.lines} lines ({path.stat().st_size / 2**20:.0f} MiB) "
            f"in {time.perf_counter() - started:.1f} s"
        )
        engine = db.make_engine(url)
        db.upgrade(engine)
        samples: list[float] = []
        baseline = current_rss_mb()
        # What the imports and the set-up made is out of the cycle collector's sight, as in the CLI's
        # process (ratingdb.cli.collector freezes it after the command's imports).
        gc.freeze()
        started = time.perf_counter()
        cpu_started = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        with db.transaction(engine) as session:
            summary = import_list(
                session,
                read_list(path, rating_types=["standard"]),
                list_date=LIST_DATE,
                rating_types=["standard"],
                source=path.name,
                progress=lambda _done: samples.append(current_rss_mb()),
            )
        import_s = time.perf_counter() - started
        cpu_s = time.process_time() - cpu_started
        done = resource.getrusage(resource.RUSAGE_CHILDREN)
        reader_cpu_s = (done.ru_utime + done.ru_stime) - (children.ru_utime + children.ru_stime)
        engine.dispose()
    # Flat memory: after the first batches, resident memory stops growing with the number of lines.
    settled = samples[len(samples) // 10 :] or samples
    figures = {
        "engine": args.engine,
        "lines": args.lines,
        "entries": summary.entries["standard"],
        "rated": summary.rated["standard"],
        "new_players": summary.new_players,
        "import_s": round(import_s, 2),
        "lines_per_s": round(args.lines / import_s),
        # CPU of the importing process, and of the process that parsed the file ahead of it (0 when the
        # file was parsed in the importing process): on an idle machine with two cores, import_s is about
        # the larger of cpu_s and the database server's own work, no longer their sum.
        "cpu_s": round(cpu_s, 2),
        "reader_cpu_s": round(reader_cpu_s, 2),
        "target_s": TARGET_S,
        "rss_before_mb": round(baseline, 1),
        "rss_min_mb": round(min(settled), 1),
        "rss_max_mb": round(max(settled), 1),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
    print(json.dumps(figures))


def rows(lines: int) -> Iterator[ListRow]:
    """FIDE-like rows: about 60 % rated in standard, K by rating and age, women, juniors, inactive flags."""
    rng = random.Random(19)
    for line in range(2, lines + 2):
        birth_year = rng.randint(2007, 2018) if rng.random() < 0.25 else rng.randint(1930, 2006)
        female = rng.random() < 0.15
        rating = None
        k = None
        if rng.random() < 0.6:
            rating = min(2840, max(1400, int(rng.gauss(1650, 280))))
            k = 10 if rating >= 2400 else 40 if LIST_DATE.year - birth_year <= 18 else 20
        flag = rng.choice(("", "i", "i")) if rating else ""
        if female:
            flag = "wi" if flag == "i" else "w"
        yield ListRow(
            line=line,
            fide_id=1_000_000 + line,
            national_id=None,
            name=f"Player, Number {line}",
            federation="IRL",
            sex="F" if female else "M",
            title="GM" if rating and rating >= 2500 else None,
            birth_year=birth_year,
            flag=flag or None,
            ratings={"standard": ListRating(rating, rng.randint(0, 9) if rating else None, k)},
        )


if __name__ == "__main__":
    main()
