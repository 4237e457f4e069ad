"""Glicko lists (Glickman's first system) end to end on every engine: a starting list, a close through the
seam, the displays, the CSV and the refusals.

The worked example of Glickman's "The Glicko system" is played as a tournament
(tests/fixtures/trf/glicko_example.trf): "Example, Paper" (1500, RD 200) beats a 1400 (RD 30) and loses to
a 1550 (RD 100) and a 1700 (RD 300); the other three also play each other, which changes nothing for the
example's player. The league's rule set has c = 0, so the RDs at the onset of the period are the listed
ones, as in the paper.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner, Result

from ratingdb import db
from ratingdb.cli import app

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RULES = FIXTURES / "glicko" / "league-glicko.toml"
START = FIXTURES / "glicko" / "league-2025-10-01.csv"
EVENT = FIXTURES / "trf" / "glicko_example.trf"
HEADER = "fide_id,national_id,name,federation,sex,title,birth_year,rating,deviation"


def run(db_url: str, *args: str | Path) -> Result:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def ok(db_url: str, *args: str | Path) -> list[str]:
    result = run(db_url, *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def refused(db_url: str, *args: str | Path) -> str:
    result = run(db_url, *args)
    assert result.exit_code == 1, result.output
    return result.stderr


def start(db_url: str, rules: Path = RULES) -> None:
    ok(db_url, "rules", "add", rules)
    assert ok(db_url, "import-list", START, "--type", "league", "--date", "2025-10-01")[0] == (
        "Imported the league list dated 2025-10-01 from league-2025-10-01.csv (csv): 5 entries, 5 rated."
    )


def paper(r: float, rd: float, games: list[tuple[float, float, float]]) -> tuple[float, float]:
    """r′ and RD′ by the paper's Step 2 (`steps`)."""
    found = steps(r, rd, games)
    return found["r"], found["rd"]


def steps(r: float, rd: float, games: list[tuple[float, float, float]]) -> dict[str, float]:
    """The paper's Step 2, written out here from its text (not ratingdb.rating.glicko's functions):
    q = ln 10 / 400, g(RD) = 1 / √(1 + 3q²RD²/π²), E = 1 / (1 + 10^(−g(RDj)(r − rj)/400)),
    d² = [q² Σ g² E (1 − E)]⁻¹, r′ = r + q / (1/RD² + 1/d²) Σ g (s − E), RD′ = √((1/RD² + 1/d²)⁻¹)."""
    q = math.log(10) / 400

    def g(x: float) -> float:
        return 1 / math.sqrt(1 + 3 * q * q * x * x / math.pi**2)

    e = [1 / (1 + 10 ** (-g(x) * (r - o) / 400)) for o, x, _ in games]
    d2 = 1 / (q * q * sum(g(x) ** 2 * ei * (1 - ei) for (_, x, _), ei in zip(games, e, strict=True)))
    precision = 1 / rd**2 + 1 / d2
    improvement = sum(g(x) * (s - ei) for (_, x, s), ei in zip(games, e, strict=True))
    factor = q / precision
    return {"d2": d2, "factor": factor, "sum": improvement, "r": r + factor * improvement,
            "rd": math.sqrt(1 / precision)}  # fmt: skip


def csv(value: float) -> str:
    """A figure to hundredths as the CSV list writes it: 92.60 → 92.6, 80.00 → 80."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def test_a_starting_list_keeps_rating_and_deviation_and_exports_the_same(db_url: str, tmp_path: Path) -> None:
    start(db_url)
    table = ok(db_url, "list", "2025-10-01", "--type", "league", "--format", "csv")
    assert table == [
        HEADER,
        '200104,,"Opponent, Ciara",IRL,M,,1980,1700,300',
        '200105,,"Idle, Ida",IRL,F,,1980,1612.5,80',
        '200103,,"Opponent, Brian",IRL,M,,1980,1550,100',
        '200101,,"Example, Paper",IRL,M,,1980,1500,200',
        '200102,,"Opponent, Aoife",IRL,M,,1980,1400,30',
    ]
    exported = tmp_path / "league.csv"
    exported.write_text("\n".join(table) + "\n", encoding="utf-8")
    ok(db_url, "import-list", exported, "--type", "league", "--date", "2025-12-01", "--replace-list")
    assert ok(db_url, "list", "2025-12-01", "--type", "league", "--format", "csv") == table


def test_a_deviation_above_the_maximum_or_a_volatility_is_refused_naming_the_row(
    db_url: str, tmp_path: Path
) -> None:
    ok(db_url, "rules", "add", RULES)
    bad = tmp_path / "league.csv"
    bad.write_text(
        'fide_id,name,rating,deviation\n200101,"Example, Paper",1500,200\n200102,"Opponent, Aoife",1400,'
        "350.01\n",
        "utf-8",
    )
    assert refused(db_url, "import-list", bad, "--type", "league", "--date", "2025-10-01") == (
        "Error: league.csv line 3 col 4: deviation 350.01 is above 350, the maximum deviation of rule set "
        "'league-glicko'\n"
    )
    bad.write_text(
        'fide_id,name,rating,deviation,volatility\n200101,"Example, Paper",1500,200,0.06\n', "utf-8"
    )
    assert refused(db_url, "import-list", bad, "--type", "league", "--date", "2025-10-01") == (
        "Error: league.csv line 1 col 5: column 'volatility' is not a Glicko list column "
        "(fide_id, national_id, name, federation, sex, title, birth_year, rating, deviation)\n"
    )
    bad.write_text('fide_id,name,rating,deviation\n200101,"Example, Paper",1500,\n', "utf-8")
    assert refused(db_url, "import-list", bad, "--type", "league", "--date", "2025-10-01") == (
        "Error: league.csv line 2: the row is rated but has no deviation: give rating and deviation\n"
    )
    # Nothing was written: the database is as it was.
    assert ok(db_url, "lists", "--format", "csv") == [
        "type,date,version,state,origin,period,rules,players,withdrawn_at,reason"
    ]


def test_the_close_reproduces_the_papers_example(db_url: str) -> None:
    start(db_url)
    ok(db_url, "import-trf", EVENT, "--type", "league")
    closed = ok(db_url, "close-period", "2025-10", "--type", "league")
    # By hand from the paper (E to full precision): r′ = 1464.11, RD′ = 151.40 (the paper: 1464, 151.4).
    r, rd = paper(1500, 200, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    assert (round(r), round(rd, 1)) == (1464, 151.4)
    assert (f"{r:.2f}", f"{rd:.2f}") == ("1464.11", "151.40")
    # The opponents, each against the other three: Aoife lost to Paper, drew Ciara, beat Brian; Brian
    # beat Ciara and Paper, lost to Aoife; Ciara lost to Brian, drew Aoife, beat Paper.
    aoife = paper(1400, 30, [(1500, 200, 0), (1700, 300, 0.5), (1550, 100, 1)])
    brian = paper(1550, 100, [(1700, 300, 1), (1500, 200, 1), (1400, 30, 0)])
    ciara = paper(1700, 300, [(1550, 100, 0), (1400, 30, 0.5), (1500, 200, 1)])
    assert closed == [
        "Closed league period 2025-10: published the list dated 2025-11-01 (rules league-glicko).",
        "  events rated: 1; games played: 6; games rated: 6; games that changed a rating: 6",
        "  players on the list: 5; players rated: 4",
        "  newly rated: 0",
        f"    biggest gain: Opponent, Brian 1550 → 1557 (+7, 3 games, RD 100.00 → {brian[1]:.2f})",
        f"    biggest gain: Opponent, Aoife 1400 → 1403 (+3, 3 games, RD 30.00 → {aoife[1]:.2f})",
        f"    biggest loss: Opponent, Ciara 1700 → 1531 (-169, 3 games, RD 300.00 → {ciara[1]:.2f})",
        "    biggest loss: Example, Paper 1500 → 1464 (-36, 3 games, RD 200.00 → 151.40)",
    ]
    listed = ok(db_url, "list", "2025-11-01", "--type", "league", "--format", "csv")
    assert listed == [
        HEADER,
        '200105,,"Idle, Ida",IRL,F,,1980,1612.5,80',  # c = 0: no games, RD as it was
        f'200103,,"Opponent, Brian",IRL,M,,1980,{csv(brian[0])},{csv(brian[1])}',
        f'200104,,"Opponent, Ciara",IRL,M,,1980,{csv(ciara[0])},{csv(ciara[1])}',
        '200101,,"Example, Paper",IRL,M,,1980,1464.11,151.4',
        f'200102,,"Opponent, Aoife",IRL,M,,1980,{csv(aoife[0])},{csv(aoife[1])}',
    ]
    assert refused(db_url, "list", "2025-11-01", "--type", "league", "--format", "fide-txt") == (
        "Error: the league list dated 2025-11-01 is a Glicko list, which is not written as fide-txt: "
        "use --format csv\n"
    )
    table = ok(db_url, "list", "2025-11-01", "--type", "league")
    paper_row = next(line for line in table if "Example, Paper" in line)
    assert "1464.11" in paper_row and "151.40" in paper_row and "?" in paper_row  # RD above 110
    assert "-35.89" in [cell.strip() for cell in paper_row.split("│")]  # 1464.11 − 1500.00
    top = ok(db_url, "report", "top", "--type", "league", "--format", "csv")
    assert top[0].endswith(",glicko,rd,provisional")
    assert top[4] == '4,200101,,"Example, Paper",,IRL,M,1980,1464,3,,,1464.11,151.40,?'
    moves = ok(db_url, "report", "period", "2025-10", "--type", "league", "--format", "csv")
    assert moves[4] == 'loss,200101,,"Example, Paper",1500,1464,-36,3,RD 200.00 → 151.40'
    # The write-up: the paper's d² = 231.67² = 53670.85 (E to three decimals); here E to full precision.
    by_paper = steps(1500, 200, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    calc = ok(db_url, "calculation", "200101", "2025-10", "--type", "league")
    assert calc[:6] == [
        "Example, Paper (FIDE 200101), born 1980, IRL: league (Glicko), period 2025-10, "
        "list dated 2025-11-01",
        "Before: r 1500.00, RD 200.00",
        "Step 1: RD = min(√(RD² + c²t), 350) = min(√(200.00² + 0.00² × 1), 350) = 200.00",
        f"Step 2: d² = [q² Σ g(RDj)² E (1 − E)]⁻¹ = {by_paper['d2']:.2f} over 3 games (below), "
        "q = ln 10 / 400",
        f"r′ = r + q / (1/RD² + 1/d²) × Σ g(RDj)(s − E) = 1500.00 + {by_paper['factor']:.4f} × "
        f"{by_paper['sum']:.4f} = {by_paper['r']:.4f}",
        f"RD′ = √((1/RD² + 1/d²)⁻¹) = {by_paper['rd']:.4f}",
    ]
    assert calc[6] == (
        "New list: rating 1464.11, RD 151.40; provisional (RD above 110) (rounded once, to hundredths)"
    )
    assert any("1700.00" in line and "300.00" in line and "0.7242" in line for line in calc)


def test_an_idle_players_deviation_grows_by_c_up_to_the_maximum(db_url: str, tmp_path: Path) -> None:
    rules = tmp_path / "league-glicko.toml"
    rules.write_text(RULES.read_text(encoding="utf-8").replace("c = 0", "c = 50"), "utf-8")
    ok(db_url, "rules", "add", rules)
    listed = tmp_path / "league.csv"
    listed.write_text(
        'fide_id,name,rating,deviation\n200101,"Idle, Ida",1612.5,80\n200102,"Near, Max",1500,345\n'
        '200103,"At, Max",1500,349\n',
        "utf-8",
    )
    ok(db_url, "import-list", listed, "--type", "league", "--date", "2025-10-01")
    closed = ok(db_url, "close-period", "2025-10", "--type", "league")
    # Step 1 with t = 1: √(80² + 50²) = 94.34; √(345² + 50²) = 348.60; √(349² + 50²) = 352.56 → 350.
    assert "    note: 2 rated players without games: deviation grown by c (Glicko Step 1)" in closed
    assert (
        "    note: 1 rated player without games: deviation at the rule set's maximum 350 "
        "(it grows no further)" in closed
    )
    assert ok(db_url, "list", "2025-11-01", "--type", "league", "--format", "csv")[1:] == [
        '200101,,"Idle, Ida",,,,,1612.5,94.34',
        '200103,,"At, Max",,,,,1500,350',  # the same rating: by name
        '200102,,"Near, Max",,,,,1500,348.6',
    ]
    # A second idle period: √(94.34² + 50²) = 106.77 (from the published 94.34), the others at 350.
    closed = ok(db_url, "close-period", "2025-11", "--type", "league")
    assert "    note: 1 rated player without games: deviation grown by c (Glicko Step 1)" in closed
    assert "    note: 2 rated players without games: deviation at the rule set's maximum 350" in closed[-1]
    assert ok(db_url, "list", "2025-12-01", "--type", "league", "--format", "csv")[1:] == [
        '200101,,"Idle, Ida",,,,,1612.5,106.77',
        '200103,,"At, Max",,,,,1500,350',
        '200102,,"Near, Max",,,,,1500,350',
    ]


def test_a_published_glicko_list_is_sealed(db_url: str) -> None:
    start(db_url)
    ok(db_url, "import-trf", EVENT, "--type", "league")
    ok(db_url, "close-period", "2025-10", "--type", "league")
    engine = db.make_engine(db_url)
    try:
        for statement in (
            "UPDATE glicko_entry SET rating_x100 = 200000",
            "DELETE FROM glicko_calc_player",
            "UPDATE glicko_calc_game SET e = 0.5",
        ):
            with pytest.raises(DBAPIError, match="published lists are immutable"), engine.begin() as conn:
                conn.execute(text(statement))
    finally:
        engine.dispose()
