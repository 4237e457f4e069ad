"""The integrity screen on real files and on the demo: no event of either is `high` (issue 50).

The real files are the shared samples (/work/wt/shared/data/trf-samples, copied byte for byte to
tests/fixtures/trf): FIDE's example and six Irish files of 2005–2012, imported into one database with the
options tests/cli/test_export_trf_roundtrip.py settles for them. Without a list of their time every
player is unrated, so the signals that need ratings (improbable results, farming) have nothing to read;
the others do: newcomers, clashes, repeated pairings, closed pools, rounds a day, copies. What each gets is
stated here and in docs/guide/integrity.md ("What the real files and the demo get"). The demo's events get
`none`, every one (tests/site/test_integrity_pages.py, on the seeded demo database).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.services.integrity import screen_events
from tests.cli.test_export_trf_roundtrip import CONFIRMED, MADE_UP, with_old_rules

runner = CliRunner()
FIXTURES = Path(__file__).parents[1] / "fixtures" / "trf"
SHARED = (
    "fide-example1.trf",
    "icu-armstrong_2012_with_bom.tab",
    "icu-bunratty_masters_2011.tab",
    "icu-bunratty_minor_2011.tab",
    "icu-irish_junior_champs_2011.tab",
    "icu-latin-1.tab",
    "icu-utf-8.tab",
)


def cli(url: str, *args: str) -> str:
    result = runner.invoke(app, ["--db", url, *args])
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def _levels(url: str) -> dict[str, tuple[str, list[str]]]:
    """Each current event's name → (level, its signals' codes), screened period by period."""
    events = json.loads(cli(url, "events", "--format", "json"))
    engine = db.make_engine(url)
    found: dict[str, tuple[str, list[str]]] = {}
    try:
        with db.transaction(engine) as session:
            for e in events:
                (risk,) = screen_events(session, event_id=e["id"]).events
                found[e["file"]] = (risk.level, [s.code for s in risk.signals])
    finally:
        engine.dispose()
    return found


def test_the_real_files_get_no_high(db_url: str, tmp_path: Path) -> None:
    with_old_rules(db_url, tmp_path)
    for name in SHARED:
        cli(
            db_url,
            "import-trf",
            str(FIXTURES / name),
            "--type",
            "standard",
            "--distinct-event",
            *MADE_UP,
            *CONFIRMED.get(name, ()),
        )
    found = _levels(db_url)
    assert found == {
        "fide-example1.trf": ("none", []),
        "icu-armstrong_2012_with_bom.tab": ("none", []),
        "icu-bunratty_masters_2011.tab": ("none", []),
        "icu-bunratty_minor_2011.tab": ("none", []),
        "icu-irish_junior_champs_2011.tab": ("none", []),
        # One tournament (three players, three games) in two encodings: different bytes, so two events of
        # the same players on the same day — a schedule clash (medium), and a group playing only among
        # itself (closed pool, low: nobody's score is beyond the ratings, there are none). Too small a
        # crosstable (3 games) to be compared as a copy (duplicate_min_games 10).
        "icu-latin-1.tab": ("medium", ["schedule-clash", "closed-pool"]),
        "icu-utf-8.tab": ("medium", ["schedule-clash", "closed-pool"]),
    }
    assert all(level != "high" for level, _ in found.values())
