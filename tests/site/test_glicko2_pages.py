"""The site's pages of a Glicko-2 list (issue 33): the list, the player's history and the CSV download show
the rating to hundredths, the deviation and the provisional mark, published and served alike.

The figures are the demo's club list, as `ratingdb list --type club --format csv` prints them (the
deviations and the threshold 110 of seeds/club-glicko.toml).
"""

from __future__ import annotations

import csv
import io
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
    assert [line[1:] for line in rows(table)][-3:] == [
        ["1342.89", "0", "0", "105.52", ""],
        ["1342.89", "-69", "3", "105.00", ""],
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
