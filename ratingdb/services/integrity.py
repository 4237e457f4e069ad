"""The integrity screen of a period's events, and the officer's decision to rate or exclude an event.

The screen (ratingdb.rating.integrity) is computed from the database whenever it is asked for — at a
submission's check, for `report risk`, the desk's pages and the dry-run close — and not stored: it reads
other events (clashes, duplicates, pairings over the window), so a stored copy would be stale after the
next import (its cost against the close's: bench/risk_report.py). What is kept is
the officer's decision (event_review, versioned and audited): an excluded event stays in the database
and the close leaves it out. It is a screen, not a verdict: nothing is excluded but by the officer.
Takes a Session, never commits. Must not import the CLI, the web app or the reports.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, NothingToUpdate, UnknownEvent
from ratingdb.rating import Period, RulesError
from ratingdb.rating.integrity import (
    DEFAULT_THRESHOLDS,
    LEVELS,
    IntegrityThresholds,
    Level,
    ScreenEvent,
    ScreenGame,
    Signal,
    Window,
    screen,
)
from ratingdb.schema.models import AuditEntry, Event, EventReview, Game, Player
from ratingdb.services.bulk import Driver, chunks, no_cycle_collection
from ratingdb.services.lists import ListsOnDates, ensure_period_open
from ratingdb.services.rules import rule_set_in_force
from ratingdb.services.versions import record_change, withdraw
from ratingdb.titles import shown_name

DECISIONS: Final = ("rate", "exclude")
REASON_MAX: Final = 2000
NOT_A_VERDICT: Final = (
    "A screen, not a verdict: these signals say where to look; an event is excluded only by the officer's "
    "decision (`ratingdb event review ID --decision exclude --reason TEXT`)."
)


@dataclass(frozen=True)
class Review:
    """The officer's current decision on an event."""

    decision: str  # rate | exclude
    reason: str
    risk_level: str  # the screen's level when it was decided
    version: int
    decided_at: dt.datetime | None
    decided_by: str | None

    @property
    def excluded(self) -> bool:
        return self.decision == "exclude"


@dataclass(frozen=True)
class EventRisk:
    """One event's screen: its level and signals, and the officer's decision if there is one."""

    event_id: int
    name: str
    rating_type: str
    period: str
    start: dt.date
    end: dt.date
    level: Level
    signals: tuple[Signal, ...]
    review: Review | None

    @property
    def excluded(self) -> bool:
        return self.review is not None and self.review.excluded


@dataclass
class RiskScreen:
    """The screen of some events: each event's report and the names of the players it concerns."""

    rating_type: str | None
    period: str | None
    thresholds: IntegrityThresholds
    rules: str | None  # the rule set whose [integrity] thresholds were used
    events: list[EventRisk] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """How many events are at each level, highest first."""
        return {level: sum(1 for e in self.events if e.level == level) for level in reversed(LEVELS)}

    def document(self) -> dict[str, Any]:
        """The screen as plain data (the JSON of `report risk`, ratingdb.api and the web API)."""
        return {
            "rating_type": self.rating_type,
            "period": self.period,
            "rules": self.rules,
            "note": NOT_A_VERDICT,
            "thresholds": asdict(self.thresholds),
            "counts": self.counts(),
            "events": [self._event(e) for e in self.events],
        }

    def _event(self, e: EventRisk) -> dict[str, Any]:
        review = None
        if e.review is not None:
            review = {**asdict(e.review), "decided_at": _iso(e.review.decided_at)}
        return {
            "event_id": e.event_id,
            "name": e.name,
            "rating_type": e.rating_type,
            "period": e.period,
            "start_date": e.start.isoformat(),
            "end_date": e.end.isoformat(),
            "level": e.level,
            "decision": review,
            "signals": [
                {
                    "code": s.code,
                    "level": s.level,
                    "players": [{"id": p, "name": self.names.get(p, "")} for p in s.players],
                    "evidence": dict(s.evidence),
                    "summary": s.summary,
                }
                for s in e.signals
            ],
        }


@dataclass(frozen=True)
class DossierGame:
    """One pairing of the event, with names and the ratings the screen used."""

    round: int
    date: dt.date | None
    white_id: int
    white: str
    white_rating: int | None
    black_id: int | None
    black: str | None
    black_rating: int | None
    result: str  # "1-0", "½-½", "0-1", or the codes of an unplayed pairing ("+/-", "bye")
    played: bool


@dataclass
class Dossier:
    """What FIDE's Tournament Investigation Form asks for: the screen of one event and all its games."""

    screen: RiskScreen
    games: list[DossierGame]

    def document(self) -> dict[str, Any]:
        """The screen's document with the event's games (`report risk --event ID --format json`)."""
        games = [{**asdict(g), "date": _iso(g.date)} for g in self.games]
        return {**self.screen.document(), "games": games}


def screen_events(
    session: Session,
    rating_type: str | None = None,
    *,
    period: Period | None = None,
    event_id: int | None = None,
) -> RiskScreen:
    """The screen of event `event_id`, or of every current event of `rating_type` in `period`.

    The window the cross-event signals read is the period and the `window_months` − 1 before it (events
    of every type: a clash or a copy can cross types). Ratings are those of the list in force on each
    event's start, as the close rates it; the thresholds are the [integrity] table of the rule set in
    force for the period (FIDE's defaults where it has none).
    """
    if event_id is not None:
        event = _event(session, event_id)
        rating_type, period = event.rating_type, Period.parse(event.period)
        wanted = [event.id]
    elif rating_type is None or period is None:
        raise ConfigError("the screen needs an event, or a period and a rating type")
    else:
        wanted = list(
            session.scalars(
                select(Event.id)
                .where(
                    Event.period == str(period), Event.rating_type == rating_type, Event.is_current.is_(True)
                )
                .order_by(Event.start_date, Event.id)
            )
        )
    thresholds, rules_name, cap, exempt, default_k = _rules(session, rating_type, period)
    result = RiskScreen(rating_type, str(period), thresholds, rules_name)
    if not wanted:
        return result
    # The window is hundreds of thousands of small rows at a federation's scale: no cycle to collect.
    with no_cycle_collection():
        window = _window(session, rating_type, period, wanted, thresholds)
        window.cap, window.cap_exempt_from, window.default_k = cap, exempt, default_k
        reports = screen(window, wanted, thresholds)
    reviews = current_reviews(session, wanted)
    concerned = {p for r in reports.values() for s in r.signals for p in s.players}
    result.names = {**_names(session, concerned)}
    for event_id_ in wanted:
        info, found = window.events[event_id_], reports[event_id_]
        result.events.append(
            EventRisk(
                info.id, info.name, info.rating_type, info.period, info.start, info.end, found.level,
                found.signals, reviews.get(info.id),
            )
        )  # fmt: skip
    return result


def dossier(session: Session, event_id: int) -> Dossier:
    """The screen of event `event_id` with every pairing of it (names, the ratings used, results)."""
    found = screen_events(session, event_id=event_id)
    event = _event(session, event_id)
    lists = ListsOnDates(session, {event.rating_type})
    used = lists.for_event(event.rating_type, event.start_date)
    ratings = _list_ratings(session, used[0])[0] if used else {}
    rows = session.execute(
        select(
            Game.round,
            Game.date,
            Game.white_id,
            Game.black_id,
            Game.white_result,
            Game.black_result,
            Game.rated,
        )
        .where(Game.event_id == event_id)
        .order_by(Game.round, Game.id)
    ).all()
    names = _names(session, {r[2] for r in rows} | {r[3] for r in rows if r[3] is not None})
    found.names.update(names)
    games = [
        DossierGame(
            rnd,
            date,
            white,
            names.get(white, ""),
            ratings.get(white),
            black,
            names.get(black) if black is not None else None,
            ratings.get(black) if black is not None else None,
            _result(white_result, black_result),
            bool(rated),
        )  # fmt: skip
        for rnd, date, white, black, white_result, black_result, rated in rows
    ]
    return Dossier(found, games)


def _result(white: str, black: str | None) -> str:
    if black is None:
        return f"bye ({white})"
    shown = {"1": "1", "0": "0", "=": "½"}
    if white in shown and black in shown:
        return f"{shown[white]}-{shown[black]}"
    return f"{white}/{black}"


# -- the officer's decision ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewOutcome:
    """What `event review` did: the decision before (None: none yet) and now."""

    event_id: int
    name: str
    before: Review | None
    after: Review


def review_event(session: Session, event_id: int, decision: str, reason: str) -> ReviewOutcome:
    """Record the officer's decision on event `event_id`: rated, or excluded from rating (and why).

    Audited; a changed decision withdraws the one before. Refused for an unknown or replaced event, a
    decision other than rate or exclude, an empty reason, the decision already in force, and an event of
    a closed period (a reopen comes first, like any correction).
    """
    event = _event(session, event_id)
    if decision not in DECISIONS:
        raise ConfigError(f"the decision '{decision}' is not known: it is rate or exclude")
    text = " ".join(reason.split())
    if not text:
        raise ConfigError(
            "the reason is empty: say why the event is rated or excluded (it is kept in the audit)"
        )
    if len(text) > REASON_MAX:
        raise ConfigError(f"the reason is longer than {REASON_MAX} characters: give a shorter one")
    before_row = _current_row(session, event_id)
    before = _review(session, before_row) if before_row is not None else None
    if before is not None and before.decision == decision and before.reason == text:
        raise NothingToUpdate(f"event {event_id} has this decision already ({decision}) — nothing to change")
    period = Period.parse(event.period)
    ensure_period_open(
        session,
        event.rating_type,
        period,
        f"cannot change the decision on event {event_id}",
        advice=f"reopen it first: `ratingdb reopen {period} --type {event.rating_type} --reason TEXT`",
    )
    found = screen_events(session, event_id=event_id).events[0]
    what = "rated" if decision == "rate" else "excluded from rating"
    was = f" (was {before.decision})" if before is not None else ""
    change = record_change(
        session,
        "event-review",
        f"event {event_id} '{found.name}' ({event.rating_type}, period {event.period}): {what}{was}; "
        f"integrity screen {found.level}",
        reason=text,
    )
    if before_row is not None:
        withdraw(session, before_row, change)
    row = EventReview(
        event_id=event_id,
        decision=decision,
        reason=text,
        risk_level=found.level,
        version=(before_row.version + 1) if before_row is not None else 1,
        created_by=change.id,
    )
    session.add(row)
    session.flush()
    return ReviewOutcome(event_id, found.name, before, _review(session, row))


def carry_review(session: Session, old_event_id: int, new_event_id: int, change_id: int) -> None:
    """A corrected version of an event (replace-event) keeps the officer's decision on it."""
    row = _current_row(session, old_event_id)
    if row is not None:
        session.add(
            EventReview(
                event_id=new_event_id, decision=row.decision, reason=row.reason, risk_level=row.risk_level,
                created_by=change_id,
            )
        )  # fmt: skip
        session.flush()


def current_reviews(session: Session, event_ids: Iterable[int]) -> dict[int, Review]:
    """The current decision on each of `event_ids` that has one."""
    found: dict[int, Review] = {}
    for chunk in chunks(sorted(set(event_ids)), 500):
        rows = session.execute(
            select(EventReview, AuditEntry.created_at, AuditEntry.actor)
            .outerjoin(AuditEntry, AuditEntry.id == EventReview.created_by)
            .where(EventReview.event_id.in_(chunk), EventReview.is_current.is_(True))
        ).all()
        for row, at, who in rows:
            found[row.event_id] = Review(row.decision, row.reason, row.risk_level, row.version, at, who)
    return found


def excluded_events(session: Session, period: Period, rating_type: str) -> dict[int, tuple[str, str]]:
    """The current events of `period` the officer excluded: id → (shown name, reason)."""
    rows = session.execute(
        select(Event.id, shown_name(), EventReview.reason)
        .join(EventReview, EventReview.event_id == Event.id)
        .where(
            Event.period == str(period),
            Event.rating_type == rating_type,
            Event.is_current.is_(True),
            EventReview.is_current.is_(True),
            EventReview.decision == "exclude",
        )
        .order_by(Event.start_date, Event.id)
    ).all()
    return {event_id: (name, reason) for event_id, name, reason in rows}


def _current_row(session: Session, event_id: int) -> EventReview | None:
    return session.scalar(
        select(EventReview).where(EventReview.event_id == event_id, EventReview.is_current.is_(True))
    )


def _review(session: Session, row: EventReview) -> Review:
    audit = session.get(AuditEntry, row.created_by) if row.created_by is not None else None
    return Review(
        row.decision, row.reason, row.risk_level, row.version,
        audit.created_at if audit else None, audit.actor if audit else None,
    )  # fmt: skip


# -- reading the window ----------------------------------------------------------------------------------


def _event(session: Session, event_id: int) -> Event:
    event = session.get(Event, event_id)
    if event is None:
        raise UnknownEvent(f"there is no event {event_id}: `ratingdb events` lists them")
    if not event.is_current:
        raise UnknownEvent(
            f"event {event_id} '{event.name}' was replaced or withdrawn already: use its current version"
        )
    return event


def _rules(
    session: Session, rating_type: str, period: Period
) -> tuple[IntegrityThresholds, str | None, int | None, int | None, int]:
    """The thresholds, the rule set's name, its cap and exemption, and its K for anyone (the last rule)."""
    try:
        rules = rule_set_in_force(session, rating_type, period).rules
    except RulesError:  # no rule set covers the period: the defaults, FIDE's cap
        return DEFAULT_THRESHOLDS, None, 400, 2650, 20
    # A system without Elo's cap (Glicko-2 sets none) has no 400-point farming to screen.
    default_k = rules.k_rules[-1].value if rules.k_rules else 20
    return rules.integrity, rules.name, rules.cap, rules.cap_exempt_from, default_k


def _window(
    session: Session, rating_type: str, period: Period, wanted: list[int], thresholds: IntegrityThresholds
) -> Window:
    """The window's events, players and games, and the ratings and K the screened events use."""
    first = str(period.shift(-(thresholds.window_months - 1)))
    in_window = (Event.period >= first) & (Event.period <= str(period)) & Event.is_current.is_(True)
    # The bulk rows (player lines, games, list entries) as the driver's plain tuples, as the close reads
    # them: SQLAlchemy's rows cost more than the screen's own work at a federation's scale.
    driver = Driver(session)
    try:
        in_period = "e.period >= ? AND e.period <= ? AND e.is_current = TRUE"
        lines = driver.rows(
            "SELECT ep.event_id, ep.player_id FROM event_player ep JOIN event e ON e.id = ep.event_id "
            f"WHERE {in_period} ORDER BY ep.event_id, ep.start_rank",
            (first, str(period)),
        )
        rows = driver.rows(
            "SELECT g.event_id, g.round, g.date, g.white_id, g.black_id, g.white_result, g.black_result, "
            f"g.rated FROM game g JOIN event e ON e.id = g.event_id WHERE {in_period}",
            (first, str(period)),
        )
    finally:
        driver.restore()
    players: dict[int, list[int]] = defaultdict(list)
    for event_id, player_id in lines:
        players[event_id].append(player_id)
    events: dict[int, ScreenEvent] = {}
    for event_id, name, kind, event_period, start, end, rounds, source in session.connection().execute(
        select(
            Event.id, shown_name(), Event.rating_type, Event.period, Event.start_date, Event.end_date,
            Event.rounds, Event.source_hash,
        ).where(in_window)
    ):  # fmt: skip
        events[event_id] = ScreenEvent(
            event_id, name, kind, event_period, _date(start), _date(end), rounds, tuple(players[event_id]),
            source,
        )  # fmt: skip
    day_of: dict[Any, dt.date | None] = {None: None}  # a few hundred dates, read once each
    games = []
    for event_id, rnd, day, white, black, wr, br, rated in rows:
        if day not in day_of:
            day_of[day] = _date(day)
        games.append(ScreenGame(event_id, rnd, day_of[day], white, black, wr, br, bool(rated)))
    for event_id in wanted:
        if event_id not in events:  # never: the screened events are of the window's last period
            raise UnknownEvent(f"there is no current event {event_id}")
    # An event stored without its player lines (none is imported so; a database filled by other means)
    # has the players of its games.
    lineless = {e for e, event in events.items() if not event.players}
    if lineless:
        seen: dict[int, dict[int, None]] = defaultdict(dict)
        for game in games:
            if game.event_id in lineless:
                seen[game.event_id][game.white] = None
                if game.black is not None:
                    seen[game.event_id][game.black] = None
        for event_id in lineless:
            events[event_id] = dataclasses.replace(events[event_id], players=tuple(seen[event_id]))
    # The list in force at each screened event's start (the close's ratings); most share one list.
    lists = ListsOnDates(session, {rating_type})
    by_list: dict[int, tuple[dict[int, int], dict[int, int], set[int]]] = {}
    ratings: dict[int, Mapping[int, int]] = {}
    k: dict[int, int] = {}
    listed: set[int] = set()
    for event_id in wanted:
        used = lists.for_event(rating_type, events[event_id].start)
        if used is None:
            ratings[event_id] = {}
            continue
        if used[0] not in by_list:
            by_list[used[0]] = _list_ratings(session, used[0])
            k.update(by_list[used[0]][1])
            listed |= by_list[used[0]][2]
        ratings[event_id] = by_list[used[0]][0]
    newcomers = {p for e in wanted for p in events[e].players if p not in listed}
    return Window(
        events, games, ratings, k, _names(session, newcomers), earlier_players=frozenset(listed),
    )  # fmt: skip


def _list_ratings(session: Session, list_id: int) -> tuple[dict[int, int], dict[int, int], set[int]]:
    """A list's ratings, its K, and everyone on it (rated or not: they were seen before)."""
    ratings: dict[int, int] = {}
    k: dict[int, int] = {}
    everyone: set[int] = set()
    driver = Driver(session)
    try:
        rows = driver.rows("SELECT player_id, rating, k FROM list_entry WHERE list_id = ?", (list_id,))
    finally:
        driver.restore()
    for player_id, rating, k_value in rows:
        everyone.add(player_id)
        if rating is not None:
            ratings[player_id] = rating
        if k_value is not None:
            k[player_id] = k_value
    return ratings, k, everyone


def _names(session: Session, player_ids: Iterable[int]) -> dict[int, str]:
    names: dict[int, str] = {}
    for chunk in chunks(sorted(set(player_ids)), 500):
        for player_id, name in session.execute(select(Player.id, Player.name).where(Player.id.in_(chunk))):
            names[player_id] = name
    return names


def _iso(value: dt.date | None) -> str | None:
    return None if value is None else value.isoformat()


def _date(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))


__all__ = [
    "DECISIONS",
    "NOT_A_VERDICT",
    "Dossier",
    "DossierGame",
    "EventRisk",
    "Review",
    "ReviewOutcome",
    "RiskScreen",
    "carry_review",
    "current_reviews",
    "dossier",
    "excluded_events",
    "review_event",
    "screen_events",
]
