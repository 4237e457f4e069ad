"""Verify a bundle: every member's hash, then the list recomputed from the inputs against the published one.

`verify` reads nothing but the bundle: the rules of ratingdb.rating and the file readers. Each difference
is named by player, with the game or the input it traces to. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ratingdb.bundle.archive import Bundle, Tampered, tampered_members
from ratingdb.bundle.inputs import read_inputs, rows
from ratingdb.bundle.signing import SignatureCheck, check
from ratingdb.bundle.systems import KEYS, Row, Tables, recomputer

LIST_COLUMNS = ("player", "rating", "games", "k", "flag", "games_total", "reached_2400", "reached_2300")


@dataclass
class PlayerDifference:
    """One player whose published figures are not what the inputs give, and why (one line each)."""

    player: str
    name: str
    lines: list[str] = field(default_factory=list)


@dataclass
class Verification:
    """What `verify` found: tampered members, or the recomputation's differences (none: verified)."""

    manifest: dict[str, object]
    tampered: list[Tampered]
    signature: SignatureCheck  # unsigned, valid (by whom), invalid, or by another key than the one expected
    entries: int = 0
    record_rows: int = 0
    differences: list[PlayerDifference] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every member as the manifest says, the list as its inputs give it, no signature that fails."""
        return not self.tampered and not self.differences and self.signature.ok


def published_tables(bundle: Bundle, wanted: Tables) -> Tables:
    """The bundle's published members, row by row, keyed as the recomputation keys them."""
    found: Tables = {}
    for member in wanted:
        table: dict[tuple[str, ...], Row] = {}
        for row in rows(bundle, member):
            if member == "published/list.csv":
                key = row["fide_id"] or f"N{row['national_id']}"
                cells = (key, *(row[c] for c in LIST_COLUMNS[1:]))
            else:
                cells = tuple(row.values())
            table[cells[: KEYS[member]]] = cells
        found[member] = table
    return found


def _header(bundle: Bundle, member: str) -> list[str]:
    if member == "published/list.csv":
        return list(LIST_COLUMNS)
    first = bundle.text(member).split("\n", 1)[0]
    return first.split(",")


def verify(bundle: Bundle, public_key: str | None = None) -> Verification:
    """Check the signature (against `public_key`, base64, when given), every member's hash, and when all
    match, recompute the list and compare it with the published one."""
    result = Verification(bundle.manifest, tampered_members(bundle), check(bundle, public_key))
    if result.tampered:
        return result
    inputs = read_inputs(bundle)
    computed = recomputer(str(bundle.manifest["rating_system"]))(bundle, inputs)
    published = published_tables(bundle, computed)
    result.entries = len(published["published/list.csv"])
    result.record_rows = sum(len(t) for m, t in published.items() if "/calc-" in m)
    names = {k: e.name for k, e in inputs.published.items()}
    events = {e.number: e.name for e in inputs.events}
    by_player: dict[str, PlayerDifference] = {}
    for member in sorted(computed):
        header = _header(bundle, member)
        mine, theirs = computed[member], published[member]
        for key in sorted(set(mine) | set(theirs)):
            ours, given = mine.get(key), theirs.get(key)
            if ours == given:
                continue
            player = key[0]
            diff = by_player.setdefault(player, PlayerDifference(player, names.get(player, "")))
            diff.lines.append(_describe(member, header, key, given, ours, events))
    result.differences = [by_player[p] for p in sorted(by_player)]
    return result


def _where(member: str, key: tuple[str, ...], events: dict[int, str]) -> str:
    if member.endswith("calc-games.csv"):
        event = int(key[1])
        return (
            f"game of round {key[2]} in event {event} '{events.get(event, '?')}' "
            f"(inputs/events/{event:04d}.trf)"
        )
    return {
        "published/list.csv": "the published list",
        "published/list-state.csv": "the published list's state",
        "published/calc-players.csv": "the calculation record",
        "published/glicko2.csv": "the published Glicko-2 figures",
        "published/glicko.csv": "the published Glicko figures",
    }.get(member, member)


def _describe(
    member: str, header: list[str], key: tuple[str, ...], given: Row | None, ours: Row | None,
    events: dict[int, str],
) -> str:  # fmt: skip
    where = _where(member, key, events)
    if given is None:
        return f"{where}: the inputs give a row the bundle does not publish"
    if ours is None:
        return f"{where}: published, but the inputs give no such row"
    fields = [
        f"{name} published {a or '—'}, recomputed {b or '—'}"
        for name, a, b in zip(header, given, ours, strict=False)
        if a != b
    ]
    return f"{where}: {'; '.join(fields)}"


__all__ = ["PlayerDifference", "Verification", "verify"]
