"""Closing periods of 2022–2024 with FIDE's rules of the time, end to end through the database."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Engine, select

from ratingdb import db
from ratingdb.rating import Period
from ratingdb.schema.models import CalcGame, CalcPlayer, RatingList
from tests import builders as b
from tests.integration.test_close import close, entry


def test_a_2022_rapid_close_caps_one_game_per_tournament_with_k_20_for_everyone(engine: Engine) -> None:
    # Spec §12 (data): Ro 2000, rapid, opponents 1063 W, 1299 W, 1413 W, 1872 D, 1851 L, 1427 W, 1682 W.
    # Only the 1063 game (D 937, the greatest) counts as 400: Σ dR −0.61; K 20 → −12.20 → −12 → 1988.
    # K 20 for everyone in rapid until 2022-09, so the list's K (none given here) is not the 40 a player
    # with 12 games would have today; from the 2022-10-01 list the standard K rules give 40 again.
    june = Period(2022, 6)
    with db.transaction(engine) as s:
        hero = b.player(s, "Hero, A")
        opponents = [b.player(s, f"Opp, {r}") for r in (1063, 1299, 1413, 1872, 1851, 1427, 1682)]
        ratings = {hero: (2000, None)} | {p: (int(p.name.split(", ")[1]), None) for p in opponents}
        b.imported_list(s, "rapid", june.first_day, ratings, games_total=12)
        results = ["1", "1", "1", "=", "0", "1", "1"]
        games = zip([hero] * 7, opponents, results, strict=True)
        b.event(s, "Rapid open", dt.date(2022, 6, 4), dt.date(2022, 6, 5), games, rating_type="rapid")
        hero_id, low_id = hero.id, opponents[0].id
    summary = close(engine, june, "rapid")
    assert summary.rules == "rapid-2022-01"
    with db.transaction(engine) as s:
        ds = list(
            s.scalars(select(CalcGame.d).where(CalcGame.player_id == hero_id).order_by(CalcGame.game_id))
        )
        calc = s.scalars(select(CalcPlayer).where(CalcPlayer.player_id == hero_id)).one()
        low_d = s.scalar(select(CalcGame.d).where(CalcGame.player_id == low_id))
    assert ds == [400, 701, 587, 128, 149, 573, 318]
    assert (calc.k_base, calc.k, calc.sum_dr_x100, calc.k_sum_dr_x100, calc.change) == (
        20,
        20,
        -61,
        -1220,
        -12,
    )
    assert low_d == -937  # the lower-rated player is not capped
    new = entry(engine, hero_id, dt.date(2022, 7, 1), "rapid")
    assert (new.rating, new.k) == (1988, 20)


def test_the_rapid_list_of_october_2022_takes_the_standard_k_rules(engine: Engine) -> None:
    # Closing 2022-09 (K 20 for everyone) publishes the 2022-10-01 list, used in period 2022-10, whose
    # K follows the standard rules: 12 games in total → 40. The period's own change still used K 20:
    # a win against an equal (PD .50) → +0.50 × 20 = +10.
    sep = Period(2022, 9)
    with db.transaction(engine) as s:
        new_one, other = b.player(s, "New, N"), b.player(s, "Other, O")
        b.imported_list(
            s, "rapid", sep.first_day, {new_one: (1500, None), other: (1500, None)}, games_total=12
        )
        b.event(
            s,
            "Blitz",
            dt.date(2022, 9, 10),
            dt.date(2022, 9, 10),
            [(new_one, other, "1")],
            rating_type="rapid",
        )
        new_id = new_one.id
    close(engine, sep, "rapid")
    published = entry(engine, new_id, dt.date(2022, 10, 1), "rapid")
    assert (published.rating, published.k) == (1510, 40)


def test_a_2023_standard_close_publishes_a_2022_initial_rating_and_keeps_players_above_1000(
    engine: Engine,
) -> None:
    # 3/5 against 2000s → Ra 2000 + 20 for one half point above 50 % = 2020 (FIDE 2022, verified).
    # A 1200 player losing to a 2000 player (D −800 → PD .00 under table 8.1.2) stays at 1200 and on
    # the list: the floor was 1000 then, not 1400. Ro 1242, K 40, loss to 1750: D −508 (not capped) →
    # PD .04 → −1.6 → −2 → 1240 (FIDE 2022, data).
    may = Period(2023, 5)
    with db.transaction(engine) as s:
        newcomer, low, mid, strong = (
            b.player(s, "New, N"),
            b.player(s, "Low, L"),
            b.player(s, "Mid, M"),
            b.player(s, "Strong, S"),
        )
        opponents = [b.player(s, f"Opp, {i}") for i in range(5)]
        listed = {low: (1200, 40), mid: (1242, 40), strong: (1750, 20)} | {p: (2000, 20) for p in opponents}
        b.imported_list(s, "standard", may.first_day, listed)
        results = ["1", "1", "1", "0", "0"]
        b.event(
            s,
            "Open",
            dt.date(2023, 5, 6),
            dt.date(2023, 5, 10),
            zip([newcomer] * 5, opponents, results, strict=True),
        )
        b.event(
            s,
            "Club",
            dt.date(2023, 5, 12),
            dt.date(2023, 5, 12),
            [(low, opponents[0], "0"), (mid, strong, "0")],
        )
        ids = newcomer.id, low.id, mid.id
    summary = close(engine, may)
    assert summary.rules == "standard-2022-01"
    june = dt.date(2023, 6, 1)
    assert [entry(engine, player_id, june).rating for player_id in ids] == [2020, 1200, 1240]
    with db.transaction(engine) as s:
        assert s.scalar(select(RatingList.rules).where(RatingList.list_date == june)) == "standard-2022-01"
