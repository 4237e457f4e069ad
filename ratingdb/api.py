"""The promised Python API: what a federation's script may call, kept stable across releases.

Everything a script needs is named in `__all__` here — the functions, what they take, and the type of
everything they return, down to a calculation's games (the types load when first asked for); every
other module of ratingdb is private (its names may change between releases). The rules of the CLI
hold: a function that writes takes the session of a transaction the script opens
(`Database.transaction`) and never commits, so a script's block of work is all or nothing; a use case
that spans transactions (closing periods with the copy before each close) takes the `Database` itself,
the unit of work the CLI and the desk use too (ratingdb.db.UnitOfWork). A refusal is a `RatingDbError`
whose message is one sentence saying what to do. Nothing happens at import time.

    import datetime as dt
    from ratingdb import api

    with api.open_database("sqlite:///federation.sqlite", create=True) as database:
        with database.transaction() as session:
            api.import_list(session, "standard-2025-10.csv", list_date=dt.date(2025, 10, 1))
            api.import_trf(session, ["club-championship.trf"])
        with database.transaction() as session:
            summary = api.close_period(session, "2025-10")
        with database.read() as session:
            for line in api.read_list(session, dt.date(2025, 11, 1)):
                print(line.name, line.rating)

Must not import the CLI.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from ratingdb.db import UnitOfWork
from ratingdb.errors import ConfigError, RatingDbError
from ratingdb.lazy import on_first_use
from ratingdb.rating import Adjustment, InitialMethod, KRule, Period, RulesError, RuleSet

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session

    from ratingdb.reports.lists import (
        Calculation,
        EventRecord,
        GameRecord,
        HistoryLine,
        ListLine,
        PublishedEntry,
    )
    from ratingdb.schema.models import Player
    from ratingdb.services.counts import CloseCounts
    from ratingdb.services.events import EventImportSummary, ImportedEvent, RatingDifference
    from ratingdb.services.list_import import ListImportSummary
    from ratingdb.services.matching import MatchReport, RegisterDifference, Resolution, UniformSex
    from ratingdb.services.rows import CalcPlayerRow
    from ratingdb.services.systems.base import CloseSummary, PlayerChange

# The types of what a script receives (tests/integration/test_api.py finds every one of them from the
# functions' results), loaded when first asked for (ratingdb.lazy): importing the API loads SQLAlchemy's core
# (ratingdb.db, for the unit of work), not the ORM, the models or the services.
__getattr__ = on_first_use(
    __name__,
    {
        "sqlalchemy": ("Engine",),
        "sqlalchemy.orm": ("Session",),
        "ratingdb.reports.lists": (
            "Calculation",
            "EventRecord",
            "GameRecord",
            "HistoryLine",
            "ListLine",
            "PublishedEntry",
        ),  # fmt: skip
        "ratingdb.schema.models": ("Player",),
        "ratingdb.services.counts": ("CloseCounts",),
        "ratingdb.services.events": ("EventImportSummary", "ImportedEvent", "RatingDifference"),
        "ratingdb.services.list_import": ("ListImportSummary",),
        "ratingdb.services.matching": ("MatchReport", "RegisterDifference", "Resolution", "UniformSex"),
        "ratingdb.services.rows": ("CalcPlayerRow",),
        "ratingdb.services.systems.base": ("CloseSummary", "PlayerChange"),
    },
)


class Database(UnitOfWork):
    """An open ratingdb database, the unit of work a script hands to the use cases that span transactions
    (`close_period`, `close_periods`): hands out transactions and reads (ratingdb.db.UnitOfWork, the same
    class the CLI and the desk use); `close` (or a `with` block) lets it go."""

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def open_database(url: str, *, create: bool = False) -> Database:
    """The database at `url` (sqlite:///file.sqlite, postgresql+psycopg://…, mysql+pymysql://…).

    With `create`, the schema is created or upgraded to the newest migration first (as `ratingdb init`
    does); without it, a database that is missing or not at the newest migration is refused.
    """
    from ratingdb import db

    if not create:
        db.refuse_missing_sqlite_file(url)
    engine = db.make_engine(url)
    try:
        if create:
            db.upgrade(engine)
        db.require_current_schema(engine)
    except BaseException:
        engine.dispose()
        raise
    return Database(engine)


def import_trf(
    session: Session,
    paths: Sequence[str | Path],
    *,
    rating_type: str | None = None,
    period: str | Period | None = None,
    official: bool = False,
    federation_column: str | None = None,
) -> EventImportSummary:
    """Import tournament reports (TRF files) as events, all or none, as `ratingdb import-trf` does.

    `rating_type` names the list the games count for (else the file's own time control decides);
    `period` a later period than the one of the end date (a late report); `official` marks FIDE-rated
    events; `federation_column` how the player lines' federation column is read (`clubs`, `mixed`, or
    `federations`, the default, which refuses a file whose column holds other values than FIDE codes).
    Players are found by FIDE ID, else registered.
    """
    from ratingdb.formats import read_trf
    from ratingdb.services.choices import ImportChoices
    from ratingdb.services.events import import_events

    parsed = [read_trf(Path(path)) for path in paths]
    chosen = ImportChoices(
        rating_type=rating_type,
        official=official,
        period=None if period is None else _period(period),
        federation_column=federation_column,
    )
    return import_events(session, parsed, chosen)


def import_list(
    session: Session,
    path: str | Path,
    *,
    list_date: dt.date | None = None,
    rating_type: str | None = None,
    format: str | None = None,
    update: bool = False,
    replace: bool = False,
    reason: str | None = None,
    match: Mapping[int, str | int] | None = None,
    new: Collection[int] = (),
    accept_name: Collection[int] = (),
    match_certain: bool = False,
) -> ListImportSummary:
    """Import a rating list file (CSV, FIDE TXT or XML; `format` or the file's contents say which) as the
    list dated `list_date`, as `ratingdb import-list` does (the same service).

    `rating_type` names the list's type; without it, standard, or all three types of a FIDE combined list.
    A type rated by Glicko-2 (a stored rule set) is read with its deviations and volatilities. `update`
    corrects the list in force (of `list_date`'s when given) with the file's rows: a new version, `reason`
    required. `replace` loads a new full list even when it leaves out many players of the list it follows.
    The rows refused for a decision are settled as `--match LINE=ID`, `--new LINE`, `--accept-name LINE`
    and `--match-certain` settle them: `match` {line: ID}, `new`, `accept_name` (lines), `match_certain`.
    """
    from ratingdb.services.list_files import import_list_file
    from ratingdb.services.list_matching import ListMatching

    file = Path(path)
    matching = ListMatching(
        file.name,
        matches={line: str(ident) for line, ident in (match or {}).items()},
        new=frozenset(new),
        accept_names=frozenset(accept_name),
        match_certain=match_certain,
    )
    return import_list_file(
        session, file, list_date=list_date, rating_type=rating_type, format=format, update=update,
        replace=replace, reason=reason, matching=matching,
    ).summary  # fmt: skip


def close_period(
    database: Database | Session,
    period: str | Period,
    rating_type: str = "standard",
    *,
    adjustment: Adjustment | None = None,
    dry_run: bool = False,
    keep_copies: int | None = None,
) -> CloseSummary:
    """Rate the period's events and publish the next list with its calculation record (`close-period`).

    Given the `Database`, the close is a transaction of its own (`dry_run`: rolled back, and nothing is
    copied); given a transaction's session, it is done in that transaction (a dry run is then a
    `database.transaction(dry_run=True)`). Either way, as the CLI and the desk do, a close that will
    publish on SQLite is preceded by a checked copy of the database in `<database>-backups/`, keeping the
    newest `keep_copies` (None: the RATINGDB_BACKUPS setting; 0 or unset: none). Closing a closed period
    changes nothing (the summary says `already_closed`).
    """
    from ratingdb.services.closing import close_in, close_periods

    chosen = _period(period)
    if isinstance(database, UnitOfWork):
        closed = close_periods(
            database, rating_type, [chosen], adjustment=adjustment, dry_run=dry_run, keep_copies=keep_copies
        )
        return closed[0].summary
    if dry_run:
        raise ConfigError(
            "a dry run is a transaction of its own: pass the database, or open "
            "database.transaction(dry_run=True)"
        )
    return close_in(database, chosen, rating_type, adjustment=adjustment, keep_copies=keep_copies).summary


def close_periods(
    database: Database,
    first: str | Period,
    through: str | Period,
    rating_type: str = "standard",
    *,
    dry_run: bool = False,
    keep_copies: int | None = None,
) -> list[CloseSummary]:
    """Close every period from `first` through `through`, in order, each in a transaction of its own
    (`close-period FIRST --through LAST`), with the copy before each close of `close_period`.

    A `dry_run` closes them all in one transaction that is rolled back. Interrupted (Ctrl-C), the
    periods closed before stay closed; closing them again changes nothing.
    """
    from ratingdb.services.closing import close_periods as close
    from ratingdb.services.closing import periods_through

    periods = periods_through(_period(first), _period(through))
    closed = close(database, rating_type, periods, dry_run=dry_run, keep_copies=keep_copies)
    return [c.summary for c in closed]


def read_list(
    session: Session,
    list_date: dt.date | None = None,
    rating_type: str = "standard",
    *,
    rated_only: bool = False,
) -> list[ListLine]:
    """The entries of the current list of that date (the newest list without one), best rating first."""
    from ratingdb.reports.lists import find_list, list_lines

    return list(list_lines(session, find_list(session, rating_type, list_date), rated_only=rated_only))


def find_player(session: Session, ident: str | int) -> Player:
    """A player by FIDE ID, else by national ID."""
    from ratingdb.reports.lists import find_player as find

    return find(session, str(ident))


def player_history(session: Session, player: Player, rating_type: str | None = None) -> list[HistoryLine]:
    """The player's entries on every current list, oldest first."""
    from ratingdb.reports.lists import player_history as history

    return history(session, player, rating_type)


def calculation(
    session: Session, player: Player, period: str | Period, rating_type: str = "standard"
) -> Calculation:
    """How the close of `period` computed the player's new rating: per event and per game."""
    from ratingdb.reports.lists import calculation as stored

    return stored(session, player, _period(period), rating_type)


def add_user(session: Session, name: str, role: str, password: str, *, site_name: str | None = None) -> None:
    """Add an account of the served site (`organiser`, `officer` or `admin`), as `ratingdb user add` does.

    The password is refused (a RatingDbError saying why) when it is shorter than 12 characters for an
    officer or admin (8 for an organiser), on the list of commonly used passwords, a simple pattern, or
    when it contains the account's name or `site_name` (the served site's title)."""
    from ratingdb.services.users import add_user as add

    add(session, name, role, password, site_name=site_name)


def set_password(session: Session, name: str, password: str, *, site_name: str | None = None) -> None:
    """Give an account a new password under the rules of `add_user`, as `ratingdb user reset-password`
    does: the account is unlocked and its sessions end."""
    from ratingdb.services.users import reset_password

    reset_password(session, name, password, site_name=site_name)


def reset_second_factor(session: Session, name: str) -> None:
    """Take an account's second factor away (a lost device), as `ratingdb user 2fa reset` does: its key and
    recovery codes go and its sessions end."""
    from ratingdb.services.second_factor import reset

    reset(session, name)


def _period(value: str | Period) -> Period:
    if isinstance(value, Period):
        return value
    try:
        return Period.parse(value)
    except RulesError as exc:
        raise ConfigError(str(exc)) from None


__all__ = [
    # what a script calls
    "Database",
    "add_user",
    "calculation",
    "close_period",
    "close_periods",
    "find_player",
    "import_list",
    "import_trf",
    "open_database",
    "player_history",
    "read_list",
    "reset_second_factor",
    "set_password",
    # what it passes
    "Adjustment",
    "Period",
    # what it receives
    "CalcPlayerRow",
    "Calculation",
    "CloseCounts",
    "CloseSummary",
    "Engine",
    "EventImportSummary",
    "EventRecord",
    "GameRecord",
    "HistoryLine",
    "ImportedEvent",
    "InitialMethod",
    "KRule",
    "ListImportSummary",
    "ListLine",
    "MatchReport",
    "Player",
    "PlayerChange",
    "PublishedEntry",
    "RatingDifference",
    "RatingDbError",
    "RegisterDifference",
    "Resolution",
    "RuleSet",
    "Session",
    "UniformSex",
]
