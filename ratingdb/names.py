"""Player names for matching and search: normalised keys and similarity. Pure: no database, CLI or I/O.

Files spell one person many ways: "Kowalski, Jan", "KOWALSKI Jan", "Jan Kowalski", "Kowalski,Jan",
accents kept or dropped ("Örr, Mârk" / "Orr, Mark"). Matching compares the *key*: accents and case
removed (letters without a Latin base, Cyrillic say, are kept), punctuation dropped, the words sorted,
so the order a file writes first and last names in does not matter. Search compares *tokens* (the
key's words) by prefix. "Similar" names (possible duplicates) are scored with rapidfuzz, imported only
when asked: it is not needed to start the CLI.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import NamedTuple

# Letters that Unicode does not decompose into a base letter and an accent.
_SPECIAL = str.maketrans(
    {"ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ł": "l", "Ł": "l", "đ": "d",
     "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ı": "i", "ß": "ss"}
)  # fmt: skip
# Apostrophes join ("O'Brien" → "obrien"); every other non-letter, non-digit separates words.
_JOINERS = re.compile("['’`´ʼ]")
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_WORD = re.compile(r"[^\W_]+")

# Scores (0–100, rapidfuzz token_sort_ratio of the keys) at or above which two names are "similar".
SIMILAR = 88
# A token may be at most this long in the search index (names are at most 120 characters).
TOKEN_LENGTH = 40


def tokens(name: str) -> list[str]:
    """The words of `name` without accents, case or punctuation, in the order written.

    Runs once per registered player of a million-line list import, hence regular expressions and an
    ASCII fast path rather than a loop over characters.
    """
    if name.isascii():
        text = name.lower()
    else:
        text = _COMBINING.sub("", unicodedata.normalize("NFKD", name.translate(_SPECIAL))).casefold()
    return [w[:TOKEN_LENGTH] for w in _WORD.findall(_JOINERS.sub("", text))]


def name_key(name: str) -> str:
    """The matching key: the name's tokens sorted, space separated ("Örr, Mârk" → "mark orr")."""
    return key_of(tokens(name))


def key_of(words: Sequence[str]) -> str:
    """The matching key of a name's tokens (when they are at hand already)."""
    return " ".join(sorted(words))


def matches_query(query_tokens: Sequence[str], name_tokens: Iterable[str]) -> bool:
    """Every query word starts some word of the name ("jan kow" finds "Kowalski, Jan")."""
    words = list(name_tokens)
    return all(any(w.startswith(q) for w in words) for q in query_tokens)


def prefix_range(prefix: str) -> tuple[str, str]:
    """The half-open range [low, high) of ASCII strings that start with `prefix` (an index range scan)."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def similarity(a: str, b: str) -> float:
    """How alike two names are, 0–100, word order and accents ignored (rapidfuzz token_sort_ratio)."""
    from rapidfuzz import fuzz  # imported here: start-up time of every other command matters

    return float(fuzz.token_sort_ratio(name_key(a), name_key(b)))


class Similar(NamedTuple):
    key: str
    score: float
    position: int  # in the choices given


def most_similar(name: str, keys: Sequence[str], *, limit: int = 5, cutoff: float = SIMILAR) -> list[Similar]:
    """The keys most like `name` (scored at least `cutoff`), best first; `keys` are name_key values."""
    from rapidfuzz import fuzz, process

    found = process.extract(
        name_key(name), keys, scorer=fuzz.token_sort_ratio, score_cutoff=cutoff, limit=limit
    )
    return [Similar(key, float(score), index) for key, score, index in found]
