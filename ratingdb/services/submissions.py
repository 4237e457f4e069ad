"""Tournament files organisers send in, the check they get at once, and the officer's decision.

A submission is the file's bytes and their SHA-256 in the database (never a path built from a name),
its rating type, the organiser's note and a status: submitted → accepted (→ rated once its period is
closed), or changes_requested / rejected with the officer's reason, or withdrawn / replaced by the
organiser before it is accepted. The check runs the same reader (ratingdb.formats.parse_trf) and the
same import service as `ratingdb import-trf` (ratingdb.services.events.import_events, with its matching)
inside a SAVEPOINT that is rolled back: what it says is what an import would do, and nothing is written.
The served site runs every check in a dry-run transaction too (db.transaction(dry_run=True), as every
CLI --dry-run), which puts back the ID counters PostgreSQL and MySQL/MariaDB advance even in a rolled
back transaction: a check leaves no gap in the IDs the real import then hands out.
The check of a corrected file for `replace-event` (check_replacement) has no SAVEPOINT of its own: it
runs only in such a dry-run transaction, whose rollback undoes the replacement.
Accepting imports the file with that same service, with the officer's matching choices (the options of
`import-trf`: --id-field, --match, --new, --accept-name, --drop), and links the submission to the event.

Who may see and do what is decided here, not by the web pages: an organiser sees only their own
submissions (another's is "not found", so none can be guessed), officers and admins see all. Takes a
Session, never commits. No web or CLI imports.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
import time
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from dataclasses import replace as changed
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import delete, event, func, select, update
from sqlalchemy.orm import Session

from ratingdb.db import UnitOfWork
from ratingdb.errors import (
    ConfigError,
    FormatError,
    LineCandidate,
    OtherLine,
    RatingDbError,
    UnresolvedLine,
    UnresolvedPlayers,
)
from ratingdb.formats import parse_trf
from ratingdb.formats.limits import SECTION
from ratingdb.i18n import N_, translatable
from ratingdb.rating import Period
from ratingdb.schema.models import Event, Submission, WebUser
from ratingdb.services.choices import ImportChoices
from ratingdb.services.closing import ClosedPeriod, close_periods, periods_through
from ratingdb.services.corrections import Replacement, replace_event
from ratingdb.services.event_warnings import import_warnings
from ratingdb.services.events import corrected_versions
from ratingdb.services.integrity import ReviewOutcome, review_event, screen_events
from ratingdb.services.lists import NO_PERIOD_LOCK
from ratingdb.services.matching import FEDERATION_COLUMNS, RegisterDifference, Resolution, UniformSex
from ratingdb.services.notices import queue_decision, queue_files_waiting
from ratingdb.services.versions import data_version, record_change

if TYPE_CHECKING:
    from ratingdb.formats import TrfEvent

MAX_UPLOAD_BYTES: Final = 2_000_000  # a tournament report has kilobytes; the served site takes at most this
OPEN: Final = ("submitted", "changes_requested")  # the organiser may still withdraw or replace it
CHOICES: Final = ("match", "new", "accept-name", "drop")  # as the options of import-trf
ID_FIELDS: Final = ("fide", "national")  # import-trf --id-field: what the player lines' ID column holds
# How long a file's check may take (issue 54: a 9,998-player file took 6 to 53 s, and views ran it again
# and again): past it the check stops and says so, and the transaction it ran in ends.
CHECK_SECONDS: Final = 20.0


class UnknownSubmission(RatingDbError):
    """A submission that does not exist, or that the user may not see (the same answer for both)."""


class NotAllowed(RatingDbError):
    """A signed-in user whose role does not allow the action."""


@dataclass(frozen=True)
class UploadLimits:
    """What one organiser may send (issue 54, M4: with no bound, one organiser stored some 36 MB a second
    and kept every refused file): at most `per_hour` files an hour, at most `quota_bytes` bytes of files
    kept that no officer has accepted yet (open, sent back, withdrawn or replaced), and a file whose check
    refused it kept `refused_days` days (then deleted, whatever its status but accepted). The served
    site's settings (ratingdb.web.state.WebSettings) give them; these are the defaults."""

    per_hour: int = 30
    quota_bytes: int = 20_000_000
    refused_days: int = 30


class UploadRefused(RatingDbError):
    """An upload refused before anything is checked or stored: not a tournament report, too many files
    this hour, or past the organiser's quota. Carries its catalogue message (i18n.translatable)."""


def _refused(message: str, **values: object) -> UploadRefused:
    return translatable(UploadRefused(message % values), message, **values)  # type: ignore[return-value]


# The bytes a text file holds besides printable ones: tab, line feed, form feed, carriage return and the
# DOS end-of-file mark. Any other control byte (a NUL above all: every PNG, PDF, ZIP or Word file has
# them in its first bytes) says the file is not a tournament report; bytes from 0x80 are the letters of
# UTF-8, CP1252 or Latin-1 (formats.trf reads all three).
_TEXT_CONTROLS: Final = b"\t\n\x0b\x0c\r\x1a"
_NOT_TEXT: Final = bytes(b for b in range(32) if b not in _TEXT_CONTROLS) + b"\x7f"
_ALL_BUT_NOT_TEXT: Final = bytes(b for b in range(256) if b not in _NOT_TEXT)


def is_text(content: bytes) -> bool:
    """Whether `content` could be a tournament report: text, no control bytes but line ends and tabs."""
    return not content.translate(None, _ALL_BUT_NOT_TEXT)  # what is left: the control bytes


def admit(session: Session, user: WebUser, content: bytes, limits: UploadLimits) -> None:
    """Refuse, before anything is checked or stored, a file that is not a tournament report, an upload
    past the organiser's rate, or one past their quota (UploadRefused, in plain words)."""
    if content and not is_text(content):
        raise _refused(N_("this is not a tournament report file — send the tournament's TRF file"))
    since = _now() - dt.timedelta(hours=1)
    sent = session.scalar(
        select(func.count())
        .select_from(Submission)
        .where(Submission.organiser_id == user.id, Submission.created_at >= since)
    )
    if (sent or 0) >= limits.per_hour:
        raise _refused(
            N_(
                "you have sent %(count)s files in the last hour, as many as this site takes — "
                "send this one later"
            ),
            count=limits.per_hour,
        )
    kept = session.scalar(
        select(func.coalesce(func.sum(Submission.size), 0)).where(
            Submission.organiser_id == user.id, Submission.status != "accepted"
        )
    )
    if int(kept or 0) + len(content) > limits.quota_bytes:
        raise _refused(
            N_(
                "your files waiting here would hold more than the %(bytes)s bytes this site keeps for you — "
                "withdraw the ones you no longer need, or ask the officer"
            ),
            bytes=f"{limits.quota_bytes:,}",
        )


def forget_refused(session: Session, refused_days: int) -> int:
    """Delete the submissions whose check refused them, older than `refused_days` days and not accepted
    (their files are kept no longer); the number deleted."""
    cutoff = _now() - dt.timedelta(days=refused_days)
    old = (
        select(Submission.id)
        .where(
            Submission.check_ok.is_(False), Submission.status != "accepted", Submission.created_at < cutoff
        )
        .scalar_subquery()
    )
    ids = list(session.scalars(select(Submission.id).where(Submission.id.in_(old))))
    if not ids:
        return 0
    session.execute(update(Submission).where(Submission.replaces_id.in_(ids)).values(replaces_id=None))
    session.execute(delete(Submission).where(Submission.id.in_(ids)))
    return len(ids)


class CheckTooLong(RatingDbError):
    """A file's check ran past its time limit (`seconds`); as data (`kind`, `values`) for the pages, which
    say it without the terminal's command."""

    kind = "too-long"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.values: dict[str, object] = {"seconds": f"{seconds:g}"}
        super().__init__(
            f"the check of this file took longer than {seconds:g} seconds and was stopped — send a smaller "
            "file, or ask the officer to import it with `ratingdb import-trf`"
        )


@dataclass(frozen=True)
class Refusal:
    """One reason the file would be refused: the line (and rank) it is about, when it names one, and for a
    player line that needs a decision the line as data (`unresolved`: its name, IDs, what it conflicts
    with, the candidates, the choices that settle it), which each page words for its reader. `text`: the
    terminal's words (for the queue's record and the CLI)."""

    text: str
    line: int | None = None
    rank: int | None = None
    unresolved: UnresolvedLine | None = None
    # A refusal of the whole file as data (errors.AnotherSection, CorrectedVersion, IdColumnRefused,
    # FederationColumnRefused: their `kind` and `values`), which the pages word for their reader.
    kind: str | None = None
    values: dict[str, Any] | None = None


def refusal_of(exc: RatingDbError) -> Refusal:
    """A refusal of the whole file, with its data when the error carries it (`kind`, `values`)."""
    kind = getattr(exc, "kind", None)
    return Refusal(str(exc), kind=kind, values=dict(getattr(exc, "values", {})) if kind else None)


def refusals_of(exc: UnresolvedPlayers) -> list[Refusal]:
    """The refusals of the lines that need a decision, each with its line as data; then any sentence
    that is not about one line."""
    found = [Refusal(u.as_options(), u.line, u.rank, u) for u in exc.lines]
    worded = {r.text for r in found}
    kind = getattr(exc, "kind", None)
    values = dict(getattr(exc, "values", {})) if kind else None
    return found + [Refusal(text, kind=kind, values=values) for text in exc.problems if text not in worded]


@dataclass
class Check:
    """What importing the file would do: refusals, or the event and how each player line is matched."""

    refusals: list[Refusal] = field(default_factory=list)
    event: str = ""  # "'Galway Open': standard, period 2025-11; 34 players, 85 pairings"
    lines: list[Resolution] = field(default_factory=list)
    new_players: list[str] = field(default_factory=list)
    differences: list[RegisterDifference] = field(default_factory=list)  # the register keeps its own
    uniform_sex: list[UniformSex] = field(default_factory=list)  # a sex column not taken
    # What `import-trf` warns of at import (services.event_warnings: few games rated, a long event).
    warnings: list[str] = field(default_factory=list)
    # The data version the check saw (versions.data_version): an import, close or register change since
    # may change its outcome (a second section of a congress, a player registered), so the queue says so.
    as_of: int = 0
    # The integrity screen of the event as it would be imported (services.integrity: the event's entry of
    # RiskScreen.document(), level and signals), for the officer; None when the file is refused.
    risk: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.refusals

    def text(self) -> str:
        """One paragraph, kept with the submission for the queue."""
        if self.ok:
            return f"would import {self.event}; {len(self.new_players)} new players"
        return "; ".join(r.text for r in self.refusals)

    def to_json(self) -> str:
        """The whole check, as kept with the submission (Submission.check_json)."""
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Check:
        data: dict[str, Any] = json.loads(text)
        return cls(
            refusals=[_refusal_of(r) for r in data.get("refusals", [])],
            event=data.get("event", ""),
            lines=[Resolution(**r) for r in data.get("lines", [])],
            new_players=list(data.get("new_players", [])),
            differences=[RegisterDifference(**d) for d in data.get("differences", [])],
            uniform_sex=[UniformSex(**u) for u in data.get("uniform_sex", [])],
            warnings=list(data.get("warnings", [])),
            as_of=int(data.get("as_of", 0)),
            risk=data.get("risk"),
        )


def _refusal_of(data: dict[str, Any]) -> Refusal:
    """A stored refusal read back, its line as data too (JSON keeps the values, not their classes)."""
    line: dict[str, Any] | None = data.get("unresolved")
    unresolved = None
    if line is not None:
        conflict = line.get("conflict")
        unresolved = UnresolvedLine(
            **{
                **line,
                "choices": tuple(line["choices"]),
                "candidates": tuple(LineCandidate(**c) for c in line.get("candidates", ())),
                "conflict": OtherLine(**conflict) if conflict else None,
            }
        )
    return Refusal(
        data["text"], data.get("line"), data.get("rank"), unresolved, data.get("kind"), data.get("values")
    )


def stored_check(sub: Submission) -> Check:
    """The check made when the file came, as kept with it: no view runs it again (only the officer's
    "check again", `recheck`). A submission sent before the whole check was kept has its paragraph."""
    if sub.check_json:
        return Check.from_json(sub.check_json)
    if sub.check_ok:
        return Check(event=sub.check_text.removeprefix("would import ").rsplit(";", 1)[0])
    return Check(refusals=[Refusal(sub.check_text)])


@contextmanager
def time_limited(session: Session, seconds: float) -> Iterator[None]:
    """Stop the block with CheckTooLong at its first statement after `seconds` (the caller's transaction,
    or SAVEPOINT, is then rolled back: nothing is left behind)."""
    connection = session.connection()
    deadline = time.monotonic() + seconds

    def check_deadline(*_args: object) -> None:
        if time.monotonic() > deadline:
            raise CheckTooLong(seconds)

    event.listen(connection, "before_cursor_execute", check_deadline)
    try:
        yield
    finally:
        event.remove(connection, "before_cursor_execute", check_deadline)


@contextmanager
def rolled_back(session: Session) -> Iterator[None]:
    """Run the block in a SAVEPOINT that is always rolled back: the database is left as it was."""
    savepoint = session.begin_nested()
    try:
        yield
    finally:
        if savepoint.is_active:
            savepoint.rollback()


def import_choices(
    choices: Mapping[int, tuple[str, str]],
    rating_type: str | None,
    id_field: str | None = None,
    settings: ImportChoices | None = None,
) -> ImportChoices:
    """The choices of `import-trf --type T` for a one-file import, from {rank: (choice, ID for "match")}:
    match (--match RANK=ID), new (--new RANK), accept-name (--accept-name RANK), drop (--drop RANK), and
    what the ID column holds (--id-field fide|national; None: fide, the default). `settings`: the choices
    about the file as a whole (file_settings: section, distinct event, period, closing days, official,
    type and type override); its rating type, when it names one, is used instead of `rating_type`."""
    check_id_field(id_field)
    matches: dict[tuple[str | None, int], str] = {}
    new, accept, drop, undone = set(), set(), set(), set()
    for rank, (choice, ident) in sorted(choices.items()):
        ref = (None, rank)
        if choice == "match":
            if not ident.strip():
                raise ConfigError(f"rank {rank}: give the FIDE or national ID of the player the line is")
            matches[ref] = ident.strip()
        elif choice == "new":
            new.add(ref)
        elif choice == "accept-name":
            accept.add(ref)
        elif choice == "drop":
            drop.add(ref)
        elif choice == "auto":  # the replace page: the stored choice of the line is undone
            undone.add(ref)
        elif choice:
            raise ConfigError(
                f"rank {rank}: '{choice}' is not a choice — use match, new, accept-name or drop"
            )
    lines = ImportChoices(
        rating_type=rating_type,
        matches=matches,
        new=frozenset(new),
        accept_names=frozenset(accept),
        drops=frozenset(drop),
        cleared=frozenset(undone) or None,
        id_field=id_field,
    )
    return (
        lines
        if settings is None
        else changed(settings, rating_type=None).over(
            changed(lines, rating_type=settings.rating_type or rating_type)
        )
    )


def file_settings(
    *,
    rating_type: str | None = None,
    type_override: bool | None = None,
    official: bool | None = None,
    closing_days: int | None = None,
    period: str | None = None,
    distinct: bool | None = None,
    section: str | None = None,
    federation_column: str | None = None,
) -> ImportChoices:
    """The choices about a file as a whole, as the officer's review page and `submission accept` give them
    (import-trf's --type, --type-override, --official, --closing-days, --period, --distinct-event,
    --section and --federation-column); each None or empty is not made. A malformed one is refused in one
    sentence."""
    from ratingdb.rating import RATING_TYPES

    if rating_type and rating_type not in RATING_TYPES:
        raise ConfigError(f"'{rating_type}' is not a rating type — choose standard, rapid or blitz")
    if closing_days is not None and not 0 <= closing_days <= 31:
        raise ConfigError(f"{closing_days} closing days: give a number of days from 0 to 31")
    late = None
    if period and period.strip():
        try:
            late = Period.parse(period.strip())
        except ValueError:
            raise ConfigError(
                f"'{period.strip()}' is not a rating period: write it as YYYY-MM, for example 2025-10"
            ) from None
    if federation_column and federation_column not in FEDERATION_COLUMNS:
        raise ConfigError(
            f"'{federation_column}' is not a reading of the federation column — choose "
            f"{', '.join(FEDERATION_COLUMNS)}"
        )
    shown = None if section is None else " ".join(section.split())
    if shown is not None and len(shown) > SECTION:
        raise ConfigError(f"the section's name is longer than {SECTION} characters: give a short name")
    return ImportChoices(
        rating_type=rating_type or None,
        type_override=type_override,
        official=official,
        closing_days=closing_days,
        period=late,
        distinct=distinct,
        section=shown or None,
        federation_column=federation_column or None,
    )


# A line a script's matching choice names: its starting rank (one file) or (file name, rank).
ScriptLine = int | tuple[str, int]


def script_choices(
    names: Sequence[str],
    *,
    rating_type: str | None,
    type_override: bool | None,
    period: str | None,
    closing_days: int | None,
    official: bool | None,
    distinct_event: bool | None,
    section: str | None,
    id_field: str | None,
    federation_column: str | None,
    match: Mapping[int, str | int] | Mapping[ScriptLine, str | int] | None,
    new: Collection[ScriptLine],
    accept_name: Collection[ScriptLine],
    drop: Collection[ScriptLine],
) -> ImportChoices:
    """The choices of import-trf as a script gives them (ratingdb.api: import_trf, replace_event,
    accept_submission), for the files `names`: False and empty values are choices not made, so a
    replacement keeps the event's own. A line is its rank (one file) or (file name, rank)."""
    check_id_field(id_field)
    settings = file_settings(
        rating_type=rating_type, type_override=type_override or None, official=official or None,
        closing_days=closing_days, period=period,
        distinct=distinct_event or None, section=section, federation_column=federation_column,
    )  # fmt: skip

    def line(ref: ScriptLine) -> tuple[str | None, int]:
        if isinstance(ref, int):
            if len(names) > 1:
                raise ConfigError(f"line {ref}: several files are given, so name the file: (FILE, {ref})")
            return (None, ref)
        file, rank = ref
        if file not in names:
            raise ConfigError(f"line {ref}: {file} is not one of the files given")
        return (file, rank)

    matches = {line(ref): str(ident).strip() for ref, ident in (match or {}).items()}
    lines = {
        "new": frozenset(line(ref) for ref in new),
        "accept_names": frozenset(line(ref) for ref in accept_name),
        "drops": frozenset(line(ref) for ref in drop),
    }
    given = [*matches, *lines["new"], *lines["accept_names"], *lines["drops"]]
    twice = {ref for ref in given if given.count(ref) > 1}
    if twice:
        raise ConfigError(f"line {min(twice, key=lambda r: r[1])[1]} is given two choices: give one")
    return ImportChoices(
        id_field=id_field,
        matches=matches or None,
        new=lines["new"] or None,
        accept_names=lines["accept_names"] or None,
        drops=lines["drops"] or None,
    ).over(settings)


def check_id_field(id_field: str | None) -> None:
    if id_field is not None and id_field not in ID_FIELDS:
        raise ConfigError(f"--id-field '{id_field}' is not fide or national")


def choices_text(made: ImportChoices, rating_type: str | None = None) -> str:
    """The choices as import-trf's options, e.g. "--id-field national --section Minor --match 3=25900012
    --new 7" (kept with the submission); `rating_type`: the submission's, not written when --type names
    it."""
    words = [f"--type {made.rating_type}"] if made.rating_type and made.rating_type != rating_type else []
    if made.official:
        words.append("--official")
    if made.period is not None:
        words.append(f"--period {made.period}")
    if made.section:
        words.append(f"--section {made.section}")
    return " ".join(words + made.as_options())


def check_file(
    session: Session,
    content: bytes,
    file_name: str,
    rating_type: str,
    made: ImportChoices | None = None,
    *,
    seconds: float = CHECK_SECONDS,
) -> Check:
    """Read and import the file in a rolled-back SAVEPOINT; every refusal with its line and reason.
    `made`: the officer's choices (import_choices); the organiser's rating type unless they name one.

    At most CHECK_SECONDS (`seconds`), and without the close lock (services.lists.lock_periods): a check
    writes nothing, so it need not wait for a close or an import, and none waits for it."""
    from ratingdb.services.events import import_events

    check = Check(as_of=data_version(session))
    try:
        trf = parse_trf(file_name, content)
    except FormatError as exc:
        check.refusals.append(Refusal(str(exc), exc.line))
        return check
    session.info[NO_PERIOD_LOCK] = True
    try:
        with rolled_back(session), time_limited(session, seconds):
            summary = import_events(session, [trf], _with_type(made, rating_type))
            check.warnings = import_warnings(session, [ev.id for ev in summary.events])
            screened = screen_events(session, event_id=summary.events[0].id).document()["events"]
            check.risk = screened[0] if screened else None
    except UnresolvedPlayers as exc:
        check.refusals.extend(refusals_of(exc))
        return check
    except FormatError as exc:
        check.refusals.append(Refusal(str(exc), exc.line))
        return check
    except RatingDbError as exc:
        check.refusals.append(refusal_of(exc))
        return check
    finally:
        session.info.pop(NO_PERIOD_LOCK, None)
    ev = summary.events[0]
    check.event = (
        f"'{ev.name}': {ev.rating_type}, period {ev.period}; {ev.players} players, {ev.games} pairings"
    )
    check.lines = list(summary.matching.resolutions)
    check.new_players = list(summary.new_players)
    check.differences = list(summary.matching.differences)
    check.uniform_sex = list(summary.matching.uniform_sex)
    return check


# `user` None is the terminal: `ratingdb submission …` runs with the database's own rights (whoever can
# run it can run import-trf), as an officer; the audit log names RATINGDB_USER or the login.
Actor = WebUser | None


def _require(user: Actor, *roles: str) -> None:
    if user is not None and user.role not in roles:
        raise NotAllowed(f"the {user.role} role may not do this — ask an officer or an admin")


def is_officer(user: Actor) -> bool:
    return user is None or user.role in ("officer", "admin")


def submission_for(session: Session, user: Actor, submission_id: int) -> Submission:
    """The submission if `user` may see it: their own, or any for an officer or admin."""
    found = session.get(Submission, submission_id)
    if found is None or not (is_officer(user) or (user is not None and found.organiser_id == user.id)):
        raise UnknownSubmission(f"there is no submission {submission_id} of yours — see your submissions")
    return found


def submissions_of(session: Session, user: WebUser) -> list[Submission]:
    """The user's own submissions, newest first."""
    return list(
        session.scalars(
            select(Submission).where(Submission.organiser_id == user.id).order_by(Submission.id.desc())
        )
    )


# A submission's statuses, as the queue filters them: waiting for the officer first.
STATUSES: Final = ("submitted", "changes_requested", "accepted", "rejected", "withdrawn", "replaced")
QUEUE_REST: Final = 200  # decided submissions the queue shows at most (newest first)


UNKNOWN_STATUS: Final = N_("'%(status)s' is not a status of a submission — choose one of %(statuses)s")


class UnknownStatus(RatingDbError):
    """A queue filter that is not a submission's status (STATUSES): `status`, as given."""

    def __init__(self, status: str) -> None:
        self.status = status
        values = {"status": status, "statuses": ", ".join(STATUSES)}
        super().__init__(UNKNOWN_STATUS % values)
        translatable(self, UNKNOWN_STATUS, **values)


def queue(session: Session, user: Actor, status: str | None = None) -> list[Submission]:
    """Every submission still to decide (submitted), oldest first, then the rest, newest first (at most
    QUEUE_REST); `status`: only those of that status (STATUSES), in the same order."""
    _require(user, "officer", "admin")
    if status is not None and status not in STATUSES:
        raise UnknownStatus(status)
    waiting = (
        list(
            session.scalars(
                select(Submission).where(Submission.status == "submitted").order_by(Submission.id)
            )
        )
        if status in (None, "submitted")
        else []
    )
    rest = select(Submission).where(Submission.status != "submitted")
    if status is not None:
        rest = rest.where(Submission.status == status)
    decided = (
        list(session.scalars(rest.order_by(Submission.id.desc()).limit(QUEUE_REST)))
        if status != "submitted"
        else []
    )
    return waiting + decided


def queue_counts(session: Session, user: Actor) -> dict[str, int]:
    """How many submissions have each status (STATUSES, every one named, 0 when none)."""
    _require(user, "officer", "admin")
    found = {
        status: int(n)
        for status, n in session.execute(select(Submission.status, func.count()).group_by(Submission.status))
    }
    return {status: found.get(status, 0) for status in STATUSES}


@dataclass(frozen=True)
class QueueRow:
    """One line of the officer's queue: the submission, its status as the organiser reads it (status_of),
    and, while it is open, its stored check's outcome (`importable`; None once decided: the check no longer
    says anything) and whether the check is `outdated` (made before the latest import, close or register
    change, which may change it: "check again")."""

    submission: Submission
    status: str
    importable: bool | None
    outdated: bool


def queue_rows(session: Session, user: Actor, status: str | None = None) -> list[QueueRow]:
    """The queue (`queue`), each line with its status and its stored check's outcome and age."""
    now = data_version(session)
    rows = []
    for sub in queue(session, user, status):
        shown = status_of(session, sub)
        if sub.status not in OPEN:
            rows.append(QueueRow(sub, shown, None, False))
            continue
        rows.append(QueueRow(sub, shown, sub.check_ok, is_outdated(stored_check(sub), now)))
    return rows


def is_outdated(check: Check, now: int) -> bool:
    """Whether `check` was made before the data version `now` (versions.data_version): an import, close or
    register change since may change what it says."""
    return check.as_of < now


def keep_check(session: Session, user: Actor, submission_id: int, check: Check) -> Submission:
    """Keep `check` — the file checked again as it was sent, with no choice of the officer's — as the
    submission's check: the queue's, the organiser's and the review page's from now on (a view runs none).
    Only while it is submitted: a decided submission keeps the check it was decided on."""
    sub = for_review(session, user, submission_id)
    if sub.status == "submitted":
        sub.check_ok = check.ok
        sub.check_text = check.text()[:20000]
        sub.check_json = check.to_json()
    return sub


def status_of(session: Session, submission: Submission) -> str:
    """The status as the organiser reads it: an accepted file whose period is closed is "rated"."""
    if submission.status == "accepted" and submission.event_id is not None:
        from ratingdb.services.lists import is_closed

        event = session.get(Event, submission.event_id)
        if event is not None and is_closed(session, event.rating_type, Period.parse(event.period)):
            return "rated"
    return submission.status


def submit(
    session: Session,
    user: WebUser,
    content: bytes,
    file_name: str,
    rating_type: str,
    note: str | None = None,
    *,
    replaces: int | None = None,
    max_bytes: int = MAX_UPLOAD_BYTES,
    check: Check | None = None,
    limits: UploadLimits = UploadLimits(),
) -> tuple[Submission, Check]:
    """Store a file an organiser sends, checked at once; `replaces` withdraws one of theirs still open.
    `check`: the file's check_file, when the caller ran it in a dry-run transaction of its own (the served
    site does, so the check leaves no gap in the IDs); None: checked here, in a rolled-back SAVEPOINT.
    `limits`: the organiser's rate and quota (`admit`); refused files older than their days are deleted."""
    from ratingdb.rating import RATING_TYPES

    _require(user, "organiser", "officer", "admin")
    admit(session, user, content, limits)
    forget_refused(session, limits.refused_days)
    old = submission_for(session, user, replaces) if replaces is not None else None
    if old is not None:
        if old.organiser_id != user.id:
            raise NotAllowed("only the organiser who sent a submission may replace it")
        if old.status not in OPEN:
            raise ConfigError(f"submission {old.id} is {old.status}: it can no longer be replaced")
    if rating_type not in RATING_TYPES and not _stored_type(session, rating_type):
        raise ConfigError(f"'{rating_type}' is not a rating type — choose standard, rapid or blitz")
    check_size(content, max_bytes, "the tournament's TRF file")
    name = _base_name(file_name, "upload.trf")[:255]
    digest = hashlib.sha256(content).hexdigest()
    before = session.scalar(
        select(Submission.id).where(
            Submission.sha256 == digest, Submission.status.in_(("submitted", "changes_requested", "accepted"))
        )
    )
    if before is not None:
        raise ConfigError(f"this file was sent before (submission {before}) — nothing was stored")
    event = session.scalar(select(Event.id).where(Event.source_hash == digest, Event.is_current.is_(True)))
    if event is not None:
        raise ConfigError(f"this file is already imported, as event {event} — nothing was stored")
    if old is not None:
        old.status = "replaced"
    if check is None:
        check = check_file(session, content, name, rating_type)
    sub = Submission(
        organiser_id=user.id,
        rating_type=rating_type,
        note=(note or "").strip()[:2000] or None,
        file_name=name,
        content=content,
        sha256=digest,
        size=len(content),
        status="submitted",
        check_ok=check.ok,
        check_text=check.text()[:20000],
        check_json=check.to_json(),
        replaces_id=old.id if old else None,
        created_at=_now(),  # the rate counts by it (`admit`), in UTC as _now
    )
    session.add(sub)
    session.flush()
    replacing = f", replacing submission {old.id}" if old else ""
    record_change(session, "submission", f"submission {sub.id}: {name} ({rating_type}){replacing}")
    queue_files_waiting(session, sub)
    return sub, check


def check_size(content: bytes, max_bytes: int, what: str) -> None:
    """A file the served site takes: not empty, and at most `max_bytes` (WebSettings.max_upload_bytes)."""
    if not content:
        raise ConfigError(f"the file is empty — choose {what}")
    if len(content) > max_bytes:  # the web reads one byte more than it takes: the size is not known
        raise ConfigError(too_large(max_bytes))


def too_large(max_bytes: int) -> str:
    """The refusal of a file larger than the served site takes (also said for a request too large)."""
    return (
        f"the file sent is larger than the {max_bytes:,} bytes a file sent here may have — send the "
        "tournament report (TRF) only"
    )


def _base_name(file_name: str, default: str) -> str:
    """The file's own name, without the folders a browser may send (Windows' too), else `default`."""
    return file_name.replace("\\", "/").rsplit("/", 1)[-1] or default


def _stored_type(session: Session, rating_type: str) -> bool:
    from ratingdb.services.rules import stored_rule_sets

    return any(r.rating_type == rating_type for r in stored_rule_sets(session))


def withdraw(session: Session, user: WebUser, submission_id: int) -> Submission:
    sub = submission_for(session, user, submission_id)
    if sub.organiser_id != user.id:
        raise NotAllowed("only the organiser who sent a submission may withdraw it")
    if sub.status not in OPEN:
        raise ConfigError(f"submission {sub.id} is {sub.status}: it can no longer be withdrawn")
    sub.status = "withdrawn"
    record_change(session, "submission-withdraw", f"submission {sub.id}: {sub.file_name}")
    return sub


def for_review(session: Session, user: Actor, submission_id: int) -> Submission:
    """A submission as the officer's queue opens it (officers and admins only)."""
    _require(user, "officer", "admin")
    return submission_for(session, user, submission_id)


def _with_type(made: ImportChoices | None, rating_type: str) -> ImportChoices:
    """The choices, with the submission's rating type unless they name another (--type)."""
    made = made or ImportChoices()
    return changed(made, rating_type=made.rating_type or rating_type)


def recheck(session: Session, user: Actor, submission_id: int, made: ImportChoices | None = None) -> Check:
    """The check of a submission with the officer's choices (import_choices; nothing is written)."""
    sub = for_review(session, user, submission_id)
    return check_file(session, sub.content, sub.file_name, sub.rating_type, made)


def accept(
    session: Session, user: Actor, submission_id: int, made: ImportChoices | None = None
) -> Submission:
    """Import the submission as `ratingdb import-trf` does, with the officer's choices (import_choices:
    every choice of import-trf, lines and file); link it to the event."""
    from ratingdb.services.events import import_events

    sub = _to_accept(session, user, submission_id)
    chosen = _with_type(made, sub.rating_type)
    summary = import_events(session, [parse_trf(sub.file_name, sub.content)], chosen)
    sub.status = "accepted"
    sub.event_id = summary.events[0].id
    sub.decided_by = user.id if user is not None else None
    sub.decided_at = _now()
    sub.choices = choices_text(chosen, sub.rating_type) or None
    record_change(
        session,
        "submission-accept",
        f"submission {sub.id}: {sub.file_name} imported as event {sub.event_id}"
        + (f" ({sub.choices})" if sub.choices else ""),
    )
    queue_decision(session, sub)
    return sub


def _to_accept(session: Session, user: Actor, submission_id: int) -> Submission:
    """The submission an officer accepts (or replaces an event with), its row locked first and read again:
    of two officers accepting at once, the second waits here and then finds it accepted, instead of
    importing the file a second time (a 500 on the servers, L2)."""
    _require(user, "officer", "admin")
    session.execute(
        select(Submission.id)
        .where(Submission.id == submission_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    sub = submission_for(session, user, submission_id)
    session.refresh(sub)
    if sub.status == "accepted":
        raise ConfigError(f"submission {sub.id} is already accepted, as event {sub.event_id}")
    if sub.status != "submitted":
        raise ConfigError(f"submission {sub.id} is {sub.status}: only a submitted file can be accepted")
    return sub


@dataclass(frozen=True)
class CorrectedEvent:
    """An imported event the submission's file looks like a corrected version of (the same tournament name
    and start date, whatever its section, and most players shared): the review page and `submission show`
    offer to replace it with the submission (`replace_with`)."""

    event_id: int
    title: str
    period: str
    closed: bool  # its period is rated: reopen it first
    shared: int  # of the file's players, those who played in the event
    players: int


def corrected_events(session: Session, user: Actor, submission_id: int) -> list[CorrectedEvent]:
    """The events a submitted file looks like a corrected version of, most players shared first (none for
    a file already decided, or one that cannot be read)."""
    from ratingdb.services.lists import is_closed
    from ratingdb.titles import title_of

    sub = for_review(session, user, submission_id)
    if sub.status != "submitted":
        return []
    try:
        trf = parse_trf(sub.file_name, sub.content)
    except FormatError:
        return []
    return [
        CorrectedEvent(
            c.event.id,
            title_of(session, c.event.id),
            c.event.period,
            is_closed(session, c.event.rating_type, Period.parse(c.event.period)),
            c.shared,
            c.players,
        )  # fmt: skip
        for c in corrected_versions(session, trf, sub.rating_type)
    ]


def replace_with(
    session: Session,
    user: Actor,
    submission_id: int,
    event_id: int,
    made: ImportChoices | None = None,
    reason: str | None = None,
) -> Replacement:
    """`ratingdb submission replace ID EVENT`: the submission's file takes the place of event `event_id`
    by `ratingdb replace-event`'s service (services.corrections.replace_event: the file read with the
    choices the event was imported with, except those `made` makes — replacement_choices, or the options
    of replace-event; a line given a choice, or undone, loses its stored one), and the submission is
    accepted as the event's new version. `reason`: the audit log's; the submission is named there."""
    sub = _to_accept(session, user, submission_id)
    result = replace_event(
        session, event_id, parse_trf(sub.file_name, sub.content), reason=reason or None, choices=made
    )
    sub.status = "accepted"
    sub.event_id = result.new_event_id
    sub.decided_by = user.id if user is not None else None
    sub.decided_at = _now()
    sub.choices = choices_text(made or ImportChoices()) or None
    record_change(
        session,
        "submission-accept",
        f"submission {sub.id}: {sub.file_name} replaced event {event_id}, as event {result.new_event_id}",
        reason=reason or None,
    )
    return result


def check_replace_with(
    session: Session, user: Actor, submission_id: int, event_id: int, made: ImportChoices | None = None
) -> ReplacementCheck:
    """`ratingdb submission replace ID EVENT --dry-run`: what replacing the event with the submission would
    change, or every refusal (each unsettled line as data, for a choice). Run it in a dry-run transaction
    (as check_replacement): its rollback is what leaves the database, and the submission, as they were."""
    from ratingdb.db import is_dry_run

    if not is_dry_run(session):
        raise RuntimeError("check_replace_with replaces the event: run it in a dry-run transaction")
    found = ReplacementCheck()
    try:
        found.replacement = replace_with(session, user, submission_id, event_id, made)
    except UnresolvedPlayers as exc:
        found.refusals.extend(refusals_of(exc))
    except FormatError as exc:
        found.refusals.append(Refusal(str(exc), exc.line))
    return found


def decide(session: Session, user: Actor, submission_id: int, status: str, reason: str) -> Submission:
    """Ask for changes (`changes_requested`) or reject (`rejected`), with the reason the organiser reads."""
    _require(user, "officer", "admin")
    if status not in ("changes_requested", "rejected"):
        raise ConfigError(f"'{status}' is not a decision — use changes_requested or rejected")
    if not reason.strip():
        raise ConfigError("give a reason: the organiser reads it")
    sub = submission_for(session, user, submission_id)
    if sub.status != "submitted":
        raise ConfigError(f"submission {sub.id} is {sub.status}: only a submitted file can be decided")
    sub.status = status
    sub.officer_reason = reason.strip()[:2000]
    sub.decided_by = user.id if user is not None else None
    sub.decided_at = _now()
    record_change(session, f"submission-{status.replace('_', '-')}", f"submission {sub.id}", reason=reason)
    queue_decision(session, sub)
    return sub


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


@dataclass
class PeriodView:
    """The officer's period page: the events imported, and what closing would change (every line)."""

    period: Period
    rating_type: str
    closed: bool
    events: list[Event]
    titles: dict[int, str] = field(default_factory=dict)  # each event's shown name, with its section
    summary: object | None = None  # the dry run's CloseSummary
    diff: object | None = None  # its ListDiff against the list in force
    refusal: str | None = None  # why it cannot be closed now
    # The integrity screen of each event (services.integrity: its RiskScreen.document() entry), by id.
    risks: dict[int, dict[str, Any]] = field(default_factory=dict)


def period_view(
    session: Session, user: Actor, period: Period, rating_type: str, *, dry_run: bool
) -> PeriodView:
    """The period's events and, with `dry_run`, the close run in a rolled-back SAVEPOINT and compared
    with the list in force (the same close_period as `ratingdb close-period`)."""
    from ratingdb.services.close import close_period
    from ratingdb.services.list_diff import list_diff
    from ratingdb.services.lists import is_closed, list_on

    _require(user, "officer", "admin")
    events = list(
        session.scalars(
            select(Event)
            .where(Event.rating_type == rating_type, Event.period == str(period), Event.is_current.is_(True))
            .order_by(Event.start_date, Event.id)
        )
    )
    from ratingdb.titles import title_of

    view = PeriodView(period, rating_type, is_closed(session, rating_type, period), events)
    view.titles = {e.id: title_of(session, e.id) for e in events}  # two sections: "Limerick Congress — Minor"
    screened = screen_events(session, rating_type, period=period).document()["events"]
    view.risks = {entry["event_id"]: entry for entry in screened}
    if not dry_run or view.closed:
        return view
    try:
        with rolled_back(session):
            view.summary = close_period(session, period, rating_type)
            before = list_on(session, rating_type, period.first_day)
            after = list_on(session, rating_type, period.published_list_date)
            if before is not None and after is not None:
                view.diff = list_diff(session, before, after)
    except RatingDbError as exc:
        view.refusal = str(exc)
    return view


def review(session: Session, user: Actor, event_id: int, decision: str, reason: str) -> ReviewOutcome:
    """The officer's decision on an event (`ratingdb event review`): rated or excluded, and why."""
    _require(user, "officer", "admin")
    return review_event(session, event_id, decision, reason)


def close(
    work: UnitOfWork, user: Actor, period: Period, rating_type: str, through: Period | None = None
) -> list[ClosedPeriod]:
    """Close the period and publish its list, audited as `user`'s: `ratingdb close-period` (the same
    service, services.closing, with its copy before the close), in a transaction of its own; `through`
    (--through): then every period after it up to that one, each in a transaction of its own."""
    _require(user, "officer", "admin")
    acting = work if user is None else work.acting_as(f"web:{user.username}")
    return close_periods(acting, rating_type, periods_through(period, through))


def open_periods(session: Session, user: Actor, rating_types: tuple[str, ...]) -> list[tuple[str, str, int]]:
    """(type, period, events) of every period the next closes need, oldest first: each open period that
    holds events, and every month from the one the newest list is in force for up to the last of those —
    empty months included (a close needs the list of the month before it: `close period 2011-02 first`)."""
    from sqlalchemy import func

    from ratingdb.services.lists import is_closed, latest_list

    _require(user, "officer", "admin")
    rows = session.execute(
        select(Event.rating_type, Event.period, func.count())
        .where(Event.rating_type.in_(rating_types), Event.is_current.is_(True))
        .group_by(Event.rating_type, Event.period)
    ).all()
    found: dict[tuple[str, str], int] = {
        (kind, period): int(count)
        for kind, period, count in rows
        if not is_closed(session, kind, Period.parse(period))
    }
    for kind in rating_types:
        last = max((Period.parse(p) for k, p in found if k == kind), default=None)
        newest = latest_list(session, kind)
        if last is None or newest is None:
            continue
        month = Period.of(newest.list_date)
        while month < last:
            found.setdefault((kind, str(month)), 0)
            month = month.shift(1)
    return [
        (kind, period, count)
        for (kind, period), count in sorted(found.items(), key=lambda i: (i[0][1], i[0][0]))
    ]


# -- corrections from the officer's pages: `ratingdb reopen` and `ratingdb replace-event` -----------------


def require_officer(user: Actor) -> None:
    """Officers and admins only: the corrections and the player register."""
    _require(user, "officer", "admin")


# The switches an event keeps, as the replace page names them, and their options.
SWITCHES: Final = {
    "official": "--official",
    "type_override": "--type-override",
    "distinct_event": "--distinct-event",
}


def replacement_choices(
    choices: Mapping[int, tuple[str, str]],
    id_field: str | None,
    switches: Mapping[str, bool | None] | None = None,
    settings: ImportChoices | None = None,
) -> ImportChoices:
    """The choices of `replace-event` from the page: only those made (as options given on the command
    line); every other is the one the replaced event was imported with (ratingdb.services.choices).
    `switches`: {name of SWITCHES: True (--official), False (--no-official), None (as imported)};
    `settings`: the type, late period, section, closing days and federation column given (file_settings:
    --type, --period, --section, --closing-days, --federation-column), each None not given."""
    made = import_choices(choices, "", id_field)
    switched = dict(switches or {})
    unknown = sorted(set(switched) - set(SWITCHES))
    if unknown:
        raise ConfigError(f"'{unknown[0]}' is not a choice of replace-event — use {', '.join(SWITCHES)}")
    return ImportChoices(
        id_field=id_field,
        matches=made.matches or None,
        new=made.new or None,
        accept_names=made.accept_names or None,
        drops=made.drops or None,
        cleared=made.cleared,
        official=switched.get("official"),
        type_override=switched.get("type_override"),
        distinct=switched.get("distinct_event"),
        rating_type=settings.rating_type if settings else None,
        period=settings.period if settings else None,
        section=settings.section if settings else None,
        closing_days=settings.closing_days if settings else None,
        federation_column=settings.federation_column if settings else None,
    )


def stored_settings(event: Event) -> dict[str, str]:
    """What `event` was imported with of the replace page's settings (replace-event's unless given): its
    type, period, section, closing days (empty: the federation's) and federation column."""
    stored = ImportChoices.from_stored(event.import_choices)
    return {
        "type": event.rating_type,
        "period": str(event.period),
        "section": event.section or "",
        "closing_days": "" if stored.closing_days is None else str(stored.closing_days),
        "federation_column": stored.federation_column or "federations",
    }


def stored_id_field(event: Event) -> str:
    """What the ID column held when `event` was imported (--id-field): replace-event's unless given."""
    return ImportChoices.from_stored(event.import_choices).id_field or "fide"


def stored_lines(event: Event) -> dict[int, tuple[str, str]]:
    """{rank: (choice, ID)} of the lines `event` was imported with a choice for (match, new, accept-name,
    drop): replace-event applies each again unless the page makes another or undoes it ("auto")."""
    stored = ImportChoices.from_stored(event.import_choices)
    found = {rank: ("match", ident) for (_, rank), ident in (stored.matches or {}).items()}
    for choice, refs in (("new", stored.new), ("accept-name", stored.accept_names), ("drop", stored.drops)):
        found.update({rank: (choice, "") for _, rank in refs or ()})
    return dict(sorted(found.items()))


def stored_switches(event: Event) -> dict[str, bool]:
    """The switches `event` was imported with: what replace-event takes unless the page says otherwise."""
    stored = ImportChoices.from_stored(event.import_choices)
    return {
        "official": bool(event.official),
        "type_override": bool(stored.type_override),
        "distinct_event": bool(stored.distinct),
    }


def registered_of_lines(
    session: Session, content: bytes, file_name: str, ranks: Iterable[int], id_field: str
) -> dict[int, str]:
    """{rank: the registered player the line's ID names, described} for the lines of the file at `ranks`
    whose ID is a registered player's (read as `id_field` says): what the replace page shows beside a line
    the event was imported with a choice for, so that the officer sees whom "is the player" would name."""
    from ratingdb.services.events import file_content
    from ratingdb.services.players import describe, find_by_id

    try:
        lines = file_content(parse_trf(file_name, content), id_field).players
    except FormatError:
        return {}
    found = {}
    for rank in ranks:
        line = lines.get(rank)
        ident = None if line is None else (f"fide:{line.fide_id}" if line.fide_id else None)
        ident = ident or (f"national:{line.national_id}" if line and line.national_id else None)
        if ident is None:
            continue
        try:
            found[rank] = describe(find_by_id(session, ident))
        except RatingDbError:
            continue  # no one has it: nothing to name
    return found


@dataclass
class ReplacementCheck:
    """What replacing the event with the file would do (`replace-event --dry-run`), or why it cannot."""

    refusals: list[Refusal] = field(default_factory=list)
    replacement: Replacement | None = None

    @property
    def ok(self) -> bool:
        return not self.refusals


def _replacement(
    user: Actor,
    content: bytes,
    file_name: str,
    choices: Mapping[int, tuple[str, str]],
    id_field: str | None,
    switches: Mapping[str, bool | None] | None,
    settings: ImportChoices | None = None,
) -> tuple[TrfEvent, ImportChoices]:
    """What check_replacement and replace both begin with: the officer's right, the corrected file read
    (FormatError when it cannot be) and the choices made on the page."""
    require_officer(user)
    check_id_field(id_field)
    if not content:
        raise ConfigError(f"the file is empty — choose {CORRECTED}")
    name = _base_name(file_name, "corrected.trf")
    return parse_trf(name, content), replacement_choices(choices, id_field, switches, settings)


def check_replacement(
    session: Session,
    user: Actor,
    event_id: int,
    content: bytes,
    file_name: str,
    reason: str,
    choices: Mapping[int, tuple[str, str]],
    id_field: str | None = None,
    switches: Mapping[str, bool | None] | None = None,
    settings: ImportChoices | None = None,
) -> ReplacementCheck:
    """`ratingdb replace-event EVENT FILE --dry-run` with the choices: what the replacement would change,
    or every refusal (each unsettled line with its line and rank, for a choice).

    It replaces the event in `session`, which must be a dry-run transaction (db.transaction(dry_run=True),
    the served site's Database.dry_run): that transaction's rollback, which also puts back the ID
    counters, is what leaves the database as it was, so the check runs once, with no SAVEPOINT of its own.
    """
    from ratingdb.db import is_dry_run

    if not is_dry_run(session):
        raise RuntimeError("check_replacement replaces the event: run it in a dry-run transaction")
    found = ReplacementCheck()
    try:
        trf, made = _replacement(user, content, file_name, choices, id_field, switches, settings)
        found.replacement = replace_event(session, event_id, trf, reason=reason or None, choices=made)
    except UnresolvedPlayers as exc:
        found.refusals.extend(refusals_of(exc))
    except FormatError as exc:
        found.refusals.append(Refusal(str(exc), exc.line))
    return found


def replace(
    session: Session,
    user: Actor,
    event_id: int,
    content: bytes,
    file_name: str,
    reason: str,
    choices: Mapping[int, tuple[str, str]],
    id_field: str | None = None,
    switches: Mapping[str, bool | None] | None = None,
    settings: ImportChoices | None = None,
) -> Replacement:
    """`ratingdb replace-event EVENT FILE --reason TEXT` with the choices, switches and settings (the same
    service)."""
    trf, made = _replacement(user, content, file_name, choices, id_field, switches, settings)
    return replace_event(session, event_id, trf, reason=reason or None, choices=made)


CORRECTED: Final = "the corrected tournament report (TRF)"
PENDING_GONE: Final = (
    "the file checked is no longer kept (you signed out since, or checked another file in the meantime) — "
    "choose the corrected file again and check it"
)


def keep_pending(
    session: Session,
    user: Actor,
    browser_token: str | None,
    event_id: int,
    content: bytes,
    file_name: str,
    max_bytes: int = MAX_UPLOAD_BYTES,
) -> str:
    """Keep the corrected file the replace page checks until the officer replaces the event with it: on
    the server (pending_upload), bound to the browser's session, instead of going back and forth in the
    page. The token returned names it in the page; only its SHA-256 is kept. The session's file kept
    before goes: one at a time per session."""
    from sqlalchemy import delete

    from ratingdb.schema.models import PendingUpload
    from ratingdb.services.users import token_hash

    require_officer(user)
    check_size(content, max_bytes, CORRECTED)
    web_session = _web_session(session, browser_token)
    session.execute(delete(PendingUpload).where(PendingUpload.session_id == web_session))
    token = secrets.token_urlsafe(32)
    name = _base_name(file_name, "corrected.trf")[:255]
    session.add(
        PendingUpload(
            token_hash=token_hash(token), session_id=web_session, event_id=event_id, file_name=name,
            content=content,
        )
    )  # fmt: skip
    session.flush()
    return token


def pending_file(
    session: Session, user: Actor, browser_token: str | None, token: str, event_id: int
) -> tuple[str, bytes]:
    """(name, bytes) of the file keep_pending kept for this session and event, or PENDING_GONE."""
    from ratingdb.schema.models import PendingUpload
    from ratingdb.services.users import token_hash

    require_officer(user)
    found = session.scalar(
        select(PendingUpload).where(
            PendingUpload.token_hash == token_hash(token[:200]),
            PendingUpload.session_id == _web_session(session, browser_token),
            PendingUpload.event_id == event_id,
        )
    )
    if found is None:
        raise ConfigError(PENDING_GONE)
    return found.file_name, found.content


def drop_pending(session: Session, browser_token: str | None) -> None:
    """The session's kept file goes (the event is replaced with it)."""
    from sqlalchemy import delete

    from ratingdb.schema.models import PendingUpload

    session.execute(
        delete(PendingUpload).where(PendingUpload.session_id == _web_session(session, browser_token))
    )


def _web_session(session: Session, browser_token: str | None) -> int:
    from ratingdb.schema.models import WebSession
    from ratingdb.services.users import token_hash

    found = session.scalar(
        select(WebSession.id).where(WebSession.token_hash == token_hash(browser_token or ""))
    )
    if found is None:
        raise ConfigError(PENDING_GONE)
    return found


def reopen(
    session: Session, user: Actor, period: Period, rating_type: str, reason: str, *, include_imported: bool
) -> list[object]:
    """`ratingdb reopen PERIOD --type T --reason TEXT [--include-imported]` (the same service)."""
    from ratingdb.services.corrections import reopen as reopen_period

    require_officer(user)
    return list(reopen_period(session, period, rating_type, reason, include_imported=include_imported))
