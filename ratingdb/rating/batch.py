"""The rules applied to many players at once, as the close applies them; imports only the stdlib and itself.

A FIDE-size close rates a million players: `BatchRater` gives the figures `rating_change` gives, with a
lookup table instead of per-game objects (tests/unit/rating/test_batch.py holds the two equal), and
`KCache` / `FlagCache` compute K (§8.3.3) and the activity flag (§9) once per distinct input. Plain
tuples and integers in hundredths, as everywhere in ratingdb.rating.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import NamedTuple

from .change import k_after_700_rule
from .flags import activity_flag, is_active
from .kfactor import k_factor
from .periods import Period
from .points import round_with
from .rules import RuleSet, expected_score_under, upgraded_games

Side = tuple[int, int, int, int, int, int]
"""One player's view of one rated game: (game id, event id, opponent id, own rating used, opponent
rating used, score in hundredths). Plain tuples, because a FIDE-size close holds two million of them."""
PoolSide = tuple[int, int, int, int | None, int, int]
"""The same for an unrated player's result toward a pool: the own rating is None (or §8.2.4's)."""


class BatchChange(NamedTuple):
    """A rated player's period as `rating_change` computes it, in plain numbers (hundredths)."""

    k: int  # after the 700 rule
    n: int
    score: int
    sum_dr: int
    k_sum_dr: int
    change: int  # rounded once, half away from zero
    new_rating: int
    ds: list[int]  # per game, in the order given: D after the cap
    pds: list[int]  # per game: PD in hundredths
    events: list[list[int]]  # per event, first-seen order: [event, n, score, sum_dr, ro, rc_sum]


class BatchRater:
    """Period changes of many players under one rule set, with PD from a lookup array (§8.3.1–§8.3.4).

    Equal to `ratingdb.rating.rating_change` game for game: the table is filled from the rule set's own
    expected score for every capped D until PD reaches 1.00 (beyond ±735 with table 8.1.2), so the rules
    stay in their own modules and only the per-game objects are saved.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.cap = rules.cap
        self.cap_exempt_from = rules.cap_exempt_from
        span = 1
        while expected_score_under(span, rules) < 100:
            span += 1
        self.span = span
        self.pd = [expected_score_under(d, rules) for d in range(-self.span, self.span + 1)]

    def rate(self, rating: int, k: int, sides: Sequence[Side]) -> BatchChange:
        """The change of a player rated `rating` with base K `k` over all rated games of the period."""
        n = len(sides)
        rules = self.rules
        k_used = k_after_700_rule(k, n, rules.k_times_games_max)
        cap, exempt, span, table = self.cap, self.cap_exempt_from, self.span, self.pd
        top = 2 * span
        ds: list[int] = []
        pds: list[int] = []
        events: dict[int, list[int]] = {}
        score_total = sum_dr = 0
        one_upgrade = rules.one_upgrade_per_tournament
        if one_upgrade:  # FIDE 2022–2024: one capped game per event, the higher-rated side's only
            upgraded = upgraded_games([(side[3] - side[4], side[1]) for side in sides], rules)
        for index, (_game, event, _opponent, own, opponent, score) in enumerate(sides):
            d = own - opponent
            # §8.3.1: the cap, unless the rated player's own rating (for this event) is exempt.
            if cap is not None and (exempt is None or own < exempt):
                if one_upgrade:
                    if d > cap and index in upgraded:
                        d = cap
                elif d > cap:
                    d = cap
                elif d < -cap:
                    d = -cap
            i = d + span
            pd = table[0 if i < 0 else top if i > top else i]
            ds.append(d)
            pds.append(pd)
            dr = score - pd
            score_total += score
            sum_dr += dr
            sums = events.get(event)
            if sums is None:
                events[event] = [event, 1, score, dr, own, opponent]
            else:
                sums[1] += 1
                sums[2] += score
                sums[3] += dr
                sums[5] += opponent
        k_sum_dr = k_used * sum_dr
        change = round_with(k_sum_dr, 100, rules.rounding)
        return BatchChange(
            k_used, n, score_total, sum_dr, k_sum_dr, change, rating + change, ds, pds, list(events.values())
        )


class FlagCache:
    """The activity flag on a list closing `period` (§9) by `activity_flag`, remembered per distinct input
    (last active period, woman or not): a million entries share a few hundred."""

    def __init__(self, period: Period) -> None:
        self.period = period
        self.known: dict[tuple[str | None, bool], str | None] = {}

    def __call__(self, last_active: str | None, female: bool) -> str | None:
        key = (last_active, female)
        if key not in self.known:
            active = is_active(Period.parse(last_active), self.period) if last_active else False
            self.known[key] = activity_flag(female=female, active=active) or None
        return self.known[key]


class KCache:
    """K on a list (§8.3.3) by `k_factor`, remembered per distinct input: a million players share a few."""

    def __init__(self, list_date: dt.date, rules: RuleSet) -> None:
        self.list_date = list_date
        self.k_rules = rules.k_rules
        # Only "fewer than N games" matters to the K rules, so every total from N up shares one key.
        self.games_cap = max((r.fewer_games_than or 0 for r in rules.k_rules), default=0)
        self.known: dict[tuple[bool, bool, int | None, int], int] = {}

    def __call__(
        self, reached_2400: bool, reached_2300: bool, birth_year: int | None, games_total: int
    ) -> int:
        key = (bool(reached_2400), bool(reached_2300), birth_year, min(games_total, self.games_cap))
        k = self.known.get(key)
        if k is None:
            k = self.known[key] = k_factor(
                reached_2400=key[0],
                reached_2300=key[1],
                birth_year=birth_year,
                games_total=key[3],
                list_date=self.list_date,
                rules=self.k_rules,
            ).k
        return k
