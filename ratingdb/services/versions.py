"""Never change, only supersede: the audit record of a change and the one-way withdrawal of a version.

One mechanism for lists, player details and rule sets (docs/versioning.md). Takes a Session, never
commits; the database triggers refuse anything but what this module does.
"""

from __future__ import annotations

import getpass
import os

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ratingdb.command_line import current_command
from ratingdb.schema.models import AuditEntry, RatingList, Versioned


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
    session.flush()
    return entry


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
