"""The close's batch path on a real database: random periods, each player's record equal to rating_change."""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict

import pytest
from sqlalchemy import Engine, select

from ratingdb import db
from ratingdb.rating import Period, RatedGame, game_line, rating_change, rule_set_for
from ratingdb.schema.models import CalcGame, CalcPlayer, ListEntry
from ratingdb.services.close import CloseSummary, close_period
from tests import builders as b

OCT = Period(2025, 10)
RULES = rule_set_for("standard", OCT)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_period_closes_to_the_scalar_rules_for_every_player(engine: Engine, seed: int) -> None:
    # 40 rated players (a few 2650+, a few near the floor) and 4 newcomers; 6 events, two of which
    # started in September and so use the September ratings (§3); random results and a forfeit each.
    rng = random.Random(seed)
    with db.transaction(engine) as s:
        players = [b.player(s, f"P, {i}") for i in range(44)]
        rated, newcomers = players[:40], players[40:]
        october = {p: rng.choice([1400, 1405, 2649, 2650, 2800]) if i < 8 else rng.randint(1400, 2600)
                   for i, p in enumerate(rated)}  # fmt: skip
        september = {p: r + rng.randint(-10, 10) for p, r in october.items()}
        b.imported_list(s, "standard", dt.date(2025, 9, 1), {p: (r, 20) for p, r in september.items()})
        b.imported_list(
            s, "standard", OCT.first_day, {p: (r, rng.choice([10, 20, 40])) for p, r in october.items()}
        )
        start_of: dict[int, dt.date] = {}
        for e in range(6):
            start = dt.date(2025, 9, 29) if e < 2 else dt.date(2025, 10, 3 + e)
            field = rng.sample(rated, 12) + rng.sample(newcomers, 2)
            games = []
            for _ in range(25):
                white, black = rng.sample(field, 2)
                games.append((white, black, rng.choice(["1", "=", "0"])))
            games.append((field[0], field[1], "+"))
            ev = b.event(s, f"Event {seed}-{e}", start, dt.date(2025, 10, 10 + e), games)
            start_of[ev.id] = start
        ratings_on = {dt.date(2025, 9, 29): {p.id: r for p, r in september.items()}}
        ratings_on |= {start: {p.id: r for p, r in october.items()} for start in set(start_of.values())
                       if start.month == 10}  # fmt: skip
        in_force = {p.id: r for p, r in october.items()}

    summary = close_period_once(engine)
    assert summary.players_rated > 0

    with db.transaction(engine) as s:
        games_of: dict[int, list[CalcGame]] = defaultdict(list)
        for row in s.scalars(select(CalcGame).where(CalcGame.kind == "rated").order_by(CalcGame.game_id)):
            games_of[row.player_id].append(row)
        calcs = s.scalars(select(CalcPlayer).where(CalcPlayer.method == "change")).all()
        new_list = {
            e.player_id: e.rating
            for e in s.scalars(select(ListEntry).where(ListEntry.list_id == summary.list_id))
        }
    assert {c.player_id for c in calcs} == set(games_of)
    for calc in calcs:
        lines = games_of[calc.player_id]
        # The ratings used are those of the list in force at each event's start (§3).
        for line in lines:
            start_ratings = ratings_on[start_of[line.event_id]]
            assert (line.own_rating, line.opponent_rating) == (
                start_ratings[calc.player_id],
                start_ratings[line.opponent_id],
            )
        played = [RatedGame(g.own_rating, g.opponent_rating, g.score_x100, g.event_id) for g in lines]
        scalar = rating_change(in_force[calc.player_id], calc.k_base, played, RULES)
        assert (calc.ro, calc.k, calc.n, calc.sum_dr_x100, calc.k_sum_dr_x100, calc.change) == (
            scalar.rating,
            scalar.k,
            scalar.n,
            scalar.sum_dr,
            scalar.k_sum_dr,
            scalar.change,
        )
        assert [(g.d, g.pd_x100) for g in lines] == [
            (x.d, x.pd) for x in (game_line(p, RULES) for p in played)
        ]
        expected = scalar.new_rating if scalar.new_rating >= 1400 else None  # the floor (§7.2.1)
        assert new_list[calc.player_id] == expected


def close_period_once(engine: Engine) -> CloseSummary:
    with db.transaction(engine) as s:
        return close_period(s, OCT, "standard")
