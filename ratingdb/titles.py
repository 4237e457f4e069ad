"""How an event is shown: its name and section ("Bunratty 2011 — Major") and city, as `event edit` left them.

The one display of an event's name for every report, page, export and the web API: `event_title` for a
name and section in hand, `shown_name`/`shown_city` for the same in a query (the current event_label of
the event if `event edit` wrote one, else what the file said and `--section`). Imports only the models.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, case, exists, func, literal, select
from sqlalchemy.orm import Session

from ratingdb.schema.models import Event, EventLabel

# Between a congress's name and the section: "Bunratty 2011 — Major".
SECTION_SEPARATOR = " — "


def event_title(name: str, section: str | None) -> str:
    """An event's name as shown: with its section, if it has one."""
    return f"{name}{SECTION_SEPARATOR}{section}" if section else name


def _label(column: Any, event: Any) -> Any:
    return (
        select(column)
        .where(EventLabel.event_id == event.id, EventLabel.is_current.is_(True))
        .correlate(event)
        .scalar_subquery()
    )


def _labelled(event: Any) -> ColumnElement[bool]:
    return exists().where(EventLabel.event_id == event.id, EventLabel.is_current.is_(True)).correlate(event)


def shown_section(event: Any = Event) -> ColumnElement[str | None]:
    """SQL: the section shown for `event` (the Event entity or an alias of it)."""
    return case((_labelled(event), _label(EventLabel.section, event)), else_=event.section)


def shown_name(event: Any = Event) -> ColumnElement[str]:
    """SQL: `event_title` of `event`'s shown name and section."""
    name = func.coalesce(_label(EventLabel.name, event), event.name)
    section = shown_section(event)
    return case((func.coalesce(section, "") == "", name), else_=name + literal(SECTION_SEPARATOR) + section)


def shown_city(event: Any = Event) -> ColumnElement[str | None]:
    """SQL: the city shown for `event`."""
    return case((_labelled(event), _label(EventLabel.city, event)), else_=event.city)


def title_of(session: Session, event_id: int) -> str:
    """The shown name of one event (for a message or a page that has the event row)."""
    return session.scalar(select(shown_name()).where(Event.id == event_id)) or ""


def city_of(session: Session, event_id: int) -> str | None:
    """The shown city of one event."""
    return session.scalar(select(shown_city()).where(Event.id == event_id))


def shown_section_of(session: Session, event_id: int) -> str | None:
    """The shown section of one event."""
    return session.scalar(select(shown_section()).where(Event.id == event_id))
