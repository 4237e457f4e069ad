"""Limits every reader applies and the database CHECKs state (ratingdb.schema.checks); imports: stdlib."""

# Lengths mirror ratingdb.schema.models (a test keeps them in step). A number changed here changes what the
# readers accept at once, but the database only through a new migration replacing the constraints naming it.

from __future__ import annotations

import re

PLAYER_NAME = 120  # player.name
NATIONAL_ID = 20  # player.national_id
FEDERATION = 3  # player.federation, event.federation
EVENT_NAME = 200  # event.name
CITY = 100  # event.city
SECTION = 100  # event.section, event_label.section (import-trf --section, event edit --section)
TIME_CONTROL = 100  # event.time_control

FILE_NAME = 255  # rating_list.source, event.source_name, rule_set.source
RULE_SET_NAME = 64  # rule_set.name (ratingdb.rating.rulefile allows 64 characters)
LIST_RULES = 40  # rating_list.rules: the name of the rule set a list was computed under

FIDE_ID_MAX = 99_999_999_999  # the eleven columns TRF gives a FIDE ID; player.fide_id is a BIGINT
RATING_MAX = 3999  # a published rating has four digits
GAMES_MAX = 9999  # rated games in one period (the list's games column)
GAMES_TOTAL_MAX = 999_999
K_MAX = 100  # K in a list file
K_STORED_MAX = 1000  # K on a computed list: a federation's rule file may set up to this (rating.rulefile)
ROUNDS_MAX = 199
BIRTH_YEARS = (1000, 9999)  # a birth year has four digits
LINE_MAX = 65_536  # characters in one line of a TRF or FIDE text list: 6,500 rounds, far beyond any event
# A tournament report of the largest open has a few hundred kilobytes; a file far beyond this is not one.
MAX_TRF_BYTES = 20_000_000
# The result codes a TRF game may carry (the database's CHECK on game results is made from them, and
# reads them here so that loading the models does not load the TRF reader).
RESULT_CODES = frozenset("1=0+-WDLHFUZ")

TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM")

# C0 and C1 control characters, DEL, line/paragraph separators and the bidirectional overrides and
# isolates: never part of a name, and on a terminal they can rewrite what is shown. Inclusive code point
# ranges; the readers and the database's CHECK constraints (ratingdb.schema.checks) both read them from here.
REFUSED_RANGES = (
    (0x00, 0x1F), (0x7F, 0x9F), (0x061C, 0x061C), (0x200E, 0x200F), (0x2028, 0x2029), (0x202A, 0x202E),
    (0x2066, 0x2069),
)  # fmt: skip
_REFUSED = re.compile(
    "["
    + "".join(re.escape(chr(a)) + ("" if a == b else "-" + re.escape(chr(b))) for a, b in REFUSED_RANGES)
    + "]"
)


def control_character(text: str) -> tuple[int, str] | None:
    """(0-based offset, description) of the first refused character in `text`, or None."""
    found = _REFUSED.search(text)
    if found is None:
        return None
    return found.start(), f"U+{ord(found.group()):04X}"


def ascii_digits(text: str) -> bool:
    """Whether `text` is a non-empty run of 0-9 (str.isdigit also accepts '³' and other scripts' digits)."""
    return text.isascii() and text.isdigit()
