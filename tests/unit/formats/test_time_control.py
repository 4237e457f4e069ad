"""Record 122, free text, read into the time each player has for 60 moves (FIDE's classification of rates
of play: standard 60 minutes or more, rapid more than 10 and less than 60, blitz 10 or less).

The first rows are the 122 lines of the real files in shared/data/trf-samples and the seed files; then the
forms rating officers reported. Every row works the 60-move minutes by hand: base times that start before
move 61, plus the increment times the moves it is added on (60 from move 1, 20 from move 41).
"""

from __future__ import annotations

import pytest

from ratingdb.formats.time_control import TimeControl, rating_type_for_seconds, read_time_control

READ = [
    # real files
    ("1:30 + 10 from move 1", 90 + 60 * 10 / 60, "standard"),  # icu-bunratty_*_2011.tab: 100
    ("All moves in 90 minutes, plus 10 seconds per move", 90 + 10, "standard"),  # icu-irish_junior 2011
    ("40/120, 60", 120 + 60, "standard"),  # fide-example1.trf: 40 moves in 120, the rest in 60
    ("90 min for 40 moves + 30 min, 30 s per move from move 1", 90 + 30 + 30, "standard"),  # seeds: 150
    ("60 min + 30 s", 60 + 30, "standard"),  # seeds: 90
    ("90 min + 30 s", 90 + 30, "standard"),
    ("90 min + 30 s from move 1", 90 + 30, "standard"),
    ("15 min + 10 s per move", 15 + 10, "rapid"),  # seeds' rapidplays: 25
    # reported forms
    ("15 minutes plus 10 sec per move", 15 + 10, "rapid"),
    ("G/90+30", 90 + 30, "standard"),  # a bare m+s: minutes, then seconds a move
    ("90'+30''", 90 + 30, "standard"),
    ("90’+30”", 90 + 30, "standard"),  # typographic quotes
    ("90+30", 90 + 30, "standard"),
    ("60 min + 30 sec", 60 + 30, "standard"),
    ("Rapid 25+10", 25 + 10, "rapid"),  # the word agrees with the 35 minutes
    ("Standard: 90 min + 30 sec/move", 90 + 30, "standard"),
    ("90 minutes + 30 seconds increment", 90 + 30, "standard"),
    ("1 hour 30 minutes + 30 seconds per move", 90 + 30, "standard"),
    ("1h30 + 30s", 90 + 30, "standard"),
    ("2 hours", 120, "standard"),
    ("2h", 120, "standard"),
    ("G60", 60, "standard"),  # exactly 60: standard
    ("G/45", 45, "rapid"),
    ("90 min/40 moves + 30 min + 30 s/move", 90 + 30 + 30, "standard"),
    ("40 moves in 2 hours, then 30 minutes", 120 + 30, "standard"),
    ("40/90, 20/30, 15", 90 + 30, "standard"),  # the third period starts at move 61: not counted
    ("90 min + 30 s from move 41", 90 + 20 * 30 / 60, "standard"),  # moves 41–60: 100
    ("25 min + 10 s", 25 + 10, "rapid"),
    ("5 min + 3 s", 5 + 3, "blitz"),
    ("3+2", 3 + 2, "blitz"),
    ("10 min", 10, "blitz"),  # exactly 10: not more than 10
    ("10 min + 1 s", 10 + 1, "rapid"),
]


@pytest.mark.parametrize(("text", "minutes", "rating_type"), READ)
def test_record_122_gives_the_minutes_for_60_moves_and_the_type(
    text: str, minutes: float, rating_type: str
) -> None:
    reading = read_time_control(text)
    assert (reading.seconds, reading.rating_type, reading.problem) == (round(minutes * 60), rating_type, None)


UNREAD = [
    ("90 min + 30", "'+ 30' could be minutes or seconds per move"),  # 30 more minutes, or 30 s a move?
    ("40/90+30", "'+ 30' could be minutes or seconds per move"),
    ("G/60 d5", "it has a delay, which the 60-move classification does not count"),
    ("Rapid 90+30", "it says rapid but gives 120 minutes for 60 moves, which is standard"),
    ("rapid or blitz", "it names blitz and rapid"),
    ("klassisch 90", "the word 'klassisch' is not understood"),
    ("40 moves", "'40 moves' has no time"),
    ("30 s per move", "it gives an increment but no base time"),
    ("90 min + 30 s + 10 s", "it gives more than one increment"),
    ("tba", "the word 'tba' is not understood"),
    ("-", "it gives no time"),
]


@pytest.mark.parametrize(("text", "problem"), UNREAD)
def test_a_time_control_that_cannot_be_read_says_why_instead_of_guessing(text: str, problem: str) -> None:
    assert read_time_control(text) == TimeControl(text, None, None, problem)


def test_the_type_words_alone_give_the_type() -> None:
    assert read_time_control("Blitz") == TimeControl("Blitz", None, "blitz")


def test_minutes_are_shown_as_a_person_writes_them() -> None:
    assert read_time_control("90+30").minutes == "120"
    assert read_time_control("90 min + 15 s from move 41").minutes == "95"  # 90 + 20 × 15 s
    assert read_time_control("90 min + 15 s from move 42").minutes == "94.75"  # 90 + 19 × 15 s


@pytest.mark.parametrize(
    ("seconds", "rating_type"),
    [(3600, "standard"), (3599, "rapid"), (601, "rapid"), (600, "blitz"), (0, "blitz")],
)
def test_the_thresholds_are_fides(seconds: int, rating_type: str) -> None:
    assert rating_type_for_seconds(seconds) == rating_type
