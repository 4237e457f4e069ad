"""Player names for matching and search: normalised keys and similarity. Pure: no database, CLI or I/O.

Files spell one person many ways: "Kowalski, Jan", "KOWALSKI Jan", "Jan Kowalski", "Kowalski,Jan",
accents kept or dropped ("Örr, Mârk" / "Orr, Mark"). Matching compares the *key*: accents and case
removed (letters without a Latin base, Cyrillic say, are kept), punctuation dropped, the words sorted,
so the order a file writes first and last names in does not matter. Search compares *tokens* (the
key's words) by prefix. "Similar" names (possible duplicates) are scored with rapidfuzz, imported only
when asked: it is not needed to start the CLI.

Finding people as they are written (`NameScorer`, the one scorer of `player find`, the site's search box,
the API's search and the "similar registered" hints): a word of the search matches a word of a name that
it starts; or that it starts once both are *folded* (`fold`: transliteration pairs written one way —
w/v, ks/x, j/y/i, ch/kh/h, sch/sh/sz/š, ph/f, th/t, doubled letters — "Kowalenko" and "Kovalenko"
are both "kovalenko"); or that is a variant of the same given name (`GIVEN_NAMES`: Pádraig/Patrick); or
that sounds alike (`sound`: NYSIIS of the folded word, from jellyfish: Kieran/Ciaran are both "CARAN";
keys shorter than four letters, as Doyle/Daly's "DAL", tell too little); or that is spelt alike
(rapidfuzz ratio, a typo); and a short word matches initials ("dj" and "D.J."). A name's score is the
mean over the search's words of each one's best; names are ranked by how many of the search's words they
match, then by that score.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

import jellyfish

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


# -- finding people as they are written ------------------------------------------------------------------

# Transliteration pairs, each written one way, in one pass (the longer spellings first, so "sch" is not
# read as "s" + "ch"; "tch" and "tsch" are "ch", so "h": Tchernov, Chernov). Accents are gone already
# (tokens): š, č, ž are s, c, z. "w" before a vowel is "v" (Kowalenko, Sawicki); elsewhere it is silent
# (Shawn, Andrews → "andres").
_FOLDS = (
    ("tsch", "h"), ("sch", "s"), ("tch", "h"), ("sh", "s"), ("sz", "s"), ("cz", "c"), ("kh", "h"),
    ("ch", "h"), ("ph", "f"), ("th", "t"), ("ck", "k"), ("ks", "x"), ("cs", "x"),
    ("wa", "va"), ("we", "ve"), ("wi", "vi"), ("wo", "vo"), ("wu", "vu"), ("wy", "vy"), ("w", ""),
    ("j", "i"), ("y", "i"), ("ou", "u"),
)  # fmt: skip
_FOLD = re.compile("|".join(a for a, _ in _FOLDS))
_FOLD_AS = dict(_FOLDS)
_DOUBLED = re.compile(r"(.)\1+")

# Given names and their variants across languages, as federations' files write them (one group per name;
# a name may be in more than one group). Words are compared folded (`fold`), so one spelling of each
# transliteration is enough.
GIVEN_NAMES: tuple[tuple[str, ...], ...] = (
    ("kieran", "ciaran", "ciaron", "kieron"),
    ("patrick", "padraig", "padraic", "patryk", "patrice", "patricio"),
    ("sean", "shaun", "shawn", "shane", "john"),
    ("john", "jon", "ian", "iain", "eoin", "ivan", "jan", "johann", "johannes", "juan", "giovanni", "jean"),
    ("liam", "william", "wilhelm", "willem", "guillaume", "uilliam"),
    ("michael", "micheal", "michal", "mikhail", "mihail", "michel", "miguel", "mikael", "mikkel"),
    ("peter", "peadar", "piotr", "pyotr", "petr", "pietro", "pierre", "pedro", "petar"),
    ("paul", "pol", "pawel", "pavel", "paolo", "pablo"),
    ("stephen", "steven", "stiofan", "stefan", "stepan", "esteban", "stefano", "etienne"),
    ("alexander", "alasdair", "alistair", "aleksandr", "aleksander", "oleksandr", "alejandro",
     "alessandro", "alexandre", "sandor"),
    ("alexei", "aleksey", "oleksiy", "alexis"),
    ("nicholas", "nicolas", "nikolai", "mykola", "nikola", "niklas", "nicola"),
    ("joseph", "josef", "jozef", "iosif", "jose", "giuseppe", "osip"),
    ("george", "seoirse", "georgi", "georgiy", "jerzy", "jiri", "jorge", "yuri", "jurgen"),
    ("james", "seamus", "jacques", "jaime", "jakub", "jacob", "yakov", "giacomo"),
    ("dmitry", "dmitri", "dmytro", "dimitri", "dimitrios", "dimitar"),
    ("sergey", "sergei", "serhiy", "sergio", "serge"),
    ("andrew", "aindrias", "andrei", "andriy", "andrzej", "andreas", "andre", "andres", "andrea"),
    ("eugene", "eoghan", "owen", "evgeny", "yevgeny", "eugen", "eugenio"),
    ("gerard", "gearoid", "gerhard", "gerardo"),
    ("edmund", "eamon", "eamonn"),
    ("daniel", "donal", "domhnall"),
    ("dermot", "diarmuid", "diarmaid"),
    ("hugh", "aodh", "hugo"),
    ("catherine", "caitriona", "katherine", "kathryn", "katarina", "ekaterina", "katrin", "caterina"),
    ("mary", "maire", "maria", "marie", "mariya", "maryam"),
    ("margaret", "mairead", "margarita", "margit", "marguerite"),
    ("helen", "eibhlin", "eileen", "aileen", "elena", "yelena", "olena", "helena", "helene"),
    ("anne", "ann", "anna", "hanna", "anya"),
    ("siobhan", "joan", "jeanne", "juana", "johanna", "giovanna"),
    ("elizabeth", "eilis", "elisabeth", "elizaveta", "isabel", "elisabetta"),
)  # fmt: skip

# How well a word of a name matches a word of the search, when it is not a prefix of it (100).
FOLDED = 95.0  # the search's word starts the name's word once both are folded (a transliteration)
VARIANT = 95.0  # two forms of one given name
SOUNDS_ALIKE = 90.0  # the same phonetic key (words and key of at least SOUND_LETTERS letters)
INITIALS = 90.0  # "dj" for the words "D." and "J." (or "Dermot John"); "j" for the word "DJ"
SOUND_LETTERS = 4
# A search word matches a name word (it counts in the ranking) when their score is at least this; a
# typo's rapidfuzz ratio below it scores 0.
WORD_MATCH = 75.0


@lru_cache(maxsize=65_536)
def fold(word: str) -> str:
    """A token with the transliteration pairs written one way and doubled letters single
    ("kowalenko" and "kovalenko" → "kovalenko", "maksimov" → "maximov", "shishko" → "sisko")."""
    return _DOUBLED.sub(r"\1", _FOLD.sub(lambda m: _FOLD_AS[m.group(0)], word))


@lru_cache(maxsize=65_536)
def sound(word: str) -> str:
    """The phonetic key of a token (NYSIIS of its fold, at most TOKEN_LENGTH letters): the search index
    stores it with each word of a name, so words that sound alike are found by one index look-up
    ("kieran", "keeran", "ciaran" → "CARAN"). A token that is not Latin letters is its own key."""
    folded = fold(word)
    if not folded.isascii() or not folded.isalpha():
        return word[:TOKEN_LENGTH]
    return jellyfish.nysiis(folded)[:TOKEN_LENGTH]


def _variant_groups() -> dict[str, frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for group in GIVEN_NAMES:
        folded = {fold(n) for n in group}
        for name in folded:
            groups.setdefault(name, set()).update(folded)
    return {name: frozenset(names - {name}) for name, names in groups.items()}


_VARIANTS = _variant_groups()


def variants(word: str) -> frozenset[str]:
    """The other forms of a given name (folded), the name's own sound-alikes' too; empty for other words."""
    folded = fold(word)
    return _VARIANTS.get(folded, frozenset())


class Scored(NamedTuple):
    score: float  # 0–100: the mean over the search's words of each one's best score against the name
    matched: int  # how many of the search's words match a word of the name (score ≥ WORD_MATCH)


class NameScorer:
    """How well names match one search's words. The names scored in one search share their words, so
    each name word is scored against the search once and remembered: on a million players scoring is
    most of a search."""

    def __init__(self, words: Sequence[str]) -> None:
        from rapidfuzz import fuzz  # imported here: start-up time of every other command matters

        self._ratio = fuzz.ratio
        self.words = tuple(words)
        self._folded = tuple(fold(w) for w in self.words)
        self._sounds = tuple(_distinct_sound(w) for w in self.words)
        self._variants = tuple(variants(w) for w in self.words)
        self._known: dict[str, tuple[float, ...]] = {}

    def sounds(self, i: int) -> set[str]:
        """The phonetic keys that find the search's word `i` in the index: its own (if it has at least
        SOUND_LETTERS letters) and its given-name variants'."""
        keys = {k for k in map(_distinct_sound, self._variants[i]) if k}
        if self._sounds[i]:
            keys.add(self._sounds[i])
        return keys

    def word_scores(self, name_word: str) -> tuple[float, ...]:
        """How well one word of a name matches each word of the search, 0–100 (0 below WORD_MATCH)."""
        scores = self._known.get(name_word)
        if scores is None:
            scores = self._known[name_word] = tuple(self._score(i, name_word) for i in range(len(self.words)))
        return scores

    def spelt_alike(self, i: int, name_word: str) -> float:
        """How well a word is spelt like the search's word `i`: 100 when it starts it, FOLDED when it does
        once both are folded, else the typo's ratio (0 below WORD_MATCH). The cheap part of the score: the
        search reads the words sharing a search word's first letters with it, and finds the rest (variants,
        sound-alikes) through the index on their phonetic keys."""
        word = self.words[i]
        if name_word.startswith(word):
            return 100.0
        if fold(name_word).startswith(self._folded[i]):
            return FOLDED
        return float(self._ratio(word, name_word, score_cutoff=WORD_MATCH))

    def _score(self, i: int, name_word: str) -> float:
        word = self.words[i]
        if name_word.startswith(word):
            return 100.0
        folded = fold(name_word)
        if folded.startswith(self._folded[i]):
            return FOLDED
        if folded in self._variants[i]:
            return VARIANT
        best = float(self._ratio(word, name_word, score_cutoff=WORD_MATCH))
        if self._sounds[i] and sound(name_word) == self._sounds[i] and len(folded) >= SOUND_LETTERS:
            best = max(best, SOUNDS_ALIKE)
        if len(word) == 1 and 2 <= len(name_word) <= 3 and word in name_word:
            best = max(best, INITIALS)  # "j" of "D. J. O'Donoghue" for the name written "DJ O'Donoghue"
        return best

    def __call__(self, key: str) -> Scored:
        """The score of a name (its key or tokens, space separated) and how many search words it matches."""
        name_words = key.split()
        if not name_words:
            return Scored(0.0, 0)
        best = [max(column) for column in zip(*(self.word_scores(w) for w in name_words), strict=True)]
        for i, word in enumerate(self.words):
            if best[i] < WORD_MATCH and 2 <= len(word) <= 3 and word.isalpha():
                if _initials(word, name_words):
                    best[i] = INITIALS
        return Scored(sum(best) / len(best), sum(1 for b in best if b >= WORD_MATCH))


def _distinct_sound(word: str) -> str:
    """The phonetic key a search looks words up by, or "" when the word or its key is too short to tell
    names apart ("doyle" and "daly" are both DAL; "sean" and "shaun" are found as given-name variants)."""
    key = sound(word)
    return key if len(fold(word)) >= SOUND_LETTERS and len(key) >= SOUND_LETTERS else ""


def _initials(letters: str, name_words: Sequence[str]) -> bool:
    """Whether each letter of `letters` is the first letter of another word of the name ("dj" for
    "d j odonoghue" or for "dermot john odonoghue")."""
    firsts = [w[0] for w in name_words]
    for letter in letters:
        if letter not in firsts:
            return False
        firsts.remove(letter)
    return True
