"""The notes the close stores with a calculation (and the K sentences `report period` quotes), as fixed
phrases, and their translation where shown.

The close writes its notes in English into the calculation record (calc_player.note, the list-event
note of calc_list_event, the Glicko-2 record) — the record is the federation's, read by the CLI and by
SQL, and must not depend on the language of whoever closed. The pages translate them when shown: each
note is one or more of the phrases below joined by "; ", and each phrase is a catalogue message with
named values, so the close formats the phrase (`BELOW_FLOOR_UNRATED % {...}`) and a page reads the
values back out of the stored text and formats the same phrase's translation. A part that is none of
these phrases (an older record's wording, a text someone wrote) is shown as it is.

Imports only the standard library and ratingdb.i18n: the close (services) and the pages both use it.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

from ratingdb.i18n import N_, Language

# ratingdb.services.systems.elo: the rated player's calculation (calc_player.note).
SUBSTITUTE: Final = N_("no %(type)s rating: rated with the standard rating %(rating)s (§7)")
BELOW_FLOOR_KEPT: Final = N_("new rating %(rating)s is below the floor of %(floor)s: kept at it")
BELOW_FLOOR_UNRATED: Final = N_(
    "new rating %(rating)s is below the floor of %(floor)s (§7.2.1): unrated on the new list"
)
# The unrated player's pool (§8.2).
POOL_RATED: Final = N_("first rating from %(n)s pooled games (§8.2)")
POOL_TOO_FEW: Final = N_("%(n)s games in the pool, %(needed)s more needed (§8.2.2)")
POOL_BELOW_FLOOR: Final = N_("the pool gives %(rating)s, below %(floor)s: stays unrated (§7.2.1)")
FIRST_EVENT_ZERO: Final = N_("first event scored zero and is disregarded (§8.2.1)")
OLD_GAME_DROPPED: Final = N_("%(n)s game older than %(months)s months dropped (§7.1.4)")
OLD_GAMES_DROPPED: Final = N_("%(n)s games older than %(months)s months dropped (§7.1.4)")
# ratingdb.services.lists: an event older than every list of its type (calc_list_event.note).
BEFORE_EARLIEST_LIST: Final = N_(
    "the event started %(start)s, before the earliest %(type)s list in the database; ratings taken "
    "from that list (%(date)s)"
)
# ratingdb.services.systems.glicko2 (the Glicko-2 record's note).
GLICKO2_NO_DEVIATION: Final = N_(
    "no Glicko-2 deviation on the list in force: started at its rating %(rating)s with the initial "
    "deviation %(deviation)s and volatility %(volatility)s"
)
GLICKO2_NEWCOMER: Final = N_("not rated on the list in force: the newcomer's figures (Step 1)")
# ratingdb.services.systems.glicko (the Glicko record's note; a newcomer's is GLICKO2_NEWCOMER's words).
GLICKO_NO_DEVIATION: Final = N_(
    "no Glicko deviation on the list in force: started at its rating %(rating)s with the initial "
    "deviation %(deviation)s"
)

# ratingdb.rating.kfactor: the §8.3.3 rule that gives a K, as `report period` and the close page quote it
# (the rule module imports only the standard library, so it writes the same sentences itself; the
# catalogue test reads each of its sentences back through these).
K_REACHED: Final = N_("published rating reached %(rating)s at some time → K %(k)s (§8.3.3)")
K_JUNIOR_NEVER: Final = N_(
    "junior (%(age)s or younger in %(year)s) who never reached %(rating)s → K %(k)s (§8.3.3)"
)
K_JUNIOR: Final = N_("junior (%(age)s or younger in %(year)s) → K %(k)s (§8.3.3)")
K_FEWER: Final = N_("%(games)s rated games in total, fewer than %(fewer)s → K %(k)s (§8.3.3)")
K_GAMES_NEVER: Final = N_("%(games)s rated games and never reached %(rating)s → K %(k)s (§8.3.3)")
K_NEVER: Final = N_("never reached %(rating)s → K %(k)s (§8.3.3)")
K_GAMES: Final = N_("%(games)s rated games → K %(k)s (§8.3.3)")
K_EVERY: Final = N_("every player → K %(k)s (§8.3.3)")

PHRASES: Final = (
    SUBSTITUTE,
    BELOW_FLOOR_KEPT,
    BELOW_FLOOR_UNRATED,
    POOL_RATED,
    POOL_TOO_FEW,
    POOL_BELOW_FLOOR,
    FIRST_EVENT_ZERO,
    OLD_GAME_DROPPED,
    OLD_GAMES_DROPPED,
    BEFORE_EARLIEST_LIST,
    GLICKO2_NO_DEVIATION,
    GLICKO2_NEWCOMER,
    GLICKO_NO_DEVIATION,
    K_REACHED,
    K_JUNIOR_NEVER,
    K_JUNIOR,
    K_FEWER,
    K_GAMES_NEVER,
    K_NEVER,
    K_GAMES,
    K_EVERY,
)
# Values that are words, not figures: translated with the phrase (the rating type of the sentence).
_TYPE_VALUES: Final = frozenset({"type"})
_PLACEHOLDER: Final = re.compile(r"%\((\w+)\)s")


@cache
def _pattern(phrase: str) -> re.Pattern[str]:
    """The phrase as a regular expression whose named groups are its values."""
    parts: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(phrase):
        parts.append(re.escape(phrase[position : match.start()]))
        parts.append(f"(?P<{match.group(1)}>.+?)")
        position = match.end()
    parts.append(re.escape(phrase[position:]))
    return re.compile("".join(parts))


def parse(part: str, phrases: tuple[str, ...] = PHRASES) -> tuple[str, dict[str, str]] | None:
    """The phrase a stored part is, with its values; None when it is none of them."""
    for phrase in phrases:
        found = _pattern(phrase).fullmatch(part)
        if found is not None:
            return phrase, found.groupdict()
    return None


def shown_phrase(part: str, lang: Language, phrases: tuple[str, ...] = PHRASES) -> str:
    """One part in `lang` when it is one of `phrases` (its values kept, a rating type translated), else
    as it is."""
    found = parse(part, phrases)
    if found is None:
        return part
    phrase, values = found
    for name in _TYPE_VALUES & values.keys():
        values[name] = lang.type_word(values[name])
    return lang.gettext(phrase) % values


def shown_note(note: str, lang: Language) -> str:
    """A stored note in `lang`: each known phrase translated with its values, any other part as it is."""
    if lang.code == "en":
        return note
    return "; ".join(shown_phrase(part, lang) for part in note.split("; "))
