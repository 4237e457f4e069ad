"""Name keys, search tokens and similarity (ratingdb.names): pure, no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.names import (
    SOUNDS_ALIKE,
    NameScorer,
    Scored,
    fold,
    matches_query,
    most_similar,
    name_key,
    prefix_range,
    similarity,
    sound,
    tokens,
    variants,
)


@pytest.mark.parametrize(
    ("written", "key"),
    [
        ("Kowalski, Jan", "jan kowalski"),
        ("Jan Kowalski", "jan kowalski"),
        ("KOWALSKI,Jan", "jan kowalski"),
        ("  Kowalski ,  Jan  ", "jan kowalski"),
        ("Örr,Mârk", "mark orr"),  # the ICU test file's accents
        ("Uì Laighlèis,Gearoìdin", "gearoidin laighleis ui"),
        ("O'Brien, Pat", "obrien pat"),  # an apostrophe joins
        ("Jean-Pierre Dupont", "dupont jean pierre"),  # a hyphen separates
        ("Søren Ødegaard", "odegaard soren"),  # letters Unicode does not decompose
        ("Weiß, Jürgen", "jurgen weiss"),
        ("Łukasz Wójcik", "lukasz wojcik"),
        (
            "Карпов, Анатолий",
            "анатолии карпов",
        ),  # Cyrillic kept; й is и with a breve, dropped like any accent
        ("Nguyễn Ngọc Trường Sơn", "ngoc nguyen son truong"),
    ],
)
def test_a_name_key_ignores_case_accents_punctuation_and_word_order(written: str, key: str) -> None:
    assert name_key(written) == key


def test_tokens_keep_the_order_written() -> None:
    assert tokens("Dunne, Thomas Junior") == ["dunne", "thomas", "junior"]


def test_a_query_matches_when_every_word_starts_a_word_of_the_name() -> None:
    words = tokens("Kowalski, Jan")
    assert matches_query(tokens("jan kow"), words)
    assert matches_query(tokens("KOWALSKI"), words)
    assert not matches_query(tokens("jan nowak"), words)
    assert not matches_query(tokens("owalski"), words)  # prefixes only, not any substring


def test_a_prefix_range_holds_exactly_the_strings_that_start_with_the_prefix() -> None:
    low, high = prefix_range("kow")
    assert (low, high) == ("kow", "kox")
    inside = ["kow", "kowalski", "kowz"]
    outside = ["kov", "kox", "ko", "kpa"]
    assert all(low <= s < high for s in inside)
    assert not any(low <= s < high for s in outside)


def test_similar_names_score_high_and_different_names_low() -> None:
    assert similarity("Murphy, Sean", "Sean Murphy") == 100
    assert similarity("Murphy, Sean", "Murphy, Séan") == 100
    assert similarity("Murphy, Sean", "Murphey, Sean") >= 88
    assert similarity("Murphy, Sean", "Kowalski, Jan") < 50


def test_most_similar_returns_the_positions_of_the_close_keys_best_first() -> None:
    keys = [name_key(n) for n in ("Kowalski, Jan", "Murphey, Sean", "Murphy, Sean", "Murphy, Siobhan")]
    found = most_similar("Sean Murphy", keys)
    assert [s.position for s in found] == [2, 1]
    assert found[0].score == 100


@given(
    st.lists(
        st.text(alphabet=st.characters(categories=["L"]), min_size=1, max_size=8), min_size=1, max_size=4
    )
)
def test_the_key_does_not_depend_on_word_order(words: list[str]) -> None:
    assert name_key(" ".join(words)) == name_key(" ".join(reversed(words)))


# -- finding people as they are written (issue 47) ------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("kowalenko", "kovalenko"),  # w/v
        ("maksimov", "maximov"),  # ks/x
        ("jusupov", "yusupov"),  # j/y/i
        ("dmitriy", "dmitrii"),
        ("khristov", "hristov"),  # kh/ch/h
        ("chernov", "tchernov"),
        ("shishko", "sisko"),  # sh/š (accents are gone from tokens already)
        ("schmidt", "shmidt"),  # sch/sh
        ("filips", "philips"),  # ph/f
        ("kowallenko", "kowalenko"),  # doubled letters
    ],
)
def test_transliteration_pairs_fold_to_one_spelling(one: str, other: str) -> None:
    assert fold(one) == fold(other)


def test_sound_alike_words_share_a_phonetic_key_and_given_names_their_variants() -> None:
    assert sound("kieran") == sound("ciaran") == sound("keeran") == "CARAN"
    assert sound("Карпов".lower()) == "карпов"  # not Latin letters: the word itself
    assert "padraig" in variants("Patrick".lower()) and "kieran" in variants("ciaran")
    assert variants("kowalski") == frozenset()


def test_a_name_is_scored_by_its_best_word_for_each_search_word_and_counts_the_words_matched() -> None:
    score = NameScorer(tokens("ruane kieran"))
    # ruane: a prefix, 100; kieran/ciaran: variants of one given name, 95.
    assert score(name_key("Ruane, Ciaran")) == Scored(97.5, 2)
    assert score(name_key("Ruane, Kevin")) == Scored(50.0, 1)  # kieran/kevin: ratio 2 × 3 / 11 = 55, none
    assert score(name_key("Murphy, Sean")) == Scored(0.0, 0)
    # Initials: "dj" for "D." and "J." or for "Dermot John"; a single "j" in the word "DJ".
    initials = NameScorer(tokens("dj o'donoghue"))
    assert initials(name_key("O'Donoghue, D.J.")) == Scored(95.0, 2)
    assert initials(name_key("O'Donoghue, Dermot John")) == Scored(95.0, 2)
    assert NameScorer(tokens("d j byrne"))(name_key("Byrne, DJ")).matched == 3
    # Sound-alikes: NYSIIS keys of the folded words; "keeran" is no variant listed, but sounds as "ciaran".
    assert NameScorer(["keeran"])("ciaran") == Scored(SOUNDS_ALIKE, 1)
    # A key of three letters tells too little: Doyle and Daly are both DAL, and not alike.
    assert sound("doyle") == sound("daly") == "DAL" and NameScorer(["doyle"])("daly") == Scored(0.0, 0)
    # A typo that changes the sound keeps its rapidfuzz ratio: "murpyh"/"murphy" 2 × 5 / 12 = 83.3 (MARP,
    # MARF); one that does not sounds alike: "dalaihg"/"dalaigh" 90 (DALAG), not its ratio 85.7.
    assert NameScorer(["murpyh"])("murphy").score == pytest.approx(83.33, abs=0.01)
    assert NameScorer(["dalaihg"])("dalaigh").score == SOUNDS_ALIKE
