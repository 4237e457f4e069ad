"""The federation's settings (issue 47): renumbering the national IDs a register made up before the
numbering was a setting, with the old numbers kept so that old files still match; and the pattern of the
federation's own national IDs, read by the ID-column check.

On the real Bunratty Masters 2011 (its 34 players without an ID get 1 … 34 by default: Wilson, Alexandra is
26) and files of our own made from the Irish Junior Championships 2011 (tests/cli/test_register_files.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_matching_stories import ok, query, refused
from tests.cli.test_register_files import MASTERS, NATIONAL, empty, junior_variant, with_baird

__all__ = ["empty"]  # the fixture: a register with no player, and a rule set covering 2011

MASTERS_ARGS = ("import-trf", MASTERS, "--type", "standard", "--federation-column", "mixed")


def with_wilson(folder: Path) -> Path:
    """A file written before the renumbering: rank 1 is Wilson, Alexandra with the number the register
    made up for her, 26."""

    def wilson(rank: int, line: str) -> str:
        return (
            line[:14] + f"{'Wilson, Alexandra':<33}" + line[47:57] + f"{26:>11}" + line[68:]
            if rank == 1
            else line
        )

    return junior_variant(folder, "Spring Open", wilson)


def test_renumbering_made_up_numbers_keeps_the_old_ones_for_old_files_and_frees_them(
    empty: str, tmp_path: Path
) -> None:
    ok(empty, *MASTERS_ARGS)
    assert query(empty, "SELECT name FROM player WHERE national_id = '26'") == [("Wilson, Alexandra",)]
    # With the numbering as it was (numbers from 1), new numbers could be the federation's own again.
    assert refused(empty, "federation", "renumber", "--numbers", "1-34", "--reason", "x") == (
        "Error: --numbers: the numbering issues numbers from 1, which can be the federation's own as the "
        "numbers renumbered were: set a prefix (or a first number above 34) first\n"
    )
    ok(empty, "federation", "set", "--national-ids", "prefix", "--national-id-prefix", "R", "--reason", "ICU")
    # A dry run says what it would do and writes nothing.
    before = query(empty, "SELECT id, national_id FROM player ORDER BY id")
    out = ok(empty, "federation", "renumber", "--numbers", "1-34", "--dry-run", "--reason", "made up")
    assert "Wilson, Alexandra: national 26 → R" in out and out.endswith("34 players renumbered.\n")
    assert query(empty, "SELECT id, national_id FROM player ORDER BY id") == before
    ok(empty, "federation", "renumber", "--numbers", "1-34", "--reason", "made up before the R prefix")
    # Every made-up number is now R1 … R34 (one each), the old ones kept, and the change audited.
    renumbered = query(empty, "SELECT national_id FROM player WHERE national_id LIKE 'R%'")
    assert sorted(int(n[1:]) for (n,) in renumbered) == list(range(1, 35))
    assert query(empty, "SELECT COUNT(*) FROM player WHERE national_id NOT LIKE 'R%'") == [(0,)]
    assert query(
        empty,
        "SELECT o.national_id, p.name FROM player_old_id o JOIN player p ON p.id = o.player_id "
        "WHERE o.national_id = '26'",
    ) == [("26", "Wilson, Alexandra")]
    assert query(empty, "SELECT reason FROM audit_log WHERE action = 'federation-renumber'") == [
        ("made up before the R prefix",)
    ]
    # `player show 26` still finds her by the old number.
    assert ok(empty, "player", "show", "26").startswith("WFM Wilson, Alexandra (national R26), ENG\n")
    # A file written before, with her old number and her name, is her: no question, no new player.
    players = query(empty, "SELECT COUNT(*) FROM player")[0][0]
    ok(empty, "import-trf", with_wilson(tmp_path), *NATIONAL)
    grown = query(empty, "SELECT COUNT(*) FROM player")[0][0]
    wilson_events = query(
        empty,
        "SELECT COUNT(*) FROM event_player ep JOIN player p ON p.id = ep.player_id "
        "WHERE p.name = 'Wilson, Alexandra'",
    )
    assert wilson_events == [(2,)]
    # The federation's own 26 (Baird, David) is no longer refused: it is his, and her old number is no claim.
    ok(empty, "import-trf", with_baird(tmp_path), *NATIONAL)
    assert query(empty, "SELECT name FROM player WHERE national_id = '26'") == [("Baird, David",)]
    assert query(empty, "SELECT COUNT(*) FROM player")[0][0] == grown + 1 and grown > players


def test_a_renumbering_refuses_a_range_no_player_has_and_an_empty_reason(empty: str) -> None:
    ok(empty, "federation", "set", "--national-ids", "none", "--reason", "ICU numbers every player")
    assert refused(empty, "federation", "renumber", "--numbers", "1-34", "--reason", "x") == (
        "Error: --numbers: no registered player has a national ID from 1 to 34\n"
    )
    assert refused(empty, "federation", "renumber", "--numbers", "1-34", "--reason", " ") == (
        "Error: --reason: the reason is empty: say why the numbers change\n"
    )
    assert refused(empty, "federation", "renumber", "--numbers", "34", "--reason", "x") == (
        "Error: --numbers '34' is not a range of numbers such as 1-34\n"
    )


def six_digits(rank: int, line: str) -> str:
    """Each ICU number written as the federation's six-digit form: 9 and the number in five digits."""
    number = line[57:68].strip()
    return line[:57] + f"{'9' + number.zfill(5) if number else '':>11}" + line[68:]


def test_the_federations_id_pattern_refuses_its_ids_read_as_fide_ids(empty: str, tmp_path: Path) -> None:
    # Six digits look like a FIDE ID: without the pattern, the file's IDs would be stored as FIDE IDs.
    nines = junior_variant(tmp_path, "Nines Open", six_digits)
    assert "cannot be FIDE IDs" not in ok(empty, "import-trf", nines, "--type", "standard", "--dry-run")
    # A pattern that the numbering's own first number has is refused: the made-up 1 would be ours.
    assert refused(
        empty, "federation", "set", "--national-id-pattern", "[0-9]{1,6}", "--reason", "ICU numbers"
    ) == (
        "Error: --national-id-pattern: the first national ID ratingdb would make up, 1, has the pattern of "
        "the federation's own ([0-9]{1,6}): choose a prefix, or a first number outside the pattern\n"
    )
    assert refused(empty, "federation", "set", "--national-id-pattern", "9[0-9", "--reason", "x").startswith(
        "Error: --national-id-pattern: '9[0-9' is not a regular expression ("
    )
    out = ok(
        empty, "federation", "set", "--national-id-pattern", "9[0-9]{5}", "--reason", "six-digit numbers"
    )
    assert out.startswith(
        "National IDs: ratingdb issues numeric national IDs after the highest registered, "
        "from 1 on; the federation's own national IDs have the pattern 9[0-9]{5} (was:"
    )
    error = refused(empty, "import-trf", nines, "--type", "standard")
    assert (
        "IDs cannot be FIDE IDs (a FIDE ID has 6 to 9 digits, not the pattern of the federation's " in error
    )
    assert "national IDs (9[0-9]{5}), and none of these is on an imported list" in error
    assert "import again with --id-field national" in error
    ok(empty, "import-trf", nines, *NATIONAL)
    assert query(empty, "SELECT COUNT(*) FROM player WHERE fide_id IS NOT NULL") == [(0,)]
    assert query(empty, "SELECT COUNT(*) FROM player WHERE national_id LIKE '9_____'")[0][0] > 0
