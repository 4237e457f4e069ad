"""The README's quick start end to end: `ratingdb demo` as a subprocess in a new folder, then its database.

Every seeded rule case is checked against numbers worked out by hand from the seed files (the ratings
of the starting list, seeds/standard-2025-09-01.csv, and the scripted games in seeds/generate.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, text

from ratingdb import db

# FIDE IDs of the hand-made seed players (seeds/generate.py, SPECIAL).
GM, DELANEY, MORAN = 25900001, 25900008, 25900010
DOYLE, BYRNE = 25900011, 25900012
SAOIRSE, PIOTR = 25900016, 25900017
LYONS = 25900024

REFUSAL = (
    "Error: demo.sqlite already exists: the demo builds a new database; add --force to replace it, "
    "or give another file with --db\n"
)


def ratingdb_executable() -> Path:
    """The `ratingdb` console script of the environment running the tests (installed with the package)."""
    folder = Path(sys.executable).parent
    for name in ("ratingdb", "ratingdb.exe"):
        if (folder / name).is_file():
            return folder / name
    pytest.fail(f"no ratingdb executable next to {sys.executable}: install the package (pip install -e .)")


def run_demo(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RATINGDB_URL"}
    return subprocess.run(
        [str(ratingdb_executable()), "demo", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )


def one(conn: Connection, sql: str, **params: Any) -> tuple[Any, ...]:
    return tuple(conn.execute(text(sql), params).one())


def list_entry(
    conn: Connection, fide_id: int, list_date: str, rating_type: str = "standard"
) -> tuple[Any, ...]:
    """(rating, k, games) of a player on a list."""
    return one(
        conn,
        "SELECT rating, k, games FROM v_list_entry WHERE fide_id = :f AND rating_type = :t "
        "AND CAST(list_date AS VARCHAR(10)) = :d",
        f=fide_id,
        t=rating_type,
        d=list_date,
    )


def calc(conn: Connection, fide_id: int, period: str) -> dict[str, Any]:
    """The standard calculation record of a player for a period."""
    row = conn.execute(
        text(
            "SELECT c.method, c.ro, c.k_base, c.k, c.n, c.score_x100, c.sum_dr_x100, c.k_sum_dr_x100, "
            "c.change, c.opponent_sum, c.p_x100, c.dp, c.new_rating "
            "FROM calc_player c JOIN player p ON p.id = c.player_id JOIN rating_list l ON l.id = c.list_id "
            "WHERE p.fide_id = :f AND l.period = :period AND l.rating_type = 'standard'"
        ),
        {"f": fide_id, "period": period},
    ).one()
    return dict(row._mapping)


def check_rule_cases(conn: Connection) -> None:
    """Every rule case the seeds exercise, against hand-worked numbers."""
    # The federation: 300 players (299 on the starting list, one registered from a TRF), 16 events (the
    # 14 standard ones imported a second time for the national list, a third for the club list and a
    # fourth for the league list), and for each type the imported list of 2025-09-01 plus the three
    # computed lists.
    assert one(conn, "SELECT COUNT(*) FROM player") == (300,)
    assert one(conn, "SELECT COUNT(DISTINCT source_hash), COUNT(*) FROM event") == (16, 58)
    lists = conn.execute(
        text("SELECT rating_type, CAST(list_date AS VARCHAR(10)), origin FROM rating_list ORDER BY 1, 2")
    ).all()
    assert [tuple(r) for r in lists] == [
        (t, d, "imported" if d == "2025-09-01" else "computed")
        for t in ("club", "league", "national", "rapid", "standard")
        for d in ("2025-09-01", "2025-10-01", "2025-11-01", "2025-12-01")
    ]

    # The floor (§7.2.1). Noel Byrne, 1412, K 20, loses to 1496, 1503 and 1511 in September:
    # D −84 → PD .38, D −91 → .38, D −99 → .36; Σ(score − PD) = −1.12; 20 × −1.12 = −22.40 → −22 →
    # 1390, below 1400: unrated on the 2025-10-01 list (not 1400), and still unrated afterwards.
    c = calc(conn, BYRNE, "2025-09")
    assert (c["method"], c["ro"], c["k"], c["n"], c["sum_dr_x100"], c["k_sum_dr_x100"]) == (
        "change", 1412, 20, 3, -112, -2240,
    )  # fmt: skip
    assert (c["change"], c["new_rating"]) == (-22, 1390)
    assert list_entry(conn, BYRNE, "2025-09-01") == (1412, 20, 0)
    assert list_entry(conn, BYRNE, "2025-10-01") == (None, None, 3)
    assert list_entry(conn, BYRNE, "2025-12-01")[0] is None
    # The national list (seeds/national-2025.toml, floor 1000) rates the same games the same way, and
    # keeps him: 1390 on its 2025-10-01 list.
    assert list_entry(conn, BYRNE, "2025-10-01", "national") == (1390, 20, 3)

    # First ratings from pooled results (§8.2). Both newcomers meet r1–r4 in September (1580, 1540,
    # 1620, 1500: 4 games, too few) and r5–r8 in October (1610, 1560, 1650, 1530: none of them played in
    # September, so their October ratings are the starting ones). Their game against each other does
    # not count (both unrated). Σ = 6240 + 6350 = 12590; Ra = (12590 + 2 × 1800) / 10 = 1619.
    # Saoirse Ní Mhurchú (on the list, unrated): 5/8 → p = 6/10 = .60 → dp +72 → 1691.
    # Piotr Kowalczyk (on no list, registered by the import): 3½/8 → p = 4.5/10 = .45 → dp −36 → 1583.
    for fide_id, score, p, dp, first in ((SAOIRSE, 500, 60, 72, 1691), (PIOTR, 350, 45, -36, 1583)):
        sep = calc(conn, fide_id, "2025-09")
        assert (sep["method"], sep["n"], sep["new_rating"]) == ("pool", 4, None)
        assert list_entry(conn, fide_id, "2025-10-01")[0] is None
        oct_ = calc(conn, fide_id, "2025-10")
        assert (oct_["method"], oct_["n"], oct_["opponent_sum"]) == ("initial", 8, 12590)
        assert (oct_["score_x100"], oct_["p_x100"], oct_["dp"], oct_["new_rating"]) == (score, p, dp, first)
        # K 40: a junior (Saoirse, born 2012) and fewer than 30 games (Piotr, 8) (§8.3.3).
        assert list_entry(conn, fide_id, "2025-11-01") == (first, 40, 4)

    # The 700 rule (§8.3.3). Patrick Doyle, K 20, plays 9 + 9 + 9 + 9 + 3 = 39 games in October:
    # 20 × 39 = 780 > 700, so K = floor(700 / 39) = 17 (17 × 39 = 663). The list keeps publishing K 20.
    c = calc(conn, DOYLE, "2025-10")
    assert (c["ro"], c["k_base"], c["k"], c["n"]) == (1846, 20, 17, 39)
    assert one(
        conn,
        "SELECT COUNT(*) FROM v_calc_event "
        "WHERE fide_id = :f AND period = '2025-10' AND rating_type = 'standard'",
        f=DOYLE,
    ) == (5,)
    assert list_entry(conn, DOYLE, "2025-11-01")[1:] == (20, 39)

    # The 2650 rule (§8.3.1, periods 2025-10 on). Kovalenko 2672 beats Moran 2120 in the Irish Masters.
    # For Kovalenko (2650+) the real difference counts: D 552 → PD .97 (518–559). For Moran (below 2650)
    # it is capped: D −400 → PD 1 − .92 = .08.
    rows = conn.execute(
        text(
            "SELECT p.fide_id, c.own_rating, c.opponent_rating, c.d, c.pd_x100, c.score_x100 "
            "FROM calc_game c JOIN player p ON p.id = c.player_id JOIN player o ON o.id = c.opponent_id "
            "JOIN rating_list l ON l.id = c.list_id "
            "WHERE l.period = '2025-10' AND l.rating_type = 'standard' "
            "AND ((p.fide_id = :gm AND o.fide_id = :low) OR (p.fide_id = :low AND o.fide_id = :gm)) "
            "ORDER BY p.fide_id"
        ),
        {"gm": GM, "low": MORAN},
    ).all()
    assert [tuple(r) for r in rows] == [(GM, 2672, 2120, 552, 97, 100), (MORAN, 2120, 2672, -400, 8, 0)]
    # Ronan Delaney, 2318, reached 2400 long ago: K 10 on every list (§8.3.3, a stored flag).
    assert {list_entry(conn, DELANEY, d)[1] for d in ("2025-10-01", "2025-11-01", "2025-12-01")} == {10}

    # The event across two periods (§7.1.3, §8.2.4). The Halloween Open runs 2025-10-31 … 2025-11-02:
    # the closing date of the 2025-11-01 list is 2025-10-29, so it is rated in period 2025-11, with the
    # ratings of the list in force at its start, 2025-10-01. Conor Lyons (1650, K 20) played only
    # rated games against r8 1530 (won: D 120 → PD .66), r6 1560 (drew: D 90 → .62) and r5 1610 (won:
    # D 40 → .56) in October: Σ = .34 − .12 + .44 = .66; 20 × .66 = 13.2 → +13 → 1663 on 2025-11-01.
    # In the Halloween Open he is still rated 1650; his 2025-12-01 rating is 1663 + the period's change.
    assert one(
        conn,
        "SELECT period, natural_period, late, CAST(start_date AS VARCHAR(10)), CAST(end_date AS VARCHAR(10)) "
        "FROM v_event WHERE name = 'Halloween Open' AND rating_type = 'standard'",
    ) == ("2025-11", "2025-11", 0, "2025-10-31", "2025-11-02")
    assert list_entry(conn, LYONS, "2025-11-01")[0] == 1663
    assert one(
        conn,
        "SELECT ro, CAST(ratings_from_list AS VARCHAR(10)) FROM v_calc_event "
        "WHERE fide_id = :f AND event_name = 'Halloween Open' AND rating_type = 'standard'",
        f=LYONS,
    ) == (1650, "2025-10-01")
    nov = calc(conn, LYONS, "2025-11")
    assert nov["ro"] == 1663
    assert list_entry(conn, LYONS, "2025-12-01")[0] == 1663 + nov["change"]
    # Every game of the event, for every player, used own and opponent ratings of the 2025-10-01 list.
    mismatches = one(
        conn,
        "SELECT COUNT(*) FROM calc_game c JOIN event ev ON ev.id = c.event_id "
        "JOIN v_list_entry own ON own.player_id = c.player_id "
        "JOIN v_list_entry opp ON opp.player_id = c.opponent_id "
        "WHERE ev.name = 'Halloween Open' AND ev.rating_type = 'standard' "
        "AND own.rating_type = 'standard' AND opp.rating_type = 'standard' "
        "AND CAST(own.list_date AS VARCHAR(10)) = '2025-10-01' "
        "AND CAST(opp.list_date AS VARCHAR(10)) = '2025-10-01' "
        "AND (own.rating <> c.own_rating OR opp.rating <> c.opponent_rating)",
    )
    assert mismatches == (0,)

    # The club list by Glicko-2 (seeds/club-glicko.toml, τ 0.5). Byrne starts at 1412, RD 120 (30 to 99
    # games), σ 0.06, and loses his three September games: the close's record equals the rules library
    # run on the opponents' published figures, and the list publishes it rounded once. In October he
    # does not play: √(105.00² + (0.060003 × 173.7178)²) = 105.52, rating and σ kept.
    from ratingdb.rating.glicko2 import Glicko2Game, Glicko2Parameters, Glicko2Rating, published, update

    def club(period: str) -> tuple[Any, ...]:
        return one(
            conn,
            "SELECT c.games, c.rating_x100, c.deviation_x100, c.volatility_x1e6, e.rating_x100, "
            "e.deviation_x100, e.volatility_x1e6 FROM glicko2_calc_player c "
            "JOIN player p ON p.id = c.player_id JOIN rating_list l ON l.id = c.list_id "
            "JOIN glicko2_entry e ON e.list_id = l.id AND e.player_id = c.player_id "
            "WHERE p.fide_id = :f AND l.period = :period AND l.rating_type = 'club'",
            f=BYRNE,
            period=period,
        )

    games = conn.execute(
        text(
            "SELECT g.opponent_rating_x100, g.opponent_deviation_x100, g.score_x100 FROM glicko2_calc_game g "
            "JOIN player p ON p.id = g.player_id JOIN rating_list l ON l.id = g.list_id "
            "WHERE p.fide_id = :f AND l.period = '2025-09' AND l.rating_type = 'club'"
        ),
        {"f": BYRNE},
    ).all()
    assert sorted(r[0] for r in games) == [149600, 150300, 151100] and {r[2] for r in games} == {0}
    september = update(
        Glicko2Rating(1412, 120, 0.06),
        [Glicko2Game(r / 100, rd / 100, score / 100) for r, rd, score in games],
        Glicko2Parameters(0.5, 1500, 350, 0.06, 110),
    )
    shown = published(september.after)
    figures = (shown.rating_x100, shown.deviation_x100, shown.volatility_x1e6)
    assert (
        club("2025-09")
        == (3, 141200, 12000, 60000, *figures)
        == (3, 141200, 12000, 60000, 134289, 10500, 60003)
    )
    assert club("2025-10") == (0, 134289, 10500, 60003, 134289, 10552, 60003)

    # Forfeits and byes of the Dublin September Open are stored, never rated (§5.1).
    codes = conn.execute(
        text(
            "SELECT DISTINCT g.white_result, g.rated FROM game g JOIN event ev ON ev.id = g.event_id "
            "WHERE ev.name = 'Dublin September Open' AND g.white_result NOT IN ('1', '=', '0')"
        )
    ).all()
    assert {(code, bool(rated)) for code, rated in codes} == {
        (code, False) for code in ("+", "-", "H", "F", "U", "Z")
    }


@pytest.mark.slow
def test_the_quick_start_demo_builds_a_database_showing_every_rule_case(tmp_path: Path) -> None:
    result = run_demo(tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for line in (
        "Closed standard period 2025-09: published the list dated 2025-10-01 (rules standard-2024-03).",
        "    below the floor: Byrne, Noel 1412 → unrated",
        "Closed standard period 2025-10: published the list dated 2025-11-01 (rules standard-2025-10).",
        "    newly rated: Ní Mhurchú, Saoirse unrated → 1691",
        "    newly rated: Kowalczyk, Piotr unrated → 1583",
        "Closed standard period 2025-11: published the list dated 2025-12-01 (rules standard-2025-10).",
        "Closed rapid period 2025-11: published the list dated 2025-12-01 (rules rapid-2024-12).",
        "  700 rule: Doyle, Patrick (25900011), standard period 2025-10: 39 games: K 20 → 17",
        "  2650 rule: Kovalenko, Dmytro (25900001), standard period 2025-10: 2672 against 2120: "
        "the real difference 552, not 400",
        "  ratingdb --db sqlite:///demo.sqlite calculation 25900011 2025-10",
    ):
        assert line in out.splitlines(), line
    top = out.split("Top 10 of the newest standard list (2025-12-01)")[1].splitlines()
    assert top[1].split()[:4] == ["1.", "GM", "Kovalenko,", "Dmytro"]

    engine = db.make_engine(f"sqlite:///{tmp_path / 'demo.sqlite'}")
    try:
        with engine.connect() as conn:
            check_rule_cases(conn)
    finally:
        engine.dispose()

    # Running it again refuses to touch the existing database; --force builds it anew.
    again = run_demo(tmp_path)
    assert (again.returncode, again.stdout, again.stderr) == (1, "", REFUSAL)
    forced = run_demo(tmp_path, "--force")
    assert forced.returncode == 0, forced.stderr
    assert "Replaced the previous demo.sqlite (--force)." in forced.stdout.splitlines()
    engine = db.make_engine(f"sqlite:///{tmp_path / 'demo.sqlite'}")
    try:
        with engine.connect() as conn:
            assert one(conn, "SELECT COUNT(DISTINCT source_hash) FROM event") == (16,)
    finally:
        engine.dispose()
