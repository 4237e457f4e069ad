"""K on a new list from stored state, in the order of §8.3.3."""

from __future__ import annotations

from datetime import date

import pytest

from ratingdb.rating import is_junior, k_factor

LIST_2026 = date(2026, 1, 1)


def _k(
    *, reached_2400: bool = False, reached_2300: bool = False, birth: int | None = 1990, games: int = 100
) -> int:
    decision = k_factor(
        reached_2400=reached_2400,
        reached_2300=reached_2300,
        birth_year=birth,
        games_total=games,
        list_date=LIST_2026,
    )
    return decision.k


def test_a_player_who_ever_reached_2400_keeps_k_10_even_with_few_games_and_as_a_junior() -> None:
    assert _k(reached_2400=True, reached_2300=True, games=12) == 10
    assert _k(reached_2400=True, reached_2300=True, birth=2012, games=12) == 10


def test_a_junior_who_never_reached_2300_has_k_40() -> None:
    # 2026 − 2008 = 18 ≤ 18: still a junior until the end of the year of the 18th birthday.
    decision = k_factor(
        reached_2400=False, reached_2300=False, birth_year=2008, games_total=200, list_date=LIST_2026
    )
    assert decision.k == 40
    assert decision.rule == "junior (18 or younger in 2026) who never reached 2300 → K 40 (§8.3.3)"


def test_a_junior_who_once_reached_2300_has_k_20_after_30_games() -> None:
    assert _k(reached_2300=True, birth=2010, games=200) == 20


def test_a_junior_who_reached_2300_with_fewer_than_30_games_still_has_k_40_as_a_new_player() -> None:
    assert _k(reached_2300=True, birth=2010, games=29) == 40


def test_a_player_of_19_is_no_longer_a_junior() -> None:
    # 2026 − 2007 = 19 > 18
    assert _k(birth=2007, games=200) == 20


@pytest.mark.parametrize(("games", "k"), [(0, 40), (29, 40), (30, 20), (500, 20)])
def test_fewer_than_30_games_in_total_gives_k_40(games: int, k: int) -> None:
    assert _k(games=games) == k


def test_an_unknown_birth_year_is_not_a_junior() -> None:
    assert _k(birth=None, games=100) == 20
    assert not is_junior(None, 2026)


def test_junior_age_is_counted_by_list_year() -> None:
    assert is_junior(2008, 2026)
    assert not is_junior(2007, 2026)


def test_each_decision_names_its_rule() -> None:
    assert (
        "2400"
        in k_factor(
            reached_2400=True, reached_2300=True, birth_year=None, games_total=5, list_date=LIST_2026
        ).rule
    )
    assert (
        "fewer than 30"
        in k_factor(
            reached_2400=False, reached_2300=False, birth_year=None, games_total=5, list_date=LIST_2026
        ).rule
    )
