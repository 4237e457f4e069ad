"""How FIDE's Elo lists and closes are shown (ratingdb.reports.systems.base says what each field is).

K and the flag after Games, CSV and FIDE's fixed-width text to download, a close's counts of the floor,
inactivity and K. Also the lists of a federation's own Elo rule sets (a national list). No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.i18n import N_, Language
from ratingdb.rating import Period
from ratingdb.rating.rules import capped_difference, expected_score_under
from ratingdb.reports.event import EventReport
from ratingdb.reports.lists import ExportFormat, HistoryLine, ListLine, ListVersionLine, write_list_file
from ratingdb.reports.period import PeriodReport, PlayerMove
from ratingdb.reports.systems.base import (
    CalculationText,
    Column,
    Download,
    EventCells,
    EventStanding,
    Forecast,
    ListFigures,
    Section,
    Shown,
    close_figures,
    signed_whole,
)
from ratingdb.schema.models import ListEntry, Player, RatingList
from ratingdb.services.rules import rule_set_in_force


@dataclass(frozen=True)
class EloList:
    """An Elo list's figures are its entries' own: rating, K and flag."""

    def order(self, lines: Sequence[ListLine]) -> list[ListLine]:
        return list(lines)

    def cells(self, line: ListLine, lang: Language) -> tuple[str, ...]:
        return (str(line.rating or ""), str(line.k or ""), line.flag or "")

    def note(self, lst: ListVersionLine, lang: Language) -> str:
        return lang.gettext(
            "Flag: i inactive, w woman, wi both. Change: since the previous %(type)s list."
        ) % {"type": lang.type_word(lst.rating_type)}

    def by_player(self) -> Mapping[int, object]:
        return {}

    def legend(self) -> str | None:
        return None

    def write(self, fmt: ExportFormat, lines: Sequence[ListLine], out: TextIO, lst: ListVersionLine) -> None:
        if fmt == "fide-txt":
            # FIDE's format names a player by FIDE ID only: a line without one would not import again.
            lines = [line for line in lines if line.fide_id is not None]
        write_list_file(lines, out, fmt, lst.rating_type, lst.list_date)


def _counts(report: PeriodReport, lang: Language) -> list[str]:
    n, c = lang.count, report.counts
    return [
        lang.gettext(
            "%(players)s players on the list: %(rated)s players rated, %(new)s newly rated, "
            "%(below)s below the floor"
        )
        % {
            "players": n(report.players_on_list),
            "rated": n(c.players_rated),
            "new": n(c.newly_rated),
            "below": n(len(report.dropped_below_floor)),
        },
        lang.gettext(
            "%(played)s games played, %(rated)s games rated, %(changing)s games that changed a rating"
        )
        % {"played": n(c.games_played), "rated": n(c.games_rated), "changing": n(c.games_changing_a_rating)},
        lang.gettext("%(inactive)s became inactive, %(active)s active again")
        % {"inactive": n(len(report.became_inactive)), "active": n(len(report.active_again))},
        lang.gettext("%(k)s K changes, %(events)s events (%(late)s late)")
        % {
            "k": n(len(report.k_changes)),
            "events": n(len(report.events)),
            "late": n(len(report.late_events)),
        },
    ]


def _count_figures(report: PeriodReport) -> dict[str, int]:
    return {
        **close_figures(report),
        "dropped_below_floor": len(report.dropped_below_floor),
        "became_inactive": len(report.became_inactive),
        "active_again": len(report.active_again),
        "k_changes": len(report.k_changes),
        "events": len(report.events),
        "late_events": len(report.late_events),
    }


def _move_cells(move: PlayerMove, lang: Language) -> tuple[str, ...]:
    return ()


def _history_cells(line: HistoryLine, figures: object | None, lang: Language) -> tuple[str, ...]:
    return (str(line.rating or lang.gettext("unrated")), str(line.k or ""), line.flag or "")


def _change(change: int | None, figures: object | None, lang: Language) -> str:
    return signed_whole(change)  # an Elo rating is in whole points, and so is its change


def _cli_cells(figures: object | None) -> list[object] | None:
    return None  # the entry's own columns (rating, K, flag) are all an Elo list has


def _cli_change(change: int | None, figures: object | None) -> object:
    return change


def _event_cells(
    session: Session, report: EventReport, lang: Language
) -> dict[int, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Ro; then games, K, K × Σ(score − PD) in this event, Rp and the status: the close's record."""
    cells: dict[int, EventCells] = {}
    for line in report.lines:
        change = "" if line.k_sum_dr_x100 is None else lang.hundredths(line.k_sum_dr_x100, signed=True)
        status = lang.status_word(line.status) + (f": {line.new_rating}" if line.new_rating else "")
        after = (str(line.games), str(line.k or ""), change, str(line.performance or ""), status)
        cells[line.player_id] = ((str(line.ro or ""),), after)
    return cells


def _event_standings(session: Session, report: EventReport) -> dict[int, EventStanding]:
    return {
        line.player_id: EventStanding(
            line.games,
            line.status,
            None if line.ro is None else line.ro * 100,
            None,
            None if line.new_rating is None else line.new_rating * 100,
        )
        for line in report.lines
    }


def _figures(session: Session, rating_list: RatingList) -> ListFigures:
    return EloList()


def _player_figures(session: Session, player_id: int) -> Mapping[tuple[str, dt.date], object]:
    return {}  # an Elo list entry is all there is


def _rates(session: Session, rating_types: Sequence[str]) -> set[str]:
    return set(rating_types)  # the default: every type no other system claims


class EloShown(Shown):
    """FIDE's Elo lists and closes on the pages, in the CLI's tables and in the exports."""

    name = "elo"
    title = "Elo"
    footer = N_("Elo ratings by the FIDE Rating Regulations.")
    downloads = (Download("csv", "csv", "CSV", symbol=True), Download("fide-txt", "txt", N_("FIDE text")))
    list_columns = (Column("k", "K", numeric=True, symbol=True), Column("flag", N_("Flag")))
    move_columns = ()
    sections = (
        Section(N_("Newly rated"), "newly_rated"),
        Section(N_("Below the rating floor"), "dropped_below_floor"),
        Section(N_("Became inactive"), "became_inactive", flags=True),
        Section(N_("Active again"), "active_again", flags=True),
        Section(N_("Largest gains"), "gains"),
        Section(N_("Largest losses"), "losses"),
    )
    marks_inactive = True
    close_template = "elo_close.html"
    cli_columns = ()
    cli_list_columns = ()
    event_before = (Column("ro", "Ro", numeric=True, symbol=True),)
    event_after = (
        Column("games", N_("Games"), numeric=True),
        Column("k", "K", numeric=True, symbol=True),
        Column("change", N_("Change"), numeric=True),
        Column("rp", "Rp", numeric=True, symbol=True),
        Column("status", N_("Status")),
    )
    event_note = N_(
        "Each round: the opponent's rank, the colour (w, b) and the result. Change: K × Σ(score − PD) in "
        "this event, before the period's rounding. Rp: performance rating."
    )

    def counts(self, report: PeriodReport, lang: Language) -> list[str]:
        return _counts(report, lang)

    def count_figures(self, report: PeriodReport) -> dict[str, int]:
        return _count_figures(report)

    def move_cells(self, move: PlayerMove, lang: Language) -> tuple[str, ...]:
        return _move_cells(move, lang)

    def history_cells(self, line: HistoryLine, figures: object | None, lang: Language) -> tuple[str, ...]:
        return _history_cells(line, figures, lang)

    def change(self, change: int | None, figures: object | None, lang: Language) -> str:
        return _change(change, figures, lang)

    def cli_cells(self, figures: object | None) -> list[object] | None:
        return _cli_cells(figures)

    def cli_list_cells(self, figures: object | None) -> list[object]:
        return []

    def api_fields(self, figures: object | None) -> dict[str, Any]:
        return {}

    def cli_change(self, change: int | None, figures: object | None) -> object:
        return _cli_change(change, figures)

    def event_cells(self, session: Session, report: EventReport, lang: Language) -> dict[int, EventCells]:
        return _event_cells(session, report, lang)

    def event_standings(self, session: Session, report: EventReport) -> dict[int, EventStanding]:
        return _event_standings(session, report)

    def figures(self, session: Session, rating_list: RatingList) -> ListFigures | None:
        return _figures(session, rating_list)

    def player_figures(self, session: Session, player_id: int) -> Mapping[tuple[str, dt.date], object]:
        return _player_figures(session, player_id)

    def rates(self, session: Session, rating_types: Sequence[str]) -> set[str]:
        return _rates(session, rating_types)

    def forecaster(self, session: Session, lst: RatingList, rating_type: str, period: Period) -> Forecast:
        return forecaster(session, lst, rating_type, period)

    def calculation_text(
        self, session: Session, player: Player, rating_type: str, period: Period
    ) -> CalculationText | None:
        return None  # the default: the CLI writes an Elo calculation event by event


ELO = EloShown()


def forecaster(session: Session, lst: RatingList, rating_type: str, period: Period) -> Forecast:
    """White's expected score by the rule set's table at the capped difference (§8.1.2, §8.3.1), and the
    players' mean rating, for two players rated on `lst` (None otherwise: Elo gives an unrated none)."""
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
