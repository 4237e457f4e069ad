"""`ratingdb norm check`: a case from JSON, the readable verdict, stable JSON keys and one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app

runner = CliRunner()
FEDS = ["GER", "FRA", "ESP", "ITA", "NED", "BEL", "SUI", "AUT", "POL"]


def worked_case(points: list[float]) -> dict[str, Any]:
    """The spec's worked check: nine GMs of 2400 from nine federations."""
    return {
        "applicant": {"federation": "ENG", "sex": "M", "title": "IM"},
        "event": {"rounds": 9, "system": "swiss"},
        "games": [
            {
                "round": i + 1,
                "opponent_rating": 2400,
                "opponent_title": "GM",
                "opponent_federation": f,
                "result": r,
            }
            for i, (f, r) in enumerate(zip(FEDS, points, strict=True))
        ],  # fmt: skip
    }


SEVEN = [1, 1, 1, 1, 1, 1, 1, 0, 0]
SIX_AND_A_HALF = [1, 1, 1, 1, 1, 1, 0.5, 0, 0]


def run(case: Any, *args: str, tmp_path: Path) -> Any:
    path = tmp_path / "case.json"
    path.write_text(case if isinstance(case, str) else json.dumps(case), encoding="utf-8")
    return runner.invoke(app, ["norm", "check", str(path), *args])


def test_the_worked_check_in_json_has_the_figures_and_stable_keys(tmp_path: Path) -> None:
    result = run(worked_case(SEVEN), "--format", "json", tmp_path=tmp_path)
    assert result.exit_code == 0, result.output
    norms = {n["norm"]: n for n in json.loads(result.stdout)["norms"]}
    assert list(norms) == ["GM", "IM", "WGM", "WIM"]
    gm = norms["GM"]
    assert {k: gm[k] for k in ("met", "games_counted", "average_rating", "performance", "score", "percentage",
                               "dp", "failed_rules", "left_out_rounds", "exemption")} == {
        "met": True, "games_counted": 9, "average_rating": 2400, "performance": 2620, "score": 7.0,
        "percentage": 78, "dp": 220, "failed_rules": [], "left_out_rounds": [], "exemption": None,
    }  # fmt: skip
    assert norms["IM"]["already_holds"] is True
    assert norms["WGM"]["failed_rules"] == ["B.01: women's title: the applicant is not a woman"]


def test_six_and_a_half_is_a_near_miss_shown_as_a_readable_verdict(tmp_path: Path) -> None:
    result = run(worked_case(SIX_AND_A_HALF), "--norm", "GM", tmp_path=tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "GM: Rp 2566 < 2600 — ½ point short"
    assert lines[1] == "  games 9 (credited 9), score 6½, Ra 2400 (sum 21600), p 72 %, dp 166, Rp 2566"
    assert any("1.4.8" in line and "Rp 2566 < 2600" in line and "NO" in line for line in lines)


def test_standard_input_reads_the_case(tmp_path: Path) -> None:
    result = runner.invoke(app, ["norm", "check", "-", "--norm", "gm"], input=json.dumps(worked_case(SEVEN)))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "GM norm met"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["games"][3].update(result=2), "games[3].result: must be 1, 0.5 or 0, not 2"),
        (lambda c: c["games"][0].update(round=10), "games[0].round: 10 is not a round of the event (1 to 9)"),
        (
            lambda c: c["games"][2].pop("opponent_federation"),
            "games[2].opponent_federation: is required (NON: no FIDE federation; FID: FIDE)",
        ),
        (
            lambda c: c["games"][1].update(opponent_rating="2400"),
            "games[1].opponent_rating: must be a whole number",
        ),
        (
            lambda c: c["games"][1].update(opponent_title="GMX"),
            "games[1].opponent_title: 'GMX' is not one of GM, IM, FM, CM, WGM, WIM, WFM, WCM",
        ),
        (
            lambda c: c["games"][1].update(colour="w"),
            "games[1].colour: unknown field (known: bye, forfeit, opponent, opponent_federation, "
            "opponent_rating, opponent_title, opponent_zero_vs_rated, result, round)",
        ),
        (lambda c: c["applicant"].update(sex="X"), "applicant.sex: 'X' is not one of M, F"),
        (
            lambda c: c["event"].update(system="arena"),
            "event.system: 'arena' is not one of swiss, round_robin, double_round_robin, knockout",
        ),
        (
            lambda c: c["event"].update(min_games=7),
            "7 games are enough only at team or club championships of 7 to 9 rounds (1.4.1b)",
        ),
        (lambda c: c["games"][4].update(round=4), "games[4].round: round 4 is also games[3]"),
        (
            lambda c: c.pop("event"),
            "event: is missing — the norm case schema is in the docs (`ratingdb norm check --help`)",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_field(tmp_path: Path, change: Any, message: str) -> None:
    case = worked_case(SEVEN)
    change(case)
    result = run(case, tmp_path=tmp_path)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"Error: {tmp_path / 'case.json'}: {message}\n"


def test_a_file_that_is_not_json_names_the_line_and_column(tmp_path: Path) -> None:
    result = run('{"applicant": {"federation": "ENG",\n  "sex": M}}', tmp_path=tmp_path)
    assert result.exit_code == 1
    assert (
        result.stderr == f"Error: {tmp_path / 'case.json'} line 2 col 10: not valid JSON (Expecting value)\n"
    )


def test_a_missing_file_and_a_bad_norm_are_refused(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["norm", "check", str(tmp_path / "nope.json")])
    assert missing.exit_code == 1
    assert (
        missing.stderr
        == f"Error: there is no file {tmp_path / 'nope.json'} — give the path of a norm case (JSON)\n"
    )
    bad = run(worked_case(SEVEN), "--norm", "FM", tmp_path=tmp_path)
    assert (bad.exit_code, bad.stderr) == (1, "Error: 'FM' is not a norm: use GM, IM, WGM or WIM\n")


def french_team_championship(applicant: str) -> dict[str, Any]:
    """Issue 51: eleven French GMs of 2500 at a French national team championship, 8 wins and 3 losses."""
    return {
        "norm": "GM",
        "applicant": {"federation": applicant, "sex": "M"},
        "event": {"rounds": 11, "system": "round_robin", "team": True, "national_team_championship": True,
                  "federation": "FRA", "min_games": None},
        "games": [
            {"round": i + 1, "opponent_rating": 2500, "opponent_title": "GM", "opponent_federation": "FRA",
             "result": 1 if i < 8 else 0}
            for i in range(11)
        ],
    }  # fmt: skip


def test_a_usa_applicant_at_a_french_national_team_championship_is_not_exempt(tmp_path: Path) -> None:
    # By hand: Ra 27500 / 11 = 2500; 8/11 = 72.7 → 73 % → dp 175 → Rp 2675 ≥ 2600; but FRA is one foreign
    # federation (< 2, 1.4.3) and 11 of one federation > 7 (2/3 of 11, 1.4.4). 1.4.3b exempts home players.
    usa = json.loads(run(french_team_championship("USA"), "--format", "json", tmp_path=tmp_path).stdout)
    gm = usa["norms"][0]
    assert (gm["met"], gm["exemption"], gm["performance"]) == (False, None, 2675)
    assert gm["failed_rules"] == [
        "1.4.3: foreign federations 1 < 2",
        "1.4.4: one federation 11 > 7 (2/3 of 11)",
    ]
    text = run(french_team_championship("USA"), tmp_path=tmp_path).stdout
    assert (
        "1.4.3b: the national team championship (home players) exempts the players of its host federation "
        "FRA only; the applicant's is USA: 1.4.3–1.4.4 apply" in text
    )
    french = json.loads(run(french_team_championship("FRA"), "--format", "json", tmp_path=tmp_path).stdout)
    assert (french["norms"][0]["met"], french["norms"][0]["exemption"]) == (True, "1.4.3b")
