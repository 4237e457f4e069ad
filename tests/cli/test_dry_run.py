"""`--dry-run` of every command that writes (issue 25, item 2).

Each command is run with --dry-run, then for real, on the same database: the dry run's first line is
"dry run: nothing was written", every row of every table and the ID counters are as before it (a
snapshot compared), and the rest of its output is exactly what the real run then prints — the same
counts, ratings and IDs (PostgreSQL's sequences and MySQL's AUTO_INCREMENT are put back after the
rollback, so the real run gets the IDs the dry run printed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.snapshot import every_row

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
TRF = SEEDS / "trf"
HEADING = "dry run: nothing was written"
runner = CliRunner()


def run(db_url: str, *args: str | Path) -> Any:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


SCREEN_LINES = ("  integrity screen", "    screen ")


def dry_then_real(db_url: str, *args: str | Path) -> list[str]:
    """Run the command with --dry-run, check it changed nothing, run it for real, compare; the real output."""
    before = every_row(db_url)
    dry = run(db_url, *args, "--dry-run")
    assert dry.exit_code == 0, (args, dry.output)
    assert every_row(db_url) == before, f"{args[0]} --dry-run wrote to the database"
    real = run(db_url, *args)
    assert real.exit_code == 0, (args, real.output)
    assert every_row(db_url) != before, f"{args[0]} wrote nothing: the test shows nothing"
    # A close's dry run adds the integrity screen (issue 50, below); everything else is the real run's.
    shown = [line for line in dry.stdout.splitlines() if not line.startswith(SCREEN_LINES)]
    assert shown == [HEADING, *real.stdout.splitlines()], args
    return real.stdout.splitlines()


def national_id(db_url: str, name: str) -> str:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        found = conn.execute(text("SELECT national_id FROM player WHERE name = :n"), {"n": name}).scalar_one()
    engine.dispose()
    return str(found)


def test_every_writing_command_dry_runs_without_writing_and_prints_what_the_real_run_prints(
    db_url: str, tmp_path: Path
) -> None:
    lists = dry_then_real(
        db_url, "import-list", SEEDS / "standard-2025-09-01.csv", "--date", "2025-09-01", "--type", "standard"
    )
    assert lists[0] == (
        "Imported the standard list dated 2025-09-01 from standard-2025-09-01.csv (csv): "
        "299 entries, 292 rated."
    )
    dry_then_real(
        db_url, "import-list", SEEDS / "rapid-2025-09-01.csv", "--date", "2025-09-01", "--type", "rapid"
    )
    dry_then_real(db_url, "withdraw-list", "2025-09-01", "--type", "rapid", "--reason", "wrong list")
    fix = tmp_path / "fix.csv"
    fix.write_text('fide_id,name,rating\n25900012,"Byrne, Noel",1413\n', encoding="utf-8")
    dry_then_real(db_url, "import-list", fix, "--update", "--reason", "one rating corrected")

    dublin, quads = TRF / "standard-dublin-september-open.trf", TRF / "standard-leinster-club-quads.trf"
    imported = dry_then_real(db_url, "import-trf", dublin, quads, "--type", "standard")
    assert imported[1].startswith("Imported standard-leinster-club-quads.trf as event 2 ")
    deleted = dry_then_real(db_url, "delete-event", "2", "--yes")
    assert deleted[0].startswith("Done: ") and "Leinster Club Quads" in deleted[0]
    again = dry_then_real(
        db_url, "import-trf", TRF / "standard-leinster-club-quads.trf", "--type", "standard"
    )
    assert again[0].startswith("Imported standard-leinster-club-quads.trf as event 3 ")

    added = dry_then_real(db_url, "player", "add", "--name", "Walsh, Test")
    dry_then_real(db_url, "player", "add", "--name", "Walsh, Tést")
    assert added[0].startswith("Registered Walsh, Test (national ")
    twice, kept = national_id(db_url, "Walsh, Test"), national_id(db_url, "Walsh, Tést")
    dry_then_real(db_url, "player", "edit", twice, "--birth-year", "1990", "--reason", "from the form")
    dry_then_real(db_url, "player", "merge", twice, kept, "--reason", "registered twice")
    dry_then_real(db_url, "rules", "add", SEEDS / "national-2025.toml", "--reason", "our own list")

    # The close: the summary (on stderr with --format csv) and every rating change (the CSV) are the
    # real close's; the real close prints the same CSV when asked.
    before = every_row(db_url)
    dry = run(db_url, "close-period", "2025-09", "--dry-run", "--format", "csv")
    assert dry.exit_code == 0, dry.output
    assert every_row(db_url) == before
    real = run(db_url, "close-period", "2025-09", "--format", "csv")
    assert real.exit_code == 0, real.output
    # A dry run adds the integrity screen of the period's events (issue 50: what the officer decides on
    # before the close); the rest is the real close's.
    screened = [
        line for line in dry.stderr.splitlines() if line.startswith(("  integrity screen", "    screen "))
    ]
    assert screened[0].startswith(
        "  integrity screen (a screen, not a verdict): high 0, medium 0, low 0, none 2"
    )
    assert [line for line in dry.stderr.splitlines() if line not in screened] == [
        HEADING,
        *real.stderr.splitlines(),
    ]
    assert dry.stdout == real.stdout
    changes = real.stdout.splitlines()
    assert changes[0] == "period,fide_id,national_id,name,old,new,change"
    # Noel Byrne (1413 after the update) falls below the floor of 1400 (README): old 1413, new unrated.
    assert '2025-09,25900012,10012,"Byrne, Noel",1413,,' in changes
    assert "    below the floor: Byrne, Noel 1413 → unrated" in real.stderr.splitlines()

    dry_then_real(db_url, "reopen", "2025-09", "--reason", "round 3 result was wrong")
    # The correction: round 2, Murphy–Keane was a draw, not 1-0.
    lines = quads.read_text(encoding="utf-8").splitlines()
    lines[9] = lines[9].replace("2.5", "2.0").replace("3 w 1", "3 w =")
    lines[11] = lines[11].replace("1.5", "2.0").replace("1 b 0", "1 b =")
    corrected = tmp_path / "quads-corrected.trf"
    corrected.write_text("\n".join(lines) + "\n", encoding="utf-8")
    replaced = dry_then_real(db_url, "replace-event", "3", corrected, "--reason", "round 2 was a draw")
    assert "  result changed: " in "\n".join(replaced)
    through = dry_then_real(db_url, "close-period", "2025-09", "--through", "2025-10", "--format", "table")
    assert (
        through[0]
        == "Closed standard period 2025-09: published the list dated 2025-10-01 (rules standard-2024-03)."
    )
    assert any(line.startswith("Closed standard period 2025-10: ") for line in through)
