"""The events the officer excluded from rating (event_review, issue 50), as the close's queries need them.

One definition for the close, its counts and its warnings: an event whose current review says `exclude`
stays in the database and is not rated. Must not import the CLI, the web app or the reports.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import ColumnElement, Select, select

from ratingdb.schema.models import Event, EventReview

# Raw SQL for the close's bulk reads (services/systems/): the ids of the excluded events.
EXCLUDED_SQL: Final = "SELECT event_id FROM event_review WHERE decision = 'exclude' AND is_current = TRUE"


def excluded_ids() -> Select[int]:
    """SQL: the ids of the events whose current decision is `exclude`."""
    return select(EventReview.event_id).where(
        EventReview.decision == "exclude", EventReview.is_current.is_(True)
    )


def not_excluded(event: type[Event] = Event) -> ColumnElement[bool]:
    """SQL: `event` is not excluded from rating."""
    return event.id.not_in(excluded_ids())
