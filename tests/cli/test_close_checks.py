"""What the close counts and warns about, said the same way by import-trf, close-period, `report period`,
the site's close page and the API (issue 25, items 5 and 6), on every engine.

The month: a list of two rated players, A (2000) and B (1900), and three files of period 2025-10.
- open.trf: A, B and three players new to the register (C, D, E), a round robin of five, a bye a round.
  10 games: A–B between rated players (rated, changes two ratings); six between a rated player and a new
  one (rated: each joins the newcomer's pool toward a first rating, 2 games each, short of the 5 needed,
  so no rating changes); C–D, C–E, D–E between unrated players (not rated). 5 byes.
- minor.trf: a section of C, D and two players without any ID (W, X), so registered anew. 6 pairings, W–X
  a forfeit: 5 games, none rated: C–D between unrated players, the four with W or X with players the
  import registered.
- league.trf: A and B, one game in April and one in October: 204 days (5 April … 25 October: 26 + 31 +
  30 + 31 + 31 + 30 + 25), longer than the 90 days a single tournament may last.

So the close: games played 10 + 5 + 2 = 17; games rated 7 + 0 + 2 = 9; games that changed a rating
1 + 0 + 2 = 3; players rated 2 (A and B); newly rated 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app

runner = CliRunner()

LIST = 'fide_id,name,federation,sex,birth_year,rating,k\n200001,"Alpha, A",IRL,M,1980,2000,20\n'
LIST += '200002,"Bravo, B",IRL,M,1980,1900,20\n'

Pairing = tuple[int, int, str]  # white rank, black rank, white's result ("1", "=", "0", "+")


def trf(
    name: str, start: str, end: str, players: list[tuple[str, int | None]], rounds: list[list[Pairing]]
) -> str:
    """A TRF16 file: `players` (name, FIDE ID or None) by starting rank; each round's pairings; a player
    not paired in a round has a bye (U)."""
    against = {"1": "0", "0": "1", "=": "=", "+": "-"}
    cells: dict[int, list[str]] = {rank: [] for rank in range(1, len(players) + 1)}
    points = dict.fromkeys(cells, 0.0)
    value = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "U": 0.0}
    for pairings in rounds:
        paired = set()
        for white, black, result in pairings:
            cells[white].append(f"{black:>4} w {result}")
            cells[black].append(f"{white:>4} b {against[result]}")
            points[white] += value[result]
            points[black] += value[against[result]]
            paired |= {white, black}
        for rank in cells.keys() - paired:
            cells[rank].append("0000 - U")
    lines = [f"012 {name}", "022 Cork", "032 IRL", f"042 {start}", f"052 {end}", "122 90 min + 30 s"]
    for rank, (player, fide_id) in enumerate(players, 1):
        lines.append(
            f"001 {rank:>4} m    {player:<33} {'':>4} IRL {fide_id or '':>11} 1980/01/01 "
            f"{points[rank]:>4.1f} {rank:>4}  " + "  ".join(cells[rank])
        )
    return "\n".join(lines) + "\n"


A, B, C, D, E = (
    ("Alpha, A", 200001),
    ("Bravo, B", 200002),
    ("Charlie, C", 200003),
    ("Delta, D", 200004),
    (
        "Echo, E",
        200005,
    ),
)
OPEN = trf(
    "Cork Open",
    "2025/10/04",
    "2025/10/08",
    [A, B, C, D, E],
    [
        [(1, 2, "1"), (3, 4, "=")],
        [(1, 3, "1"), (2, 5, "=")],
        [(1, 4, "0"), (3, 5, "1")],
        [(1, 5, "1"), (2, 4, "1")],
        [(2, 3, "0"), (4, 5, "=")],
    ],
)
MINOR = trf(
    "Cork Minor",
    "2025/10/04",
    "2025/10/06",
    [C, D, ("Whiskey, W", None), ("Xray, X", None)],
    [[(1, 2, "="), (3, 4, "+")], [(1, 3, "1"), (2, 4, "0")], [(1, 4, "1"), (2, 3, "=")]],
)
LEAGUE = trf("Cork League", "2025/04/05", "2025/10/25", [A, B], [[(1, 2, "=")], [(2, 1, "1")]])

MINOR_WARNING = (
    "event 2 'Cork Minor': 0 of 5 games {verb} — not rated: unrated opponents: 1, unregistered players: 4, "
    "byes/forfeits: 1; 2 of its 4 players were registered anew by its import (a line without a FIDE or "
    "national ID matches no registered player: check the file's ID columns, or match the lines with "
    "--match RANK=ID)"
)
LEAGUE_WARNING = (
    "event 3 'Cork League' lasted 204 days (2025-04-05 … 2025-10-25), longer than the 90 days FIDE's "
    "regulations allow one tournament (leagues excepted), and is rated as one event in period 2025-10 with "
    "the ratings at its start: to rate each month's games with the list then in force, import each "
    "month's rounds as an event"
)


def run(db_url: str, *args: str | Path):  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["--db", db_url, *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@pytest.fixture
def month(db_url: str, tmp_path: Path) -> list[str]:
    """The month imported; returns what import-trf printed."""
    (tmp_path / "oct.csv").write_text(LIST, encoding="utf-8")
    run(db_url, "import-list", tmp_path / "oct.csv", "--date", "2025-10-01")
    for name, text in (("open.trf", OPEN), ("minor.trf", MINOR), ("league.trf", LEAGUE)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return run(db_url, "import-trf", *(tmp_path / n for n in ("open.trf", "minor.trf", "league.trf")))


def test_the_import_warns_of_a_section_it_cannot_rate_and_of_a_long_event(month: list[str]) -> None:
    assert month[-2:] == [
        "warning: " + LEAGUE_WARNING,
        "warning: " + MINOR_WARNING.format(verb="can be rated"),
    ]


def test_the_close_summary_counts_and_warns(db_url: str, month: list[str]) -> None:
    closed = run(db_url, "close-period", "2025-10")
    assert closed[1:4] == [
        "  events rated: 3; games played: 17; games rated: 9; games that changed a rating: 3",
        "  players on the list: 5; players rated: 2",
        "  newly rated: 0; dropped below 1400: 0",
    ]
    assert closed[-2:] == [
        "    warning: " + LEAGUE_WARNING,
        "    warning: " + MINOR_WARNING.format(verb="rated"),
    ]


def test_report_period_gives_the_same_figures_and_warnings(db_url: str, month: list[str]) -> None:
    run(db_url, "close-period", "2025-10")
    # The table's heading wraps at the terminal's width: read it as one text.
    shown = " ".join(" ".join(run(db_url, "report", "period", "2025-10")).split())
    assert (
        "players on list: 5; games played: 17; games rated: 9; games that changed a rating: 3; players "
        "rated: 2; newly rated: 0; dropped below floor: 0;"
    ) in shown
    assert f"warning: {LEAGUE_WARNING} warning: {MINOR_WARNING.format(verb='rated')}" in shown
    assert run(db_url, "report", "period", "2025-10", "-f", "csv")[-2:] == [
        f'warning,,,,,,,,"{LEAGUE_WARNING}"',
        f'warning,,,,,,,,"{MINOR_WARNING.format(verb="rated")}"',
    ]
    document = json.loads("\n".join(run(db_url, "report", "period", "2025-10", "-f", "json")))
    counts = document["counts"]
    assert [counts[k] for k in ("games_played", "games_rated", "games_changing_a_rating")] == [17, 9, 3]
    assert [counts[k] for k in ("players_rated", "newly_rated")] == [2, 0]
    assert [(e["name"], e["games_played"], e["games_rated"]) for e in document["events"]] == [
        ("Cork League", 2, 2),
        ("Cork Open", 10, 7),
        ("Cork Minor", 5, 0),
    ]


def test_the_site_close_page_gives_the_same_figures_and_warnings(
    db_url: str, month: list[str], tmp_path: Path
) -> None:
    run(db_url, "close-period", "2025-10")
    run(db_url, "publish", tmp_path / "site")
    page = (tmp_path / "site" / "periods" / "standard-2025-10.html").read_text(encoding="utf-8")
    assert "5 players on the list: 2 players rated, 0 newly rated, 0 below the floor" in page
    assert "17 games played, 9 games rated, 3 games that changed a rating" in page
    assert f"<li>{MINOR_WARNING.format(verb='rated')}</li>".replace("'", "&#39;") in page
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "3 events, 9 games rated, 2 players rated, 0 newly rated." in home


def test_an_import_before_any_list_warns_of_nothing(db_url: str, tmp_path: Path) -> None:
    # The import's own note says the list is missing; the close (which needs it) counts what it rated.
    (tmp_path / "open.trf").write_text(OPEN, encoding="utf-8")
    assert not [line for line in run(db_url, "import-trf", tmp_path / "open.trf") if "warning" in line]


def test_the_served_close_page_and_the_api_give_the_same_figures(db_url: str, month: list[str]) -> None:
    from tests.site.web import client

    run(db_url, "close-period", "2025-10")
    with client(db_url) as web:
        page = web.get("/periods/standard-2025-10.html").text
        close = web.get("/api/v1/closes/standard/2025-10").json()
    assert "17 games played, 9 games rated, 3 games that changed a rating" in page
    assert [close[k] for k in ("games_played", "games_rated", "games_changing_a_rating")] == [17, 9, 3]
    assert (close["players_rated"], close["newly_rated_count"]) == (2, 0)
    assert close["warnings"] == [LEAGUE_WARNING, MINOR_WARNING.format(verb="rated")]
