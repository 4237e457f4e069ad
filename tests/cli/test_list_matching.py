"""`import-list` goes through the matching step (issue 24, item 1): a row whose name is unlike the
registered name of its ID, or whose new ID looks like a typo of a registered player's, refuses the whole
import (every table as it was) naming the candidate and the option that settles it.

The register is the demo's standard list of 2025-09-01 (seeds/, 299 players); the correction files are
made from its rows by the edit each test states.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_matching_stories import ok, query, refused

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
LIST = SEEDS / "standard-2025-09-01.csv"
HEADER = LIST.read_text(encoding="utf-8").splitlines()[0]
DOYLE = '25900011,10011,"Doyle, Patrick",IRL,M,,1979,1850,,,,,,'  # the seed row, rating 1850
BYRNE = "Byrne, Noel (FIDE 25900012, national 10012, born 1958, IRL)"


@pytest.fixture
def register(db_url: str) -> str:
    ok(db_url, "import-list", LIST, "--date", "2025-09-01", "--type", "standard")
    return db_url


def fix(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "fix.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def update(db_url: str, path: Path, *options: str) -> str:
    return ok(db_url, "import-list", path, "--update", "--reason", "corrections", *options)


def test_another_name_on_a_registered_id_is_refused_and_accept_name_keeps_the_old_one(
    register: str, tmp_path: Path
) -> None:
    # Issue 24's story on a list: Doyle's ID with another person's name.
    path = fix(tmp_path, DOYLE.replace("Doyle, Patrick", "Smith, David J."))
    error = refused(register, "import-list", path, "--update", "--reason", "corrections")
    # token_sort_ratio("david j smith", "doyle patrick") = 23
    assert error == (
        "Error: fix.csv line 2 'Smith, David J.' FIDE 25900011: that ID is registered to Doyle, Patrick "
        "(FIDE 25900011, national 10011, born 1979, IRL), but the names do not match (score 23, below 90) — "
        "say which: --accept-name 2 (the same player, renamed: 'Doyle, Patrick' is kept as an alias), or "
        "--match 2=ID (this line is another registered player: `ratingdb player find NAME`); nothing was "
        "written\n"
    )
    update(register, path, "--accept-name", "2")
    assert query(register, "SELECT name FROM player WHERE fide_id = 25900011") == [("Smith, David J.",)]
    assert query(register, "SELECT name FROM player_alias") == [("Doyle, Patrick",)]
    # The next file that still says "Doyle, Patrick" matches through the alias, without options.
    update(register, fix(tmp_path, DOYLE.replace("1850", "1860")))


def test_a_spelling_within_the_threshold_or_an_accent_goes_through(register: str, tmp_path: Path) -> None:
    # Name keys "doyle pat" / "doyle patrick": 2 × 9 / (9 + 13) = 81.8, refused; "doyle patrik" 2 × 12 /
    # 25 = 96 and "DOYLE, Pátrick" (the same key) 100 are him.
    assert "score 82" in refused(
        register, "import-list", fix(tmp_path, DOYLE.replace("Patrick", "Pat")), "--update", "--reason", "x"
    )
    update(register, fix(tmp_path, DOYLE.replace("Patrick", "Patrik")))
    update(register, fix(tmp_path, DOYLE.replace("Doyle, Patrik", "DOYLE, Pátrick").replace("1850", "1851")))


def test_a_typo_in_a_new_id_is_refused_naming_the_registered_player_and_match_or_new_resolve_it(
    register: str, tmp_path: Path
) -> None:
    # Byrne's FIDE ID 25900012 mistyped 25900912 (a 9 for the 0: a number nobody has), national ID left out.
    path = fix(tmp_path, '25900912,,"Byrne, Noel",IRL,M,,1958,1400,,,,,,')
    error = refused(register, "import-list", path, "--update", "--reason", "corrections")
    assert error == (
        f"Error: fix.csv line 2 'Byrne, Noel' FIDE 25900912: no player has that ID, but {BYRNE} has this "
        "name and birth year and federation and is not on this list — a typo in the ID? --match "
        "2=25900012 (this line is Byrne, Noel) or --new 2 (a new player, registered with the line's ID); "
        "nothing was written\n"
    )
    # --match: the row is Byrne's (his IDs and name stay, the rating is the file's).
    update(register, path, "--match", "2=25900012")
    assert query(register, "SELECT fide_id, national_id FROM player WHERE name = 'Byrne, Noel'") == [
        (25900012, "10012")
    ]
    assert query(
        register,
        "SELECT e.rating FROM list_entry e JOIN player p ON p.id = e.player_id JOIN rating_list l "
        "ON l.id = e.list_id WHERE p.fide_id = 25900012 AND l.is_current = TRUE",
    ) == [(1400,)]


def test_new_registers_the_namesake_and_a_full_list_naming_both_needs_no_option(
    register: str, tmp_path: Path
) -> None:
    namesake = '25900912,,"Byrne, Noel",IRL,M,,1958,1400,,,,,,'
    update(register, fix(tmp_path, namesake), "--new", "2")
    assert query(register, "SELECT fide_id FROM player WHERE name = 'Byrne, Noel' ORDER BY id") == [
        (25900012,),
        (25900912,),
    ]
    # A full list naming both registered Byrnes by their own IDs and a third, new one: three people, as
    # neither registered namesake is missing from the list, so nothing to decide.
    full = tmp_path / "standard-2025-10-01.csv"
    rows = [*LIST.read_text(encoding="utf-8").splitlines(), namesake, namesake.replace("912", "931")]
    full.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = ok(register, "import-list", full, "--date", "2025-10-01", "--type", "standard")
    assert "Players: 1 new, 0 updated." in out


def test_an_option_naming_no_row_or_no_player_is_refused(register: str, tmp_path: Path) -> None:
    path = fix(tmp_path, DOYLE)
    assert refused(register, "import-list", path, "--update", "--reason", "x", "--accept-name", "7") == (
        "Error: --accept-name 7: fix.csv has no player row on line 7\n"
    )
    assert refused(register, "import-list", path, "--update", "--reason", "x", "--match", "2=99") == (
        "Error: --match 2=99: no player has FIDE ID or national ID '99' — `ratingdb player find NAME` "
        "finds the right one; --new LINE registers a new player\n"
    )
    assert refused(register, "import-list", path, "--update", "--reason", "x", "--new", "two") == (
        "Error: --new 'two' does not name a line of the file (e.g. --new 12)\n"
    )
