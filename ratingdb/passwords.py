"""Which passwords the served site refuses, as NIST SP 800-63B (section 5.1.1.2) asks: pure, no database.

- **Length, not composition.** At least MIN_LENGTH[role] characters (12 for officers and admins, who can
  change every rating; 8 for organisers, who send files), at most MAX_LENGTH; every character counts,
  spaces and any script included, and no rule asks for digits, capitals or symbols.
- **Commonly used or breached passwords**, checked against the whole password: the list of the 30,000
  most common passwords of Mark Burnett's ten-million-password corpus (xato.net, 2015) as the zxcvbn
  package ships it (PyPI `zxcvbn`, MIT licence; its `frequency_lists.FREQUENCY_LISTS["passwords"]`), found
  by zxcvbn's own matchers, so a capitalised, reversed or l33t-spelt entry (`Password123`, `321drowssap`,
  `p@ssw0rd`) is found too; and a password that is one word or name of zxcvbn's other lists (English
  words, names and surnames, film and television words).
- **Patterns an attacker tries first**, which zxcvbn's list leaves out because its matchers find them: the
  whole password one character or piece repeated (`aaaaaaaaaaaa`, `abcabcabcabc`), a run (`abcdefghijkl`,
  `987654321098`), a row of the keyboard or a date.
- **Context-specific words**: the account's name and the site's name (the served site's title), each
  compared with letters and digits only, whatever the case (`Irish-Chess-Union!` contains "Irish Chess
  Union"); names shorter than NAME_LEAST letters are not looked for, or every password with "al" in it
  would be refused for al.

`weakness` says why a password is refused, as a catalogue message and its values (refusals are data: the
CLI prints the English sentence, the desk the page's language). Imports i18n and zxcvbn only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from zxcvbn.matching import omnimatch

from ratingdb.i18n import N_

MIN_LENGTH: Final = {"organiser": 8, "officer": 12, "admin": 12}
MAX_LENGTH: Final = 1000  # argon2 takes any length; a megabyte "password" is a denial of service
# zxcvbn's matchers look at every piece of the password (quadratic in its length): beyond this many
# characters a whole-password match with a list or a pattern is no longer possible but for a repeat, which
# `_repeats` finds at any length.
MATCHED_LENGTH: Final = 128
NAME_LEAST: Final = 4

TOO_SHORT: Final = N_("the password is shorter than %(minimum)d characters — choose a longer one")
TOO_LONG: Final = N_("the password is longer than %(maximum)d characters — choose a shorter one")
COMMON: Final = N_(
    "the password is on a list of commonly used or breached passwords, which attackers try first — "
    "choose another"
)
ONE_WORD: Final = N_("the password is one common word or name — choose a few words instead")
PATTERN: Final = N_(
    "the password is a simple pattern (a character or piece repeated, a run such as 12345 or abcde, a row "
    "of the keyboard or a date) — choose another"
)
USER_NAME: Final = N_("the password contains the account's name — choose another")
SITE_NAME: Final = N_("the password contains the site's name — choose another")

_PATTERNS: Final = frozenset({"repeat", "sequence", "spatial", "date"})


@dataclass(frozen=True)
class Weakness:
    """Why a password is refused: a catalogue message (one of this module's) and its values."""

    message: str
    values: dict[str, object] = field(default_factory=dict)

    def sentence(self) -> str:
        """The English sentence (the CLI's and the API's)."""
        return self.message % self.values


def minimum_length(role: str) -> int:
    """The fewest characters a password of `role` may have (the longest minimum for a role not known)."""
    return MIN_LENGTH.get(role, max(MIN_LENGTH.values()))


def weakness(password: str, *, role: str, user_name: str = "", site_name: str = "") -> Weakness | None:
    """Why `password` may not be set for an account of `role` named `user_name` on the site `site_name`,
    or None when it may. What makes a password guessable is said before its length: `password123` is
    refused as a common password for an admin too, so that no one lengthens it to `password1234`."""
    if len(password) > MAX_LENGTH:
        return Weakness(TOO_LONG, {"maximum": MAX_LENGTH})
    plain = _letters_and_digits(password)
    if _contains(plain, user_name):
        return Weakness(USER_NAME)
    if _contains(plain, site_name):
        return Weakness(SITE_NAME)
    if _repeats(password):
        return Weakness(PATTERN)
    if len(password) <= MATCHED_LENGTH:
        for match in omnimatch(password):
            if match["i"] != 0 or match["j"] != len(password) - 1:
                continue  # a part of the password: a longer password around a common word is a good one
            if match["pattern"] == "dictionary":
                return Weakness(COMMON if match["dictionary_name"] == "passwords" else ONE_WORD)
            if match["pattern"] in _PATTERNS:
                return Weakness(PATTERN)
    least = minimum_length(role)
    if len(password) < least:
        return Weakness(TOO_SHORT, {"minimum": least})
    return None


def _letters_and_digits(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def _contains(plain_password: str, name: str) -> bool:
    plain_name = _letters_and_digits(name)
    return len(plain_name) >= NAME_LEAST and plain_name in plain_password


def _repeats(password: str) -> bool:
    """Whether the password is one shorter piece written over and over (`aaaa`, `abcabc`, `xyzxyzx`…, the
    last time cut short or not): found at any length, in one pass (the piece is the shortest period)."""
    folded = password.casefold()
    period = _shortest_period(folded)
    return period <= len(folded) // 2


def _shortest_period(text: str) -> int:
    """The length of the shortest piece that `text` repeats (its own length if none): Knuth–Morris–Pratt's
    failure function, whose last value is the longest proper prefix that is also a suffix."""
    border = [0] * len(text)
    k = 0
    for i in range(1, len(text)):
        while k and text[i] != text[k]:
            k = border[k - 1]
        if text[i] == text[k]:
            k += 1
        border[i] = k
    return len(text) - (border[-1] if text else 0)
