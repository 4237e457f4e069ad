"""Imports of many files, or of a big list, in one transaction: refused whole, and each file sees the ones
before it exactly as if they had been imported one by one (import-trf checks every file before writing
any, and writes each table once for the batch; a big list is parsed by a second process).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.cli.test_players_cli import OCT_LIST, Line, ok, query, run, trf
from tests.unit.formats.test_read_ahead import long_fide_list

TABLES = (
    "player",
    "player_version",
    "audit_log",
    "event",
    "event_player",
    "game",
    "rating_list",
    "list_entry",
)


def counts(db_url: str) -> dict[str, int]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        found = {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in TABLES}
    engine.dispose()
    return found


def three_players(first_id: int) -> list[Line]:
    return [(f"New, Player {first_id + n}", first_id + n, 1990, "IRL") for n in range(3)]


GAMES = [(1, 2, "1"), (2, 3, "="), (3, 1, "0")]


def test_five_files_with_the_third_in_a_closed_period_write_nothing_at_all(
    db_url: str, tmp_path: Path
) -> None:
    october = tmp_path / "oct.csv"
    october.write_text(OCT_LIST, encoding="utf-8")
    ok(db_url, "import-list", october, "--date", "2025-11-01")  # publishes November: October is closed
    files = [
        trf(
            tmp_path,
            f"Batch {n}",
            dt.date(2025, 10 if n == 3 else 11, 3 + n),
            three_players(700_000 + 10 * n),
            GAMES,
        )
        for n in range(1, 6)
    ]
    before = counts(db_url)
    result = run(db_url, "import-trf", *files)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert result.stderr.startswith(  # type: ignore[attr-defined]
        "Error: cannot add batch_3.trf (Batch 3): standard period 2025-10 is closed (its list dated "
        "2025-11-01 is published); a late event can go into a later, open period with --period"
    )
    assert counts(db_url) == before


def test_five_files_with_the_third_malformed_are_refused_with_its_line_and_column(
    db_url: str, tmp_path: Path
) -> None:
    files = [trf(tmp_path, f"Batch {n}", dt.date(2025, 10, 3 + n), three_players(700_000 + 10 * n), GAMES)
             for n in range(1, 6)]  # fmt: skip
    text_3 = files[2].read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(text_3) if t.startswith("001"))
    text_3[line] = text_3[line][:98] + "x" + text_3[line][99:]  # round 1's result: column 99
    files[2].write_text("\n".join(text_3) + "\n", encoding="utf-8")
    before = counts(db_url)
    result = run(db_url, "import-trf", *files)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert result.stderr == (  # type: ignore[attr-defined]
        f"Error: batch_3.trf line {line + 1} col 99: result 'x' is not a TRF result code\n"
    )
    assert counts(db_url) == before


def test_a_player_new_in_the_first_file_is_the_same_player_in_the_later_ones(
    db_url: str, tmp_path: Path
) -> None:
    shared: Line = ("Shared, Sam", 800_001, 1995, "IRL")
    first = trf(tmp_path, "First", dt.date(2025, 10, 3), [shared, *three_players(800_010)[:2]], GAMES)
    second = trf(tmp_path, "Second", dt.date(2025, 10, 10), [*three_players(800_020)[:2], shared], GAMES)
    out = ok(db_url, "import-trf", first, second)
    registered = out.splitlines()[out.splitlines().index("Registered 5 new players:") + 1 :]
    assert registered == [
        "  Shared, Sam (FIDE 800001, born 1995, IRL)",
        "  New, Player 800010 (FIDE 800010, born 1990, IRL)",
        "  New, Player 800011 (FIDE 800011, born 1990, IRL)",
        "  New, Player 800020 (FIDE 800020, born 1990, IRL)",
        "  New, Player 800021 (FIDE 800021, born 1990, IRL)",
    ]
    assert query(
        db_url,
        "SELECT e.name, ep.start_rank FROM event_player ep JOIN event e ON e.id = ep.event_id "
        "JOIN player p ON p.id = ep.player_id WHERE p.fide_id = 800001 ORDER BY e.id",
    ) == [("First", 1), ("Second", 3)]
    assert query(db_url, "SELECT COUNT(*) FROM player") == [(5,)]


def test_players_without_ids_in_two_files_get_national_ids_in_file_order(db_url: str, tmp_path: Path) -> None:
    first = trf(tmp_path, "First", dt.date(2025, 10, 3),
                [("Ua, Una", None, 2011, "IRL"), *three_players(810_000)[:2]], GAMES)  # fmt: skip
    second = trf(tmp_path, "Second", dt.date(2025, 10, 10),
                 [*three_players(810_010)[:2], ("Ob, Oisin", None, 2012, "IRL")], GAMES)  # fmt: skip
    out = ok(db_url, "import-trf", first, second)
    assert "  Ua, Una (national 1, born 2011, IRL; national ID assigned)" in out.splitlines()
    assert "  Ob, Oisin (national 2, born 2012, IRL; national ID assigned)" in out.splitlines()
    assert query(db_url, "SELECT name, national_id FROM player WHERE fide_id IS NULL ORDER BY id") == [
        ("Ua, Una", "1"),
        ("Ob, Oisin", "2"),
    ]


def test_the_same_tournament_twice_in_one_import_is_refused_naming_the_first(
    db_url: str, tmp_path: Path
) -> None:
    first = trf(tmp_path, "Twice", dt.date(2025, 10, 3), three_players(820_000), GAMES)
    (tmp_path / "one").mkdir()
    again = trf(tmp_path / "one", "Twice", dt.date(2025, 10, 3), three_players(820_000), [(1, 2, "0")])
    renamed = again.rename(tmp_path / "twice_corrected.trf")
    before = counts(db_url)
    result = run(db_url, "import-trf", first, renamed)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert result.stderr == (  # type: ignore[attr-defined]
        "Error: twice_corrected.trf looks like a corrected version of event 1 'Twice' (period 2025-10, not "
        "rated yet; 3 of the file's 3 players played in it): `ratingdb replace-event 1 twice_corrected.trf`; "
        "if it is a different tournament with the same name and start date, add --distinct-event (a section "
        "of a congress: --section NAME)\n"
    )
    assert counts(db_url) == before


def test_a_big_list_read_by_a_second_process_is_refused_whole_at_its_bad_line(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ratingdb.formats.lists.AHEAD_BYTES", 1)  # every list is read ahead
    path = tmp_path / "standard.txt"
    long_fide_list(path, 45_000, 900_000, last_rating="15x0")  # line 45,002 is the bad one
    before = counts(db_url)
    result = run(db_url, "import-list", path, "--date", "2025-11-01", "--type", "standard")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert result.stderr == (  # type: ignore[attr-defined]
        "Error: standard.txt line 45002 col 114: rating '15x0' is not a whole number\n"
    )
    assert counts(db_url) == before


def test_a_big_list_read_by_a_second_process_imports_every_row(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ratingdb.formats.lists.AHEAD_BYTES", 1)
    path = tmp_path / "standard.txt"
    rows = long_fide_list(path, 25_000, 900_000)
    out_text = ok(db_url, "import-list", path, "--date", "2025-11-01", "--type", "standard")
    rated = sum(1 for r in rows if r.ratings["standard"].rating)
    assert out_text.splitlines()[:2] == [
        "Imported the standard list dated 2025-11-01 from standard.txt (fide-txt): 25000 entries, "
        f"{rated} rated.",
        "Players: 25000 new, 0 updated.",
    ]
    assert query(db_url, "SELECT COUNT(*), SUM(rating) FROM list_entry") == [
        (25_000, sum(r.ratings["standard"].rating or 0 for r in rows))
    ]
