"""The integrity screen's signals on planted patterns, their figures worked by hand from table 8.1.2."""

from __future__ import annotations

import datetime as dt
from importlib import resources

import pytest

from ratingdb.rating import RuleFileError, parse_rule_set
from ratingdb.rating.integrity import (
    CAP_FARMING,
    CLOSED_POOL,
    DEFAULT_THRESHOLDS,
    DUPLICATE_RESULTS,
    FABRICATED_FIELD,
    IMPROBABLE_RESULT,
    REPEATED_PAIRING,
    SCHEDULE_CLASH,
    TOO_MANY_ROUNDS,
    IntegrityThresholds,
    ScreenEvent,
    ScreenGame,
    Signal,
    Window,
    crosstable_shape,
    report,
    screen,
)

DAY = dt.date(2025, 9, 6)
STANDARD = resources.files("ratingdb.rating").joinpath("fide", "standard-2025-10.toml").read_text("utf-8")


def _event(
    event_id: int, players: list[int], rounds: int, *, start: dt.date = DAY, days: int = 2
) -> ScreenEvent:
    end = start + dt.timedelta(days=days - 1)
    return ScreenEvent(
        event_id, f"event {event_id}", "standard", "2025-09", start, end, rounds, tuple(players)
    )


def _game(
    event_id: int, rnd: int, white: int, black: int, result: str, date: dt.date | None = None
) -> ScreenGame:
    other = {"1": "0", "0": "1", "=": "="}[result]
    return ScreenGame(event_id, rnd, date, white, black, result, other, True)


def _codes(signals: tuple[Signal, ...]) -> set[str]:
    return {s.code for s in signals}


def test_a_quadruple_round_robin_feeding_one_player_is_a_closed_pool_and_an_improbable_result() -> None:
    # Four players of 1800 meet four times each (12 rounds); player 1 wins all twelve of his games.
    # Table 8.1.2 at D = 0 gives 0.50: E = 12 × 0.5 = 6, V = 12 × 0.25 = 3, z = (12 − 6) / √3 = 3.46.
    players = [1, 2, 3, 4]
    games, rnd = [], 0
    for _cycle in range(4):
        for a, b in ((1, 2), (3, 4)), ((1, 3), (2, 4)), ((1, 4), (2, 3)):
            rnd += 1
            games.append(_game(10, rnd, *a, "1"))
            games.append(_game(10, rnd, *b, "="))
    window = Window({10: _event(10, players, 12, days=4)}, games, {10: dict.fromkeys(players, 1800)}, {}, {})
    found = screen(window, [10])[10]
    pool = [s for s in found.signals if s.code == CLOSED_POOL]
    assert len(pool) == 1 and pool[0].level == "medium"
    assert pool[0].players == (1, 2, 3, 4)  # the fed player first
    assert pool[0].evidence["top_z"] == 3.46 and pool[0].evidence["meetings_per_pair"] == 4.0
    improbable = [s for s in found.signals if s.code == IMPROBABLE_RESULT]
    assert [s.players for s in improbable] == [(1,)]
    assert improbable[0].evidence == {"games": 12, "score": 12.0, "expected": 6.0, "z": 3.46, "rating": 1800}
    # Two different codes at medium on player 1: the event is high.
    assert found.level == "high"


def test_a_month_against_opponents_500_below_is_farming_with_the_caps_gift() -> None:
    # 2000 (K 20) beats ten players of 1500. Table 8.1.2: D = 500 gives 0.96, the cap's D = 400 gives 0.92.
    # Capped change 20 × 10 × (1 − 0.92) = 16.00; uncapped 20 × 10 × (1 − 0.96) = 8.00; the cap gave 8.00.
    opponents = list(range(2, 12))
    games = [_game(20, r, 1, opp, "1") for r, opp in enumerate(opponents, start=1)]
    ratings = {1: 2000, **dict.fromkeys(opponents, 1500)}
    window = Window({20: _event(20, [1, *opponents], 10, days=10)}, games, {20: ratings}, {1: 20}, {})
    found = screen(window, [20])[20]
    farming = [s for s in found.signals if s.code == CAP_FARMING]
    assert len(farming) == 1 and farming[0].players == (1,) and farming[0].level == "medium"
    assert farming[0].evidence == {
        "games": 10,
        "games_beyond_cap": 10,
        "share": 1.0,
        "cap_gain": 8.0,
        "capped_change": 16.0,
        "uncapped_change": 8.0,
    }


def test_farming_needs_the_cap_to_give_enough() -> None:
    # Against 1590 (D = 410: 0.92 either way) the cap gives nothing: no signal.
    games = [_game(21, r, 1, opp, "1") for r, opp in enumerate(range(2, 12), start=1)]
    ratings = {1: 2000, **dict.fromkeys(range(2, 12), 1590)}
    window = Window({21: _event(21, list(range(1, 12)), 10, days=10)}, games, {21: ratings}, {1: 20}, {})
    assert CAP_FARMING not in _codes(screen(window, [21])[21].signals)


def test_thirty_newcomers_in_alphabetical_order_losing_to_one_player_are_a_fabricated_field() -> None:
    newcomers = list(range(2, 32))
    names = {p: f"A{chr(ord('a') + i % 26)}{i:02d}, Invented" for i, p in enumerate(newcomers)}
    names[1] = "Winner, Real"
    games = [_game(30, r, 1, p, "1") for r, p in enumerate(newcomers, start=1)]
    window = Window({30: _event(30, [1, *newcomers], 30, days=10)}, games, {30: {1: 1900}}, {}, names)
    signal = next(s for s in screen(window, [30])[30].signals if s.code == FABRICATED_FIELD)
    assert signal.players[0] == 1 and set(signal.players[1:]) == set(newcomers)
    assert signal.evidence["newcomers"] == 30 and signal.evidence["newcomer_score_share"] == 0.0
    assert signal.evidence["top_winner_share"] == 1.0 and signal.evidence["initial"] == "A"
    assert signal.level == "high"  # all on "A", and none played anyone else in the window


def test_newcomers_who_score_like_anyone_else_are_no_fabricated_field() -> None:
    # Twenty newcomers playing each other (a junior event): half the points, no one winner.
    players = list(range(1, 21))
    games = [_game(31, 1, a, a + 1, "1" if a % 4 == 1 else "0") for a in range(1, 20, 2)]
    names = {p: f"Surname{p}, Junior" for p in players}
    window = Window({31: _event(31, players, 1)}, games, {31: {}}, {}, names)
    assert FABRICATED_FIELD not in _codes(screen(window, [31])[31].signals)


def test_a_player_in_two_events_on_the_same_days_is_a_schedule_clash() -> None:
    first, second = _event(40, [1, 2, 3], 2), _event(41, [1, 4, 5], 2)
    games = [_game(40, 1, 1, 2, "1", DAY), _game(41, 1, 1, 4, "=", DAY)]
    window = Window({40: first, 41: second}, games, {40: {}, 41: {}}, {}, {})
    found = screen(window, [40, 41])
    for event_id, other in ((40, 41), (41, 40)):
        clash = [s for s in found[event_id].signals if s.code == SCHEDULE_CLASH]
        assert len(clash) == 1 and clash[0].players == (1,) and clash[0].level == "medium"
        assert clash[0].evidence["other_event"] == other and clash[0].evidence["overlap_days"] == 2
        assert clash[0].evidence["players_with_games_on_the_same_date"] == 1


def test_a_league_over_months_does_not_clash_with_a_weekend() -> None:
    league = _event(42, [1, 2], 1, start=dt.date(2025, 9, 1), days=30)
    weekend = _event(43, [1, 3], 1)
    window = Window({42: league, 43: weekend}, [], {}, {}, {})
    assert SCHEDULE_CLASH not in _codes(screen(window, [42, 43])[43].signals)


def test_nine_standard_rounds_in_one_day_are_too_many() -> None:
    event = _event(44, [1, 2], 9, days=1)
    found = screen(Window({44: event}, [], {}, {}, {}), [44])[44]
    assert [s.evidence for s in found.signals if s.code == TOO_MANY_ROUNDS] == [
        {"rounds": 9, "days": 1, "rounds_per_day_allowed": 3, "most_rounds_on_one_date": 0}
    ]


def _swiss(event_id: int, offset: int) -> list[ScreenGame]:
    """Six players, three rounds, results in a fixed pattern; players numbered from `offset`."""
    p = [offset + i for i in range(6)]
    rounds = [((0, 1), (2, 3), (4, 5)), ((1, 2), (3, 4), (5, 0)), ((0, 3), (1, 4), (2, 5))]
    results = ["1", "=", "0", "1", "1", "=", "0", "1", "="]
    games, i = [], 0
    for rnd, pairs in enumerate(rounds, start=1):
        for a, b in pairs:
            games.append(_game(event_id, rnd, p[a], p[b], results[i]))
            i += 1
    return games


def test_a_copied_crosstable_with_other_names_and_ranks_is_a_duplicate() -> None:
    original = _swiss(50, 1)
    # The copy: other player ids (other names), listed in another order.
    copy = list(reversed(_swiss(51, 101)))
    assert crosstable_shape(original) == crosstable_shape(copy)
    events = {50: _event(50, list(range(1, 7)), 3), 51: _event(51, list(range(101, 107)), 3)}
    thresholds = IntegrityThresholds(duplicate_min_games=9)
    found = screen(Window(events, original + copy, {}, {}, {}), [51], thresholds)[51]
    duplicate = [s for s in found.signals if s.code == DUPLICATE_RESULTS]
    assert len(duplicate) == 1 and duplicate[0].evidence["other_event"] == 50
    assert duplicate[0].players == tuple(range(101, 107)) and found.level == "high"


def test_one_changed_result_is_no_duplicate() -> None:
    copy = _swiss(51, 101)
    copy[0] = _game(51, 1, 101, 102, "=")
    assert crosstable_shape(_swiss(50, 1)) != crosstable_shape(copy)


def test_a_pair_meeting_more_often_than_a_swiss_explains_is_a_repeated_pairing() -> None:
    # Five one-round events in the window where 1 beats 2 each time: the formats explain 5 meetings, not
    # more — so a sixth game in a Swiss of 5 rounds among 8 (explained once) makes 6 > 5.
    events = {e: _event(e, [1, 2], 1, start=DAY + dt.timedelta(days=20 * e)) for e in range(5)}
    events[5] = _event(5, [1, 2, 3, 4, 5, 6, 7, 8], 5, start=DAY + dt.timedelta(days=200))
    games = [_game(e, 1, 1, 2, "1") for e in range(5)] + [_game(5, 1, 1, 2, "1"), _game(5, 2, 2, 1, "0")]
    found = screen(Window(events, games, {}, {}, {}), [5])[5]
    repeated = [s for s in found.signals if s.code == REPEATED_PAIRING]
    assert len(repeated) == 1 and repeated[0].players == (1, 2) and repeated[0].level == "medium"
    assert repeated[0].evidence["games"] == 7 and repeated[0].evidence["explained_by_format"] == 6


def test_an_event_without_signals_is_none_and_one_medium_is_medium() -> None:
    assert report(1, []).level == "none"
    medium = Signal(IMPROBABLE_RESULT, "medium", (1,), {}, "")
    low = Signal(REPEATED_PAIRING, "low", (1, 2), {}, "")
    assert report(1, [low, medium]).level == "medium"
    assert report(1, [low, medium]).signals == (medium, low)


def test_the_rule_files_integrity_table_sets_thresholds() -> None:
    assert parse_rule_set(STANDARD).integrity == DEFAULT_THRESHOLDS
    text = STANDARD + "\n[integrity]\nimprobable_z = 3.5\nmax_rounds_per_day = 2\n"
    rules = parse_rule_set(text)
    assert rules.integrity.improbable_z == 3.5 and rules.integrity.max_rounds_per_day == 2
    assert (
        rules.integrity.window_months == DEFAULT_THRESHOLDS.window_months
    )  # a key left out keeps its default


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("improbable_zz = 3", "integrity.improbable_zz: unknown key"),
        ("improbable_z = 0.5", "integrity.improbable_z: 0.5 is out of range"),
        ("window_months = 1.5", "integrity.window_months: 1.5 is not a whole number"),
    ],
)
def test_a_wrong_integrity_key_is_refused_by_name(table: str, message: str) -> None:
    with pytest.raises(RuleFileError, match=message):
        parse_rule_set(STANDARD + f"\n[integrity]\n{table}\n")
