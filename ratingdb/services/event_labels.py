"""`event edit`: how an event is shown (name, section, city) as an audited version; no rating changes.

The event row keeps what its file said and cannot change once its period is closed; `edit_event` writes
the next event_label version instead (the previous one withdrawn by the same audit row), which every
report, page and the web API show (ratingdb.titles). Games, ratings and published lists are untouched.
Takes a Session, never commits. No CLI imports.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, NothingToUpdate, UnknownEvent
from ratingdb.formats.limits import CITY, EVENT_NAME, SECTION
from ratingdb.schema.models import Event, EventLabel
from ratingdb.services.versions import record_change, withdraw
from ratingdb.titles import event_title


@dataclass(frozen=True)
class Shown:
    """How an event is shown."""

    name: str
    section: str | None
    city: str | None

    @property
    def title(self) -> str:
        return event_title(self.name, self.section)


def current_label(session: Session, event_id: int) -> EventLabel | None:
    return session.scalar(
        select(EventLabel).where(EventLabel.event_id == event_id, EventLabel.is_current.is_(True))
    )


def shown(session: Session, event: Event) -> Shown:
    """How `event` is shown now: its current label, else what the file said and its section."""
    label = current_label(session, event.id)
    if label is not None:
        return Shown(label.name, label.section, label.city)
    return Shown(event.name, event.section, event.city)


def edit_event(
    session: Session,
    event_id: int,
    *,
    name: str | None = None,
    section: str | None = None,
    city: str | None = None,
    reason: str,
) -> tuple[Shown, Shown]:
    """Show event `event_id` with the given name, section or city ("" clears a section or city) from now
    on; returns (before, after). Refused for a replaced or withdrawn event and when nothing changes."""
    event = session.get(Event, event_id)
    if event is None:
        raise UnknownEvent(f"there is no event {event_id}: `ratingdb events` lists them")
    if not event.is_current:
        raise UnknownEvent(
            f"event {event_id} '{event.name}' was replaced or withdrawn already: edit its current version"
        )
    if not reason.strip():
        raise ConfigError("--reason is empty: say why the event is shown differently")
    label = current_label(session, event_id)
    before = (
        Shown(label.name, label.section, label.city)
        if label
        else Shown(event.name, event.section, event.city)
    )
    after = Shown(
        _text("--name", name, EVENT_NAME, required=True) or before.name if name is not None else before.name,
        _text("--section", section, SECTION) if section is not None else before.section,
        _text("--city", city, CITY) if city is not None else before.city,
    )
    if after == before:
        raise NothingToUpdate(f"event {event_id} is shown as '{before.title}' already — nothing to change")
    change = record_change(
        session,
        "event-edit",
        f"event {event_id}: shown as '{after.title}'{_city(after)} (was '{before.title}'{_city(before)}); "
        "no rating changes",
        reason=reason.strip(),
    )
    if label is not None:
        withdraw(session, label, change)
    session.add(
        EventLabel(
            event_id=event_id,
            name=after.name,
            section=after.section,
            city=after.city,
            version=(label.version + 1) if label else 1,
            created_by=change.id,
        )
    )
    session.flush()
    return before, after


def carry_label(session: Session, old: Event, new_id: int, change_id: int) -> None:
    """A corrected version of an event (replace-event) is shown as the event was."""
    label = current_label(session, old.id)
    if label is not None:
        session.add(
            EventLabel(
                event_id=new_id, name=label.name, section=label.section, city=label.city, created_by=change_id
            )
        )
        session.flush()


def _city(s: Shown) -> str:
    return f", {s.city}" if s.city else ""


def _text(option: str, value: str, longest: int, *, required: bool = False) -> str | None:
    text = " ".join(value.split())
    if not text:
        if required:
            raise ConfigError(f"{option} is empty: give the name the event is to be shown with")
        return None
    if len(text) > longest:
        raise ConfigError(f"{option} is longer than {longest} characters: give a shorter one")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise ConfigError(f"{option} holds a control character: type it plainly")
    return text
