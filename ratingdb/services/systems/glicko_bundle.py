"""Glicko in a list's bundle (services/bundle.py): the list in force as a Glicko CSV list, the published
figures and the calculation record.

Glicko keeps no pool: `prepare` reads nothing. `members` writes the list in force's Glicko figures as the
Glicko CSV list the importer reads (ratingdb.formats.glicko2_list without the volatility column), the new
list's published (r, RD) in hundredths (glicko_entry) and the record: per player the figures before the
period, per game the opponent's. Reads only; must not import the CLI or the reports.
"""

from __future__ import annotations

import io

from sqlalchemy import select

from ratingdb.formats import ListRow, as_sex
from ratingdb.formats.glicko2_list import Glicko2Figures, write_glicko2_list
from ratingdb.schema.models import Game, GlickoCalcGame, GlickoCalcPlayer, GlickoEntry
from ratingdb.services.bundle import BundleSource, csv_bytes, player_key

FIGURES = ("player", "rating_x100", "deviation_x100")
CALC_PLAYER_COLUMNS = ("player", "games", "newcomer", "rating_x100", "deviation_x100")
CALC_GAME_COLUMNS = (
    "player", "event", "round", "opponent", "opponent_rating_x100", "opponent_deviation_x100", "score_x100",
)  # fmt: skip


def prepare(source: BundleSource) -> None:
    """Nothing to find: a Glicko close reads only the list in force and the period's games."""


def _figures(source: BundleSource, list_id: int) -> list[tuple[int, int, int]]:
    rows = source.session.execute(
        select(GlickoEntry.player_id, GlickoEntry.rating_x100, GlickoEntry.deviation_x100).where(
            GlickoEntry.list_id == list_id
        )
    )
    return [(p, r, d) for p, r, d in rows]


def _in_force_csv(source: BundleSource) -> bytes:
    """The list in force's players with Glicko figures as a Glicko CSV list, with the details the
    published list shows (every entry of the list in force is on it), in player-key order."""
    rows = []
    for player_id, r100, d100 in _figures(source, source.in_force.id):
        d = source.details[player_id]
        row = ListRow(
            line=0, fide_id=d[1], national_id=d[2], name=d[3], federation=d[4], sex=as_sex(d[5]),
            title=d[6], birth_year=d[7], flag=None, ratings={},
        )  # fmt: skip
        rows.append((row, Glicko2Figures(r100, d100, 0)))
    rows.sort(key=lambda found: player_key(found[0].fide_id, found[0].national_id))
    out = io.StringIO()
    write_glicko2_list(rows, out, volatility=False)
    return out.getvalue().encode("utf-8")


def members(source: BundleSource) -> dict[str, bytes]:
    session, list_id, key, number = source.session, source.rating_list.id, source.key, source.numbers
    players = session.execute(
        select(
            GlickoCalcPlayer.player_id,
            GlickoCalcPlayer.games,
            GlickoCalcPlayer.newcomer,
            GlickoCalcPlayer.rating_x100,
            GlickoCalcPlayer.deviation_x100,
        ).where(GlickoCalcPlayer.list_id == list_id)  # fmt: skip
    ).all()
    before = {p: (r100, d100) for p, _g, _n, r100, d100 in players}
    games = session.execute(
        select(
            GlickoCalcGame.player_id,
            GlickoCalcGame.event_id,
            Game.round,
            GlickoCalcGame.opponent_id,
            GlickoCalcGame.score_x100,
        )  # fmt: skip
        .join(Game, Game.id == GlickoCalcGame.game_id)
        .where(GlickoCalcGame.list_id == list_id)
    )
    return {
        "inputs/glicko-in-force.csv": _in_force_csv(source),
        "published/glicko.csv": csv_bytes(
            FIGURES, sorted((key(p), r, d) for p, r, d in _figures(source, list_id))
        ),
        "published/calc-players.csv": csv_bytes(
            CALC_PLAYER_COLUMNS, sorted((key(p), g, bool(n), r, d) for p, g, n, r, d in players)
        ),
        "published/calc-games.csv": csv_bytes(
            CALC_GAME_COLUMNS,
            sorted((key(p), number[e], r, key(o), *before[o], s) for p, e, r, o, s in games),
        ),
    }
