"""Which passwords are refused (ratingdb.passwords, NIST SP 800-63B 5.1.1.2): length by role, no
composition rules, the common-password list, patterns, the account's and the site's name."""

from __future__ import annotations

import pytest

from ratingdb import passwords
from ratingdb.passwords import weakness

SITE = "Irish Chess Union"


@pytest.mark.parametrize(
    ("password", "role", "why"),
    [
        # Length: 12 for officers and admins, 8 for organisers; every character counts.
        ("elevenchars", "officer", passwords.TOO_SHORT),
        ("elevenchars", "admin", passwords.TOO_SHORT),
        ("sevench", "organiser", passwords.TOO_SHORT),
        ("x" * 1001, "admin", passwords.TOO_LONG),
        # On zxcvbn's list of the 30,000 most common (password123 is its 260th or so), whatever the case,
        # reversed or l33t-spelt.
        ("password123", "organiser", passwords.COMMON),
        ("Password123", "organiser", passwords.COMMON),
        ("321drowssap", "organiser", passwords.COMMON),
        ("1qaz2wsx3edc", "admin", passwords.COMMON),
        ("p@ssword", "organiser", passwords.COMMON),
        # One word of the English, names and film lists, not a password of the list.
        ("successfully", "admin", passwords.ONE_WORD),
        # Patterns left off the list because zxcvbn's matchers find them.
        ("aaaaaaaaaaaa", "admin", passwords.PATTERN),
        ("abcabcabcabc", "admin", passwords.PATTERN),
        ("abcdefghijklm", "admin", passwords.PATTERN),
        ("19/07/1987", "organiser", passwords.PATTERN),
        ("ab" * 400, "admin", passwords.PATTERN),  # a repeat is found beyond zxcvbn's reach too
        # The account's and the site's names, compared as letters and digits whatever the case.
        ("mary's favourite game", "admin", passwords.USER_NAME),
        ("irish-chess-union!", "admin", passwords.SITE_NAME),
        (SITE, "admin", passwords.SITE_NAME),
    ],
)
def test_a_weak_password_is_refused_with_its_one_reason(password: str, role: str, why: str) -> None:
    found = weakness(password, role=role, user_name="mary", site_name=SITE)
    assert found is not None and found.message == why


@pytest.mark.parametrize(
    ("password", "role"),
    [
        ("tulip garden", "organiser"),  # 12 characters, spaces count: no digit, capital or symbol asked for
        ("kerrygold", "organiser"),  # 9 letters, in no list
        ("correct horse battery", "admin"),
        ("schöne Grüße aus Köln", "officer"),  # any script
        ("a" * 5 + "Zq9!" + "b" * 5, "admin"),  # repeats inside a longer password are no whole pattern
        ("chess is my favourite game", "admin"),  # a word of the site's name is not its name
        ("al" + "pine meadow", "admin"),  # "al" is shorter than NAME_LEAST: not looked for
    ],
)
def test_a_long_enough_password_of_no_list_pattern_or_name_is_taken(password: str, role: str) -> None:
    user = "al" if password.startswith("al") else "mary"
    assert weakness(password, role=role, user_name=user, site_name=SITE) is None


def test_each_refusal_is_one_sentence_with_its_values() -> None:
    assert weakness("shrt pw", role="officer") == passwords.Weakness(passwords.TOO_SHORT, {"minimum": 12})
    assert weakness("shrt pw", role="officer").sentence() == (  # type: ignore[union-attr]
        "the password is shorter than 12 characters — choose a longer one"
    )
    for message in (passwords.COMMON, passwords.ONE_WORD, passwords.PATTERN, passwords.USER_NAME,
                    passwords.SITE_NAME, passwords.TOO_SHORT, passwords.TOO_LONG):  # fmt: skip
        assert message.count(" — ") == 1 and "." not in message.replace("e.g.", "")
