"""A bundle's members read back as the rules' inputs: the list in force, the events' games, the other lists.

Through the file readers the importers use (ratingdb.formats: `read_list` for the CSV lists, `parse_trf`
for the tournament files) and the csv module for the bundle's own tables. Pure: no database.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ratingdb.bundle.archive import Bundle, BundleError
from ratingdb.formats import parse_trf, read_list
from ratingdb.rating import Period, RuleSet, parse_rule_set


def player_key(fide_id: int | None, national_id: str | None) -> str:
    """How a bundle names a player: the FIDE ID, else "N" and the national ID (docs/reference/bundle.md)."""
    return str(fide_id) if fide_id is not None else f"N{national_id}"


@dataclass(frozen=True)
class ListEntryIn:
    """One row of a bundled list (the CSV list and its state table together)."""

    player: str
    name: str
    birth_year: int | None
    sex: str | None
    rating: int | None
    games: int | None
    k: int | None
    flag: str | None
    games_total: int
    reached_2400: bool
    reached_2300: bool
    change: int | None
    last_active: str | None
    pool_from: str | None


@dataclass(frozen=True)
class GameIn:
    """A game of a bundled event as the TRF file gives it, its lines turned into players."""

    event: int
    round: int
    white: str
    black: str | None
    white_result: str
    black_result: str | None
    rated: bool


@dataclass(frozen=True)
class EventIn:
    number: int
    name: str
    start_date: dt.date
    ratings_list: str  # "in-force" or the name of a member of inputs/ratings/
    standard_list: str | None
    games: tuple[GameIn, ...]


@dataclass(frozen=True)
class Inputs:
    """What every rating system's recomputation starts from."""

    rating_type: str
    period: Period
    list_date: dt.date
    list_in_force_date: dt.date
    rules: RuleSet
    rules_of_new_list: RuleSet
    in_force: dict[str, ListEntryIn]
    published: dict[str, ListEntryIn]
    events: tuple[EventIn, ...]
    decisions: dict[str, Any]


def rows(bundle: Bundle, name: str) -> Iterator[dict[str, str]]:
    """The rows of a CSV member, as dictionaries of text."""
    if name not in bundle.members:
        raise BundleError(f"the bundle has no member {name}")
    yield from csv.DictReader(io.StringIO(bundle.text(name), newline=""))


def whole(text: str) -> int | None:
    return None if text == "" else int(text)


def _read_list(
    bundle: Bundle, list_member: str, state_member: str, rating_type: str
) -> dict[str, ListEntryIn]:
    state = {row["player"]: row for row in rows(bundle, state_member)}
    with tempfile.TemporaryDirectory(prefix="ratingdb-bundle-") as folder:
        path = Path(folder) / Path(list_member).name
        path.write_bytes(bundle.members[list_member])
        entries = {}
        for row in read_list(path, format="csv", rating_types=[rating_type], ahead=False):
            key = player_key(row.fide_id, row.national_id)
            r = row.ratings[rating_type]
            s = state.get(key, {})
            entries[key] = ListEntryIn(
                key, row.name, row.birth_year, row.sex, r.rating, r.games, r.k, row.flag, r.games_total or 0,
                bool(r.reached_2400), bool(r.reached_2300), whole(s.get("change", "")),
                s.get("last_active") or None, s.get("pool_from") or None,
            )  # fmt: skip
    return entries


def _published(bundle: Bundle) -> dict[str, ListEntryIn]:
    """The published list, for the details of players new to it (name, birth year, sex) and to compare:
    read as plain CSV rows (it is what is checked, not an input; the list in force goes through the
    importer's reader)."""
    state = {row["player"]: row for row in rows(bundle, "published/list-state.csv")}
    entries = {}
    for row in rows(bundle, "published/list.csv"):
        key = player_key(int(row["fide_id"]) if row["fide_id"] else None, row["national_id"] or None)
        s = state.get(key, {})
        entries[key] = ListEntryIn(
            key, row["name"], whole(row["birth_year"]), row["sex"] or None, whole(row["rating"]),
            whole(row["games"]), whole(row["k"]), row["flag"] or None, whole(row["games_total"]) or 0,
            row["reached_2400"] == "true", row["reached_2300"] == "true", whole(s.get("change", "")),
            s.get("last_active") or None, s.get("pool_from") or None,
        )  # fmt: skip
    return entries


def read_inputs(bundle: Bundle) -> Inputs:
    manifest = bundle.manifest
    rating_type = manifest["rating_type"]
    rules = parse_rule_set(bundle.text("rules.toml"), source="the bundle's rules.toml")
    new_list_rules = (
        parse_rule_set(bundle.text("rules-new-list.toml"), source="the bundle's rules-new-list.toml")
        if "rules-new-list.toml" in bundle.members
        else rules
    )
    events = []
    for name in sorted(n for n in bundle.members if n.startswith("inputs/events/") and n.endswith(".json")):
        about = bundle.json(name)
        trf_name = name[: -len(".json")] + ".trf"
        trf = parse_trf(trf_name, bundle.members[trf_name])
        lines = about["lines"]
        number = int(about["event"])
        games = tuple(
            GameIn(
                number,
                g.round,
                lines[str(g.white)],
                None if g.black is None else lines[str(g.black)],
                g.white_result,
                g.black_result,
                g.rated,
            )  # fmt: skip
            for g in sorted(trf.games, key=lambda g: g.round)
        )
        events.append(
            EventIn(
                number,
                about["name"],
                dt.date.fromisoformat(about["start_date"]),
                about["ratings_list"],
                about.get("standard_list"),
                games,
            )  # fmt: skip
        )
    events.sort(key=lambda e: e.number)
    return Inputs(
        rating_type=rating_type,
        period=Period.parse(manifest["period"]),
        list_date=dt.date.fromisoformat(manifest["list_date"]),
        list_in_force_date=dt.date.fromisoformat(manifest["list_in_force"]),
        rules=rules,
        rules_of_new_list=new_list_rules,
        in_force=_read_list(
            bundle, "inputs/list-in-force.csv", "inputs/list-in-force-state.csv", rating_type
        ),
        published=_published(bundle),
        events=tuple(events),
        decisions=bundle.json("inputs/decisions.json"),
    )


def ratings(bundle: Bundle, inputs: Inputs, ref: str | None) -> dict[str, int]:
    """The ratings of a list an event names: the list in force's, or a member of inputs/ratings/."""
    if ref is None:
        return {}
    if ref == "in-force":
        return {k: e.rating for k, e in inputs.in_force.items() if e.rating is not None}
    return {row["player"]: int(row["rating"]) for row in rows(bundle, f"inputs/ratings/{ref}.csv")}
