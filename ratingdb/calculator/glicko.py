"""The Glicko calculator, computing: ratingdb.rating.glicko for one period; no SQLAlchemy/Typer/I/O.

`calculate_glicko` rates one player's period and keeps every intermediate figure, unrounded;
ratingdb.calculator.glicko_text writes it out as Glickman's "The Glicko system" numbers its steps.
Imports only ratingdb.rating, ratingdb.calculator.glicko2 (the --game reader) and ratingdb.errors.
"""

from __future__ import annotations

from dataclasses import dataclass

from ratingdb.calculator.glicko2 import parse_glicko2_game
from ratingdb.errors import ConfigError
from ratingdb.rating import RulesError
from ratingdb.rating.glicko import GlickoGame, GlickoParameters, GlickoRating, GlickoUpdate, update


def parse_glicko_game(text: str) -> GlickoGame:
    """`RATING:RD:SCORE` as --game takes it under Glicko (1400:30:1), read as under Glicko-2."""
    game = parse_glicko2_game(text)
    return GlickoGame(game.opponent_rating, game.opponent_deviation, game.score)


@dataclass(frozen=True)
class GlickoCalculation:
    """One player's Glicko period, with how the rule set was chosen (glicko_text writes it out)."""

    rules_name: str
    rules_reason: str
    params: GlickoParameters
    newcomer: bool  # the player had no rating: Step 1's newcomer
    result: GlickoUpdate


def calculate_glicko(
    rating: GlickoRating | None,
    games: list[GlickoGame],
    params: GlickoParameters,
    *,
    periods: int,
    rules_name: str,
    rules_reason: str,
) -> GlickoCalculation:
    """The period of a player rated `rating` (None: a newcomer) with `games`; Step 1 over `periods`."""
    try:
        start = params.newcomer if rating is None else rating
        result = update(start, games, params, periods=0 if rating is None else periods)
    except RulesError as exc:
        raise ConfigError(str(exc)) from exc
    return GlickoCalculation(rules_name, rules_reason, params, rating is None, result)
