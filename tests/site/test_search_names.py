"""The served site's search box and the API's search find names as people write them, as `player find`
does (one scorer, ratingdb.names.NameScorer): issue 47's three names, on every engine."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_player_names import REGISTER
from tests.cli.test_players_cli import ok
from tests.site.test_publish import parse, rows
from tests.site.web import client


def test_the_api_and_the_search_box_find_names_as_people_write_them(db_url: str, tmp_path: Path) -> None:
    # On a list, so that each has a page (the site's search shows the players it has pages for).
    listed = tmp_path / "list.csv"
    lines = [f'{300001 + i},"{name}",IRL,1990,{2000 - 10 * i}' for i, name in enumerate(REGISTER)]
    listed.write_text(
        "fide_id,name,federation,birth_year,rating\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )
    ok(db_url, "import-list", listed, "--date", "2025-10-01", "--type", "standard")
    with client(db_url) as served:
        for text, first, also in (
            ("Kowalenko", "Kovalenko, Ivan", []),
            ("ruane kieran", "Ruane, Ciaran", ["Keane, Kieran", "Ruane, Kevin"]),
            ("dj o'donoghue", "O'Donoghue, D.J.", ["O'Donoghue, Siobhan"]),
        ):
            response = served.get("/api/v1/players", params={"q": text})
            assert response.status_code == 200, response.text
            api = response.json()
            assert [p["name"] for p in api["players"]] == [first, *also], text
            # None has every word spelt as given: all are "alike" (a score below 100).
            assert api["alike"] == 1 + len(also), text
            page = parse(served.get("/search", params={"q": text}).content)
            table = page.find(".//table[@class='found']")
            assert table is not None, text
            assert [r[0] for r in rows(table)] == [first, *also], text
