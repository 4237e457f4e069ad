"""Never change, only supersede: the audit record of a change and the one-way withdrawal of a version.

One mechanism for lists, player details and rule sets (docs/versioning.md). Takes a Session, never
commits; the database triggers refuse anything but what this module does.
"""

from __future__ import annotations

import getpass
import os
from functools import cache
from typing import Final

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from ratingdb.command_line import current_command
from ratingdb.schema.models import AuditEntry, PublicChange, RatingList, Versioned

# The audit actions of what the public never sees: accounts and submissions (a submission becomes public
# only when accepted, by its import). Every other audited change is a public change.
PRIVATE_ACTIONS: Final = ("user-", "submission")


def actor() -> str:
    """Who is making the change: RATINGDB_USER, else the operating-system login."""
    configured = os.environ.get("RATINGDB_USER", "").strip()
    if configured:
        return configured[:100]
    try:
        return getpass.getuser()[:100]
    except (OSError, KeyError):
        return "unknown"


def record_change(session: Session, action: str, detail: str, *, reason: str | None = None) -> AuditEntry:
    """Write the audit row that a new or withdrawn version points at (who, why, when, which command).

    The actor is the signed-in web user where the served site set `session.info["actor"]`
    (ratingdb.web.desk), else `actor()`.
    """
    who = session.info.get("actor") or actor()
    entry = AuditEntry(action=action, detail=detail, reason=reason, actor=who, command=current_command.get())
    session.add(entry)
    if not action.startswith(PRIVATE_ACTIONS):
        session.add(PublicChange())
    session.flush()
    return entry


def public_change(session: Session) -> None:
    """Record that what the public sees changes with this transaction (a new data version for the served
    site's pages and live ratings: ratingdb.reports.live.data_version). record_change does it for every
    audited change but those of accounts and submissions; an import that registers nobody writes no audit
    entry and calls this itself."""
    session.add(PublicChange())
    session.flush()


def data_version(session: Session) -> int:
    """The public data version (a cache key): the newest public change (schema.models.PublicChange), which
    every import, close, correction, register and rule-set edit writes and no submission, sign-in or desk
    view does (issue 54: keyed on the audit log, each upload made every page be made again). A stored
    check of a submission keeps the version it saw, so the queue knows when it may be out of date."""
    return int(session.connection().scalar(data_version_query()) or 0)


@cache
def data_version_query() -> Select[tuple[int]]:
    """The query of data_version, built once: every served request asks it, as its read transaction's
    first statement (db.read_snapshot), and building the statement, finding its compiled form by its cache
    key and the ORM's handling cost more than the query (issue 28)."""
    return select(func.coalesce(func.max(PublicChange.id), 0))


def withdraw(session: Session, row: Versioned, change: AuditEntry) -> None:
    """Mark `row` withdrawn by `change`: the only update a versioned row ever accepts."""
    if row.is_current is None:
        raise ValueError("already withdrawn")  # a bug in the caller: it must only withdraw current rows
    row.is_current = None
    row.withdrawn_by = change.id
    session.flush()


def next_list_version(session: Session, rating_type: str, list_date: object) -> int:
    """The version number a new list of (type, date) gets: one more than any before, withdrawn included."""
    highest = session.scalar(
        select(func.max(RatingList.version)).where(
            RatingList.rating_type == rating_type, RatingList.list_date == list_date
        )
    )
    return (highest or 0) + 1


def seal(session: Session, rating_list: RatingList) -> None:
    """Seal a list once its rows are written: from then on no row can be added, changed or removed."""
    rating_list.sealed = True
    session.flush()
