"""`ratingdb demo` in process, the seed files and the demo plan: fast checks (the subprocess run is in
tests/test_quickstart.py)."""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.formats import read_list, read_trf
from ratingdb.rating import Period
from ratingdb.services.demo import plan_demo, seeds_path
from tests.conftest import MYSQL_ENV, PG_ENV, new_database_url
from tests.test_quickstart import REFUSAL, check_rule_cases

runner = CliRunner()
SEEDS = seeds_path()


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("seed_generator", SEEDS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def seed_files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for pattern in ("*.csv", "trf/*.trf")
        for p in sorted(folder.glob(pattern))
    }


def test_the_committed_seed_files_are_exactly_what_the_generator_writes(tmp_path: Path) -> None:
    generator().generate(tmp_path)
    assert seed_files(tmp_path) == seed_files(SEEDS)


def test_the_seed_lists_describe_a_plausible_federation() -> None:
    standard = list(read_list(SEEDS / "standard-2025-09-01.csv", format="csv", rating_types=["standard"]))
    rapid = list(read_list(SEEDS / "rapid-2025-09-01.csv", format="csv", rating_types=["rapid"]))
    assert len(standard) == 299  # the 300th player appears first in a tournament file
    assert {r.fide_id for r in rapid} < {r.fide_id for r in standard}
    women = sum(r.sex == "F" for r in standard)
    assert 0.18 < women / len(standard) < 0.32
    juniors = [r for r in standard if r.birth_year and 2008 <= r.birth_year <= 2015]
    seniors = [r for r in standard if r.birth_year and 1940 <= r.birth_year <= 1970]
    assert len(juniors) >= 40 and len(seniors) >= 40
    federations = Counter(r.federation for r in standard)
    assert federations["IRL"] / len(standard) > 0.8 and len(federations) >= 8
    assert {"GM", "IM", "FM", "CM", "WGM"} <= {r.title for r in standard}
    ratings = [r.ratings["standard"].rating for r in standard]
    assert sum(r is None for r in ratings) >= 5  # registered, never rated
    assert max(r for r in ratings if r) == 2672


def test_every_seed_tournament_is_accepted_by_the_strict_reader_with_its_round_dates() -> None:
    files = sorted((SEEDS / "trf").glob("*.trf"))
    assert len(files) == 16
    for path in files:
        trf = read_trf(path)
        assert all(trf.round_dates) and len(trf.round_dates) == trf.rounds
        assert trf.start_date == trf.round_dates[0] and trf.end_date == trf.round_dates[-1]
        assert dt.date(2025, 9, 1) <= trf.start_date <= trf.end_date <= dt.date(2025, 11, 30)


def test_the_plan_imports_the_standard_list_first_and_closes_every_period_in_date_order() -> None:
    plan = plan_demo()
    # Elo's own types first, then Glicko-2's and Glicko's: the national list's events keep their ids.
    assert plan.rule_files == [
        SEEDS / "national-2025.toml", SEEDS / "club-glicko.toml", SEEDS / "league-glicko.toml"
    ]
    assert [(lst.rating_type, lst.path.name, lst.list_date) for lst in plan.lists] == [
        ("standard", "standard-2025-09-01.csv", dt.date(2025, 9, 1)),
        ("rapid", "rapid-2025-09-01.csv", dt.date(2025, 9, 1)),
        ("national", "standard-2025-09-01.csv", dt.date(2025, 9, 1)),  # the national list starts from it
        ("club", "club-2025-09-01.csv", dt.date(2025, 9, 1)),  # Glicko-2: its own list, with deviations
        ("league", "league-2025-09-01.csv", dt.date(2025, 9, 1)),  # Glicko: its own list too
    ]
    steps = [(str(s.period), s.rating_type, len(s.events)) for s in plan.steps]
    assert steps == [
        ("2025-09", "standard", 4),
        ("2025-09", "rapid", 1),
        ("2025-10", "standard", 7),
        ("2025-10", "rapid", 0),  # no rapid event in October: the close still publishes the list
        ("2025-11", "standard", 3),
        ("2025-11", "rapid", 1),
        # Then the national list, fed by the standard tournaments.
        ("2025-09", "national", 4),
        ("2025-10", "national", 7),
        ("2025-11", "national", 3),
        # Then the club list by Glicko-2, fed by them too.
        ("2025-09", "club", 4),
        ("2025-10", "club", 7),
        ("2025-11", "club", 3),
        # Then the league list by Glicko, fed by them too: three systems on the same games.
        ("2025-09", "league", 4),
        ("2025-10", "league", 7),
        ("2025-11", "league", 3),
    ]
    assert plan.event_files == 16
    # 2025-10-31 … 2025-11-02 ends after the 2025-11-01 list's closing date (2025-10-29): period 2025-11.
    november = plan.steps[4]
    assert november.events[0].name == "Halloween Open" and november.period == Period(2025, 11)


def test_the_demo_builds_demo_sqlite_in_the_current_folder_and_prints_the_tour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RATINGDB_URL", raising=False)
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "demo.sqlite").is_file()
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "ratingdb demo: a fictional federation, 5 starting lists and 16 events (September–November 2025), "
        "in sqlite:///demo.sqlite."
    )
    assert "$ ratingdb import-list standard-2025-09-01.csv --date 2025-09-01 --type standard" in lines
    assert "$ ratingdb close-period 2025-10 --type rapid" in lines
    assert "$ ratingdb rules add national-2025.toml" in lines
    assert "$ ratingdb import-list standard-2025-09-01.csv --date 2025-09-01 --type national" in lines
    assert "  floor: Byrne, Noel (25900012), standard period 2025-09: 1412 → 1390: unrated" in lines
    assert (
        "  first rating: Ní Mhurchú, Saoirse (25900016), standard period 2025-10: 8 pooled games → 1691"
        in (lines)
    )
    assert (
        "  event across two periods: Lyons, Conor (25900024), standard period 2025-11: Halloween Open "
        "(2025-10-31 … 2025-11-02) rated with 1650, the rating at its start, not 1663"
    ) in lines
    # The national list keeps a player FIDE's floor drops: 1412 → 1390 is rated under its floor of 1000.
    assert (
        "  national floor: Byrne, Noel (25900012), national period 2025-09: 1412 → 1390: rated (floor 1000)"
        in lines
    )
    # The closes appear in date order, standard before rapid; then the national list's.
    closes = [line for line in lines if line.startswith("$ ratingdb close-period")]
    periods = ("2025-09", "2025-10", "2025-11")
    assert closes == [
        f"$ ratingdb close-period {p} --type {t}" for p in periods for t in ("standard", "rapid")
    ] + [f"$ ratingdb close-period {p} --type {t}" for t in ("national", "club", "league") for p in periods]
    assert "$ ratingdb rules add club-glicko.toml" in lines
    assert "$ ratingdb import-list club-2025-09-01.csv --date 2025-09-01 --type club" in lines
    # Glicko-2: Byrne's September (three losses, the floor case on the FIDE list) took him from the
    # starting 1412 (RD 120) to 1342.89 (RD 105.00, σ 0.060003); without games in October his deviation
    # widens: √(105² + (0.060003 × 173.7178)²) = 105.52.
    assert (
        "  Glicko-2 idle period: Byrne, Noel (25900012), club period 2025-10: 1342.89 (RD 105.00) → "
        "1342.89 (RD 105.52), no games"
    ) in lines
    assert "  ratingdb --db sqlite:///demo.sqlite list --type club --limit 10" in lines


def test_the_demo_refuses_an_existing_file_without_force_and_leaves_it_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo.sqlite").write_bytes(b"precious")
    result = runner.invoke(app, ["demo"])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", REFUSAL)
    assert (tmp_path / "demo.sqlite").read_bytes() == b"precious"


def test_the_global_db_option_is_honoured_but_ratingdb_url_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.sqlite").write_bytes(b"")
    (tmp_path / "demo.sqlite").write_bytes(b"")
    # `ratingdb --db URL demo` means that database: the refusal names it.
    given = runner.invoke(app, ["--db", "sqlite:///other.sqlite", "demo"])
    assert (given.exit_code, given.stderr) == (1, REFUSAL.replace("demo.sqlite", "other.sqlite"))
    # RATINGDB_URL is ignored: the demo never writes into the configured database.
    env = runner.invoke(app, ["demo"], env={"RATINGDB_URL": "sqlite:///other.sqlite"})
    assert (env.exit_code, env.stderr) == (1, REFUSAL)


def test_two_different_databases_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["--db", "sqlite:///a.sqlite", "demo", "--db", "sqlite:///b.sqlite"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: two databases were given (sqlite:///a.sqlite before `demo`, sqlite:///b.sqlite after it): "
        "give one\n",
    )
    assert not (tmp_path / "a.sqlite").exists() and not (tmp_path / "b.sqlite").exists()


def test_an_in_memory_database_is_refused() -> None:
    result = runner.invoke(app, ["demo", "--db", "sqlite://"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: the demo needs a database that outlives one command: give a file, e.g. "
        "--db sqlite:///demo.sqlite\n",
    )


@pytest.fixture(scope="module")
def sqlite_demo(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.sqlite'}"
    result = runner.invoke(app, ["demo", "--db", url])
    assert result.exit_code == 0, result.output
    return url


def list_csvs(url: str) -> dict[tuple[str, str], str]:
    """`ratingdb list --format csv` of every list in the database, by rating type and date."""
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            lists = conn.execute(text("SELECT rating_type, list_date FROM rating_list")).all()
    finally:
        engine.dispose()
    exports = {}
    for rating_type, list_date in lists:
        result = runner.invoke(app, ["--db", url, "list", str(list_date), "-t", rating_type, "-f", "csv"])
        assert result.exit_code == 0, result.output
        exports[(rating_type, str(list_date))] = result.stdout
    return exports


@pytest.mark.parametrize(("engine_name", "env"), [("postgresql", PG_ENV), ("mysql", MYSQL_ENV)])
def test_the_demo_on_a_server_shows_the_same_rule_cases_and_lists_as_on_sqlite(
    engine_name: str, env: str, sqlite_demo: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if not os.environ.get(env):
        pytest.skip(f"{engine_name} tests skipped: set {env} to run them")
    # A database just made by the migrations (as `ratingdb init` leaves it) is accepted.
    urls = new_database_url(engine_name, request, tmp_path)
    url = next(urls)
    try:
        result = runner.invoke(app, ["demo", "--db", url])
        assert result.exit_code == 0, result.output
        engine = db.make_engine(url)
        try:
            with engine.connect() as conn:
                check_rule_cases(conn)
        finally:
            engine.dispose()
        # Every published list exports byte for byte as on SQLite (same order, numbers, names).
        server, sqlite = list_csvs(url), list_csvs(sqlite_demo)
        # standard, rapid, national, club and league (Glicko, issue 48), four lists each
        assert len(sqlite) == 20 and server.keys() == sqlite.keys()
        for key, export in sqlite.items():
            assert server[key] == export, key
        again = runner.invoke(app, ["demo", "--db", url, "--force"])
        assert again.exit_code == 1
        assert again.stderr.endswith(
            "is not empty: the demo needs an empty database (or one just made by "
            "`ratingdb init`); --force replaces SQLite files only\n"
        )
    finally:
        next(urls, None)


@pytest.mark.parametrize("kind", ["text", "other sqlite", "link", "folder"])
def test_force_replaces_only_a_ratingdb_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # Issue 26: `demo --force` deleted a plain text file named demo.sqlite.
    import sqlite3

    monkeypatch.chdir(tmp_path)
    target = tmp_path / "demo.sqlite"
    precious = tmp_path / "notes.txt"
    precious.write_text("precious\n")
    if kind == "text":
        target.write_text("precious\n")
    elif kind == "other sqlite":
        with sqlite3.connect(target) as conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
    elif kind == "link":
        target.symlink_to(precious)
    else:
        target.mkdir()
    before = {
        p.name: (p.read_bytes() if p.is_file() and not p.is_symlink() else "x") for p in tmp_path.iterdir()
    }
    result = runner.invoke(app, ["demo", "--force"])
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "Error: demo.sqlite is not a ratingdb database: --force replaces only a ratingdb SQLite file — "
        "give another file with --db\n",
    )
    after = {
        p.name: (p.read_bytes() if p.is_file() and not p.is_symlink() else "x") for p in tmp_path.iterdir()
    }
    assert after == before and precious.read_text() == "precious\n"


def test_report_systems_on_the_demo_scores_the_elo_and_glicko2_lists_on_the_same_tournaments(
    sqlite_demo: str,
) -> None:
    result = runner.invoke(
        app, ["--db", sqlite_demo, "report", "systems", "--from", "2025-09", "--to", "2025-11", "-f", "csv"]
    )
    assert result.exit_code == 0, result.output
    rows = {tuple(line.split(",")[:3]): line.split(",")[3:] for line in result.stdout.splitlines()[1:]}
    national, club = rows[("national", "elo", "all")], rows[("club", "glicko2", "all")]
    # The same tournament files feed both lists: nearly the same games (a player rated on one list only
    # makes the difference), and both systems forecast them better than a coin (log-loss ln 2 = 0.6931,
    # Brier 0.25 on decisive games).
    assert abs(int(national[0]) - int(club[0])) <= 0.02 * int(club[0]) and int(club[0]) > 1000
    assert all(float(x[1]) < 0.6931 and float(x[2]) < 0.25 for x in (national, club))
