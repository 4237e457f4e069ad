"""TRF reader and writer on fixture files: real samples, hand-made events, a bad file per strict case."""

from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ratingdb.errors import TrfError
from ratingdb.formats import TrfEvent, TrfGame, parse_trf, rating_type_for_time_control, read_trf, write_trf16

FIXTURES = Path(__file__).parents[2] / "fixtures" / "trf"
SAMPLES = sorted(p.name for p in FIXTURES.iterdir() if not p.name.startswith("bad_"))


def game(event: TrfEvent, round_: int, rank: int) -> TrfGame:
    """The game of `rank` in `round_` (as white, black or bye)."""
    (found,) = [g for g in event.games if g.round == round_ and rank in (g.white, g.black)]
    return found


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_file_parses_and_round_trips_through_trf16(name: str) -> None:
    event = read_trf(FIXTURES / name)
    again = parse_trf(name, write_trf16(event).encode("utf-8"))

    def same(e: TrfEvent) -> list[object]:
        return [dataclasses.replace(p, line=0) for p in e.players]

    assert same(again) == same(event)
    assert again.games == event.games
    assert (again.start_date, again.end_date, again.round_dates) == (
        event.start_date,
        event.end_date,
        event.round_dates,
    )


def test_fide_example_reads_spaced_dates_title_letters_and_paired_forfeits() -> None:
    event = read_trf(FIXTURES / "fide-example1.trf")
    assert event.source_name == "fide-example1.trf"
    assert event.version == 16
    assert event.name == "9. Karl-Mala-Gedenkturnier"
    assert event.city == "Frankfurt (Main) /GER"
    assert event.federation is None
    assert (event.start_date, event.end_date) == (date(2005, 7, 28), date(2005, 7, 31))  # "28. 07. 2005"
    assert event.time_control == "40/120, 60"
    assert event.round_dates == ()
    assert event.rounds == 7
    assert len(event.players) == 284
    first = event.players[0]
    assert (first.rank, first.name, first.title, first.fide_rating, first.federation) == (
        1,
        "Vasquez,Rodrigo",
        "GM",
        2558,
        "CHI",
    )
    assert (first.fide_id, first.birth_year, first.points) == (3400042, 1969, Decimal("6.0"))
    # Line 26: "153 - -" against line 166 "13 - +": a forfeit with no colours, kept once, not rated.
    forfeit = game(event, 1, 13)
    assert forfeit == TrfGame(1, None, 13, 153, "-", "+", rated=False, colour_known=False)
    # 284 players × 7 rounds = 1988 player-rounds; every pairing covers two of them.
    assert sum(2 if g.black else 1 for g in event.games) == 284 * 7


def test_the_first_sample_game_is_white_win_on_both_lines() -> None:
    event = read_trf(FIXTURES / "fide-example1.trf")
    # Line 14: player 1 "141 w 1"; player 141 has "1 b 0".
    assert game(event, 1, 1) == TrfGame(1, None, 1, 141, "1", "0", rated=True)


def test_swiss_keeps_every_forfeit_and_bye_and_rates_only_played_games() -> None:
    event = read_trf(FIXTURES / "swiss_forfeits_byes.trf")
    r1, r2, r3 = date(2025, 10, 4), date(2025, 10, 5), date(2025, 10, 5)
    assert event.round_dates == (r1, r2, r3)
    # No 222 record: record 122 "90 min + 30 s from move 1" gives 90 + 60 × 30 s = 120 minutes for 60 moves.
    assert (event.rating_type, event.rating_type_record) == ("standard", "122")
    assert game(event, 1, 1) == TrfGame(1, r1, 1, 5, "1", "0", rated=True)
    assert game(event, 1, 2) == TrfGame(1, r1, 6, 2, "=", "=", rated=True)
    assert game(event, 1, 3) == TrfGame(1, r1, 3, 4, "+", "-", rated=False)
    assert game(event, 1, 7) == TrfGame(1, r1, 7, None, "U", None, rated=False, colour_known=False)
    assert game(event, 1, 8) == TrfGame(1, r1, 8, None, "Z", None, rated=False, colour_known=False)  # blank
    assert game(event, 2, 5) == TrfGame(2, r2, 5, 3, "W", "L", rated=False)  # less than one move
    assert game(event, 2, 4) == TrfGame(2, r2, 4, None, "H", None, rated=False, colour_known=False)
    assert game(event, 2, 6) == TrfGame(2, r2, 6, 7, "-", "+", rated=False, colour_known=False)
    assert game(event, 3, 4) == TrfGame(3, r3, 6, 4, "0", "1", rated=True)
    assert game(event, 3, 8) == TrfGame(3, r3, 8, None, "F", None, rated=False, colour_known=False)
    # 8 players × 3 rounds = 24 player-rounds: 9 pairings cover 18, 6 byes the rest; 15 games.
    assert len(event.games) == 15
    # Rated: round 1 (1-5, 6-2), round 2 (2-1), round 3 (1-3, 2-7, 6-4).
    assert sum(g.rated for g in event.games) == 6


def test_swiss_player_fields_are_normalised() -> None:
    event = read_trf(FIXTURES / "swiss_forfeits_byes.trf")
    anna, ben, carl, dora, _, fay, gus, _ = event.players
    assert (anna.sex, anna.title, anna.birth_year) == ("F", "GM", 1990)  # "w", "g"
    assert (ben.sex, ben.title, ben.federation) == ("M", "IM", "ENG")  # "m", "m"
    assert (carl.title, carl.birth_year) == (None, 1970)  # bare year
    assert dora.title == "WIM"  # "wm"
    assert (fay.fide_rating, fay.fide_id) == (None, None)
    assert (gus.federation, gus.points) == (None, Decimal("2.0"))


def test_round_robin_has_six_rated_games() -> None:
    event = read_trf(FIXTURES / "round_robin.trf")
    # 4 players, 3 rounds: 4 × 3 / 2 = 6 games, all played.
    assert event.rounds == 3
    assert len(event.games) == 6
    assert all(g.rated and g.colour_known for g in event.games)
    assert game(event, 3, 1) == TrfGame(3, date(2025, 10, 5), 3, 1, "0", "1", rated=True)


def test_trf26_reads_national_lines_and_the_encoded_time_control() -> None:
    event = read_trf(FIXTURES / "trf26_national.trf")
    assert event.version == 26
    assert event.encoded_time_control == "5400+30"
    assert event.rating_type == "standard"  # 5400 + 60 × 30 = 7200 s = 120 min ≥ 60 min
    assert event.rounds == 2
    luc, anke, tom, jef = event.players
    assert (luc.fide_id, luc.national_id, luc.national_rating, luc.national_federation) == (
        300001,
        "12345",
        2275,
        "BEL",
    )
    assert (anke.national_id, anke.national_rating) == ("BE-777", 1900)
    assert (tom.fide_id, tom.national_id, tom.national_rating) == (None, "55555", 1410)
    assert (jef.national_id, jef.national_rating, jef.birth_year) == (None, None, 1960)


def test_latin1_crlf_file_with_comments_and_unknown_records_is_read() -> None:
    event = read_trf(FIXTURES / "latin1_crlf.trf")
    assert event.name == "Coupe de Montréal"
    assert (event.start_date, event.end_date) == (
        date(2025, 9, 20),
        date(2025, 9, 20),
    )  # 2025.09.20, 20/09/2025
    jutta, sean = event.players
    assert (jutta.name, jutta.sex, jutta.title, jutta.birth_year) == ("Müller, Jutta", "F", "WGM", 1988)
    assert (sean.name, sean.sex, sean.title) == ("Ó Briain, Seán", "M", "IM")
    assert event.games == (TrfGame(1, None, 1, 2, "1", "0", rated=True),)


def test_utf8_and_latin1_versions_of_the_same_file_read_the_same() -> None:
    utf8 = read_trf(FIXTURES / "icu-utf-8.tab")
    latin1 = read_trf(FIXTURES / "icu-latin-1.tab")
    assert utf8.players == latin1.players
    assert utf8.name == "Läs Végas National Opeñ"


def test_bom_and_two_digit_year_dates_are_read_in_the_only_order_that_fits() -> None:
    # 042 "11.09.26", 052 "12.04.01": as YY.MM.DD 2011-09-26 .. 2012-04-01; as DD.MM.YY the end
    # (2001-04-12) would be before the start (2026-09-11), so only one reading is consistent.
    event = read_trf(FIXTURES / "icu-armstrong_2012_with_bom.tab")
    assert event.name.startswith("Leinster Chess Union")
    assert (event.start_date, event.end_date) == (date(2011, 9, 26), date(2012, 4, 1))


def test_round_dates_written_day_before_month_are_read_within_the_event() -> None:
    # 132 "11.25.02": month 25 does not exist, so YY.DD.MM, inside 042/052 25.02.2011 .. 27.02.2011.
    event = read_trf(FIXTURES / "icu-bunratty_masters_2011.tab")
    assert event.round_dates == (
        date(2011, 2, 25),
        date(2011, 2, 26),
        date(2011, 2, 26),
        date(2011, 2, 26),
        date(2011, 2, 27),
        date(2011, 2, 27),
    )


def test_a_one_date_file_is_a_one_day_event() -> None:
    event = read_trf(FIXTURES / "icu-utf-8.tab")
    assert (event.start_date, event.end_date) == (date(2008, 6, 7), date(2008, 6, 7))


def test_the_hash_is_of_the_raw_bytes() -> None:
    data = (FIXTURES / "round_robin.trf").read_bytes()
    assert read_trf(FIXTURES / "round_robin.trf").sha256 == parse_trf("x.trf", data).sha256
    assert parse_trf("x.trf", data.replace(b"\n", b"\r\n")).sha256 != parse_trf("x.trf", data).sha256


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "bad_inconsistent_pairing.trf",
            "line 9 col 92: round 1: player 1 (line 9) has 4, but player 4 (line 12) has no opponent",
        ),
        (
            "bad_inconsistent_colours.trf",
            "line 9 col 97: round 1: player 1 (line 9) has 4 with colour 'w', "
            "but player 4 (line 12) has colour 'w'",
        ),
        (
            "bad_inconsistent_results.trf",
            "line 9 col 99: round 1: player 1 (line 9) has 4 with result '1', "
            "but player 4 (line 12) has result '1'",
        ),
        ("bad_round_beyond_dates.trf", "line 9 col 112: round 3 is beyond the 2 round dates of record 132"),
        ("bad_unknown_opponent.trf", "line 10 col 92: opponent 9 is not a starting rank in this file"),
        ("bad_paired_twice.trf", "line 11 col 92: player 4 is paired twice in round 1 (lines 9 and 11)"),
        ("bad_result_code.trf", "line 10 col 109: result 'x' is not a TRF result code"),
        ("bad_end_before_start.trf", "line 5 col 5: end date 2025-10-03 is before start date 2025-10-05"),
    ],
)
def test_a_malformed_file_is_refused_naming_file_line_column_and_reason(name: str, message: str) -> None:
    with pytest.raises(TrfError) as refused:
        read_trf(FIXTURES / name)
    assert str(refused.value) == f"{name} {message}"
    assert refused.value.file == name


def trf(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


PLAYER_1 = "001    1 m    One, Player                       2000 IRL      500001 1990/01/01  0.0"


def test_a_file_without_any_date_is_refused() -> None:
    with pytest.raises(TrfError) as refused:
        parse_trf("nodate.trf", trf("012 No dates", PLAYER_1))
    assert (
        str(refused.value)
        == "nodate.trf: the file has no start date (042), end date (052) or round dates (132)"
    )


def test_dates_only_in_record_132_give_start_and_end() -> None:
    dates = "132" + " " * 88 + "25/10/04  25/10/06"
    event = parse_trf("r.trf", trf("012 Round dates only", dates, PLAYER_1))
    assert (event.start_date, event.end_date) == (date(2025, 10, 4), date(2025, 10, 6))
    assert event.rounds == 2  # from the round dates: two unpaired rounds for player 1
    assert [g.white_result for g in event.games] == ["Z", "Z"]


def test_an_ambiguous_two_digit_date_is_refused() -> None:
    # "05.06.07" alone is a valid date as YY.MM.DD (2005-06-07) — TRF's order — so it is taken; but
    # 042 "07.06.05" with 052 "05.06.07" has YY.MM.DD end before start, while DD.MM.YY (2005-06-07 ..
    # 2007-06-05), MM.DD.YY (2005-07-06 .. 2007-05-06) and YY.DD.MM (2007-05-06 .. 2005-07-06: no) fit.
    with pytest.raises(TrfError) as refused:
        parse_trf("amb.trf", trf("012 Ambiguous", "042 07.06.05", "052 05.06.07", PLAYER_1))
    assert str(refused.value) == "amb.trf line 2 col 5: date '07.06.05' can be read in more than one way"


def test_an_unreadable_encoded_time_control_is_refused() -> None:
    with pytest.raises(TrfError) as refused:
        parse_trf("tc.trf", trf("012 T", "042 2025/10/04", "222 90 min", PLAYER_1))
    assert str(refused.value) == "tc.trf line 3 col 5: encoded time control '90 min' cannot be read"


def test_a_bye_code_with_an_opponent_is_refused() -> None:
    two = "001    2 m    Two, Player                       2000 IRL      500002 1990/01/01  0.0"
    with pytest.raises(TrfError) as refused:
        parse_trf(
            "bye.trf", trf("012 T", "042 2025/10/04", PLAYER_1 + "          2 w H", two + "          1 b H")
        )
    assert str(refused.value) == "bye.trf line 3 col 99: result 'H' is a bye but an opponent is given"


@pytest.mark.parametrize(
    ("encoded", "rating_type"),
    [
        ("5400+30", "standard"),  # 5400 + 60 × 30 = 7200 s = 120 min
        ("3600", "standard"),  # exactly 60 min
        ("3000+10", "standard"),  # 3000 + 60 × 10 = 3600 s = 60 min
        ("2990+10", "rapid"),  # 2990 + 600 = 3590 s < 60 min
        ("900+10", "rapid"),  # 900 + 600 = 1500 s = 25 min
        ("601", "rapid"),  # 10 min 1 s > 10 min
        ("600", "blitz"),  # exactly 10 min is not more than 10
        ("180+2", "blitz"),  # 180 + 120 = 300 s = 5 min
        ("40/6000+30:900+30", "standard"),  # 6000 + 40 × 30 + 900 + 20 × 30 = 8700 s
        ("W300-B240", "blitz"),  # Armageddon: White's 5 min
    ],
)
def test_encoded_time_control_gives_the_rating_type(encoded: str, rating_type: str) -> None:
    assert rating_type_for_time_control(encoded) == rating_type
