"""Read-only queries behind `list`, `player` and `calculation`: published lists and the calculation record.

Takes a Session; reads only. Never recomputes a rating: everything comes from stored lists and records.
"""

from __future__ import annotations

import bisect
import datetime as dt
from array import array
from collections import defaultdict
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, Protocol, TextIO

from sqlalchemy import CompoundSelect, Select, bindparam, func, select
from sqlalchemy.orm import Session

from ratingdb import engines
from ratingdb.calc_notes import shown_note
from ratingdb.errors import ConfigError, MissingList
from ratingdb.i18n import ENGLISH, N_, Language
from ratingdb.rating import Period, RuleSet
from ratingdb.rating.initial import InitialMethod
from ratingdb.rating.working import change_working, initial_working
from ratingdb.schema.models import (
    AuditEntry,
    CalcEvent,
    CalcGame,
    CalcPlayer,
    Event,
    EventPlayer,
    Game,
    ListEntry,
    Player,
    PlayerVersion,
    RatingList,
)
from ratingdb.services.lists import latest_list, list_version, require_list
from ratingdb.services.rows import CalcPlayerRow
from ratingdb.services.rules import rules_of_lists
from ratingdb.services.systems import systems
from ratingdb.titles import shown_name

if TYPE_CHECKING:
    from ratingdb.engines.base import Backend
    from ratingdb.formats import ListRow

ExportFormat = Literal["csv", "fide-txt"]
AnySelect = Select[*tuple[Any, ...]]


class ListLine(NamedTuple):
    """One entry of a list with the player's details (the columns of the CSV list format).

    A named tuple: a whole list is read into these, and a published site reads every list."""

    fide_id: int | None
    national_id: str | None
    name: str
    federation: str | None
    sex: str | None
    title: str | None
    birth_year: int | None
    rating: int | None
    games: int
    k: int | None
    flag: str | None
    change: int | None
    games_total: int
    reached_2400: bool
    reached_2300: bool
    player_id: int
    # Not published with the entry: the player's club as of the list's date (services.players.clubs_of),
    # from the event lines that name one; None where no file named one.
    club: str | None = None


def _player_ids_of(rating_types: Iterable[str]) -> CompoundSelect:
    """The ids of the players on a list or in an event of the given types (a subquery)."""
    types = list(rating_types)
    listed = (
        select(ListEntry.player_id)
        .join(RatingList, RatingList.id == ListEntry.list_id)
        .where(RatingList.rating_type.in_(types))
    )
    played = (
        select(EventPlayer.player_id)
        .join(Event, Event.id == EventPlayer.event_id)
        .where(Event.rating_type.in_(types))
    )
    return listed.union(played)


def players_of(session: Session, rating_types: Iterable[str]) -> list[Player]:
    """Every player on a list or in an event of the given types, by id."""
    ids = _player_ids_of(rating_types)
    return list(session.scalars(select(Player).where(Player.id.in_(ids)).order_by(Player.id)))


class PlayerLink(NamedTuple):
    """Enough of a player to link to their page: the id and the IDs the page's address is made of."""

    id: int
    fide_id: int | None
    national_id: str | None


def player_links(session: Session, rating_types: Iterable[str]) -> list[PlayerLink]:
    """The players `players_of` gives, as plain tuples (a light query: the served site reads it often)."""
    ids = _player_ids_of(rating_types)
    rows = session.execute(
        select(Player.id, Player.fide_id, Player.national_id).where(Player.id.in_(ids)).order_by(Player.id)
    )
    return [PlayerLink(*row) for row in rows]


def find_list(
    session: Session, rating_type: str, list_date: dt.date | None, version: int | None = None
) -> RatingList:
    """The current list of that date (or that version of it), or the newest current list of the type."""
    if version is not None:
        if list_date is None:
            raise ConfigError("--version needs the list's date: `ratingdb list DATE --version N`")
        found = list_version(session, rating_type, list_date, version)
        if found is None:
            raise MissingList(
                f"the {rating_type} list dated {list_date.isoformat()} has no version {version} "
                "(`ratingdb lists` shows every version)"
            )
        return found
    if list_date is not None:
        return require_list(session, rating_type, list_date)
    newest = latest_list(session, rating_type)
    if newest is None:
        raise MissingList(
            f"there is no {rating_type} list yet: import one with `ratingdb import-list` or close a period"
        )
    return newest


def clubs_of(session: Session, before: dt.date | None = None) -> dict[int, str]:
    """Every player's club, by player id: as services.players.club_of says, the club of the latest
    current event whose line names one (ending before `before` when given: a list of that date shows the
    clubs as of it, so a published list reads the same whatever is imported later). One query over the
    lines that name a club (clubs come only from files read with --federation-column clubs or mixed)."""
    query = (
        select(EventPlayer.player_id, EventPlayer.club)
        .join(Event, Event.id == EventPlayer.event_id)
        .where(EventPlayer.club.is_not(None), Event.is_current.is_(True))
        .order_by(Event.end_date, Event.id)
    )
    if before is not None:
        query = query.where(Event.end_date < before)
    # Oldest first: each player's latest event is the last written.
    return {player_id: str(club) for player_id, club in session.execute(query)}


def list_lines(
    session: Session,
    rating_list: RatingList,
    *,
    rated_only: bool = False,
    limit: int | None = None,
    with_fide_id: bool = False,
) -> Generator[ListLine, None, None]:
    """The entries of a list, best rating first, unrated last (streamed); the first `limit` only if given,
    only those published with a FIDE ID if `with_fide_id`."""
    # Names and IDs as the list published them: a later edit of the player never changes this.
    query = (
        select(
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
            ListEntry.player_id,
        )
        .join(PlayerVersion, PlayerVersion.id == ListEntry.player_version_id)
        .where(ListEntry.list_id == rating_list.id)
        .order_by(
            ListEntry.rating.is_(None), ListEntry.rating.desc(), PlayerVersion.name, ListEntry.player_id
        )
    )
    if rated_only:
        query = query.where(ListEntry.rating.is_not(None))
    if with_fide_id:
        query = query.where(PlayerVersion.fide_id.is_not(None))
    if limit is not None:
        limit = max(limit, 0)
        query = query.limit(limit)
        # The first `limit` entries all have at least the `limit`-th best rating: read from the index on
        # (list_id, rating), that bound leaves a few hundred rows to join and sort, not the whole list.
        bound = session.scalar(
            select(ListEntry.rating)
            .where(ListEntry.list_id == rating_list.id, ListEntry.rating.is_not(None))
            .order_by(ListEntry.rating.desc())
            .offset(max(limit - 1, 0))
            .limit(1)
        )
        if bound is not None:  # else fewer rated entries than `limit` (or none asked for): no bound
            query = query.where(ListEntry.rating >= bound)
    clubs = clubs_of(session, rating_list.list_date)
    result = session.execute(query.execution_options(yield_per=10_000))
    try:
        for row in result:
            # The columns are selected in the order of ListLine's fields, the club last.
            yield ListLine._make((*row, clubs.get(row.player_id)))
    finally:
        result.close()  # a server-side cursor on PostgreSQL: close it even when the reader stops early


def without_fide_id(session: Session, rating_list: RatingList) -> tuple[int, int, list[str]]:
    """How many entries of the list have no FIDE ID (as published), of how many, and the first three names."""
    missing = (
        select(PlayerVersion.name)
        .join(ListEntry, PlayerVersion.id == ListEntry.player_version_id)
        .where(ListEntry.list_id == rating_list.id, PlayerVersion.fide_id.is_(None))
    )
    count = session.scalar(select(func.count()).select_from(missing.subquery())) or 0
    names = list(session.scalars(missing.order_by(PlayerVersion.name).limit(3))) if count else []
    entries = session.scalar(select(func.count()).where(ListEntry.list_id == rating_list.id)) or 0
    return count, entries, names


def find_player(session: Session, ident: str) -> Player:
    """A player by FIDE ID, else by national ID (a merged duplicate's IDs give the player kept)."""
    from ratingdb.services.players import find_by_id  # imported here: `list` and the other reads need none

    return find_by_id(session, ident)


class HistoryLine(NamedTuple):
    """A player's entry on one list (a named tuple: a site reads the history of every player)."""

    rating_type: str
    list_date: dt.date
    origin: str
    rating: int | None
    change: int | None
    games: int
    k: int | None
    flag: str | None


def player_history(session: Session, player: Player, rating_type: str | None = None) -> list[HistoryLine]:
    """The player's entries on every current list, oldest first (withdrawn versions are not history)."""
    rows = session.connection().execute(
        _history_query(of_type=rating_type is not None), {"player": player.id, "rating_type": rating_type}
    )
    return [HistoryLine(*row) for row in rows]


@cache
def _history_query(*, of_type: bool) -> AnySelect:
    # Built once and sent as Core, its values bound at each call: a served player page asks it, and
    # building it anew, finding its compiled form by its cache key and the ORM's handling of the rows cost
    # three times what the query does (bench/RESULTS.md, issue 28, page).
    query = (
        select(
            RatingList.rating_type,
            RatingList.list_date,
            RatingList.origin,
            ListEntry.rating,
            ListEntry.change,
            ListEntry.games,
            ListEntry.k,
            ListEntry.flag,
        )
        .join(RatingList, RatingList.id == ListEntry.list_id)
        .where(ListEntry.player_id == bindparam("player"), RatingList.is_current.is_(True))
        .order_by(RatingList.rating_type, RatingList.list_date)
    )
    return query.where(RatingList.rating_type == bindparam("rating_type")) if of_type else query


class ListColumns:
    """One list version's entries as a history needs them (rating, change, games, K, flag), in columns
    of machine integers sorted by player id: a served site keeps every current list of its types so, a
    list version never changing, and a player's page finds their history by a binary search in each
    instead of a query (a fifth of a page without calculations: bench/RESULTS.md, issue 28). About 13
    bytes an entry: 6 MB for the national bench's 490,000."""

    __slots__ = ("players", "ratings", "changes", "games", "ks", "flags", "flag_values")

    def __init__(self, rows: Iterable[Sequence[Any]]) -> None:
        """`rows`: (player id, rating, change, games, K, flag) by player id."""
        players, ratings, changes, games, ks, flags = [], [], [], [], [], []
        codes: dict[str | None, int] = {None: 0}
        self.flag_values: list[str | None] = [None]
        for player_id, rating, change, played, k, flag in rows:
            players.append(player_id)
            ratings.append(rating)
            changes.append(change)
            games.append(played)
            ks.append(k)
            code = codes.get(flag)
            if code is None:
                code = codes[flag] = len(self.flag_values)
                self.flag_values.append(flag)
            flags.append(code)
        self.players, self.ratings, self.changes = array("i", players), _column(ratings), _column(changes)
        self.games, self.ks, self.flags = _column(games), _column(ks), array("B", flags)

    @property
    def size(self) -> int:
        """What the columns hold in memory, in bytes (about)."""
        columns = (self.players, self.ratings, self.changes, self.games, self.ks, self.flags)
        return sum(len(column) * column.itemsize for column in columns)

    def _index(self, player_id: int) -> int | None:
        i = bisect.bisect_left(self.players, player_id)
        return i if i < len(self.players) and self.players[i] == player_id else None

    def rating(self, player_id: int) -> int | None:
        """The player's rating on this list; None when they are unrated on it or not on it."""
        i = self._index(player_id)
        return None if i is None else _value(self.ratings, i)

    def line(self, player_id: int, rating_type: str, list_date: dt.date, origin: str) -> HistoryLine | None:
        """The player's entry on this list as a HistoryLine of it, None when they are not on it."""
        i = self._index(player_id)
        if i is None:
            return None
        return HistoryLine(
            rating_type,
            list_date,
            origin,
            _value(self.ratings, i),
            _value(self.changes, i),
            self.games[i],
            _value(self.ks, i),
            self.flag_values[self.flags[i]],
        )


# Each column type's least value, which stands for None in it (_column), by typecode: looked up at every
# history line a page reads rather than computed.
_NONE_OF: Final = {code: -(2 ** (8 * array(code).itemsize - 1)) for code in "hiq"}


def _column(values: list[int | None]) -> array[int]:
    """`values` in the narrowest machine integers (16, 32 or 64 bits) that hold them all above the least
    one, which stands for None."""
    present = [v for v in values if v is not None]
    low, high = (min(present), max(present)) if present else (0, 0)
    for code, none in _NONE_OF.items():
        if none < low and high < -none:
            return array(code, [none if v is None else v for v in values])
    raise OverflowError(f"a list entry's figure {low if low < 0 else high} is out of 64-bit range")


def _value(column: array[int], i: int) -> int | None:
    value = column[i]
    return None if value == _NONE_OF[column.typecode] else value


def list_columns(session: Session, list_id: int) -> ListColumns:
    """The entries of list version `list_id` as ListColumns (one query)."""
    return ListColumns(session.execute(_columns_query(), {"list": list_id}))


@cache
def _columns_query() -> AnySelect:
    return (
        select(
            ListEntry.player_id,
            ListEntry.rating,
            ListEntry.change,
            ListEntry.games,
            ListEntry.k,
            ListEntry.flag,
        )  # fmt: skip
        .where(ListEntry.list_id == bindparam("list"))
        .order_by(ListEntry.player_id)
    )


class CurrentList(Protocol):
    """What a history line says of its list, and its id (a site's ListVersionLine has them)."""

    @property
    def list_id(self) -> int: ...

    @property
    def rating_type(self) -> str: ...
    @property
    def list_date(self) -> dt.date: ...
    @property
    def origin(self) -> str: ...


def history_in(lists: Sequence[tuple[CurrentList, ListColumns]], player_id: int) -> list[HistoryLine]:
    """`player_history` of the player on `lists` (current lists with their columns, by type and date: the
    order of player_history), read from the columns."""
    found = []
    for lst, columns in lists:
        line = columns.line(player_id, lst.rating_type, lst.list_date, lst.origin)
        if line is not None:
            found.append(line)
    return found


def all_histories(session: Session, rating_types: Iterable[str]) -> dict[int, list[HistoryLine]]:
    """`player_history` of every player at once, keyed by player id: for whole-site output.

    The lists are read once and joined here, so the hundreds of thousands of entries carry no dates to
    convert (a third of the time on SQLite)."""
    lists = {
        lst.id: lst
        for lst in session.scalars(
            select(RatingList).where(
                RatingList.rating_type.in_(list(rating_types)), RatingList.is_current.is_(True)
            )
        )
    }
    histories: dict[int, list[HistoryLine]] = defaultdict(list)
    query = select(
        ListEntry.player_id,
        ListEntry.list_id,
        ListEntry.rating,
        ListEntry.change,
        ListEntry.games,
        ListEntry.k,
        ListEntry.flag,
    ).where(ListEntry.list_id.in_(list(lists)))
    rows = session.execute(query.execution_options(yield_per=20_000))
    for player_id, list_id, rating, change, games, k, flag in rows:
        lst = lists[list_id]
        histories[player_id].append(
            HistoryLine(lst.rating_type, lst.list_date, lst.origin, rating, change, games, k, flag)
        )
    for lines in histories.values():
        lines.sort(key=lambda h: (h.rating_type, h.list_date))
    return dict(histories)


class GameRecord(NamedTuple):
    """One game of a player's calculation."""

    round: int
    opponent: str
    opponent_fide_id: int | None
    opponent_national_id: str | None
    opponent_rating: int
    own_rating: int | None
    d: int | None
    pd_x100: int | None
    score_x100: int
    opponent_id: int
    game_id: int


@dataclass(frozen=True)
class EventRecord:
    """One event of a player's calculation: the date of the list its ratings came from, the player's
    rating then (`ro`, None when unrated), the event's figures as the close stored them (in hundredths
    where the name ends in x100) and each game."""

    event_id: int
    name: str
    start_date: dt.date
    end_date: dt.date
    ratings_from: dt.date
    ro: int | None
    rc_x100: int
    n: int
    score_x100: int
    sum_dr_x100: int | None
    k: int | None
    k_sum_dr_x100: int | None
    note: str | None
    games: list[GameRecord]


@dataclass(frozen=True)
class Calculation:
    """How the close of `period` computed one player's rating: the stored record of the player (None when
    the close rated no game of theirs), the entry it published (`entry`) and each event with its games."""

    player: Player
    rating_type: str
    period: Period
    list_date: dt.date
    record: CalcPlayerRow | None  # read as values: making objects of the model cost more than the row
    entry: PublishedEntry | None
    events: list[EventRecord]
    # The rule set the close ran under (services.rules.rules_of_lists): its write-up is in these rules' terms.
    rules: RuleSet | None = None


class PublishedEntry(NamedTuple):
    """What the list a close published says of the player: their entry's figures, read as values."""

    rating: int | None
    k: int | None
    flag: str | None
    games: int


def computed_list(session: Session, rating_type: str, period: Period) -> RatingList:
    """The list the close of `period` published; refused when that list was imported instead."""
    new_list = require_list(session, rating_type, period.published_list_date)
    if new_list.origin != "computed":
        raise MissingList(
            f"the {rating_type} list dated {new_list.list_date.isoformat()} was imported, not computed here: "
            "it has no calculation record"
        )
    return new_list


def calculation(session: Session, player: Player, period: Period, rating_type: str) -> Calculation:
    """The stored calculation of `player` in the close of `period`, per event and per game."""
    new_list = computed_list(session, rating_type, period)
    found = list_calculations(session, new_list, player=player)
    if player.id in found:
        return found[player.id]
    entry = session.get(ListEntry, (new_list.id, player.id))
    published = None if entry is None else PublishedEntry(entry.rating, entry.k, entry.flag, entry.games)
    return Calculation(player, rating_type, period, new_list.list_date, None, published, [])


def list_calculations(
    session: Session, new_list: RatingList, *, player: Player | None = None
) -> dict[int, Calculation]:
    """The calculation of every player the close that published `new_list` rated (or of `player` only),
    keyed by player id. A few queries for the whole list, so a site of every player stays fast."""
    return {pid: calc for (_, pid), calc in _calculations(session, [new_list], player).items()}


class Close(Protocol):
    """What the calculation record of a close is found by: the list it published (a RatingList, or a
    light stand-in for one that the caller already has, such as a site's ListVersionLine's fields)."""

    @property
    def id(self) -> int: ...
    @property
    def rating_type(self) -> str: ...
    @property
    def list_date(self) -> dt.date: ...
    @property
    def period(self) -> str | None: ...


def players_with_records(session: Session) -> frozenset[int]:
    """Every player who has a row in a calculation record, a game, or a Glicko-2 list's figures: a superset
    of the players for whom a player page's calculations, games not counted, Glicko-2 calculations and
    Glicko-2 figures find anything (each of those queries starts from one of these tables by the player).

    One query for the whole database, made once per data version by the served site: most players of a
    federation played in none of the site's periods (six in seven of the national bench's), and for them
    those five queries, each answering nothing, were half of what their page cost (bench/RESULTS.md,
    issue 28, page).
    """
    sides = [
        select(CalcPlayer.player_id),
        select(CalcGame.player_id),
        select(Game.white_id),
        select(Game.black_id).where(Game.black_id.is_not(None)),
    ]
    for system in systems():  # a system's own figures and record (Glicko-2's)
        sides += [select(m.player_id) for m in (system.entry_model, system.record_model) if m is not None]
    return frozenset(session.scalars(sides[0].union(*sides[1:])))


def player_calculations_in(session: Session, player: Player, lists: Sequence[Close]) -> list[Calculation]:
    """The player's calculation in each close that published one of `lists` and rated them, in the order
    of `lists`: the same four queries for all of them as `list_calculations` makes for one (a player's
    page asks every close of the site, most often two dozen)."""
    found = _calculations(session, lists, player)
    return [found[key] for lst in lists for key in [(lst.id, player.id)] if key in found]


def _calculations(
    session: Session, lists: Sequence[Close], player: Player | None
) -> dict[tuple[int, int], Calculation]:
    """The calculations of the closes that published `lists` (of every player they rated, or of `player`),
    keyed by (list id, player id)."""
    for new_list in lists:
        if new_list.period is None:
            raise MissingList(
                f"the {new_list.rating_type} list dated {new_list.list_date.isoformat()} was imported, not "
                "computed here: it has no calculation record"
            )
    if not lists:
        return {}
    by_id = {lst.id: lst for lst in lists}
    periods = {lst.id: Period.parse(lst.period or "") for lst in lists}

    one_list, one_player = len(lists) == 1, player is not None
    backend = engines.of(session)
    queries = _calculation_queries(one_list, one_player, backend)
    params = {"list": lists[0].id, "lists": list(by_id), "player": None if player is None else player.id}
    # Each record with the entry the close published for it (none for a player it dropped): one statement,
    # read as values on the connection.
    records: dict[tuple[int, int], CalcPlayerRow] = {}
    entries: dict[tuple[int, int], PublishedEntry] = {}
    width = len(CalcPlayerRow._fields)
    for row in session.connection().execute(queries.records, params):
        record = CalcPlayerRow._make(row[:width])
        key = (record.list_id, record.player_id)
        records[key] = record
        if row[width]:  # the list published an entry for the player
            entries[key] = PublishedEntry._make(row[width + 1 :])
    if player is not None and not records:
        # A player's page asks every close, and most often the close did not rate them: no record and no
        # game in its calculation record (the key's first columns: an index look-up) ends it here.
        if session.scalar(queries.in_record, params) is None:
            return {}
    games: dict[tuple[int, int, int], list[GameRecord]] = defaultdict(list)
    rows = session.connection().execute(queries.games, params)
    for list_id, player_id, event_id, *fields in rows if player is None else rows.all():
        games[(list_id, player_id, event_id)].append(GameRecord(*fields))
    events: dict[tuple[int, int], list[EventRecord]] = defaultdict(list)
    # Columns, not CalcEvent objects: a player's page reads two dozen of them, and making the objects cost
    # more than reading the rows (bench/RESULTS.md, issue 28); on the connection, without the ORM's steps.
    for (
        list_id,
        player_id,
        event_id,
        name,
        start,
        end,
        ratings_from,
        ro,
        rc,
        n,
        score,
        dr,
        k,
        k_dr,
        note,
    ) in session.connection().execute(queries.events, params):
        events[(list_id, player_id)].append(
            EventRecord(
                event_id,
                name,
                start,
                end,
                ratings_from,
                ro,
                rc,
                n,
                score,
                dr,
                k,
                k_dr,
                note,
                games.get((list_id, player_id, event_id), []),
            )  # fmt: skip
        )
    keys = sorted(records.keys() | events.keys())
    rules = rules_of_lists(session, {list_id for list_id, _ in keys})
    if player is not None:
        players = {player.id: player}
    else:
        players = {
            p.id: p
            for p in session.scalars(
                select(Player).where(
                    Player.id.in_(
                        _only(
                            select(CalcPlayer.player_id), CalcPlayer.list_id, None, one_list, backend
                        ).union(
                            _only(select(CalcEvent.player_id), CalcEvent.list_id, None, one_list, backend)
                        )
                    )
                ),
                params,
            )
        }
    return {
        (list_id, pid): Calculation(
            players[pid],
            by_id[list_id].rating_type,
            periods[list_id],
            by_id[list_id].list_date,
            records.get((list_id, pid)),
            entries.get((list_id, pid)),
            events.get((list_id, pid), []),
            rules.get(list_id),
        )
        for list_id, pid in keys
    }


class _CalculationQueries(NamedTuple):
    records: AnySelect  # each record with its list entry
    in_record: AnySelect
    games: AnySelect
    events: AnySelect


def _only(
    query: AnySelect, list_column: Any, player_column: Any, one_list: bool, backend: Backend
) -> AnySelect:
    """`query` of the lists bound as `list` (one: `=`, the query the whole-list output has always sent)
    or `lists` (several: as the engine takes a list, Backend.among_bound), and of the player bound as
    `player` when `player_column` is given."""
    query = query.where(
        list_column == bindparam("list") if one_list else backend.among_bound(list_column, "lists")
    )
    return query if player_column is None else query.where(player_column == bindparam("player"))


@cache
def _calculation_queries(one_list: bool, one_player: bool, backend: Backend) -> _CalculationQueries:
    """The queries of `_calculations`, built once and given their values at each call: a served player
    page asks them, and building them anew and finding their compiled forms by their cache keys cost more
    than the queries themselves (bench/RESULTS.md, issue 28, page). The games of whole lists are read in
    batches (on PostgreSQL a server-side cursor); one player's, about 170 at most, at once: the cursor's
    three more round trips were a tenth of a served player page there."""

    def only(query: AnySelect, list_column: Any, player_column: Any) -> AnySelect:
        return _only(query, list_column, player_column if one_player else None, one_list, backend)

    opponent = Player.__table__.alias("opponent")
    used = RatingList.__table__.alias("used")
    return _CalculationQueries(
        records=only(
            select(
                *(CalcPlayer.__table__.c[name] for name in CalcPlayerRow._fields),
                ListEntry.list_id.is_not(None),
                *(ListEntry.__table__.c[name] for name in PublishedEntry._fields),
            ).outerjoin(
                ListEntry,
                (ListEntry.list_id == CalcPlayer.list_id) & (ListEntry.player_id == CalcPlayer.player_id),
            ),
            CalcPlayer.list_id,
            CalcPlayer.player_id,
        ),
        in_record=only(select(CalcGame.game_id), CalcGame.list_id, CalcGame.player_id).limit(1),
        games=only(
            select(
                CalcGame.list_id,
                CalcGame.player_id,
                CalcGame.event_id,
                Game.round,
                opponent.c.name,
                opponent.c.fide_id,
                opponent.c.national_id,
                CalcGame.opponent_rating,
                CalcGame.own_rating,
                CalcGame.d,
                CalcGame.pd_x100,
                CalcGame.score_x100,
                CalcGame.opponent_id,
                CalcGame.game_id,
            )
            .join(Game, Game.id == CalcGame.game_id)
            .join(opponent, opponent.c.id == CalcGame.opponent_id)
            .order_by(CalcGame.list_id, CalcGame.player_id, CalcGame.event_id, Game.round, Game.id),
            CalcGame.list_id,
            CalcGame.player_id,
        ).execution_options(**({} if one_player else {"yield_per": 20_000})),
        events=only(
            select(
                CalcEvent.list_id,
                CalcEvent.player_id,
                CalcEvent.event_id,
                shown_name(),
                Event.start_date,
                Event.end_date,
                used.c.list_date,  # as EventRecord's fields
                CalcEvent.ro,
                CalcEvent.rc_x100,
                CalcEvent.n,
                CalcEvent.score_x100,
                CalcEvent.sum_dr_x100,
                CalcEvent.k,
                CalcEvent.k_sum_dr_x100,
                CalcEvent.note,
            )  # fmt: skip
            .join(Event, Event.id == CalcEvent.event_id)
            .join(used, used.c.id == CalcEvent.ratings_list_id)
            .order_by(CalcEvent.list_id, CalcEvent.player_id, Event.start_date, Event.id),
            CalcEvent.list_id,
            CalcEvent.player_id,
        ),
    )


# --- the calculation as sentences (the `calculation` command and the published site) ----------------------


def points(x100: int | None) -> str:
    """Hundredths as points with two decimals: 326 → 3.26, -51 → -0.51 (exact, no float)."""
    if x100 is None:
        return "—"
    whole, cents = divmod(abs(x100), 100)
    return f"{'-' if x100 < 0 else ''}{whole}.{cents:02d}"


def signed_points(x100: int | None) -> str:
    """Hundredths as points with a sign: 326 → +3.26, 0 → +0.00."""
    if x100 is None:
        return "—"
    return points(x100) if x100 < 0 else "+" + points(x100)


_ROUNDINGS: Final = {
    "half_away": N_("rounded once, half away from zero, §8.3.4"),
    "down": N_("rounded once, down"),
    "up": N_("rounded once, up"),
}
_INITIAL_METHODS: Final = {
    "fide-2024": N_("§8.2.2, with two hypothetical draws against 1800"),
    "fide-2022": N_("FIDE's 2022 method: 20 per half point above half the points, else dp"),
    "fixed": N_("the rule set's start rating"),
}


def calculation_summary(calc: Calculation, lang: Language = ENGLISH) -> list[str]:
    """How the new entry was obtained, in the sentences `ratingdb calculation` prints under its heading
    (in English; a page passes its language, whose catalogue translates them: ratingdb.i18n). The
    arithmetic is the rule set's that computed it (rating.working): evaluated, it gives the published
    figures."""
    _, pts = lang.gettext, lang.hundredths
    rec, entry = calc.record, calc.entry
    if rec is None:
        rating = _("unrated") if entry is None or entry.rating is None else entry.rating
        return [_("No rated games in this period; on the new list: %(rating)s.") % {"rating": rating}]
    lines: list[str] = []
    mark = lang.decimal_mark
    if rec.method == "change":
        k_note = f"K {rec.k_base}" + (
            _(" → %(k)s by the 700 rule (%(n)s games)") % {"k": rec.k, "n": rec.n}
            if rec.k != rec.k_base
            else ""
        )
        rounding = "half_away" if calc.rules is None else calc.rules.rounding
        shown = change_working(
            k=rec.k or 0, sum_dr_x100=rec.sum_dr_x100 or 0, k_sum_dr_x100=rec.k_sum_dr_x100 or 0,
            change=rec.change or 0, ro=rec.ro or 0, sum_name=_("Σ(score − PD)"),
        ).lines(mark)  # fmt: skip
        lines.append(
            _("Ro %(ro)s, %(k_note)s; %(n)s games; %(change)s (%(rounding)s); %(new)s")
            % {
                "ro": rec.ro,
                "k_note": k_note,
                "n": rec.n,
                "change": shown[0],
                "rounding": _(_ROUNDINGS[rounding]),
                "new": shown[1],
            }
        )
    else:
        outcome = (
            _("first rating %(rating)s") % {"rating": rec.new_rating}
            if rec.new_rating is not None
            else _("no rating yet")
        )
        method: InitialMethod | None = None if calc.rules is None else calc.rules.initial
        if method is None:  # an older list whose rule set is no longer known: the figures, no formula
            lines.append(
                _(
                    "Unrated: %(n)s pooled games, Σ opponents %(sum)s, score %(score)s, p = %(p)s, "
                    "dp = %(dp)s → "
                )
                % {
                    "n": rec.n,
                    "sum": rec.opponent_sum,
                    "score": pts(rec.score_x100),
                    "p": pts(rec.p_x100),
                    "dp": rec.dp,
                }
                + outcome
            )
        else:
            working = initial_working(
                method, n=rec.n, opponent_sum=rec.opponent_sum or 0, score_x100=rec.score_x100,
                p_x100=rec.p_x100, dp=rec.dp,
            )  # fmt: skip
            steps = "; ".join(working.lines(mark))
            lines.append(
                _("Unrated: %(n)s pooled games (%(method)s): %(working)s; ")
                % {"n": rec.n, "method": _(_INITIAL_METHODS[method.name]), "working": steps}
                + outcome
                if steps
                else _("Unrated: %(n)s pooled games (%(method)s) → ")
                % {"n": rec.n, "method": _(_INITIAL_METHODS[method.name])}
                + outcome
            )
    if rec.note:
        lines.append(_("Note: %(note)s") % {"note": shown_note(rec.note, lang)})
    if entry is not None:
        lines.append(
            _("New list: rating %(rating)s, K %(k)s, flag %(flag)s, games %(games)s")
            % {
                "rating": _("unrated") if entry.rating is None else entry.rating,
                "k": entry.k or "—",
                "flag": entry.flag or "—",
                "games": entry.games,
            }
        )
    return lines


def event_summary(ev: EventRecord, lang: Language = ENGLISH) -> str:
    """One event's line of the calculation (Ro, Rc, n, score, Σ, K, K × Σ), in `lang`."""
    pts = lang.hundredths
    return lang.gettext(
        "Ro %(ro)s, Rc %(rc)s, n %(n)s, score %(score)s, Σ(score − PD) %(sum)s, K %(k)s, K × Σ %(k_sum)s"
    ) % {
        "ro": ev.ro if ev.ro is not None else "—",
        "rc": pts(ev.rc_x100),
        "n": ev.n,
        "score": pts(ev.score_x100),
        "sum": pts(ev.sum_dr_x100, signed=True),
        "k": ev.k or "—",
        "k_sum": pts(ev.k_sum_dr_x100, signed=True),
    }


# --- list files (the `list` command's CSV and FIDE text, and the site's downloads) -------------------------


def write_list_file(
    lines: Iterable[ListLine], out: TextIO, fmt: ExportFormat, rating_type: str, list_date: dt.date
) -> None:
    """Write entries as the ratingdb CSV list or FIDE fixed-width text; both re-import to the same entries."""
    # The file formats are imported here, not with the module: `list` as a table and the other reads
    # do not load them.
    from ratingdb.formats import write_csv_list, write_fide_txt

    rows = (as_list_row(i, line, rating_type) for i, line in enumerate(lines, 2))
    if fmt == "csv":
        write_csv_list(rows, out, rating_type)
    else:
        write_fide_txt(rows, out, rating_type, list_date)


def as_list_row(line_no: int, line: ListLine, rating_type: str) -> ListRow:
    """A list entry as a row of the list file formats."""
    from ratingdb.formats import ListRating, ListRow, as_sex

    return ListRow(
        line=line_no,
        fide_id=line.fide_id,
        national_id=line.national_id,
        name=line.name,
        federation=line.federation,
        sex=as_sex(line.sex),
        title=line.title,
        birth_year=line.birth_year,
        flag=line.flag,
        ratings={
            rating_type: ListRating(
                rating=line.rating,
                games=line.games,
                k=line.k,
                games_total=line.games_total,
                reached_2400=line.reached_2400,
                reached_2300=line.reached_2300,
            )
        },
    )


@dataclass(frozen=True)
class ListVersionLine:
    list_id: int
    rating_type: str
    list_date: dt.date
    version: int
    state: str  # current | withdrawn
    origin: str
    period: str | None
    rules: str | None
    source: str | None
    players: int
    withdrawn_at: dt.datetime | None
    withdrawn_reason: str | None


def list_versions(session: Session, rating_type: str | None = None) -> list[ListVersionLine]:
    """Every version of every list, newest date first, with why a withdrawn one was withdrawn."""
    # Counted in one pass over the entries rather than once a list: the planner of a server that has not
    # gathered statistics since the newest lists were written scanned the whole table for each list
    # (PostgreSQL: 1.4 s for 26 lists at national; bench/RESULTS.md, issue 28, "threads").
    counted = select(ListEntry.list_id, func.count().label("players")).group_by(ListEntry.list_id).subquery()
    players = func.coalesce(counted.c.players, 0)
    query = (
        select(
            RatingList.id,
            RatingList.rating_type,
            RatingList.list_date,
            RatingList.version,
            RatingList.is_current,
            RatingList.origin,
            RatingList.period,
            RatingList.rules,
            RatingList.source,
            players,
            AuditEntry.created_at,
            AuditEntry.reason,
        )
        .outerjoin(AuditEntry, AuditEntry.id == RatingList.withdrawn_by)
        .outerjoin(counted, counted.c.list_id == RatingList.id)
        .order_by(RatingList.rating_type, RatingList.list_date.desc(), RatingList.version.desc())
    )
    if rating_type is not None:
        query = query.where(RatingList.rating_type == rating_type)
    return [
        ListVersionLine(
            lid, kind, date, version, "current" if current else "withdrawn", origin, period, rules, source,
            count, withdrawn_at, reason,
        )
        for lid, kind, date, version, current, origin, period, rules, source, count, withdrawn_at, reason
        in session.execute(query)
    ]  # fmt: skip
