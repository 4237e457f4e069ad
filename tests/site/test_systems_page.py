"""The site's page of `ratingdb report systems`: served and published, the same figures as the command.

The demo feeds the standard files to a FIDE list (Elo), the club list (Glicko-2) and the league list
(Glicko), so the page compares the three systems on the same games.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from typer.testing import CliRunner

from ratingdb.cli import app as cli
from tests.site.conftest import publish
from tests.site.web import client

TYPES = ("standard", "club", "league")


def command_rows(demo_url: str) -> list[list[str]]:
    """`report systems` over the demo's closes, as CSV rows (type, system, band, games, log-loss, Brier)."""
    result = CliRunner().invoke(
        cli,
        ["--db", demo_url, "report", "systems", "--from", "2025-09", "--to", "2025-11", "--format", "csv"],
    )
    assert result.exit_code == 0, result.output
    return [row for row in csv.reader(io.StringIO(result.stdout))][1:]


def test_the_served_page_compares_elo_glicko2_and_glicko_as_the_command_does(demo_url: str) -> None:
    rows = {(r[0], r[2]): r for r in command_rows(demo_url) if r[0] in TYPES}
    assert {(t, s) for (t, _b), (_t, s, *_rest) in rows.items()} == {
        ("standard", "elo"), ("club", "glicko2"), ("league", "glicko")
    }  # fmt: skip
    with client(demo_url, rating_types=TYPES) as web:
        page = web.get("/systems.html")
        assert page.status_code == 200
        text = page.text
        home = web.get("/").text
    assert 'href="systems.html"' in home
    assert "For each game of the closed periods 2025-09 to 2025-11" in text
    for system in ("Elo", "Glicko-2", "Glicko"):
        assert f"<td>{system}<td>" in text
    # Each type's line over all bands, with the command's figures to four decimals.
    for rating_type in TYPES:
        _t, _s, _band, games, log_loss, brier = rows[(rating_type, "all")]
        figures = f"{int(games):,}", f"{float(log_loss):.4f}", f"{float(brier):.4f}"  # 1,187 games
        line = "".join(f'<td class="num">{x}' for x in figures)
        assert line in text, (rating_type, line)


def test_the_published_site_has_the_page_in_german(demo_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "www"
    publish(demo_url, folder, "--type", "standard", "--type", "league", "--lang", "de")
    text = (folder / "systems.html").read_text(encoding="utf-8")
    assert "Welches System die Partien am besten vorhersagte" in text
    assert "<td>Glicko<td>alle Bereiche<td" in text and "<td>Elo<td>alle Bereiche<td" in text
