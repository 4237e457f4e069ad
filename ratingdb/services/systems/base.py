"""The rating-system seam of the close: what a system is handed (`Close`) and what it does (`RatingSystem`).

The close (ratingdb.services.close) runs its named stages over one `Close`: it resolves once what the
close needs (the rule set in force, the one that sets K on the new list, the list in force, the events),
opens the new list, and hands the rest to the system the rule set names (`RuleSet.system`, looked up in
ratingdb.services.systems.SYSTEMS): `read_inputs`, `rate_rated`, `pool_unrated`, `write_list`, in that
order; then it seals the list and sums up. A system writes its rows with `close.driver` and never
commits. Must not import the CLI, the formats or the reports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

from sqlalchemy.orm import Session

from ratingdb.rating import Adjustment, Period, RuleSet
from ratingdb.schema.models import RatingList, StoredRuleSet
from ratingdb.services.bulk import Driver

if TYPE_CHECKING:
    from ratingdb.services.list_import import ListImportSummary


class CloseCounts(NamedTuple):
    """What one close rated (docs/guide/reports.md defines each figure in the same words)."""

    games_played: int = 0  # games played over the board in the period's events (not byes or forfeits, §5.1)
    games_rated: int = 0  # of those, the games the calculation record counts for anyone: a rating change
    # or a pool toward a first rating
    games_changing_a_rating: int = 0  # the games in a rated player's change or in a first rating published
    players_rated: int = 0  # players whose rating the close recalculated from games (Elo: rated players;
    # Glicko-2: everyone with games)
    newly_rated: int = 0  # players with a rating on the new list and none on the list in force


class RecordCounts(NamedTuple):
    """What a close's calculation record says it rated (its system's part of CloseCounts)."""

    games_rated: int = 0
    games_changing_a_rating: int = 0
    players_rated: int = 0


Progress = Callable[[str], None]

Change = tuple[int, int | None, int | None, int]
"""(player id, old rating, new rating, games) of a player the close rated or pooled, for the summary."""


@dataclass(frozen=True)
class PlayerChange:
    """A player's rating before and after a close (None: unrated) and the games rated; for a system with
    deviations (Glicko-2), the rating deviation before and after."""

    player_id: int
    name: str
    old: int | None
    new: int | None
    games: int
    deviation_old: float | None = None  # a system with deviations (Glicko-2): RD before and after
    deviation_new: float | None = None


@dataclass(frozen=True)
class ExcludedEvent:
    """An event of the period the rating officer excluded from rating (`event review`), and why."""

    event_id: int
    name: str
    reason: str


@dataclass
class CloseSummary:
    """What a close did (or found: `already_closed`)."""

    period: Period
    rating_type: str
    list_date: dt.date
    already_closed: bool = False
    existing_origin: str | None = None
    list_id: int | None = None
    version: int = 1  # the list's version: above 1 after a reopen (docs/versioning.md)
    rules: str | None = None
    floor: int | None = None  # the rule set's floor (§7.2.1)
    events: int = 0
    late_events: list[str] = field(default_factory=list)
    excluded: list[ExcludedEvent] = field(default_factory=list)  # not rated by the officer's decision
    counts: CloseCounts = CloseCounts()  # games and players rated, newly rated (services/counts.py)
    players_on_list: int = 0
    newly_rated: list[PlayerChange] = field(default_factory=list)
    dropped_below_floor: list[PlayerChange] = field(default_factory=list)
    biggest_gains: list[PlayerChange] = field(default_factory=list)
    biggest_losses: list[PlayerChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    adjusted: int = 0  # ratings changed by a one-off adjustment (--adjust)
    warnings: list[str] = field(default_factory=list)  # events the close rated little or should not have

    @property
    def games_rated(self) -> int:
        return self.counts.games_rated

    @property
    def players_rated(self) -> int:
        return self.counts.players_rated


@dataclass
class EventInfo:
    """An event of the period being closed, with the lists its ratings come from."""

    id: int
    name: str
    start_date: dt.date
    ratings_list_id: int  # the list in force at the event's start (§3)
    standard_list_id: int | None  # rapid/blitz: the standard list at the start (§7, last rule)
    note: str | None


@dataclass
class Close:
    """One close, resolved once: everything its stages read, and what they leave for the next."""

    session: Session
    driver: Driver  # the session's driver connection, with a writer thread for the bulk rows
    period: Period
    rating_type: str
    rules: RuleSet  # the set in force for the period (FIDE's or a stored one)
    stored_rules: StoredRuleSet | None  # its stored version, recorded with the list
    rules_of_new_list: RuleSet  # the set whose K table sets K on the new list (§8.3.3; FIDE 2022)
    in_force: RatingList  # the list in force during the period
    summary: CloseSummary
    say: Progress
    adjustment: Adjustment | None  # a one-off change of the new list's ratings (--adjust)
    events: dict[int, EventInfo] = field(default_factory=dict)  # read_inputs
    new_list: RatingList | None = None  # open_list
    list_id: int = 0  # open_list: the new list's id
    changes: list[Change] = field(default_factory=list)  # write_list: players rated or pooled
    # write_list, a system with deviations (Glicko-2): player → (RD before, RD after) of those in `changes`
    deviations: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)
    # write_list, a system that counts what it wrote (Elo): the summary's figures as close_counts gives them,
    # and per event of the period (games played, games in the record), so the summary reads no record back
    counts: CloseCounts | None = None
    event_figures: dict[int, tuple[int, int]] | None = None

    @property
    def list_date(self) -> dt.date:
        return self.period.published_list_date


class ListImport(Protocol):
    """How a system's own list file is imported (a Glicko-2 list with deviations and volatilities): a new
    list, or a correction of the list in force (a new version). The shared importer takes the others."""

    def new_list(
        self, session: Session, path: Path, *, list_date: dt.date, rating_type: str, replace: bool,
        reason: str | None, progress: Callable[[int], None] | None,
    ) -> ListImportSummary: ...  # fmt: skip

    def corrected_list(
        self, session: Session, path: Path, *, rating_type: str, reason: str, list_date: dt.date | None,
        progress: Callable[[int], None] | None,
    ) -> ListImportSummary: ...  # fmt: skip


class RatingSystem(Protocol):
    """A rating system: the stages of a close that depend on it, made for one close and run in order, and
    (class methods) how its calculation record and lists are read and its list files imported.

    A new system is a module in ratingdb/services/systems/ with a class of these methods, one line in
    SYSTEMS, its rule sets naming it (`RuleSet.system`), and the tables it writes (a migration); how its
    lists are shown is its `Shown` in ratingdb.reports.systems.
    """

    name: ClassVar[str]  # as a rule set names the system (`RuleSet.system`)
    # Its own rows beside a list's entries (list_id, player_id, rating_x100, deviation_x100, ...) and its
    # calculation record per player (list_id, player_id, ...); None: the entries and the shared record
    # (calc_player, calc_game) are all it has (Elo).
    entry_model: ClassVar[Any]
    record_model: ClassVar[Any]

    def __init__(self, close: Close) -> None: ...

    def read_inputs(self) -> None:
        """Read the list in force and the period's games as this system needs them (before any write)."""

    def rate_rated(self) -> None:
        """Rate the players rated on the list in force; write their calculation record."""

    def pool_unrated(self) -> None:
        """Deal with the results of players without a rating (a pool toward a first rating, say)."""

    def write_list(self) -> None:
        """Write every entry of the new list (`close.list_id`); fill `close.changes` for the summary."""

    @classmethod
    def claims(cls, session: Session, list_id: int) -> bool:
        """Whether the list is one of this system's (it has the system's own rows); the default system
        (Elo, whose list is its entries) claims none: it takes every list no other system claims."""
        ...

    @classmethod
    def record_counts(cls, session: Session, list_id: int) -> RecordCounts:
        """What the calculation record of the close that published `list_id` rated, by this system."""
        ...

    @classmethod
    def event_games_rated(cls, session: Session, list_id: int, event_ids: Sequence[int]) -> dict[int, int]:
        """Per event of `event_ids`: the games the close of `list_id` rated (distinct games)."""
        ...

    @classmethod
    def deviations(cls, session: Session, list_id: int) -> dict[int, float]:
        """Player id → the deviation the list published ({}: the system has none, or not its list)."""
        ...

    @classmethod
    def list_import(cls, session: Session, rating_type: str, period: Period) -> ListImport | None:
        """The system's own importer of a `rating_type` list file of `period`, if its rule set then is one
        of this system's and the system has a list format of its own (None: the shared importer)."""
        ...
