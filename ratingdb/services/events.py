"""Events in and out: store parsed tournament files (players matched or registered), rebuild them for export.

Takes a Session, never commits. Parsing lives in ratingdb.formats; list assignment in ratingdb.rating.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ratingdb import engines
from ratingdb.errors import (
    AnotherSection,
    ConfigError,
    CorrectedVersion,
    DuplicateEvent,
    LateEvent,
    TypeMismatch,
    UnknownEvent,
)
from ratingdb.formats import TrfEvent, TrfGame, TrfPlayer, as_sex
from ratingdb.formats.time_control import read_time_control
from ratingdb.rating import (
    RATING_TYPES,
    RULE_SETS,
    Period,
    RulesError,
    latest_period_for_event,
    period_for_event,
)
from ratingdb.schema.models import (
    CalcListEvent,
    Event,
    EventPlayer,
    EventRecord,
    Game,
    ListEntry,
    Player,
    RatingList,
)
from ratingdb.services.bulk import Driver
from ratingdb.services.choices import DEFAULTS, ImportChoices
from ratingdb.services.lists import ensure_period_open, is_closed, lock_periods
from ratingdb.services.matching import (
    Entrants,
    MatchReport,
    PlayerRef,
    check_columns,
    drop_lines,
    with_id_field,
)
from ratingdb.services.players import remove_unreferenced_players
from ratingdb.services.rules import rule_set_in_force, stored_rule_sets, uncovered_advice
from ratingdb.services.versions import public_change, record_change, withdraw
from ratingdb.titles import event_title, shown_section, shown_section_of, title_of


@dataclass(frozen=True)
class RatingDifference:
    """A player whose rating in the file is not the rating on the list in force (information only)."""

    name: str
    file_rating: int
    list_rating: int


@dataclass
class ImportedEvent:
    """One event an import stored: its id, name and file, the type and period it is rated in (a late
    event's `period` is after its `natural_period`), its players and games, and what is worth a look."""

    id: int
    name: str
    source_name: str
    rating_type: str
    period: str
    natural_period: str
    players: int
    games: int
    rated_games: int
    list_in_force: dt.date | None = None  # the list the event's ratings come from (§3), if any
    rating_differences: list[RatingDifference] = field(default_factory=list)
    unrated_with_file_rating: int = 0  # a rating in the file, none on the list in force: rated as unrated
    time_control_note: str | None = None  # the file's time control could not be read: the type is unchecked

    @property
    def late(self) -> bool:
        return self.period > self.natural_period


@dataclass
class EventImportSummary:
    """What an import of tournament files did: each event stored, the players it registered, and how each
    line of the files was matched to a player."""

    events: list[ImportedEvent] = field(default_factory=list)
    new_players: list[str] = field(default_factory=list)  # "Name (FIDE 123, born 1980, IRL)"
    matching: MatchReport = field(default_factory=MatchReport)  # how each line was resolved


def import_events(
    session: Session, parsed: Sequence[TrfEvent], choices: ImportChoices | None = None
) -> EventImportSummary:
    """Store each parsed file as one event with its players and every game, forfeits and byes included.

    The period comes from the end date (§7.1.3) unless `choices.period` names a later one (a late rating,
    §9.1, at most the third list after the event ends). Nothing is written unless every file is accepted:
    the caller's transaction covers all files. A `choices.rating_type` that contradicts the file's own
    time control (record 222, or the words of 092) is refused unless `choices.type_override`. Players are
    matched as `Entrants.match` says. Each event keeps its choices (`ImportChoices.stored`).

    The files are checked in order, each against the database and the files before it, and the first
    refusal is the one raised; then each table is written once for the whole batch, so that many files
    cost a few round trips rather than a few per file.
    """
    return read_events(session, parsed, (choices or ImportChoices()).over(DEFAULTS))


@dataclass
class Replacing:
    """The event a corrected file takes the place of (`replace-event`): `accept` is called with the file
    (its --drop lines left out) once every check has passed, before the new version is written; it
    returns the new version's `version`, `created_by` and `replaces`."""

    event: Event
    accept: Callable[[TrfEvent], dict[str, int]]


def read_events(
    session: Session,
    parsed: Sequence[TrfEvent],
    choices: ImportChoices,
    replacing: Replacing | None = None,
) -> EventImportSummary:
    """The one path from files to events of `import-trf` and `replace-event` (`choices` are complete:
    `over(DEFAULTS)`); see `import_events`. With `replacing`, the one file is a new version of that event."""
    rating_type = choices.rating_type
    summary = EventImportSummary()
    matching = choices.matching(", ".join(trf.source_name for trf in parsed))
    parsed = [check_columns(session, drop_lines(trf, matching, summary.matching), matching) for trf in parsed]
    stored = _StoredEvents(session, parsed, rating_type, replacing.event.id if replacing else None)
    for kind in dict.fromkeys(k for trf in parsed if (k := rating_type or trf.rating_type)):
        lock_periods(session, kind)
    seen_hashes: dict[str, str] = {}
    accepted: list[_Accepted] = []
    driver = content_driver(session)
    try:
        entrants = Entrants(session, driver, matching, parsed, summary.matching)
        checks = _PeriodChecks(session)
        # The events are written together below; a query in between must not write them one by one.
        with session.no_autoflush:
            for trf in parsed:
                if trf.sha256 in seen_hashes:
                    raise DuplicateEvent(
                        f"{trf.source_name} has the same content as {seen_hashes[trf.sha256]}: import it once"
                    )
                seen_hashes[trf.sha256] = trf.source_name
                asked = _checked_type(trf, rating_type, bool(choices.type_override))
                event = _accepted_event(session, trf, asked, choices, stored, checks, replacing)
                session.add(event)
                accepted.append(_Accepted(trf, event, entrants.match(trf)))
        session.flush()
        summary.new_players = entrants.register()
        player_ids = [entrants.player_ids(a.players) for a in accepted]
        for a, ids in zip(accepted, player_ids, strict=True):
            _queue_content(driver, a.event.id, a.trf, ids)
        driver.flush()
    finally:
        driver.restore()
    public_change(session)  # new events of open periods: the live ratings change
    notes = _rating_notes(
        session, [(a.trf, a.event.rating_type, ids) for a, ids in zip(accepted, player_ids, strict=True)]
    )
    for a, (in_force, differences, unrated) in zip(accepted, notes, strict=True):
        trf, event = a.trf, a.event
        summary.events.append(
            ImportedEvent(
                id=event.id,
                name=event_title(event.name, event.section),
                source_name=trf.source_name,
                rating_type=event.rating_type,
                period=event.period,
                natural_period=event.natural_period,
                players=len(trf.players),
                games=len(trf.games),
                rated_games=sum(1 for g in trf.games if g.rated),
                list_in_force=in_force,
                rating_differences=differences,
                unrated_with_file_rating=unrated,
                time_control_note=time_control_note(trf, event.rating_type),
            )
        )
    return summary


@dataclass
class _Accepted:
    """A file that passed every check: its event (written with the batch) and its lines' players."""

    trf: TrfEvent
    event: Event
    players: dict[int, PlayerRef]


class _StoredEvents:
    """The stored events the batch's files could repeat, read at once: by file hash and by start date."""

    def __init__(
        self, session: Session, parsed: Sequence[TrfEvent], rating_type: str | None, replaced: int | None
    ) -> None:
        self.session = session
        self.by_hash: dict[tuple[str, str], Event] = {}
        self.by_start: dict[tuple[dt.date, str], list[Event]] = {}
        self.pending: dict[tuple[dt.date, str, str], Event] = {}  # the batch's own, not written yet
        self.files: dict[int, TrfEvent] = {}  # id() of a pending event → its file
        kinds = sorted({k for trf in parsed if (k := rating_type or trf.rating_type)})
        if not parsed or not kinds:
            return
        hashes = sorted({trf.sha256 for trf in parsed})
        dates = sorted({trf.start_date for trf in parsed})
        for event in session.scalars(
            select(Event)
            .where(Event.source_hash.in_(hashes), Event.rating_type.in_(kinds))
            .order_by(Event.id)
        ):
            self.by_hash.setdefault((event.source_hash, event.rating_type), event)
        current = select(Event).where(
            Event.start_date.in_(dates), Event.rating_type.in_(kinds), Event.is_current.is_(True)
        )
        for event in session.scalars(current.order_by(Event.id)):
            if event.id != replaced:  # the event a corrected file replaces is not another tournament
                self.by_start.setdefault((event.start_date, event.rating_type), []).append(event)
        # The section each is shown with (`event edit --section` may have named it since).
        ids = [e.id for events in self.by_start.values() for e in events]
        self.sections: dict[int, str | None] = {i: None for i in ids}
        for start in range(0, len(ids), 10_000):
            chunk = ids[start : start + 10_000]
            for event_id, section in session.execute(
                select(Event.id, shown_section()).where(Event.id.in_(chunk))
            ):
                self.sections[event_id] = section

    def same_tournament(self, trf: TrfEvent, rating_type: str, section: str | None) -> Event | None:
        """The stored event (or an earlier file of the batch, written first) with the file's tournament
        name (case and spacing aside), start date and section: two sections of one congress (the same
        name and dates, `--section Major` and `--section Minor`) are two tournaments."""
        key = _name_key(trf.name) + "\x00" + _name_key(section or "")
        for event in self.by_start.get((trf.start_date, rating_type), ()):
            if _name_key(event.name) + "\x00" + _name_key(self.sections.get(event.id) or "") == key:
                return event
        earlier = self.pending.get((trf.start_date, rating_type, key))
        if earlier is not None:
            self.session.flush()  # the refusal names it by id, as if the files had come one by one
        return earlier

    def content(self, event: Event, id_field: str) -> Content:
        """What `event` holds: its stored lines, or the batch's earlier file not written yet."""
        earlier = self.files.get(id(event))
        if earlier is not None:
            return file_content(earlier, id_field)
        return stored_content(self.session, event)

    def add(self, event: Event, trf: TrfEvent) -> None:
        self.files[id(event)] = trf
        key = _name_key(event.name) + "\x00" + _name_key(event.section or "")
        self.pending.setdefault((event.start_date, event.rating_type, key), event)


class _PeriodChecks:
    """Rule sets in force and open periods, asked once per (rating type, period) in a batch."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.ruled: set[tuple[str, Period]] = set()
        self.open: set[tuple[str, Period]] = set()

    def require_rule_set(self, trf: TrfEvent, rating_type: str, period: Period) -> None:
        if (rating_type, period) not in self.ruled:
            _require_rule_set(self.session, trf, rating_type, period)
            self.ruled.add((rating_type, period))

    def ensure_open(self, trf: TrfEvent, rating_type: str, period: Period) -> None:
        if (rating_type, period) in self.open:
            return
        if is_closed(self.session, rating_type, period):
            raise LateEvent(
                source=trf.source_name, name=trf.name, rating_type=rating_type, period=str(period),
                list_date=period.published_list_date.isoformat(),
            )  # fmt: skip
        self.open.add((rating_type, period))


def _accepted_event(
    session: Session,
    trf: TrfEvent,
    rating_type: str | None,
    choices: ImportChoices,
    stored: _StoredEvents,
    checks: _PeriodChecks,
    replacing: Replacing | None,
) -> Event:
    """The event row of `trf`, or the refusal: unknown type, imported before, wrong period, no rule set,
    the same tournament stored already, a closed period."""
    kind = rating_type or trf.rating_type
    if kind is None:
        raise ConfigError(
            f"{trf.source_name}: the rating type is unknown ({_unknown_type_reason(trf)}): give it with "
            "--type standard|rapid|blitz"
        )
    # The same file may feed two lists (the FIDE list and a national one): once per rating type.
    existing = stored.by_hash.get((trf.sha256, kind))
    if existing is not None:
        raise DuplicateEvent(
            f"{trf.source_name} was imported before as event {existing.id} "
            f"'{title_of(session, existing.id)}' "
            f"(from {existing.source_name}); an event is imported once"
        )
    official, closing_days = bool(choices.official), choices.closing_days or 0
    natural = period_for_event(trf.end_date, official=official, closing_days=closing_days)
    chosen = choices.period or natural
    if chosen < natural:
        raise ConfigError(
            f"{trf.source_name}: period {chosen} is before the event's own period {natural} (it ended "
            f"{trf.end_date.isoformat()}); an event can be rated late, never early"
        )
    latest = latest_period_for_event(trf.end_date, official=official, closing_days=closing_days)
    if chosen > latest:
        raise ConfigError(
            f"{trf.source_name}: period {chosen} is too late: an event that ended {trf.end_date.isoformat()} "
            f"is rated at the latest in period {latest} (the third list after it ends, §9.1)"
        )
    checks.require_rule_set(trf, kind, chosen)
    same = stored.same_tournament(trf, kind, choices.section)
    if same is not None and not choices.distinct:
        id_field = choices.id_field or "fide"
        raise _duplicate_or_correction(session, trf, same, stored.content(same, id_field), id_field)
    checks.ensure_open(trf, kind, chosen)
    versioned = replacing.accept(trf) if replacing else {}
    event = event_from_file(
        trf, rating_type=kind, choices=choices, period=chosen, natural_period=natural, **versioned
    )
    stored.add(event, trf)
    return event


def _checked_type(trf: TrfEvent, rating_type: str | None, override: bool) -> str | None:
    """`rating_type`, unless the file's time control says otherwise (and no --type-override)."""
    if rating_type is None or trf.rating_type is None or rating_type == trf.rating_type or override:
        return rating_type
    if rating_type not in RATING_TYPES:
        return rating_type  # a federation's own type (a national list) is not a rate of play
    raise TypeMismatch(
        source=trf.source_name, given=rating_type, found=trf.rating_type, record=_type_record(trf)
    )


def _type_record(trf: TrfEvent) -> str:
    """The record the file's rating type was read from, quoted: "record 122 ('90+30': 120 minutes …)"."""
    if trf.rating_type_record == "222":
        return f"record 222 ('{trf.encoded_time_control}')"
    if trf.rating_type_record == "122" and trf.time_control is not None:
        reading = read_time_control(trf.time_control)
        minutes = f": {reading.minutes} minutes for 60 moves" if reading.seconds is not None else ""
        return f"record 122 ('{trf.time_control}'{minutes})"
    return f"record {trf.rating_type_record} ('{trf.tournament_type}')"


def _unknown_type_reason(trf: TrfEvent) -> str:
    """Why a file gives no rating type: the records it lacks, or why its 122 does not settle it."""
    return trf.rating_type_problem or (
        "the file has no time control, record 222 or 122, and record 092 names no type"
    )


def time_control_note(trf: TrfEvent, rating_type: str) -> str | None:
    """For the import's output: a type taken from --type because the file's time control cannot be read."""
    if trf.rating_type is not None or trf.rating_type_problem is None or rating_type not in RATING_TYPES:
        return None
    return f"{trf.rating_type_problem}: the type {rating_type} comes from --type, unchecked"


def _require_rule_set(session: Session, trf: TrfEvent, rating_type: str, period: Period) -> None:
    """An event no rule set can rate would wait for ever: refuse it, naming the rule sets there are."""
    try:
        rule_set_in_force(session, rating_type, period)
    except RulesError:
        spans = [
            f"{r.name} ({r.effective_from or 'any time'} to {r.effective_to or 'now'})"
            for r in RULE_SETS
            if r.rating_type == rating_type
        ] + [
            f"{r.name} ({r.effective_from} to {r.effective_until or 'now'})"
            for r in stored_rule_sets(session)
            if r.rating_type == rating_type
        ]
        raise ConfigError(
            f"{trf.source_name}: no {rating_type} rule set covers period {period}, so the event could never "
            f"be rated — the {rating_type} rule sets are {', '.join(spans) or 'none'}; "
            f"{uncovered_advice(rating_type, period)}, then import the file again"
        ) from None


def _rating_notes(
    session: Session, files: Sequence[tuple[TrfEvent, str, dict[int, int]]]
) -> list[tuple[dt.date | None, list[RatingDifference], int]]:
    """For each (file, rating type, starting rank → player id): the list in force at the event's start,
    the file ratings that differ from it, and how many players have a file rating but no rating on that
    list (they are rated as unrated: ratingdb rates from lists).

    The players are the ones the import matched each line to (by FIDE ID, national ID — whichever
    --id-field says the ID column holds — name or option), so the note counts what the close will use.
    The lists are read once per rating type and each list's entries once for all the files it is in
    force for."""
    dates: dict[str, list[tuple[dt.date, int]]] = {}
    for kind in sorted({kind for _, kind, _ in files}):
        dates[kind] = [
            (day, list_id)
            for day, list_id in session.execute(
                select(RatingList.list_date, RatingList.id)
                .where(RatingList.rating_type == kind, RatingList.is_current.is_(True))
                .order_by(RatingList.list_date.desc())
            )
        ]
    in_force = [
        next(((day, list_id) for day, list_id in dates[kind] if day <= trf.start_date), None)
        for trf, kind, _ in files
    ]
    wanted: dict[int, set[int]] = {}
    for (trf, _, ids), found in zip(files, in_force, strict=True):
        if found is not None:
            wanted.setdefault(found[1], set()).update(ids[p.rank] for p in trf.players if p.fide_rating)
    on_list: dict[int, dict[int, int | None]] = {}
    for list_id, player_ids in wanted.items():
        ratings = on_list[list_id] = {}
        present = sorted(player_ids)
        for start in range(0, len(present), 10_000):
            query = select(ListEntry.player_id, ListEntry.rating).where(
                ListEntry.list_id == list_id,
                engines.of(session).one_of(ListEntry.player_id, present[start : start + 10_000]),
            )
            ratings.update((player_id, rating) for player_id, rating in session.execute(query))
    notes: list[tuple[dt.date | None, list[RatingDifference], int]] = []
    for (trf, _, ids), found in zip(files, in_force, strict=True):
        with_rating = [p for p in trf.players if p.fide_rating]
        if found is None:
            notes.append((None, [], len(with_rating)))
            continue
        ratings = on_list[found[1]]
        differences: list[RatingDifference] = []
        unrated = 0
        for p in with_rating:
            rating = ratings.get(ids[p.rank])
            if rating is None:
                unrated += 1
            elif rating != p.fide_rating:
                differences.append(RatingDifference(p.name, p.fide_rating, rating))  # type: ignore[arg-type]
        notes.append((found[0], differences, unrated))
    return notes


def event_from_file(
    trf: TrfEvent,
    *,
    rating_type: str,
    choices: ImportChoices,
    period: Period,
    natural_period: Period,
    **versioned: int,
) -> Event:
    """The event row of a tournament file (`versioned`: version, created_by, replaces of a correction)."""
    return Event(
        name=trf.name,
        city=trf.city,
        federation=trf.federation,
        start_date=trf.start_date,
        end_date=trf.end_date,
        rating_type=rating_type,
        official=bool(choices.official),
        time_control=trf.encoded_time_control or trf.time_control,
        rounds=trf.rounds,
        period=str(period),
        natural_period=str(natural_period),
        source_name=trf.source_name,
        source_hash=trf.sha256,
        section=choices.section or None,
        import_choices=choices.stored(trf.source_name),
        **versioned,
    )


def _queue_content(driver: Driver, event_id: int, trf: TrfEvent, ids: dict[int, int]) -> int:
    """Queue the file's player lines and pairings under `event_id`; returns the number of pairings."""
    # Rows of every file go out together at the end: one bulk write per table, not per file.
    driver.add(
        "event_player",
        [
            (
                event_id, p.rank, ids[p.rank], p.fide_rating, _tenths(p.points), p.final_rank,
                p.national_rating, p.national_federation, p.club,
            )
            for p in trf.players
        ],
    )  # fmt: skip
    driver.add("event_record", [(event_id, seq, text) for seq, text in enumerate(trf.header_records, 1)])
    games = [_game_row(event_id, g, ids) for g in trf.games]
    driver.add("game", games)
    return len(games)


def content_driver(session: Session) -> Driver:
    """A bulk driver with the buffers `store_content` fills (flush it, then restore it)."""
    driver = Driver(session)
    driver.buffer("event_player", EVENT_PLAYER_COLUMNS)
    driver.buffer("game", GAME_COLUMNS)
    driver.buffer("event_record", EVENT_RECORD_COLUMNS)
    return driver


def _tenths(points: Decimal | None) -> int | None:
    return None if points is None else int(points * 10)


def _name_key(name: str) -> str:
    return " ".join(name.casefold().split())


@dataclass(frozen=True)
class EntrantKey:
    """Who a player line is, as far as a file can say: its IDs, and the name as a key."""

    fide_id: int | None
    national_id: str | None
    name_key: str
    name: str

    def same_player(self, other: EntrantKey) -> bool:
        if self.fide_id and other.fide_id:
            return self.fide_id == other.fide_id
        if self.national_id and other.national_id:
            return self.national_id == other.national_id
        return self.name_key == other.name_key


@dataclass(frozen=True)
class Content:
    """What identifies a tournament's results, whatever the bytes: dates, who played, every result."""

    dates: tuple[dt.date, dt.date]
    players: dict[int, EntrantKey]  # starting rank → who
    games: frozenset[tuple[int, int, int | None, str, str | None]]  # round, white, black ranks, results

    def same_as(self, other: Content) -> bool:
        return (
            self.dates == other.dates
            and self.players.keys() == other.players.keys()
            and all(p.same_player(other.players[rank]) for rank, p in self.players.items())
            and self.games == other.games
        )


def file_content(trf: TrfEvent, id_field: str = "fide") -> Content:
    """What the file says about its tournament, its ID column read as `id_field` says (--id-field)."""
    players = {
        p.rank: EntrantKey(p.fide_id or None, p.national_id or None, _name_key(p.name), p.name)
        for p in (with_id_field(p, id_field) for p in trf.players)
    }
    games = frozenset((g.round, g.white, g.black, g.white_result, g.black_result) for g in trf.games)
    return Content((trf.start_date, trf.end_date), players, games)


def stored_content(session: Session, event: Event) -> Content:
    """`file_content` of a stored event, from its player lines and pairings."""
    rank_of: dict[int, int] = {}
    players: dict[int, EntrantKey] = {}
    for rank, player_id, fide_id, national_id, name in session.execute(
        select(EventPlayer.start_rank, Player.id, Player.fide_id, Player.national_id, Player.name)
        .join(Player, Player.id == EventPlayer.player_id)
        .where(EventPlayer.event_id == event.id)
    ):
        rank_of[player_id] = rank
        players[rank] = EntrantKey(fide_id, national_id, _name_key(name), name)
    games = frozenset(
        (g.round, rank_of[g.white_id], None if g.black_id is None else rank_of[g.black_id], g.white_result,
         g.black_result)
        for g in session.scalars(select(Game).where(Game.event_id == event.id))
    )  # fmt: skip
    return Content((event.start_date, event.end_date), players, games)


# A file with the name and start date of a stored event that shares fewer than this share of the larger
# of the two fields is a section of the same congress (Bunratty's Masters and Minor share no player), not
# a correction: a corrected file keeps most players (a late entry or a withdrawal aside).
CORRECTION_SHARE = Decimal("0.5")


def _duplicate_or_correction(
    session: Session, trf: TrfEvent, same: Event, old: Content, id_field: str
) -> DuplicateEvent:
    """The refusal for a file whose tournament is stored already: the same results, a correction (most
    players shared), or another section of the same congress (few shared)."""
    new = file_content(trf, id_field)
    shown = title_of(session, same.id)
    if new.same_as(old):
        return DuplicateEvent(
            f"{trf.source_name} is the same tournament as event {same.id} '{shown}' (imported from "
            f"{same.source_name}): same name, dates and results; an event is imported once"
        )
    rated = is_closed(session, same.rating_type, Period.parse(same.period))
    shared = sum(1 for p in new.players.values() if any(p.same_player(q) for q in old.players.values()))
    field = max(len(new.players), len(old.players))
    if shared < CORRECTION_SHARE * field:
        return AnotherSection(
            source=trf.source_name, event_id=same.id, shown=shown, period=same.period, rated=rated,
            shared=shared, players=len(new.players), titled=event_title(trf.name, "NAME"),
            has_section=bool(shown_section_of(session, same.id)),
        )  # fmt: skip
    return CorrectedVersion(
        source=trf.source_name, event_id=same.id, shown=shown, period=same.period,
        rating_type=same.rating_type, rated=rated, shared=shared, players=len(new.players),
    )  # fmt: skip


@dataclass(frozen=True)
class CorrectionCandidate:
    """A stored event a file looks like a corrected version of: `shared` of the file's `players` played in
    it (at least CORRECTION_SHARE of the larger field)."""

    event: Event
    shared: int
    players: int


def corrected_versions(session: Session, trf: TrfEvent, rating_type: str) -> list[CorrectionCandidate]:
    """The current events of `rating_type` with the file's tournament name and start date, whatever their
    section, that the file looks like a corrected version of (most players shared, as
    `_duplicate_or_correction` tells a correction from another section), most shared first; each read with
    the ID column its event was imported with. Not the event the file itself was imported as."""
    found = []
    for event in session.scalars(
        select(Event)
        .where(
            Event.start_date == trf.start_date, Event.rating_type == rating_type, Event.is_current.is_(True)
        )
        .order_by(Event.id)
    ):
        if _name_key(event.name) != _name_key(trf.name) or event.source_hash == trf.sha256:
            continue
        id_field = ImportChoices.from_stored(event.import_choices).id_field or "fide"
        new, old = file_content(trf, id_field), stored_content(session, event)
        shared = sum(1 for p in new.players.values() if any(p.same_player(q) for q in old.players.values()))
        if shared >= CORRECTION_SHARE * max(len(new.players), len(old.players)):
            found.append(CorrectionCandidate(event, shared, len(new.players)))
    return sorted(found, key=lambda c: (-c.shared, c.event.id))


EVENT_PLAYER_COLUMNS = (
    "event_id", "start_rank", "player_id", "file_rating", "points_x10", "final_rank", "national_rating",
    "national_federation", "club",
)  # fmt: skip
EVENT_RECORD_COLUMNS = ("event_id", "seq", "text")
GAME_COLUMNS = (
    "event_id", "round", "date", "white_id", "black_id", "white_result", "black_result", "rated",
    "colour_known",
)  # fmt: skip


def _game_row(event_id: int, g: TrfGame, ids: dict[int, int]) -> tuple[object, ...]:
    black = None if g.black is None else ids[g.black]
    return (
        event_id,
        g.round,
        g.date,
        ids[g.white],
        black,
        g.white_result,
        g.black_result,
        g.rated,
        g.colour_known,
    )


def event_as_trf(session: Session, event_id: int) -> TrfEvent:
    """Rebuild a stored event as a TrfEvent, for `export-trf` (written out as TRF16)."""
    event = _event(session, event_id)
    rows = session.execute(
        select(EventPlayer, Player)
        .join(Player, Player.id == EventPlayer.player_id)
        .where(EventPlayer.event_id == event_id)
        .order_by(EventPlayer.start_rank)
    ).all()
    rank_of = {ep.player_id: ep.start_rank for ep, _ in rows}
    players = tuple(
        TrfPlayer(
            rank=ep.start_rank,
            line=0,
            name=p.name,
            sex=as_sex(p.sex),
            title=p.title,
            fide_rating=ep.file_rating,
            federation=p.federation,
            fide_id=p.fide_id,
            national_id=p.national_id,
            national_rating=ep.national_rating,
            birth_year=p.birth_year,
            points=None if ep.points_x10 is None else Decimal(ep.points_x10) / 10,
            national_federation=ep.national_federation,
            club=ep.club,
            final_rank=ep.final_rank,
        )
        for ep, p in rows
    )
    games = tuple(
        TrfGame(
            round=g.round,
            date=g.date,
            white=rank_of[g.white_id],
            black=None if g.black_id is None else rank_of[g.black_id],
            white_result=g.white_result,
            black_result=g.black_result,
            rated=g.rated,
            colour_known=g.colour_known,
        )
        for g in session.scalars(select(Game).where(Game.event_id == event_id).order_by(Game.round, Game.id))
    )
    dates = {g.round: g.date for g in games}
    return TrfEvent(
        source_name=event.source_name,
        sha256=event.source_hash,
        version=16,
        name=event.name,
        city=event.city,
        federation=event.federation,
        start_date=event.start_date,
        end_date=event.end_date,
        time_control=event.time_control,
        encoded_time_control=None,
        rating_type=event.rating_type,
        rounds=event.rounds,
        round_dates=tuple(dates.get(r) for r in range(1, event.rounds + 1)),
        players=players,
        games=games,
        header_records=tuple(
            session.scalars(
                select(EventRecord.text).where(EventRecord.event_id == event_id).order_by(EventRecord.seq)
            )
        ),
    )


def delete_event(session: Session, event_id: int) -> str:
    """Remove a wrongly imported event of an open period with its games, and record it in the audit log.

    Refused for a closed period: its list and calculation record explain ratings with these games.
    Players the event's import registered are removed with it when nothing else refers to them (no
    other event, no list entry, no merged duplicate); players registered otherwise always stay.
    Returns the sentence recorded.
    """
    event = _event(session, event_id)
    if not event.is_current:
        raise UnknownEvent(
            f"event {event_id} '{event.name}' was replaced or withdrawn already: nothing to delete"
        )
    ensure_period_open(
        session,
        event.rating_type,
        Period.parse(event.period),
        f"cannot delete event {event_id} ({event.name})",
        advice=f"to remove it, reopen the period first: `ratingdb reopen {event.period} --type "
        f"{event.rating_type} --reason TEXT`, then delete the event and close the period again",
    )
    games = session.scalar(select(func.count()).where(Game.event_id == event_id)) or 0
    explains = session.scalar(select(func.count()).where(CalcListEvent.event_id == event_id)) or 0
    what = (
        f"event {event_id} '{event.name}' ({event.rating_type}, period {event.period}, "
        f"{event.start_date.isoformat()} … {event.end_date.isoformat()}, {games} pairings) imported from "
        f"{event.source_name} (sha256 {event.source_hash})"
    )
    if explains:
        # A withdrawn list was computed from it: it stays, withdrawn, so that list still explains itself.
        detail = f"withdrew {what}; kept for the withdrawn lists computed from it"
        withdraw(session, event, record_change(session, "delete-event", detail))
        return detail
    detail = f"deleted {what}"
    player_ids = list(session.scalars(select(EventPlayer.player_id).where(EventPlayer.event_id == event_id)))
    session.execute(delete(EventRecord).where(EventRecord.event_id == event_id))
    session.execute(delete(Game).where(Game.event_id == event_id))
    session.execute(delete(EventPlayer).where(EventPlayer.event_id == event_id))
    session.execute(delete(Event).where(Event.id == event_id))
    removed = remove_unreferenced_players(session, player_ids, registered_by="import-trf")
    if removed:
        detail += f"; removed {len(removed)} player(s) it had registered: {'; '.join(removed)}"
    record_change(session, "delete-event", detail)
    return detail


def _event(session: Session, event_id: int) -> Event:
    event = session.get(Event, event_id)
    if event is None:
        raise UnknownEvent(f"there is no event {event_id}: `ratingdb events` lists them")
    return event
