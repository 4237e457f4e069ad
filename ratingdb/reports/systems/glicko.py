"""How Glicko lists and closes are shown (Glickman's first system; ratingdb.reports.systems.base).

The rating to hundredths, the deviation (RD) and the provisional mark after Games; a CSV download in the
Glicko list format (the Glicko-2 CSV without volatility); a close's counts of the deviations grown by c
(Step 1), its moves with RD before and after. docs/guide/glicko.md. No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session, aliased

from ratingdb.i18n import N_, Language
from ratingdb.rating import Period
from ratingdb.rating.glicko import GlickoParameters, Q, expected_score, onset_deviation
from ratingdb.reports.event import EventReport
from ratingdb.reports.lists import (
    ExportFormat,
    HistoryLine,
    ListLine,
    ListVersionLine,
    as_list_row,
    computed_list,
)
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
    Event,
    EventPlayer,
    Game,
    GlickoCalcGame,
    GlickoCalcPlayer,
    GlickoEntry,
    Player,
    RatingList,
)
from ratingdb.services.systems.glicko import (
    GlickoShown,
    glicko_figures,
    list_parameters,
    player_glicko,
    type_parameters,
)

if TYPE_CHECKING:
    from ratingdb.formats.glicko2_list import Glicko2Figures


@dataclass(frozen=True)
class GlickoPage:
    """A Glicko list's figures for its pages: by player id, as published, and the rule set's
    parameters (the deviation above which a rating is shown as provisional)."""

    params: GlickoParameters
    figures: Mapping[int, GlickoShown]

    def order(self, lines: Sequence[ListLine]) -> list[ListLine]:
        """Best first by the rating in hundredths (list_entry's whole point ties), unrated last."""

        def key(line: ListLine) -> tuple[bool, int, str, int]:
            shown = self.figures.get(line.player_id)
            return (shown is None, -shown.figures.rating_x100 if shown else 0, line.name, line.player_id)

        return sorted(lines, key=key)

    def cells(self, line: ListLine, lang: Language) -> tuple[str, ...]:
        return _figure_cells(self.figures.get(line.player_id), lang, unrated="")

    def note(self, lst: ListVersionLine, lang: Language) -> str:
        text = lang.gettext("Rated by Glicko: the rating and its deviation (RD) to hundredths")
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
        """The Glicko CSV list, which re-imports to the same figures."""
        # The file format loads when a list is written, not when one is shown (tests/cli/test_startup.py).
        from ratingdb.formats.glicko2_list import Glicko2Figures, write_glicko2_list

        def figures_of(player_id: int) -> Glicko2Figures | None:
            shown = self.figures.get(player_id)
            if shown is None:
                return None
            return Glicko2Figures(shown.figures.rating_x100, shown.figures.deviation_x100, 0)

        ordered = self.order(lines)
        rows = (
            (as_list_row(i, line, lst.rating_type), figures_of(line.player_id))
            for i, line in enumerate(ordered, 2)
        )
        write_glicko2_list(rows, out, volatility=False)


def _figure_cells(shown: GlickoShown | None, lang: Language, *, unrated: str) -> tuple[str, ...]:
    if shown is None:
        return (unrated, "", "")
    mark = lang.gettext("provisional") if shown.provisional else ""
    return (lang.hundredths(shown.figures.rating_x100), lang.hundredths(shown.figures.deviation_x100), mark)


def _rd(deviation: float | None, lang: Language) -> str:
    return "" if deviation is None else lang.hundredths(round(deviation * 100))


class GlickoDisplay(Shown):
    """Glicko's lists and closes on the pages, in the CLI's tables and in the exports."""

    name = "glicko"
    title = "Glicko"
    footer = N_("Glicko ratings by Mark Glickman's first system.")
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
    cli_columns = ("glicko", "rd", "provisional")
    cli_list_columns = ("rating", "rd", "provisional")
    event_before = (
        Column("rating", N_("Rating"), numeric=True),
        Column("rd", "RD", numeric=True, symbol=True),
    )
    event_after = (Column("games", N_("Games"), numeric=True), Column("status", N_("Status")))
    event_note = N_(
        "Each round: the opponent's rank, the colour (w, b) and the result. Rating and RD: the player's on "
        "the list in force (a newcomer's: Glickman's Step 1). Glicko rates the whole period at once, so "
        "the new rating after the status is the period's, not this event's alone."
    )

    def counts(self, report: PeriodReport, lang: Language) -> list[str]:
        n, c = lang.count, report.counts
        return [
            lang.gettext("%(players)s players on the list: %(rated)s players rated, %(new)s newly rated")
            % {"players": n(report.players_on_list), "rated": n(c.players_rated), "new": n(c.newly_rated)},
            lang.gettext(
                "%(played)s games played, %(rated)s games rated, %(changing)s games that changed a rating"
            )
            % {
                "played": n(c.games_played),
                "rated": n(c.games_rated),
                "changing": n(c.games_changing_a_rating),
            },
            lang.gettext(
                "%(grown)s deviations grown by c: rated players without a game (Glickman's Step 1)"
            )
            % {"grown": n(report.deviations_widened)},
            *(
                [
                    lang.gettext(
                        "%(held)s deviations of rated players without a game held at the rule set's "
                        "maximum deviation"
                    )
                    % {"held": n(report.deviations_at_maximum)}
                ]
                if report.deviations_at_maximum
                else []
            ),
            lang.gettext("%(events)s events (%(late)s late)")
            % {"events": n(len(report.events)), "late": n(len(report.late_events))},
        ]

    def count_figures(self, report: PeriodReport) -> dict[str, int]:
        return {
            **close_figures(report),
            "deviations_grown": report.deviations_widened,
            "deviations_at_maximum": report.deviations_at_maximum,
            "events": len(report.events),
            "late_events": len(report.late_events),
        }

    def move_cells(self, move: PlayerMove, lang: Language) -> tuple[str, ...]:
        return (_rd(move.deviation_before, lang), _rd(move.deviation_after, lang))

    def history_cells(self, line: HistoryLine, figures: object | None, lang: Language) -> tuple[str, ...]:
        shown = figures if isinstance(figures, GlickoShown) else None
        return _figure_cells(shown, lang, unrated=lang.gettext("unrated"))

    def change(self, change: int | None, figures: object | None, lang: Language) -> str:
        """To hundredths, as the list's ratings are (+12.30, 0.00, -69.11)."""
        x100 = figures.change_x100 if isinstance(figures, GlickoShown) else None
        return "" if x100 is None else lang.hundredths(x100, signed=x100 > 0)

    def cli_cells(self, figures: object | None) -> list[object] | None:
        if not isinstance(figures, GlickoShown):
            return None
        return [f"{figures.rating:.2f}", f"{figures.deviation:.2f}", "?" if figures.provisional else ""]

    def cli_list_cells(self, figures: object | None) -> list[object]:
        if not isinstance(figures, GlickoShown):
            return [None] * 3
        return [f"{figures.rating:.2f}", f"{figures.deviation:.2f}", "?" if figures.provisional else ""]

    def api_fields(self, figures: object | None) -> dict[str, Any]:
        if not isinstance(figures, GlickoShown):
            return {}
        return {
            "exact_rating": figures.rating,
            "deviation": figures.deviation,
            "provisional": figures.provisional,
        }

    def cli_change(self, change: int | None, figures: object | None) -> object:
        x100 = figures.change_x100 if isinstance(figures, GlickoShown) else None
        return None if x100 is None else f"{x100 / 100:.2f}"

    def event_standings(self, session: Session, report: EventReport) -> dict[int, EventStanding]:
        """Each player's record of the event in the Glicko close: the rating and RD it rated from, the
        event's games in the record, the status and the period's new rating."""
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
            record = GlickoCalcPlayer
            for player_id, r100, d100, newcomer in session.execute(
                select(record.player_id, record.rating_x100, record.deviation_x100, record.newcomer).where(
                    record.list_id == rated_by, record.player_id.in_(players)
                )
            ):
                before[player_id] = (r100, d100, newcomer)
            games = dict(
                session.execute(
                    select(GlickoCalcGame.player_id, func.count())
                    .where(
                        GlickoCalcGame.list_id == rated_by,
                        GlickoCalcGame.player_id.in_(players),
                        GlickoCalcGame.event_id == report.event_id,
                    )
                    .group_by(GlickoCalcGame.player_id)
                ).all()
            )
            after = dict(
                session.execute(
                    select(GlickoEntry.player_id, GlickoEntry.rating_x100)
                    .join(EventPlayer, EventPlayer.player_id == GlickoEntry.player_id)
                    .where(GlickoEntry.list_id == rated_by, EventPlayer.event_id == report.event_id)
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
                n,
                status,
                figures[0] if figures else None,
                figures[1] if figures else None,
                after.get(player_id),
            )
        return standings

    def event_cells(self, session: Session, report: EventReport, lang: Language) -> dict[int, EventCells]:
        cells: dict[int, EventCells] = {}
        for player_id, s in self.event_standings(session, report).items():
            status = lang.status_word(s.status)
            if s.status in ("rated", "newly rated") and s.new_rating_x100 is not None:
                status += f": {lang.hundredths(s.new_rating_x100)}"
            shown = (
                ("", "")
                if s.rating_x100 is None or s.deviation_x100 is None
                else (lang.hundredths(s.rating_x100), lang.hundredths(s.deviation_x100))
            )
            cells[player_id] = (shown, (str(s.games), status))
        return cells

    def figures(self, session: Session, rating_list: RatingList) -> ListFigures | None:
        params = list_parameters(session, rating_list)
        if params is None:
            return None
        return GlickoPage(params, glicko_figures(session, rating_list.id, params))

    def player_figures(self, session: Session, player_id: int) -> Mapping[tuple[str, dt.date], object]:
        return player_glicko(session, player_id)

    def rates(self, session: Session, rating_types: Sequence[str]) -> set[str]:
        """The types with a Glicko list (one probe of glicko_entry's primary key per list)."""
        has_entries = exists().where(GlickoEntry.list_id == RatingList.id)
        return set(
            session.scalars(
                select(RatingList.rating_type)
                .where(RatingList.rating_type.in_(rating_types), has_entries)
                .distinct()
            )
        )

    def forecaster(self, session: Session, lst: RatingList, rating_type: str, period: Period) -> Forecast:
        """White's expected score by Glickman's E(s | r, rⱼ, RDⱼ) with black's deviation at the onset of
        the period (Step 1: grown by c, at most the maximum), as the close rated the game; and the
        players' mean rating."""
        params = type_parameters(session, rating_type, period)
        figures = {
            player_id: (r100 / 100, d100 / 100)
            for player_id, r100, d100 in session.execute(
                select(GlickoEntry.player_id, GlickoEntry.rating_x100, GlickoEntry.deviation_x100).where(
                    GlickoEntry.list_id == lst.id
                )
            )
        }

        def onset(deviation: float) -> float:
            return deviation if params is None else onset_deviation(deviation, params, 1)[0]

        def forecast(white: int, black: int) -> tuple[float, float] | None:
            w, b = figures.get(white), figures.get(black)
            if w is None or b is None:
                return None
            return expected_score(w[0], b[0], onset(b[1])), (w[0] + b[0]) / 2

        return forecast

    def calculation_text(
        self, session: Session, player: Player, rating_type: str, period: Period
    ) -> CalculationText | None:
        """Step 1 and Step 2 as the close stored them, then the games with the opponents' figures at the
        onset of the period."""
        new_list = computed_list(session, rating_type, period)
        params = list_parameters(session, new_list)
        if params is None:
            return None
        title = f"{rating_type} (Glicko), period {period}, list dated {new_list.list_date.isoformat()}"
        rec = session.get(GlickoCalcPlayer, (new_list.id, player.id))
        if rec is None:
            return CalculationText(title, ["Not in this close's record: unrated, without games."], [], [])
        lines = [f"Before: r {rec.rating_x100 / 100:.2f}, RD {rec.deviation_x100 / 100:.2f}"]
        if rec.note:
            lines[0] += f" ({rec.note})"
        maximum = f"{params.maximum_deviation:g}"
        if rec.newcomer:
            lines.append(f"Step 1: a newcomer starts at RD {rec.onset_deviation:.2f}")
        else:
            grown = "the maximum" if rec.grown_to_maximum else f"{rec.onset_deviation:.2f}"
            lines.append(
                f"Step 1: RD = min(√(RD² + c²t), {maximum}) = min(√({rec.deviation_x100 / 100:.2f}² + "
                f"{params.c:.2f}² × 1), {maximum}) = {grown}"
                + (f" = {rec.onset_deviation:.2f}" if rec.grown_to_maximum else "")
            )
        if rec.d2 is None or rec.improvement is None:
            lines.append(f"No games: the deviation grows by Step 1 only, RD′ = {rec.new_deviation:.2f}")
        else:
            lines += [
                f"Step 2: d² = [q² Σ g(RDj)² E (1 − E)]⁻¹ = {rec.d2:.2f} over {rec.games} games (below), "
                f"q = ln 10 / 400",
                f"r′ = r + q / (1/RD² + 1/d²) × Σ g(RDj)(s − E) = {rec.rating_x100 / 100:.2f} + "
                f"{Q / (1 / rec.onset_deviation**2 + 1 / rec.d2):.4f} × {rec.improvement:.4f} = "
                f"{rec.new_rating:.4f}",
                f"RD′ = √((1/RD² + 1/d²)⁻¹) = {rec.new_deviation:.4f}",
            ]
        entry = session.get(GlickoEntry, (new_list.id, player.id))
        if entry is not None:
            mark = (
                f"; provisional (RD above {params.provisional_deviation:g})"
                if params.is_provisional(entry.deviation_x100 / 100)
                else ""
            )
            lines.append(
                f"New list: rating {entry.rating_x100 / 100:.2f}, RD {entry.deviation_x100 / 100:.2f}{mark} "
                "(rounded once, to hundredths)"
            )
        opponent = aliased(Player)
        rows: list[list[object]] = [
            [event_id, rnd, name, fide_id, f"{r100 / 100:.2f}", f"{rd:.2f}", f"{g:.4f}", f"{e:.4f}",
             f"{s100 / 100:g}"]
            for event_id, rnd, name, fide_id, r100, rd, g, e, s100 in session.execute(
                select(
                    GlickoCalcGame.event_id, Game.round, opponent.name, opponent.fide_id,
                    GlickoCalcGame.opponent_rating_x100, GlickoCalcGame.opponent_deviation, GlickoCalcGame.g,
                    GlickoCalcGame.e, GlickoCalcGame.score_x100,
                )
                .join(Game, Game.id == GlickoCalcGame.game_id)
                .join(Event, Event.id == GlickoCalcGame.event_id)
                .join(opponent, opponent.id == GlickoCalcGame.opponent_id)
                .where(GlickoCalcGame.list_id == new_list.id, GlickoCalcGame.player_id == player.id)
                .order_by(Event.start_date, Event.id, Game.round, Game.id)
            )
        ]  # fmt: skip
        columns = ["event", "rd", "opponent", "fide_id", "rating", "RD", "g(RDj)", "E", "score"]
        return CalculationText(title, lines, columns, rows)


GLICKO = GlickoDisplay()
