"""Importing a list file: the use case behind `ratingdb import-list` and `ratingdb.api.import_list`.

Here, not in an adapter, is what is decided before a row is written: the file's format (told from its
content unless named), the rating types it gives (a FIDE combined list without a type: all three), and
which importer takes it — a new list or a correction (`update`) by the shared importer
(services.list_import), or by the importer of a system with a list format of its own (a Glicko-2 list
with its deviations and volatilities), as the rule set of the list's period says. Takes a Session and
never commits: the caller's transaction (a dry run's too) makes the list appear whole or not at all. What
the import assumed and found comes back as values; each front end words them. Must not import the CLI or
the web app.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, cast

from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.formats import ListFormat, detect_list_format, read_list
from ratingdb.rating import RATING_TYPES, Period
from ratingdb.services.list_import import ListAssumptions, ListImportSummary, import_list, update_list
from ratingdb.services.list_matching import ListMatching
from ratingdb.services.lists import latest_list
from ratingdb.services.rules import rating_types as known_rating_types
from ratingdb.services.systems import ListImport, systems

LIST_FORMATS: Final = ("csv", "fide-txt", "fide-xml")


@dataclass
class ListFileImport:
    """What importing a list file did: the importer's summary, and what was decided and found around it."""

    summary: ListImportSummary
    format: ListFormat  # as named, or told from the content (a Glicko-2 list: csv)
    rating_types: list[str]
    update: bool  # a correction of the list in force (a new version), not a new list
    system: str | None  # read by a system's own importer (a Glicko-2 list with its deviations); None: shared
    matching: ListMatching  # the choices given, and what the checks found (possible duplicates, …)
    # What a new Elo list assumed where the file is silent (an update keeps what the file does not give).
    assumed: ListAssumptions = field(default_factory=ListAssumptions)


def import_list_file(
    session: Session,
    path: Path,
    *,
    list_date: dt.date | None,
    rating_type: str | None = None,
    format: str | None = None,
    update: bool = False,
    replace: bool = False,
    reason: str | None = None,
    matching: ListMatching | None = None,
    progress: Callable[[int], None] | None = None,
) -> ListFileImport:
    """Import the list file at `path`, as the list(s) dated `list_date`, or with `update` as a new version
    of the list in force (of `list_date`'s when given).

    `rating_type` None: standard, or all three types of a FIDE combined list. `replace` accepts a new full
    list that leaves out many players of the one in force; `reason` is kept in the audit log (needed for an
    update); `matching` holds the choices made for single rows (services.list_matching).
    """
    if update and replace:
        raise ConfigError("a list is either corrected (update) or replaced by a new full list, not both")
    if update and not (reason and reason.strip()):
        raise ConfigError("correcting a list needs a reason, kept in the audit log")
    if not update and list_date is None:
        raise ConfigError("a new list needs its date, the first of a month")
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    if format is not None and format not in LIST_FORMATS:
        raise ConfigError(f"'{format}' is not a list format: use csv, fide-txt or fide-xml")
    chosen = matching or ListMatching(path.name)
    if update and chosen.match_certain:
        raise ConfigError("matching by name, birth year and federation is for a new list, not a correction")
    detected = cast(ListFormat, format) if format is not None else detect_list_format(path)
    types = list_types(session, path, detected, rating_type)
    own = None if types[0] in RATING_TYPES else system_import(session, types[0], list_date)
    if own is not None:
        system, importer = own
        if update:
            summary = importer.corrected_list(
                session, path, rating_type=types[0], reason=reason or "", list_date=list_date,
                progress=progress,
            )  # fmt: skip
        else:
            assert list_date is not None
            summary = importer.new_list(
                session, path, list_date=list_date, rating_type=types[0], replace=replace, reason=reason,
                progress=progress,
            )  # fmt: skip
        return ListFileImport(summary, "csv", types, update, system, chosen)
    assumed = ListAssumptions()
    rows = assumed.watch(read_list(path, format=detected, rating_types=types))
    if update:
        summary = update_list(
            session, rows, rating_types=types, source=path.name, reason=reason or "", list_date=list_date,
            progress=progress, matching=chosen,
        )  # fmt: skip
        return ListFileImport(summary, detected, types, update, None, chosen)
    assert list_date is not None
    # --match-certain's first pass reads the file once more, writing nothing (services.list_matching).
    survey = read_list(path, format=detected, rating_types=types) if chosen.match_certain else None
    summary = import_list(
        session, rows, list_date=list_date, rating_types=types, source=path.name, replace=replace,
        reason=reason, progress=progress, matching=chosen, survey=survey,
    )  # fmt: skip
    return ListFileImport(summary, detected, types, update, None, chosen, assumed)


def list_types(session: Session, path: Path, detected: ListFormat, rating_type: str | None) -> list[str]:
    """The rating types the file gives: `rating_type` (one the database knows), else all three of a FIDE
    combined list, else standard."""
    if rating_type is not None:
        known = known_rating_types(session)
        if rating_type not in known:
            raise ConfigError(f"'{rating_type}' is not a rating type: use one of {', '.join(known)}")
        return [rating_type]
    if detected == "fide-txt" and is_combined_fide_list(path):
        return list(RATING_TYPES)
    return ["standard"]


def is_combined_fide_list(path: Path) -> bool:
    """Whether a FIDE text list holds the three types (its header names SRtng, RRtng and BRtng)."""
    with path.open("rb") as fh:
        header = fh.readline().decode("latin-1")
    return "SRtng" in header and "RRtng" in header and "BRtng" in header


def system_import(
    session: Session, rating_type: str, list_date: dt.date | None
) -> tuple[str, ListImport] | None:
    """The system whose own list format a `rating_type` list is read in, with its importer (by the rule set
    of the list's period, or now); None: the shared importer (an Elo list)."""
    if list_date is None:
        newest = latest_list(session, rating_type)
        if newest is None:
            return None
        list_date = newest.list_date
    period = Period.of(list_date)
    for system in systems():
        importer = system.list_import(session, rating_type, period)
        if importer is not None:
            return system.name, importer
    return None
