"""The register's search as the site's search box and the API use it: the scored search of
`ratingdb player find` (FIDE ID, national ID, name words with typos, accents and word order forgiven).

Takes a Session; reads only. The matching itself is the register's (ratingdb.services.players:
`search_players`, the token-index search that stays fast on a million players); this module only says
which of the players found match exactly and which only have a name spelt alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.schema.models import Player
from ratingdb.services.players import search_players as register_search

EXACT = 100.0  # an ID, or every word of the text starting a word of the name


@dataclass(frozen=True)
class Found:
    players: list[Player]  # best first: the exact matches (IDs, words), then those spelt alike
    alike: int  # how many of them (the last ones) are only spelt alike (a typo in the search)


def search_players(session: Session, text: str, *, limit: int = 20) -> Found:
    """What `ratingdb player find TEXT --limit N` finds, in its order (a merged player's survivor)."""
    try:
        found = register_search(session, text, limit=limit)
    except ConfigError:  # no letters or digits to search for: nothing matches
        return Found([], 0)
    return Found([f.player for f in found], sum(1 for f in found if f.score < EXACT))
