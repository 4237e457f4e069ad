"""Rule sets by period: the 400-point rule (§8.3.1) and the rapid/blitz 600/2600 exclusion."""

from __future__ import annotations

import pytest

from ratingdb.rating import (
    RATING_TYPES,
    RULE_SETS,
    Period,
    RulesError,
    capped_difference,
    excluded_by_difference,
    rule_set_for,
)

STANDARD_NOW = rule_set_for("standard", Period(2025, 10))
STANDARD_2024 = rule_set_for("standard", Period(2025, 9))


@pytest.mark.parametrize(
    ("rating_type", "period", "name"),
    [
        ("standard", Period(2024, 3), "standard-2024-03"),
        ("standard", Period(2025, 9), "standard-2024-03"),
        ("standard", Period(2025, 10), "standard-2025-10"),
        ("standard", Period(2030, 1), "standard-2025-10"),
        ("rapid", Period(2024, 11), "rapid-2024-03"),
        ("rapid", Period(2024, 12), "rapid-2024-12"),
        ("blitz", Period(2024, 11), "blitz-2024-03"),
        ("blitz", Period(2026, 5), "blitz-2024-12"),
        ("standard", Period(2022, 1), "standard-2022-01"),
        ("standard", Period(2024, 2), "standard-2022-01"),
        ("rapid", Period(2022, 9), "rapid-2022-01"),
        ("rapid", Period(2022, 10), "rapid-2022-10"),
        ("blitz", Period(2024, 2), "blitz-2022-10"),
    ],
)
def test_the_rule_set_is_chosen_by_rating_type_and_the_period_closed(
    rating_type: str, period: Period, name: str
) -> None:
    assert rule_set_for(rating_type, period).name == name  # type: ignore[arg-type]


def test_every_rating_type_has_exactly_one_rule_set_for_every_period_since_january_2022() -> None:
    period = Period(2022, 1)
    while period <= Period(2027, 12):
        for rating_type in RATING_TYPES:
            assert sum(rules.covers(rating_type, period) for rules in RULE_SETS) == 1
        period = period.shift(1)


def test_a_period_before_the_2022_regulations_has_no_built_in_rule_set() -> None:
    with pytest.raises(RulesError, match="no standard rule set covers period 2021-12"):
        rule_set_for("standard", Period(2021, 12))


def test_a_federation_can_supply_its_own_rule_sets() -> None:
    older = STANDARD_2024.__class__("standard-old", "standard", None, Period(2024, 2), 400, None, None, None)
    assert rule_set_for("standard", Period(2020, 1), (*RULE_SETS, older)) is older


def test_overlapping_rule_sets_are_refused() -> None:
    with pytest.raises(RulesError, match="2 standard rule sets cover period 2025-10"):
        rule_set_for("standard", Period(2025, 10), (*RULE_SETS, STANDARD_NOW))


def test_an_unknown_rating_type_is_refused() -> None:
    with pytest.raises(RulesError, match="is not a rating type"):
        rule_set_for("bullet", Period(2025, 10))  # type: ignore[arg-type]


def test_since_october_2025_a_2813_player_uses_the_real_difference_but_the_2400_player_is_capped() -> None:
    assert capped_difference(2813, 2400, STANDARD_NOW) == 413
    assert capped_difference(2400, 2813, STANDARD_NOW) == -400


def test_the_2650_exemption_is_inclusive() -> None:
    assert capped_difference(2650, 2150, STANDARD_NOW) == 500
    assert capped_difference(2649, 2149, STANDARD_NOW) == 400


def test_before_october_2025_the_cap_applies_to_every_player() -> None:
    assert capped_difference(2813, 2400, STANDARD_2024) == 400
    assert capped_difference(2650, 2150, STANDARD_2024) == 400


def test_differences_within_400_are_never_changed() -> None:
    for rules in RULE_SETS:
        assert capped_difference(2400, 2000, rules) == 400
        assert capped_difference(2000, 2399, rules) == -399


def test_rapid_and_blitz_cap_every_player_even_above_2650() -> None:
    rapid = rule_set_for("rapid", Period(2025, 10))
    assert capped_difference(2800, 2300, rapid) == 400


def test_without_cap_uses_the_real_difference_for_the_calculator() -> None:
    no_cap = STANDARD_NOW.without_cap()
    assert capped_difference(2400, 2813, no_cap) == -413
    assert no_cap.name == "standard-2025-10-no-cap"
    assert STANDARD_NOW.cap == 400  # the original is untouched


@pytest.mark.parametrize(
    ("a", "b", "excluded"),
    [
        (2601, 2001, True),  # difference 600, one player above 2600
        (2001, 2601, True),  # symmetric
        (2700, 1900, True),
        (2600, 2000, False),  # 2600 is not above 2600
        (2601, 2002, False),  # difference 599
        (2500, 1800, False),  # nobody above 2600
    ],
)
def test_rapid_games_600_apart_with_a_player_above_2600_are_not_rated_from_december_2024(
    a: int, b: int, excluded: bool
) -> None:
    assert excluded_by_difference(a, b, rule_set_for("rapid", Period(2024, 12))) is excluded
    assert excluded_by_difference(a, b, rule_set_for("blitz", Period(2025, 6))) is excluded


def test_the_exclusion_does_not_exist_before_december_2024_nor_in_standard() -> None:
    assert not excluded_by_difference(2700, 1900, rule_set_for("rapid", Period(2024, 11)))
    assert not excluded_by_difference(2700, 1900, STANDARD_NOW)
