"""The norm report's service on every engine: the list in force as the close picks it, long events (1.4.6)."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session

from ratingdb import db
from ratingdb.errors import ConfigError
from ratingdb.reports.norms import NormOptions, event_norms, system_from_file
from ratingdb.schema.models import Event, EventPlayer, Game, Player
from ratingdb.services.players import Details, register_player
from ratingdb.services.versions import record_change
from tests import builders as b

FEDS = ["GER", "FRA", "ESP", "ITA", "NED", "BEL", "SUI", "AUT", "POL"]
JAN, FEB = dt.date(2025, 1, 1), dt.date(2025, 2, 1)
LONG = (
    "the event lasted 46 days (more than 30): each game is checked with the ratings of the list in force "
    "on its day (1.4.6): "
)


def _registered(s: Session, name: str, federation: str, title: str | None, fide_id: int) -> Player:
    audit = record_change(s, "test", f"registered {name}").id
    return register_player(
        s,
        Details(name=name, birth_year=1990, sex="M", fide_id=fide_id, federation=federation, title=title),
        audit,
    )


def _long_event(engine: Engine, end: dt.date, undated_round: int | None = None) -> int:
    """Hero (ENG) against nine GMs of nine federations, rated 2400 on January's list and 2500 on
    February's; rounds 1–4 played in January, 5–9 in February; 6½/9 (W W W W W W D L L)."""
    with db.transaction(engine) as s:
        hero = _registered(s, "Hero, H", "ENG", None, 7000001)
        gms = [_registered(s, f"Master, {i}", FEDS[i], "GM", 7000010 + i) for i in range(9)]
        b.imported_list(s, "standard", JAN, {hero: 2450} | {p: 2400 for p in gms})
        b.imported_list(s, "standard", FEB, {hero: 2450} | {p: 2500 for p in gms})
        results = ["1"] * 6 + ["=", "0", "0"]
        ev = b.event(
            s, "Long league", dt.date(2025, 1, 5), end, list(zip([hero] * 9, gms, results, strict=True))
        )
        for game in s.scalars(select(Game).where(Game.event_id == ev.id)):
            game.date = (
                None if game.round == undated_round else dt.date(2025, 1 if game.round <= 4 else 2, 10)
            )
        return ev.id


@pytest.mark.parametrize(
    ("end", "undated", "ra", "rp", "met", "note"),
    [
        # 4 × 2400 + 5 × 2500 = 22100 → 2455.6 → 2456; 6½/9 → 72 % → dp 166 → Rp 2622 ≥ 2600: a GM norm.
        (dt.date(2025, 2, 20), None, 2456, 2622, True,
         LONG + "lists of 2025-01-01, 2025-02-01"),
        # Round 9 without a date takes the start list: 5 × 2400 + 4 × 2500 = 22000 → 2444.4 → 2444 → 2610.
        (dt.date(2025, 2, 20), 9, 2444, 2610, True,
         LONG + "lists of 2025-01-01, 2025-02-01; 1 game(s) without a date use the list at the start"),
        # 30 days exactly is not longer than 30: January's list for every game, Ra 2400 → Rp 2566.
        (dt.date(2025, 2, 4), None, 2400, 2566, False, None),
    ],
)  # fmt: skip
def test_an_event_longer_than_30_days_uses_the_list_of_each_games_day(
    engine: Engine, end: dt.date, undated: int | None, ra: int, rp: int, met: bool, note: str | None
) -> None:
    event_id = _long_event(engine, end, undated)
    with db.transaction(engine) as s:
        report = event_norms(s, event_id, NormOptions())
    assert report.ratings_from == JAN
    assert report.rating_notes == ((note,) if note else ())
    assert report.system_source == "assumed (no 092 line; --system sets it)"
    hero = next(p for p in report.players if p.name == "Hero, H")
    gm = hero.check("GM")
    assert (gm.average_rating, gm.performance, gm.met) == (ra, rp, met)


def test_the_ratings_are_those_of_the_list_the_close_uses(engine: Engine) -> None:
    # An event that starts on 2025-01-31 uses January's list, though it ends in February (spec §3).
    event_id = _long_event(engine, dt.date(2025, 2, 3))
    with db.transaction(engine) as s:
        event = s.get_one(Event, event_id)
        event.start_date = dt.date(2025, 1, 31)
    with db.transaction(engine) as s:
        report = event_norms(s, event_id, NormOptions())
        assert (report.ratings_from, report.per_game) == (JAN, False)
        assert {g.counted_rating for g in report.players[0].check("GM").games} == {2400}


def test_an_opponent_without_a_line_in_the_event_is_read_from_the_register(engine: Engine) -> None:
    # The games name the nine GMs but the event has a line for the hero only: their names, titles,
    # federations and January ratings still come from the register and the list (it was a KeyError, an
    # error page on the served site). Ra 2400 and Rp 2566 as in the 30-day case above.
    event_id = _long_event(engine, dt.date(2025, 2, 4))
    with db.transaction(engine) as s:
        hero_id = s.scalars(select(Player.id).where(Player.name == "Hero, H")).one()
        others = EventPlayer.player_id != hero_id
        s.execute(delete(EventPlayer).where(EventPlayer.event_id == event_id, others))
    with db.transaction(engine) as s:
        report = event_norms(s, event_id, NormOptions())
    assert [p.name for p in report.players] == ["Hero, H"]
    gm = report.players[0].check("GM")
    assert (gm.average_rating, gm.performance, gm.met) == (2400, 2566, False)
    assert sorted(g.opponent for g in gm.games) == [f"Master, {i}" for i in range(9)]


def test_options_are_checked_before_any_player(engine: Engine) -> None:
    event_id = _long_event(engine, dt.date(2025, 2, 3))
    with db.transaction(engine) as s, pytest.raises(ConfigError, match=r"1.4.3d is for Swiss events only"):
        event_norms(s, event_id, NormOptions(system="round_robin", swiss_1_4_3d=True))


@pytest.mark.parametrize(
    ("text", "system"),
    [
        ("Individual: Swiss-System (Standard)", "swiss"),
        ("Individual: round robin", "round_robin"),
        ("Double round-robin", "double_round_robin"),
        ("Knock-out", "knockout"),
        ("Rundenturnier", "round_robin"),
        ("Open", None),
        (None, None),
    ],
)
def test_the_system_is_read_from_the_files_092_line(text: str | None, system: str | None) -> None:
    assert system_from_file(text) == system


def test_the_published_event_page_shows_the_norms(engine: Engine) -> None:
    import html5lib

    from ratingdb.site.publish import SiteOptions, event_path, site_files

    event_id = _long_event(engine, dt.date(2025, 2, 20))
    with db.transaction(engine) as s:
        pages = dict(site_files(s, SiteOptions()))
    page = pages[event_path(event_id)].decode("utf-8")
    tree = html5lib.parse(page, namespaceHTMLElements=False)
    section = tree.find(".//section[@class='norms']")
    assert section is not None
    rows = [["".join(td.itertext()) for td in tr.findall("td")] for tr in section.findall(".//tbody/tr")]
    # The GM norm of the long league (4 × 2400 + 5 × 2500 → Ra 2456, 6½/9 → Rp 2622), and the IM norm the
    # same games make (no opponent below either floor, so the same figures).
    assert rows == [
        ["Hero, H", "GM", "9", "6½", "2456", "2622", "GM norm met"],
        ["Hero, H", "IM", "9", "6½", "2456", "2622", "IM norm met"],
    ]
    assert "with the ratings of the list dated Jan 1, 2025" in "".join(section.itertext())


def test_a_rapid_event_is_refused_and_the_site_shows_no_norms_for_it(engine: Engine) -> None:
    from ratingdb.reports.norms import published_norms

    with db.transaction(engine) as s:
        a, c = b.player(s, "Rapid, A"), b.player(s, "Rapid, C")
        b.imported_list(s, "rapid", JAN, {a: 2000, c: 2000})
        ev = b.event(
            s, "Lightning", dt.date(2025, 1, 5), dt.date(2025, 1, 5), [(a, c, "1")], rating_type="rapid"
        )
        event_id = ev.id
    with db.transaction(engine) as s:
        with pytest.raises(
            ConfigError, match=r"^event \d+ is rapid: title norms come from standard games only"
        ):
            event_norms(s, event_id)
        assert published_norms(s, event_id) is None
