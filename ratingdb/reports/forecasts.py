"""Which system forecasts a federation's games best: each closed period's games scored against the
expected score the type's rating system gave before the period (log-loss and Brier, ratingdb.rating.forecast).

For each rating type and each closed period from `first` to `last`: the list the close rated from (the
list in force on the period's first day) and its rating system (ratingdb.reports.systems.list_shown);
every rated game of the period between two players rated on that list, from white's side, with the
expected score of that system — Elo: the rule set's table at the capped difference (§8.1.2, §8.3.1);
Glicko-2: Glickman's E(μ, μⱼ, φⱼ) with the opponent's deviation. A game with an unrated player is left
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
from ratingdb.rating.glicko2 import expected_score as glicko2_expected
from ratingdb.rating.glicko2 import to_glicko2_scale
from ratingdb.rating.rules import capped_difference, expected_score_under
from ratingdb.reports.lists import computed_list, require_list
from ratingdb.reports.systems import list_shown
from ratingdb.schema.models import Event, Game, Glicko2Entry, ListEntry, RatingList
from ratingdb.services.rules import rule_set_in_force

SCORES = {"1": 1.0, "=": 0.5, "0": 0.0}
ALL_BANDS = "all"

# (white id, black id) → white's expected score, for the games of one period rated from one list.
Forecaster = Callable[[Session, RatingList, str, Period], Callable[[int, int], tuple[float, float] | None]]


@dataclass(frozen=True)
class ForecastLine:
    """One system's forecasts on one rating type's games in one band (or all bands)."""

    rating_type: str
    system: str
    band: str
    games: int
    log_loss: float | None
    brier: float | None


def _elo(
    session: Session, lst: RatingList, rating_type: str, period: Period
) -> Callable[[int, int], tuple[float, float] | None]:
    rules = rule_set_in_force(session, rating_type, period).rules
    ratings = dict(
        session.execute(
            select(ListEntry.player_id, ListEntry.rating).where(
                ListEntry.list_id == lst.id, ListEntry.rating.is_not(None)
            )
        ).all()
    )

    def forecast(white: int, black: int) -> tuple[float, float] | None:
        rw, rb = ratings.get(white), ratings.get(black)
        if rw is None or rb is None:
            return None
        return expected_score_under(capped_difference(rw, rb, rules), rules) / 100, (rw + rb) / 2

    return forecast


def _glicko2(
    session: Session, lst: RatingList, rating_type: str, period: Period
) -> Callable[[int, int], tuple[float, float] | None]:
    figures = {
        player_id: (r100 / 100, d100 / 100)
        for player_id, r100, d100 in session.execute(
            select(Glicko2Entry.player_id, Glicko2Entry.rating_x100, Glicko2Entry.deviation_x100).where(
                Glicko2Entry.list_id == lst.id
            )
        )
    }

    def forecast(white: int, black: int) -> tuple[float, float] | None:
        w, b = figures.get(white), figures.get(black)
        if w is None or b is None:
            return None
        mu, _phi = to_glicko2_scale(*w)
        mu_j, phi_j = to_glicko2_scale(*b)
        return glicko2_expected(mu, mu_j, phi_j), (w[0] + b[0]) / 2

    return forecast


FORECASTERS: dict[str, Forecaster] = {"elo": _elo, "glicko2": _glicko2}


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
            system = list_shown(session, in_force).system.name
            forecaster = FORECASTERS.get(system)
            if forecaster is not None:
                try:
                    forecast = forecaster(session, in_force, rating_type, period)
                except RulesError:
                    forecast = None
                if forecast is not None:
                    score(
                        found.setdefault((rating_type, system), {}),
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
