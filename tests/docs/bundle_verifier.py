"""An independent verifier of a small Elo list bundle, written from docs/reference/bundle.md alone.

It imports the standard library only (tests/docs/test_bundle_page.py holds it to that): the zip, the
manifest's hashes, the CSV members, the TRF16 player lines (FIDE's TRF16: the start rank in columns 5–8,
each round's cell of ten columns from column 92: opponent's rank, colour, result) and the TOML rule set,
then the page's "Recomputing an Elo list" for rated players (steps 1, 2 and 4; a bundle with a pooled
player is refused). What it returns is compared with the bundle's published members by the test.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import tomllib
import zipfile
from decimal import ROUND_HALF_UP, Decimal

# Table 8.1.2 as the page prints it: |D| up to → PD of the higher-rated player, in hundredths.
BOUNDS = [3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162, 170,
          179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374, 391, 411,
          432, 456, 484, 517, 559, 619, 735]  # fmt: skip
PLAYED = {"1": 100, "=": 50, "0": 0, "W": 100, "D": 50, "L": 0}


def pd(d: int) -> int:
    higher = next((50 + i for i, bound in enumerate(BOUNDS) if abs(d) <= bound), 100)
    return higher if d >= 0 else 100 - higher


def rows(members: dict[str, bytes], name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(members[name].decode("utf-8"), newline="")))


def key(row: dict[str, str]) -> str:
    return row["fide_id"] or "N" + row["national_id"]


def read(data: bytes) -> tuple[dict[str, object], dict[str, bytes], list[str]]:
    """The manifest, the members, and the names of members whose SHA-256 is not the manifest's."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    manifest = json.loads(members.pop("manifest.json"))
    members.pop("manifest.sig.json", None)
    listed: dict[str, str] = manifest["members"]
    bad = sorted(
        n
        for n in set(listed) | set(members)
        if hashlib.sha256(members.get(n, b"")).hexdigest() != listed.get(n)
    )
    return manifest, members, bad


def trf_games(text: str) -> list[tuple[int, int, int, str, str]]:
    """(round, white rank, black rank, white's result, black's result) of every game played over the board."""
    cells: dict[int, dict[int, tuple[int, str, str]]] = {}
    for line in text.splitlines():
        if not line.startswith("001"):
            continue
        rank = int(line[4:8])
        cells[rank] = {}
        for n, start in enumerate(range(91, len(line), 10), 1):
            cell = line[start : start + 10].ljust(10)
            opponent = cell[0:4].strip()
            if opponent and opponent != "0000":
                cells[rank][n] = (int(opponent), cell[5], cell[7])
    games = []
    for rank, rounds in cells.items():
        for n, (opponent, colour, result) in rounds.items():
            theirs = cells[opponent][n]
            if colour == "w" and result in PLAYED and theirs[2] in PLAYED:
                games.append((n, rank, opponent, result, theirs[2]))
    return sorted(games)


def k_of(rules: list[dict[str, object]], entry: dict[str, str], year: int, rating: int) -> int:
    reached = {
        2400: entry["reached_2400"] == "true" or rating >= 2400,
        2300: entry["reached_2300"] == "true" or rating >= 2300,
    }
    for rule in rules:
        if "reached" in rule and not reached[int(rule["reached"])]:  # type: ignore[call-overload]
            continue
        if "unless_reached" in rule and reached[int(rule["unless_reached"])]:  # type: ignore[call-overload]
            continue
        if "junior_max_age" in rule and not (
            entry["birth_year"] and year - int(entry["birth_year"]) <= int(rule["junior_max_age"])  # type: ignore[call-overload]
        ):
            continue
        if "fewer_games_than" in rule and not int(entry["games_total"]) < int(rule["fewer_games_than"]):  # type: ignore[call-overload]
            continue
        return int(rule["value"])  # type: ignore[call-overload]
    raise ValueError("no K rule matched")


def recompute(data: bytes) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The new list (player → rating, games, K, flag) and the record (player → Ro, K, n, Σ, K × Σ, change)."""
    manifest, members, bad = read(data)
    if bad:
        raise ValueError(f"members altered: {bad}")
    rules = tomllib.loads(members["rules.toml"].decode())
    new_rules = tomllib.loads(members.get("rules-new-list.toml", members["rules.toml"]).decode())
    in_force = {key(r): r for r in rows(members, "inputs/list-in-force.csv")}
    state = {r["player"]: r for r in rows(members, "inputs/list-in-force-state.csv")}
    sides: dict[str, list[tuple[int, int, int]]] = {}  # player → (own, opponent, score)
    for name in sorted(n for n in members if n.startswith("inputs/events/") and n.endswith(".json")):
        event = json.loads(members[name])
        assert event["ratings_list"] == "in-force" and "standard_list" not in event, "a small bundle only"
        lines = event["lines"]
        for _round, white, black, white_result, black_result in trf_games(
            members[name[:-5] + ".trf"].decode()
        ):
            w, b = lines[str(white)], lines[str(black)]
            rw, rb = in_force[w]["rating"], in_force[b]["rating"]
            assert rw and rb, "a pooled player: not in this small verifier"
            sides.setdefault(w, []).append((int(rw), int(rb), PLAYED[white_result]))
            sides.setdefault(b, []).append((int(rb), int(rw), PLAYED[black_result]))
    cap = rules["cap"]
    record, changed = {}, {}
    for player, games in sorted(sides.items()):
        entry = in_force[player]
        ro, k = int(entry["rating"]), int(entry["k"])
        total = 0
        for own, opponent, score in games:
            d = own - opponent
            if cap["difference"] != "none" and (cap["exempt_from"] == "none" or own < cap["exempt_from"]):
                d = max(-cap["difference"], min(cap["difference"], d))
            total += score - pd(d)
        n = len(games)
        limit = rules["k"]["times_games_max"]
        if limit != "none" and k * n > limit:
            k = limit // n
        change = int((Decimal(k * total) / 100).to_integral_value(rounding=ROUND_HALF_UP))  # half away from 0
        changed[player] = (ro + change, n)
        record[player] = (str(ro), str(k), str(n), str(total), str(k * total), str(change))
    list_date, period = str(manifest["list_date"]), str(manifest["period"])
    year, closed = int(list_date[:4]), int(period[:4]) * 12 + int(period[5:7])
    listed = {}
    for player, entry in in_force.items():
        rating, games = changed.get(player, (int(entry["rating"]), 0))
        last = period if games else state[player]["last_active"]
        active = bool(last) and 0 <= closed - (int(last[:4]) * 12 + int(last[5:7])) < 12
        woman = entry["sex"] == "F"
        flag = ("w" if active else "wi") if woman else ("" if active else "i")
        grown = dict(entry, games_total=str(int(entry["games_total"]) + games))
        listed[player] = (
            str(rating),
            str(games),
            str(k_of(new_rules["k"]["rule"], grown, year, rating)),
            flag,
        )
    return listed, record
