"""Migration 0026_search: the search index's rows already there get their words' phonetic keys, the same
keys ratingdb.names.sound gives the rows written after it (issue 47)."""

from __future__ import annotations

from sqlalchemy import Engine, text

from ratingdb import db
from ratingdb.names import sound


def test_the_upgrade_gives_every_indexed_word_its_phonetic_key_and_the_downgrade_drops_them(
    engine: Engine,
) -> None:
    db.downgrade(engine, "0025")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO player (id, name, name_key) VALUES (1, 'Kowalenko, Ivan', 'ivan kowalenko'), "
                "(2, 'Ruane, Ciarán', 'ciaran ruane'), (3, 'Карпов, Анатолий', 'анатолии карпов')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO player_name_token (token, player_id) VALUES ('kowalenko', 1), ('ivan', 1), "
                "('ruane', 2), ('ciaran', 2), ('карпов', 3), ('анатолии', 3)"
            )
        )
    db.upgrade(engine)
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT token, sound FROM player_name_token ORDER BY player_id, token")
        ).all()
    # NYSIIS of the folded words ("kowalenko" is "kovalenko" folded); a Cyrillic word is its own key.
    assert [tuple(r) for r in rows] == [
        ("ivan", "IVAN"), ("kowalenko", "CAVALANC"), ("ciaran", "CARAN"), ("ruane", "RAN"),
        ("анатолии", "анатолии"), ("карпов", "карпов"),
    ]  # fmt: skip
    assert all(s == sound(t) for t, s in rows)  # as the register writes them from now on
    db.downgrade(engine, "0025")
    db.upgrade(engine)
