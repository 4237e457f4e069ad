"""A list import can never shrink or fork the federation's list by accident (issue 11, item 1).

The story: a 402-player list is in force; the officer imports a one-row CSV to fix one player. That is
refused with the numbers, the database unchanged; `import-list --update` makes the new version of the
list in force they wanted; `--replace-list` takes a genuinely new full list; `withdraw-list` takes back an
imported list nothing was computed from. Every refusal asserts the exact line, exit code 1 and that the
database did not change; every change asserts its audit row with the officer's reason.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app

TRF = Path(__file__).resolve().parent.parent / "fixtures" / "trf"
runner = CliRunner()

# The August list: 402 adults, FIDE IDs 300001…300402, ratings 1501…1902, K 20, 2 games each.
SIZE = 402
ROUND_ROBIN_LIST = (
    "fide_id,name,federation,sex,birth_year,rating,k\n"
    '200001,"Kowalski, Jan",IRL,M,1980,2210,20\n'
    '200002,"Novak, Petra",IRL,F,1980,2150,20\n'
    '200003,"Horvat, Ivan",IRL,M,1980,2105,20\n'
    '200004,"Szabo, Eva",IRL,F,2009,1980,40\n'
)


def run(db_url: str, *args: str | Path) -> Any:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def query(db_url: str, sql: str, **params: object) -> list[tuple[Any, ...]]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text(sql), params)]
    engine.dispose()
    return rows


def snapshot(db_url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables an import or a withdrawal touches."""
    return {
        t: sorted(query(db_url, f"SELECT * FROM {t}"), key=repr)
        for t in ("player", "rating_list", "list_entry", "audit_log", "event")
    }


def write_list(path: Path, ids: range, *, extra: list[list[object]] = ()) -> Path:  # type: ignore[assignment]
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["fide_id", "name", "federation", "sex", "birth_year", "rating", "games", "k"])
        for i in ids:
            out.writerow([300000 + i, f"Player, {i:03d}", "IRL", "M", 1980, 1500 + i, 2, 20])
        out.writerows(extra)
    return path


def entries(db_url: str, list_date: str, version: int) -> dict[int, tuple[Any, ...]]:
    """FIDE ID → (rating, games, k, flag, games_total, reached_2400, reached_2300) on one version."""
    rows = query(
        db_url,
        "SELECT p.fide_id, e.rating, e.games, e.k, e.flag, e.games_total, e.reached_2400, e.reached_2300 "
        "FROM list_entry e JOIN rating_list l ON l.id = e.list_id JOIN player p ON p.id = e.player_id "
        "WHERE l.rating_type = 'standard' AND l.list_date = :d AND l.version = :v",
        d=list_date,
        v=version,
    )
    return {r[0]: (r[1], r[2], r[3], r[4], r[5], bool(r[6]), bool(r[7])) for r in rows}


@pytest.fixture
def august(db_url: str, tmp_path: Path) -> Path:
    path = write_list(tmp_path / "aug.csv", range(1, SIZE + 1))
    result = run(db_url, "import-list", path, "--date", "2025-08-01", "--type", "standard")
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def one_row(tmp_path: Path) -> Path:
    # The correction the officer meant: player 300007's name and rating; nothing else given.
    path = tmp_path / "one.csv"
    path.write_text('fide_id,name,rating\n300007,"Seven, Player",1612\n', encoding="utf-8")
    return path


def test_a_one_row_list_dated_the_next_month_is_refused_with_the_numbers(
    db_url: str, august: Path, one_row: Path
) -> None:
    before = snapshot(db_url)
    result = run(db_url, "import-list", one_row, "--date", "2025-09-01", "--type", "standard")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: this list has 1 player; the standard list in force (2025-08-01) has 402; 401 would leave "
        "the list — to correct or add players use `ratingdb import-list one.csv --update --type standard "
        "--reason TEXT`; to load a genuinely new full list use --replace-list\n"
    )
    assert snapshot(db_url) == before


def test_update_publishes_a_new_version_of_the_list_in_force_with_the_one_row_applied(
    db_url: str, august: Path, one_row: Path
) -> None:
    # "Seven, Player" is unlike the registered "Player, 007" (score 55): a rename is said with
    # --accept-name LINE (issue 24), which keeps the old name as an alias.
    result = run(
        db_url,
        "import-list",
        one_row,
        "--update",
        "--type",
        "standard",
        "--reason",
        "name and rating fix",
        "--accept-name",
        "2",
    )
    assert result.exit_code == 0, result.output
    assert query(db_url, "SELECT name FROM player_alias") == [("Player, 007",)]
    assert result.stdout.splitlines() == [
        "Updated the standard list dated 2025-08-01 from one.csv (csv): version 2 replaces version 1; "
        "402 entries: 1 from the file (1 changed, 0 added), 401 kept as they were.",
        "Players: 0 new, 1 updated.",
    ]
    old, new = entries(db_url, "2025-08-01", 1), entries(db_url, "2025-08-01", 2)
    assert len(old) == len(new) == SIZE
    # Player 7 was 1507, 2 games, K 20, established (K 20 adult: at least 30 games). Only the rating
    # changes: games, K and the rule state are not in the file and stay as they were.
    assert old[300007] == (1507, 2, 20, None, 30, False, False)
    assert new[300007] == (1612, 2, 20, None, 30, False, False)
    assert {k: v for k, v in new.items() if k != 300007} == {k: v for k, v in old.items() if k != 300007}
    assert query(db_url, "SELECT name FROM player WHERE fide_id = 300007") == [("Seven, Player",)]
    # Version 1 is withdrawn by the audited change that created version 2.
    versions = query(
        db_url,
        "SELECT version, is_current, created_by, withdrawn_by, source, sealed FROM rating_list "
        "WHERE list_date = '2025-08-01' ORDER BY version",
    )
    ((audit_id, action, detail, reason),) = query(
        db_url, "SELECT id, action, detail, reason FROM audit_log WHERE action = 'import-list-update'"
    )
    assert [(v, bool(c) if c is not None else None, w == audit_id) for v, c, _, w, _, _ in versions] == [
        (1, None, True),
        (2, True, False),
    ]
    assert versions[1][2] == audit_id and versions[1][4] == "one.csv" and bool(versions[1][5])
    assert (action, reason) == ("import-list-update", "name and rating fix")
    assert detail == (
        "updated the standard list dated 2025-08-01 from one.csv: version 1 replaced by version 2, "
        "the same list with the file's rows applied"
    )
    # `list` shows the list in force, version 2, with 1612; `list --version 1` still shows 1507.
    shown = run(db_url, "list", "--format", "csv")
    assert '300007,,"Seven, Player",IRL,M,,1980,1612,2,20,,30,false,false' in shown.stdout.splitlines()
    first = run(db_url, "list", "2025-08-01", "--version", "1", "--format", "csv")
    assert first.exit_code == 0, first.output
    by_id = {row["fide_id"]: row for row in csv.DictReader(first.stdout.splitlines())}
    assert len(by_id) == SIZE
    assert (by_id["300007"]["rating"], by_id["300007"]["games"], by_id["300007"]["k"]) == ("1507", "2", "20")
    # Running the same update again is safe: nothing changes, no version 3, and it says so.
    before = snapshot(db_url)
    again = run(db_url, "import-list", one_row, "--update", "--reason", "name and rating fix")
    assert again.exit_code == 0, again.output
    assert again.stdout == (
        "Nothing changed: every row of one.csv already matches the list in force (standard 2025-08-01, "
        "version 2).\n"
    )
    assert snapshot(db_url) == before


def test_update_adds_new_players_and_a_reached_mark_follows_the_rating(
    db_url: str, august: Path, tmp_path: Path
) -> None:
    fix = tmp_path / "fix.csv"
    fix.write_text(
        "fide_id,name,sex,birth_year,rating,k\n"
        '300402,"Player, 402",,,2405,\n'  # a corrected rating over 2400: reached 2400 and 2300 for life
        '300999,"Late, Larry",M,1990,1750,40\n',  # a player the list missed: added as an import adds him
        encoding="utf-8",
    )
    result = run(db_url, "import-list", fix, "--update", "--reason", "two players")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "Updated the standard list dated 2025-08-01 from fix.csv (csv): version 2 replaces version 1; "
        "403 entries: 2 from the file (1 changed, 1 added), 401 kept as they were."
    )
    new = entries(db_url, "2025-08-01", 2)
    assert new[300402] == (2405, 2, 20, None, 30, True, True)
    # An adult with K 40 and no games column: 0 games seen, fewer than 30 in total (formats.md).
    assert new[300999] == (1750, 0, 40, None, 0, False, False)


def test_replace_list_accepts_a_genuinely_new_full_list(db_url: str, august: Path, tmp_path: Path) -> None:
    new_list = write_list(tmp_path / "sep.csv", range(1, 11))
    result = run(
        db_url, "import-list", new_list, "--date", "2025-09-01", "--replace-list", "--reason", "new system"
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "Imported the standard list dated 2025-09-01 from sep.csv (csv): 10 entries, 10 rated."
    )
    assert query(db_url, "SELECT detail, reason FROM audit_log ORDER BY id DESC")[0] == (
        "imported the standard list dated 2025-09-01 from sep.csv as a new full list (--replace-list) "
        "after the one dated 2025-08-01",
        "new system",
    )


def test_up_to_five_percent_may_leave_the_list(db_url: str, august: Path, tmp_path: Path) -> None:
    # 5 % of 402 is 20.1: 20 players may leave, 21 may not.
    shorter = write_list(tmp_path / "short.csv", range(22, SIZE + 1))  # players 1–21 leave
    before = snapshot(db_url)
    refused = run(db_url, "import-list", shorter, "--date", "2025-09-01")
    assert refused.exit_code == 1
    assert refused.stderr.startswith(
        "Error: this list has 381 players; the standard list in force (2025-08-01) has 402; 21 would leave "
        "the list — "
    )
    assert snapshot(db_url) == before
    enough = write_list(tmp_path / "ok.csv", range(21, SIZE + 1))  # players 1–20 leave
    accepted = run(db_url, "import-list", enough, "--date", "2025-09-01")
    assert accepted.exit_code == 0, accepted.output
    assert accepted.stdout.startswith("Imported the standard list dated 2025-09-01 from ok.csv (csv): 382")


@pytest.fixture
def october_with_an_event(db_url: str, tmp_path: Path) -> Path:
    path = tmp_path / "oct.csv"
    path.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    assert run(db_url, "import-list", path, "--date", "2025-10-01").exit_code == 0
    imported = run(db_url, "import-trf", TRF / "round_robin.trf", "--type", "standard")
    assert imported.exit_code == 0, imported.output
    return path


def test_a_list_that_skips_a_period_holding_events_is_refused(
    db_url: str, october_with_an_event: Path
) -> None:
    before = snapshot(db_url)
    expected = (
        "Error: the standard list dated 2025-11-01 would skip period 2025-10, which holds 1 imported event "
        "that would never be rated (the list in force is 2025-10-01) — close the period first (`ratingdb "
        "close-period 2025-10 --type standard`), or delete the events that should not be rated (`ratingdb "
        "delete-event ID`)\n"
    )
    for extra in ([], ["--replace-list"]):
        result = run(db_url, "import-list", october_with_an_event, "--date", "2025-11-01", *extra)
        assert result.exit_code == 1
        assert result.stderr == expected
    # Two months ahead skips both periods; only 2025-10 holds an event.
    ahead = run(db_url, "import-list", october_with_an_event, "--date", "2025-12-01")
    assert ahead.stderr.startswith(
        "Error: the standard list dated 2025-12-01 would skip period 2025-10, which holds 1 imported event"
    )
    assert snapshot(db_url) == before
    # Closed first, the period's event is rated and the next list may follow.
    assert run(db_url, "close-period", "2025-10").exit_code == 0
    after = run(db_url, "import-list", october_with_an_event, "--date", "2025-12-01")
    assert after.exit_code == 0, after.output


def test_withdraw_list_takes_back_an_imported_list_nothing_used(
    db_url: str, august: Path, tmp_path: Path
) -> None:
    september = write_list(tmp_path / "sep.csv", range(1, SIZE + 1))
    assert run(db_url, "import-list", september, "--date", "2025-09-01").exit_code == 0
    result = run(db_url, "withdraw-list", "2025-09-01", "--type", "standard", "--reason", "FIDE republished")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Withdrew the standard list dated 2025-09-01 (version 1, imported from sep.csv, 402 entries); it "
        "stays in the database as withdrawn.",
        "The standard list in force is now the one dated 2025-08-01.",
    ]
    assert query(db_url, "SELECT action, detail, reason FROM audit_log ORDER BY id DESC")[0] == (
        "withdraw-list",
        "withdrew the standard list dated 2025-09-01 (version 1, imported from sep.csv, 402 entries)",
        "FIDE republished",
    )
    assert query(db_url, "SELECT is_current FROM rating_list WHERE list_date = '2025-09-01'") == [(None,)]
    assert len(entries(db_url, "2025-09-01", 1)) == SIZE  # kept, withdrawn
    again = run(db_url, "import-list", september, "--date", "2025-09-01")
    assert again.exit_code == 0, again.output
    assert query(db_url, "SELECT version FROM rating_list WHERE list_date = '2025-09-01' AND is_current") == [
        (2,)
    ]


def test_withdraw_list_refuses_a_list_a_close_used_and_a_computed_list(
    db_url: str, october_with_an_event: Path
) -> None:
    assert run(db_url, "close-period", "2025-10").exit_code == 0
    before = snapshot(db_url)
    used = run(db_url, "withdraw-list", "2025-10-01", "--reason", "wrong file")
    assert used.exit_code == 1
    assert used.stderr == (
        "Error: cannot withdraw the standard list dated 2025-10-01: closing 2025-10 computed the list dated "
        "2025-11-01 from it — reopen that period first (`ratingdb reopen 2025-10 --type standard --reason "
        "TEXT`), then withdraw this list\n"
    )
    computed = run(db_url, "withdraw-list", "2025-11-01", "--reason", "wrong file")
    assert computed.exit_code == 1
    assert computed.stderr == (
        "Error: cannot withdraw the standard list dated 2025-11-01: it was computed by closing 2025-10, so "
        "its ratings come from that period's games — correct the events and reopen the period (`ratingdb "
        "reopen 2025-10 --type standard --reason TEXT`)\n"
    )
    # --update of the list the close used (named by --date), or of the computed list in force: the same.
    update = run(
        db_url, "import-list", october_with_an_event, "--update", "--date", "2025-10-01", "--reason", "fix"
    )
    assert update.exit_code == 1
    assert update.stderr.startswith(
        "Error: cannot update the standard list dated 2025-10-01: closing 2025-10 computed the list dated "
        "2025-11-01 from it — reopen that period first"
    )
    update_in_force = run(db_url, "import-list", october_with_an_event, "--update", "--reason", "fix")
    assert update_in_force.stderr.startswith(
        "Error: cannot update the standard list dated 2025-11-01: it was computed by closing 2025-10"
    )
    assert snapshot(db_url) == before


def test_withdraw_list_refuses_an_earlier_imported_list_and_needs_a_reason(
    db_url: str, august: Path, tmp_path: Path
) -> None:
    september = write_list(tmp_path / "sep.csv", range(1, SIZE + 1))
    assert run(db_url, "import-list", september, "--date", "2025-09-01").exit_code == 0
    before = snapshot(db_url)
    earlier = run(db_url, "withdraw-list", "2025-08-01", "--reason", "wrong file")
    assert earlier.exit_code == 1
    assert earlier.stderr == (
        "Error: cannot withdraw the standard list dated 2025-08-01: the list dated 2025-09-01 (imported, "
        "from sep.csv) follows it and only the newest list can be changed — withdraw the later list first "
        "(`ratingdb withdraw-list 2025-09-01 --type standard --reason TEXT`)\n"
    )
    no_reason = run(db_url, "withdraw-list", "2025-09-01")
    assert no_reason.exit_code == 1
    assert no_reason.stderr == (
        "Error: withdraw-list needs --reason TEXT — say why the list is withdrawn (kept in the audit log)\n"
    )
    missing = run(db_url, "withdraw-list", "2025-07-01", "--reason", "x")
    assert missing.exit_code == 1
    assert missing.stderr == (
        "Error: there is no standard list dated 2025-07-01 (lists in the database: 2025-08-01, 2025-09-01)\n"
    )
    assert snapshot(db_url) == before


def test_update_needs_a_reason_and_a_list_to_update(db_url: str, one_row: Path) -> None:
    before = snapshot(db_url)
    no_reason = run(db_url, "import-list", one_row, "--update")
    assert no_reason.exit_code == 1
    assert no_reason.stderr == (
        "Error: --update needs --reason TEXT — say why the list is corrected (kept in the audit log)\n"
    )
    nothing = run(db_url, "import-list", one_row, "--update", "--reason", "fix")
    assert nothing.exit_code == 1
    assert nothing.stderr == (
        "Error: there is no standard list to update: import one first (`ratingdb import-list FILE --date "
        "YYYY-MM-01 --type standard`)\n"
    )
    assert snapshot(db_url) == before


def test_after_a_reopen_the_list_the_close_used_can_be_withdrawn_or_followed(
    db_url: str, october_with_an_event: Path
) -> None:
    # The way forward the refusal names: reopen the period, then withdraw the imported list it used.
    assert run(db_url, "close-period", "2025-10").exit_code == 0
    reopened = run(db_url, "reopen", "2025-10", "--reason", "wrong starting list")
    assert reopened.exit_code == 0, reopened.output
    # The event of 2025-10 is current again in an open period: a 2025-11-01 list would strand it.
    stranded = run(db_url, "import-list", october_with_an_event, "--date", "2025-11-01")
    assert stranded.stderr.startswith("Error: the standard list dated 2025-11-01 would skip period 2025-10")
    # Deleted (withdrawn, since the withdrawn list was computed from it), it strands nothing any more.
    assert run(db_url, "delete-event", "1", "--yes").exit_code == 0
    assert query(db_url, "SELECT is_current FROM event WHERE id = 1") == [(None,)]
    followed = run(db_url, "import-list", october_with_an_event, "--date", "2025-11-01")
    assert followed.exit_code == 0, followed.output
    # And the October list, now that nothing computed from it is current, can be withdrawn after it.
    assert run(db_url, "withdraw-list", "2025-11-01", "--reason", "test").exit_code == 0
    withdrawn = run(db_url, "withdraw-list", "2025-10-01", "--reason", "wrong starting list")
    assert withdrawn.exit_code == 0, withdrawn.output
    assert withdrawn.stdout.splitlines() == [
        "Withdrew the standard list dated 2025-10-01 (version 1, imported from oct.csv, 4 entries); it stays "
        "in the database as withdrawn.",
        "There is no standard list in force now.",
    ]
    assert query(
        db_url, "SELECT action, reason FROM audit_log WHERE action IN ('reopen', 'withdraw-list') ORDER BY id"
    ) == [
        ("reopen", "wrong starting list"),
        ("withdraw-list", "test"),
        ("withdraw-list", "wrong starting list"),
    ]
