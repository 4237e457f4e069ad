"""A rule file of system "glicko2": the [glicko2] table parsed, Elo keys and bad values refused."""

from __future__ import annotations

import pytest

from ratingdb.rating import Period, RuleFileError, parse_rule_set
from ratingdb.rating.glicko2 import Glicko2Parameters, Glicko2RuleSet

CLUB = """\
name = "club-glicko"
rating_type = "club"
system = "glicko2"
effective_from = "2025-01"

[glicko2]
tau = 0.5
initial_rating = 1500
initial_deviation = 350
initial_volatility = 0.06
provisional_deviation = 110
"""


def _edit(old: str, new: str) -> str:
    assert old in CLUB, old
    return CLUB.replace(old, new, 1)


def test_a_glicko2_file_gives_a_glicko2_rule_set_with_its_parameters() -> None:
    rules = parse_rule_set(CLUB, source="club-glicko.toml")
    assert isinstance(rules, Glicko2RuleSet)
    assert (rules.name, rules.rating_type, rules.effective_from, rules.effective_to) == (
        "club-glicko", "club", Period(2025, 1), None
    )  # fmt: skip
    assert rules.system == "glicko2"
    assert rules.glicko2 == Glicko2Parameters(0.5, 1500, 350, 0.06, 110)
    assert rules.covers("club", Period(2026, 3)) and not rules.covers("standard", Period(2026, 3))
    # The Elo rules are off: nothing of them applies to a Glicko-2 list.
    assert (rules.cap, rules.exclusion_difference, rules.k_times_games_max, rules.floor) == (
        None,
        None,
        None,
        0,
    )


def test_no_provisional_threshold_is_written_none() -> None:
    rules = parse_rule_set(_edit("provisional_deviation = 110", 'provisional_deviation = "none"'))
    assert isinstance(rules, Glicko2RuleSet) and rules.glicko2.provisional_deviation is None
    assert not rules.glicko2.is_provisional(350)


def test_a_maximum_deviation_is_optional_and_left_out_means_the_papers_none() -> None:
    rules = parse_rule_set(CLUB)
    assert isinstance(rules, Glicko2RuleSet) and rules.glicko2.maximum_deviation is None
    assert rules.glicko2.deviation_limit == 350  # an imported list's deviations: at most the initial one
    limited = parse_rule_set(
        _edit("provisional_deviation = 110", "provisional_deviation = 110\nmaximum_deviation = 500")
    )
    assert isinstance(limited, Glicko2RuleSet) and limited.glicko2.maximum_deviation == 500
    assert limited.glicko2.deviation_limit == 500
    off = parse_rule_set(
        _edit("provisional_deviation = 110", 'provisional_deviation = 110\nmaximum_deviation = "none"')
    )
    assert isinstance(off, Glicko2RuleSet) and off.glicko2.maximum_deviation is None


def test_an_elo_file_without_system_is_elo() -> None:
    from importlib import resources

    text = resources.files("ratingdb.rating").joinpath("fide", "standard-2025-10.toml").read_text("utf-8")
    assert not isinstance(parse_rule_set(text), Glicko2RuleSet)
    elo = parse_rule_set(text.replace('rating_type = "standard"', 'rating_type = "standard"\nsystem = "elo"'))
    assert elo == parse_rule_set(text)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('system = "glicko2"', 'system = "glicko3"',
         "system: 'glicko3' is not one of the choices: write \"elo\" or \"glicko2\" or \"glicko\""),
        ("tau = 0.5", "tau = 0", "glicko2.tau: 0 is out of range: write a number from 0.01 to 10"),
        ("tau = 0.5", 'tau = "half"',
         "glicko2.tau: 'half' is not a number: write a number from 0.01 to 10"),
        ("tau = 0.5\n", "", "glicko2.tau: missing: write a number from 0.01 to 10"),
        ("initial_deviation = 350", "initial_deviation = 0",
         "glicko2.initial_deviation: 0 is out of range: write a number from 1 to 1000"),
        ("provisional_deviation = 110", "provisional_deviation = 110\nprovisional = 50",
         "glicko2.provisional: unknown key: check its spelling against the documented keys"),
        ('effective_from = "2025-01"', 'effective_from = "2025-01"\nrounding = "half_away"',
         'rounding: an Elo rule: a system = "glicko2" rule set has none (see the [glicko2] keys)'),
        ("[glicko2]", "[glicko]", "glicko2: missing: write a [glicko2] table"),
        ("provisional_deviation = 110", "provisional_deviation = 110\nmaximum_deviation = 300",
         "glicko2.maximum_deviation: 300 is below initial_deviation 350: a newcomer would start above it"),
        ("provisional_deviation = 110", "provisional_deviation = 110\nmaximum_deviation = 0",
         'glicko2.maximum_deviation: 0 is out of range: write a number from 1 to 1000 or "none"'),
    ],
)  # fmt: skip
def test_a_bad_glicko2_file_is_refused_naming_the_key(old: str, new: str, message: str) -> None:
    with pytest.raises(RuleFileError) as caught:
        parse_rule_set(_edit(old, new), source="club-glicko.toml")
    assert str(caught.value) == f"club-glicko.toml: {message}"
