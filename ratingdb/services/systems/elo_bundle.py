"""FIDE's Elo in a list's bundle (services/bundle.py): the pool history and the calculation record.

`prepare` finds the earlier pool games of the players pooled in the close (§7.1.4: a first rating counts
the results of earlier periods; the close read them from the record of the lists that pooled them) and
names their events; `members` writes them and the list's calculation record, per player and per game.
Reads only; must not import the CLI or the reports.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ratingdb.schema.models import CalcGame, CalcPlayer, Event, Game, RatingList
from ratingdb.services.bulk import chunks
from ratingdb.services.bundle import BundleSource, csv_bytes

CALC_PLAYER_COLUMNS = (
    "player", "method", "ro", "k_base", "k", "n", "score_x100", "sum_dr_x100", "k_sum_dr_x100", "change",
    "opponent_sum", "p_x100", "dp", "new_rating",
)  # fmt: skip
CALC_GAME_COLUMNS = (
    "player", "event", "round", "opponent", "kind", "own_rating", "opponent_rating", "d", "pd_x100",
    "score_x100",
)  # fmt: skip
HISTORY_COLUMNS = ("player", "period", "event", "start_date", "opponent_rating", "score_x100")

_HISTORY = "elo_history"


def _earlier_lists(source: BundleSource) -> list[int]:
    """The computed lists of the type closed before this one's period, in the versions current then."""
    created = source.rating_list.created_by or 0
    return [
        c.id
        for c in source.session.scalars(
            select(RatingList).where(
                RatingList.rating_type == source.rating_list.rating_type,
                RatingList.origin == "computed",
                RatingList.period < str(source.period),
            )
        )
        if (c.created_by or 0) < created and (c.withdrawn_by is None or c.withdrawn_by > created)
    ]


def prepare(source: BundleSource) -> None:
    session = source.session
    pooled = sorted(
        session.scalars(
            select(CalcPlayer.player_id).where(
                CalcPlayer.list_id == source.rating_list.id, CalcPlayer.method.in_(("initial", "pool"))
            )
        )
    )
    earlier = _earlier_lists(source)
    rows: list[Any] = []
    for chunk in chunks(pooled, 500):
        if not earlier:
            break
        rows += session.execute(
            select(
                CalcGame.player_id,
                Event.period,
                CalcGame.event_id,
                Event.start_date,
                CalcGame.opponent_rating,
                CalcGame.score_x100,
            )  # fmt: skip
            .join(Event, Event.id == CalcGame.event_id)
            .where(CalcGame.list_id.in_(earlier), CalcGame.kind == "pool", CalcGame.player_id.in_(chunk))
        ).all()
    source.event_ids |= {row[2] for row in rows}
    source.found[_HISTORY] = rows


def members(source: BundleSource) -> dict[str, bytes]:
    session, list_id = source.session, source.rating_list.id
    key, number = source.key, source.numbers
    history = source.found.get(_HISTORY, [])
    players = session.execute(
        select(
            CalcPlayer.player_id,
            CalcPlayer.method,
            CalcPlayer.ro,
            CalcPlayer.k_base,
            CalcPlayer.k,
            CalcPlayer.n,
            CalcPlayer.score_x100,
            CalcPlayer.sum_dr_x100,
            CalcPlayer.k_sum_dr_x100,
            CalcPlayer.change,
            CalcPlayer.opponent_sum,
            CalcPlayer.p_x100,
            CalcPlayer.dp,
            CalcPlayer.new_rating,
        ).where(CalcPlayer.list_id == list_id)  # fmt: skip
    )
    games = session.execute(
        select(
            CalcGame.player_id,
            CalcGame.event_id,
            Game.round,
            CalcGame.opponent_id,
            CalcGame.kind,
            CalcGame.own_rating,
            CalcGame.opponent_rating,
            CalcGame.d,
            CalcGame.pd_x100,
            CalcGame.score_x100,
        )  # fmt: skip
        .join(Game, Game.id == CalcGame.game_id)
        .where(CalcGame.list_id == list_id)
    )
    return {
        "inputs/pool-history.csv": csv_bytes(
            HISTORY_COLUMNS,
            sorted(
                (key(p), period, number[e], start.isoformat() if hasattr(start, "isoformat") else start, o, s)
                for p, period, e, start, o, s in history
            ),
        ),
        "published/calc-players.csv": csv_bytes(
            CALC_PLAYER_COLUMNS, sorted((key(row[0]), *row[1:]) for row in players)
        ),
        "published/calc-games.csv": csv_bytes(
            CALC_GAME_COLUMNS,
            sorted((key(p), number[e], r, key(o), *rest) for p, e, r, o, *rest in games),
        ),
    }
