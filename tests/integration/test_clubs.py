"""A player's club (issue 47): read from the event lines whose file named one, the latest event's; on a
list, as of the list's date. On every engine (one query, reports.lists.clubs_of)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Engine, update
from sqlalchemy.orm import Session

from ratingdb.reports.list_query import ListQuery, RankedList, query_lines
from ratingdb.reports.lists import clubs_of, list_lines
from ratingdb.schema.models import EventPlayer
from tests import builders


def _club(session: Session, event_id: int, player_id: int, club: str) -> None:
    session.execute(
        update(EventPlayer)
        .where(EventPlayer.event_id == event_id, EventPlayer.player_id == player_id)
        .values(club=club)
    )


def test_a_players_club_is_the_latest_events_and_a_list_shows_it_as_of_its_date(engine: Engine) -> None:
    with Session(engine) as session:
        ann = builders.player(session, "Walsh, Ann", sex="F")
        bob = builders.player(session, "Burke, Bob")
        cian = builders.player(session, "Keane, Cian")
        # September: Ann and Bob play for Kilkenny (KIL); Cian's line names no club (read as a federation).
        september = builders.event(
            session,
            "Kilkenny Congress",
            dt.date(2025, 9, 5),
            dt.date(2025, 9, 7),
            [(ann, bob, "1"), (bob, cian, "=")],
        )
        _club(session, september.id, ann.id, "KIL")
        _club(session, september.id, bob.id, "KIL")
        # October, after the list's date: Ann's file names Galway (GAL).
        october = builders.event(
            session, "Galway Open", dt.date(2025, 10, 10), dt.date(2025, 10, 12), [(ann, cian, "0")]
        )
        _club(session, october.id, ann.id, "GAL")
        # The list of 1 October, imported after September's events (it closes their period).
        lst = builders.imported_list(
            session, "standard", dt.date(2025, 10, 1), {ann: 1800, bob: 1700, cian: 1600}
        )

        assert clubs_of(session) == {ann.id: "GAL", bob.id: "KIL"}
        # The list of 1 October: the clubs of the events before it, Ann's Galway file not yet.
        assert clubs_of(session, dt.date(2025, 10, 1)) == {ann.id: "KIL", bob.id: "KIL"}
        lines = list(list_lines(session, lst))
        assert [(line.name, line.club) for line in lines] == [
            ("Walsh, Ann", "KIL"),
            ("Burke, Bob", "KIL"),
            ("Keane, Cian", None),
        ]
        ranked = RankedList(lines)
        assert ranked.clubs == ["KIL"]
        matched, page = query_lines(ranked, ListQuery(club="KIL"), 2025)
        assert matched == 2 and [line.name for _, line in page] == ["Walsh, Ann", "Burke, Bob"]
        # A club the list does not hold: no line, not every line.
        assert query_lines(ranked, ListQuery(club="GAL"), 2025)[0] == 0
        session.rollback()
