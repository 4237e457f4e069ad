"""Name keys, search tokens and similarity (ratingdb.names): pure, no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratingdb.names import matches_query, most_similar, name_key, prefix_range, similarity, tokens


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
