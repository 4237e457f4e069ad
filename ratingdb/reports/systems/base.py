"""How a rating system's lists and closes are shown: the display facts that differ from system to system.

One `Shown` per system (elo.py, glicko2.py here), found by the name its rule sets give (`RuleSet.system`)
in ratingdb.reports.systems.SHOWN, as the close finds its stages in ratingdb.services.systems. It says
which counts a close's page gives and which moves it tables with which columns, the sentence under a page
naming the system's rules, which downloads a list offers, and the columns a list (and a player's table
per list) has after Games, with the cells of each row. The templates only loop over these, so a third
system is a module here, not a branch in every template. Texts are message ids (`N_`), translated
where they are shown. Reads only; no CLI or web imports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from sqlalchemy.orm import Session

from ratingdb.i18n import Language
from ratingdb.rating import Period
from ratingdb.reports.event import EventReport
from ratingdb.reports.lists import ExportFormat, HistoryLine, ListLine, ListVersionLine
from ratingdb.reports.period import PeriodReport, PlayerMove
from ratingdb.schema.models import Player, RatingList


def signed_whole(value: int | None) -> str:
    """A change in whole points as the pages show it: +12, 0, -69; blank when there is none."""
    if value is None:
        return ""
    return f"+{value}" if value > 0 else str(value)


def close_figures(report: PeriodReport) -> dict[str, int]:
    """The counts every close has, by name (services/counts defines them); a system adds its own."""
    c = report.counts
    return {
        "players_on_list": report.players_on_list,
        "games_played": c.games_played,
        "games_rated": c.games_rated,
        "games_changing_a_rating": c.games_changing_a_rating,
        "players_rated": c.players_rated,
        "newly_rated": c.newly_rated,
    }


@dataclass(frozen=True)
class Column:
    """A column of a table: its cell's key (the list page's script sorts by it) and its heading."""

    key: str
    heading: str  # a message id; a symbol (K, RD) is shown as it is
    numeric: bool = False
    symbol: bool = False


@dataclass(frozen=True)
class Download:
    """A file a list offers: `ratingdb list --format FORMAT` writes it, the site at lists/<name>.<suffix>."""

    format: ExportFormat
    suffix: str
    label: str  # a message id; a format's own name (CSV) is shown as it is
    symbol: bool = False


@dataclass(frozen=True)
class Section:
    """Moves a close's page tables under a heading: the PeriodReport attribute holding them."""

    title: str  # a message id
    moves: str
    flags: bool = False  # with each move's flag before → after


class ListFigures(Protocol):
    """One list version's figures as its system shows them (read once per version)."""

    def order(self, lines: Sequence[ListLine]) -> list[ListLine]:
        """The lines in the list's order (best first)."""
        ...

    def cells(self, line: ListLine, lang: Language) -> tuple[str, ...]:
        """The rating, then one cell per `Shown.list_columns`, as `lang` writes them."""
        ...

    def note(self, lst: ListVersionLine, lang: Language) -> str:
        """The sentence under the list's table (what its columns mean)."""
        ...

    def by_player(self) -> Mapping[int, object]:
        """Player id → the figures `Shown.history_cells` shows beyond the list entry ({}: none)."""
        ...

    def legend(self) -> str | None:
        """What a mark in the CLI's table means ("? = provisional, RD above 110"); None: no mark."""
        ...

    def write(self, fmt: ExportFormat, lines: Sequence[ListLine], out: TextIO, lst: ListVersionLine) -> None:
        """One of the system's downloads of the list, as `ratingdb list --format FMT` writes it."""
        ...


# White's expected score and the players' mean rating for (white id, black id), None: the system gives
# none; and what makes one from the list a period's close rated from (ratingdb.reports.forecasts).
Forecast = Callable[[int, int], tuple[float, float] | None]
Forecaster = Callable[[Session, RatingList, str, Period], Forecast]

EventCells = tuple[tuple[str, ...], tuple[str, ...]]  # a player's cells before the rounds and after Pts


@dataclass(frozen=True)
class EventStanding:
    """A player's record of an event in its close, as figures (the API's; the pages format them)."""

    games: int  # the games of the event that counted
    status: str  # as ratingdb.reports.event.EventLine.status names it
    rating_x100: int | None  # the rating the close rated from, in hundredths (None: unrated)
    deviation_x100: int | None  # its deviation, for a system with one
    new_rating_x100: int | None  # on the list the close published


@dataclass(frozen=True)
class CalculationText:
    """A player's calculation in one close, as `ratingdb calculation` writes it: after the player's
    heading, `title` (type, system, period, list), the lines of the steps, then the games' table."""

    title: str
    lines: list[str]
    columns: list[str]
    rows: list[list[object]]


class Shown(Protocol):
    """What differs, on the pages and in the exports, between one rating system's lists and another's.

    Each system is a class implementing this (subclassing it for `offers`/`exports`), one instance in
    ratingdb.reports.systems.SHOWN; the attributes are its fixed display facts, the methods read and
    write out its figures.
    """

    name: str  # as a rule set names the system (`RuleSet.system`)
    title: str  # the system's own name, never translated (Elo, Glicko-2)
    footer: str  # the sentence under a page showing the system's lists (a message id)
    downloads: tuple[Download, ...]
    list_columns: tuple[Column, ...]  # after Games, on a list page and in a player's table per list
    move_columns: tuple[Column, ...]  # after Games, in a close's tables of moves
    sections: tuple[Section, ...]  # a close's tables of moves, in order
    marks_inactive: bool  # its lists flag inactive players (the "active only" filter means something)
    # The system's own tables on a close's page, a template beside the pages' (None: none).
    close_template: str | None
    # The CLI's tables of entries (`ratingdb player`, `report top`): the columns the system adds after the
    # entry's; and the columns after the player's of `ratingdb list` for a list with figures of its own
    # (empty: the list is its entries, as an Elo list is).
    cli_columns: tuple[str, ...]
    cli_list_columns: tuple[str, ...]
    # An event's crosstable: the columns before the rounds and after the points, and the sentence under
    # the table (a message id).
    event_before: tuple[Column, ...]
    event_after: tuple[Column, ...]
    event_note: str

    def counts(self, report: PeriodReport, lang: Language) -> list[str]:
        """A close's counts, one sentence each, in `lang`."""
        ...

    def count_figures(self, report: PeriodReport) -> dict[str, int]:
        """A close's counts as figures by name (`report period`, the API)."""
        ...

    def move_cells(self, move: PlayerMove, lang: Language) -> tuple[str, ...]:
        """A move's cells, one per `move_columns`."""
        ...

    def history_cells(self, line: HistoryLine, figures: object | None, lang: Language) -> tuple[str, ...]:
        """A player's row on one of the system's lists: the rating, then one cell per `list_columns`."""
        ...

    def change(self, change: int | None, figures: object | None, lang: Language) -> str:
        """A row's Change (a list's, a player's table per list), from the entry's whole-point change and
        the system's figures of the player (ListFigures.by_player's), to the precision of its ratings."""
        ...

    def cli_cells(self, figures: object | None) -> list[object] | None:
        """The cells of `cli_columns` from a player's figures (None: the figures are not this system's)."""
        ...

    def cli_list_cells(self, figures: object | None) -> list[object]:
        """The cells of `cli_list_columns` from a player's figures (blank: unrated)."""
        ...

    def api_fields(self, figures: object | None) -> dict[str, Any]:
        """A list entry's fields in the JSON API beyond the entry's own, from the player's figures ({}:
        none): the rating to hundredths, the deviation and the provisional mark of a system with them."""
        ...

    def cli_change(self, change: int | None, figures: object | None) -> object:
        """The change the CLI writes, from the entry's whole-point one and the player's figures."""
        ...

    def event_cells(self, session: Session, report: EventReport, lang: Language) -> dict[int, EventCells]:
        """An event's cells before the rounds and after the points, by player id (the close's record)."""
        ...

    def event_standings(self, session: Session, report: EventReport) -> dict[int, EventStanding]:
        """Each player's record of the event in its close, as figures (the API's)."""
        ...

    def figures(self, session: Session, rating_list: RatingList) -> ListFigures | None:
        """The list's figures if the list is one of this system's, else None."""
        ...

    def player_figures(self, session: Session, player_id: int) -> Mapping[tuple[str, dt.date], object]:
        """A player's figures on each current list of the system, by (type, list date)."""
        ...

    def rates(self, session: Session, rating_types: Sequence[str]) -> set[str]:
        """Which of `rating_types` the system rates (by their lists), for pages showing several lists."""
        ...

    def forecaster(self, session: Session, lst: RatingList, rating_type: str, period: Period) -> Forecast:
        """How the system forecast a game of `period` from the list `lst` it rated from (`report systems`,
        ratingdb.reports.forecasts)."""
        ...

    def calculation_text(
        self, session: Session, player: Player, rating_type: str, period: Period
    ) -> CalculationText | None:
        """The player's calculation in the close of `period` if the system closed it (None: not this
        system's close; Elo's is written by the CLI from ratingdb.reports.lists.calculation)."""
        ...

    def offers(self, suffix: str) -> bool:
        return any(d.suffix == suffix for d in self.downloads)

    def exports(self, fmt: str) -> bool:
        return any(d.format == fmt for d in self.downloads)
