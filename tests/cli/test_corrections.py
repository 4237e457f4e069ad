"""Corrections after publication (issue 12): reopen, replace-event, close --through, versions kept.

The story: periods 2025-10, 2025-11 and 2025-12 are closed; the result of the 2025-10 game turns out
to be the other way round. The officer reopens 2025-10, replaces the event and closes again through
2025-12. Every number below is worked by hand from table 8.1.2 (K 20 for everyone: born 1980, rated
below 2400, 30 games assumed by the list import):

Original                              Corrected
2025-10  A 2000 beats B 2000: D 0,    B 2000 beats A 2000:
         PD .50 → A +10 2010,         B 2010, A 1990
         B −10 1990
2025-11  B 1990 beats C 2000: D 10,   B 2010 beats C 2000: D 10, B (higher) PD .51:
         B (lower) PD .49: +.51×20    +.49×20 = +9.8 → +10 → B 2020; C −9.8 → −10 → 1990
         = +10.2 → +10 → B 2000;
         C −10.2 → −10 → 1990
2025-12  B 2000 draws D 2000: D 0,    B 2020 draws D 2000: D 20, B PD .53: (.5 − .53)×20
         no change: B 2000, D 2000    = −0.6 → −1 → B 2019; D +0.6 → +1 → 2001

So the 2026-01-01 list changes for A (2010 → 1990), B (2000 → 2019) and D (2000 → 2001), not C.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app

runner = CliRunner()

LIST = (
    "fide_id,name,federation,sex,birth_year,rating,k\n"
    '1,"Alpha, Ann",IRL,F,1980,2000,20\n'
    '2,"Bravo, Ben",IRL,M,1980,2000,20\n'
    '3,"Charlie, Cal",IRL,M,1980,2000,20\n'
    '4,"Delta, Dee",IRL,F,1980,2000,20\n'
)
PEOPLE = {1: ("f", "Alpha, Ann"), 2: ("m", "Bravo, Ben"), 3: ("m", "Charlie, Cal"), 4: ("f", "Delta, Dee")}


def trf(name: str, day: str, white: int, black: int, white_result: str) -> str:
    """A one-game TRF16 file: `white` (FIDE ID = starting rank 1) against `black` (rank 2)."""
    black_result = {"1": "0", "0": "1", "=": "="}[white_result]
    points = {"1": 1.0, "0": 0.0, "=": 0.5}
    lines = [f"012 {name}", "022 Cork", "032 IRL", f"042 {day}", f"052 {day}", "122 90 min + 30 s"]
    for rank, (fide, colour, own, opponent) in enumerate(
        [(white, "w", white_result, 2), (black, "b", black_result, 1)], 1
    ):
        sex, person = PEOPLE[fide]
        lines.append(
            f"001 {rank:>4} {sex}    {person:<33} 2000 IRL {fide:>11} 1980/01/01 {points[own]:>4.1f}     "
            f"  {opponent:>4} {colour} {own}"
        )
    return "\n".join(lines) + "\n"


def run(db_url: str, *args: str | Path) -> object:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def ok(db_url: str, *args: str | Path) -> str:
    result = run(db_url, *args)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    return result.stdout  # type: ignore[attr-defined,no-any-return]


def ratings(db_url: str, date: str) -> dict[str, int]:
    rows = ok(db_url, "list", date, "--format", "csv").splitlines()[1:]
    return {row.split(",")[0]: int(row.split('"')[2].split(",")[5]) for row in rows}


def test_a_wrong_result_in_a_closed_period_is_corrected_and_every_version_kept(
    db_url: str, tmp_path: Path
) -> None:
    (tmp_path / "oct.csv").write_text(LIST, encoding="utf-8")
    files = {
        "e1": trf("Club Open", "2025/10/10", 1, 2, "1"),
        "e2": trf("November Cup", "2025/11/10", 2, 3, "1"),
        "e3": trf("December Rapidplay", "2025/12/10", 2, 4, "="),
        "e1-fixed": trf("Club Open", "2025/10/10", 1, 2, "0"),
    }
    for stem, content in files.items():
        (tmp_path / f"{stem}.trf").write_text(content, encoding="utf-8")
    ok(db_url, "import-list", tmp_path / "oct.csv", "--date", "2025-10-01")
    for stem, period in (("e1", "2025-10"), ("e2", "2025-11"), ("e3", "2025-12")):
        ok(db_url, "import-trf", tmp_path / f"{stem}.trf", "--type", "standard")
        ok(db_url, "close-period", period)
    assert ratings(db_url, "2025-11-01") == {"1": 2010, "2": 1990, "3": 2000, "4": 2000}
    assert ratings(db_url, "2026-01-01") == {"1": 2010, "2": 2000, "3": 1990, "4": 2000}
    dates = ("2025-11-01", "2025-12-01", "2026-01-01")
    published = {d: ok(db_url, "list", d, "--format", "csv") for d in dates}

    # The corrected file without reopening: refused with the way forward, nothing written.
    refused = run(db_url, "import-trf", tmp_path / "e1-fixed.trf", "--type", "standard")
    assert refused.exit_code == 1  # type: ignore[attr-defined]
    assert refused.stderr.splitlines() == [  # type: ignore[attr-defined]
        "Error: e1-fixed.trf looks like a corrected version of event 1 'Club Open' (rated in 2025-10; 2 of "
        "the file's 2 players played in it): `ratingdb reopen 2025-10 --type standard --reason TEXT` then "
        "`ratingdb replace-event 1 e1-fixed.trf`; if it is a different tournament with the same name and "
        "start date, add --distinct-event (a section of a congress: --section NAME)"
    ]

    reopened = ok(db_url, "reopen", "2025-10", "--reason", "round 1 result reported the wrong way round")
    assert reopened.splitlines() == [
        "Reopened standard period 2025-10: withdrew 3 lists.",
        "  2025-11-01 version 1 (computed by closing 2025-10)",
        "  2025-12-01 version 1 (computed by closing 2025-11)",
        "  2026-01-01 version 1 (computed by closing 2025-12)",
        "Correct the events, then close again: "
        "`ratingdb close-period 2025-10 --type standard --through 2025-12`",
    ]
    replaced = ok(db_url, "replace-event", "1", tmp_path / "e1-fixed.trf")
    assert replaced.splitlines() == [
        "Replaced event 1 'Club Open' (period 2025-10) with e1-fixed.trf: the corrected tournament is "
        "event 4; event 1 is kept as its withdrawn version.",
        "  result changed: round 1: Alpha, Ann – Bravo, Ben 1-0 → 0-1",
        "Players: 2 matched by ID, 0 by name, 0 new, 0 resolved by options.",
    ]
    closed = ok(db_url, "close-period", "2025-10", "--through", "2025-12")
    summary = "  against the withdrawn version 1: 2 ratings changed, 2 players with another rating, K or flag"
    assert summary in closed
    assert "    Alpha, Ann: 2010 → 1990" in closed and "    Bravo, Ben: 2000 → 2019" in closed

    assert ratings(db_url, "2025-11-01") == {"1": 1990, "2": 2010, "3": 2000, "4": 2000}
    assert ratings(db_url, "2025-12-01") == {"1": 1990, "2": 2020, "3": 1990, "4": 2000}
    assert ratings(db_url, "2026-01-01") == {"1": 1990, "2": 2019, "3": 1990, "4": 2001}
    # The withdrawn versions export exactly as they were published.
    for date, before in published.items():
        assert ok(db_url, "list", date, "--version", "1", "--format", "csv") == before
    notice = ok(db_url, "report", "diff", "2026-01-01", "--against-withdrawn", "--format", "csv")
    assert notice.splitlines() == [
        "fide_id,national_id,name,rating_before,rating_after,change,k_before,k_after,flag_before,flag_after",
        '1,,"Alpha, Ann",2010,1990,-20,20,20,w,w',
        '2,,"Bravo, Ben",2000,2019,19,20,20,,',
        '4,,"Delta, Dee",2000,2001,1,20,20,w,w',
    ]
    engine = create_engine(db_url)
    with engine.connect() as conn:
        reopen = text("SELECT reason FROM audit_log WHERE action = 'reopen'")
        assert conn.execute(reopen).scalar_one() == "round 1 result reported the wrong way round"
        # Each game is in the current calculation record once: no double counting after the correction.
        assert conn.execute(text("SELECT COUNT(*) FROM v_calc_game")).scalar_one() == 6
        withdrawn = text("SELECT COUNT(*) FROM v_list_version WHERE state = 'withdrawn'")
        assert conn.execute(withdrawn).scalar_one() == 3
    engine.dispose()


def test_renamed_line_ending_and_encoding_copies_of_a_tournament_are_refused_as_duplicates(
    db_url: str, tmp_path: Path
) -> None:
    original = Path(__file__).resolve().parent.parent / "fixtures" / "trf" / "latin1_crlf.trf"
    ok(db_url, "import-trf", original, "--type", "rapid")
    raw = original.read_bytes()
    lf = raw.replace(b"\r\n", b"\n")
    copies = {
        "renamed.trf": raw,
        "lf-endings.trf": lf,
        "utf-8.trf": lf.decode("latin-1").encode("utf-8"),
        "trailing-spaces.trf": b"\n".join(line.rstrip() for line in lf.split(b"\n")),
    }
    for name, content in copies.items():
        (tmp_path / name).write_bytes(content)
        result = run(db_url, "import-trf", tmp_path / name, "--type", "rapid")
        assert result.exit_code == 1, (name, result.output)  # type: ignore[attr-defined]
        error = result.stderr.splitlines()  # type: ignore[attr-defined]
        if content == raw:  # the very same bytes: named by the file it came from
            assert error == [
                "Error: renamed.trf was imported before as event 1 'Coupe de Montréal' "
                "(from latin1_crlf.trf); an event is imported once"
            ]
        else:
            assert error == [
                f"Error: {name} is the same tournament as event 1 'Coupe de Montréal' (imported from "
                "latin1_crlf.trf): same name, dates and results; an event is imported once"
            ], name
    engine = create_engine(db_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM event")).scalar_one() == 1
    engine.dispose()
