"""A federation's own rule set stored in the database: a national list, its floor, and its versions."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from ratingdb import db
from ratingdb.errors import InvalidRuleFile, RuleSetConflict
from ratingdb.rating import Period
from ratingdb.schema.models import AuditEntry, CalcPlayer, ListEntry, ListRuleSet, RatingList, StoredRuleSet
from ratingdb.services.rules import add_rule_set, list_rule_set, rating_types
from tests import builders as b
from tests.integration.test_close import close, entry

NATIONAL = (Path(__file__).parents[2] / "seeds" / "national-2025.toml").read_text(encoding="utf-8")
SEP = Period(2025, 9)
OCT = Period(2025, 10)


def add(engine: Engine, text: str = NATIONAL, source: str = "national-2025.toml") -> StoredRuleSet:
    with db.transaction(engine) as s:
        return add_rule_set(s, text, source=source).row


def national_close(engine: Engine) -> dict[str, int]:
    # K 40 for everyone here. "Low" (1050) loses to three 1050s (PD .50: −.50 each) and to 1240
    # (D −190 → PD .25: −.25): Σ dR = −1.75, × 40 = −70 → 980, below the national floor of 1000: unrated.
    # "Club" (1200) loses to 1240: D −40 → PD .44 → −.44 × 40 = −17.6 → −18 → 1182, rated (FIDE's floor
    # of 1400 would have nothing to do with a national list).
    add(engine)
    with db.transaction(engine) as s:
        low, club, top = b.player(s, "Low, L"), b.player(s, "Club, C"), b.player(s, "Top, T")
        equals = [b.player(s, f"Equal, {i}") for i in range(3)]
        listed = {low: (1050, 40), club: (1200, 40), top: (1240, 40)} | {p: (1050, 40) for p in equals}
        b.imported_list(s, "national", SEP.first_day, listed, games_total=10)
        games = [(low, p, "0") for p in equals] + [(low, top, "0"), (club, top, "0")]
        b.event(
            s, "National weekender", dt.date(2025, 9, 6), dt.date(2025, 9, 7), games, rating_type="national"
        )
        ids = {"low": low.id, "club": club.id, "top": top.id}
    summary = close(engine, SEP, "national")
    assert (summary.rules, summary.floor) == ("national-2025", 1000)
    return ids


def test_a_national_list_keeps_a_1200_player_and_drops_1050_to_980_at_its_floor(engine: Engine) -> None:
    ids = national_close(engine)
    low = entry(engine, ids["low"], OCT.first_day, "national")
    club = entry(engine, ids["club"], OCT.first_day, "national")
    assert (low.rating, low.pool_from) == (None, "2025-10")
    assert (club.rating, club.change) == (1182, -18)
    with db.transaction(engine) as s:
        assert rating_types(s) == ["standard", "rapid", "blitz", "national"]


def test_a_list_closed_under_a_stored_rule_set_is_unchanged_when_the_file_is_edited_and_added_again(
    engine: Engine,
) -> None:
    ids = national_close(engine)
    with db.transaction(engine) as s:
        closed = s.scalars(
            select(RatingList).where(RatingList.rating_type == "national", RatingList.origin == "computed")
        ).one()
        before = sorted(
            s.execute(
                select(ListEntry.player_id, ListEntry.rating).where(ListEntry.list_id == closed.id)
            ).all()
        )
        first = list_rule_set(s, closed.id)
        assert first is not None and (first.version, first.content) == (1, NATIONAL)
        closed_id = closed.id
    edited = NATIONAL.replace("rating = 1000 ", "rating = 1100 ")
    second = add(engine, edited)
    assert second.version == 2
    with db.transaction(engine) as s:
        after = sorted(
            s.execute(
                select(ListEntry.player_id, ListEntry.rating).where(ListEntry.list_id == closed_id)
            ).all()
        )
        still = list_rule_set(s, closed_id)
        versions = s.execute(
            select(StoredRuleSet.version, StoredRuleSet.is_current).order_by(StoredRuleSet.version)
        ).all()
        audit = s.scalars(
            select(AuditEntry.detail).where(AuditEntry.action == "rules-add").order_by(AuditEntry.id)
        ).all()
    assert after == before
    assert still is not None and (still.version, still.content, still.is_current) == (1, NATIONAL, None)
    assert versions == [(1, None), (2, True)]
    assert audit[1].startswith("replaced version 1 of rule set 'national-2025' (national, 2020-01 on)")
    # The next close follows version 2 (floor 1100; nobody plays, so 1182 stays) and points at it.
    summary = close(engine, OCT, "national")
    assert summary.floor == 1100
    with db.transaction(engine) as s:
        nov = s.scalars(
            select(RatingList).where(
                RatingList.rating_type == "national", RatingList.list_date == dt.date(2025, 11, 1)
            )
        ).one()
        linked = list_rule_set(s, nov.id)
        assert linked is not None and linked.version == 2
    assert entry(engine, ids["club"], dt.date(2025, 11, 1), "national").rating == 1182


def test_adding_the_same_file_again_changes_nothing(engine: Engine) -> None:
    add(engine)
    with db.transaction(engine) as s:
        again = add_rule_set(s, NATIONAL, source="copy.toml")
        assert again.unchanged and again.row.version == 1
    with db.transaction(engine) as s:
        assert s.scalar(select(func.count()).select_from(StoredRuleSet)) == 1
        assert s.scalar(select(func.count()).where(AuditEntry.action == "rules-add")) == 1


BAD_VALUE = NATIONAL.replace("value = 40\n", 'value = "forty"\n', 1)
FIDE_NAME = NATIONAL.replace('name = "national-2025"', 'name = "standard-2025-10"')
OVERLAP = NATIONAL.replace('name = "national-2025"', 'name = "standard-2019"').replace(
    'rating_type = "national"', 'rating_type = "standard"'
)


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        (
            BAD_VALUE,
            InvalidRuleFile,
            "national.toml: k.rule[2].value: 'forty' is not a whole number: "
            "write a whole number from 1 to 1000",
        ),
        (
            FIDE_NAME,
            InvalidRuleFile,
            "national.toml: name: 'standard-2025-10' is one of FIDE's built-in rule sets: "
            "give your set its own name",
        ),
        (
            OVERLAP,
            RuleSetConflict,
            "national.toml: standard periods 2020-01 on overlap the rule set 'standard-2022-01' "
            "(2022-01 … 2024-02): change effective_from or effective_until so one set covers each period",
        ),
    ],
)
def test_a_rule_set_that_cannot_be_used_is_refused_and_nothing_is_stored(
    engine: Engine, text: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as refused, db.transaction(engine) as s:
        add_rule_set(s, text, source="national.toml")
    assert str(refused.value) == message
    with db.transaction(engine) as s:
        assert s.scalar(select(func.count()).select_from(StoredRuleSet)) == 0
        assert s.scalar(select(func.count()).select_from(ListRuleSet)) == 0


def test_a_stored_rule_set_can_rate_history_fide_does_not_cover(engine: Engine) -> None:
    # A federation replaying 2021 writes its own standard set for the periods before FIDE's built-in sets.
    older = (
        NATIONAL.replace('name = "national-2025"', 'name = "standard-2021"')
        .replace('rating_type = "national"', 'rating_type = "standard"')
        .replace('effective_from = "2020-01"', 'effective_from = "2021-01"')
        .replace(
            '# effective_until = "YYYY-MM"   # the last period; left out: no end',
            'effective_until = "2021-12"',
        )
    )
    add(engine, older, "standard-2021.toml")
    with db.transaction(engine) as s:
        a, c = b.player(s, "A, A"), b.player(s, "C, C")
        b.imported_list(s, "standard", dt.date(2021, 6, 1), {a: (1500, 20), c: (1500, 20)})
        b.event(s, "Club", dt.date(2021, 6, 5), dt.date(2021, 6, 5), [(a, c, "1")])
        a_id = a.id
    summary = close(engine, Period(2021, 6))
    assert summary.rules == "standard-2021"
    assert entry(engine, a_id, dt.date(2021, 7, 1)).rating == 1510


def test_a_rule_set_may_keep_a_player_at_its_floor_instead_of_unrating_them(engine: Engine) -> None:
    # The same close as above under below = "floor": Low's 980 is published as 1000, not unrated.
    kept = NATIONAL.replace('below = "unrated"', 'below = "floor"  ')
    assert kept != NATIONAL
    add(engine, kept)
    with db.transaction(engine) as s:
        low, top = b.player(s, "Low, L"), b.player(s, "Top, T")
        equals = [b.player(s, f"Equal, {i}") for i in range(3)]
        listed = {low: (1050, 40), top: (1240, 40)} | {p: (1050, 40) for p in equals}
        b.imported_list(s, "national", SEP.first_day, listed, games_total=10)
        games = [(low, p, "0") for p in equals] + [(low, top, "0")]
        b.event(s, "Weekender", dt.date(2025, 9, 6), dt.date(2025, 9, 7), games, rating_type="national")
        low_id = low.id
    close(engine, SEP, "national")
    low_entry = entry(engine, low_id, OCT.first_day, "national")
    assert (low_entry.rating, low_entry.change, low_entry.pool_from) == (1000, -50, None)
    with db.transaction(engine) as s:
        note = s.scalar(select(CalcPlayer.note).where(CalcPlayer.player_id == low_id))
    assert note == "new rating 980 is below the floor of 1000: kept at it"
