"""The demo's plan: where the seeds are, which list and event files to import, in which period order.

Reads the seed files (through ratingdb.formats) and the database URL; never imports the CLI and never
writes ratings itself: the demo runs the real import and close commands with this plan.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from sqlalchemy import ColumnElement, Engine, func, inspect, select
from sqlalchemy.orm import Session, aliased

from ratingdb import db
from ratingdb.db_errors import explained
from ratingdb.errors import ConfigError
from ratingdb.formats import read_trf
from ratingdb.rating import FLOOR, RATING_TYPES, Period, parse_rule_set, period_for_event
from ratingdb.schema.models import (
    CalcEvent,
    CalcGame,
    CalcPlayer,
    Event,
    Glicko2CalcPlayer,
    Glicko2Entry,
    Player,
    RatingList,
)
from ratingdb.services.rules import rule_set_in_force
from ratingdb.services.systems import DEFAULT

DEFAULT_DEMO_URL = "sqlite:///demo.sqlite"
LIST_FILE = re.compile(r"^(standard|rapid|blitz)-(\d{4}-\d{2}-01)\.csv$")
TRF_FILE = re.compile(r"^(standard|rapid|blitz)-[a-z0-9-]+\.trf$")


@dataclass(frozen=True)
class SeedList:
    path: Path
    rating_type: str
    list_date: dt.date


@dataclass(frozen=True)
class SeedEvent:
    path: Path
    rating_type: str
    name: str
    start_date: dt.date
    end_date: dt.date
    period: Period  # §7.1.3: from the end date


@dataclass(frozen=True)
class PeriodStep:
    """One close of the demo: the events to import first (possibly none), then the close."""

    period: Period
    rating_type: str
    events: tuple[SeedEvent, ...]


@dataclass
class DemoPlan:
    rule_files: list[Path] = field(default_factory=list)  # a federation's own rule sets, added first
    lists: list[SeedList] = field(default_factory=list)
    steps: list[PeriodStep] = field(default_factory=list)

    @property
    def event_files(self) -> int:
        """Tournament files, each counted once even when it feeds two lists."""
        return len({event.path for step in self.steps for event in step.events})


def seeds_path() -> Path:
    """Folder of the demo federation, whether running from a checkout or an installed package."""
    checkout = Path(__file__).resolve().parent.parent.parent / "seeds"
    if (checkout / "generate.py").is_file():
        return checkout
    return Path(str(resources.files("ratingdb.seeds")))


def plan_demo(seeds: Path | None = None) -> DemoPlan:
    """The lists to import, then for each period in date order and each type, its events and its close.

    Lists are `<type>-<YYYY-MM-01>.csv`, events `trf/<type>-<slug>.trf`; an event's period comes from its
    end date as an import would assign it. Every period from the first list to the last event is
    closed, for every type that has a list (a period without events still publishes a list).
    A rule file `*.toml` defines a federation's own rating type (the sample `national-2025.toml`): its
    list starts from the standard starting list and is fed by the standard tournament files, as a
    federation keeps its national list beside the FIDE list. A Glicko-2 type (`club-glicko.toml`) starts
    from its own list `<type>-<YYYY-MM-01>.csv` and is fed by the standard files too.
    """
    folder = seeds or seeds_path()
    own_sets = [parse_rule_set(path.read_text(encoding="utf-8"), source=path.name)
                for path in sorted(folder.glob("*.toml"))]  # fmt: skip
    # Elo types first, then the others (the Glicko-2 club list, the Glicko league): the events keep the
    # ids they had.
    order_of_sets = sorted(range(len(own_sets)), key=lambda i: own_sets[i].system != DEFAULT)
    plan = DemoPlan(rule_files=[sorted(folder.glob("*.toml"))[i] for i in order_of_sets])
    own_types = [own_sets[i].rating_type for i in order_of_sets]
    # A type of another system than Elo starts from its own list, with its deviations.
    own_list_types = {rules.rating_type for rules in own_sets if rules.system != DEFAULT}
    for path in sorted(folder.glob("*.csv")):
        match = LIST_FILE.match(path.name)
        if match:
            plan.lists.append(SeedList(path, match[1], dt.date.fromisoformat(match[2])))
    # An Elo type starts from the standard list; a Glicko-2 or Glicko type from its own list
    # (<type>-<date>.csv, with deviations and, for Glicko-2, volatilities).
    starting = list(plan.lists)
    for own in own_types:
        if own in own_list_types:
            plan.lists += [
                SeedList(path, own, dt.date.fromisoformat(path.stem.removeprefix(f"{own}-")))
                for path in sorted(folder.glob(f"{own}-*.csv"))
            ]
        else:
            plan.lists += [
                SeedList(lst.path, own, lst.list_date) for lst in starting if lst.rating_type == "standard"
            ]
    order = [*RATING_TYPES, *own_types]
    plan.lists.sort(key=lambda lst: (lst.list_date, order.index(lst.rating_type)))
    events: list[SeedEvent] = []
    for path in sorted((folder / "trf").glob("*.trf")):
        match = TRF_FILE.match(path.name)
        if not match:
            continue
        trf = read_trf(path)
        events.append(
            SeedEvent(path, match[1], trf.name, trf.start_date, trf.end_date, period_for_event(trf.end_date))
        )
    if not plan.lists:
        raise ConfigError(f"no seed lists (<type>-<YYYY-MM-01>.csv) in {folder}")
    first = min(Period.of(lst.list_date) for lst in plan.lists)
    last = max([e.period for e in events], default=first)
    fide_types: list[str] = [t for t in RATING_TYPES if any(lst.rating_type == t for lst in plan.lists)]
    # FIDE's lists period by period; then each own list, period by period, from the standard files
    # (so the FIDE events keep the ids the guide's examples use).
    groups: list[list[str]] = [fide_types, *([own] for own in own_types)]
    for group in groups:
        period = first
        while period <= last:
            for rating_type in group:
                fed_by = rating_type if rating_type in RATING_TYPES else "standard"
                chosen = sorted(
                    (e for e in events if e.period == period and e.rating_type == fed_by),
                    key=lambda e: (e.start_date, e.end_date, e.name),
                )
                plan.steps.append(PeriodStep(period, rating_type, tuple(chosen)))
            period = period.shift(1)
    return plan


def prepare_database(url: str, *, force: bool) -> str:
    """Make room for a new demo database at `url`; returns what was replaced ("" if nothing).

    An SQLite file that exists is refused, or deleted with `force`. A server database (PostgreSQL, MySQL) must
    be empty or hold only the schema (`ratingdb init`): the demo never drops what it did not create.
    """
    parsed = db.parse_url(url)
    backend = db.backend(url)
    if backend.in_one_file:
        name = parsed.database or ""
        if name in ("", ":memory:") or name.startswith("file:"):
            raise ConfigError(
                "the demo needs a database that outlives one command: give a file, e.g. "
                f"--db {DEFAULT_DEMO_URL}"
            )
        path = Path(name)
        if not path.exists() and not path.is_symlink():
            return ""
        if not force:
            raise ConfigError(
                f"{name} already exists: the demo builds a new database; add --force to replace it, "
                "or give another file with --db"
            )
        if not backend.holds_ratingdb(path):
            raise ConfigError(
                f"{name} is not a ratingdb database: --force replaces only a ratingdb SQLite file — "
                "give another file with --db"
            )
        for extra in ("", "-wal", "-shm", "-journal"):
            Path(name + extra).unlink(missing_ok=True)
        return name
    engine = db.make_engine(url)
    try:
        with explained(url):
            tables = set(inspect(engine).get_table_names())
            holds_data = bool(tables) and (
                not {"alembic_version", "player", "rating_list", "event"} <= tables or _has_rows(engine)
            )
    finally:
        engine.dispose()
    if holds_data:
        raise ConfigError(
            f"the database {db.display_url(url)} is not empty: the demo needs an empty database (or one "
            "just made by `ratingdb init`); --force replaces SQLite files only"
        )
    return ""


def _has_rows(engine: Engine) -> bool:
    with engine.connect() as conn:
        return any(conn.scalar(select(func.count()).select_from(t)) for t in (Player, RatingList, Event))


@dataclass(frozen=True)
class Highlight:
    """A player whose calculation shows one rule, found in the calculation record after the demo."""

    rule: str
    fide_id: int | None
    name: str
    period: str
    rating_type: str
    detail: str
    event_id: int | None = None  # the event that shows it, where one does


def highlights(session: Session) -> list[Highlight]:
    """One player per rule the seeds exercise, read from the stored calculation record (read-only)."""
    found: list[Highlight] = []
    # Standard before rapid, earliest list first, then by FIDE ID: the same choice on every engine.
    order = (RatingList.rating_type != "standard", RatingList.list_date, Player.fide_id)

    def record(
        *where: ColumnElement[bool], most_games: bool = False
    ) -> tuple[Player, RatingList, CalcPlayer] | None:
        row = session.execute(
            select(Player, RatingList, CalcPlayer)
            .join(Player, Player.id == CalcPlayer.player_id)
            .join(RatingList, RatingList.id == CalcPlayer.list_id)
            .where(*where)
            .order_by(*((CalcPlayer.n.desc(),) if most_games else ()), *order)
            .limit(1)
        ).first()
        return None if row is None else (row[0], row[1], row[2])

    def add(rule: str, player: Player, lst: RatingList, detail: str, event_id: int | None = None) -> None:
        found.append(
            Highlight(rule, player.fide_id, player.name, lst.period or "", lst.rating_type, detail, event_id)
        )

    if busy := record(CalcPlayer.k < CalcPlayer.k_base, most_games=True):
        player, lst, c = busy
        add("700 rule", player, lst, f"{c.n} games: K {c.k_base} → {c.k}")
    top = session.execute(
        select(Player, RatingList, CalcGame)
        .join(Player, Player.id == CalcGame.player_id)
        .join(RatingList, RatingList.id == CalcGame.list_id)
        .where(CalcGame.own_rating >= 2650, func.abs(CalcGame.d) > 400)
        .order_by(*order, CalcGame.d.desc())
        .limit(1)
    ).first()
    if top:
        player, lst, g = top[0], top[1], top[2]
        add(
            "2650 rule",
            player,
            lst,
            f"{g.own_rating} against {g.opponent_rating}: the real difference {g.d}, not 400",
            g.event_id,
        )
    if first := record(CalcPlayer.method == "initial"):
        player, lst, c = first
        add("first rating", player, lst, f"{c.n} pooled games → {c.new_rating}")
    fide = RatingList.rating_type.in_(RATING_TYPES)
    if floor := record(CalcPlayer.method == "change", CalcPlayer.new_rating < FLOOR, fide):
        player, lst, c = floor
        add("floor", player, lst, f"{c.ro} → {c.new_rating}: unrated")
    # A federation's own list with a lower floor keeps players FIDE's floor drops.
    if kept := record(CalcPlayer.method == "change", CalcPlayer.new_rating < FLOOR, ~fide):
        player, lst, c = kept
        own_floor = rule_set_in_force(session, lst.rating_type, Period.parse(lst.period or "")).rules.floor
        if c.new_rating is not None and c.new_rating >= own_floor:
            add(
                f"{lst.rating_type} floor", player, lst, f"{c.ro} → {c.new_rating}: rated (floor {own_floor})"
            )

    for title, player, lst, detail in _glicko2_highlights(session):
        add(title, player, lst, detail)

    # An event rated in a later period than it started in uses the ratings of the list at its start (§3):
    # show a player whose rating changed in between.
    for event in session.scalars(select(Event).order_by(Event.start_date, Event.id)):
        if Period.of(event.start_date) >= Period.parse(event.period):
            continue
        in_force = aliased(CalcPlayer)
        row = session.execute(
            select(Player, RatingList, CalcEvent.ro, in_force.ro)
            .join(Player, Player.id == CalcEvent.player_id)
            .join(RatingList, RatingList.id == CalcEvent.list_id)
            .join(
                in_force,
                (in_force.list_id == CalcEvent.list_id) & (in_force.player_id == CalcEvent.player_id),
            )
            .where(CalcEvent.event_id == event.id, CalcEvent.ro != in_force.ro)
            .order_by(*order)
            .limit(1)
        ).first()
        if row:
            add(
                "event across two periods",
                row[0],
                row[1],
                f"{event.name} ({event.start_date.isoformat()} … {event.end_date.isoformat()}) rated "
                f"with {row[2]}, the rating at its start, not {row[3]}",
            )
            break
    return found


def _glicko2_highlights(session: Session) -> list[tuple[str, Player, RatingList, str]]:
    """The Glicko-2 club list: the busiest player of October, and a rated player whose deviation widened."""
    found = []
    for title, games in (
        ("Glicko-2 period", Glicko2CalcPlayer.games > 0),
        ("Glicko-2 idle period", Glicko2CalcPlayer.games == 0),
    ):
        row = session.execute(
            select(Player, RatingList, Glicko2CalcPlayer, Glicko2Entry)
            .join(Player, Player.id == Glicko2CalcPlayer.player_id)
            .join(RatingList, RatingList.id == Glicko2CalcPlayer.list_id)
            .join(
                Glicko2Entry, (Glicko2Entry.list_id == RatingList.id) & (Glicko2Entry.player_id == Player.id)
            )
            .where(games, RatingList.period == "2025-10", RatingList.is_current.is_(True))
            .order_by(Glicko2CalcPlayer.games.desc(), Player.fide_id)
            .limit(1)
        ).first()
        if row:
            player, lst, calc, entry = row[0], row[1], row[2], row[3]
            before = f"{calc.rating_x100 / 100:.2f} (RD {calc.deviation_x100 / 100:.2f})"
            after = f"{entry.rating_x100 / 100:.2f} (RD {entry.deviation_x100 / 100:.2f})"
            played = f", {calc.games} games" if calc.games else ", no games"
            found.append((title, player, lst, f"{before} → {after}{played}"))
    return found
