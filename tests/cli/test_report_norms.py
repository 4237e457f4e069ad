"""`report norms` on an event from a real file (FIDE's TRF example, 2005), every engine, checked by hand.

The list in force (2005-07-01) is written from the file's own ratings, titles and federations, with the
federations and titles of one player's opponents set so that he makes an IM norm:

Uwira, Oliver (start rank 31, FIDE 4646630, unrated as to title), 6/7 against
    r1 Larem, Peter       unrated (no list entry, no federation)    1
    r2 Adam, Wilfried     2002  GER                                 1
    r3 Kartmann, Juergen  2080  GER                                 1
    r4 Bagaturov, Giorgi  2428  GEO  GM (file: g)                   1
    r5 Grabarczyk, Bogdan 2464  POL  IM (file: m)                   ½
    r6 Kunin, Vitaly      2448  GER  IM (file: m)                   1
    r7 Vasquez, Rodrigo   2558  CHI  GM (file: g)                   ½
and Uwira himself GER. The file has 7 rounds, so only the 7-game minimum of 1.4.1b can make a norm:
the test gives `--team --min-games 7` as an officer would for a team championship.

IM norm by hand: the unrated Larem counts 1400 and, as the lowest, is raised to the IM floor 2050
(1.4.6): 2050 + 2002 + 2080 + 2428 + 2464 + 2448 + 2558 = 16030 → Ra 16030 / 7 = 2290 (≥ 2230).
p = 6 / 7 = 85.7 % → 86 → dp 309 → Rp 2599 (≥ 2450). Titled 4 of 7 (≥ 4); IM or GM 4 (≥ 3).
Federations: GER 3 (Adam, Kartmann, Kunin) + Larem's unknown one counted with them = 4 ≤ 4 (3/5 of 7);
foreign GEO, POL, CHI = 3 ≥ 2; the largest federation 3 ≤ 4 (2/3 of 7).
GM norm by hand: the floor 2200 instead: 16030 − 2050 + 2200 = 16180 → Ra 2311 < 2380; Rp 2311 + 309 =
2620 ≥ 2600; GMs 2 < 3. Missed.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.formats import read_trf
from tests.cli.test_export_trf_roundtrip import with_old_rules

FIDE_EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "trf" / "fide-example1.trf"
UWIRA = "4646630"
# FIDE ID → (federation, title) set in the list (the file leaves most federations blank).
SET = {
    4646630: ("GER", None),  # Uwira
    4655850: ("GER", None),  # Adam
    4629965: ("GER", None),  # Kartmann
    4128737: ("GER", "IM"),  # Kunin
    13600133: ("GEO", "GM"),  # Bagaturov
    1101463: ("POL", "IM"),  # Grabarczyk
}
NORM_FLAGS = ("--team", "--min-games", "7")

runner = CliRunner()


def cli(url: str, *args: str) -> str:
    result = runner.invoke(app, ["--db", url, *args])
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def refused(url: str, *args: str) -> str:
    result = runner.invoke(app, ["--db", url, *args])
    assert result.exit_code == 1, (args, result.output)
    assert result.stdout == ""
    return result.stderr


def _list_from_the_file(path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["fide_id", "name", "federation", "title", "rating"])
        for p in read_trf(FIDE_EXAMPLE).players:
            if p.fide_id is None:
                continue
            federation, title = SET.get(p.fide_id, (p.federation, p.title))
            writer.writerow(
                [p.fide_id, p.name, federation or "", title or p.title or "", p.fide_rating or ""]
            )


@pytest.fixture
def karl_mala(db_url: str, tmp_path: Path) -> str:
    with_old_rules(db_url, tmp_path)
    _list_from_the_file(tmp_path / "list-2005-07.csv")
    cli(
        db_url,
        "import-list",
        str(tmp_path / "list-2005-07.csv"),
        "--date",
        "2005-07-01",
        "--type",
        "standard",
    )
    cli(db_url, "import-trf", str(FIDE_EXAMPLE), "--type", "standard")
    return db_url


def test_one_player_makes_an_im_norm_with_the_figures_worked_by_hand(karl_mala: str) -> None:
    document = json.loads(cli(karl_mala, "report", "norms", "1", *NORM_FLAGS, "--format", "json"))
    assert (document["system"], document["ratings_from"], document["ratings_per_game"]) == (
        "swiss", "2005-07-01", False,
    )  # fmt: skip
    made = [(p["name"], p["made"]) for p in document["players"] if p["made"]]
    assert made == [("Uwira,Oliver", ["IM"])]
    uwira = next(p for p in document["players"] if p["fide_id"] == int(UWIRA))
    im = next(n for n in uwira["norms"] if n["norm"] == "IM")
    assert {k: im[k] for k in ("met", "games_counted", "score", "rating_sum", "average_rating", "percentage",
                               "dp", "performance", "titled_opponents", "norm_title_opponents",
                               "foreign_federations", "own_federation_games")} == {
        "met": True, "games_counted": 7, "score": 6.0, "rating_sum": 16030, "average_rating": 2290,
        "percentage": 86, "dp": 309, "performance": 2599, "titled_opponents": 4, "norm_title_opponents": 4,
        "foreign_federations": 3, "own_federation_games": 4,
    }  # fmt: skip
    assert im["raised_opponent"]["round"] == 1
    assert (im["raised_opponent"]["rating"], im["raised_opponent"]["counted_rating"]) == (None, 2050)
    assert uwira["summary"] == "GM: GM opponents 2 < 3 (1/3 of 7, at least 3); Ra 2311 < 2380; IM norm met"


def test_the_table_names_the_norm_the_list_and_every_player(karl_mala: str) -> None:
    out = cli(karl_mala, "report", "norms", "1", *NORM_FLAGS)
    lines = out.splitlines()
    assert lines[:4] == [
        "Event 1 '9. Karl-Mala-Gedenkturnier' (Frankfurt (Main) /GER), 2005-07-28 … 2005-07-31, 7 rounds, "
        "284 players",
        "System: swiss (from the file's 092 line (Individual: Swiss-System (Standard))).",
        "Ratings: the list in force at the start, dated 2005-07-01 (as the close rates it).",
        "Given: team event, minimum 7 games.",
    ]
    row = next(line for line in lines if "Uwira,Oliver" in line and "IM norm met" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells == ["31", "Uwira,Oliver", "", "GER", "IM", "7", "6", "2290", "2599", "IM norm met"]


def test_without_the_seven_game_minimum_nobody_makes_a_norm(karl_mala: str) -> None:
    out = cli(karl_mala, "report", "norms", "1")
    assert "No player made a norm." in out
    assert "No exemption (1.4.3a–d) or other minimum (1.4.1b) given: the options set them." in out
    one = cli(karl_mala, "report", "norms", "1", "--player", UWIRA)
    assert "IM: games 7 < 9" in one


def test_one_player_s_full_check_shows_every_rule_with_its_paragraph(karl_mala: str) -> None:
    out = cli(karl_mala, "report", "norms", "1", *NORM_FLAGS, "--player", UWIRA)
    assert "Uwira,Oliver (FIDE 4646630), GER, start rank 31" in out
    assert "  games 7 (credited 7), score 6, Ra 2290 (sum 16030), p 86 %, dp 309, Rp 2599" in out
    assert "unrated, 1400 raised to the floor 2050 (1.4.6)" in out
    for rule in ("1.4.1b    │ games 7 ≥ 7", "own federation 4 ≤ 4 (3/5 of 7)", "foreign federations 3 ≥ 2",
                 "GM/IM opponents 4 ≥ 3 (1/3 of 7, at least 3)", "Rp 2599 ≥ 2450"):  # fmt: skip
        assert rule in out


def test_the_it1_certificate_as_csv_and_as_a_page(karl_mala: str, tmp_path: Path) -> None:
    text = cli(karl_mala, "report", "norms", "1", *NORM_FLAGS, "--player", UWIRA, "--format", "it1")
    rows = list(csv.reader(text.splitlines()))
    fields = dict(row for row in rows[: rows.index([])] if len(row) == 2)
    assert (fields["certificate"], fields["name"], fields["fide_id"], fields["federation"]) == (
        "IM title result (IT1)", "Uwira,Oliver", UWIRA, "GER",
    )  # fmt: skip
    assert (fields["start_date"], fields["end_date"], fields["rounds"], fields["chief_arbiter"]) == (
        "2005-07-28", "2005-07-31", "7", "Ralph Blum (SV Griesheim)",
    )  # fmt: skip
    assert (fields["average_rating"], fields["score"], fields["performance"]) == ("2290", "6.0", "2599")
    games = rows[rows.index(["round", "opponent", "title", "federation", "rating", "counted_rating", "result",
                             "note"]) + 1:][:7]  # fmt: skip
    assert games[0] == [
        "1",
        "Larem,Peter",
        "",
        "",
        "",
        "2050",
        "1.0",
        "unrated, 1400 raised to the floor 2050 (1.4.6)",
    ]
    assert games[6] == ["7", "Vasquez,Rodrigo", "GM", "CHI", "2558", "2558", "0.5", ""]
    page = tmp_path / "it1.html"
    cli(
        karl_mala,
        "report",
        "norms",
        "1",
        *NORM_FLAGS,
        "--player",
        UWIRA,
        "--format",
        "it1-html",
        "-o",
        str(page),
    )
    html = page.read_text(encoding="utf-8")
    assert "<h1>Certificate of title result — IM norm (IT1 figures)</h1>" in html
    assert "<tr><th>performance</th><td>2599</td></tr>" in html


def test_refusals_are_one_line(karl_mala: str) -> None:
    assert refused(karl_mala, "report", "norms", "1", "--format", "it1") == (
        "Error: --format it1 is one player's certificate: give --player ID\n"
    )
    assert refused(karl_mala, "report", "norms", "1", "--player", UWIRA, "--format", "it1") == (
        "Error: Uwira,Oliver made no norm in event 1: `ratingdb report norms 1 --player ID` shows why\n"
    )
    assert refused(karl_mala, "report", "norms", "1", *NORM_FLAGS, "--player", UWIRA, "--format", "it1",
                   "--norm", "GM") == (
        "Error: Uwira,Oliver made no GM norm in event 1 (made: IM): an IT1 certificate is for a norm made\n"
    )  # fmt: skip
    assert (
        refused(karl_mala, "report", "norms", "2")
        == "Error: there is no event 2: `ratingdb events` lists them\n"
    )
    assert refused(karl_mala, "report", "norms", "1", "--system", "arena") == (
        "Error: 'arena' is not a system: use swiss, round_robin, double_round_robin, knockout\n"
    )
    assert refused(karl_mala, "report", "norms", "1", "--min-games", "7") == (
        "Error: 7 games are enough only at team or club championships of 7 to 9 rounds (1.4.1b)\n"
    )
    assert refused(karl_mala, "report", "norms", "1", "--player", "99999999") == (
        "Error: no player has FIDE ID or national ID '99999999': "
        "`ratingdb player find NAME` searches by name\n"
    )


def test_a_player_who_did_not_play_is_named_in_the_refusal(karl_mala: str) -> None:
    cli(karl_mala, "player", "add", "--name", "Spectator, Sam", "--fide-id", "99000001")
    assert refused(karl_mala, "report", "norms", "1", "--player", "99000001") == (
        "Error: player 99000001 did not play in event 1: `ratingdb report event 1` lists them\n"
    )


def test_an_event_without_a_list_in_force_is_refused(db_url: str, tmp_path: Path) -> None:
    with_old_rules(db_url, tmp_path)
    cli(db_url, "import-trf", str(FIDE_EXAMPLE), "--type", "standard")
    assert refused(db_url, "report", "norms", "1") == (
        "Error: there is no standard list in the database: a norm needs the ratings of the list in force at "
        "the event's start — import it with `ratingdb import-list`\n"
    )


@pytest.mark.parametrize(("host", "exemption"), [("GER", "1.4.3b"), ("FRA", None)])
def test_the_file_s_032_federation_decides_whom_a_national_team_championship_exempts(
    db_url: str, tmp_path: Path, host: str, exemption: str | None
) -> None:
    # The same event with 032 naming its host federation (issue 51): 1.4.3b exempts the host's players only.
    # Uwira (GER) has the IM norm either way (the figures by hand above, the mix met without exemption); at a
    # German championship by 1.4.3b, at a French one by the normal rule, with the paragraph saying why.
    with_old_rules(db_url, tmp_path)
    _list_from_the_file(tmp_path / "list-2005-07.csv")
    cli(
        db_url,
        "import-list",
        str(tmp_path / "list-2005-07.csv"),
        "--date",
        "2005-07-01",
        "--type",
        "standard",
    )
    hosted = tmp_path / f"hosted-{host}.trf"
    lines = FIDE_EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[2].rstrip() == "032"
    hosted.write_text("".join([*lines[:2], f"032 {host}\n", *lines[3:]]), encoding="utf-8")
    cli(db_url, "import-trf", str(hosted), "--type", "standard")
    flags = (*NORM_FLAGS, "--national-team-championship", "--format", "json")
    document = json.loads(cli(db_url, "report", "norms", "1", *flags))
    uwira = next(p for p in document["players"] if p["fide_id"] == int(UWIRA))
    im = next(n for n in uwira["norms"] if n["norm"] == "IM")
    assert (im["met"], im["exemption"], im["average_rating"], im["performance"]) == (
        True,
        exemption,
        2290,
        2599,
    )
    not_home = (
        "1.4.3b: the national team championship (home players) exempts the players of its host federation"
    )
    assert any(note.startswith(not_home) for note in im["notes"]) is (host != "GER")
