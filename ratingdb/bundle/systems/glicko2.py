"""A bundled Glicko-2 list recomputed by Glickman's steps, as the close computes it, from the bundle alone.

As ratingdb/services/systems/glicko2.py: every game of the period against the opponent's figures on the
list in force; a player not rated there starts as the rule set's newcomer; a rated player without games
widens (Step 6); the list publishes r and RD in hundredths and σ in millionths (`published`).
"""

from __future__ import annotations

from ratingdb.bundle.archive import Bundle
from ratingdb.bundle.inputs import Inputs, rows
from ratingdb.bundle.systems import Row, Tables, cells
from ratingdb.rating.glicko2 import (
    Glicko2Game,
    Glicko2Rating,
    Glicko2RuleSet,
    PublishedGlicko2,
    published,
    update,
)

SCORE = {"1": 1.0, "=": 0.5, "0": 0.0}


def recompute(bundle: Bundle, inputs: Inputs) -> Tables:
    rules = inputs.rules
    assert isinstance(rules, Glicko2RuleSet), rules
    params = rules.glicko2
    figures = {
        row["player"]: (int(row["rating_x100"]), int(row["deviation_x100"]), int(row["volatility_x1e6"]))
        for row in rows(bundle, "inputs/glicko2-in-force.csv")
    }
    sides: dict[str, list[tuple[int, int, str, float]]] = {}
    for event in inputs.events:
        for g in event.games:
            if not g.rated or g.black is None:
                continue
            assert g.black_result is not None
            sides.setdefault(g.white, []).append((event.number, g.round, g.black, SCORE[g.white_result]))
            sides.setdefault(g.black, []).append((event.number, g.round, g.white, SCORE[g.black_result]))
    players = sorted(set(inputs.in_force) | set(sides))
    newcomer = published(params.newcomer)
    start: dict[str, tuple[int, int, int]] = {}
    for key in players:
        entry = inputs.in_force.get(key)
        if key in figures:
            start[key] = figures[key]
        elif entry is not None and entry.rating is not None:
            p = published(Glicko2Rating(entry.rating, params.initial_deviation, params.initial_volatility))
            start[key] = (p.rating_x100, p.deviation_x100, p.volatility_x1e6)
        elif key in sides:
            start[key] = (newcomer.rating_x100, newcomer.deviation_x100, newcomer.volatility_x1e6)
    calc_players: dict[tuple[str, ...], Row] = {}
    calc_games: dict[tuple[str, ...], Row] = {}
    shown_figures: dict[tuple[str, ...], Row] = {}
    listed: dict[tuple[str, ...], Row] = {}
    state: dict[tuple[str, ...], Row] = {}
    after: dict[str, PublishedGlicko2] = {}
    for key in sorted(start):
        r100, d100, s1e6 = start[key]
        mine = sides.get(key, [])
        games = [Glicko2Game(start[o][0] / 100, start[o][1] / 100, s) for _e, _r, o, s in mine]
        u = update(Glicko2Rating(r100 / 100, d100 / 100, s1e6 / 1e6), games, params)
        entry = inputs.in_force.get(key)
        is_new = entry is None or (entry.rating is None and key not in figures)
        calc_players[(key,)] = cells((key, len(games), is_new, r100, d100, s1e6))
        for number, rnd, opponent, score in mine:
            row = cells(
                (key, number, rnd, opponent, start[opponent][0], start[opponent][1], round(score * 100))
            )
            calc_games[row[:3]] = row
        after[key] = published(u.after)
    for key in players:
        entry = inputs.in_force.get(key)
        old = entry.rating if entry is not None else None
        played = len(sides.get(key, []))
        rating = None
        if key in after:
            shown = after[key]
            rating = shown.whole_rating
            shown_figures[(key,)] = cells(
                (key, shown.rating_x100, shown.deviation_x100, shown.volatility_x1e6)
            )
        total = (entry.games_total if entry is not None else 0) + played
        last_active = str(inputs.period) if played else (entry.last_active if entry is not None else None)
        listed[(key,)] = cells((key, rating, played, None, None, total, False, False))
        change = rating - old if rating is not None and old is not None else None
        state[(key,)] = cells((key, change, last_active, None))
    return {
        "published/list.csv": listed,
        "published/list-state.csv": state,
        "published/glicko2.csv": shown_figures,
        "published/calc-players.csv": calc_players,
        "published/calc-games.csv": calc_games,
    }
