"""The register's search as the site's search box uses it: IDs and name words, then names spelt alike.

Takes a Session; reads only. The matching itself is the register's (ratingdb.services.players:
`find_players`, as `ratingdb player find`, then `similar_players` for a misspelt name).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from ratingdb.models import Player
from ratingdb.services.players import find_players, similar_players

# Looser than the duplicates check's 88: a visitor's typo is worth showing, a duplicate must be likely.
SEARCH_ALIKE = 75


@dataclass(frozen=True)
class Found:
    players: list[Player]  # the exact matches (IDs, words) first, then those spelt alike
    alike: int  # how many of them are only spelt alike (a typo in the search)


def search_players(session: Session, text: str, *, limit: int = 20) -> Found:
    exact = find_players(session, text, limit=limit)
    alike: list[Player] = []
    if len(exact) < limit and not text.strip().isdigit():
        seen = {p.id for p in exact}
        alike = similar_players(session, text, exclude=seen, limit=limit - len(exact), cutoff=SEARCH_ALIKE)
    return Found(exact + alike, len(alike))
