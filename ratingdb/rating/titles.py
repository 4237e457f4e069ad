"""FIDE's titles in their order of rank, and the higher of two; imports only the stdlib.

FIDE's Title Regulations (B.01, 0.3) name the over-the-board titles in this order: Grandmaster, International
Master, Woman Grandmaster, FIDE Master, Woman International Master, Candidate Master, Woman FIDE Master,
Woman Candidate Master. A merge of two registrations of one person keeps the higher
(ratingdb.services.players).
"""

from __future__ import annotations

from typing import Final

TITLE_ORDER: Final = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")


def higher_title(a: str | None, b: str | None) -> str | None:
    """The higher of two titles (None for no title; an unknown title ranks below every known one)."""
    if a is None or b is None:
        return a or b

    def rank(title: str) -> int:
        return TITLE_ORDER.index(title) if title in TITLE_ORDER else len(TITLE_ORDER)

    return a if rank(a) <= rank(b) else b
