"""How Glicko-2 lists and closes are shown (ratingdb.reports.systems.base says what each field is).

The rating to hundredths, the deviation (RD) and the provisional mark after Games; a CSV download in the
Glicko-2 list format (deviation and volatility: FIDE's text format has neither); a close's counts of the
deviations widened, its moves with RD before and after. docs/guide/glicko2.md. No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from ratingdb.i18n import N_, Language
from ratingdb.rating import Period
from ratingdb.rating.glicko2 import expected_score as glicko2_expected
from ratingdb.rating.glicko2 import to_glicko2_scale
from ratingdb.reports.event import EventReport
from ratingdb.reports.glicko2 import glicko2_calculation, glicko2_list, glicko2_summary
from ratingdb.reports.lists import ExportFormat, HistoryLine, ListLine, ListVersionLine
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
)
from ratingdb.schema.models import (
    EventPlayer,
    Glicko2CalcGame,
    Glicko2CalcPlayer,
    Glicko2Entry,
    Player,
    RatingList,
)
from ratingdb.services.glicko2_lists import Glicko2Shown, glicko2_figures, list_parameters, player_glicko2

if TYPE_CHECKING:
    from ratingdb.rating.glicko2 import Glicko2Parameters


@dataclass(frozen=True)
class Glicko2Page:
    """A Glicko-2 list's figures for its pages (docs/guide/glicko2.md): by player id, as published, and
    the rule set's parameters (the deviation above which a rating is shown as provisional)."""

    params: Glicko2Parameters
    figures: Mapping[int, Glicko2Shown]

    def order(self, lines: Sequence[ListLine]) -> list[ListLine]:
        """Best first by the rating in hundredths (list_entry's whole point ties), unrated last."""

        def key(line: ListLine) -> tuple[bool, int, str, int]:
            shown = self.figures.get(line.player_id)
            return (shown is None, -shown.figures.rating_x100 if shown else 0, line.name, line.player_id)

        return sorted(lines, key=key)

    def cells(self, line: ListLine, lang: Language) -> tuple[str, ...]:
        """The rating, deviation (hundredths) and provisional mark of a player; blank when unrated."""
        return _figure_cells(self.figures.get(line.player_id), lang, unrated="")

    def note(self, lst: ListVersionLine, lang: Language) -> str:
        text = lang.gettext("Rated by Glicko-2: the rating and its deviation (RD) to hundredths")
        if self.params.provisional_deviation is not None:
            text += lang.gettext("; a rating is provisional while its RD is above %(rd)s") % {
                "rd": f"{self.params.provisional_deviation:g}"
            }
        change = lang.gettext("Change: since the previous %(type)s list.")
        return f"{text}. {change % {'type': lang.type_word(lst.rating_type)}}"

    def by_player(self) -> Mapping[int, object]:
        return self.figures

    def legend(self) -> str | None:
        rd = self.params.provisional_deviation
        return None if rd is None else f"? = provisional, RD above {rd:g}"

    def write(self, fmt: ExportFormat, lines: Sequence[ListLine], out: TextIO, lst: ListVersionLine) -> None:
        from ratingdb.reports.glicko2 import write_glicko2_list_file

        write_glicko2_list_file(self.order(lines), dict(self.figures), out, lst.rating_type)


def _figure_cells(shown: Glicko2Shown | None, lang: Language, *, unrated: str) -> tuple[str, ...]:
    if shown is None:
        return (unrated, "", "")
    mark = lang.gettext("provisional") if shown.provisional else ""
    return (lang.hundredths(shown.figures.rating_x100), lang.hundredths(shown.figures.deviation_x100), mark)


def _counts(report: PeriodReport, lang: Language) -> list[str]:
    n, c = lang.count, report.counts
    return [
        lang.gettext("%(players)s players on the list: %(rated)s players rated, %(new)s newly rated")
        % {"players": n(report.players_on_list), "rated": n(c.players_rated), "new": n(c.newly_rated)},
        lang.gettext(
            "%(played)s games played, %(rated)s games rated, %(changing)s games that changed a rating"
        )
        % {"played": n(c.games_played), "rated": n(c.games_rated), "changing": n(c.games_changing_a_rating)},
        lang.gettext("%(widened)s deviations widened: rated players without a game (Glickman's Step 6)")
        % {"widened": n(report.deviations_widened)},
        *(
            [
                lang.gettext(
                    "%(held)s deviations of rated players without a game held at the rule set's maximum "
                    "deviation (or lowered to it: listed above it)"
                )
                % {"held": n(report.deviations_at_maximum)}
            ]
            if report.deviations_at_maximum
            else []
        ),
        lang.gettext("%(events)s events (%(late)s late)")
        % {"events": n(len(report.events)), "late": n(len(report.late_events))},
    ]


def _count_figures(report: PeriodReport) -> dict[str, int]:
    return {
        **close_figures(report),
        "deviations_widened": report.deviations_widened,
        "deviations_at_maximum": report.deviations_at_maximum,
        "events": len(report.events),
        "late_events": len(report.late_events),
    }


def _rd(deviation: float | None, lang: Language) -> str:
    return "" if deviation is None else lang.hundredths(round(deviation * 100))


def _move_cells(move: PlayerMove, lang: Language) -> tuple[str, ...]:
    return (_rd(move.deviation_before, lang), _rd(move.deviation_after, lang))


def _history_cells(line: HistoryLine, figures: object | None, lang: Language) -> tuple[str, ...]:
    shown = figures if isinstance(figures, Glicko2Shown) else None
    return _figure_cells(shown, lang, unrated=lang.gettext("unrated"))


def change_x100(figures: object | None) -> int | None:
    """A player's change on a Glicko-2 list in hundredths (1412.00 → 1342.89: -6911), from the figures
    ListFigures.by_player gives; None for a newcomer, on an imported list, or without figures."""
    return figures.change_x100 if isinstance(figures, Glicko2Shown) else None


def change_points(figures: object | None) -> str | None:
    """The change as the CLI writes it, to hundredths as the ratings are: -69.11, 0.00, 12.30."""
    x100 = change_x100(figures)
    return None if x100 is None else f"{x100 / 100:.2f}"


def _cli_cells(figures: object | None) -> list[object] | None:
    """The rating and deviation to hundredths and "?" while provisional; None: not a Glicko-2 list's."""
    if not isinstance(figures, Glicko2Shown):
        return None
    return [f"{figures.rating:.2f}", f"{figures.deviation:.2f}", "?" if figures.provisional else ""]


def _cli_change(change: int | None, figures: object | None) -> object:
    return change_points(figures)


def _change(change: int | None, figures: object | None, lang: Language) -> str:
    """To hundredths, as the list's ratings are (+12.30, 0.00, -69.11); not list_entry's whole points,
    which differ by the rounding of both ratings (1412.00 → 1342.89 is -69 there)."""
    x100 = change_x100(figures)
    if x100 is None:
        return ""
    return lang.hundredths(x100, signed=x100 > 0)


def _event_standings(session: Session, report: EventReport) -> dict[int, EventStanding]:
    """Each player's record of the event in the Glicko-2 close: the rating and RD it rated from, the
    event's games in the record, the status and the period's new rating (Glicko-2 rates the whole
    period at once: there is no change per event)."""
    players = [line.player_id for line in report.lines]
    before: dict[int, tuple[int, int, bool]] = {}
    games: dict[int, int] = {}
    after: dict[int, int] = {}
    rated_by = None
    if report.list_date is not None:
        rated_by = session.scalar(
            select(RatingList.id).where(
                RatingList.rating_type == report.rating_type,
                RatingList.list_date == report.list_date,
                RatingList.is_current.is_(True),
            )
        )
    if rated_by is not None:
        for player_id, r100, d100, newcomer in session.execute(
            select(
                Glicko2CalcPlayer.player_id,
                Glicko2CalcPlayer.rating_x100,
                Glicko2CalcPlayer.deviation_x100,
                Glicko2CalcPlayer.newcomer,
            ).where(Glicko2CalcPlayer.list_id == rated_by, Glicko2CalcPlayer.player_id.in_(players))
        ):
            before[player_id] = (r100, d100, newcomer)
        games = dict(
            session.execute(
                select(Glicko2CalcGame.player_id, func.count())
                .where(
                    Glicko2CalcGame.list_id == rated_by,
                    Glicko2CalcGame.player_id.in_(players),
                    Glicko2CalcGame.event_id == report.event_id,
                )
                .group_by(Glicko2CalcGame.player_id)
            ).all()
        )
        after = dict(
            session.execute(
                select(Glicko2Entry.player_id, Glicko2Entry.rating_x100)
                .join(EventPlayer, EventPlayer.player_id == Glicko2Entry.player_id)
                .where(Glicko2Entry.list_id == rated_by, EventPlayer.event_id == report.event_id)
            ).all()
        )
    standings: dict[int, EventStanding] = {}
    for player_id in players:
        figures = before.get(player_id)
        n = games.get(player_id, 0)
        if rated_by is None:
            status = "not rated yet"
        elif figures is None or not n:
            status = "not rated"
        else:
            status = "newly rated" if figures[2] else "rated"
        standings[player_id] = EventStanding(
            n, status, figures[0] if figures else None, figures[1] if figures else None, after.get(player_id)
        )
    return standings


def _event_cells(session: Session, report: EventReport, lang: Language) -> dict[int, EventCells]:
    cells: dict[int, EventCells] = {}
    for player_id, s in _event_standings(session, report).items():
        status = lang.status_word(s.status)
        if s.status in ("rated", "newly rated") and s.new_rating_x100 is not None:
            status += f": {lang.hundredths(s.new_rating_x100)}"
        shown = (
            ("", "")
            if s.rating_x100 is None
            else (lang.hundredths(s.rating_x100), lang.hundredths(s.deviation_x100))
        )
        cells[player_id] = (shown, (str(s.games), status))
    return cells


def _figures(session: Session, rating_list: RatingList) -> Glicko2Page | None:
    """The list's figures, or None for a list that is not a Glicko-2 one (one look-up by its id)."""
    params = list_parameters(session, rating_list)
    if params is None:
        return None
    return Glicko2Page(params, glicko2_figures(session, rating_list.id, params))


def _rates(session: Session, rating_types: Sequence[str]) -> set[str]:
    """The types with a Glicko-2 list (one probe of glicko2_entry's primary key per list)."""
    has_entries = exists().where(Glicko2Entry.list_id == RatingList.id)
    return set(
        session.scalars(
            select(RatingList.rating_type)
            .where(RatingList.rating_type.in_(rating_types), has_entries)
            .distinct()
        )
    )


class Glicko2Display(Shown):
    name = "glicko2"
    title = "Glicko-2"
    footer = N_("Glicko-2 ratings by Mark Glickman's system.")
    downloads = (Download("csv", "csv", "CSV", symbol=True),)
    list_columns = (Column("rd", "RD", numeric=True, symbol=True), Column("provisional", N_("Provisional")))
    move_columns = (Column("rd_before", N_("RD before"), numeric=True), Column("rd_after", N_("RD after")))
    sections = (
        Section(N_("Newly rated"), "newly_rated"),
        Section(N_("Largest gains"), "gains"),
        Section(N_("Largest losses"), "losses"),
    )
    marks_inactive = False
    close_template = None
    cli_columns = ("glicko2", "rd", "provisional")
    cli_list_columns = ("rating", "rd", "volatility", "provisional")
    event_before = (
        Column("rating", N_("Rating"), numeric=True),
        Column("rd", "RD", numeric=True, symbol=True),
    )
    event_after = (Column("games", N_("Games"), numeric=True), Column("status", N_("Status")))
    event_note = N_(
        "Each round: the opponent's rank, the colour (w, b) and the result. Rating and RD: the player's on "
        "the list in force (a newcomer's: Glickman's Step 1). Glicko-2 rates the whole period at once, so "
        "the new rating after the status is the period's, not this event's alone."
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
        if not isinstance(figures, Glicko2Shown):
            return [None] * 4
        f = figures
        return [f"{f.rating:.2f}", f"{f.deviation:.2f}", f"{f.volatility:.6f}", "?" if f.provisional else ""]

    def api_fields(self, figures: object | None) -> dict[str, Any]:
        if not isinstance(figures, Glicko2Shown):
            return {}
        return {
            "exact_rating": figures.rating,
            "glicko2_rating": figures.rating,  # the field's first name, kept for scripts that read it
            "deviation": figures.deviation,
            "volatility": figures.volatility,
            "provisional": figures.provisional,
        }

    def cli_change(self, change: int | None, figures: object | None) -> object:
        return _cli_change(change, figures)

    def event_cells(self, session: Session, report: EventReport, lang: Language) -> dict[int, EventCells]:
        return _event_cells(session, report, lang)

    def event_standings(self, session: Session, report: EventReport) -> dict[int, EventStanding]:
        return _event_standings(session, report)

    def figures(self, session: Session, rating_list: RatingList) -> ListFigures | None:
        return _figures(session, rating_list)

    def player_figures(self, session: Session, player_id: int) -> Mapping[tuple[str, dt.date], object]:
        return player_glicko2(session, player_id)

    def rates(self, session: Session, rating_types: Sequence[str]) -> set[str]:
        return _rates(session, rating_types)

    def forecaster(self, session: Session, lst: RatingList, rating_type: str, period: Period) -> Forecast:
        return forecaster(session, lst, rating_type, period)

    def calculation_text(
        self, session: Session, player: Player, rating_type: str, period: Period
    ) -> CalculationText | None:
        """The stored steps, then the games with the opponents' figures."""
        found = glicko2_list(session, rating_type, period)
        if found is None:
            return None
        calc = glicko2_calculation(session, player, *found)
        rows: list[list[object]] = [
            [g.event_id, g.round, g.opponent, g.opponent_fide_id, f"{g.opponent_rating_x100 / 100:.2f}",
             f"{g.opponent_deviation_x100 / 100:.2f}", f"{g.g:.4f}", f"{g.e:.4f}", f"{g.score_x100 / 100:g}"]
            for g in calc.games
        ]  # fmt: skip
        return CalculationText(
            f"{calc.rating_type} (Glicko-2), period {calc.period}, list dated {calc.list_date.isoformat()}",
            glicko2_summary(calc),
            ["event", "rd", "opponent", "fide_id", "rating", "RD", "g(φj)", "E", "score"],
            rows,
        )


GLICKO2 = Glicko2Display()


def forecaster(session: Session, lst: RatingList, rating_type: str, period: Period) -> Forecast:
    """White's expected score by Glickman's E(μ, μⱼ, φⱼ) with black's deviation, and the players' mean
    rating, for two players with figures on `lst`."""
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
