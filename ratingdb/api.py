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

    from ratingdb.bundle.archive import Tampered
    from ratingdb.bundle.compare import ChangedPlayer, Comparison
    from ratingdb.bundle.signing import SignatureCheck
    from ratingdb.bundle.verify import PlayerDifference, Verification
    from ratingdb.rating.integrity import IntegrityThresholds, Signal
    from ratingdb.reports.lists import (
        Calculation,
        EventRecord,
        GameRecord,
        HistoryLine,
        ListLine,
        PublishedEntry,
    )
    from ratingdb.schema.models import Notice, Player, UserContact
    from ratingdb.services.bundle import BundleFile
    from ratingdb.services.bundle_keys import CreatedKey
    from ratingdb.services.corrections import Replacement
    from ratingdb.services.counts import CloseCounts
    from ratingdb.services.events import EventImportSummary, ImportedEvent, RatingDifference
    from ratingdb.services.federation import Numbering, Renumbered
    from ratingdb.services.integrity import Dossier, DossierGame, EventRisk, Review, ReviewOutcome, RiskScreen
    from ratingdb.services.list_import import ListImportSummary
    from ratingdb.services.matching import MatchReport, RegisterDifference, Resolution, UniformSex
    from ratingdb.services.notices import SendReport
    from ratingdb.services.rows import CalcPlayerRow
    from ratingdb.services.systems.base import CloseSummary, ExcludedEvent, PlayerChange

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
        "ratingdb.services.corrections": ("Replacement",),
        "ratingdb.bundle.archive": ("Tampered",),
        "ratingdb.bundle.compare": ("ChangedPlayer", "Comparison"),
        "ratingdb.bundle.signing": ("SignatureCheck",),
        "ratingdb.bundle.verify": ("PlayerDifference", "Verification"),
        "ratingdb.services.bundle": ("BundleFile",),
        "ratingdb.services.bundle_keys": ("CreatedKey",),
        "ratingdb.schema.models": ("Notice", "Player", "UserContact"),
        "ratingdb.services.counts": ("CloseCounts",),
        "ratingdb.services.events": ("EventImportSummary", "ImportedEvent", "RatingDifference"),
        "ratingdb.services.federation": ("Numbering", "Renumbered"),
        "ratingdb.services.list_import": ("ListImportSummary",),
        "ratingdb.services.matching": ("MatchReport", "RegisterDifference", "Resolution", "UniformSex"),
        "ratingdb.services.notices": ("SendReport",),
        "ratingdb.services.rows": ("CalcPlayerRow",),
        "ratingdb.services.systems.base": ("CloseSummary", "ExcludedEvent", "PlayerChange"),
        "ratingdb.rating.integrity": ("IntegrityThresholds", "Signal"),
        "ratingdb.services.integrity": (
            "Dossier",
            "DossierGame",
            "EventRisk",
            "Review",
            "ReviewOutcome",
            "RiskScreen",
        ),
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


# A line of a file a matching choice names: its starting rank (one file) or (file name, rank).
Line = int | tuple[str, int]


def import_trf(
    session: Session,
    paths: Sequence[str | Path],
    *,
    rating_type: str | None = None,
    type_override: bool = False,
    period: str | Period | None = None,
    closing_days: int | None = None,
    official: bool = False,
    distinct_event: bool = False,
    section: str | None = None,
    id_field: str | None = None,
    federation_column: str | None = None,
    match: Mapping[Line, str | int] | None = None,
    new: Collection[Line] = (),
    accept_name: Collection[Line] = (),
    drop: Collection[Line] = (),
) -> EventImportSummary:
    """Import tournament reports (TRF files) as events, all or none, as `ratingdb import-trf` does, with
    each of its choices (the same service).

    `rating_type` names the list the games count for (else the file's own time control decides), and
    `type_override` keeps it where the time control says another; `period` a later period than the one
    of the end date (a late report); `closing_days` the days before the list date an event must end by
    (else the federation's); `official` marks FIDE-rated events; `distinct_event` imports a tournament
    whose name and start date a stored event has as a tournament of its own, and `section` as a section
    of that congress; `id_field` what the player lines' ID column holds (`fide`, the default, or
    `national`); `federation_column` how their federation column is read (`clubs`, `mixed`, or
    `federations`, the default, which refuses a file whose column holds other values than FIDE codes).
    A line refused for a decision is settled as `--match`, `--new`, `--accept-name` and `--drop` settle
    it: `match` {line: ID of the registered player}, `new`, `accept_name` and `drop` (lines); a line is
    its starting rank, or (file name, rank) when several files are given.
    """
    from ratingdb.formats import read_trf
    from ratingdb.services.events import import_events
    from ratingdb.services.submissions import script_choices

    files = [Path(path) for path in paths]
    parsed = [read_trf(file) for file in files]
    chosen = script_choices(
        [f.name for f in files], rating_type=rating_type, type_override=type_override, period=_late(period),
        closing_days=closing_days, official=official, distinct_event=distinct_event, section=section,
        id_field=id_field, federation_column=federation_column, match=match, new=new,
        accept_name=accept_name, drop=drop,
    )  # fmt: skip
    return import_events(session, parsed, chosen)


def replace_event(
    session: Session,
    event_id: int,
    path: str | Path,
    *,
    reason: str | None = None,
    rating_type: str | None = None,
    type_override: bool | None = None,
    period: str | Period | None = None,
    closing_days: int | None = None,
    official: bool | None = None,
    distinct_event: bool | None = None,
    section: str | None = None,
    id_field: str | None = None,
    federation_column: str | None = None,
    match: Mapping[int, str | int] | None = None,
    new: Collection[int] = (),
    accept_name: Collection[int] = (),
    drop: Collection[int] = (),
) -> Replacement:
    """Replace event `event_id` of an open period with the corrected file at `path`, as `ratingdb
    replace-event` does (the same service): the event is kept, withdrawn, and the file becomes its new
    version. The file is read with the choices the event was imported with, except those given here
    (each as `import_trf`'s; None or empty: as imported); a line named by `match`, `new`, `accept_name`
    or `drop` replaces the choice stored for it."""
    from ratingdb.formats import read_trf
    from ratingdb.services.corrections import replace_event as replace
    from ratingdb.services.submissions import script_choices

    file = Path(path)
    chosen = script_choices(
        [file.name], rating_type=rating_type, type_override=type_override, period=_late(period),
        closing_days=closing_days, official=official, distinct_event=distinct_event, section=section,
        id_field=id_field, federation_column=federation_column, match=match, new=new,
        accept_name=accept_name, drop=drop,
    )  # fmt: skip
    return replace(session, event_id, read_trf(file), reason=reason, choices=chosen)


def accept_submission(
    session: Session,
    submission_id: int,
    *,
    rating_type: str | None = None,
    type_override: bool = False,
    period: str | Period | None = None,
    closing_days: int | None = None,
    official: bool = False,
    distinct_event: bool = False,
    section: str | None = None,
    id_field: str | None = None,
    federation_column: str | None = None,
    match: Mapping[int, str | int] | None = None,
    new: Collection[int] = (),
    accept_name: Collection[int] = (),
    drop: Collection[int] = (),
) -> int:
    """Accept a file an organiser sent in through the site and import it, as `ratingdb submission accept`
    does (the same service), with `import_trf`'s choices (`rating_type`: the organiser's unless given);
    the ID of the event it became."""
    from ratingdb.services.submissions import accept, script_choices

    chosen = script_choices(
        [], rating_type=rating_type, type_override=type_override, period=_late(period),
        closing_days=closing_days, official=official, distinct_event=distinct_event, section=section,
        id_field=id_field, federation_column=federation_column, match=match, new=new,
        accept_name=accept_name, drop=drop,
    )  # fmt: skip
    event_id = accept(session, None, submission_id, chosen).event_id
    assert event_id is not None  # an accepted submission is linked to its event
    return event_id


def replace_event_with_submission(
    session: Session,
    submission_id: int,
    event_id: int,
    *,
    reason: str | None = None,
    id_field: str | None = None,
    match: Mapping[int, str | int] | None = None,
    new: Collection[int] = (),
    accept_name: Collection[int] = (),
    drop: Collection[int] = (),
    undo: Collection[int] = (),
    official: bool | None = None,
    type_override: bool | None = None,
    distinct_event: bool | None = None,
    rating_type: str | None = None,
    period: str | Period | None = None,
    closing_days: int | None = None,
    section: str | None = None,
    federation_column: str | None = None,
) -> Replacement:
    """Replace event `event_id` with the file of submission `submission_id` and accept the submission as
    the event's new version, as `ratingdb submission replace ID EVENT` does (the same service).

    The file is read with the choices the event was imported with, except those given: `id_field`
    (fide|national), the lines by starting rank as `--match RANK=ID` (`match` {rank: ID}), `--new`,
    `--accept-name` and `--drop` settle them, and `undo` (ranks) takes a stored line choice back without
    another (the line is matched by its ID and name); a line given a choice loses its stored one. `official`,
    `type_override` and `distinct_event`: True or False switch them, None keeps the event's; `rating_type`
    (a correction keeps the event's: another is refused), `period`, `closing_days`, `section` ("" takes a
    stored one away) and `federation_column`, as the options of those names, None keeping the event's.
    `reason` is kept in the audit log. A dry run is `database.transaction(dry_run=True)`.
    """
    from ratingdb.services.choices import ImportChoices
    from ratingdb.services.submissions import check_id_field, file_settings, replace_with

    check_id_field(id_field)
    # A malformed type, closing days or federation column is refused in one sentence, as the desk's.
    file_settings(rating_type=rating_type, closing_days=closing_days, federation_column=federation_column)

    twice = sorted(_repeated([list(match or {}), undo, new, accept_name, drop]))
    if twice:
        raise ConfigError(f"rank {twice[0]} is given two choices: give one")
    made = ImportChoices(
        id_field=id_field,
        matches={(None, rank): str(ident) for rank, ident in (match or {}).items()} or None,
        new=frozenset((None, rank) for rank in new) or None,
        accept_names=frozenset((None, rank) for rank in accept_name) or None,
        drops=frozenset((None, rank) for rank in drop) or None,
        cleared=frozenset((None, rank) for rank in undo) or None,
        official=official,
        type_override=type_override,
        distinct=distinct_event,
        rating_type=rating_type,
        period=None if period is None else _period(period),
        closing_days=closing_days,
        section=section,
        federation_column=federation_column,
    )
    return replace_with(session, None, submission_id, event_id, made, reason)


def _repeated(groups: Sequence[Collection[int]]) -> set[int]:
    seen: set[int] = set()
    twice: set[int] = set()
    for group in groups:
        twice |= seen & set(group)
        seen |= set(group)
    return twice


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


def _late(value: str | Period | None) -> str | None:
    """A late report's period as the services read it (YYYY-MM), or None."""
    return None if value is None else str(_period(value))


def federation_numbering(session: Session) -> Numbering:
    """How ratingdb numbers the players it registers without any ID, and the pattern of the federation's
    own national IDs (`ratingdb federation show`)."""
    from ratingdb.services.federation import numbering

    return numbering(session)


def set_federation_numbering(
    session: Session,
    *,
    reason: str,
    mode: str | None = None,
    start: int | None = None,
    prefix: str | None = None,
    pattern: str | None = None,
) -> Numbering:
    """Set the numbering (`mode` numbers | prefix | none, its `start` or `prefix`) and the `pattern` of the
    federation's own national IDs (a regular expression; "" removes it); only what is given changes;
    audited with `reason` (`ratingdb federation set`). The numbering as it now is."""
    from ratingdb.services.federation import set_numbering

    return set_numbering(session, mode=mode, start=start, prefix=prefix, pattern=pattern, reason=reason)[1]


def renumber_national_ids(session: Session, low: int, high: int, *, reason: str) -> list[Renumbered]:
    """Give the players whose national IDs are the numbers `low` to `high` (made up by ratingdb) new ones
    by the federation's numbering, each old number kept so old files still match; audited with `reason`
    (`ratingdb federation renumber`)."""
    from ratingdb.services.federation import renumber

    return renumber(session, low=low, high=high, reason=reason)


def risk_screen(
    session: Session,
    period: str | Period | None = None,
    *,
    rating_type: str = "standard",
    event_id: int | None = None,
) -> RiskScreen:
    """The integrity screen (`report risk`) of every event of `period` and `rating_type`, or of event
    `event_id`: each event's level and signals, and the officer's decision. A screen, not a verdict."""
    from ratingdb.services.integrity import screen_events

    if (period is None) == (event_id is None):
        raise ConfigError("give a period or an event_id (one of them)")
    return screen_events(
        session, rating_type, period=None if period is None else _period(period), event_id=event_id
    )


def risk_dossier(session: Session, event_id: int) -> Dossier:
    """The screen of one event with all its games (`report risk --event ID --format json`); `document()`
    gives it as plain data for FIDE's Tournament Investigation Form."""
    from ratingdb.services.integrity import dossier

    return dossier(session, event_id)


def review_event(session: Session, event_id: int, decision: str, reason: str) -> ReviewOutcome:
    """Record the officer's decision on an event (`event review`): "rate", or "exclude" from rating, and
    why; audited; refused in a closed period (reopen it first)."""
    from ratingdb.services.integrity import review_event as review

    return review(session, event_id, decision, reason)
def list_bundle(
    session: Session,
    list_date: dt.date,
    rating_type: str = "standard",
    *,
    version: int | None = None,
    title: str = "",
    key_file: Path | str | None = None,
) -> BundleFile:
    """The bundle of a computed list (its current version unless `version`), as `ratingdb list bundle`
    writes it (docs/reference/bundle.md): `BundleFile.data` is the zip. Signed when the federation has a
    key (the file `create_signing_key` wrote, or `key_file`)."""
    from ratingdb.services.bundle import list_bundle as bundle
    from ratingdb.services.bundle_keys import signer

    sign = signer(session, None if key_file is None else Path(key_file))
    return bundle(session, rating_type, list_date, version=version, site_title=title, sign=sign)


def verify_bundle(data: bytes, *, public_key: str | None = None) -> Verification:
    """Recompute a bundled list from the bundle alone (no database) as `ratingdb verify` does: the members'
    hashes, the signature (against `public_key`, base64, when given) and every entry and row of the
    calculation record; `Verification.ok`, or what differs, by player."""
    from ratingdb.bundle.archive import read_bundle
    from ratingdb.bundle.signing import public_key_text
    from ratingdb.bundle.verify import verify

    return verify(read_bundle(data), None if public_key is None else public_key_text(public_key))


def compare_bundles(new: bytes, old: bytes) -> Comparison:
    """Why two bundles of a list differ (`ratingdb verify NEW --against OLD`): per player whose entry
    changed, the inputs that differ."""
    from ratingdb.bundle.archive import read_bundle
    from ratingdb.bundle.compare import compare

    return compare(read_bundle(new, "the new bundle"), read_bundle(old, "the old bundle"))


def create_signing_key(
    session: Session, path: Path | str, *, replace: bool = False, reason: str | None = None
) -> CreatedKey:
    """Make the federation's key for signing list bundles, as `ratingdb keys create` does: the private key
    to the new file `path` (readable by its owner only), the public key into the database."""
    from ratingdb.services.bundle_keys import create_key

    return create_key(session, Path(path), replace=replace, reason=reason)
def set_contact(
    session: Session,
    username: str,
    email: str | None = None,
    *,
    language: str | None = None,
    files_waiting: str | None = None,
) -> UserContact | None:
    """Where and how the served site's account `username` hears by email (`ratingdb user contact`): its
    address (`""` takes it away: no notices), the notices' language (en, de, fr), and for officers and
    admins when they hear of files waiting (at_once, daily, never); what is None stays. None: no address."""
    from ratingdb.services.notices import set_contact as set_it
    from ratingdb.services.users import find_user

    return set_it(
        session, find_user(session, username), email, language=language, files_waiting=files_waiting
    )


def send_notices(
    database: Database,
    *,
    smtp_url: str,
    mail_from: str,
    public_url: str,
    title: str = "Rating lists",
    every_waiting: bool = False,
) -> SendReport:
    """Send the email notices that are due through the SMTP server `smtp_url` (`ratingdb notices send`;
    docs/operations/email.md has the URL's forms), each in transactions of its own; `every_waiting` also
    sends those waiting out a retry's wait (`--now`)."""
    from ratingdb.services.notices import notice_settings, send_due

    settings = notice_settings(smtp_url, mail_from, public_url, title)
    if settings is None:
        raise ConfigError("no SMTP server is given — give smtp_url, e.g. smtp://127.0.0.1:25")
    return send_due(database, settings, every_waiting=every_waiting)


def list_notices(session: Session, status: str | None = None, limit: int = 50) -> list[Notice]:
    """The newest email notices, of `status` (waiting, sent, failed) if given (`ratingdb notices list`)."""
    from ratingdb.services.notices import notices

    return notices(session, status, limit)
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
    "accept_submission",
    "add_user",
    "calculation",
    "close_period",
    "close_periods",
    "federation_numbering",
    "compare_bundles",
    "create_signing_key",
    "find_player",
    "import_list",
    "import_trf",
    "list_bundle",
    "open_database",
    "player_history",
    "read_list",
    "renumber_national_ids",
    "replace_event",
    "replace_event_with_submission",
    "set_federation_numbering",
    "review_event",
    "risk_dossier",
    "risk_screen",
    "verify_bundle",
    "list_notices",
    "open_database",
    "player_history",
    "read_list",
    "send_notices",
    "set_contact",
    "reset_second_factor",
    "set_password",
    # what it passes
    "Adjustment",
    "Period",
    # what it receives
    "BundleFile",
    "ChangedPlayer",
    "Comparison",
    "CreatedKey",
    "PlayerDifference",
    "SignatureCheck",
    "Tampered",
    "Verification",
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
    "Numbering",
    "Notice",
    "Player",
    "PlayerChange",
    "PublishedEntry",
    "RatingDifference",
    "RatingDbError",
    "RegisterDifference",
    "Renumbered",
    "Replacement",
    "Resolution",
    "RuleSet",
    "SendReport",
    "Session",
    "UniformSex",
    "Dossier",
    "DossierGame",
    "EventRisk",
    "ExcludedEvent",
    "IntegrityThresholds",
    "Review",
    "ReviewOutcome",
    "RiskScreen",
    "Signal",
    "UserContact",
]
