"""Limits every reader applies (lengths mirror ratingdb.models, a test keeps them in step); stdlib imports."""

from __future__ import annotations

import re

PLAYER_NAME = 120  # player.name
NATIONAL_ID = 20  # player.national_id
FEDERATION = 3  # player.federation, event.federation
EVENT_NAME = 200  # event.name
CITY = 100  # event.city
TIME_CONTROL = 100  # event.time_control

FIDE_ID_MAX = 99_999_999_999  # the eleven columns TRF gives a FIDE ID; player.fide_id is a BIGINT
RATING_MAX = 3999  # a published rating has four digits
GAMES_MAX = 9999  # rated games in one period (the list's games column)
GAMES_TOTAL_MAX = 999_999
K_MAX = 100
ROUNDS_MAX = 199
LINE_MAX = 65_536  # characters in one line of a TRF or FIDE text list: 6,500 rounds, far beyond any event
# A tournament report of the largest open has a few hundred kilobytes; a file far beyond this is not one.
MAX_TRF_BYTES = 20_000_000

# C0 and C1 control characters, DEL, line/paragraph separators and the bidirectional overrides and
# isolates: never part of a name, and on a terminal they can rewrite what is shown.
_REFUSED = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def control_character(text: str) -> tuple[int, str] | None:
    """(0-based offset, description) of the first refused character in `text`, or None."""
    found = _REFUSED.search(text)
    if found is None:
        return None
    return found.start(), f"U+{ord(found.group()):04X}"


def ascii_digits(text: str) -> bool:
    """Whether `text` is a non-empty run of 0-9 (str.isdigit also accepts '³' and other scripts' digits)."""
    return text.isascii() and text.isdigit()
