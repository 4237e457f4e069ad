"""Which system forecasts a federation's games best: each closed period's games scored against the
expected score the type's rating system gave before the period (log-loss and Brier, ratingdb.rating.forecast).

For each rating type and each closed period from `first` to `last`: the list the close rated from (the
list in force on the period's first day) and its rating system (ratingdb.reports.systems.list_shown);
every rated game of the period between two players rated on that list, from white's side, with the
expected score of that system (its Shown's forecaster in ratingdb.reports.systems.SHOWN: Elo's table at the
capped difference, Glickman's E with the opponent's deviation, ...). A game with an unrated player is left
out (Elo gives it no expected score). Read-only; takes a Session.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, MissingList
from ratingdb.rating import Period, RulesError
from ratingdb.rating.forecast import Forecasts, band
from ratingdb.reports.lists import computed_list, require_list
from ratingdb.reports.systems import list_shown
from ratingdb.schema.models import Event, Game

SCORES = {"1": 1.0, "=": 0.5, "0": 0.0}
ALL_BANDS = "all"


@dataclass(frozen=True)
class ForecastLine:
    """One system's forecasts on one rating type's games in one band (or all bands)."""

    rating_type: str
    system: str
    band: str
    games: int
    log_loss: float | None
    brier: float | None


def period_games(session: Session, rating_type: str, period: Period) -> list[tuple[int, int, float]]:
    """(white, black, white's score) of every rated game of the period's current events."""
    rows = session.execute(
        select(Game.white_id, Game.black_id, Game.white_result)
        .join(Event, Event.id == Game.event_id)
        .where(
            Event.period == str(period),
            Event.rating_type == rating_type,
            Event.is_current.is_(True),
            Game.rated.is_(True),
            Game.black_id.is_not(None),
            Game.white_result.in_(tuple(SCORES)),
        )  # fmt: skip
        .order_by(Game.id)
    )
    return [(white, black, SCORES[result]) for white, black, result in rows if black is not None]


def score(
    forecasts: dict[str, Forecasts],
    games: Iterable[tuple[int, int, float]],
    forecast: Callable[[int, int], tuple[float, float] | None],
) -> None:
    """Add each game's forecast to its band's and to all bands' (games without a forecast are left out)."""
    for white, black, s in games:
        found = forecast(white, black)
        if found is None:
            continue
        p, mean = found
        forecasts.setdefault(band(mean), Forecasts()).add(p, s)
        forecasts.setdefault(ALL_BANDS, Forecasts()).add(p, s)


def systems_report(
    session: Session, first: Period, last: Period, rating_types: Sequence[str]
) -> list[ForecastLine]:
    """Per rating type and its system: the mean log-loss and Brier score over the closed periods from
    `first` to `last`, per band of the players' mean rating and over all bands, with the games counted."""
    if last < first:
        raise ConfigError(f"--to {last} is before --from {first}")
    found: dict[tuple[str, str], dict[str, Forecasts]] = {}
    for rating_type in rating_types:
        period = first
        while period <= last:
            try:
                computed_list(session, rating_type, period)  # closed here: it has a list it rated from
                in_force = require_list(session, rating_type, period.first_day)
            except MissingList:
                period = period.shift(1)
                continue
            shown = list_shown(session, in_force).system
            try:
                forecast = shown.forecaster(session, in_force, rating_type, period)
            except RulesError:
                forecast = None
            if forecast is not None:
                score(
                    found.setdefault((rating_type, shown.name), {}),
                    period_games(session, rating_type, period),
                    forecast,
                )
            period = period.shift(1)
    lines = []
    for (rating_type, system), bands in sorted(found.items()):
        for name in sorted(
            bands, key=lambda b: (b == ALL_BANDS, int(b.split("–")[0]) if b != ALL_BANDS else 0)
        ):
            f = bands[name]
            lines.append(ForecastLine(rating_type, system, name, f.games, f.mean_log_loss, f.mean_brier))
    return lines


def rounded(value: float | None, places: int = 4) -> float | None:
    return None if value is None or math.isnan(value) else round(value, places)
