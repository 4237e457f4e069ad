"""The promised Python API: what a federation's script may call, kept stable across releases.

Everything a script needs is named in `__all__` here — the functions, what they take, and the type of
everything they return, down to a calculation's games (the types load when first asked for); every
other module of ratingdb is private (its names may change between releases). The rules of the CLI
hold: a function that writes takes the session of a transaction the script opens
(`Database.transaction`) and never commits, so a script's block of work is all or nothing; a refusal
is a `RatingDbError` whose message is one sentence saying what to do. Nothing happens at import time.

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from ratingdb.errors import ConfigError, RatingDbError
from ratingdb.lazy import on_first_use
from ratingdb.rating import Adjustment, Period, RulesError

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
# functions' results), loaded when first asked for (ratingdb.lazy): importing the API costs almost nothing.
__getattr__ = on_first_use(
    __name__,
    {
        "sqlalchemy": ("Engine",),
        "sqlalchemy.orm": ("Session",),
        "ratingdb.reports.lists": (
            "Calculation", "EventRecord", "GameRecord", "HistoryLine", "ListLine", "PublishedEntry",
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


class Database:
    """An open ratingdb database: hands out transactions; `close` (or a `with` block) lets it go."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def transaction(self, *, dry_run: bool = False) -> Iterator[Session]:
        """One transaction: committed when the block ends normally, rolled back when it raises.

        With `dry_run` it is always rolled back: the block's work can be read inside it (a summary, the
        rating changes of a close) and nothing is written; the IDs handed out are handed out again.
        """
        from ratingdb import db

        with db.transaction(self.engine, dry_run=dry_run) as session:
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """One transaction that only reads, from one consistent snapshot; writers are not held up.

        It is rolled back when the block ends: use the rows and objects read inside the block.
        """
        from ratingdb import db

        with db.read_transaction(self.engine) as session:
            yield session

    def close(self) -> None:
        """Close the database's connections."""
        self.engine.dispose()

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
) -> EventImportSummary:
    """Import tournament reports (TRF files) as events, all or none, as `ratingdb import-trf` does.

    `rating_type` names the list the games count for (else the file's own time control decides);
    `period` a later period than the one of the end date (a late report); `official` marks FIDE-rated
    events. Players are found by FIDE ID, else registered.
    """
    from ratingdb.formats import read_trf
    from ratingdb.services.choices import ImportChoices
    from ratingdb.services.events import import_events

    parsed = [read_trf(Path(path)) for path in paths]
    chosen = ImportChoices(
        rating_type=rating_type, official=official, period=None if period is None else _period(period)
    )
    return import_events(session, parsed, chosen)


def import_list(
    session: Session,
    path: str | Path,
    *,
    list_date: dt.date,
    rating_type: str = "standard",
    format: str | None = None,
    replace: bool = False,
    reason: str | None = None,
) -> ListImportSummary:
    """Import a rating list file (CSV, FIDE TXT or XML; `format` or the file's contents say which) as the
    `rating_type` list dated `list_date`, as `ratingdb import-list` does.

    `replace` loads a new full list even when it leaves out many players of the list it follows.
    """
    from ratingdb.formats import detect_list_format, read_list
    from ratingdb.services.list_import import import_list as import_rows

    file = Path(path)
    detected = format or detect_list_format(file)
    rows = read_list(file, format=detected, rating_types=[rating_type])  # type: ignore[arg-type]
    return import_rows(
        session,
        rows,
        list_date=list_date,
        rating_types=[rating_type],
        source=file.name,
        replace=replace,
        reason=reason,
    )


def close_period(
    session: Session,
    period: str | Period,
    rating_type: str = "standard",
    *,
    adjustment: Adjustment | None = None,
) -> CloseSummary:
    """Rate the period's events and publish the next list with its calculation record (`close-period`).

    Closing a closed period changes nothing (the summary says `already_closed`).
    """
    from ratingdb.services.close import close_period as close

    return close(session, _period(period), rating_type, adjustment=adjustment)


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
    "calculation",
    "close_period",
    "find_player",
    "import_list",
    "import_trf",
    "open_database",
    "player_history",
    "read_list",
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
    "Session",
    "UniformSex",
]
