"""Benchmark of `player find` on a big register (issue 24: at most 50 ms a search on 1 M players).

    python bench/find_players.py [--players 1000000] [--engine sqlite|postgresql] [--url URL] [--keep FILE]

Registers the players through the real write path (ratingdb.services.players.register_players: player
rows, version 1 of each, the name-token index) with names drawn from a seeded generator (tens of
thousands of surnames, a few thousand first names, some accented) and another spelling (an alias) for
one player in a hundred, then times typical searches with `search_players` (what `player find` runs:
IDs, names with typos, accents and word order forgiven, aliases searched too) and, for comparison,
the prefix-only `find_players`: each the best of three runs in a new session, by the
wall clock and by the process's CPU time (on a shared machine the second is the one to compare; SQLite
works inside the process). The last line printed is one JSON object with the figures. Imports ratingdb;
nothing in ratingdb imports this.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_PG_URL, database, say  # noqa: E402
from sqlalchemy import insert  # noqa: E402

from ratingdb import db  # noqa: E402
from ratingdb.names import name_key  # noqa: E402
from ratingdb.schema.models import PlayerAlias  # noqa: E402
from ratingdb.services.bulk import Driver  # noqa: E402
from ratingdb.services.players import Details, find_players, register_players, search_players  # noqa: E402
from ratingdb.services.versions import record_change  # noqa: E402

SYLLABLES = ("ka", "mi", "lo", "ber", "an", "tor", "vic", "sen", "ol", "dur", "ré", "ni", "gan", "ström",
             "wal", "sh", "ey", "mur", "phy", "ko", "ski", "ng", "ye", "čić", "son", "ma", "rt")  # fmt: skip
FEDERATIONS = ("IRL", "ENG", "FRA", "GER", "ESP", "ITA", "NED", "BEL", "POL", "IND", "USA", "RUS", "CHN")
BATCH = 50_000


def word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--url", default=DEFAULT_PG_URL, help="PostgreSQL server for the bench database")
    parser.add_argument(
        "--keep",
        metavar="FILE",
        help="SQLite: the register in FILE, built there if FILE does not exist, searched as it is if it does",
    )
    args = parser.parse_args(argv)
    if args.keep:
        figures = run(
            f"sqlite:///{Path(args.keep).resolve()}", args.players, build=not Path(args.keep).exists()
        )
        print(json.dumps({"engine": "sqlite", "players": args.players} | figures))
        return
    with database(args.engine, args.url) as url:
        figures = run(url, args.players)
    print(json.dumps({"engine": args.engine, "players": args.players} | figures))


def run(url: str, count: int, build: bool = True) -> dict[str, Any]:
    rng = random.Random(20261130)
    surnames = sorted({word(rng, rng.randint(2, 4)) for _ in range(60_000)})
    first_names = sorted({word(rng, rng.randint(1, 3)) for _ in range(4_000)})
    engine = db.make_engine(url)
    if build:
        register_s, aliases = build_register(engine, rng, surnames, first_names, count)
    else:
        register_s, aliases = 0.0, count // 100
    with engine.connect() as conn:
        aliased = conn.exec_driver_sql(
            f"SELECT name FROM player_alias WHERE player_id = {1 + 100 * (aliases // 2)}"
        ).scalar()
    alias_name = aliased or "Zzyzzx, Q"
    return search_all(engine, count, register_s, aliases, alias_name)


def build_register(
    engine: Any, rng: random.Random, surnames: list[str], first_names: list[str], count: int
) -> tuple[float, int]:
    db.upgrade(engine)
    started = time.perf_counter()
    with db.transaction(engine) as session:
        audit_id = record_change(session, "bench", "players for the find benchmark").id
        driver = Driver(session)
        try:
            for start in range(0, count, BATCH):
                details = [
                    Details(
                        name=f"{rng.choice(surnames)}, {rng.choice(first_names)}",
                        federation=FEDERATIONS[i % len(FEDERATIONS)],
                        birth_year=rng.randint(1940, 2018),
                        fide_id=10_000_000 + i,
                    )
                    for i in range(start, min(count, start + BATCH))
                ]
                register_players(driver, details, audit_id)
                say(f"registered {min(count, start + BATCH):,}")
        finally:
            driver.restore()
    register_s = time.perf_counter() - started
    # One player in a hundred has another spelling on record (`player find` searches aliases too).
    aliases = count // 100
    with db.transaction(engine) as session:
        audit_id = record_change(session, "bench", "aliases for the find benchmark").id
        rows = []
        for pid in range(1, aliases * 100 + 1, 100):
            alias = f"{rng.choice(surnames)}, {rng.choice(first_names)}"
            rows.append(
                {"player_id": pid, "name": alias, "name_key": name_key(alias), "created_by": audit_id}
            )
        for start in range(0, len(rows), BATCH):
            session.execute(insert(PlayerAlias), rows[start : start + BATCH])
    # In a transaction of its own, committed: on PostgreSQL the statistics ANALYZE gathers are rolled back
    # with the transaction they were gathered in (an uncommitted one left the planner without any, and
    # the searches of the register took seconds: bench/RESULTS.md, issue 47).
    with engine.begin() as conn:
        conn.exec_driver_sql("ANALYZE")
    return register_s, aliases


def search_all(engine: Any, count: int, register_s: float, aliases: int, alias_name: str) -> dict[str, Any]:
    with engine.connect() as conn:  # a registered player's name, so the full-name searches find someone
        registered = conn.exec_driver_sql(f"SELECT name FROM player WHERE id = {count // 3}").scalar_one()
    surname, first = (part.strip() for part in registered.split(","))
    typo = surname[:3] + surname[4:] if len(surname) > 5 else surname + "e"  # a letter dropped after the 3rd
    swapped = first + " " + surname[:-2] + surname[-1] + surname[-2]  # the last two letters swapped
    # Issue 47: a transliteration (v written w, or w written v, as Kowalenko for Kovalenko).
    other = {"v": "w", "w": "v"}
    spelt = "".join(other.get(c, c) for c in surname.lower())
    queries = {
        "surname": (surname, {}),
        "surname, letter dropped": (typo, {}),
        "first last, letters swapped": (swapped, {}),
        "first last": (f"{first} {surname}", {}),
        "last, first": (f"{surname}, {first}", {}),
        "surname prefix (4 letters)": (surname[:4], {}),
        "surname, federation": (surname, {"federation": "IRL"}),
        "surname, born": (surname, {"born": 1990}),
        "FIDE ID": (str(10_000_000 + count // 2), {}),
        "an alias, first last": (" ".join(reversed([w.strip() for w in alias_name.split(",")])), {}),
        "surname, w/v swapped": (spelt, {}),
        "first last, last unknown": (f"{first} Zzyzzx", {}),
        "no match": ("Zzyzzx", {}),
    }
    figures: dict[str, Any] = {"register_s": round(register_s, 1), "aliases": aliases}
    for name, search in (("search", search_players), ("prefix", find_players)):
        timings: dict[str, float] = {}
        cpu: dict[str, float] = {}
        found: dict[str, int] = {}
        for label, (text, options) in queries.items():
            best = cpu_best = float("inf")
            for _ in range(3):
                with db.transaction(engine) as session:
                    t, c = time.perf_counter(), time.process_time()
                    result = search(session, text, **options)  # type: ignore[operator]
                    best = min(best, time.perf_counter() - t)
                    cpu_best = min(cpu_best, time.process_time() - c)
            timings[label] = round(best, 4)
            cpu[label] = round(cpu_best, 4)
            found[label] = len(result)
            say(
                f"{name:6} {label:28} {text!r:40} {len(result):3} found in {best * 1000:.1f} ms "
                f"({cpu_best * 1000:.1f} ms of CPU)"
            )
        figures[f"{name}_s"] = timings
        figures[f"{name}_cpu_s"] = cpu
        figures[f"{name}_found"] = found
    engine.dispose()
    return figures


if __name__ == "__main__":
    main()
