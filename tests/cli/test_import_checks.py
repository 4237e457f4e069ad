"""What import-trf and import-list say about the surprising: a file that is not a TRF, a --type the file
contradicts, ratings in the file that are not the list's, a period no rule set covers, and what a list
without K or games_total is assumed to mean. Exact lines, on both engines."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.cli.test_import_cli import FIXTURES, ROUND_ROBIN_LIST

runner = CliRunner()
ROUND_ROBIN = (FIXTURES / "round_robin.trf").read_text(encoding="utf-8")


def run(db_url: str, *args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def events(db_url: str) -> int:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        count = conn.scalar(text("SELECT count(*) FROM event"))
    engine.dispose()
    return int(count or 0)


def with_092(tmp_path: Path, words: str, time_control: str | None = None) -> Path:
    """round_robin.trf with record 092 saying `words`, and record 122 saying `time_control` (or none)."""
    path = tmp_path / "rapid_rr.trf"
    lines = [
        f"092 {words}" if line.startswith("092 ") else line
        for line in ROUND_ROBIN.splitlines()
        if not line.startswith("122 ")
    ]
    if time_control is not None:
        lines.insert(1, f"122 {time_control}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_csv_given_to_import_trf_is_named_as_not_a_trf(db_url: str, tmp_path: Path) -> None:
    start = tmp_path / "start.csv"
    start.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    result = run(db_url, "import-trf", start, "--type", "standard")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: start.csv does not look like a TRF file: no 001 player lines\n",
    )


def test_a_type_the_file_contradicts_is_refused_unless_overridden(db_url: str, tmp_path: Path) -> None:
    path = with_092(tmp_path, "Individual: round robin (Rapid)")
    refused = run(db_url, "import-trf", path, "--type", "standard")
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Error: rapid_rr.trf: --type standard does not match the file, whose record 092 ('Individual: round "
        "robin (Rapid)') says rapid — import it with --type rapid, or add --type-override if the file is "
        "wrong\n"
    )
    assert events(db_url) == 0
    overridden = run(db_url, "import-trf", path, "--type", "standard", "--type-override")
    assert overridden.exit_code == 0, overridden.output
    assert overridden.stdout.startswith("Imported rapid_rr.trf as event 1 'Club round robin': standard,")


def test_without_type_the_words_of_record_092_give_it(db_url: str, tmp_path: Path) -> None:
    result = run(db_url, "import-trf", with_092(tmp_path, "Individual: round robin (Rapid)"))
    assert result.exit_code == 0, result.output
    assert "'Club round robin': rapid, period 2025-10;" in result.stdout.splitlines()[0]


def test_without_222_record_122_gives_the_type(db_url: str, tmp_path: Path) -> None:
    # 60 min + 30 s a move: 60 + 60 × 30 s = 90 minutes for 60 moves, standard (60 or more).
    result = run(db_url, "import-trf", with_092(tmp_path, "Individual: round robin", "60 min + 30 s"))
    assert result.exit_code == 0, result.output
    assert "'Club round robin': standard, period 2025-10;" in result.stdout.splitlines()[0]


def test_a_type_record_122_contradicts_is_refused(db_url: str, tmp_path: Path) -> None:
    path = with_092(
        tmp_path, "Individual: round robin", "90 min for 40 moves + 30 min, 30 s per move from move 1"
    )
    refused = run(db_url, "import-trf", path, "--type", "rapid")
    # 90 + 30 + 60 × 30 s = 150 minutes for 60 moves.
    assert (refused.exit_code, refused.stderr) == (
        1,
        "Error: rapid_rr.trf: --type rapid does not match the file, whose record 122 ('90 min for 40 moves "
        "+ 30 min, 30 s per move from move 1': 150 minutes for 60 moves) says standard — import it with "
        "--type standard, or add --type-override if the file is wrong\n",
    )
    assert events(db_url) == 0


def test_a_record_122_that_cannot_be_read_is_named_not_guessed(db_url: str, tmp_path: Path) -> None:
    path = with_092(tmp_path, "Individual: round robin", "90 min + 30")
    refused = run(db_url, "import-trf", path)
    assert (refused.exit_code, refused.stderr) == (
        1,
        "Error: rapid_rr.trf: the rating type is unknown (record 122 '90 min + 30' cannot be read as a time "
        "control: '+ 30' could be minutes or seconds per move): give it with --type standard|rapid|blitz\n",
    )
    imported = run(db_url, "import-trf", path, "--type", "standard")
    assert imported.exit_code == 0, imported.output
    assert imported.stdout.splitlines()[1] == (
        "  note: record 122 '90 min + 30' cannot be read as a time control: '+ 30' could be minutes or "
        "seconds per move: the type standard comes from --type, unchecked"
    )


def test_records_122_and_092_that_disagree_give_no_type(db_url: str, tmp_path: Path) -> None:
    path = with_092(tmp_path, "Individual: round robin (Rapid)", "G/90+30")
    refused = run(db_url, "import-trf", path)
    assert (refused.exit_code, refused.stderr) == (
        1,
        "Error: rapid_rr.trf: the rating type is unknown (record 122 'G/90+30' (120 minutes for 60 moves, "
        "standard) and record 092 'Individual: round robin (Rapid)' (rapid) disagree): give it with --type "
        "standard|rapid|blitz\n",
    )


def test_an_encoded_time_control_that_contradicts_the_type_is_refused(db_url: str) -> None:
    result = run(db_url, "import-trf", FIXTURES / "trf26_national.trf", "--type", "blitz")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: trf26_national.trf: --type blitz does not match the file, whose record 222 ('5400+30') says "
        "standard — import it with --type standard, or add --type-override if the file is wrong\n"
    )


def test_ratings_in_the_file_are_compared_with_the_list_in_force(db_url: str, tmp_path: Path) -> None:
    # The list has Kowalski at 2200 (the file says 2210) and no Szabo (the file says 1980).
    lst = tmp_path / "oct.csv"
    lst.write_text(
        ROUND_ROBIN_LIST.replace(",2210,", ",2200,").replace('200004,"Szabo, Eva",IRL,F,2009,1980,40\n', ""),
        encoding="utf-8",
    )
    assert run(db_url, "import-list", lst, "--date", "2025-10-01").exit_code == 0
    result = run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:4] == [
        "  1 player with a rating in the file that differs from the standard list of 2025-10-01 (the "
        "list's is used):",
        "    Kowalski, Jan: file 2210, list 2200",
        "  1 player with a rating in the file but none on the standard list of 2025-10-01: it is rated as "
        "unrated.",
    ]


def test_without_a_list_in_force_every_file_rating_is_reported_unused(db_url: str) -> None:
    result = run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1] == (
        "  4 players with a rating in the file, but no standard list is in force at the event's start: they "
        "are rated as unrated (import the list first to rate them as rated)."
    )


def test_an_event_no_rule_set_covers_is_refused_naming_the_rule_sets(db_url: str) -> None:
    from ratingdb.rating import RULE_SETS, Period, RulesError, rule_set_for

    with pytest.raises(RulesError):  # the rule sets that exist start long after 2011
        rule_set_for("standard", Period(2011, 3))
    spans = ", ".join(
        f"{r.name} ({r.effective_from or 'any time'} to {r.effective_to or 'now'})"
        for r in RULE_SETS
        if r.rating_type == "standard"
    )
    masters = FIXTURES / "icu-bunratty_masters_2011.tab"
    result = run(db_url, "import-trf", masters, "--type", "standard", "--federation-column", "mixed")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: icu-bunratty_masters_2011.tab: no standard rule set covers period 2011-03, so the event "
        f"could never be rated — the standard rule sets are {spans}; FIDE's built-in standard rule sets "
        "start at 2022-01: store one for earlier periods with `ratingdb rules add FILE --reason TEXT` "
        "(seeds/history/history-standard-2014.toml in the checkout is a template for 2014-07 … 2021-12: "
        '"Replaying history before 2022" in docs/guide/rule-sets.md), then import the file again\n'
    )
    assert events(db_url) == 0


def test_a_list_without_k_or_games_total_says_what_it_assumed(db_url: str) -> None:
    result = run(
        db_url, "import-list", FIXTURES.parent / "lists" / "list_minimal.csv", "--date", "2025-10-01"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2:] == [
        "Assumed: 1 player rated on the standard list has no K and no games_total in the file: taken as "
        "established (30 or more rated games)."
    ]


def test_a_list_with_k_but_no_games_total_says_what_k_gave(db_url: str, tmp_path: Path) -> None:
    lst = tmp_path / "oct.csv"
    lst.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    result = run(db_url, "import-list", lst, "--date", "2025-10-01")
    assert result.stdout.splitlines()[2:] == [
        "Derived from K: games toward 30 for 4 players rated on the standard list (K 40: fewer than 30; "
        "K 10 or 20: 30 or more), as the file has no games_total."
    ]
