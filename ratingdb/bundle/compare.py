"""Why two bundles of a list differ (`verify NEW --against OLD`): per player whose entry changed, the
inputs that differ — an event added, removed or replaced, a result corrected, a matching choice changed,
the rule set or the list in force changed. Pure: reads the two bundles only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ratingdb.bundle.archive import Bundle, sha256
from ratingdb.bundle.inputs import EventIn, Inputs, read_inputs, rows
from ratingdb.bundle.verify import LIST_COLUMNS

RESULT = {"1": "1", "=": "½", "0": "0"}


@dataclass
class ChangedPlayer:
    """A player whose entry differs between two versions of a list, and the inputs that explain it."""

    player: str
    name: str
    old: str  # the entry before and after, as "rating 2410, K 20, 7 games"
    new: str
    causes: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    """Two bundles of a list compared: whether the rule set changed, and each player whose entry changed."""

    rules_changed: bool
    players: list[ChangedPlayer]


def _entry(row: dict[str, str] | None) -> str:
    if row is None:
        return "not on the list"
    rating = row["rating"] or "unrated"
    return f"rating {rating}, K {row['k'] or '—'}, {row['games'] or 0} games"


def _published(bundle: Bundle) -> dict[str, dict[str, str]]:
    return {(r["fide_id"] or f"N{r['national_id']}"): r for r in rows(bundle, "published/list.csv")}


@dataclass(frozen=True)
class _Event:
    label: str
    sha: str
    choices: Any
    lines: dict[str, str]
    games: dict[tuple[int, str, str], tuple[str, str | None]]  # (round, white, black) → results


def _events(bundle: Bundle, inputs: Inputs) -> dict[tuple[str, str | None], _Event]:
    found = {}
    by_number: dict[int, EventIn] = {e.number: e for e in inputs.events}
    for name in sorted(n for n in bundle.members if n.startswith("inputs/events/") and n.endswith(".json")):
        about = bundle.json(name)
        event = by_number[int(about["event"])]
        label = about["name"] + (f" — {about['section']}" if about.get("section") else "")
        games = {
            (g.round, g.white, g.black): (g.white_result, g.black_result)
            for g in event.games
            if g.black is not None
        }
        found[(about["name"], about.get("section"))] = _Event(
            label, about["source_sha256"], about.get("import_choices"), about["lines"], games
        )
    return found


def _games_of(event: _Event, player: str) -> dict[tuple[int, str, str], str]:
    """The player's games in the event: (round, opponent, colour) → the player's result."""
    mine = {}
    for (rnd, white, black), (wr, br) in event.games.items():
        if white == player:
            mine[(rnd, black, "white")] = RESULT.get(wr, wr)
        elif black == player:
            mine[(rnd, white, "black")] = RESULT.get(br or "", br or "")
    return mine


def compare(new: Bundle, old: Bundle) -> Comparison:
    """The players whose entry differs between the two bundles' published lists, each with its causes."""
    new_inputs, old_inputs = read_inputs(new), read_inputs(old)
    new_list, old_list = _published(new), _published(old)
    new_events, old_events = _events(new, new_inputs), _events(old, old_inputs)
    rules_changed = sha256(new.members["rules.toml"]) != sha256(old.members["rules.toml"])
    history_new = (
        {(r["player"], *r.values()) for r in rows(new, "inputs/pool-history.csv")}
        if ("inputs/pool-history.csv" in new.members)
        else set()
    )
    history_old = (
        {(r["player"], *r.values()) for r in rows(old, "inputs/pool-history.csv")}
        if ("inputs/pool-history.csv" in old.members)
        else set()
    )
    changed = []
    for player in sorted(set(new_list) | set(old_list)):
        a, b = old_list.get(player), new_list.get(player)
        if a is not None and b is not None and all(a[c] == b[c] for c in LIST_COLUMNS[1:]):
            continue
        shown = (b or a or {}).get("name", "")
        entry = ChangedPlayer(player, shown, _entry(a), _entry(b))
        if rules_changed:
            entry.causes.append(f"rule set changed ({old.manifest['rule_set']} → {new.manifest['rule_set']})")
        was, now = old_inputs.in_force.get(player), new_inputs.in_force.get(player)
        if (was and was.rating) != (now and now.rating):
            entry.causes.append(
                "the list in force changed: rating "
                f"{was.rating if was else '—'} → {now.rating if now else '—'}"
            )
        for key in sorted(set(new_events) | set(old_events), key=lambda k: (k[0], k[1] or "")):
            before, after = old_events.get(key), new_events.get(key)
            mine_before = _games_of(before, player) if before else {}
            mine_after = _games_of(after, player) if after else {}
            if not mine_before and not mine_after:
                continue
            label = (after or before).label  # type: ignore[union-attr]
            if before is None:
                entry.causes.append(f"event added: {label} ({len(mine_after)} games)")
                continue
            if after is None:
                entry.causes.append(f"event removed: {label} ({len(mine_before)} games)")
                continue
            if before.sha != after.sha:
                entry.causes.append(f"event replaced: {label} (a corrected file)")
            if before.choices != after.choices:
                entry.causes.append(f"import choices changed: {label}")
            for game in sorted(set(mine_before) | set(mine_after)):
                rnd, opponent, colour = game
                r_old, r_new = mine_before.get(game), mine_after.get(game)
                if r_old == r_new:
                    continue
                who = f"round {rnd} against {opponent} ({colour})"
                if r_old is None:
                    entry.causes.append(f"game added: {label}, {who}: {r_new}")
                elif r_new is None:
                    entry.causes.append(f"game removed: {label}, {who}: was {r_old}")
                else:
                    entry.causes.append(f"result corrected: {label}, {who}: {r_old} → {r_new}")
        if {h for h in history_new if h[0] == player} != {h for h in history_old if h[0] == player}:
            entry.causes.append("the pool of earlier periods changed")
        if not entry.causes:
            entry.causes.append("no input of this player changed (the recomputation of both lists says why)")
        changed.append(entry)
    return Comparison(rules_changed, changed)
