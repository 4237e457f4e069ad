"""Glicko-2 in a list's bundle (services/bundle.py): the figures of both lists and the calculation record.

Glicko-2 keeps no pool: `prepare` reads nothing. `members` writes the published (r, RD, σ) of the list in
force and of the new list (glicko2_entry, in hundredths and millionths) and the record: per player the
figures before the period, per game the opponent's. Reads only; must not import the CLI or the reports.
"""

from __future__ import annotations

from sqlalchemy import select

from ratingdb.schema.models import Game, Glicko2CalcGame, Glicko2CalcPlayer, Glicko2Entry
from ratingdb.services.bundle import BundleSource, csv_bytes

FIGURES = ("player", "rating_x100", "deviation_x100", "volatility_x1e6")
CALC_PLAYER_COLUMNS = ("player", "games", "newcomer", "rating_x100", "deviation_x100", "volatility_x1e6")
CALC_GAME_COLUMNS = (
    "player", "event", "round", "opponent", "opponent_rating_x100", "opponent_deviation_x100", "score_x100",
)  # fmt: skip


def prepare(source: BundleSource) -> None:
    """Nothing to find: a Glicko-2 close reads only the list in force and the period's games."""


def _figures(source: BundleSource, list_id: int) -> bytes:
    rows = source.session.execute(
        select(
            Glicko2Entry.player_id,
            Glicko2Entry.rating_x100,
            Glicko2Entry.deviation_x100,
            Glicko2Entry.volatility_x1e6,
        ).where(Glicko2Entry.list_id == list_id)  # fmt: skip
    )
    return csv_bytes(FIGURES, sorted((source.key(p), *rest) for p, *rest in rows))


def members(source: BundleSource) -> dict[str, bytes]:
    session, list_id, key, number = source.session, source.rating_list.id, source.key, source.numbers
    players = session.execute(
        select(
            Glicko2CalcPlayer.player_id,
            Glicko2CalcPlayer.games,
            Glicko2CalcPlayer.newcomer,
            Glicko2CalcPlayer.rating_x100,
            Glicko2CalcPlayer.deviation_x100,
            Glicko2CalcPlayer.volatility_x1e6,
        ).where(Glicko2CalcPlayer.list_id == list_id)  # fmt: skip
    )
    games = session.execute(
        select(
            Glicko2CalcGame.player_id,
            Glicko2CalcGame.event_id,
            Game.round,
            Glicko2CalcGame.opponent_id,
            Glicko2CalcGame.opponent_rating_x100,
            Glicko2CalcGame.opponent_deviation_x100,
            Glicko2CalcGame.score_x100,
        )  # fmt: skip
        .join(Game, Game.id == Glicko2CalcGame.game_id)
        .where(Glicko2CalcGame.list_id == list_id)
    )
    return {
        "inputs/glicko2-in-force.csv": _figures(source, source.in_force.id),
        "published/glicko2.csv": _figures(source, list_id),
        "published/calc-players.csv": csv_bytes(
            CALC_PLAYER_COLUMNS, sorted((key(p), g, bool(n), *rest) for p, g, n, *rest in players)
        ),
        "published/calc-games.csv": csv_bytes(
            CALC_GAME_COLUMNS, sorted((key(p), number[e], r, key(o), *rest) for p, e, r, o, *rest in games)
        ),
    }
