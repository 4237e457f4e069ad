"""init, db current|check, close-period, list, player and calculation through the CLI."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.cli.close import print_summary
from ratingdb.rating import Period
from ratingdb.services.close import CloseSummary, PlayerChange
from ratingdb.services.counts import CloseCounts
from tests import builders as b
from tests.cli.test_import_cli import FIXTURES, ROUND_ROBIN_LIST

runner = CliRunner()


def run(db_url: str, *args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def closed_round_robin(db_url: str, tmp_path: Path) -> None:
    lst = tmp_path / "oct.csv"
    lst.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    assert run(db_url, "import-list", lst, "--date", "2025-10-01").exit_code == 0
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    result = run(db_url, "close-period", "2025-10")
    assert result.exit_code == 0, result.output


def test_init_creates_then_reports_up_to_date(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.sqlite'}"
    first = run(url, "init")
    assert first.exit_code == 0
    assert first.stdout == f"Created the ratingdb schema in {url} (migration 0001).\n".replace(
        "0001", _head()
    )
    again = run(url, "init")
    assert again.stdout == f"Database {url} is up to date (migration {_head()}).\n"
    check = run(url, "db", "check")
    assert (check.exit_code, check.stdout) == (0, "Schema is current and matches the models.\n")
    current = run(url, "db", "current")
    assert f"current migration: {_head()}" in current.stdout


def _head() -> str:
    from ratingdb.db import head_revision

    head = head_revision()
    assert head is not None
    return head


def test_a_command_on_a_database_without_schema_says_to_run_init(tmp_path: Path) -> None:
    (tmp_path / "empty.sqlite").touch()  # an empty file is an empty SQLite database
    url = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    result = run(url, "close-period", "2025-10")
    assert result.exit_code == 1
    assert result.stderr == f"Error: the database {url} has no ratingdb schema: run `ratingdb init` first\n"


def test_passwords_are_never_printed(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--db", "postgresql+psycopg://u:s3cret@127.0.0.1:1/none", "db", "current"])
    assert result.exit_code != 0
    assert "s3cret" not in (result.stdout + result.stderr + str(result.exception or ""))


def test_close_period_prints_a_summary_and_a_rerun_changes_nothing(db_url: str, tmp_path: Path) -> None:
    lst = tmp_path / "oct.csv"
    lst.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    run(db_url, "import-list", lst, "--date", "2025-10-01")
    run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard")
    result = run(db_url, "close-period", "2025-10")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert (
        lines[0]
        == "Closed standard period 2025-10: published the list dated 2025-11-01 (rules standard-2025-10)."
    )
    # A round robin of four: 6 games, each between rated players, so each changed two ratings.
    assert lines[1] == "  events rated: 1; games played: 6; games rated: 6; games that changed a rating: 6"
    # Kowalski 2210 (K 20): beat Szabo 1980 (D 230 → .79, +.21), drew Novak 2150 (D 60 → .58, −.08),
    # beat Horvat 2105 (D 105 → .64, +.36): Σ +.49 × 20 = +9.8 → +10 → 2220.
    assert "    biggest gain: Kowalski, Jan 2210 → 2220 (+10, 3 games)" in lines
    again = run(db_url, "close-period", "2025-10")
    assert (again.exit_code, again.stdout) == (
        0,
        "Period 2025-10 (standard) is already closed: the list dated 2025-11-01 exists (computed). "
        "Nothing changed.\n",
    )


def test_close_period_refuses_a_bad_period_and_a_missing_list(db_url: str) -> None:
    bad = run(db_url, "close-period", "2025-13")
    assert (bad.exit_code, bad.stderr) == (
        1,
        "Error: '2025-13' is not a period: write it as YYYY-MM, e.g. 2025-10\n",
    )
    missing = run(db_url, "close-period", "2025-10")
    assert missing.exit_code == 1
    assert missing.stderr == (
        "Error: there is no standard list in the database: import the list in force for period 2025-10 with "
        "`ratingdb import-list FILE --date 2025-10-01 --type standard`\n"
    )


def test_list_json_player_history_and_calculation_page(db_url: str, tmp_path: Path) -> None:
    closed_round_robin(db_url, tmp_path)
    listed = run(db_url, "list", "--format", "json", "--limit", "1")
    assert listed.exit_code == 0
    assert '"name": "Kowalski, Jan"' in listed.stdout and '"rating": 2220' in listed.stdout
    history = run(db_url, "player", "200004", "--format", "csv")
    assert history.stdout.splitlines() == [
        "type,list_date,origin,rating,change,games,k,flag",
        "standard,2025-10-01,imported,1980,,0,40,",
        "standard,2025-11-01,computed,1947,-33,3,40,w",
    ]
    calc = run(db_url, "calculation", "200004", "2025-10")
    assert calc.exit_code == 0
    out = calc.stdout.splitlines()
    assert (
        out[0] == "Szabo, Eva (FIDE 200004), born 2009, IRL: standard, period 2025-10, list dated 2025-11-01"
    )
    # Szabo lost to 2210 (D −230 → .21), 2105 (−125 → .33), 2150 (−170 → .28): Σ −.82, × 40 = −32.8 → −33.
    assert (
        out[1]
        == "Ro 1980, K 40; 3 games; K × Σ(score − PD) = 40 × (−0.82) = −32.80 → −33 (rounded once, half away "
        "from zero, §8.3.4); Rn = Ro + change = 1980 − 33 = 1947"
    )
    unknown = run(db_url, "calculation", "999", "2025-10")
    assert (unknown.exit_code, unknown.stderr) == (
        1,
        "Error: no player has FIDE ID or national ID '999': `ratingdb player find NAME` searches by name\n",
    )


def test_published_lists_cannot_be_changed_through_sql_either(db_url: str, tmp_path: Path) -> None:
    closed_round_robin(db_url, tmp_path)
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM list_entry"))
        raise AssertionError("the delete went through")
    except Exception as exc:  # the database's own trigger refuses it
        assert "published lists are immutable" in str(exc)
    finally:
        engine.dispose()


def test_a_close_can_apply_an_audited_one_off_adjustment(db_url: str, tmp_path: Path) -> None:
    # Spec §10, FIDE's March 2024 compression: below 2000, R + 0.4 × (2000 − R): 1600 → 1760; 2100 stays.
    lst = tmp_path / "oct.csv"
    lst.write_text(
        'fide_id,name,sex,birth_year,rating,k\n1,"Low, L",M,1980,1600,20\n2,"High, H",F,1980,2100,20\n',
        encoding="utf-8",
    )
    assert run(db_url, "import-list", lst, "--date", "2025-10-01").exit_code == 0
    result = run(db_url, "close-period", "2025-10", "--adjust", "2000:0.4")
    assert result.exit_code == 0, result.output
    listed = run(db_url, "list", "--format", "csv")
    rows = {line.split(",")[0]: line for line in listed.stdout.splitlines()[1:]}
    assert ",1760,0,20," in rows["1"] and ",2100,0,20," in rows["2"]
    history = run(db_url, "player", "1", "--format", "csv").stdout.splitlines()
    assert history[-1] == "standard,2025-11-01,computed,1760,160,0,20,"
    engine = create_engine(db_url)
    with engine.connect() as conn:
        action, detail = conn.execute(
            text("SELECT action, detail FROM audit_log WHERE action = 'adjust-list'")
        ).one()
    engine.dispose()
    assert action == "adjust-list"
    assert detail.endswith("raised by 2/5 × (2000 − R), rounding half_away; 1 ratings changed")


def test_a_malformed_adjustment_is_refused(db_url: str) -> None:
    result = run(db_url, "close-period", "2025-10", "--adjust", "2000")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: '2000' is not an adjustment: write THRESHOLD:FACTOR[:ROUNDING], e.g. 2000:0.4\n",
    )


def test_the_close_summary_counts_one_game_and_lists_no_zero_change_as_a_loss(
    db_url: str, engine: Engine
) -> None:
    # Equal ratings, K 20: a draw is D 0 → PD .50, change 0; a win is +.50 × 20 = +10 and the loss −10.
    with db.transaction(engine) as s:
        p1, p2, p3, p4 = (b.player(s, f"P{i}, Test") for i in range(1, 5))
        b.imported_list(
            s,
            "standard",
            dt.date(2025, 10, 1),
            {p1: (2000, 20), p2: (2000, 20), p3: (1900, 20), p4: (1900, 20)},
        )
        b.event(s, "Pairs", dt.date(2025, 10, 4), dt.date(2025, 10, 5), [(p1, p2, "="), (p3, p4, "1")])
    result = run(db_url, "close-period", "2025-10")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[4:] == [
        "    biggest gain: P3, Test 1900 → 1910 (+10, 1 game)",
        "    biggest loss: P4, Test 1900 → 1890 (-10, 1 game)",
    ]


def test_the_close_summary_shows_ten_players_then_how_many_more_and_summarises_many_late_events(
    capsys: pytest.CaptureFixture[str],
) -> None:
    dropped = [PlayerChange(i, f"Floor, {i:02d}", 1405, None, 2) for i in range(1, 13)]
    late = [f"Late {i} (ended 2025-09-2{i}, period 2025-09)" for i in range(1, 8)]
    summary = CloseSummary(
        Period(2025, 10), "rapid", dt.date(2025, 11, 1), rules="rapid-2025-10", floor=1400, events=9,
        late_events=late, counts=CloseCounts(52, 40, 35, 30, 0), players_on_list=100,
        dropped_below_floor=dropped,
    )  # fmt: skip
    print_summary(summary)
    assert capsys.readouterr().out.splitlines() == [
        "Closed rapid period 2025-10: published the list dated 2025-11-01 (rules rapid-2025-10).",
        "  events rated: 9 (7 late); games played: 52; games rated: 40; games that changed a rating: 35",
        "  players on the list: 100; players rated: 30",
        "  newly rated: 0; dropped below 1400: 12",
        *(f"    below the floor: Floor, {i:02d} 1405 → unrated" for i in range(1, 11)),
        "    below the floor: … and 2 more (`ratingdb report period 2025-10 --type rapid` lists them all)",
        "    7 late events: `ratingdb report period 2025-10 --type rapid` lists them",
    ]


def test_a_few_late_events_are_listed_one_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    summary = CloseSummary(
        Period(2025, 10), "standard", dt.date(2025, 11, 1), rules="standard-2025-10", events=1,
        late_events=["Late (ended 2025-09-20, period 2025-09)"],
    )  # fmt: skip
    print_summary(summary)
    assert capsys.readouterr().out.splitlines()[4:] == [
        "    late event: Late (ended 2025-09-20, period 2025-09)"
    ]


def test_an_interrupted_close_through_says_what_was_kept_and_how_to_go_on(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the second of three periods: the first stays closed, the second is rolled back."""
    lst = tmp_path / "oct.csv"
    lst.write_text(ROUND_ROBIN_LIST, encoding="utf-8")
    assert run(db_url, "import-list", lst, "--date", "2025-10-01").exit_code == 0
    assert run(db_url, "import-trf", FIXTURES / "round_robin.trf", "--type", "standard").exit_code == 0
    import ratingdb.services.close as close_service

    real = close_service.close_period

    def interrupted_in_2025_11(session, period, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(period) == "2025-11":
            real(session, period, *args, **kwargs)  # the work is done, not yet committed
            raise KeyboardInterrupt
        return real(session, period, *args, **kwargs)

    monkeypatch.setattr(close_service, "close_period", interrupted_in_2025_11)
    result = run(db_url, "close-period", "2025-10", "--through", "2025-12")
    assert result.exit_code == 130
    assert result.stdout.startswith("Closed standard period 2025-10: published the list dated 2025-11-01")
    assert result.stderr.splitlines() == [
        "Interrupted while closing standard period 2025-11: that close was rolled back.",
        "  closed and kept: 2025-10 (list dated 2025-11-01)",
        "  still open: 2025-11 … 2025-12 — continue with `ratingdb close-period 2025-11 --through 2025-12`",
    ]
    engine = create_engine(db_url)
    with engine.connect() as conn:
        dates = conn.execute(text("SELECT list_date FROM rating_list WHERE origin = 'computed'")).scalars()
        assert [str(d)[:10] for d in dates] == ["2025-11-01"]
    engine.dispose()

    monkeypatch.setattr(close_service, "close_period", real)
    resumed = run(db_url, "close-period", "2025-11", "--through", "2025-12")
    assert resumed.exit_code == 0, resumed.output
    assert "published the list dated 2026-01-01" in resumed.stdout


def test_an_interrupted_single_close_names_the_command_to_run_again() -> None:
    from ratingdb.cli.close import interrupted_lines

    assert interrupted_lines([Period(2025, 10)], [], "rapid") == [
        "Interrupted while closing rapid period 2025-10: that close was rolled back.",
        "  closed and kept: none",
        "  still open: 2025-10 — continue with `ratingdb close-period 2025-10 --type rapid`",
    ]
