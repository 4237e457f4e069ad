"""Matching never gives a line to another registered player without an option saying so (issue 24):
neither a tournament line (import-trf) nor a list row (import-list).

The register: the real Irish Junior Championships 2011 (34 players, ICU numbers, --id-field national).
Hypothesis then edits its lines as files get them wrong — two digits of an ID swapped, the accents
dropped, the name order swapped ("Mark Finnegan"), another player's ID — and imports the edited file
as another tournament, inside a transaction rolled back afterwards. Whatever the edits, each line is
either refused (the whole file), or given to the player who had its original ID, or to a new player:
never to a different registered player. Edits that leave the ID alone and only touch accents or order
always find the original player.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from ratingdb import db
from ratingdb.errors import RatingDbError
from ratingdb.formats import ListRating, ListRow, TrfEvent, read_trf
from ratingdb.schema.models import EventPlayer, ListEntry, Player
from ratingdb.services.choices import ImportChoices
from ratingdb.services.events import import_events
from ratingdb.services.list_import import import_list
from ratingdb.services.rules import add_rule_set
from tests.cli.test_export_trf_roundtrip import SEEDS

JUNIOR = read_trf(
    Path(__file__).resolve().parent.parent / "fixtures" / "trf" / "icu-irish_junior_champs_2011.tab"
)
RANKS = [p.rank for p in JUNIOR.players]
KINDS = ("swap digits", "drop accents", "swap order", "another's ID")


def _plain(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def _swapped(name: str) -> str:
    last, _, first = name.partition(",")
    return f"{first.strip()} {last.strip()}" if first else name


def _digits_swapped(value: int, at: int) -> int:
    text = str(value)
    i = at % max(1, len(text) - 1)
    if len(text) < 2:
        return value
    swapped = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
    return int(swapped) if not swapped.startswith("0") else value


def edit(trf: TrfEvent, edits: list[tuple[int, str, int]]) -> TrfEvent:
    players = {p.rank: p for p in trf.players}
    for rank, kind, n in edits:
        p = players[rank]
        if kind == "swap digits" and p.fide_id:
            p = dataclasses.replace(p, fide_id=_digits_swapped(p.fide_id, n))
        elif kind == "drop accents":
            p = dataclasses.replace(p, name=_plain(p.name))
        elif kind == "swap order":
            p = dataclasses.replace(p, name=_swapped(p.name))
        elif kind == "another's ID":
            other = JUNIOR.players[n % len(JUNIOR.players)]
            p = dataclasses.replace(p, fide_id=other.fide_id)
        players[rank] = p
    return dataclasses.replace(
        trf,
        name="Summer Open",
        sha256="e" * 64,
        players=tuple(players[p.rank] for p in trf.players),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.lists(
        st.tuples(st.sampled_from(RANKS), st.sampled_from(KINDS), st.integers(0, 40)), min_size=1, max_size=4
    )
)
def test_random_edits_never_attach_a_line_to_another_registered_player(
    registered: str, edits: list[tuple[int, str, int]]
) -> None:
    engine = db.make_engine(registered)
    original = {
        p.rank: str(p.fide_id) for p in JUNIOR.players
    }  # ICU numbers, as --id-field national reads them
    try:
        with db.session_factory(engine)() as s:
            s.begin()
            try:
                before = {pid for pid in s.scalars(select(Player.id))}
                try:
                    import_events(
                        s,
                        [edit(JUNIOR, edits)],
                        ImportChoices(rating_type="standard", id_field="national"),
                    )
                except RatingDbError:
                    return  # refused whole: the officer decides
                attached = {
                    rank: (pid, national)
                    for rank, pid, national in s.execute(
                        select(EventPlayer.start_rank, Player.id, Player.national_id)
                        .join(Player, Player.id == EventPlayer.player_id)
                        .where(
                            EventPlayer.event_id == select(func.max(EventPlayer.event_id)).scalar_subquery()
                        )
                    )
                }
                for rank, (pid, national) in attached.items():
                    assert pid not in before or national == original[rank], (rank, edits)
                id_kept = {r for r, kind, _ in edits if kind in ("swap digits", "another's ID")}
                for rank, kind, _ in edits:
                    if kind in ("drop accents", "swap order") and rank not in id_kept:
                        assert attached[rank][1] == original[rank], (rank, edits)
            finally:
                s.rollback()
    finally:
        engine.dispose()


def junior_list(edits: list[tuple[int, str, int]]) -> list[ListRow]:
    """The Junior Championships' players as a list file would give them (ICU numbers in the national ID
    column, each rated 1500), with the edits of a rank applied to its row."""
    rows = {
        p.rank: ListRow(
            line=p.rank + 1,
            fide_id=None,
            national_id=str(p.fide_id),
            name=p.name,
            federation=p.federation,
            sex=p.sex,
            title=None,
            birth_year=p.birth_year,
            flag=None,
            ratings={"standard": ListRating(rating=1500, games=0, k=20)},
        )
        for p in JUNIOR.players
    }
    for rank, kind, n in edits:
        r = rows[rank]
        if kind == "swap digits" and r.national_id:
            r.national_id = str(_digits_swapped(int(r.national_id), n))
        elif kind == "drop accents":
            r.name = _plain(r.name)
        elif kind == "swap order":
            r.name = _swapped(r.name)
        elif kind == "another's ID":
            r.national_id = str(JUNIOR.players[n % len(JUNIOR.players)].fide_id)
    return list(rows.values())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.lists(
        st.tuples(st.sampled_from(RANKS), st.sampled_from(KINDS), st.integers(0, 40)), min_size=1, max_size=4
    )
)
def test_random_edits_of_a_list_never_give_a_row_to_another_registered_player(
    registered: str, edits: list[tuple[int, str, int]]
) -> None:
    engine = db.make_engine(registered)
    original = {p.rank + 1: str(p.fide_id) for p in JUNIOR.players}  # line → the row's real ICU number
    try:
        with db.session_factory(engine)() as s:
            s.begin()
            try:
                before = {pid for pid in s.scalars(select(Player.id))}
                rows = junior_list(edits)
                try:
                    summary = import_list(
                        s, rows, list_date=dt.date(2011, 7, 1), rating_types=["standard"], source="junior.csv"
                    )
                except RatingDbError:
                    return  # refused whole: the officer decides
                # Rows are written in file order; each row's entry is found through the ID it carried.
                given = {
                    national: (pid, registered_id)
                    for national, pid, registered_id in s.execute(
                        select(Player.national_id, Player.id, Player.national_id)
                        .join(ListEntry, ListEntry.player_id == Player.id)
                        .where(ListEntry.list_id == summary.lists["standard"])
                    )
                }
                for r in rows:
                    pid, national = given[r.national_id]
                    assert pid not in before or national == original[r.line], (r.line, edits)
            finally:
                s.rollback()
    finally:
        engine.dispose()


def test_the_unedited_list_gives_every_row_to_its_registered_player(registered: str) -> None:
    # The property's baseline: without edits the import goes through, registering nobody.
    engine = db.make_engine(registered)
    try:
        with db.session_factory(engine)() as s:
            s.begin()
            try:
                summary = import_list(
                    s,
                    junior_list([]),
                    list_date=dt.date(2011, 7, 1),
                    rating_types=["standard"],
                    source="j.csv",
                )
                assert (summary.new_players, summary.entries["standard"]) == (0, len(JUNIOR.players))
            finally:
                s.rollback()
    finally:
        engine.dispose()


@pytest.fixture
def registered(db_url: str) -> str:
    text = (SEEDS / "national-2025.toml").read_text(encoding="utf-8")
    text = text.replace('name = "national-2025"', 'name = "history-2000"')
    text = text.replace('rating_type = "national"', 'rating_type = "standard"')
    text = text.replace(
        'effective_from = "2020-01"', 'effective_from = "2000-01"\neffective_until = "2021-12"'
    )
    engine = db.make_engine(db_url)
    with db.transaction(engine) as s:
        add_rule_set(s, text, source="history-2000.toml")
        import_events(s, [JUNIOR], ImportChoices(rating_type="standard", id_field="national"))
    engine.dispose()
    return db_url
