"""The integrity screen on a database (issue 50), every engine: each planted pattern is flagged at least
medium with its code and players; the officer's exclusion keeps an event out of the close, and a reopen
with a changed decision rates it again.

One month (2025-09) holds, beside a copy of the demo's Dublin September Open (a real crosstable):
  - a quadruple round robin of four 1800 players in which one wins all twelve of his games;
  - a 2000 player's two weekends against opponents of 1500 (500 below: the cap's gift, worked in
    tests/unit/rating/test_integrity.py: 20 × 10 × (0.96 − 0.92) = 8.00);
  - thirty newcomers, named in alphabetical order, each losing their one game to one player;
  - a player in two events on the same two days;
  - the Dublin crosstable again under other names and IDs, a week later.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.formats import TrfEvent, TrfGame, TrfPlayer, read_trf, write_trf16

runner = CliRunner()
SEEDS = Path(__file__).parents[2] / "seeds"
DUBLIN = SEEDS / "trf" / "standard-dublin-september-open.trf"

QUAD = [(5000001, "Quad, Fed", 1800), (5000002, "Quad, Two", 1800), (5000003, "Quad, Three", 1800),
        (5000004, "Quad, Four", 1800)]  # fmt: skip
FARMER = (5000010, "Farmer, Strong", 2000)
WEAK = [(5000011 + i, f"Weak, Number {i}", 1500) for i in range(10)]
WINNER = (5000030, "Winner, Lucky", 1900)
NEWCOMERS = [(5100001 + i, f"A{chr(ord('a') + i // 5)}{chr(ord('a') + i % 5)}bot, Invented", None)
             for i in range(30)]  # fmt: skip
TRAVELLER = (5000040, "Traveller, Busy", 1700)
HOSTS = [(5000041 + i, f"Host, Number {i}", 1700) for i in range(6)]


def cli(url: str, *args: str, code: int = 0) -> str:
    result = runner.invoke(app, ["--db", url, *args])
    assert result.exit_code == code, (args, result.output)
    return result.stdout if code == 0 else result.stderr


def _player(rank: int, who: tuple[int, str, int | None]) -> TrfPlayer:
    fide_id, name, rating = who
    return TrfPlayer(rank, 0, name, "M", None, rating, "IRL", fide_id, None, None, 1990, None)


def _event(
    folder: Path,
    name: str,
    start: dt.date,
    days: int,
    players: list[tuple[int, str, int | None]],
    games: list[tuple[int, int, int, str]],
) -> Path:
    """A TRF16 file: `games` are (round, white rank, black rank, white's result) of played games."""
    other = {"1": "0", "0": "1", "=": "="}
    rounds = max(g[0] for g in games)
    trf = TrfEvent(
        f"{name}.trf", "", 16, name, "Dublin", "IRL", start, start + dt.timedelta(days=days - 1), None, None,
        "standard", rounds, (None,) * rounds, tuple(_player(r, p) for r, p in enumerate(players, start=1)),
        tuple(TrfGame(rnd, None, w, b, res, other[res], True) for rnd, w, b, res in games),
    )  # fmt: skip
    path = folder / trf.source_name
    path.write_text(write_trf16(trf), encoding="utf-8")
    return path


def _round_robin(n: int) -> list[list[tuple[int, int]]]:
    """The circle method: n − 1 rounds of pairs of ranks 1..n (n even)."""
    ranks = list(range(1, n + 1))
    rounds = []
    for _ in range(n - 1):
        rounds.append([(ranks[i], ranks[n - 1 - i]) for i in range(n // 2)])
        ranks = [ranks[0], ranks[-1], *ranks[1:-1]]
    return rounds


def _first_wins(pairs: list[tuple[int, int]], rnd: int, hero: int) -> list[tuple[int, int, int, str]]:
    """The hero wins (with white when he is first), every other game is drawn."""
    out = []
    for a, b in pairs:
        if hero in (a, b):
            out.append((rnd, a, b, "1" if a == hero else "0"))
        else:
            out.append((rnd, a, b, "="))
    return out


def _copy_with_other_names(folder: Path) -> Path:
    """The Dublin crosstable under other names and FIDE IDs, a week later."""
    real = read_trf(DUBLIN)
    players = tuple(
        dataclasses.replace(p, name=f"Copy, Person {p.rank:03d}", fide_id=6000000 + p.rank)
        for p in real.players
    )
    copy = dataclasses.replace(
        real, source_name="copied.trf", name="Some Other Open", header_records=(), players=players,
        start_date=real.start_date + dt.timedelta(days=7), end_date=real.end_date + dt.timedelta(days=7),
        round_dates=(None,) * real.rounds,
    )  # fmt: skip
    path = folder / copy.source_name
    path.write_text(write_trf16(copy), encoding="utf-8")
    return path


def _month(url: str, folder: Path) -> dict[str, int]:
    """The list of 2025-09-01 and the month's events; event name → id."""
    listed = [*QUAD, FARMER, *WEAK, WINNER, TRAVELLER, *HOSTS]
    rows = ["fide_id,national_id,name,federation,sex,title,birth_year,rating,games,k,flag,games_total"]
    rows += [f'{i},,"{n}",IRL,M,,1990,{r},0,20,,100' for i, n, r in listed]
    csv_file = folder / "standard-2025-09-01.csv"
    csv_file.write_text("\n".join(rows) + "\n", encoding="utf-8")
    cli(url, "import-list", str(csv_file), "--date", "2025-09-01", "--type", "standard")
    day = dt.date(2025, 9, 1)
    quad = [g for cycle in range(4) for r, pairs in enumerate(_round_robin(4), start=1)
            for g in _first_wins(pairs, cycle * 3 + r, 1)]  # fmt: skip
    farm = [g for r, pairs in enumerate(_round_robin(6), start=1) for g in _first_wins(pairs, r, 1)]
    newcomers = [(r, 1, r + 1, "1") for r in range(1, 31)]
    clash = [g for r, pairs in enumerate(_round_robin(4), start=1) for g in _first_wins(pairs, r, 1)]
    files = [
        _event(folder, "Quad Club Marathon", day + dt.timedelta(days=1), 4, [p for p in QUAD], quad),
        _event(folder, "Weak Weekend One", day + dt.timedelta(days=5), 2, [FARMER, *WEAK[:5]], farm),
        _event(folder, "Weak Weekend Two", day + dt.timedelta(days=12), 2, [FARMER, *WEAK[5:]], farm),
        _event(folder, "Invented Open", day + dt.timedelta(days=14), 10, [WINNER, *NEWCOMERS], newcomers),
        _event(folder, "Here Open", day + dt.timedelta(days=19), 2, [TRAVELLER, *HOSTS[:3]], clash),
        _event(folder, "There Open", day + dt.timedelta(days=19), 2, [TRAVELLER, *HOSTS[3:]], clash),
        DUBLIN,
        _copy_with_other_names(folder),
    ]
    cli(url, "import-trf", *map(str, files), "--type", "standard")
    listing = json.loads(cli(url, "events", "--period", "2025-09", "--format", "json"))
    return {e["name"]: e["id"] for e in listing}


def _screen(url: str) -> dict[str, Any]:
    found = json.loads(cli(url, "report", "risk", "--period", "2025-09", "--format", "json"))
    return {e["name"]: e for e in found["events"]}


def _signal(event: dict[str, Any], code: str) -> dict[str, Any]:
    (found,) = [s for s in event["signals"] if s["code"] == code]
    assert found["level"] in ("medium", "high"), found
    return found


def _ids(signal: dict[str, Any]) -> list[int]:
    return [p["id"] for p in signal["players"]]


def test_each_planted_pattern_is_flagged_at_least_medium_with_its_code_and_players(
    db_url: str, tmp_path: Path
) -> None:
    ids = _month(db_url, tmp_path)
    found = _screen(db_url)
    player = json.loads(cli(db_url, "sql", "SELECT id, fide_id FROM player", "--format", "json"))
    by_fide = {row["fide_id"]: row["id"] for row in player}

    pool = _signal(found["Quad Club Marathon"], "closed-pool")
    assert _ids(pool)[0] == by_fide[5000001] and set(_ids(pool)) == {by_fide[i] for i, _, _ in QUAD}
    assert pool["evidence"]["top_z"] == 3.46  # (12 − 6) / √3, table 8.1.2 at D = 0
    assert found["Quad Club Marathon"]["level"] in ("medium", "high")

    for weekend in ("Weak Weekend One", "Weak Weekend Two"):
        farming = _signal(found[weekend], "cap-farming")
        assert _ids(farming) == [by_fide[FARMER[0]]]
        assert farming["evidence"]["cap_gain"] == 8.0 and farming["evidence"]["games_beyond_cap"] == 10

    field = _signal(found["Invented Open"], "fabricated-field")
    assert _ids(field)[0] == by_fide[WINNER[0]]
    assert set(_ids(field)[1:]) == {by_fide[i] for i, _, _ in NEWCOMERS}

    for here, there in (("Here Open", "There Open"), ("There Open", "Here Open")):
        clash = _signal(found[here], "schedule-clash")
        assert _ids(clash) == [by_fide[TRAVELLER[0]]] and clash["evidence"]["other_event"] == ids[there]

    copy = _signal(found["Some Other Open"], "duplicate-results")
    assert copy["evidence"]["other_event"] == ids["Dublin September Open"]
    assert set(_ids(copy)) == {by_fide[6000000 + rank] for rank in range(1, 62)}
    assert (
        _signal(found["Dublin September Open"], "duplicate-results")["evidence"]["other_event"]
        == ids["Some Other Open"]
    )


def test_an_excluded_event_is_not_rated_and_a_reopen_with_another_decision_rates_it(
    db_url: str, tmp_path: Path
) -> None:
    ids = _month(db_url, tmp_path)
    invented = str(ids["Invented Open"])
    reason = "no arbiter's report; players unknown to the clubs"
    out = cli(db_url, "event", "review", invented, "--decision", "exclude", "--reason", reason)
    assert out.startswith(
        f"Event {invented} 'Invented Open' is excluded from rating: the close leaves it out"
    )
    dry = cli(db_url, "close-period", "2025-09", "--dry-run")
    line = f"    not rated, excluded by the rating officer: Invented Open (event {invented}): {reason}"
    assert line in dry.splitlines()
    # The dry run shows the screen taken before the close, and the decision on each flagged event.
    assert (
        f"    screen high: Invented Open (event {invented}): fabricated-field; decided: exclude"
        in dry.splitlines()
    )
    cli(db_url, "close-period", "2025-09")
    rated = "SELECT event_id FROM calc_list_event ORDER BY event_id"
    assert int(invented) not in [r["event_id"] for r in _sql(db_url, rated)]
    listed = json.loads(cli(db_url, "events", "--period", "2025-09", "--format", "json"))
    assert [e["rated"] for e in listed if e["name"] in ("Invented Open", "Here Open")] == [False, True]
    excluded_list = _entries(db_url)

    # A closed period: the decision cannot change without a reopen; nothing is written.
    error = cli(db_url, "event", "review", invented, "--decision", "rate", "--reason", "x", code=1)
    assert "2025-09 is closed" in error and "reopen it first" in error
    assert _sql(db_url, "SELECT decision, reason FROM event_review") == [
        {"decision": "exclude", "reason": reason}
    ]

    cli(db_url, "reopen", "2025-09", "--reason", "the arbiter's report came")
    cli(db_url, "event", "review", invented, "--decision", "rate", "--reason", "the arbiter's report came")
    decisions = "SELECT decision, is_current FROM event_review ORDER BY id"
    assert [(r["decision"], bool(r["is_current"])) for r in _sql(db_url, decisions)] == [
        ("exclude", False),
        ("rate", True),
    ]
    cli(db_url, "close-period", "2025-09")
    assert int(invented) in [r["event_id"] for r in _sql(db_url, rated)]
    # The thirty newcomers' games are in the record again (toward first ratings: the winner, rated, does
    # not rate games against unrated players).
    newest = "list_id = (SELECT MAX(id) FROM rating_list)"
    games = f"SELECT COUNT(*) AS n FROM calc_game WHERE event_id = {invented} AND {newest}"
    assert _sql(db_url, games) == [{"n": 30}]

    # The list the close made with the event excluded equals the close without the event.
    cli(db_url, "reopen", "2025-09", "--reason", "compare")
    cli(db_url, "delete-event", invented, "--yes")
    cli(db_url, "close-period", "2025-09")
    assert _entries(db_url) == excluded_list
    # The event is withdrawn, not deleted (withdrawn lists rated it): its decisions stay with it.
    assert [r["decision"] for r in _sql(db_url, decisions)] == ["exclude", "rate"]


def _sql(url: str, query: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(cli(url, "sql", query, "--format", "json"))
    return rows


def _entries(url: str) -> dict[int, tuple[Any, ...]]:
    """The newest list's entries by FIDE ID: rating, games, K, flag, change."""
    rows = _sql(
        url,
        "SELECT p.fide_id, e.rating, e.games, e.k, e.flag, e.change FROM list_entry e "
        "JOIN player p ON p.id = e.player_id WHERE e.list_id = (SELECT MAX(id) FROM rating_list) "
        "AND p.fide_id IS NOT NULL",
    )
    return {r["fide_id"]: (r["rating"], r["games"], r["k"], r["flag"], r["change"]) for r in rows}


@pytest.mark.parametrize("fmt", ["csv"])
def test_report_risk_needs_a_period_or_an_event(db_url: str, fmt: str) -> None:
    out = cli(db_url, "report", "risk", "--format", fmt, code=1)
    assert out.strip().splitlines()[-1] == "Error: give --period YYYY-MM or --event ID (one of them)"


def test_the_api_screens_records_the_decision_and_the_close_says_it_excluded(
    db_url: str, tmp_path: Path
) -> None:
    from ratingdb import api

    ids = _month(db_url, tmp_path)
    invented = ids["Invented Open"]
    with api.open_database(db_url) as database:
        with database.transaction() as session:
            screen = api.risk_screen(session, "2025-09")
            levels = {e.name: e.level for e in screen.events}
            assert levels["Invented Open"] == "high" and levels["Dublin September Open"] == "high"
            dossier = api.risk_dossier(session, invented).document()
            played = [g for g in dossier["games"] if g["played"]]  # 29 unpaired players a round besides
            assert len(played) == 30 and {g["result"] for g in played} == {"1-0"}
            with pytest.raises(
                api.RatingDbError, match="the decision 'skip' is not known: it is rate or exclude"
            ):
                api.review_event(session, invented, "skip", "why")
            done = api.review_event(session, invented, "exclude", "players absent")
            assert done.before is None and done.after.excluded and done.after.risk_level == "high"
        with database.transaction() as session:
            summary = api.close_period(session, "2025-09")
            assert summary.excluded == [api.ExcludedEvent(invented, "Invented Open", "players absent")]
            (risk,) = api.risk_screen(session, event_id=invented).events
            assert risk.excluded and risk.review is not None and risk.review.reason == "players absent"
