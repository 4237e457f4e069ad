"""A bundled Elo list recomputed by FIDE's rules (§7–§9), as the close computes it, from the bundle alone.

The same stages as the close (ratingdb/services/systems/elo.py), on the bundle's rows instead of the
database's: each rated game seen from both sides with the ratings of the list its event names (§3,
§8.2.4, rapid/blitz's standard rating), the change of every rated player (BatchRater, §8.3), the pool of
every unrated one (initial_rating, §8.2), then every entry of the new list with K and flag (§8.3.3, §9).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ratingdb.bundle.archive import Bundle
from ratingdb.bundle.inputs import Inputs, ListEntryIn, ratings, rows
from ratingdb.bundle.systems import Row, Tables, cells
from ratingdb.rating import (
    Adjustment,
    BatchRater,
    FlagCache,
    KCache,
    Period,
    PoolGame,
    adjust_rating,
    below_floor,
    excluded_by_difference,
    initial_rating,
)

SCORE = {"1": 100, "=": 50, "0": 0}
# One player's side of a game: (event, round, opponent, own rating used, opponent's rating used, score)
Side = tuple[int, int, str, int, int, int]
# An unrated player's result toward a pool: (event, round, opponent, opponent's rating, score)
PoolSide = tuple[int, int, str, int, int]


@dataclass
class _Period:
    """What the stages hand on: the sides, the entries, and the new state of who played."""

    inputs: Inputs
    entries: dict[str, ListEntryIn]
    rated: dict[str, list[Side]] = field(default_factory=lambda: defaultdict(list))
    pool: dict[str, list[PoolSide]] = field(default_factory=lambda: defaultdict(list))
    substitutes: dict[str, int] = field(default_factory=dict)
    new_state: dict[str, tuple[int | None, int, str | None]] = field(default_factory=dict)
    toward_total: dict[str, int] = field(default_factory=dict)
    calc_players: dict[tuple[str, ...], Row] = field(default_factory=dict)
    calc_games: dict[tuple[str, ...], Row] = field(default_factory=dict)


def recompute(bundle: Bundle, inputs: Inputs) -> Tables:
    state = _Period(inputs, dict(inputs.in_force))
    _sides(bundle, state)
    _rate_rated(state)
    _pool_unrated(bundle, state)
    listed, list_state = _write_list(state)
    return {
        "published/list.csv": listed,
        "published/list-state.csv": list_state,
        "published/calc-players.csv": state.calc_players,
        "published/calc-games.csv": state.calc_games,
    }


def _sides(bundle: Bundle, state: _Period) -> None:
    """Each rated game from both sides, with the ratings its event uses (services/systems/elo.py)."""
    inputs, rules = state.inputs, state.inputs.rules
    in_force = {k: e.rating for k, e in state.entries.items() if e.rating is not None}
    lists: dict[str, dict[str, int]] = {}

    def ratings_of(ref: str | None) -> dict[str, int]:
        if ref is None:
            return {}
        if ref not in lists:
            lists[ref] = ratings(bundle, inputs, ref)
        return lists[ref]

    excludes = rules.exclusion_difference is not None
    for event in inputs.events:
        start, standard = ratings_of(event.ratings_list), ratings_of(event.standard_list)
        for g in event.games:
            if not g.rated or g.black is None or g.black_result is None:
                continue
            white, black = g.white, g.black
            white_own, black_own = start.get(white), start.get(black)
            white_start = white_own if white_own is not None else standard.get(white)
            black_start = black_own if black_own is not None else standard.get(black)
            if (
                excludes
                and white_start is not None
                and black_start is not None
                and excluded_by_difference(white_start, black_start, rules)
            ):
                continue
            # §8.2.4: rated since the event started: the current rating for them, unrated for the opponents.
            white_now, black_now = in_force.get(white), in_force.get(black)
            if white_now is None and white_own is None and white_start is not None:
                white_now = state.substitutes.setdefault(white, white_start)
            if black_now is None and black_own is None and black_start is not None:
                black_now = state.substitutes.setdefault(black, black_start)
            for me, other, now, mine, theirs, result in (
                (white, black, white_now, white_start, black_start, g.white_result),
                (black, white, black_now, black_start, white_start, g.black_result),
            ):
                if theirs is None:
                    continue
                if now is None:
                    state.pool[me].append((event.number, g.round, other, theirs, SCORE[result]))
                else:
                    own = mine if mine is not None else now
                    state.rated[me].append((event.number, g.round, other, own, theirs, SCORE[result]))
    for key in sorted(set(state.pool) | set(state.substitutes)):
        if key not in state.entries:  # a newcomer: the details the published list shows
            shown = inputs.published.get(key)
            state.entries[key] = ListEntryIn(
                key, shown.name if shown else "", shown.birth_year if shown else None,
                shown.sex if shown else None, None, None, None, None, 0, False, False, None, None, None,
            )  # fmt: skip


def _rate_rated(state: _Period) -> None:
    """Each rated player's change (§8.3), with the floor (§7.2.1)."""
    inputs, rules = state.inputs, state.inputs.rules
    rater = BatchRater(rules)
    k_on = KCache(inputs.list_in_force_date, rules)
    next_period = str(inputs.period.shift(1))
    for key in sorted(state.rated):
        sides = state.rated[key]
        entry = state.entries[key]
        rating = entry.rating if entry.rating is not None else state.substitutes[key]
        k_base = entry.k
        if k_base is None:
            k_base = k_on(entry.reached_2400, entry.reached_2300, entry.birth_year, entry.games_total)
        change = rater.rate(rating, k_base, [(0, s[0], 0, s[3], s[4], s[5]) for s in sides])
        new_rating: int | None = change.new_rating
        pool_from = entry.pool_from
        if below_floor(change.new_rating, rules.floor):
            if rules.below_floor == "floor":
                new_rating = rules.floor
            else:
                new_rating, pool_from = None, next_period
        state.new_state[key] = (new_rating, change.n, pool_from)
        state.calc_players[(key,)] = cells(
            (key, "change", rating, k_base, change.k, change.n, change.score, change.sum_dr, change.k_sum_dr,
             change.change, None, None, None, change.new_rating)
        )  # fmt: skip
        for (event, rnd, opponent, own, theirs, score), d, pd in zip(
            sides, change.ds, change.pds, strict=True
        ):
            game = cells((key, event, rnd, opponent, "rated", own, theirs, d, pd, score))
            state.calc_games[game[:3]] = game


def _history(bundle: Bundle) -> dict[str, list[PoolGame]]:
    """The earlier pool games of the players pooled now (§7.1.4), from inputs/pool-history.csv."""
    history: dict[str, list[PoolGame]] = defaultdict(list)
    for row in rows(bundle, "inputs/pool-history.csv"):
        number = int(row["event"])
        history[row["player"]].append(
            PoolGame(
                int(row["opponent_rating"]),
                int(row["score_x100"]),
                Period.parse(row["period"]),
                number,
                (dt.date.fromisoformat(row["start_date"]), number),
            )  # fmt: skip
        )
    return history


def _pool_unrated(bundle: Bundle, state: _Period) -> None:
    """Each unrated player's pool (§8.2): a first rating, or the games kept toward one."""
    inputs, rules, period = state.inputs, state.inputs.rules, state.inputs.period
    starts = {e.number: e.start_date for e in inputs.events}
    history = _history(bundle) if state.pool else {}
    for key in sorted(state.pool):
        results = state.pool[key]
        entry = state.entries[key]
        now = [PoolGame(o, s, period, e, (starts[e], e)) for e, _r, _opp, o, s in results]
        before = [
            g for g in history.get(key, []) if entry.pool_from is None or str(g.period) >= entry.pool_from
        ]
        pooled = initial_rating(
            before + now,
            period,
            first_event_rule=entry.pool_from is None,
            method=rules.initial,
            floor=rules.floor,
        )
        is_rated = pooled.status == "rated"
        state.new_state[key] = (pooled.rating if is_rated else None, len(results), entry.pool_from)
        state.toward_total[key] = pooled.n if is_rated else 0
        state.calc_players[(key,)] = cells(
            (key, "initial" if is_rated else "pool", None, None, None, pooled.n, pooled.wins_x100, None, None,
             None, pooled.opponent_sum, pooled.p, pooled.dp, pooled.rating)
        )  # fmt: skip
        for event, rnd, opponent, o, s in results:
            game = cells((key, event, rnd, opponent, "pool", None, o, None, None, s))
            state.calc_games[game[:3]] = game


def _adjustment(decisions: dict[str, Any]) -> Adjustment | None:
    found = decisions.get("adjustment")
    if not isinstance(found, dict):
        return None
    return Adjustment(found["name"], int(found["threshold"]), Fraction(found["factor"]), found["rounding"])


def _write_list(state: _Period) -> tuple[dict[tuple[str, ...], Row], dict[tuple[str, ...], Row]]:
    """Every entry of the new list: the new state of who played, K and flag for all (§8.3.3, §9)."""
    inputs, period = state.inputs, state.inputs.period
    adjustment = _adjustment(inputs.decisions)
    k_new = KCache(inputs.list_date, inputs.rules_of_new_list)
    flag_on = FlagCache(period)
    listed: dict[tuple[str, ...], Row] = {}
    list_state: dict[tuple[str, ...], Row] = {}
    for key in sorted(state.entries):
        entry = state.entries[key]
        old = entry.rating
        found = state.new_state.get(key)
        rating, games, pool_from = found if found is not None else (old, 0, entry.pool_from)
        if adjustment is not None and rating is not None:
            rating = adjust_rating(rating, adjustment)
        games_total = entry.games_total + state.toward_total.get(key, games)
        reached_2400 = bool(entry.reached_2400 or (rating is not None and rating >= 2400))
        reached_2300 = bool(entry.reached_2300 or (rating is not None and rating >= 2300))
        last_active = str(period) if games > 0 else entry.last_active
        k = flag = None
        if rating is not None:
            k = k_new(reached_2400, reached_2300, entry.birth_year, games_total)
            flag = flag_on(last_active, entry.sex == "F")
        listed[(key,)] = cells((key, rating, games, k, flag, games_total, reached_2400, reached_2300))
        change = rating - old if rating is not None and old is not None else None
        list_state[(key,)] = cells((key, change, last_active, pool_from))
    return listed, list_state
