"""`report norms`: which players of an imported event made a GM, IM, WGM or WIM norm (B.01), and why not.

Takes a Session and only reads. The ratings are those of the list in force at the event's start, found by
the close's own lookup (services.lists.ListsOnDates), so a norm is checked on the ratings the event was
rated with; an event of more than 30 days uses, for each game with a date, the list in force on that day
(1.4.6). Titles, federations and sex are the players' details as that list recorded them. The rules are
ratingdb.rating.norms; what the database cannot know (the system when the file does not say it, the
exemptions of 1.4.3a–d, the minimum of 1.4.1b) comes in as NormOptions. No CLI imports.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, MissingList, UnknownEvent
from ratingdb.rating.errors import RulesError
from ratingdb.rating.norms import NORMS, Applicant, NormCheck, NormEvent, NormGame, check_norms
from ratingdb.schema.models import Event, EventPlayer, EventRecord, Game, ListEntry, Player, PlayerVersion
from ratingdb.services.lists import ListsOnDates
from ratingdb.titles import city_of, title_of

LONG_EVENT_DAYS = 30  # 1.4.6: longer events use the ratings at the time of each game
SCORES = {"1": 100, "=": 50, "0": 0, "+": 100, "-": 0}
REQUESTED_BYES = {"H": "half-point bye", "F": "full-point bye", "Z": "zero-point bye", "": "zero-point bye"}
SHORT_GAMES = {"W": "win", "D": "draw", "L": "loss"}  # TRF: a game of less than one move, not rated


@dataclass(frozen=True)
class NormOptions:
    """What the database cannot know about the event: given by the officer (`report norms` options)."""

    system: str | None = None  # None: from the file's 092 line, else swiss (said in the report)
    team: bool = False
    national_championship: bool = False  # 1.4.3a
    national_team_championship: bool = False  # 1.4.3b
    zonal: bool = False  # 1.4.3c
    swiss_1_4_3d: bool = False  # 1.4.3d
    min_games: int = 9  # 1.4.1a; 7 by 1.4.1b; 8 at the World Cup


@dataclass(frozen=True)
class PlayerNorms:
    """One player of the event: the case given to the rules and the check of each norm."""

    player_id: int
    start_rank: int
    fide_id: int | None
    national_id: str | None
    name: str
    title: str | None
    federation: str | None
    sex: str | None
    applicant: Applicant
    games: tuple[NormGame, ...]
    checks: tuple[NormCheck, ...]  # GM, IM, WGM, WIM
    notes: tuple[str, ...] = ()

    @property
    def wanted(self) -> list[NormCheck]:
        """The norms that mean something for the player: not already held, and women's only for women."""
        return [c for c in self.checks if not c.already_holds and (c.norm in ("GM", "IM") or self.sex == "F")]

    @property
    def made(self) -> list[NormCheck]:
        return [c for c in self.wanted if c.met]

    @property
    def near_misses(self) -> list[NormCheck]:
        shown = self.shown
        return [c for c in shown if c.near_miss]

    @property
    def shown(self) -> list[NormCheck]:
        """The wanted norms from the highest down to the first one met (the lower ones add nothing)."""
        out = []
        for check in self.wanted:
            out.append(check)
            if check.met:
                break
        return out

    def check(self, norm: str) -> NormCheck:
        return next(c for c in self.checks if c.norm == norm)

    def summary(self, *, brief: bool = False) -> str:
        """'GM: Rp 2592 < 2600; IM norm met': the wanted norms from the highest to the first one met."""
        return "; ".join(c.verdict(brief=brief) for c in self.shown)


@dataclass(frozen=True)
class EventNorms:
    event_id: int
    name: str
    city: str | None
    federation: str | None
    start_date: dt.date
    end_date: dt.date
    rounds: int
    rating_type: str
    time_control: str | None
    chief_arbiter: str | None
    event: NormEvent  # the event as given to the rules
    system_source: str  # where the system came from
    ratings_from: dt.date  # the list in force at the start
    ratings_note: str | None  # the close's note when the event is older than every list
    per_game: bool  # 1.4.6: ratings at the time of each game
    rating_notes: tuple[str, ...]
    players: list[PlayerNorms] = field(default_factory=list)

    @property
    def made(self) -> list[tuple[PlayerNorms, NormCheck]]:
        return [(p, c) for p in self.players for c in p.made]

    @property
    def near_misses(self) -> list[tuple[PlayerNorms, NormCheck]]:
        return [(p, c) for p in self.players for c in p.near_misses]


def system_from_file(text: str | None) -> str | None:
    """The system named by a TRF 092 line ("Individual: Swiss-System", "Round robin", …), if it names one."""
    if not text:
        return None
    words = text.lower().replace("-", " ")
    if "double" in words and ("round robin" in words or "rundenturnier" in words):
        return "double_round_robin"
    if "round robin" in words or "rundenturnier" in words or "all play all" in words:
        return "round_robin"
    if "knock" in words:
        return "knockout"
    if "swiss" in words or "schweizer" in words:
        return "swiss"
    return None


def published_norms(session: Session, event_id: int) -> EventNorms | None:
    """The norms of a standard event for the published site (no options: no exemption, 9 games), or None
    for a rapid or blitz event and where the database holds no standard list."""
    try:
        return event_norms(session, event_id)
    except (ConfigError, MissingList):
        return None


def event_norms(
    session: Session, event_id: int, options: NormOptions = NormOptions(), *, player_id: int | None = None
) -> EventNorms:
    """The norm check of every player of the event (or of `player_id` alone)."""
    event = session.get(Event, event_id)
    if event is None:
        raise UnknownEvent(f"there is no event {event_id}: `ratingdb events` lists them")
    if event.rating_type != "standard":
        raise ConfigError(
            f"event {event_id} is {event.rating_type}: title norms come from standard games only (B.01)"
        )
    lists = ListsOnDates(session, ["standard"])
    found = lists.for_event("standard", event.start_date)
    if found is None:
        raise MissingList(
            "there is no standard list in the database: a norm needs the ratings of the list in force at "
            "the event's start — import it with `ratingdb import-list`"
        )
    start_list, start_note = found

    records = {
        text[:3]: text[4:].strip()
        for text in session.scalars(
            select(EventRecord.text).where(EventRecord.event_id == event_id).order_by(EventRecord.seq)
        )
    }
    if options.system is not None:
        system, source = options.system, "given with --system"
    else:
        read = system_from_file(records.get("092"))
        if read is not None:
            system, source = read, f"from the file's 092 line ({records['092']})"
        else:
            said = f"the file's 092 line says {records['092']!r}" if records.get("092") else "no 092 line"
            system, source = "swiss", f"assumed ({said}; --system sets it)"

    entrants = list(
        session.execute(
            select(EventPlayer.start_rank, EventPlayer.player_id)
            .where(EventPlayer.event_id == event_id)
            .order_by(EventPlayer.start_rank)
        )
    )
    ids = [pid for _, pid in entrants]
    games = list(
        session.execute(
            select(Game.round, Game.date, Game.white_id, Game.black_id, Game.white_result, Game.black_result)
            .where(Game.event_id == event_id)
            .order_by(Game.round, Game.id)
        )
    )
    rounds = max([event.rounds, *(g.round for g in games)])
    # Everyone in the games, entrants or not: an opponent's name, title, federation and rating come from
    # the register and the lists whether or not the event has a line for them.
    players = [*ids, *(g.white_id for g in games), *(g.black_id for g in games if g.black_id)]
    ids = list(dict.fromkeys(players))

    # 1.4.6: ratings of the list in force at the start; a long event takes each game's day.
    per_game = (event.end_date - event.start_date).days > LONG_EVENT_DAYS
    game_lists: dict[int, int] = {}  # index of a game → the list its ratings come from
    rating_notes: list[str] = []
    if per_game:
        undated = 0
        for index, g in enumerate(games):
            on_day = lists.on("standard", g.date) if g.date is not None else None
            undated += g.date is None
            game_lists[index] = on_day if on_day is not None else start_list
        used = sorted({lists.date_of("standard", lst) for lst in game_lists.values()})
        days = (event.end_date - event.start_date).days
        rating_notes.append(
            f"the event lasted {days} days (more than {LONG_EVENT_DAYS}): "
            "each game is checked with the ratings of the list in force on its day (1.4.6): lists of "
            + ", ".join(day.isoformat() for day in used)
            + (f"; {undated} game(s) without a date use the list at the start" if undated else "")
        )
    needed = {start_list, *game_lists.values()}
    ratings: dict[int, dict[int, int | None]] = defaultdict(dict)
    versions: dict[int, int] = {}
    for list_id, pid, rating, version_id in session.execute(
        select(ListEntry.list_id, ListEntry.player_id, ListEntry.rating, ListEntry.player_version_id).where(
            ListEntry.list_id.in_(needed), ListEntry.player_id.in_(ids)
        )
    ):
        ratings[list_id][pid] = rating
        if list_id == start_list:
            versions[pid] = version_id
    details: dict[int, tuple[str, str | None, str | None, str | None, int | None, str | None]] = {}
    for p in session.scalars(select(Player).where(Player.id.in_(ids))):
        details[p.id] = (p.name, p.title, p.federation, p.sex, p.fide_id, p.national_id)
    for v in session.scalars(select(PlayerVersion).where(PlayerVersion.id.in_(set(versions.values())))):
        details[v.player_id] = (v.name, v.title, v.federation, v.sex, v.fide_id, v.national_id)

    def rating_of(pid: int, index: int) -> int | None:
        return ratings[game_lists.get(index, start_list)].get(pid)

    # 1.4.2b: unrated opponents (at the start) who scored nothing against rated players.
    against_rated: dict[int, list[int]] = defaultdict(list)
    for index, g in enumerate(games):
        if g.black_id is None or g.white_result not in ("1", "=", "0"):
            continue
        for own, opp, res in (
            (g.white_id, g.black_id, g.white_result),
            (g.black_id, g.white_id, g.black_result),
        ):
            if rating_of(own, index) is None and rating_of(opp, index) is not None:
                against_rated[own].append(SCORES[res or "0"])
    zero_vs_rated = {pid for pid, scores in against_rated.items() if not any(scores)}

    norm_event = NormEvent(
        rounds=rounds,
        system=system,
        team=options.team,
        national_championship=options.national_championship,
        national_team_championship=options.national_team_championship,
        zonal=options.zonal,
        swiss_1_4_3d=options.swiss_1_4_3d,
        min_games=options.min_games,
        players=len(entrants),
        federation=event.federation,  # the TRF's 032 record: 1.4.3a/b exempt its players only
    )
    try:
        check_norms(Applicant(None, "M"), norm_event, [], ["GM"])  # the options, before any player
    except RulesError as exc:
        raise ConfigError(str(exc)) from None
    per_player: dict[int, list[NormGame]] = defaultdict(list)
    notes: dict[int, list[str]] = defaultdict(list)
    for index, g in enumerate(games):
        sides = [(g.white_id, g.black_id, g.white_result)]
        if g.black_id is not None:
            sides.append((g.black_id, g.white_id, g.black_result or ""))
        for own, opp, code in sides:
            if opp is None:
                if code == "U":
                    per_player[own].append(NormGame(g.round, 100, bye=True))
                else:
                    what = REQUESTED_BYES.get(code, f"result {code!r}")
                    notes[own].append(f"round {g.round}: {what}, no game")
                continue
            if code in SHORT_GAMES:
                notes[own].append(
                    f"round {g.round}: {SHORT_GAMES[code]} in a game of less than one move ({code}): "
                    "not played over the board, not counted (1.4.2c)"
                )
                continue
            if code not in SCORES:
                notes[own].append(f"round {g.round}: result {code!r} against an opponent, not counted")
                continue
            name, title, federation = details[opp][:3]
            per_player[own].append(
                NormGame(
                    g.round,
                    SCORES[code],
                    rating_of(opp, index),
                    title,
                    federation,
                    forfeit=code in ("+", "-"),
                    opponent_zero_vs_rated=opp in zero_vs_rated,
                    opponent=name,
                )
            )
    result = EventNorms(
        event.id, title_of(session, event.id), city_of(session, event.id), event.federation, event.start_date,
        event.end_date, rounds,
        event.rating_type, event.time_control, records.get("102") or None, norm_event, source,
        lists.date_of("standard", start_list), start_note, per_game, tuple(rating_notes),
    )  # fmt: skip
    for start_rank, pid in entrants:
        if player_id is not None and pid != player_id:
            continue
        name, title, federation, sex, fide_id, national_id = details[pid]
        own_notes = list(notes[pid])
        if sex not in ("M", "F"):
            own_notes.append("sex not recorded: checked as a man (WGM and WIM norms need F)")
        if federation is None:
            own_notes.append("federation not recorded: 1.4.3–1.4.4 cannot be met")
        applicant = Applicant(federation, "F" if sex == "F" else "M", title)
        try:
            checks = check_norms(applicant, norm_event, per_player[pid], NORMS)
        except RulesError as exc:
            raise ConfigError(f"{name} in event {event_id}: {exc}") from None
        result.players.append(
            PlayerNorms(
                pid, start_rank, fide_id, national_id, name, title, federation, sex, applicant,
                tuple(per_player[pid]), tuple(checks), tuple(own_notes),
            )
        )  # fmt: skip
    return result


@dataclass(frozen=True)
class Certificate:
    """The figures of an IT1 certificate (FIDE's title-result form) for one player's norm."""

    GAME_COLUMNS = ("round", "opponent", "title", "federation", "rating", "counted_rating", "result", "note")

    norm: str
    player: PlayerNorms
    report: EventNorms
    check: NormCheck
    fields: tuple[tuple[str, object], ...]
    games: tuple[tuple[object, ...], ...]  # every round: counted, not counted or left out
    rules: tuple[tuple[str, str, str], ...]


def certificate(report: EventNorms, player: PlayerNorms, norm: str) -> Certificate:
    """The IT1 figures of `player`'s `norm`: event, dates, rounds, every opponent, Ra, Rp, the rules."""
    check = player.check(norm)
    fields: list[tuple[str, object]] = [
        ("certificate", f"{norm} title result (IT1)"),
        ("name", player.name),
        ("fide_id", player.fide_id),
        ("federation", player.federation),
        ("title", player.title),
        ("sex", player.sex),
        ("event", report.name),
        ("place", ", ".join(x for x in (report.city, report.federation) if x) or None),
        ("start_date", report.start_date.isoformat()),
        ("end_date", report.end_date.isoformat()),
        ("rounds", report.rounds),
        ("system", report.event.system.replace("_", " ")),
        ("players", report.event.players),
        ("time_control", report.time_control),
        ("chief_arbiter", report.chief_arbiter),
        ("ratings_from", report.ratings_from.isoformat()),
        ("games_counted", check.games_counted),
        ("games_credited", check.games_credited),
        ("score", check.score / 100),
        ("rating_sum", check.rating_sum),
        ("average_rating", check.average_rating),
        ("percentage", check.percentage),
        ("dp", check.dp),
        ("performance", check.performance),
        ("titled_opponents", check.titled),
        ("norm_title_opponents", check.norm_titled),
        ("foreign_federations", check.foreign_federations),
        ("exemption", check.exemption),
        ("left_out_rounds", " ".join(str(r) for r in check.left_out_rounds) or None),
        ("forfeit_credit_round", check.forfeit_credit_round),
        ("forfeit_as_loss_round", check.forfeit_as_loss_round),
    ]
    counted = {g.round: g for g in check.games}
    aside = {x.round: x for x in (*check.excluded, *check.left_out)}
    rows: list[tuple[object, ...]] = []
    for game in sorted(player.games, key=lambda g: g.round):
        shown = counted.get(game.round)
        if shown is not None:
            rows.append((game.round, shown.opponent, shown.title, shown.federation, shown.rating,
                         shown.counted_rating, shown.score / 100, shown.note))  # fmt: skip
        else:
            why = aside.get(game.round)
            note = f"{why.reason} ({why.paragraph})" if why else None
            rows.append((game.round, game.opponent, game.opponent_title, game.opponent_federation,
                         game.opponent_rating, None, game.score / 100, note))  # fmt: skip
    rules = tuple((r.paragraph, r.text, "yes" if r.passed else "no") for r in check.rules)
    return Certificate(norm, player, report, check, tuple(fields), tuple(rows), rules)
