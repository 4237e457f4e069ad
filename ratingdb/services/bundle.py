"""A published list's bundle (issue 49): the list with everything it was computed from, as zip members.

Reads one computed list version and what its close read — the rule set, the list in force, each event
rated (written back as TRF16 with the players its lines were matched to and its import choices), the
lists the events took their ratings from, the decisions no file holds — and the published list with its
calculation record; the rating system's own members come from its module (services/systems/, BUNDLED).
ratingdb.bundle.archive makes the zip. Takes a Session and never commits; reads only.

Players are named by their FIDE ID, or by "N" and their national ID when they have none, with the
details of the version the published list shows (the close read each player's details as they were
then, which is that version). Events are numbered 1, 2, 3 … in the order of their ids, the order the close
rated them in. Must not import the CLI or the reports.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import import_module
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.bundle.archive import FORMAT, FORMAT_VERSION, build
from ratingdb.errors import ConfigError, MissingList
from ratingdb.formats import (
    ListRating,
    ListRow,
    TrfEvent,
    TrfGame,
    TrfPlayer,
    as_sex,
    write_csv_list,
    write_trf16,
)
from ratingdb.rating import Period, RulesError, fide_rule_file, parse_rule_set
from ratingdb.schema.models import (
    AuditEntry,
    CalcListEvent,
    Event,
    EventPlayer,
    EventRecord,
    Game,
    ListEntry,
    Player,
    PlayerVersion,
    RatingList,
)
from ratingdb.services.lists import list_on, list_version
from ratingdb.services.rules import list_rule_set, rule_set_in_force
from ratingdb.services.systems import BUNDLED

STATE_COLUMNS = ("player", "change", "last_active", "pool_from")


def player_key(fide_id: int | None, national_id: str | None) -> str:
    """How a bundle names a player: the FIDE ID, else "N" and the national ID."""
    return str(fide_id) if fide_id is not None else f"N{national_id}"


@dataclass
class BundleSource:
    """What the bundle of one list is made from, read once; a system's module adds its own members."""

    session: Session
    rating_list: RatingList
    in_force: RatingList
    period: Period
    rules_name: str
    system: str
    keys: dict[int, str] = field(default_factory=dict)  # player id → key
    event_ids: set[int] = field(default_factory=set)  # every event the members name (a system adds some)
    numbers: dict[int, int] = field(default_factory=dict)  # event id → its number in the bundle
    found: dict[str, Any] = field(default_factory=dict)  # what a system's `prepare` read for its `members`
    details: dict[int, Entry] = field(default_factory=dict)  # player id → the published list's entry

    def key(self, player_id: int) -> str:
        found = self.keys.get(player_id)
        if found is None:
            player = self.session.get(Player, player_id)
            assert player is not None
            found = self.keys[player_id] = player_key(player.fide_id, player.national_id)
        return found


@dataclass(frozen=True)
class BundleFile:
    """A list's bundle: its bytes and what it holds, for the adapters to say."""

    data: bytes
    rating_type: str
    list_date: dt.date
    version: int
    entries: int
    events: int
    signed: bool
    withdrawn: bool


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """A member in CSV: a header row, "\\n" line ends, empty for None, true/false for booleans."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(
            ["" if v is None else ("true" if v is True else "false" if v is False else v) for v in row]
        )
    return out.getvalue().encode("utf-8")


def json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def find_list_version(
    session: Session, rating_type: str, list_date: dt.date, version: int | None
) -> RatingList:
    """The list a bundle is asked of: its current version, or the version named (withdrawn ones too)."""
    found = (
        list_on(session, rating_type, list_date)
        if version is None
        else list_version(session, rating_type, list_date, version)
    )
    if found is None:
        which = f"version {version} of the" if version is not None else "a current"
        raise MissingList(f"there is no {which} {rating_type} list dated {list_date.isoformat()}")
    if found.origin != "computed" or found.period is None:
        raise ConfigError(
            f"the {rating_type} list dated {list_date.isoformat()} was imported "
            f"({found.source or 'a file'}), not computed by a close: there is nothing to recompute, "
            "so no bundle"
        )
    return found


def list_bundle(
    session: Session,
    rating_type: str,
    list_date: dt.date,
    *,
    version: int | None = None,
    site_title: str = "",
    sign: Any = None,
) -> BundleFile:
    """The bundle of the computed list of `rating_type` dated `list_date` (its current version unless
    `version`). `sign`, when given, signs the manifest's bytes (ratingdb.bundle.signing.Signer)."""
    rating_list = find_list_version(session, rating_type, list_date, version)
    assert rating_list.period is not None and rating_list.rules is not None
    period = Period.parse(rating_list.period)
    source = BundleSource(
        session, rating_list, _in_force_of(session, rating_list, period), period, rating_list.rules,
        _system_of(session, rating_list),
    )  # fmt: skip
    part = import_module(f"ratingdb.services.systems.{BUNDLED[source.system]}")
    members: dict[str, bytes] = {}
    published = _entries(session, rating_list.id)
    for player_id, row in published.items():
        source.keys[player_id] = player_key(row[1], row[2])
    members.update(_rules(source))
    events = _events(source)
    part.prepare(source)
    source.numbers = {event_id: n for n, event_id in enumerate(sorted(source.event_ids), 1)}
    details = source.details = published
    in_force = _entries(session, source.in_force.id)
    members["inputs/list-in-force.csv"] = _list_csv(source, in_force, details)
    members["inputs/list-in-force-state.csv"] = _state_csv(source, in_force)
    members.update(_event_members(source, events))
    members["inputs/decisions.json"] = json_bytes(_decisions(source, events))
    members["published/list.csv"] = _list_csv(source, published, details)
    members["published/list-state.csv"] = _state_csv(source, published)
    members.update(part.members(source))
    withdrawal = _withdrawal(session, rating_list)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "site_title": site_title,
        "rating_type": rating_type,
        "list_date": rating_list.list_date.isoformat(),
        "version": rating_list.version,
        "period": str(period),
        "list_in_force": source.in_force.list_date.isoformat(),
        "list_in_force_version": source.in_force.version,
        "rating_system": source.system,
        "rule_set": source.rules_name,
        "status": "withdrawn" if withdrawal else "current",
        "withdrawn": withdrawal,
    }
    data = build(manifest, members, sign)
    return BundleFile(
        data, rating_type, rating_list.list_date, rating_list.version, len(published), len(events),
        sign is not None, withdrawal is not None,
    )  # fmt: skip


def _in_force_of(session: Session, rating_list: RatingList, period: Period) -> RatingList:
    """The version of the list dated the period's first day that was current when this list was closed:
    the one whose audit entry came before this list's and was not withdrawn before it."""
    created = rating_list.created_by or 0
    for candidate in session.scalars(
        select(RatingList)
        .where(RatingList.rating_type == rating_list.rating_type, RatingList.list_date == period.first_day)
        .order_by(RatingList.version.desc())
    ):
        if (candidate.created_by or 0) < created and (
            candidate.withdrawn_by is None or candidate.withdrawn_by > created
        ):
            return candidate
    raise MissingList(
        f"the {rating_list.rating_type} list in force for period {period} (dated "
        f"{period.first_day.isoformat()}) is no longer in the database: the bundle cannot be made"
    )


def _system_of(session: Session, rating_list: RatingList) -> str:
    """The rating system of the rule set the list was closed under."""
    assert rating_list.rules is not None
    return parse_rule_set(_rule_text(session, rating_list.id, rating_list.rules)).system


def _rule_text(session: Session, rating_list_id: int, name: str) -> str:
    stored = list_rule_set(session, rating_list_id)
    if stored is not None:
        return stored.content
    text = fide_rule_file(name)
    if text is None:
        raise ConfigError(f"the rule set '{name}' of the list is neither stored nor one of FIDE's")
    return text


def _rules(source: BundleSource) -> dict[str, bytes]:
    """The rule set of the close, and the one that sets K on the new list when that is another (§8.3.3)."""
    session, rating_list = source.session, source.rating_list
    members = {"rules.toml": _rule_text(session, rating_list.id, source.rules_name).encode("utf-8")}
    served = source.period.shift(1)
    try:
        next_rules = rule_set_in_force(session, rating_list.rating_type, served)
    except RulesError:  # none covers the next period: the close took its own (services/close.py)
        return members
    if next_rules.rules.name != source.rules_name and not next_rules.rules.covers(
        rating_list.rating_type, source.period
    ):
        text = (
            next_rules.stored.content
            if next_rules.stored is not None
            else fide_rule_file(next_rules.rules.name)
        )
        if text is not None:
            members["rules-new-list.toml"] = text.encode("utf-8")
    return members


# (player id) → (version id, fide id, national id, name, federation, sex, title, birth year, rating, games,
# k, flag, change, games total, reached 2400, reached 2300, last active, pool from)
Entry = tuple[Any, ...]


def _entries(session: Session, list_id: int) -> dict[int, Entry]:
    rows = session.execute(
        select(
            ListEntry.player_id,
            PlayerVersion.id,
            PlayerVersion.fide_id,
            PlayerVersion.national_id,
            PlayerVersion.name,
            PlayerVersion.federation,
            PlayerVersion.sex,
            PlayerVersion.title,
            PlayerVersion.birth_year,
            ListEntry.rating,
            ListEntry.games,
            ListEntry.k,
            ListEntry.flag,
            ListEntry.change,
            ListEntry.games_total,
            ListEntry.reached_2400,
            ListEntry.reached_2300,
            ListEntry.last_active,
            ListEntry.pool_from,
        )  # fmt: skip
        .join(PlayerVersion, PlayerVersion.id == ListEntry.player_version_id)
        .where(ListEntry.list_id == list_id)
    )
    return {row[0]: tuple(row[1:]) for row in rows}


def _list_csv(source: BundleSource, entries: dict[int, Entry], details: dict[int, Entry]) -> bytes:
    """A list as `import-list` reads it, in player-key order, with each player's details as the published
    list shows them (the ones the close read)."""
    rating_type = source.rating_list.rating_type
    rows = []
    for player_id, e in entries.items():
        d = details.get(player_id, e)
        rows.append(
            ListRow(
                line=0,
                fide_id=d[1],
                national_id=d[2],
                name=d[3],
                federation=d[4],
                sex=as_sex(d[5]),
                title=d[6],
                birth_year=d[7],
                flag=e[11],
                ratings={rating_type: ListRating(e[8], e[9], e[10], e[13], bool(e[14]), bool(e[15]))},
            )  # fmt: skip
        )
    rows.sort(key=lambda r: player_key(r.fide_id, r.national_id))
    out = io.StringIO()
    write_csv_list(rows, out, rating_type)
    return out.getvalue().encode("utf-8")


def _state_csv(source: BundleSource, entries: dict[int, Entry]) -> bytes:
    """What a list entry holds beyond the CSV list format: the change, last active period, pool start."""
    rows = sorted((source.key(pid), e[12], e[16], e[17]) for pid, e in entries.items())
    return csv_bytes(STATE_COLUMNS, rows)


@dataclass(frozen=True)
class RatedEvent:
    event: Event
    ratings_list: RatingList
    standard_list: RatingList | None


def _events(source: BundleSource) -> list[RatedEvent]:
    """The events the close rated: those its record names, and (for the current version) every current
    event of the period, with the lists their ratings came from."""
    session, rating_list = source.session, source.rating_list
    recorded = dict(
        session.execute(
            select(CalcListEvent.event_id, CalcListEvent.ratings_list_id).where(
                CalcListEvent.list_id == rating_list.id
            )
        ).all()
    )
    ids = set(recorded)
    if rating_list.is_current:
        ids |= set(
            session.scalars(
                select(Event.id).where(
                    Event.period == str(source.period),
                    Event.rating_type == rating_list.rating_type,
                    Event.is_current.is_(True),
                )
            )
        )
    found = []
    for event in session.scalars(select(Event).where(Event.id.in_(ids)).order_by(Event.id)):
        ratings = session.get(RatingList, recorded[event.id]) if event.id in recorded else None
        if ratings is None:
            ratings = (
                _list_at(session, rating_list.rating_type, event.start_date, rating_list) or source.in_force
            )
        standard = None
        if rating_list.rating_type in ("rapid", "blitz"):
            standard = _list_at(session, "standard", event.start_date, rating_list)
        found.append(RatedEvent(event, ratings, standard))
    source.event_ids |= {e.event.id for e in found}
    return found


def _list_at(session: Session, rating_type: str, day: dt.date, closing: RatingList) -> RatingList | None:
    """The list of `rating_type` in force on `day` when `closing` was closed (the newest dated on or before
    it, in the version current then); the earliest when every list is newer (as ListsOnDates)."""
    created = closing.created_by or 0
    candidates = [
        c
        for c in session.scalars(
            select(RatingList).where(RatingList.rating_type == rating_type).order_by(RatingList.list_date)
        )
        if (c.created_by or 0) < created and (c.withdrawn_by is None or c.withdrawn_by > created)
    ]
    before = [c for c in candidates if c.list_date <= day]
    if before:
        return before[-1]
    return candidates[0] if candidates else None


def list_name(rating_list: RatingList) -> str:
    """A list as the event members name it: type, date and version ("standard-2025-09-01-v1")."""
    return f"{rating_list.rating_type}-{rating_list.list_date.isoformat()}-v{rating_list.version}"


def _event_members(source: BundleSource, events: list[RatedEvent]) -> dict[str, bytes]:
    session = source.session
    members: dict[str, bytes] = {}
    other_lists: dict[str, RatingList] = {}
    stored = _stored_events(source, [rated.event for rated in events])
    for rated in events:
        event = rated.event
        number = source.numbers[event.id]
        trf, lines = stored[event.id]
        keys = {rank: source.key(pid) for rank, pid in lines.items()}
        stem = f"inputs/events/{number:04d}"
        members[f"{stem}.trf"] = write_trf16(trf).encode("utf-8")
        used = {"ratings_list": _list_ref(source, rated.ratings_list, other_lists)}
        if rated.standard_list is not None:
            used["standard_list"] = _list_ref(source, rated.standard_list, other_lists)
        members[f"{stem}.json"] = json_bytes(
            {
                "event": number,
                "name": event.name,
                "section": event.section,
                "start_date": event.start_date.isoformat(),
                "end_date": event.end_date.isoformat(),
                "period": event.period,
                "natural_period": event.natural_period,
                "version": event.version,
                "source_sha256": event.source_hash,
                "import_choices": json.loads(event.import_choices) if event.import_choices else None,
                "lines": {str(rank): keys[rank] for rank in sorted(keys)},
                **used,
            }
        )
    for name, rating_list in sorted(other_lists.items()):
        rows = session.execute(
            select(ListEntry.player_id, ListEntry.rating).where(
                ListEntry.list_id == rating_list.id, ListEntry.rating.is_not(None)
            )
        )
        members[f"inputs/ratings/{name}.csv"] = csv_bytes(
            ("player", "rating"), sorted((source.key(pid), rating) for pid, rating in rows)
        )
    return members


def _stored_events(source: BundleSource, events: list[Event]) -> dict[int, tuple[TrfEvent, dict[int, int]]]:
    """Each event as `export-trf` writes it (services.events.event_as_trf), its players with the details
    the published list shows, and its lines (start rank → player id): read in bulk, a few queries per 500
    events rather than three per event (a FIDE-size period rates some 50,000)."""
    found: dict[int, tuple[TrfEvent, dict[int, int]]] = {}
    session = source.session
    for start in range(0, len(events), 500):
        chunk = events[start : start + 500]
        ids = [e.id for e in chunk]
        lines: dict[int, list[Any]] = {i: [] for i in ids}
        for row in session.execute(
            select(
                EventPlayer.event_id,
                EventPlayer.start_rank,
                EventPlayer.player_id,
                EventPlayer.file_rating,
                EventPlayer.points_x10,
                EventPlayer.national_rating,
                EventPlayer.national_federation,
                EventPlayer.club,
                EventPlayer.final_rank,
            )  # fmt: skip
            .where(EventPlayer.event_id.in_(ids))
            .order_by(EventPlayer.event_id, EventPlayer.start_rank)
        ):
            lines[row[0]].append(row)
        games: dict[int, list[Any]] = {i: [] for i in ids}
        for game in session.execute(
            select(
                Game.event_id,
                Game.round,
                Game.date,
                Game.white_id,
                Game.black_id,
                Game.white_result,
                Game.black_result,
                Game.rated,
                Game.colour_known,
            )  # fmt: skip
            .where(Game.event_id.in_(ids))
            .order_by(Game.event_id, Game.round, Game.id)
        ):
            games[game[0]].append(game)
        records: dict[int, list[str]] = {i: [] for i in ids}
        for event_id, text in session.execute(
            select(EventRecord.event_id, EventRecord.text)
            .where(EventRecord.event_id.in_(ids))
            .order_by(EventRecord.event_id, EventRecord.seq)
        ):
            records[event_id].append(text)
        for event in chunk:
            rank_of = {row[2]: row[1] for row in lines[event.id]}
            players = tuple(_trf_player(source, row) for row in lines[event.id])
            trf_games = tuple(
                TrfGame(
                    round=g[1],
                    date=g[2],
                    white=rank_of[g[3]],
                    black=None if g[4] is None else rank_of[g[4]],
                    white_result=g[5],
                    black_result=g[6],
                    rated=bool(g[7]),
                    colour_known=bool(g[8]),
                )  # fmt: skip
                for g in games[event.id]
            )
            dates = {g.round: g.date for g in trf_games}
            # An event stored with fewer rounds than its games name (one made by a script) is written with
            # as many as it has, so that its file reads back.
            rounds = max([event.rounds, *(g.round for g in trf_games)])
            trf = TrfEvent(
                source_name=event.source_name, sha256=event.source_hash, version=16, name=event.name,
                city=event.city, federation=event.federation, start_date=event.start_date,
                end_date=event.end_date, time_control=event.time_control, encoded_time_control=None,
                rating_type=event.rating_type, rounds=rounds,
                round_dates=tuple(dates.get(r) for r in range(1, rounds + 1)), players=players,
                games=trf_games, header_records=tuple(records[event.id]),
            )  # fmt: skip
            found[event.id] = (trf, {row[1]: row[2] for row in lines[event.id]})
    return found


def _trf_player(source: BundleSource, row: Any) -> TrfPlayer:
    """A player line: what the file said (rating, points, ranks, club) and the details the published list
    shows (the current ones for a player not on it)."""
    _event, rank, player_id, file_rating, points_x10, national_rating, national_federation, club, final = row
    e = source.details.get(player_id)
    if e is None:
        p = source.session.get(Player, player_id)
        assert p is not None
        e = (None, p.fide_id, p.national_id, p.name, p.federation, p.sex, p.title, p.birth_year)
    return TrfPlayer(
        rank=rank, line=0, name=e[3], sex=as_sex(e[5]), title=e[6], fide_rating=file_rating, federation=e[4],
        fide_id=e[1], national_id=e[2], national_rating=national_rating, birth_year=e[7],
        points=None if points_x10 is None else Decimal(points_x10) / 10,
        national_federation=national_federation, club=club, final_rank=final,
    )  # fmt: skip


def _list_ref(source: BundleSource, rating_list: RatingList, others: dict[str, RatingList]) -> str:
    """ "in-force" for the list in force, else the name of its member in inputs/ratings/."""
    if rating_list.id == source.in_force.id:
        return "in-force"
    name = list_name(rating_list)
    others[name] = rating_list
    return name


_ADJUSTED = re.compile(
    r"applied the adjustment '(?P<name>[^']+)': ratings below (?P<threshold>\d+) raised by "
    r"(?P<factor>[0-9/.]+) × \(\d+ − R\), rounding (?P<rounding>\w+)"
)


def _decisions(source: BundleSource, events: list[RatedEvent]) -> dict[str, Any]:
    """What the close was told or found that no file holds: late events, a one-off adjustment, events
    that replace a withdrawn version, the earlier versions of this list."""
    session, rating_list = source.session, source.rating_list
    late = [
        {
            "event": source.numbers[r.event.id],
            "natural_period": r.event.natural_period,
            "period": r.event.period,
        }
        for r in events
        if r.event.period > r.event.natural_period
    ]
    replaced = []
    for r in events:
        if r.event.replaces is not None:
            old = session.get(Event, r.event.replaces)
            assert old is not None
            change = session.get(AuditEntry, r.event.created_by) if r.event.created_by else None
            replaced.append(
                {
                    "event": source.numbers[r.event.id],
                    "replaces_version": old.version,
                    "replaced_sha256": old.source_hash,
                    "reason": change.reason if change is not None else None,
                }
            )
    adjustment = None
    created = rating_list.created_by or 0
    for detail in session.scalars(
        select(AuditEntry.detail)
        .where(AuditEntry.action == "adjust-list", AuditEntry.id > created)
        .order_by(AuditEntry.id)
        .limit(1)
    ):
        found = _ADJUSTED.search(detail)
        if found is not None and f"(list {rating_list.list_date.isoformat()})" in detail:
            adjustment = {
                "name": found["name"],
                "threshold": int(found["threshold"]),
                "factor": found["factor"],
                "rounding": found["rounding"],
            }
    earlier = [
        {"version": old.version, "withdrawn_because": _reason(session, old.withdrawn_by)}
        for old in session.scalars(
            select(RatingList)
            .where(
                RatingList.rating_type == rating_list.rating_type,
                RatingList.list_date == rating_list.list_date,
                RatingList.version < rating_list.version,
            )
            .order_by(RatingList.version)
        )
    ]
    return {
        "late_events": late,
        "replaced_events": replaced,
        "adjustment": adjustment,
        "earlier_versions": earlier,
    }


def _reason(session: Session, audit_id: int | None) -> str | None:
    entry = session.get(AuditEntry, audit_id) if audit_id is not None else None
    return None if entry is None else (entry.reason or entry.detail)


def _withdrawal(session: Session, rating_list: RatingList) -> dict[str, Any] | None:
    """A withdrawn version says so: when, why, and the version that replaced it (None while none has)."""
    if rating_list.withdrawn_by is None:
        return None
    entry = session.get(AuditEntry, rating_list.withdrawn_by)
    later = session.scalars(
        select(RatingList.version)
        .where(
            RatingList.rating_type == rating_list.rating_type,
            RatingList.list_date == rating_list.list_date,
            RatingList.version > rating_list.version,
        )
        .order_by(RatingList.version)
        .limit(1)
    ).one_or_none()
    return {
        "by_version": later,
        "reason": None if entry is None else entry.reason,
        "detail": None if entry is None else entry.detail,
        "on": None if entry is None else entry.created_at.date().isoformat(),
    }


__all__ = ["BundleFile", "BundleSource", "csv_bytes", "find_list_version", "list_bundle", "player_key"]
