"""A bundled Glicko list recomputed by Glickman's two steps, as the close computes it, from the bundle alone.

As ratingdb/services/systems/glicko.py: the list in force's figures are read from the Glicko CSV list
`inputs/glicko-in-force.csv` by the importer's reader; a rated entry without figures starts at its rating
with the rule set's initial deviation, a player not rated with games as the newcomer (no growth). Step 1
grows every rated player's deviation once (t = 1); every game of the period is rated against the
opponent's figures at the onset (after Step 1); the list publishes r and RD in hundredths (`published`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ratingdb.bundle.archive import Bundle, BundleError
from ratingdb.bundle.inputs import Inputs, player_key
from ratingdb.bundle.systems import Row, Tables, cells
from ratingdb.formats.glicko2_list import read_deviation_list
from ratingdb.rating.glicko import (
    GlickoGame,
    GlickoRating,
    GlickoRuleSet,
    GlickoUpdate,
    PublishedGlicko,
    published,
    update,
)

SCORE = {"1": 1.0, "=": 0.5, "0": 0.0}
IN_FORCE = "inputs/glicko-in-force.csv"


def _in_force(bundle: Bundle, rating_type: str) -> dict[str, PublishedGlicko]:
    """Player key → the list in force's figures, read as `import-list` reads a Glicko list."""
    if IN_FORCE not in bundle.members:
        raise BundleError(f"the bundle has no member {IN_FORCE}")
    with tempfile.TemporaryDirectory(prefix="ratingdb-bundle-") as folder:
        path = Path(folder) / Path(IN_FORCE).name
        path.write_bytes(bundle.members[IN_FORCE])
        return {
            player_key(row.fide_id, row.national_id): PublishedGlicko(f.rating_x100, f.deviation_x100)
            for row, f in read_deviation_list(path, rating_type, None, volatility=False, system="Glicko")
            if f is not None
        }


def recompute(bundle: Bundle, inputs: Inputs) -> Tables:
    rules = inputs.rules
    assert isinstance(rules, GlickoRuleSet), rules
    params = rules.glicko
    figures = _in_force(bundle, rules.rating_type)
    sides: dict[str, list[tuple[int, int, str, float]]] = {}
    for event in inputs.events:
        for g in event.games:
            if not g.rated or g.black is None:
                continue
            assert g.black_result is not None
            sides.setdefault(g.white, []).append((event.number, g.round, g.black, SCORE[g.white_result]))
            sides.setdefault(g.black, []).append((event.number, g.round, g.white, SCORE[g.black_result]))
    players = sorted(set(inputs.in_force) | set(sides))
    start: dict[str, PublishedGlicko] = {}
    onset: dict[str, GlickoUpdate] = {}
    newcomers: set[str] = set()
    for key in players:
        entry = inputs.in_force.get(key)
        if key in figures:
            start[key] = figures[key]
        elif entry is not None and entry.rating is not None:
            start[key] = published(GlickoRating(entry.rating, params.initial_deviation))
        elif key in sides:
            start[key] = published(params.newcomer)
            newcomers.add(key)
        else:
            continue
        # Step 1, t = 1 since the list in force; a newcomer starts at the onset.
        onset[key] = update(start[key].rating, [], params, periods=0 if key in newcomers else 1)
    calc_players: dict[tuple[str, ...], Row] = {}
    calc_games: dict[tuple[str, ...], Row] = {}
    shown_figures: dict[tuple[str, ...], Row] = {}
    listed: dict[tuple[str, ...], Row] = {}
    state: dict[tuple[str, ...], Row] = {}
    after: dict[str, PublishedGlicko] = {}
    for key in sorted(start):
        mine = sides.get(key, [])
        games = [GlickoGame(onset[o].onset.rating, onset[o].onset.deviation, s) for _e, _r, o, s in mine]
        u = update(onset[key].onset, games, params, periods=0)  # Step 2 from the onset
        calc_players[(key,)] = cells(
            (key, len(games), key in newcomers, start[key].rating_x100, start[key].deviation_x100)
        )
        for number, rnd, opponent, score in mine:
            theirs = start[opponent]
            row = cells(
                (key, number, rnd, opponent, theirs.rating_x100, theirs.deviation_x100, round(score * 100))
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
            shown_figures[(key,)] = cells((key, shown.rating_x100, shown.deviation_x100))
        total = (entry.games_total if entry is not None else 0) + played
        last_active = str(inputs.period) if played else (entry.last_active if entry is not None else None)
        listed[(key,)] = cells((key, rating, played, None, None, total, False, False))
        change = rating - old if rating is not None and old is not None else None
        state[(key,)] = cells((key, change, last_active, None))
    return {
        "published/list.csv": listed,
        "published/list-state.csv": state,
        "published/glicko.csv": shown_figures,
        "published/calc-players.csv": calc_players,
        "published/calc-games.csv": calc_games,
    }
