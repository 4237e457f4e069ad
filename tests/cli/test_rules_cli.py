"""rules add|list|show, and a rule set's own rating type through import, close, list and calc."""

from __future__ import annotations

import hashlib
from pathlib import Path

from typer.testing import CliRunner

from ratingdb.cli import app
from tests.cli.test_import_cli import FIXTURES, ROUND_ROBIN_LIST

runner = CliRunner()
SAMPLE = Path(__file__).parents[2] / "seeds" / "national-2025.toml"
SHA = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()


def run(db_url: str, *args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def test_rules_add_stores_a_version_and_a_rerun_changes_nothing(db_url: str) -> None:
    first = run(db_url, "rules", "add", SAMPLE)
    assert (first.exit_code, first.stdout) == (
        0,
        f"Rule set national-2025 (national, periods 2020-01 on) added as version 1.\nsha256 {SHA}\n",
    )
    again = run(db_url, "rules", "add", SAMPLE)
    assert again.stdout.splitlines()[0] == (
        "Rule set national-2025 (national, periods 2020-01 on) is unchanged: version 1 already has this text."
    )


def test_an_edited_file_becomes_version_2_and_show_prints_either_version(db_url: str, tmp_path: Path) -> None:
    run(db_url, "rules", "add", SAMPLE)
    edited = tmp_path / "national-2025.toml"
    edited.write_text(SAMPLE.read_text(encoding="utf-8").replace("rating = 1000 ", "rating = 900  "), "utf-8")
    result = run(db_url, "rules", "add", edited, "--reason", "floor lowered by the AGM")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:2] == [
        "Rule set national-2025 (national, periods 2020-01 on): version 2 replaces version 1.",
        "Lists closed under the earlier version keep it; closes from now on use this one.",
    ]
    current = run(db_url, "rules", "show", "national-2025").stdout
    old = run(db_url, "rules", "show", "national-2025", "--version", "1").stdout
    assert current.splitlines()[0].startswith("# national-2025: version 2 (current), from national-2025.toml")
    assert "rating = 900 " in current
    assert old == f"# national-2025: version 1 (withdrawn), from national-2025.toml, sha256 {SHA}\n" + (
        SAMPLE.read_text(encoding="utf-8")
    )
    listed = run(db_url, "rules", "list", "--format", "csv").stdout.splitlines()
    assert listed[0] == "name,rating_type,from,until,origin,sha256"
    assert "standard-2025-10,standard,2025-10,,FIDE (built in)," in listed
    assert listed[-1].startswith('national-2025,national,2020-01,,"stored, version 2",')


def test_an_invalid_rule_file_is_refused_with_the_key_and_the_reason(db_url: str, tmp_path: Path) -> None:
    bad = tmp_path / "national.toml"
    bad.write_text(SAMPLE.read_text(encoding="utf-8").replace("reached = 2400", "reached = 2200"), "utf-8")
    result = run(db_url, "rules", "add", bad)
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: national.toml: k.rule[1].reached: 2200 is not tracked: "
        "ratingdb records only whether a player reached 2300 or 2400\n",
    )
    assert run(db_url, "rules", "list", "--format", "csv").stdout.count("stored") == 0
    unknown = run(db_url, "rules", "show", "national")
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith(
        "Error: there is no rule set named 'national': known are standard-2022-01,"
    )


def test_fides_built_in_sets_are_shown_as_shipped(db_url: str) -> None:
    shown = run(db_url, "rules", "show", "standard-2022-01").stdout.splitlines()
    assert shown[0] == "# standard-2022-01: FIDE, built in"
    unverified = [line for line in shown if "UNVERIFIED" in line]
    assert [line.split()[0] for line in unverified] == [
        "window_months",
        "max_rating",
        "disregard_zero_first_event",
    ]


def test_one_tournament_file_feeds_the_fide_list_and_the_national_list(db_url: str, tmp_path: Path) -> None:
    run(db_url, "rules", "add", SAMPLE)
    lst = tmp_path / "oct.csv"
    lst.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    for rating_type in ("standard", "national"):
        imported = run(db_url, "import-list", lst, "--date", "2025-10-01", "--type", rating_type)
        assert imported.exit_code == 0, imported.output
        trf = run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", rating_type)
        assert trf.exit_code == 0, trf.output
    twice = run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "national")
    assert twice.exit_code == 1
    closed = run(db_url, "close-period", "2025-10", "--type", "national")
    assert closed.stdout.splitlines()[:2] == [
        "Closed national period 2025-10: published the list dated 2025-11-01 (rules national-2025).",
        "  events rated: 1; games played: 6; games rated: 6; games that changed a rating: 6",
    ]
    # Kowalski 2210 (K 20): +.21 −.08 +.36 = +.49 × 20 = +9.8 → +10 → 2220, as on the FIDE list.
    listed = run(db_url, "list", "--type", "national", "--format", "csv").stdout.splitlines()
    assert listed[1].startswith('200001,,"Kowalski, Jan",IRL,M,,1980,2220,3,20,')
    bullet = run(db_url, "close-period", "2025-10", "--type", "bullet")
    assert (bullet.exit_code, bullet.stderr) == (
        1,
        "Error: 'bullet' is not a rating type: use one of standard, rapid, blitz, national\n",
    )


def test_calc_rules_accepts_a_rule_set_name(db_url: str) -> None:
    # Spec §12 (data): the 2022 one-upgrade rule, only the 1063 game capped: Σ −0.61, K 20 → −12.
    games = [f"-g{g}" for g in ("1063:1", "1299:1", "1413:1", "1872:0.5", "1851:0", "1427:1", "1682:1")]
    result = run(db_url, "calc", "2000", *games, "--k", "20", "--rules", "rapid-2022-01", "--type", "rapid")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Rules: rapid-2022-01 (from --rules); a difference above 400 counts as 400")
    assert "   2      1299    1   +701    0.99    +0.01         +0.2" in lines
    assert "New rating: 2000 − 12 = 1988" in lines
    run(db_url, "rules", "add", SAMPLE)
    national = run(db_url, "calc", "1500", "--opponent", "1500", "--k", "20", "--rules", "national-2025")
    assert national.stdout.splitlines()[0].startswith("Rules: national-2025 (from --rules)")


def test_calc_writes_out_the_2022_initial_rating_under_the_2022_rules() -> None:
    # Spec §12 (verified against FIDE's calculator): 3/5 against 2000s → Ra 2000 + 20 = 2020.
    games = [f"-g{g}" for g in ("2000:1", "2000:1", "2000:1", "2000:0", "2000:0")]
    result = runner.invoke(app, ["calc", "unrated", *games, "--rules", "standard-2022-01"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # Written in the 2022 method's own terms, each step adding up: 20 × (2 × 3 − 5) = 20; 2000 + 20 = 2020.
    start = lines.index("Ra = Σ / n = 10000 / 5 = 2000.00")
    assert lines[start - 1 : start + 4] == [
        "Method: FIDE 2022 (Ra the opponents' average; 20 per half point above 50 %, else dp)",
        "Ra = Σ / n = 10000 / 5 = 2000.00",
        "dp = 20 × (2 × W − n) = 20 × (2 × 3.00 − 5) = 20",
        "Ru = Ra + dp = 10000 / 5 + 20 = 2020.00 → 2020",
        "Initial rating: 2020",
    ]
