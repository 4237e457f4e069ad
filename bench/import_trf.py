"""Benchmark of `import-trf`: parse a set of TRF files and import them in one transaction.

    python bench/import_trf.py [--games 10000] [--engine sqlite|postgresql|mysql] [--url URL]

Writes synthetic Swiss events as TRF16 files (ratingdb.formats.write_trf16) into a temporary folder,
with 80 % of their players already registered (matched by FIDE ID) and the rest new, then times
reading + `parse_trf` + `import_events` as the CLI runs them (with what the imports made frozen, as
the CLI's process has it). The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import hashlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402
from common import ENGINES, SERVER_HELP, database, peak_rss_mb, say  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.formats import TrfEvent, TrfGame, TrfPlayer, parse_trf, write_trf16  # noqa: E402
from ratingdb.names import name_key  # noqa: E402
from ratingdb.services.choices import ImportChoices  # noqa: E402
from ratingdb.services.events import import_events  # noqa: E402

TARGET_GAMES_PER_S = 20_000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="played games in all files together")
    parser.add_argument("--engine", choices=ENGINES, default="sqlite")
    parser.add_argument("--url", help=SERVER_HELP)
    args = parser.parse_args(argv)
    rng = random.Random(8)
    with (
        tempfile.TemporaryDirectory(prefix="ratingdb-bench-trf-") as folder,
        database(args.engine, args.url) as url,
    ):
        files, played, fide_ids = write_files(Path(folder), args.games, rng)
        say(f"wrote {len(files)} TRF files with {played} played games")
        engine = db.make_engine(url)
        db.upgrade(engine)
        known = [fide_id for fide_id in fide_ids if rng.random() < 0.8]
        with engine.begin() as conn:
            synthetic.register(
                conn.connection.driver_connection,
                engine.dialect.name,
                [
                    (
                        pid,
                        fide_id,
                        name(fide_id),
                        "IRL",
                        "M",
                        None,
                        born(fide_id),
                        name_key(name(fide_id)),
                        pid,
                    )
                    for pid, fide_id in enumerate(known, start=1)
                ],  # fmt: skip
            )
            synthetic.move_sequences(conn, ("player", "player_version", "audit_log"))
        # What the imports and the set-up made is out of the cycle collector's sight, as in the CLI's
        # process (ratingdb.cli.collector freezes it after the command's imports).
        gc.freeze()
        started = time.perf_counter()
        cpu_started = time.process_time()
        parsed = [parse_trf(path.name, path.read_bytes()) for path in files]
        parse_s = time.perf_counter() - started
        with db.transaction(engine) as session:
            summary = import_events(session, parsed, ImportChoices(rating_type="standard"))
        total_s = time.perf_counter() - started
        cpu_s = time.process_time() - cpu_started
        engine.dispose()
    figures = {
        "engine": args.engine,
        "files": len(files),
        "games": played,
        "game_rows": sum(e.games for e in summary.events),
        "new_players": len(summary.new_players),
        "parse_s": round(parse_s, 3),
        "import_s": round(total_s - parse_s, 3),
        "total_s": round(total_s, 3),
        "games_per_s": round(played / total_s),
        # CPU of this process for parse and import (the database server's own work aside): comparable
        # under load, where the wall clock is not.
        "cpu_s": round(cpu_s, 3),
        "target_games_per_s": TARGET_GAMES_PER_S,
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
    print(json.dumps(figures))


# A player's name and birth year are the same in every file and in the register: the import matches a
# registered player by FIDE ID, name and birth year, and refuses the import (asking) when they disagree.
# Names are letters only, one syllable per digit of the FIDE ID (the name matcher ignores digits).
SYLLABLES = ("ka", "mi", "lo", "ber", "an", "tor", "vic", "sen", "ol", "dur")


def name(fide_id: int) -> str:
    return "Player, " + "".join(SYLLABLES[int(digit)] for digit in str(fide_id)).capitalize()


def born(fide_id: int) -> int:
    return 1950 + fide_id % 66


def write_files(folder: Path, games: int, rng: random.Random) -> tuple[list[Path], int, list[int]]:
    """Swiss events of 20–60 players and 7–9 rounds until `games` games are played; 2 % forfeits, byes."""
    files: list[Path] = []
    fide_ids: set[int] = set()
    played = 0
    while played < games:
        number = len(files) + 1
        size, rounds = rng.randint(20, 60), rng.randint(7, 9)
        start = dt.date(2025, 10, rng.randint(1, 20))
        ids = rng.sample(range(1_000_000, 1_200_000), size)
        fide_ids.update(ids)
        players = []
        for rank, fide_id in enumerate(ids, start=1):
            rating = rng.randint(1400, 2500)
            rng.randint(1950, 2015)  # the birth year drawn before born() was: the files stay as they were
            players.append(
                TrfPlayer(rank, 0, name(fide_id), "M", None, rating, "IRL", fide_id, None, None,
                          born(fide_id), None)
            )  # fmt: skip
        round_games: list[TrfGame] = []
        for rnd in range(1, rounds + 1):
            order = list(range(1, size + 1))
            rng.shuffle(order)
            for board in range(0, size - 1, 2):
                white, black = order[board], order[board + 1]
                if rng.random() < 0.02:
                    round_games.append(TrfGame(rnd, None, white, black, "+", "-", False))
                    continue
                w, b = rng.choice((("1", "0"), ("=", "="), ("0", "1")))
                round_games.append(TrfGame(rnd, None, white, black, w, b, True))
                played += 1
            if size % 2:
                round_games.append(TrfGame(rnd, None, order[-1], None, "U", None, False))
        event = TrfEvent(
            source_name=f"bench-{number}.trf",
            sha256=hashlib.sha256(str(number).encode()).hexdigest(),
            version=16,
            name=f"Bench open {number}",
            city="Benchtown",
            federation="IRL",
            start_date=start,
            end_date=start + dt.timedelta(days=rounds // 2),
            time_control="90+30",
            encoded_time_control=None,
            rating_type="standard",
            rounds=rounds,
            round_dates=(None,) * rounds,
            players=tuple(players),
            games=tuple(round_games),
        )
        path = folder / event.source_name
        path.write_text(write_trf16(event), encoding="utf-8")
        files.append(path)
    return files, played, sorted(fide_ids)


if __name__ == "__main__":
    main()
