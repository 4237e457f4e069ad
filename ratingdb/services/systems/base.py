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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.orm import Session

from ratingdb.rating import Adjustment, Period, RuleSet
from ratingdb.schema.models import RatingList, StoredRuleSet
from ratingdb.services.bulk import Driver
from ratingdb.services.counts import CloseCounts

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


class RatingSystem(Protocol):
    """The stages of a close that depend on the rating system, made for one close and run in order.

    A new system is a module in ratingdb/services/systems/ with a class of these four methods, one line
    in SYSTEMS, its rule sets naming it (`RuleSet.system`), and the tables it writes (a migration).
    """

    def __init__(self, close: Close) -> None: ...

    def read_inputs(self) -> None:
        """Read the list in force and the period's games as this system needs them (before any write)."""

    def rate_rated(self) -> None:
        """Rate the players rated on the list in force; write their calculation record."""

    def pool_unrated(self) -> None:
        """Deal with the results of players without a rating (a pool toward a first rating, say)."""

    def write_list(self) -> None:
        """Write every entry of the new list (`close.list_id`); fill `close.changes` for the summary."""
