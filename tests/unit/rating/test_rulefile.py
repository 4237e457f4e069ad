"""Rule sets as TOML text: FIDE's shipped files, and files refused with the key and the reason."""

from __future__ import annotations

from importlib import resources

import pytest

from ratingdb.rating import (
    FIDE_2024_INITIAL,
    FIDE_K_RULES,
    RULE_SETS,
    InitialMethod,
    KRule,
    Period,
    RuleFileError,
    parse_rule_set,
)

FIDE_FILES = resources.files("ratingdb.rating").joinpath("fide")
STANDARD_2025_10 = FIDE_FILES.joinpath("standard-2025-10.toml").read_text("utf-8")


def _edit(old: str, new: str, text: str = STANDARD_2025_10) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_the_current_standard_file_states_fides_rules_of_october_2025() -> None:
    rules = parse_rule_set(STANDARD_2025_10)
    assert (rules.name, rules.rating_type, rules.effective_from, rules.effective_to) == (
        "standard-2025-10", "standard", Period(2025, 10), None
    )  # fmt: skip
    assert (rules.cap, rules.cap_exempt_from, rules.one_upgrade_per_tournament) == (400, 2650, False)
    assert (rules.exclusion_difference, rules.exclusion_above) == (None, None)
    assert (rules.floor, rules.below_floor, rules.k_times_games_max) == (1400, "unrated", 700)
    assert rules.k_rules == FIDE_K_RULES
    assert rules.k_rules[1] == KRule(40, junior_max_age=18, unless_reached=2300)
    assert rules.initial == FIDE_2024_INITIAL == InitialMethod("fide-2024", 5, 26, 2200, True, None)
    assert (rules.expected, rules.rounding) == ("table", "half_away")


def test_every_shipped_file_is_a_rule_set_named_as_its_file() -> None:
    names = sorted(entry.name for entry in resources.files("ratingdb.rating").joinpath("fide").iterdir())
    assert sorted(f"{rules.name}.toml" for rules in RULE_SETS) == names


def test_none_switches_a_rule_off_and_a_fixed_start_rating_is_read() -> None:
    text = _edit("difference = 400 ", 'difference = "none"')
    text = _edit("exempt_from = 2650", 'exempt_from = "none"', text)
    text = _edit("times_games_max = 700", 'times_games_max = "none"', text)
    text = _edit('method = "fide-2024"', 'method = "fixed"\nstart_rating = 1000', text)
    rules = parse_rule_set(text)
    assert (rules.cap, rules.cap_exempt_from, rules.k_times_games_max) == (None, None, None)
    assert (rules.initial.name, rules.initial.start_rating) == ("fixed", 1000)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('name = "standard-2025-10"\n', "", "rule file: name: missing: write the rule set's name"),
        ("rating = 1400", 'rating = "low"', "rule file: floor.rating: 'low' is not a whole number"),
        ("rating = 1400", "rating = -5", "rule file: floor.rating: -5 is out of range: write a whole number"),
        (
            'effective_from = "2025-10"',
            'effective_from = "2025-13"',
            "rule file: effective_from: '2025-13' is",
        ),
        ('rounding = "half_away"', 'rounding = "bankers"', "rule file: rounding: 'bankers' is not one of"),
        (
            "one_upgrade_per_tournament = false",
            "one_upgrade = false",
            "rule file: cap.one_upgrade_per_tournament",
        ),
        (
            'below = "unrated"',
            'below = "unrated"\nbelow_note = 1',
            "rule file: floor.below_note: unknown key",
        ),
        ("reached = 2400", "reached = 2200", "rule file: k.rule[1].reached: 2200 is not tracked"),
        ('junior_until = "end_of_year"', 'junior_until = "birthday"', "rule file: k.rule[2].junior_until: "),
        (
            "[[k.rule]]                      # the last rule has no condition\nvalue = 20\n",
            "",
            "rule file: k.rule[3]: the last K rule must have no condition",
        ),
        ('method = "fide-2024"', 'method = "fixed"', "rule file: initial.start_rating: missing"),
        (
            'rating_type = "standard"',
            'rating_type = "national list"',
            "rule file: rating_type: 'national list'",
        ),
        ("[floor]", "[floor\n", "rule file: not valid TOML"),
    ],
)
def test_a_bad_rule_file_is_refused_with_the_key_and_the_reason(old: str, new: str, message: str) -> None:
    with pytest.raises(RuleFileError) as refused:
        parse_rule_set(_edit(old, new))
    assert str(refused.value).startswith(message)


def test_the_error_names_the_file_it_came_from() -> None:
    with pytest.raises(RuleFileError, match=r"^national\.toml: cap\.difference: 'x' is not a whole number"):
        parse_rule_set(_edit("difference = 400 ", 'difference = "x"'), source="national.toml")
