"""The recomputation of a bundled list, by the rating system its manifest names.

Each system is a module here with `recompute(bundle, inputs) -> Tables`: the published list, its state
and the calculation record as they should read, row by row (each row keyed as `KEYS` says), which
ratingdb.bundle.verify compares with the members. Pure: the rules of ratingdb.rating only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module

from ratingdb.bundle.archive import Bundle, BundleError
from ratingdb.bundle.inputs import Inputs

Row = tuple[str, ...]
Tables = dict[str, dict[tuple[str, ...], Row]]
"""member → (row key → the row's cells as the member writes them)."""

# System name → its module here.
RECOMPUTED: dict[str, str] = {"elo": "elo", "glicko2": "glicko2", "glicko": "glicko"}

# How the rows of each compared member are keyed: its first columns.
KEYS: dict[str, int] = {
    "published/list.csv": 1,
    "published/list-state.csv": 1,
    "published/calc-players.csv": 1,
    "published/calc-games.csv": 3,  # player, event, round
    "published/glicko2.csv": 1,
    "published/glicko.csv": 1,
}


def cells(values: Sequence[object]) -> Row:
    """Values as a bundle's CSV writes them: empty for None, true/false, integers in decimal."""
    return tuple(
        "" if v is None else ("true" if v is True else "false" if v is False else str(v)) for v in values
    )


def recomputer(system: str) -> Callable[[Bundle, Inputs], Tables]:
    name = RECOMPUTED.get(system)
    if name is None:
        raise BundleError(
            f"the bundle's list was rated by '{system}': this ratingdb recomputes "
            f"{', '.join(sorted(RECOMPUTED))}"
        )
    found: Callable[[Bundle, Inputs], Tables] = import_module(f"{__name__}.{name}").recompute
    return found
