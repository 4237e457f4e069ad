"""The site's pages of a Glicko-2 list (issue 33): the list, the player's history and the CSV download show
the rating to hundredths, the deviation and the provisional mark, published and served alike.

The figures are the demo's club list, as `ratingdb list --type club --format csv` prints them (the
deviations and the threshold 110 of seeds/club-glicko.toml).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.site.conftest import publish
from tests.site.test_publish import files, parse, rows, text_of
from tests.site.web import client, without_marked_parts

runner = CliRunner()
LIST = "lists/club-2025-12-01"
BYRNE_PAGE = (
    "players/10012.html"  # Noel Byrne, national ID 10012: club 1412 → 1342.89 (docs/guide/glicko2.md)
)


@pytest.fixture(scope="module")
def club_site(demo_url: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("club") / "www"
    publish(demo_url, folder, "--type", "standard", "--type", "club")
    return folder


def _club_csv(demo_url: str) -> str:
    result = runner.invoke(app, ["--db", demo_url, "list", "2025-12-01", "--type", "club", "--format", "csv"])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_list_page_shows_rating_deviation_and_the_provisional_mark(
    club_site: Path, demo_url: str
) -> None:
    page = parse((club_site / f"{LIST}.html").read_bytes())
    table = page.find(".//table[@id='list']")
    assert table is not None
    heads = [text_of(th) for th in table.iterfind(".//thead/tr/th")]
    assert heads[-2:] == ["RD", "Provisional"]
    lines = rows(table)
    listed = list(csv.DictReader(io.StringIO(_club_csv(demo_url))))
    rated = [r for r in listed if r["rating"]]
    assert len([line for line in lines if line[0]]) == len(rated)
    # Row by row the figures of `ratingdb list`, the mark wherever the deviation is above 110.
    for line, entry in zip(lines, rated, strict=False):
        assert line[2] == entry["name"]
        assert (line[6], float(line[9])) == (f"{float(entry['rating']):.2f}", float(entry["deviation"]))
        assert line[10] == ("provisional" if float(entry["deviation"]) > 110 else "")
    assert lines[0][:3] == ["1", "GM", "Kovalenko, Dmytro"] and (lines[0][6], lines[0][9]) == (
        "2692.65",
        "58.50",
    )
    assert any(line[10] == "provisional" for line in lines) and any(
        line[10] == "" for line in lines if line[0]
    )
    note = page.find(".//p[@class='note']")
    assert note is not None and "provisional while its RD is above 110" in text_of(note)


def test_a_glicko2_lists_change_is_in_hundredths_as_its_ratings_are(club_site: Path) -> None:
    page = parse((club_site / "lists/club-2025-10-01.html").read_bytes())
    table = page.find(".//table[@id='list']")
    assert table is not None
    heads = [text_of(th) for th in table.iterfind(".//thead/tr/th")]
    change, rating = heads.index("Change"), heads.index("Rating")
    [byrne] = [line for line in rows(table) if line[2] == "Byrne, Noel"]
    # Byrne's September 1412.00 → 1342.89 after three losses: 1342.89 − 1412.00 = −69.11; list_entry's
    # whole points give 1343 − 1412 = −69, which the page showed before.
    assert (byrne[rating], byrne[change]) == ("1342.89", "-69.11")


def test_the_csv_download_is_the_glicko2_list_the_list_command_writes(club_site: Path, demo_url: str) -> None:
    assert (club_site / f"{LIST}.csv").read_text("utf-8") == _club_csv(demo_url)


def test_the_player_page_shows_each_club_list_with_its_deviation(club_site: Path) -> None:
    page = parse((club_site / BYRNE_PAGE).read_bytes())
    [table] = [
        t for h, t in zip(page.iterfind(".//h2"), page.iterfind(".//table[@class='history']"), strict=False)
        if text_of(h) == "Club lists"
    ]  # fmt: skip
    assert [text_of(th) for th in table.iterfind(".//thead/tr/th")] == [
        "List", "Rating", "Change", "Games", "RD", "Provisional"
    ]  # fmt: skip
    # September's starting 1412 (RD 120: provisional), three losses → 1342.89, RD 105.00, then widening
    # while he does not play: √(105.00² + (0.060003 × 173.7178)²) = 105.52 (docs/guide/glicko2.md).
    # Change to hundredths as the ratings are: 1342.89 − 1412.00 = −69.11 (the whole points' 1343 − 1412
    # = −69 is list_entry's), then 1342.89 − 1342.89 = 0.00 while only the deviation widens.
    assert [line[1:] for line in rows(table)][-3:] == [
        ["1342.89", "0.00", "0", "105.52", ""],
        ["1342.89", "-69.11", "3", "105.00", ""],
        ["1412.00", "", "0", "120.00", "provisional"],
    ]


def test_the_served_pages_are_the_published_ones(club_site: Path, demo_url: str) -> None:
    published = files(club_site)
    with client(demo_url, rating_types=("standard", "club")) as served:
        for relative in (f"{LIST}.html", f"{LIST}.csv", BYRNE_PAGE):
            query = "?per_page=1000" if relative.endswith(".html") and relative.startswith("lists/") else ""
            response = served.get(f"/{relative}{query}")
            assert response.status_code == 200, relative
            assert without_marked_parts(response.content) == without_marked_parts(published[relative]), (
                relative
            )


def _calculations(page: object) -> dict[str, object]:
    """The player page's Glicko-2 calculation sections by their heading's period."""
    import xml.etree.ElementTree as ET

    assert isinstance(page, ET.Element)
    return {
        text_of(s.find("h3")).split("period ")[1].split(":")[0]: s  # type: ignore[arg-type]
        for s in page.iterfind(".//section")
        if "glicko2" in (s.get("class") or "")
    }


def test_the_player_page_writes_out_each_glicko2_calculation(club_site: Path) -> None:
    page = parse((club_site / BYRNE_PAGE).read_bytes())
    sections = _calculations(page)
    assert list(sections) == ["2025-11", "2025-10", "2025-09"]  # newest first
    september = sections["2025-09"]
    paragraphs = [text_of(p) for p in september.iterfind("p")]  # type: ignore[attr-defined]
    assert paragraphs[0] == "Glicko-2 before the period: rating 1412.00, RD 120.00, volatility σ 0.060000"
    assert "New list: rating 1342.89, RD 105.00, volatility σ 0.060003" in paragraphs
    # Step 2 by hand: μ = (1412 − 1500) / 173.7178 = −0.5066, φ = 120 / 173.7178 = 0.6908.
    [steps] = september.iterfind(".//table[@class='steps']")  # type: ignore[attr-defined]
    assert [text_of(th) for th in steps.iterfind(".//th")] == ["μ", "φ", "v", "Δ", "σ′", "φ*", "φ′", "μ′"]
    assert rows(steps)[0][:2] == ["−0.5066", "0.6908"]
    assert rows(steps)[0][7] == "−0.9044"  # μ′: 173.7178 × −0.9044 + 1500 = 1342.89
    [games] = september.iterfind(".//table[@class='games']")  # type: ignore[attr-defined]
    assert [text_of(th) for th in games.iterfind(".//th")][4:] == ["Rating", "RD", "g(φj)", "E", "Score"]
    # Keane 1496, RD 60: φj = 60 / 173.7178 = 0.3454, g = 1 / √(1 + 3φj²/π²) = 0.9823;
    # μj = (1496 − 1500) / 173.7178 = −0.0230, E = 1 / (1 + exp(−g (μ − μj))) = 1 / (1 + e^0.4750) = 0.3834.
    assert [line[1:] for line in rows(games)] == [
        ["1", "Keane, Martin", "25900013", "1496.00", "60.00", "0.9823", "0.3834", "0.00"],
        ["2", "Walsh, Siobhán", "25900014", "1503.00", "120.00", "0.9345", "0.3800", "0.00"],
        ["3", "Murphy, Colm", "25900015", "1511.00", "60.00", "0.9823", "0.3636", "0.00"],
    ]
    # October without games: φ′ = √(0.6044² + 0.060003²) = 0.6074 → RD 173.7178 × 0.6074 = 105.52.
    october = [text_of(p) for p in sections["2025-10"].iterfind("p")]  # type: ignore[attr-defined]
    assert "the deviation widens (Glickman's Step 6), φ′ = √(φ² + σ²) = 0.6074" in october[1]
    assert october[-1] == "New list: rating 1342.89, RD 105.52, volatility σ 0.060003"


def test_a_newcomers_calculation_says_so_and_marks_the_rating_provisional(club_site: Path) -> None:
    # Saoirse Ní Mhurchú (national ID 10016) is not on the September club list: Step 1's 1500 / 350 /
    # 0.06, five games: 1655.44, RD 154.80, σ 0.059998 on the October list (as `ratingdb list 2025-10-01
    # --type club` prints them), the RD above the threshold 110. The paper's steps (tests/unit/rating/
    # test_glicko2_reference.py) on her games — 1580/60 won, 1540/60 drawn, 1620/60 lost, 1500/120 won,
    # 1500/350 won — give 1655.4440, RD 154.7990 (Step 6 uncapped: φ* = 2.0157, not the 2.0148 of the
    # cap at 350 ratingdb applied before issue 48, which published 1655.42, RD 154.79).
    page = parse((club_site / "players/10016.html").read_bytes())
    september = [text_of(p) for p in _calculations(page)["2025-09"].iterfind("p")]  # type: ignore[attr-defined]
    assert september[0] == (
        "Glicko-2 before the period: rating 1500.00, RD 350.00, volatility σ 0.060000 (not rated on the list "
        "in force: the newcomer's figures, Glickman's Step 1)"
    )
    assert any(
        p.endswith("rating 1655.44, RD 154.80, volatility σ 0.059998 — provisional: RD above 110")
        for p in september
    ), september


def test_the_api_gives_the_glicko2_calculations_with_deviation_and_mark(demo_url: str) -> None:
    with client(demo_url) as api:
        answer = api.get("/api/v1/players/10016/calculations", params={"type": "club"}).json()
        elo = api.get("/api/v1/players/10016/calculations", params={"type": "standard"}).json()
    assert answer["calculations"] == [] and elo["glicko2_calculations"] == []
    found = {c["period"]: c for c in answer["glicko2_calculations"]}
    assert list(found) == ["2025-11", "2025-10", "2025-09"]
    september = found["2025-09"]
    assert (september["newcomer"], september["games_played"], len(september["games"])) == (True, 5, 5)
    assert (september["rating_before"], september["deviation_before"], september["volatility_before"]) == (
        1500.0, 350.0, 0.06
    )  # fmt: skip
    assert (september["deviation"], september["provisional"], september["provisional_deviation"]) == (
        154.8, True, 110.0
    )  # fmt: skip
    assert september["summary"][0].startswith("Before: r 1500.00, RD 350.00")
    game = september["games"][0]
    assert set(game) >= {"opponent", "opponent_rating", "opponent_deviation", "g", "e", "score"}
    assert 0 < game["g"] <= 1 and 0 < game["e"] < 1


def test_the_home_page_lists_every_type_with_lists(demo_url: str, tmp_path: Path) -> None:
    # No --type: FIDE's types and the stored rule sets' (national, club, league), published and served.
    publish(demo_url, tmp_path / "www")
    home = parse((tmp_path / "www" / "index.html").read_bytes())
    cards = [text_of(h) for h in home.iterfind(".//article/h2")]
    assert cards == [
        "Standard list Dec 1, 2025", "Rapid list Dec 1, 2025", "Club list Dec 1, 2025",
        "League list Dec 1, 2025", "National list Dec 1, 2025",
    ]  # fmt: skip
    with client(demo_url) as served:
        page = served.get("/")
    assert page.status_code == 200
    assert without_marked_parts(page.content) == without_marked_parts(
        (tmp_path / "www" / "index.html").read_bytes()
    )


def test_the_close_page_and_the_api_show_the_deviation_before_and_after(
    club_site: Path, demo_url: str
) -> None:
    page = parse((club_site / "periods/club-2025-10.html").read_bytes())
    assert "Largest gains" in [text_of(h) for h in page.iterfind(".//h2")]
    gains = next(
        t
        for t in page.iterfind(".//table")
        if [text_of(th) for th in t.iterfind(".//th")][-2:] == ["RD before", "RD after"]
    )
    # The first table with the RD columns is the largest gains (the club close of October has no newly
    # rated): the line close-period printed, "Cunningham, Tomás 1720 → 1860 (+140, 9 games, RD 250.22 →
    # 117.62)", and the lists' RD (`ratingdb list 2025-10-01 --type club`: 250.22; 2025-11-01: 117.62).
    assert rows(gains)[0] == [
        "Cunningham, Tomás",
        "25900034",
        "1720",
        "1860",
        "+140",
        "9",
        "250.22",
        "117.62",
    ]
    with client(demo_url) as api:
        close = api.get("/api/v1/closes/club/2025-10").json()
        elo = api.get("/api/v1/closes/standard/2025-10").json()
    top = close["gains"][0]
    assert (top["name"], top["deviation_before"], top["deviation_after"]) == (
        "Cunningham, Tomás",
        250.22,
        117.62,
    )
    assert {m["deviation_after"] for m in elo["gains"]} == {None}


# --- What differs per rating system comes from ratingdb.reports.systems (issue 33, part 3) ------------


def _counts(page: object) -> list[str]:
    import xml.etree.ElementTree as ET

    assert isinstance(page, ET.Element)
    return [text_of(li) for li in page.iterfind(".//ul[@class='counts']/li")]


def test_a_glicko2_close_page_counts_what_glicko2_does_and_none_of_elos_floor_inactivity_or_k(
    club_site: Path, demo_url: str
) -> None:
    club = parse((club_site / "periods/club-2025-10.html").read_bytes())
    # `ratingdb report period 2025-10 --type club`: 294 on the list, 642 games, 112 players rated, 7
    # events. Every entry of the club list is rated, so 294 − 112 = 182 rated players had no game and
    # their deviation widened (the close's note says the same).
    assert _counts(club) == [
        "294 players on the list: 112 players rated, 0 newly rated",
        "642 games played, 642 games rated, 642 games that changed a rating",
        "182 deviations widened: rated players without a game (Glickman's Step 6)",
        "7 events (0 late)",
    ]
    assert not {"Below the rating floor", "Became inactive", "Active again", "K changes"} & {
        text_of(h) for h in club.iterfind(".//h2")
    }
    closed = runner.invoke(app, ["--db", demo_url, "report", "period", "2025-10", "--type", "club"])
    heading = " ".join(closed.stdout.splitlines()[1:3])  # `report period` wraps its counts' line
    assert "players on list: 294; games played: 642;" in heading and "players rated: 112;" in heading
    assert "deviations widened: 182;" in heading
    assert not any(word in heading for word in ("floor", "inactive", "active again", "k changes"))
    # An Elo close keeps its floor, inactivity and K counts.
    standard = _counts(parse((club_site / "periods/standard-2025-10.html").read_bytes()))
    assert standard[0].endswith("below the floor") and standard[3].startswith(tuple("0123456789"))
    assert standard[2].endswith("active again") and " K changes, " in standard[3]


def _footer(page: bytes) -> str:
    footer = parse(page).find(".//footer")
    assert footer is not None
    return text_of(footer)


ELO_FOOTER = (
    "Published with ratingdb. Elo ratings by the FIDE Rating Regulations. Every change is explained game "
    "by game on the players' pages."
)
GLICKO2_FOOTER = (
    "Published with ratingdb. Glicko-2 ratings by Mark Glickman's system. Every change is explained game "
    "by game on the players' pages."
)
BOTH_FOOTER = (
    "Published with ratingdb. Elo ratings by the FIDE Rating Regulations. Glicko-2 ratings by Mark "
    "Glickman's system. Every change is explained game by game on the players' pages."
)


def test_the_footer_names_the_rules_of_the_lists_the_page_shows(club_site: Path) -> None:
    assert _footer((club_site / f"{LIST}.html").read_bytes()) == GLICKO2_FOOTER
    assert _footer((club_site / "periods/club-2025-10.html").read_bytes()) == GLICKO2_FOOTER
    assert _footer((club_site / "lists/standard-2025-12-01.html").read_bytes()) == ELO_FOOTER
    assert _footer((club_site / "periods/standard-2025-10.html").read_bytes()) == ELO_FOOTER
    # Byrne's page tables his standard and club lists; the home page shows both types.
    assert _footer((club_site / BYRNE_PAGE).read_bytes()) == BOTH_FOOTER
    assert _footer((club_site / "index.html").read_bytes()) == BOTH_FOOTER


def _links(page: object, xpath: str) -> list[str]:
    import xml.etree.ElementTree as ET

    assert isinstance(page, ET.Element)
    return [text_of(a) for a in page.iterfind(xpath)]


def test_a_glicko2_list_offers_its_csv_only_and_no_fide_text(club_site: Path, demo_url: str) -> None:
    # FIDE's fixed-width text has no deviation or volatility: the club list is not written in it.
    published = files(club_site)
    # Each list as CSV; each computed one (not September's, imported) with its bundle too (issue 49).
    assert sorted(p for p in published if p.startswith("lists/club-") and not p.endswith(".html")) == sorted(
        [f"lists/club-2025-{month}-01.csv" for month in ("09", "10", "11", "12")]
        + [f"lists/club-2025-{month}-01.zip" for month in ("10", "11", "12")]
    )
    assert "lists/standard-2025-12-01.txt" in published
    club, standard = (parse(published[f"lists/{t}-2025-12-01.html"]) for t in ("club", "standard"))
    assert _links(club, ".//p[@class='downloads']/a") == ["CSV"]
    assert _links(standard, ".//p[@class='downloads']/a") == ["CSV", "FIDE text"]
    home = parse(published["index.html"])
    cards = [_links(card, ".//p/a") for card in home.iterfind(".//article")]
    assert cards == [["CSV", "FIDE text"], ["CSV"]]  # standard, club
    # A club list has no inactive flag, so no "active only" filter (static and served).
    assert (
        club.find(".//input[@id='f-active']") is None
        and standard.find(".//input[@id='f-active']") is not None
    )
    with client(demo_url, rating_types=("standard", "club")) as served:
        missing = served.get(f"/{LIST}.txt")
        assert missing.status_code == 404
        assert "the list club-2025-12-01 is not offered as .txt: its page links the downloads it has" in (
            missing.text
        )
        assert served.get("/lists/standard-2025-12-01.txt").status_code == 200
        page = served.get(f"/{LIST}.html")
        assert page.status_code == 200 and 'name="active"' not in page.text
        assert 'name="active"' in served.get("/lists/standard-2025-12-01.html").text


def test_the_chart_draws_every_list_the_page_tables_so_its_scale_is_theirs(club_site: Path) -> None:
    page = (club_site / BYRNE_PAGE).read_text("utf-8")
    svg = page[page.index("<svg") : page.index("</svg>")]
    # Byrne: standard 1412 (September, then unrated under the floor); club 1412 → 1342.89 (1343 on the
    # list's whole-point column) and then idle. Both are drawn, so the axis from 1320 to 1420 is theirs.
    # (FIDE's lines are drawn last, on top of the federation's.)
    assert re.findall(r'class="series ([a-z]+)"', svg) == ["club", "standard"]
    assert re.findall(r"<title>([^<]*): (\d+)</title>", svg) == [
        ("club 2025-09-01", "1412"),
        ("club 2025-10-01", "1343"),
        ("club 2025-11-01", "1343"),
        ("club 2025-12-01", "1343"),
        ("standard 2025-09-01", "1412"),
    ]
    ticks = [int(t) for t in re.findall(r'<text x="\d+" y="[\d.]+" dy="4">(\d+)</text>', svg)]
    assert (min(ticks), max(ticks)) == (1320, 1420)


def test_a_club_events_page_gives_the_glicko2_record_not_an_empty_elo_one(
    club_site: Path, demo_url: str
) -> None:
    events = runner.invoke(app, ["--db", demo_url, "events", "--format", "csv"]).stdout.splitlines()
    [event_id] = [line.split(",")[0] for line in events if ",Kilkenny Congress," in line and ",club," in line]
    page = parse((club_site / f"events/{event_id}.html").read_bytes())
    table = page.find(".//table[@class='crosstable']")
    assert table is not None
    heads = [text_of(th) for th in table.iterfind(".//thead/tr/th")]
    assert heads[5:7] == ["Rating", "RD"] and heads[-3:] == ["Pts", "Games", "Status"]
    assert "K" not in heads and "Rp" not in heads
    # Niamh Dunne on the club lists (`ratingdb list --type club --format csv`): 2344.84, RD 60.27 on the
    # list of 2025-10-01 the close rated from, 2331.88 on the one it published; 9 games in Kilkenny (the
    # 9 rounds of her row, all played).
    dunne = next(row for row in rows(table) if row[2] == "Dunne, Niamh")
    assert dunne[5:7] == ["2344.84", "60.27"] and dunne[-2:] == ["9", "rated: 2331.88"]
    with client(demo_url) as api:
        players = api.get(f"/api/v1/events/{event_id}").json()["players"]
    first = next(p for p in players if p["name"] == "Dunne, Niamh")
    # The whole-point rating of the published list: 2331.88 → 2332.
    assert (first["games"], first["status"], first["new_rating"], first["k"]) == (9, "rated", 2332, None)
    cli = runner.invoke(app, ["--db", demo_url, "report", "event", event_id, "--format", "csv"]).stdout
    assert cli.splitlines()[:2] == [
        "start_rank,fide_id,national_id,name,rating,rd,games,status",
        '1,25900214,10214,"Dunne, Niamh",2344.84,60.27,9,rated: 2331.88',
    ]
