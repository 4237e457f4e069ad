"""The close's summary counts what it wrote: its figures and warnings equal those read from the record."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from sqlalchemy import Engine

from ratingdb import db
from ratingdb.rating import Period
from ratingdb.services.close import close_period
from ratingdb.services.counts import close_counts
from ratingdb.services.event_warnings import close_warnings
from ratingdb.services.lists import list_on
from tests import builders as b

OCT = Period(2025, 10)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_summary_of_a_random_period_equals_the_counts_read_from_its_record(
    engine: Engine, seed: int
) -> None:
    # 30 rated players, 12 newcomers (some play enough rated opponents for a first rating), events of
    # rated and unrated players, one of newcomers only (nothing to rate: a warning), one of 100 days (a
    # warning), one rated late, byes and forfeits.
    rng = random.Random(seed)
    with db.transaction(engine) as s:
        players = [b.player(s, f"P, {i}") for i in range(42)]
        rated, newcomers = players[:30], players[30:]
        b.imported_list(s, "standard", dt.date(2025, 7, 1), {p: 1500 + i for i, p in enumerate(rated[:20])})
        b.imported_list(s, "standard", OCT.first_day, {p: rng.choice([1401, 1405, 2300, 2410, 1800]) if i < 6
                        else rng.randint(1400, 2600) for i, p in enumerate(rated)})  # fmt: skip
        for e in range(7):
            if e == 0:
                field = rng.sample(newcomers, 6)
            else:
                field = rng.sample(rated, rng.randint(4, 12)) + rng.sample(newcomers, rng.randint(0, 6))
            games = [(*rng.sample(field, 2), rng.choice(["1", "=", "0"])) for _ in range(rng.randint(0, 30))]
            games.append((field[0], field[1], rng.choice(["+", "-"])))
            start = {1: dt.date(2025, 7, 1), 2: dt.date(2025, 9, 10)}.get(e, dt.date(2025, 10, 1 + e))
            end = dt.date(2025, 9, 20) if e == 2 else dt.date(2025, 10, 10 + e)
            b.event(s, f"Event {seed}-{e}", start, end, games, period="2025-10")

    with db.transaction(engine) as s:
        summary = close_period(s, OCT, "standard")
        in_force = list_on(s, "standard", OCT.first_day)
        assert in_force is not None and summary.list_id is not None
        assert summary.counts == close_counts(s, summary.list_id, in_force.id, str(OCT), "standard")
        assert summary.warnings == close_warnings(s, summary.list_id)
    assert summary.counts.players_rated > 0
