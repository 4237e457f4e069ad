"""Warnings about events, on import and at the close: an event that (will) rate almost nothing, and one
longer than a single tournament may last. One service for the import, the close summary, `report period`
and the site's close page, which print its sentences as they are.

Takes a Session and reads only. Must not import the CLI, the web app or the reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import NamedTuple

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from ratingdb.i18n import ENGLISH, Language
from ratingdb.schema.models import AuditEntry, Event, EventPlayer, Game, ListEntry, PlayerVersion, RatingList
from ratingdb.services.counts import event_counts
from ratingdb.services.exclusions import not_excluded
from ratingdb.services.lists import ListsOnDates
from ratingdb.titles import title_of

__all__ = ["FEW_RATED", "LONGEST_EVENT_DAYS", "close_warnings", "import_warnings"]

# An event of which fewer than a tenth of the games are rated is worth a look before the list goes out:
# players the import could not match (registered anew, so unrated), a section of unrated players.
FEW_RATED = Fraction(1, 10)
# FIDE's Rating Regulations (B.02, duration of tournaments) let a tournament last at most 90 days, leagues
# and tournaments the Qualification Commission sanctions excepted; the project's rulebook is silent on it
# (docs/rules/index.md, Readings). Longer events are rated, with a warning.
LONGEST_EVENT_DAYS = 90


class _Game(NamedTuple):
    white: int
    black: int | None
    played: bool


def import_warnings(session: Session, event_ids: Iterable[int]) -> list[str]:
    """For events just imported: those that can rate fewer than a tenth of their games, and the long ones.

    A game can be rated when a player has a rating at the event's start (§3; for rapid and blitz, also a
    standard rating, §7): the close rates it for the rated player or pools it toward the other's first
    rating.
    """
    events = _events(session, select(Event).where(Event.id.in_(sorted(set(event_ids)))))
    return [w for e in events for w in _warnings(session, e, rated=None, closed=False)]


def close_warnings(
    session: Session,
    list_id: int,
    lang: Language = ENGLISH,
    *,
    figures: Mapping[int, tuple[int, int]] | None = None,
) -> list[str]:
    """For the events of the close that published `list_id`: those it rated little of, and the long ones
    (in English for the CLI; the close page passes its language).

    `figures`, from the close itself: per event, its games played and the games in the record, as
    `event_counts` counts them (then they are not counted again).
    """
    published = session.get(RatingList, list_id)
    if published is None or published.period is None:
        return []
    events = _events(
        session,
        select(Event).where(
            Event.period == published.period,
            Event.rating_type == published.rating_type,
            Event.is_current.is_(True),
            not_excluded(),
        ),
    )
    if figures is None:
        counted = event_counts(session, [e.id for e in events], list_id)
        figures = {event_id: (c.games_played, c.games_rated) for event_id, c in counted.items()}
    # The counts decide which events can have a warning at all: only those read their games and players
    # (four queries an event, most of the close's summary at `national` when asked of all 77).
    return [
        w
        for e in events
        if _may_warn(e, *figures[e.id])
        for w in _warnings(session, e, rated=figures[e.id][1], closed=True, lang=lang)
    ]


def _may_warn(event: Event, played: int, rated: int) -> bool:
    """Whether `_warnings` can find anything for a closed event: few of its played games rated (the same
    test as there, on the same figures), or longer than one tournament may last."""
    few = not played or Fraction(rated, played) < FEW_RATED
    return few or (event.end_date - event.start_date).days + 1 > LONGEST_EVENT_DAYS


def _events(session: Session, query: object) -> list[Event]:
    return list(session.scalars(query.order_by(Event.start_date, Event.id)))  # type: ignore[attr-defined]


def _warnings(
    session: Session, event: Event, *, rated: int | None, closed: bool, lang: Language = ENGLISH
) -> list[str]:
    found: list[str] = []
    named = lang.gettext("event %(id)s '%(name)s'") % {"id": event.id, "name": title_of(session, event.id)}
    games = [
        _Game(white, black, bool(played) and black is not None)
        for white, black, played in session.execute(
            select(Game.white_id, Game.black_id, Game.rated).where(Game.event_id == event.id)
        )
    ]
    played = [g for g in games if g.played]
    rated_at_start = _rated_at_start(session, event)
    # Before any list of its type: import-trf's rating note says the list is missing (no second warning).
    if rated_at_start is not None:
        rateable = [g for g in played if g.white in rated_at_start or g.black in rated_at_start]
        n_rated = len(rateable) if rated is None else rated
        if not played or Fraction(n_rated, len(played)) < FEW_RATED:
            found.append(
                _few_rated(session, event, named, games, played, rated_at_start, n_rated, closed, lang)
            )
    days = (event.end_date - event.start_date).days + 1
    if days > LONGEST_EVENT_DAYS:
        found.append(_long_event(event, named, days, lang))
    return found


def _few_rated(
    session: Session,
    event: Event,
    named: str,
    games: list[_Game],
    played: list[_Game],
    rated_at_start: set[int],
    n_rated: int,
    closed: bool,
    lang: Language = ENGLISH,
) -> str:
    _ = lang.gettext
    unplayed = len(games) - len(played)
    byes = _("byes/forfeits: %(n)s") % {"n": unplayed}
    if not played:
        return _("%(event)s: no game was played over the board, nothing to rate (%(byes)s)") % {
            "event": named,
            "byes": byes,
        }
    new = _registered_by_its_import(session, event.id)
    not_rated = [g for g in played if g.white not in rated_at_start and g.black not in rated_at_start]
    unregistered = sum(1 for g in not_rated if g.white in new or g.black in new)
    reasons = [
        _("unrated opponents: %(n)s") % {"n": len(not_rated) - unregistered},
        _("unregistered players: %(n)s") % {"n": unregistered},
    ]
    other = len(played) - n_rated - len(not_rated)
    if other > 0:  # both rated, yet not rated: further apart than the rules allow (rapid/blitz)
        reasons.append(_("rating difference: %(n)s") % {"n": other})
    reasons.append(byes)
    sentence = (
        _("%(event)s: %(rated)s of %(played)s games rated — not rated: %(reasons)s")
        if closed
        else _("%(event)s: %(rated)s of %(played)s games can be rated — not rated: %(reasons)s")
    ) % {"event": named, "rated": n_rated, "played": len(played), "reasons": ", ".join(reasons)}
    if new:
        players = session.scalar(select(func.count()).where(EventPlayer.event_id == event.id)) or 0
        sentence += _(
            "; %(new)s of its %(players)s players were registered anew by its import (a line without a "
            "FIDE or national ID matches no registered player: check the file's ID columns, or match the "
            "lines with --match RANK=ID)"
        ) % {"new": len(new), "players": players}
    return sentence


def _long_event(event: Event, named: str, days: int, lang: Language = ENGLISH) -> str:
    return lang.gettext(
        "%(event)s lasted %(days)s days (%(start)s … %(end)s), longer than the %(longest)s days FIDE's "
        "regulations allow one tournament (leagues excepted), and is rated as one event in period "
        "%(period)s with the ratings at its start: to rate each month's games with the list then in "
        "force, import each month's rounds as an event"
    ) % {
        "event": named,
        "days": days,
        "start": event.start_date.isoformat(),
        "end": event.end_date.isoformat(),
        "longest": LONGEST_EVENT_DAYS,
        "period": event.period,
    }


def _rated_at_start(session: Session, event: Event) -> set[int] | None:
    """The event's players with a rating on the list its ratings come from (§3; rapid/blitz: or
    standard); None when the database has no list of its type."""
    kinds = [event.rating_type] + (["standard"] if event.rating_type in ("rapid", "blitz") else [])
    lists = ListsOnDates(session, kinds)
    list_ids = []
    for kind in kinds:
        found = lists.for_event(kind, event.start_date)
        if found is not None:
            list_ids.append(found[0])
    if not list_ids:
        return None
    players = select(EventPlayer.player_id).where(EventPlayer.event_id == event.id)
    return set(
        session.scalars(
            select(ListEntry.player_id).where(
                ListEntry.list_id.in_(list_ids),
                ListEntry.rating.is_not(None),
                ListEntry.player_id.in_(players),
            )
        )
    )


def _registered_by_its_import(session: Session, event_id: int) -> set[int]:
    """The event's players registered by an import for whom this is the first event: new to the register."""
    other = aliased(EventPlayer)
    earlier = select(other.event_id).where(
        other.player_id == EventPlayer.player_id, other.event_id < event_id
    )
    return set(
        session.scalars(
            select(EventPlayer.player_id)
            .join(
                PlayerVersion,
                (PlayerVersion.player_id == EventPlayer.player_id) & (PlayerVersion.version == 1),
            )
            .join(AuditEntry, AuditEntry.id == PlayerVersion.created_by)
            .where(EventPlayer.event_id == event_id, AuditEntry.action == "import-trf", ~earlier.exists())
        )
    )
