"""`report period`: what one close did, read from the two lists and the calculation record it wrote.

Takes a Session; reads only. K-change reasons quote the rules' own `k_factor` sentence for the stored
state; nothing is re-rated. No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session, aliased

from ratingdb import engines
from ratingdb.errors import MissingList
from ratingdb.i18n import ENGLISH, Language
from ratingdb.rating import Period, k_factor
from ratingdb.schema.models import (
    CalcPlayer,
    Event,
    EventPlayer,
    ListEntry,
    Player,
    PlayerVersion,
)
from ratingdb.services.counts import CloseCounts, close_counts, event_counts
from ratingdb.services.event_warnings import close_warnings
from ratingdb.services.lists import require_list
from ratingdb.services.systems import DEFAULT, list_system, systems
from ratingdb.titles import shown_name

INACTIVE_FLAGS = ("i", "wi")


@dataclass(frozen=True)
class PlayerMove:
    """A player's entry on the list in force (before) and on the published list (after)."""

    fide_id: int | None
    national_id: str | None
    name: str
    before: int | None
    after: int | None
    change: int | None
    games: int
    flag_before: str | None
    flag_after: str | None
    # A Glicko-2 close's (docs/guide/glicko2.md): the deviation (RD) on the list in force and the new list.
    deviation_before: float | None = None
    deviation_after: float | None = None


@dataclass(frozen=True)
class KChange:
    fide_id: int | None
    national_id: str | None
    name: str
    birth_year: int | None
    rating: int
    k_before: int
    k_after: int
    reason: str | None  # the §8.3.3 rule that gives the published K, when it is the one the rules give


@dataclass(frozen=True)
class RatedEvent:
    event_id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    natural_period: str
    late: bool
    players: int
    games_played: int  # over the board (services/counts.py defines both)
    games_rated: int  # of those, in the close's calculation record


@dataclass
class PeriodReport:
    period: Period
    rating_type: str
    list_date: dt.date
    in_force_date: dt.date
    rules: str | None
    counts: CloseCounts = (
        CloseCounts()
    )  # the figures the close's summary gave, defined once (services/counts)
    players_on_list: int = 0
    newly_rated: list[PlayerMove] = field(default_factory=list)
    dropped_below_floor: list[PlayerMove] = field(default_factory=list)
    became_inactive: list[PlayerMove] = field(default_factory=list)
    active_again: list[PlayerMove] = field(default_factory=list)
    gains: list[PlayerMove] = field(default_factory=list)
    losses: list[PlayerMove] = field(default_factory=list)
    k_changes: list[KChange] = field(default_factory=list)
    events: list[RatedEvent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # events rated little, or longer than one event may be
    system: str = DEFAULT  # the rating system of the close (ratingdb.reports.systems shows it by this)
    deviations_widened: int = 0  # a system with deviations: the rated players without a game (Step 6)
    # ... of those, the deviations the rule set's maximum held (already at it) or lowered (listed above it)
    deviations_at_maximum: int = 0

    with_deviations: bool = False  # the system publishes deviations: the moves carry them (Glicko-2)

    @property
    def players_rated(self) -> int:
        return self.counts.players_rated

    @property
    def late_events(self) -> list[RatedEvent]:
        return [e for e in self.events if e.late]


def period_report(
    session: Session, period: Period, rating_type: str, *, top: int = 5, lang: Language = ENGLISH
) -> PeriodReport:
    """The close of `period`: who was rated, newly rated, dropped, (in)active, the extremes, K, events;
    the warnings in `lang` (a page's; English for the CLI and the API)."""
    published = require_list(session, rating_type, period.published_list_date)
    if published.origin != "computed":
        raise MissingList(
            f"the {rating_type} list dated {published.list_date.isoformat()} was imported, not computed "
            f"here: period {period} has no close to report"
        )
    in_force = require_list(session, rating_type, period.first_day)
    report = PeriodReport(period, rating_type, published.list_date, in_force.list_date, published.rules)

    played: list[PlayerMove] = []  # entries with games this period (a Glicko-2 list's rated players)
    system = list_system(session, published.id)
    report.system = system.name
    rd_before, rd_after = (_deviations(session, in_force.id), system.deviations(session, published.id))
    report.with_deviations = bool(rd_after)
    new, old = aliased(ListEntry), aliased(ListEntry)
    # Two whole lists joined by player: hash joins, whatever the planner knows of a new list.
    with engines.of(session).whole_lists_joined(session):
        rows = session.execute(
            select(
                PlayerVersion.fide_id,
                PlayerVersion.national_id,
                PlayerVersion.name,
                PlayerVersion.birth_year,
                old.rating,
                new.rating,
                new.change,
                new.games,
                old.flag,
                new.flag,
                old.k,
                new.k,
                new.reached_2400,
                new.reached_2300,
                new.games_total,
                new.player_id,
            )
            .join(PlayerVersion, PlayerVersion.id == new.player_version_id)
            .outerjoin(old, and_(old.player_id == new.player_id, old.list_id == in_force.id))
            .where(new.list_id == published.id)
            .order_by(PlayerVersion.name, new.player_id)
        ).all()
    for (
        fide_id,
        national_id,
        name,
        birth_year,
        before,
        after,
        change,
        games,
        flag_before,
        flag_after,
        k_before,
        k_after,
        reached_2400,
        reached_2300,
        games_total,
        player_id,
    ) in rows:
        report.players_on_list += 1
        move = PlayerMove(
            fide_id, national_id, name, before, after, change, games, flag_before, flag_after,
            rd_before.get(player_id), rd_after.get(player_id),
        )  # fmt: skip
        if games:
            played.append(move)
        elif before is not None and move.deviation_before is not None:
            # Widened (Step 6), unless the rule set's maximum deviation held it or lowered it to the maximum
            if move.deviation_after is not None and move.deviation_after <= move.deviation_before:
                report.deviations_at_maximum += 1
            else:
                report.deviations_widened += 1
        if before is None and after is not None:
            report.newly_rated.append(move)
        elif before is not None and after is None:
            report.dropped_below_floor.append(move)
        if before is not None and after is not None:
            was_inactive, is_inactive = flag_before in INACTIVE_FLAGS, flag_after in INACTIVE_FLAGS
            if is_inactive and not was_inactive:
                report.became_inactive.append(move)
            elif was_inactive and not is_inactive:
                report.active_again.append(move)
            if k_before is not None and k_after is not None and k_before != k_after:
                decision = k_factor(
                    reached_2400=reached_2400,
                    reached_2300=reached_2300,
                    birth_year=birth_year,
                    games_total=games_total,
                    list_date=published.list_date,
                )
                reason = decision.rule if decision.k == k_after else None
                report.k_changes.append(
                    KChange(fide_id, national_id, name, birth_year, after, k_before, k_after, reason)
                )

    if report.system != DEFAULT:
        # Elo's gains and losses are its record's (a first rating is no change); a system rating everyone
        # with games (no pool) has the list's own changes.
        report.gains = sorted((m for m in played if (m.change or 0) > 0), key=lambda m: -(m.change or 0))[
            :top
        ]
        report.losses = sorted((m for m in played if (m.change or 0) < 0), key=lambda m: m.change or 0)[:top]
    else:
        _elo_changes(session, published.id, report, top)

    report.counts = close_counts(session, published.id, in_force.id, str(period), rating_type)
    players = (
        select(func.count())
        .select_from(EventPlayer)
        .where(EventPlayer.event_id == Event.id)
        .scalar_subquery()
    )
    found = session.execute(
        select(Event.id, shown_name(), Event.start_date, Event.end_date, Event.natural_period, players)
        .where(Event.period == str(period), Event.rating_type == rating_type, Event.is_current.is_(True))
        .order_by(Event.start_date, Event.id)
    ).all()
    counts = event_counts(session, [row[0] for row in found], published.id)
    for event_id, name, start, end, natural, n_players in found:
        figures = counts[event_id]
        late = natural < str(period)
        report.events.append(
            RatedEvent(
                event_id,
                name,
                start,
                end,
                natural,
                late,
                n_players,
                figures.games_played,
                figures.games_rated,
            )
        )
    report.warnings = close_warnings(session, published.id, lang)
    return report


def _deviations(session: Session, list_id: int) -> dict[int, float]:
    """Player id → the deviation a list published (hundredths), by whichever system has them; {}: none."""
    return {player: rd for system in systems() for player, rd in system.deviations(session, list_id).items()}


def _elo_changes(session: Session, list_id: int, report: PeriodReport, top: int) -> None:
    """An Elo close's rated players and its biggest gains and losses, from its calculation record."""
    changes = (
        select(
            Player.fide_id,
            Player.national_id,
            Player.name,
            CalcPlayer.ro,
            CalcPlayer.new_rating,
            CalcPlayer.change,
            CalcPlayer.n,
        )
        .join(Player, Player.id == CalcPlayer.player_id)
        .where(CalcPlayer.list_id == list_id, CalcPlayer.method == "change")
    )
    for target, condition, order in (
        (report.gains, CalcPlayer.change > 0, CalcPlayer.change.desc()),
        (report.losses, CalcPlayer.change < 0, CalcPlayer.change.asc()),
    ):
        for fide_id, national_id, name, ro, new_rating, change, n in session.execute(
            changes.where(condition).order_by(order, Player.name, Player.id).limit(top)
        ):
            target.append(PlayerMove(fide_id, national_id, name, ro, new_rating, change, n, None, None))
