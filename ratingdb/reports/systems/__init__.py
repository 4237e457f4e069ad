"""How each rating system's lists and closes are shown, by the name its rule sets give (`RuleSet.system`).

Each system is a module here making one `Shown` (base.py says what it holds); SHOWN names them, as
ratingdb.services.systems.SYSTEMS names the close's stages. FIDE's Elo is `elo`, the default for a list
no other system claims; Glickman's Glicko-2 is `glicko2`. No CLI or web imports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.reports.systems.base import Column, Download, Forecaster, ListFigures, Section, Shown
from ratingdb.reports.systems.elo import ELO, EloList
from ratingdb.reports.systems.glicko import GLICKO
from ratingdb.reports.systems.glicko2 import GLICKO2
from ratingdb.schema.models import RatingList

SHOWN: dict[str, Shown] = {"elo": ELO, "glicko2": GLICKO2, "glicko": GLICKO}
DEFAULT: Final = "elo"  # a list no other system claims is shown as FIDE's Elo lists are


def shown(system: str) -> Shown:
    """How the lists of `system` are shown."""
    found = SHOWN.get(system)
    if found is None:
        raise ConfigError(
            f"no display for the rating system '{system}': known are {', '.join(sorted(SHOWN))}"
        )
    return found


@dataclass(frozen=True)
class ListShown:
    """One list version: the system it is shown by and its figures."""

    system: Shown
    figures: ListFigures


def list_shown(session: Session, rating_list: RatingList) -> ListShown:
    """The system a list is shown by (the first other than the default that claims it) and its figures."""
    for system in SHOWN.values():
        if system.name != DEFAULT and (figures := system.figures(session, rating_list)) is not None:
            return ListShown(system, figures)
    return elo_list()


def elo_list() -> ListShown:
    """A list shown as FIDE's Elo lists are: its figures are its entries'."""
    return ListShown(ELO, EloList())


def types_shown(session: Session, rating_types: Sequence[str]) -> dict[str, Shown]:
    """The system each of `rating_types` is shown by (by its lists; the default where none claims it)."""
    found = dict.fromkeys(rating_types, SHOWN[DEFAULT])
    for system in SHOWN.values():
        if system.name != DEFAULT:
            found |= dict.fromkeys(system.rates(session, rating_types), system)
    return found


def player_figures(session: Session, player_id: int) -> dict[tuple[str, dt.date], object]:
    """A player's figures beyond the list entries on each current list, by (type, list date)."""
    found: dict[tuple[str, dt.date], object] = {}
    for system in SHOWN.values():
        found |= system.player_figures(session, player_id)
    return found


__all__ = [
    "DEFAULT", "SHOWN", "Column", "Download", "Forecaster", "ListFigures", "ListShown",
    "Section", "Shown", "elo_list", "list_shown", "player_figures", "shown", "types_shown",
]  # fmt: skip
