"""CLI: what the register knows of a person's names survives corrections — a merge keeps the duplicate's
title, birth year and FIDE ID where the player kept has none, and every name as an alias; an edited name
stays an alias, so the next file spelling it the old way imports without a question (issue 47)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

from tests.cli.test_players_cli import ok, query, run, trf


def test_merging_a_titled_duplicate_keeps_its_title_birth_year_and_fide_id_and_says_so(db_url: str) -> None:
    # Issue 47's story: "Collins, Sam" (IM) merged into "Collins, Sam E." lost the title.
    ok(db_url, "player", "add", "--name", "Collins, Sam E.", "--federation", "IRL")
    ok(db_url, "player", "add", "--name", "Collins, Sam", "--title", "IM", "--birth-year", "1985",
       "--fide-id", "2500123")  # fmt: skip
    out = ok(db_url, "player", "merge", "2500123", "1", "--reason", "one person")
    assert out == (
        "Done: merged player 2 Collins, Sam (FIDE 2500123, born 1985) into player 1 Collins, Sam E. "
        "(national 1, IRL); 0 event(s) re-pointed; took title IM, birth year 1985, FIDE ID 2500123; "
        "alias 'Collins, Sam' kept; reason: one person.\n"
    )
    rows = query(db_url, "SELECT id, name, title, birth_year, fide_id, merged_into FROM player ORDER BY id")
    assert rows == [
        (1, "Collins, Sam E.", "IM", 1985, 2500123, None),
        (2, "Collins, Sam", "IM", 1985, None, 1),  # the FIDE ID moved: one player row holds it
    ]
    assert ok(db_url, "player", "show", "2500123").splitlines()[0] == (
        "IM Collins, Sam E. (FIDE 2500123, national 1), born 1985, IRL"
    )
    assert query(db_url, "SELECT name FROM player_alias") == [("Collins, Sam",)]


def test_a_merge_keeps_the_higher_title_and_the_kept_players_own_details(db_url: str) -> None:
    ok(db_url, "player", "add", "--name", "Byrne, Una", "--title", "WGM", "--birth-year", "1990")
    ok(db_url, "player", "add", "--name", "Byrne, Una M.", "--title", "GM", "--birth-year", "1991",
       "--fide-id", "2500999")  # fmt: skip
    # GM ranks above WGM (FIDE B.01 0.3); the kept player's own birth year and FIDE ID stay.
    out = ok(db_url, "player", "merge", "1", "2500999", "--reason", "one person")
    assert "; took title" not in out and "; alias 'Byrne, Una' kept;" in out
    kept = query(db_url, "SELECT title, birth_year, fide_id FROM player WHERE id = 2")
    assert kept == [("GM", 1991, 2500999)]
    ok(db_url, "player", "add", "--name", "Byrne, Una Mary", "--title", "WIM", "--national-id", "77")
    ok(db_url, "player", "add", "--name", "Byrne, U.", "--title", "IM", "--national-id", "78")
    out = ok(db_url, "player", "merge", "78", "77", "--reason", "one person")
    assert "; took title IM;" in out
    assert query(db_url, "SELECT title FROM player WHERE national_id = '77'") == [("IM",)]


def test_an_edited_name_stays_an_alias_and_the_next_file_with_the_old_spelling_imports(
    db_url: str, tmp_path: Path
) -> None:
    # Issue 47's story: FIDE's list spells him "Doyle, Patrick"; the officer writes the Irish form.
    ok(db_url, "player", "add", "--name", "Doyle, Patrick", "--fide-id", "25900011", "--birth-year", "1975",
       "--federation", "IRL")  # fmt: skip
    out = ok(db_url, "player", "edit", "25900011", "--name", "Doyle, Pádraig", "--reason", "his own spelling")
    assert out == (
        "Player 1 Doyle, Pádraig: name Doyle, Patrick → Doyle, Pádraig.\n"
        "Player 1 Doyle, Pádraig: the old name 'Doyle, Patrick' kept as an alias.\n"
    )
    file = trf(
        tmp_path, "Galway open", dt.date(2025, 10, 3),
        [("Doyle, Patrick", 25900011, 1975, "IRL"), ("Walsh, Liam", None, 2011, "IRL")], [(1, 2, "1")],
    )  # fmt: skip
    imported = run(db_url, "import-trf", file)
    assert imported.exit_code == 0, imported.output  # type: ignore[attr-defined]
    assert query(db_url, "SELECT player_id FROM event_player ORDER BY player_id") == [(1,), (2,)]
    # Accents, case and word order are no new name: nothing to keep.
    out = ok(db_url, "player", "edit", "25900011", "--name", "PADRAIG DOYLE", "--reason", "capitals")
    assert "kept as an alias" not in out
    assert query(db_url, "SELECT name FROM player_alias") == [("Doyle, Patrick",)]


# Issue 47's names, each beside players who match some of the words only.
REGISTER = (
    "Kovalenko, Ivan", "Kowalski, Jan", "Ruane, Ciaran", "Ruane, Kevin", "Keane, Kieran",
    "O'Donoghue, D.J.", "Donoghue, Dan", "O'Donoghue, Siobhan",
)  # fmt: skip


def register_names(db_url: str) -> None:
    for name in REGISTER:
        ok(db_url, "player", "add", "--name", name, "--federation", "IRL")


def found(db_url: str, text: str) -> list[str]:
    """`player find TEXT`'s lines: score, name, found by."""
    rows = list(csv.DictReader(io.StringIO(ok(db_url, "player", "find", text, "--format", "csv"))))
    return [f"{row['score']} {row['name']} {row['found_by']}" for row in rows]


def test_player_find_finds_names_as_people_write_them(db_url: str) -> None:
    register_names(db_url)
    # w/v: folded, "kowalenko" starts "kovalenko" (95); Kowalski's ratio 2 × 5 / 17 = 59 is no match.
    assert found(db_url, "Kowalenko") == ["95 Kovalenko, Ivan name"]
    # Kieran/Ciaran: two forms of one given name (95), and "ruane" starts "ruane" (100): 97.5, shown 98.
    # Then those matching one word of two: Keane, Kieran (kieran 100) and Ruane, Kevin (ruane 100), 50.
    assert found(db_url, "ruane kieran") == [
        "98 Ruane, Ciaran name", "50 Keane, Kieran name", "50 Ruane, Kevin name",
    ]  # fmt: skip
    # "dj": the initials of the words "D." and "J." (90), "odonoghue" 100: 95; O'Donoghue, Siobhan matches
    # one word of two, 50. (Donoghue, Dan is not found: "odonoghue" shares neither its first three letters
    # nor its sound, ODANAG / DANAG, with "donoghue".)
    assert found(db_url, "dj o'donoghue") == ["95 O'Donoghue, D.J. name", "50 O'Donoghue, Siobhan name"]
    # Either word order, and the initials written apart find "DJ" written together.
    assert found(db_url, "o'donoghue dj")[0] == "95 O'Donoghue, D.J. name"
    ok(db_url, "player", "add", "--name", "Byrne, DJ", "--federation", "IRL")
    # "d" starts "dj" (100); "j" is in the two-letter word "dj" (initials written together, 90); "byrne"
    # 100: 96.7, shown 97.
    assert found(db_url, "D. J. Byrne")[0] == "97 Byrne, DJ name"
