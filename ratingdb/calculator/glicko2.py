"""The Glicko-2 calculator, computing: ratingdb.rating.glicko2 for one period; no SQLAlchemy/Typer/I/O.

`calculate_glicko2` rates one player's period (or a period without games) and keeps the update with
every intermediate figure, computed unrounded; ratingdb.calculator.glicko2_text writes it out, the steps
numbered as in Glickman's "Example of the Glicko-2 system". Imports only ratingdb.rating and
ratingdb.errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ratingdb.errors import ConfigError
from ratingdb.rating import RulesError
from ratingdb.rating.glicko2 import (
    DRAW,
    LOSS,
    WIN,
    Glicko2Game,
    Glicko2Parameters,
    Glicko2Rating,
    Glicko2Update,
    update,
)

MINUS: Final = "\u2212"
_SCORES: Final = {"1": WIN, "1.0": WIN, "w": WIN, "0.5": DRAW, ".5": DRAW, "½": DRAW, "=": DRAW, "d": DRAW,
                  "1/2": DRAW, "0": LOSS, "0.0": LOSS, "l": LOSS}  # fmt: skip


def _number(text: str, what: str, game: str) -> float:
    try:
        value = float(text.strip().replace(MINUS, "-"))
    except ValueError:
        raise ConfigError(f"--game '{game}': '{text}' is not {what}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"--game '{game}': '{text}' is not {what}")
    return value


def parse_glicko2_game(text: str) -> Glicko2Game:
    """`RATING:RD:SCORE` as --game takes it under Glicko-2 (1400:30:1); ConfigError otherwise."""
    parts = text.split(":")
    if len(parts) != 3:
        raise ConfigError(
            f"--game '{text}': Glicko-2 needs the opponent's deviation too: "
            "write RATING:RD:SCORE, e.g. 1400:30:1"
        )
    rating = _number(parts[0], "a rating (e.g. 1400)", text)
    deviation = _number(parts[1], "a deviation (e.g. 30)", text)
    if deviation <= 0:
        raise ConfigError(f"--game '{text}': the deviation must be above 0, not {parts[1].strip()}")
    score = _SCORES.get(parts[2].strip().lower())
    if score is None:
        raise ConfigError(
            f"--game '{text}': the score must be 1, 0.5 (or ½, =) or 0, not '{parts[2].strip()}'"
        )
    return Glicko2Game(rating, deviation, score)


@dataclass(frozen=True)
class Glicko2Calculation:
    """One player's Glicko-2 period, with how the rule set was chosen (glicko2_text writes it out)."""

    rules_name: str
    rules_reason: str
    params: Glicko2Parameters
    newcomer: bool  # the player had no rating: Step 1's values
    result: Glicko2Update
    player_label: str | None = None
    rating_note: str | None = None  # e.g. where σ came from when it was not given


def calculate_glicko2(
    rating: Glicko2Rating | None,
    games: list[Glicko2Game],
    params: Glicko2Parameters,
    *,
    rules_name: str,
    rules_reason: str,
    player_label: str | None = None,
    rating_note: str | None = None,
) -> Glicko2Calculation:
    """The period of a player rated `rating` (None: a newcomer, Step 1) with `games` under `params`."""
    try:
        start = params.newcomer if rating is None else rating
        result = update(start, games, params)
    except RulesError as exc:
        raise ConfigError(str(exc)) from exc
    return Glicko2Calculation(
        rules_name, rules_reason, params, rating is None, result, player_label, rating_note
    )
