"""The period close end to end through the database: each rule of B.02 §5–§9 as the close applies it."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import DBAPIError

from ratingdb import db
from ratingdb.errors import MissingList, PeriodAlreadyClosed
from ratingdb.formats import read_trf
from ratingdb.rating import Period
from ratingdb.schema.models import CalcEvent, CalcGame, CalcPlayer, ListEntry, Player, RatingList
from ratingdb.services.choices import ImportChoices
from ratingdb.services.close import close_period
from ratingdb.services.events import import_events
from tests import builders as b
from tests.cli.test_import_cli import FIXTURES

OCT = Period(2025, 10)
NOV = Period(2025, 11)


def entry(engine: Engine, player_id: int, list_date: dt.date, rating_type: str = "standard") -> ListEntry:
    with db.transaction(engine) as s:
        return s.scalars(
            select(ListEntry)
            .join(RatingList, RatingList.id == ListEntry.list_id)
            .where(
                ListEntry.player_id == player_id,
                RatingList.list_date == list_date,
                RatingList.rating_type == rating_type,
            )
        ).one()


def close(engine: Engine, period: Period, rating_type: str = "standard"):
    with db.transaction(engine) as s:
        return close_period(s, period, rating_type)


def test_the_2813_player_loses_three_points_rounded_once_with_real_differences(engine: Engine) -> None:
    # Spec §11: 2813, K 10, wins vs 1787, 2025, 2310, 2400 and draws vs 2505. From 2025-10 a player
    # rated 2650+ uses the real difference: D 1026 → 1.00, 788 → 1.00, 503 → .96, 413 → .93, 308 → .86.
    # Σ(score − PD) = 0 + 0 + .04 + .07 + (.5 − .86) = −.25; K 10 → −2.50 → −3 (half away from zero).
    with db.transaction(engine) as s:
        star = b.player(s, "Star, A")
        opps = [b.player(s, f"Opp, {r}") for r in (1787, 2025, 2310, 2400, 2505)]
        ratings = {star: (2813, 10)} | {p: (int(p.name.split(", ")[1]), 20) for p in opps}
        b.imported_list(s, "standard", OCT.first_day, ratings)
        results = ["1", "1", "1", "1", "="]
        b.event(
            s, "Open", dt.date(2025, 10, 5), dt.date(2025, 10, 9), zip([star] * 5, opps, results, strict=True)
        )
        star_id = star.id
    summary = close(engine, OCT)
    assert not summary.already_closed
    new = entry(engine, star_id, dt.date(2025, 11, 1))
    assert (new.rating, new.change, new.games, new.k) == (2810, -3, 5, 10)
    with db.transaction(engine) as s:
        calc = s.scalars(select(CalcPlayer).where(CalcPlayer.player_id == star_id)).one()
        assert (calc.ro, calc.k, calc.n, calc.sum_dr_x100, calc.k_sum_dr_x100) == (2813, 10, 5, -25, -250)
        ds = sorted(s.scalars(select(CalcGame.d).where(CalcGame.player_id == star_id)))
        assert ds == [308, 413, 503, 788, 1026]


def test_the_2650_rule_is_judged_on_each_players_own_rating(engine: Engine) -> None:
    # Spec §4: 2813 beats 2400. The 2813 player uses D = 413 (.93); the 2400 player is capped at −400 (.08).
    with db.transaction(engine) as s:
        top, low = b.player(s, "Top, A"), b.player(s, "Low, B")
        b.imported_list(s, "standard", OCT.first_day, {top: (2813, 10), low: (2400, 10)})
        b.event(s, "Match game", dt.date(2025, 10, 3), dt.date(2025, 10, 3), [(top, low, "1")])
        top_id, low_id = top.id, low.id
    close(engine, OCT)
    with db.transaction(engine) as s:
        rows = dict(s.execute(select(CalcGame.player_id, CalcGame.d)).all())
        pds = dict(s.execute(select(CalcGame.player_id, CalcGame.pd_x100)).all())
    assert rows == {top_id: 413, low_id: -400}
    assert pds == {top_id: 93, low_id: 8}
    # K 10: +0.07 × 10 = +0.7 → +1; −0.08 × 10 = −0.8 → −1.
    assert entry(engine, top_id, NOV.first_day).rating == 2814
    assert entry(engine, low_id, NOV.first_day).rating == 2399


def test_the_same_game_before_2025_10_is_capped_for_both_sides(engine: Engine) -> None:
    sep = Period(2025, 9)
    with db.transaction(engine) as s:
        top, low = b.player(s, "Top, A"), b.player(s, "Low, B")
        b.imported_list(s, "standard", sep.first_day, {top: (2813, 10), low: (2400, 10)})
        b.event(s, "Match game", dt.date(2025, 9, 3), dt.date(2025, 9, 3), [(top, low, "1")])
        top_id = top.id
    close(engine, sep)
    with db.transaction(engine) as s:
        assert s.scalar(select(CalcGame.d).where(CalcGame.player_id == top_id)) == 400


def test_k_drops_to_17_when_39_games_would_exceed_700(engine: Engine) -> None:
    # Spec §5: K 20 with 39 games → K 17 (17 × 39 = 663 ≤ 700 < 20 × 39 = 780).
    # Five events, 39 games against 2054 opponents (D 0 → PD .50): 20 wins and 19 draws give
    # Σ(score − PD) = 20 × .50 + 19 × 0 = 10.00; 17 × 10 = +170 → 2054 + 170 = 2224. The list keeps K 20.
    with db.transaction(engine) as s:
        busy = b.player(s, "Busy, B")
        opps = [b.player(s, f"Opp, {i}") for i in range(39)]
        b.imported_list(s, "standard", OCT.first_day, {busy: (2054, 20)} | {p: (2054, 20) for p in opps})
        results = ["1"] * 20 + ["="] * 19
        games = list(zip([busy] * 39, opps, results, strict=True))
        for i, chunk in enumerate([games[0:9], games[9:18], games[18:27], games[27:36], games[36:39]]):
            b.event(s, f"Event {i}", dt.date(2025, 10, 1 + 5 * i), dt.date(2025, 10, 3 + 5 * i), chunk)
        busy_id = busy.id
    close(engine, OCT)
    new = entry(engine, busy_id, NOV.first_day)
    assert (new.rating, new.change, new.games, new.k) == (2224, 170, 39, 20)
    with db.transaction(engine) as s:
        calc = s.scalars(select(CalcPlayer).where(CalcPlayer.player_id == busy_id)).one()
        assert (calc.k_base, calc.k, calc.n) == (20, 17, 39)
        assert s.scalar(select(func.count()).where(CalcEvent.player_id == busy_id)) == 5


def test_an_event_uses_the_ratings_of_the_list_at_its_start(engine: Engine) -> None:
    # Spec §3: 2499 on the October list, 2505 on November's; the event ran 2025-10-31 … 11-02 and is
    # rated in period 2025-11 with the October ratings. Five wins against 2243: D 256 → PD .81, dR .19
    # each, Σ .95, K 10 → +9.5 → +10 → 2505 + 10 = 2515. (With the November rating D 262 → .82, +9.0.)
    with db.transaction(engine) as s:
        hero = b.player(s, "Hero, H")
        opps = [b.player(s, f"Opp, {i}") for i in range(5)]
        ratings_oct = {hero: (2499, 10)} | {p: (2243, 20) for p in opps}
        ratings_nov = {hero: (2505, 10)} | {p: (2243, 20) for p in opps}
        oct_list = b.imported_list(s, "standard", OCT.first_day, ratings_oct)
        b.imported_list(s, "standard", NOV.first_day, ratings_nov)
        ev = b.event(
            s, "Halloween", dt.date(2025, 10, 31), dt.date(2025, 11, 2), [(hero, p, "1") for p in opps]
        )
        assert ev.period == "2025-11"
        hero_id, oct_id = hero.id, oct_list.id
    close(engine, NOV)
    new = entry(engine, hero_id, dt.date(2025, 12, 1))
    assert (new.rating, new.change) == (2515, 10)
    with db.transaction(engine) as s:
        ce = s.scalars(select(CalcEvent).where(CalcEvent.player_id == hero_id)).one()
        assert (ce.ratings_list_id, ce.ro, ce.sum_dr_x100) == (oct_id, 2499, 95)


def test_a_first_rating_is_published_from_results_pooled_over_two_periods(engine: Engine) -> None:
    # Spec §7: 1902 (½), 1877 (½), 1884 (1), 2012 (0), 1832 (1): Ra = (9507 + 3600) / 7 = 1872.43,
    # p = (3 + 1) / 7 = .571 → .57 → dp 50, Ru = 1922. Three games in October, two in November.
    with db.transaction(engine) as s:
        new = b.player(s, "Newcomer, N", birth_year=1985)
        opps = {r: b.player(s, f"Opp, {r}") for r in (1902, 1877, 1884, 2012, 1832)}
        lst = {p: (r, 20) for r, p in opps.items()} | {new: None}
        b.imported_list(s, "standard", OCT.first_day, lst)
        b.event(
            s,
            "October open",
            dt.date(2025, 10, 4),
            dt.date(2025, 10, 6),
            [(new, opps[1902], "="), (opps[1877], new, "="), (new, opps[1884], "1")],
        )
        b.event(
            s,
            "November open",
            dt.date(2025, 11, 8),
            dt.date(2025, 11, 9),
            [(new, opps[2012], "0"), (opps[1832], new, "0")],
        )
        new_id = new.id
    first = close(engine, OCT)
    assert first.newly_rated == []
    assert entry(engine, new_id, NOV.first_day).rating is None
    second = close(engine, NOV)
    rated = entry(engine, new_id, dt.date(2025, 12, 1))
    assert (rated.rating, rated.k, rated.games_total) == (1922, 40, 5)
    assert [c.new for c in second.newly_rated] == [1922]
    with db.transaction(engine) as s:
        calc = s.scalars(
            select(CalcPlayer).where(CalcPlayer.player_id == new_id, CalcPlayer.method == "initial")
        ).one()
        assert (calc.n, calc.opponent_sum, calc.p_x100, calc.dp) == (5, 9507, 57, 50)


def test_a_player_falling_below_1400_becomes_unrated_not_clamped(engine: Engine) -> None:
    # 1410, K 40, loses to a 1410 player: PD .50, −0.50 × 40 = −20 → 1390 < 1400 → unrated (§7.2.1).
    with db.transaction(engine) as s:
        weak, other = b.player(s, "Weak, W"), b.player(s, "Other, O")
        b.imported_list(s, "standard", OCT.first_day, {weak: (1410, 40), other: (1410, 40)})
        b.event(s, "Club", dt.date(2025, 10, 10), dt.date(2025, 10, 10), [(weak, other, "0")])
        weak_id = weak.id
    summary = close(engine, OCT)
    gone = entry(engine, weak_id, NOV.first_day)
    assert (gone.rating, gone.k, gone.games_total, gone.pool_from) == (None, None, 101, "2025-11")
    assert [c.old for c in summary.dropped_below_floor] == [1410]


def test_a_junior_turning_19_in_january_moves_from_k40_to_k20(engine: Engine) -> None:
    # Born 2007: 2025 − 2007 = 18 (junior, K 40); on the 2026-01-01 list 2026 − 2007 = 19 → K 20
    # (more than 30 games, never 2400).
    dec = Period(2025, 12)
    with db.transaction(engine) as s:
        junior = b.player(s, "Young, Y", birth_year=2007)
        b.imported_list(s, "standard", dec.first_day, {junior: (1800, 40)}, games_total=50)
        junior_id = junior.id
    close(engine, dec)
    new = entry(engine, junior_id, dt.date(2026, 1, 1))
    assert (new.rating, new.k, new.change, new.games) == (1800, 20, 0, 0)


def test_players_without_games_are_carried_over_unchanged(engine: Engine) -> None:
    with db.transaction(engine) as s:
        idle = b.player(s, "Idle, I", sex="F")
        b.imported_list(s, "standard", OCT.first_day, {idle: (2100, 20)})
        idle_id = idle.id
    summary = close(engine, OCT)
    new = entry(engine, idle_id, NOV.first_day)
    assert (new.rating, new.k, new.games, summary.players_on_list) == (2100, 20, 0, 1)


def test_closing_a_closed_period_changes_nothing(engine: Engine) -> None:
    with db.transaction(engine) as s:
        a, c = b.player(s, "A, A"), b.player(s, "C, C")
        b.imported_list(s, "standard", OCT.first_day, {a: (2000, 20), c: (2000, 20)})
        b.event(s, "Club", dt.date(2025, 10, 10), dt.date(2025, 10, 10), [(a, c, "1")])
    first = close(engine, OCT)
    with engine.connect() as conn:
        before = [
            conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar()
            for t in ("rating_list", "list_entry", "calc_game")
        ]
    again = close(engine, OCT)
    with engine.connect() as conn:
        after = [
            conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar()
            for t in ("rating_list", "list_entry", "calc_game")
        ]
    assert (again.already_closed, again.list_id, after) == (True, first.list_id, before)


def test_a_missing_list_in_force_is_refused_with_the_way_forward(engine: Engine) -> None:
    with db.transaction(engine) as s:
        a = b.player(s, "A, A")
        b.imported_list(s, "standard", dt.date(2025, 9, 1), {a: 2000})
    with pytest.raises(MissingList) as err:
        close(engine, NOV)
    assert str(err.value) == (
        "the standard list in force for period 2025-11 (dated 2025-11-01) is missing: the newest list is "
        "dated 2025-09-01, so close period 2025-09 first (or import the 2025-11-01 list with "
        "`ratingdb import-list FILE --date 2025-11-01 --type standard`)"
    )
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM rating_list")).scalar() == 1


def test_an_event_before_the_earliest_list_uses_it_and_says_so(engine: Engine) -> None:
    # Late event (ended 2025-09-20, rated in 2025-10) that started before the only list (2025-10-01).
    with db.transaction(engine) as s:
        a, c = b.player(s, "A, A"), b.player(s, "C, C")
        b.imported_list(s, "standard", OCT.first_day, {a: (2000, 20), c: (2000, 20)})
        b.event(s, "Late", dt.date(2025, 9, 18), dt.date(2025, 9, 20), [(a, c, "1")], period="2025-10")
    summary = close(engine, OCT)
    assert summary.late_events == ["Late (ended 2025-09-20, period 2025-09)"]
    with db.transaction(engine) as s:
        notes = set(s.scalars(select(CalcEvent.note)))
    assert notes == {
        "the event started 2025-09-18, before the earliest standard list in the database; "
        "ratings taken from that list (2025-10-01)"
    }


def test_published_entries_cannot_be_changed_afterwards(engine: Engine) -> None:
    with db.transaction(engine) as s:
        a = b.player(s, "A, A")
        b.imported_list(s, "standard", OCT.first_day, {a: (2000, 20)})
    close(engine, OCT)
    with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(text("UPDATE list_entry SET rating = 2800"))


def test_two_closes_at_once_publish_one_list(db_url: str) -> None:
    setup = db.make_engine(db_url)
    with db.transaction(setup) as s:
        players = [b.player(s, f"P, {i}") for i in range(40)]
        b.imported_list(s, "standard", OCT.first_day, {p: (1600 + 10 * i, 20) for i, p in enumerate(players)})
        b.event(
            s,
            "Club",
            dt.date(2025, 10, 10),
            dt.date(2025, 10, 12),
            [(players[i], players[i + 1], "1") for i in range(0, 40, 2)],
        )
    setup.dispose()
    outcomes: list[object] = []

    def run() -> None:
        eng = db.make_engine(db_url)
        try:
            with db.transaction(eng) as s:
                outcomes.append(close_period(s, OCT, "standard").already_closed)
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            outcomes.append(exc)
        finally:
            eng.dispose()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes, key=str) == [False, True]
    check = db.make_engine(db_url)
    with check.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM rating_list WHERE origin = 'computed'")).scalar() == 1
        assert (
            conn.execute(
                text(
                    "SELECT COUNT(*) FROM list_entry l JOIN rating_list r ON r.id = l.list_id "
                    "WHERE r.list_date = '2025-11-01'"
                )
            ).scalar()
            == 40
        )
    check.dispose()


def test_player_model_is_importable_for_the_builders() -> None:
    assert Player.__tablename__ == "player"


def test_rapid_rates_a_player_without_a_rapid_rating_with_the_standard_one(engine: Engine) -> None:
    # Rapid/blitz (rapid/blitz §7): no rapid rating but a standard 1800 at the start → rated as if rated 1800.
    # Win against a rapid 1800: D 0 → PD .50, +.50; K for a player with no rapid games is 40 → +20 → 1820.
    # The opponent (rapid 1800, K 20) lost to an 1800: −.50 × 20 = −10 → 1790.
    with db.transaction(engine) as s:
        newcomer, rapid_player = b.player(s, "Standard, Only"), b.player(s, "Rapid, Rita")
        b.imported_list(s, "standard", OCT.first_day, {newcomer: (1800, 20)})
        b.imported_list(s, "rapid", OCT.first_day, {rapid_player: (1800, 20)})
        b.event(
            s,
            "Rapid",
            dt.date(2025, 10, 4),
            dt.date(2025, 10, 4),
            [(newcomer, rapid_player, "1")],
            rating_type="rapid",
        )
        newcomer_id, rapid_id = newcomer.id, rapid_player.id
    summary = close(engine, OCT, "rapid")
    assert summary.games_rated == 1
    assert [c.new for c in summary.newly_rated] == [1820]
    new = entry(engine, newcomer_id, NOV.first_day, "rapid")
    assert (new.rating, new.change, new.games, new.k) == (1820, None, 1, 40)
    assert entry(engine, rapid_id, NOV.first_day, "rapid").rating == 1790
    with db.transaction(engine) as s:
        note = s.scalar(select(CalcPlayer.note).where(CalcPlayer.player_id == newcomer_id))
    assert note == "no rapid rating: rated with the standard rating 1800 (§7)"


def test_a_player_rated_after_an_event_started_is_rated_in_it_but_unrated_for_the_opponents(
    engine: Engine,
) -> None:
    # §8.2.4. The newcomer earns 1922 in October (the §8.2 pool) and then beats a 1900 player in an
    # event that started 2025-10-30 (rated in 2025-11 with the October list, where the newcomer is
    # unrated). The newcomer plays it as rated with the current 1922: D 22 → PD .53, +.47 × K 40 = +18.8
    # → +19 → 1941. For the 1900 player the opponent was unrated at the start: not rated, no change.
    with db.transaction(engine) as s:
        new = b.player(s, "Newcomer, N", birth_year=1985)
        opps = {r: b.player(s, f"Opp, {r}") for r in (1902, 1877, 1884, 2012, 1832, 1900)}
        b.imported_list(s, "standard", OCT.first_day, {p: (r, 20) for r, p in opps.items()} | {new: None})
        b.event(s, "October open", dt.date(2025, 10, 4), dt.date(2025, 10, 6),
                [(new, opps[1902], "="), (opps[1877], new, "="), (new, opps[1884], "1"),
                 (new, opps[2012], "0"), (opps[1832], new, "0")])  # fmt: skip
        b.event(s, "Halloween", dt.date(2025, 10, 30), dt.date(2025, 11, 2), [(new, opps[1900], "1")])
        new_id, victim_id = new.id, opps[1900].id
    close(engine, OCT)
    assert entry(engine, new_id, NOV.first_day).rating == 1922
    close(engine, NOV)
    assert entry(engine, new_id, dt.date(2025, 12, 1)).rating == 1941
    victim = entry(engine, victim_id, dt.date(2025, 12, 1))
    assert (victim.rating, victim.games) == (1900, 0)
    with db.transaction(engine) as s:
        rows = s.execute(
            select(CalcGame.player_id, CalcGame.own_rating, CalcGame.opponent_rating, CalcGame.pd_x100)
            .join(RatingList, RatingList.id == CalcGame.list_id)
            .where(RatingList.list_date == dt.date(2025, 12, 1))
        ).all()
    assert [tuple(r) for r in rows] == [(new_id, 1922, 1900, 53)]


def test_rapid_games_600_apart_with_a_player_above_2600_are_not_rated(engine: Engine) -> None:
    # Rapid from 2024-12: 2650 v 2000 (650 apart, one above 2600) is not rated; 2650 v 2100 (550) is.
    # 2650 beats 2100: D 550 capped at 400 (rapid caps everyone) → PD .92, +.08 × K 10 = +0.8 → +1 → 2651.
    with db.transaction(engine) as s:
        top, far, near = b.player(s, "Top, T"), b.player(s, "Far, F"), b.player(s, "Near, N")
        b.imported_list(s, "rapid", OCT.first_day, {top: (2650, 10), far: (2000, 20), near: (2100, 20)})
        b.event(s, "Rapid open", dt.date(2025, 10, 11), dt.date(2025, 10, 11),
                [(top, far, "1"), (top, near, "1")], rating_type="rapid")  # fmt: skip
        top_id, far_id = top.id, far.id
    summary = close(engine, OCT, "rapid")
    assert summary.games_rated == 1
    top_entry = entry(engine, top_id, NOV.first_day, "rapid")
    assert (top_entry.rating, top_entry.games) == (2651, 1)
    assert entry(engine, far_id, NOV.first_day, "rapid").games == 0


def test_an_import_during_a_close_waits_and_then_finds_the_period_closed(db_url: str) -> None:
    setup = db.make_engine(db_url)
    with db.transaction(setup) as s:
        a, c = b.player(s, "A, A"), b.player(s, "C, C")
        b.imported_list(s, "standard", OCT.first_day, {a: (2000, 20), c: (2000, 20)})
    closing, importing = db.make_engine(db_url), db.make_engine(db_url)
    outcome: list[object] = []
    started = threading.Event()

    def import_now() -> None:
        started.set()
        try:
            with db.transaction(importing) as s:
                import_events(
                    s, [read_trf(FIXTURES / "round_robin.trf")], ImportChoices(rating_type="standard")
                )
            outcome.append("imported")
        except PeriodAlreadyClosed as exc:
            outcome.append(exc)

    with db.transaction(closing) as s:
        close_period(s, OCT, "standard")  # holds the lock until this transaction commits
        worker = threading.Thread(target=import_now)
        worker.start()
        started.wait()
        worker.join(timeout=1.0)
        assert worker.is_alive(), "the import did not wait for the close"
    worker.join()
    assert len(outcome) == 1 and isinstance(outcome[0], PeriodAlreadyClosed)
    with setup.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM event")).scalar() == 0
    for eng in (setup, closing, importing):
        eng.dispose()


def test_the_first_event_is_judged_over_the_whole_history_once_it_has_left_the_window(engine: Engine) -> None:
    # Issue 20, §7.1.4 and §8.2.1. The newcomer scores 1/1 in 2024-03 (the first event: not zero, so
    # it counts while it is in the window), 0/2 in 2024-04 (not the first event: it counts) and
    # ½ ½ ½ in 2026-05. Closing 2026-05 the window is the 26 periods 2024-04 … 2026-05: 2024-03 has left
    # it, 2024-04 has not. Five games against 1800s: Ra = (5 × 1800 + 2 × 1800) / 7 = 12600 / 7 = 1800,
    # W = 0 + 1.5, p = (1.5 + 1) / 7 = .357 → .36 → dp −102, Ru = 1800 − 102 = 1698 on 2026-06-01.
    # Only those five games produced the rating: games_total 5 (not 6 with the dropped one), K 40.
    mar, apr, may = Period(2024, 3), Period(2024, 4), Period(2026, 5)
    with db.transaction(engine) as s:
        new = b.player(s, "Newcomer, N", birth_year=1985)
        opps = [b.player(s, f"Opp, {i}") for i in range(6)]
        b.imported_list(s, "standard", mar.first_day, {p: (1800, 20) for p in opps} | {new: None})
        b.event(s, "March open", dt.date(2024, 3, 2), dt.date(2024, 3, 2), [(new, opps[0], "1")])
        b.event(s, "April open", dt.date(2024, 4, 6), dt.date(2024, 4, 7),
                [(new, opps[1], "0"), (opps[2], new, "1")])  # fmt: skip
        # A list in force for 2026-05 as imported; the pool's history lives in the calculation record.
        b.imported_list(s, "standard", may.first_day, {p: (1800, 20) for p in opps} | {new: None})
        b.event(s, "May open", dt.date(2026, 5, 9), dt.date(2026, 5, 10),
                [(new, opps[3], "="), (opps[4], new, "="), (new, opps[5], "=")])  # fmt: skip
        new_id = new.id
    close(engine, mar)
    close(engine, apr)
    waiting = entry(engine, new_id, Period(2024, 5).first_day)
    assert (waiting.rating, waiting.games, waiting.games_total) == (None, 2, 0)
    summary = close(engine, may)
    assert [c.new for c in summary.newly_rated] == [1698]
    rated = entry(engine, new_id, dt.date(2026, 6, 1))
    assert (rated.rating, rated.games, rated.games_total, rated.k) == (1698, 3, 5, 40)
    with db.transaction(engine) as s:
        calc = s.scalars(
            select(CalcPlayer).where(CalcPlayer.player_id == new_id, CalcPlayer.method == "initial")
        ).one()
    assert (calc.n, calc.score_x100, calc.opponent_sum, calc.p_x100, calc.dp) == (5, 150, 9000, 36, -102)
    assert calc.note == (
        "first rating from 5 pooled games (§8.2); 1 game older than 26 months dropped (§7.1.4)"
    )


def test_games_of_a_disregarded_first_event_do_not_count_toward_the_30_games(engine: Engine) -> None:
    # Issue 20, §8.2.1 and §8.3.3 (§8.3.3: the games that produced the initial rating count).
    # 25 losses in the first event (2025-10) are disregarded; five draws in 2025-11 against 1600, 1700,
    # 1800, 1900, 2000: Ra = (9000 + 3600) / 7 = 1800, p = (2.5 + 1) / 7 = .50 → dp 0, Ru = 1800.
    # The rating comes from 5 games: games_total 5, so fewer than 30 → K 40 (not 30 games and K 20).
    with db.transaction(engine) as s:
        new = b.player(s, "Newcomer, N", birth_year=1985)
        strong = b.player(s, "Strong, S")
        opps = {r: b.player(s, f"Opp, {r}") for r in (1600, 1700, 1800, 1900, 2000)}
        lst = {strong: (2100, 20)} | {p: (r, 20) for r, p in opps.items()} | {new: None}
        b.imported_list(s, "standard", OCT.first_day, lst)
        b.event(s, "October open", dt.date(2025, 10, 4), dt.date(2025, 10, 28), [(new, strong, "0")] * 25)
        b.event(s, "November open", dt.date(2025, 11, 8), dt.date(2025, 11, 12),
                [(new, p, "=") for p in opps.values()])  # fmt: skip
        new_id = new.id
    close(engine, OCT)
    waiting = entry(engine, new_id, NOV.first_day)
    assert (waiting.rating, waiting.games, waiting.games_total) == (None, 25, 0)
    close(engine, NOV)
    rated = entry(engine, new_id, dt.date(2025, 12, 1))
    assert (rated.rating, rated.games, rated.games_total, rated.k) == (1800, 5, 5, 40)


def test_the_per_event_record_rounds_the_opponents_average_half_away_from_zero(engine: Engine) -> None:
    # calc_event is computed from calc_game (migration 0013). 2000, K 20, wins 8 games against seven 2000s
    # and one 2001: Rc = 16001 / 8 = 2000.125 → × 100 = 200012.5 → 200013 (half away from zero, §8.3.4).
    # D 0 and −1 both give PD .50 (§8.1.2), so Σ(score − PD) = 8 × .50 = 4.00, K × Σ = 80.00 → 2080.
    with db.transaction(engine) as s:
        hero = b.player(s, "Hero, H")
        opps = [b.player(s, f"Opp, {i}") for i in range(8)]
        ratings = {hero: (2000, 20)} | {p: (2000, 20) for p in opps[:7]} | {opps[7]: (2001, 20)}
        b.imported_list(s, "standard", OCT.first_day, ratings)
        b.event(s, "Eight", dt.date(2025, 10, 4), dt.date(2025, 10, 6), [(hero, p, "1") for p in opps])
        hero_id = hero.id
    close(engine, OCT)
    assert entry(engine, hero_id, NOV.first_day).rating == 2080
    with db.transaction(engine) as s:
        ce = s.scalars(select(CalcEvent).where(CalcEvent.player_id == hero_id)).one()
        assert (ce.ro, ce.rc_x100, ce.n, ce.score_x100, ce.sum_dr_x100, ce.k, ce.k_sum_dr_x100) == (
            2000,
            200013,
            8,
            800,
            400,
            20,
            8000,
        )


def test_entries_copied_by_the_database_equal_what_the_close_would_write_itself(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Players without games keep their entry with a new K and flag; the close has the database copy
    # those rows (K and flag looked up by their inputs). Closing the same period again with the copy
    # turned off must give the same list, entry for entry: a junior (K 40 by age), a player with fewer
    # than 30 games (K 40), an imported 2450 whose reached-2400 flag is missing (K 10 once set), a 2350
    # without reached-2300, women active and inactive, a player never active, one without a birth year,
    # and an unrated player waiting in a pool. Two of them play, so the period has an event.
    from ratingdb.schema.models import ListEntry as LE
    from ratingdb.services.corrections import reopen
    from ratingdb.services.systems import elo as close_module

    with db.transaction(engine) as s:
        people = {
            "junior": b.player(s, "Junior, J", birth_year=2012),
            "new": b.player(s, "Fresh, F"),
            "high": b.player(s, "High, H"),
            "mid": b.player(s, "Mid, M"),
            "active_w": b.player(s, "Active, A", sex="F"),
            "idle_w": b.player(s, "Idle, I", sex="F"),
            "never": b.player(s, "Never, N"),
            "no_year": b.player(s, "Yearless, Y", birth_year=None),
            "pool": b.player(s, "Pool, P"),
            "a": b.player(s, "Player, A"),
            "b": b.player(s, "Player, B"),
        }
        lst = RatingList(rating_type="standard", list_date=OCT.first_day, origin="imported", sealed=False)
        s.add(lst)
        s.flush()
        rows = {  # rating, games_total, reached 2400, reached 2300, last active, pool from
            "junior": (1500, 60, False, False, "2025-09", None),
            "new": (1700, 12, False, False, "2025-08", None),
            "high": (2450, 200, False, True, "2025-06", None),
            "mid": (2350, 200, False, False, "2025-05", None),
            "active_w": (2000, 80, False, False, "2025-09", None),
            "idle_w": (1900, 80, False, False, "2023-01", None),
            "never": (1800, 40, False, False, None, None),
            "no_year": (1600, 35, False, False, "2024-12", None),
            "pool": (None, 0, False, False, None, "2025-07"),
            "a": (2000, 100, False, False, "2025-09", None),
            "b": (2000, 100, False, False, "2025-09", None),
        }
        for key, (rating, total, r2400, r2300, active, pool_from) in rows.items():
            p = people[key]
            s.add(
                LE(list_id=lst.id, player_id=p.id, rating=rating, games=0, k=None, flag=None, change=None,
                   games_total=total, reached_2400=r2400, reached_2300=r2300, last_active=active,
                   pool_from=pool_from, player_version_id=p.current_version_id)
            )  # fmt: skip
        s.flush()
        lst.sealed = True
        b.event(s, "Pair", dt.date(2025, 10, 4), dt.date(2025, 10, 4), [(people["a"], people["b"], "1")])

    def entries() -> list[tuple]:
        with engine.connect() as conn:
            return conn.execute(
                text(
                    "SELECT e.player_id, e.rating, e.games, e.k, e.flag, e.change, e.games_total, "
                    "e.reached_2400, e.reached_2300, e.last_active, e.pool_from, e.player_version_id "
                    "FROM list_entry e JOIN rating_list l ON l.id = e.list_id "
                    "WHERE l.list_date = :day AND l.is_current = TRUE ORDER BY e.player_id"
                ),
                {"day": NOV.first_day},
            ).all()

    copied = []
    original = close_module._UnchangedEntries.take

    def counting(self, entry):  # type: ignore[no-untyped-def]
        taken = original(self, entry)
        copied.append(taken)
        return taken

    monkeypatch.setattr(close_module._UnchangedEntries, "take", counting)
    close(engine, OCT)
    with_copy = entries()
    assert copied.count(True) == 7  # all but the two players and the two contradicted flags
    with db.transaction(engine) as s:
        reopen(s, OCT, "standard", "the same close with every entry written by the close itself")
    monkeypatch.setattr(close_module._UnchangedEntries, "take", lambda self, entry: False)
    close(engine, OCT)
    assert entries() == with_copy
    by_player = {row[0]: row for row in with_copy}
    # Spot checks by hand (§8.3.3, §9): the junior keeps K 40; the 2450 gets reached-2400 and K 10; the
    # woman idle since 2023 is listed 'wi', the active one 'w'; the pool player stays unrated, no K.
    assert by_player[people["junior"].id][3] == 40
    assert by_player[people["high"].id][3:4] == (10,) and by_player[people["high"].id][7]
    assert by_player[people["idle_w"].id][4] == "wi"
    assert by_player[people["active_w"].id][4] == "w"
    assert by_player[people["pool"].id][1:5] == (None, 0, None, None)
