"""`export-trf` writes everything the import read: every sample file re-imports to an equal event.

Every real sample in /work/shared/data/trf-samples (copied to tests/fixtures/trf) and every valid TRF
in tests/fixtures is imported into one database, exported with `export-trf`, and the exported files are
imported into a second, empty database: each event must come back equal field by field — header records
(102 chief arbiter, 112 deputies, 092 type, 132 round dates …) verbatim, players with their rank column
and national rating, every game with its round date. Both engines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.formats import read_trf
from ratingdb.schema.models import Event, EventPlayer, EventRecord, Game, Player
from tests.conftest import ENGINES, new_database_url

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHARED = Path("/work/shared/data/trf-samples")


def _samples() -> list[Path]:
    """Every sample file once (the fixtures hold copies of some shared samples: same bytes, imported once)."""
    found = sorted(
        [p for p in FIXTURES.rglob("*") if p.suffix in (".trf", ".tab") and not p.name.startswith("bad_")]
        + ([p for p in SHARED.iterdir() if p.is_file()] if SHARED.is_dir() else []),
        key=lambda p: (p.name, str(p)),
    )
    by_content = {p.read_bytes(): p for p in reversed(found)}
    return sorted(by_content.values(), key=lambda p: (p.name, str(p)))


SAMPLES = _samples()
# The Irish files carry ICU numbers in the FIDE ID column (1 to 5 digits, which no FIDE ID has): they
# are imported with --id-field national, or refused. The Junior Championships and the Bunratty Minor
# (imported first) share three players whose sex the two give differently: listed as register
# differences, not refused. The Bunratty files write Irish club codes in the federation column (the
# Masters beside ENG, FIN and BRA players): read as clubs, and as mixed.
# The made-up fixtures club_autumn.trf and trf26_national.trf give FIDE IDs 300001, 300002 and 300004 to
# different people (other names, birth years, federations): those lines of the second are new players.
# The national IDs the register gives players without one start above the ICU's own numbers (which the
# Irish files carry), so that a number made up for the FIDE example is not a Junior's (issue 47).
MADE_UP = ("--national-id-start", "900001")
NATIONAL = ("--id-field", "national")
CONFIRMED = {
    "icu-armstrong_2012_with_bom.tab": NATIONAL,
    "icu-bunratty_masters_2011.tab": ("--federation-column", "mixed"),
    "icu-bunratty_minor_2011.tab": (*NATIONAL, "--federation-column", "clubs"),
    "icu-irish_junior_champs_2011.tab": NATIONAL,
    "icu-junior-quad-2011.tab": NATIONAL,
    "trf26_national.trf": ("--new", "1", "--new", "2", "--new", "4"),
}

runner = CliRunner()


def cli(url: str, *args: str) -> str:
    result = runner.invoke(app, ["--db", url, *args])
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


SEEDS = Path(__file__).parents[2] / "seeds"


def with_old_rules(url: str, folder: Path, rating_type: str = "standard") -> str:
    """The samples are from 2005 and 2011, before FIDE's rule sets: import-trf refuses an event no rule
    set covers, so a rule set of `rating_type` for those years is stored first (the national seed's
    numbers)."""
    text = (SEEDS / "national-2025.toml").read_text(encoding="utf-8")
    name = "history-2000" if rating_type == "standard" else f"history-2000-{rating_type}"
    text = text.replace('name = "national-2025"', f'name = "{name}"')
    text = text.replace('rating_type = "national"', f'rating_type = "{rating_type}"')
    text = text.replace(
        'effective_from = "2020-01"', 'effective_from = "2000-01"\neffective_until = "2021-12"'
    )
    path = folder / "history-2000.toml"
    path.write_text(text, encoding="utf-8")
    cli(url, "rules", "add", str(path))
    return url


@pytest.fixture(params=ENGINES)
def two_databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    first = new_database_url(request.param, request, tmp_path / "a")
    second = new_database_url(request.param, request, tmp_path / "b")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    yield (
        with_old_rules(next(first), tmp_path / "a"),
        with_old_rules(next(second), tmp_path / "b"),
    )
    for generator in (first, second):
        next(generator, None)


def event_state(url: str, event_id: int) -> dict[str, Any]:
    """The event as stored: its fields, header records, player lines and games (players by rank)."""
    engine = db.make_engine(url)
    try:
        with db.transaction(engine) as s:
            e = s.get(Event, event_id)
            assert e is not None
            fields = (
                e.name, e.city, e.federation, e.start_date, e.end_date, e.rating_type, e.official,
                e.time_control, e.rounds, e.period, e.natural_period,
            )  # fmt: skip
            records = s.scalars(
                select(EventRecord.text).where(EventRecord.event_id == event_id).order_by(EventRecord.seq)
            ).all()
            players = s.execute(
                select(
                    EventPlayer.start_rank,
                    Player.fide_id,
                    Player.national_id,
                    Player.name,
                    Player.federation,
                    Player.sex,
                    Player.title,
                    Player.birth_year,
                    EventPlayer.file_rating,
                    EventPlayer.points_x10,
                    EventPlayer.final_rank,
                    EventPlayer.national_rating,
                    EventPlayer.national_federation,
                )  # fmt: skip
                .join(Player, Player.id == EventPlayer.player_id)
                .where(EventPlayer.event_id == event_id)
                .order_by(EventPlayer.start_rank)
            ).all()
            rank = {pid: r for pid, r in s.execute(
                select(EventPlayer.player_id, EventPlayer.start_rank).where(EventPlayer.event_id == event_id)
            )}  # fmt: skip
            games = sorted(
                (
                    g.round,
                    g.date,
                    rank[g.white_id],
                    rank.get(g.black_id),
                    g.white_result,
                    g.black_result,
                    g.rated,
                    g.colour_known,
                )  # fmt: skip
                for g in s.scalars(select(Game).where(Game.event_id == event_id))
            )
    finally:
        engine.dispose()
    return {"event": fields, "records": list(records), "players": [tuple(p) for p in players], "games": games}


def test_there_are_samples_to_round_trip() -> None:
    names = {p.name for p in SAMPLES}
    assert {"fide-example1.trf", "icu-bunratty_masters_2011.tab", "trf26_national.trf"} <= names


def test_every_sample_exports_to_a_file_that_reimports_to_an_equal_event(
    two_databases: tuple[str, str], tmp_path: Path
) -> None:
    first, second = two_databases
    exported: list[Path] = []
    # --distinct-event: the Bunratty Masters and Minor are two sections with the same name and start date.
    for number, sample in enumerate(SAMPLES, start=1):
        assert f"as event {number} " in cli(
            first,
            "import-trf",
            str(sample),
            "--type",
            "standard",
            "--distinct-event",
            *MADE_UP,
            *CONFIRMED.get(sample.name, ()),
        )
        out = tmp_path / f"{number:02d}-{sample.stem}.trf"
        assert cli(first, "export-trf", str(number), "-o", str(out)) == f"Wrote event {number} to {out}.\n"
        exported.append(out)
    # The same file in two encodings (icu-latin-1.tab, icu-utf-8.tab) exports to the same text, which
    # is one event: it is imported once into the second database and compared with both originals.
    reimported: dict[str, int] = {}
    for out in exported:
        text = out.read_text(encoding="utf-8")
        if text not in reimported:
            reimported[text] = len(reimported) + 1
            imported = cli(second, "import-trf", str(out), "--type", "standard", "--distinct-event")
            assert f"as event {reimported[text]} " in imported
    for number, (sample, out) in enumerate(zip(SAMPLES, exported, strict=True), start=1):
        original = event_state(first, number)
        again = event_state(second, reimported[out.read_text(encoding="utf-8")])
        # A player the file gave no ID gets a national ID at import (README: Players), and the export
        # carries it on a national-rating line, which names a federation the original line did not have.
        given = {p[0] for p in original["players"] if p[1] is None and p[-1] is None}
        again["players"] = [p[:-1] + (None,) if p[0] in given else p for p in again["players"]]
        assert again == original, sample.name
        # Every header record of the sample file, in its order, verbatim.
        assert original["records"] == list(read_trf(sample).header_records), sample.name


def test_the_fide_example_keeps_its_arbiters_type_and_ranks(db_url: str, tmp_path: Path) -> None:
    with_old_rules(db_url, tmp_path)
    cli(db_url, "import-trf", str(FIXTURES / "trf" / "fide-example1.trf"), "--type", "standard")
    lines = cli(db_url, "export-trf", "1").splitlines()
    assert lines[8:11] == [
        "092 Individual: Swiss-System (Standard)",
        "102 Ralph Blum (SV Griesheim)",
        "112 NSR Thomas Rondio, NSR Wolfgang Hettler",
    ]
    # Vasquez: starting rank 1, 6.0 points, rank 4 in the final standings (columns 81–84, 86–89).
    vasquez = next(line for line in lines if line.startswith("001    1 "))
    assert (vasquez[80:84], vasquez[85:89]) == (" 6.0", "   4")
