"""A list import cannot empty the list of its ratings (issue 25, item 3).

The trial's story: a list file without its rating column was imported as the next month's list and
became the list in force, "406 entries, 0 rated" — every player kept, every rating gone; the 5 % guard
counted only the players who left. Here the list is built from a real file, FIDE's TRF example
(tests/fixtures/trf/fide-example1.trf, as in /work/shared/data): its 146 players with a FIDE ID and a
rating. The guard compares the ratings with the list in force: more than 5 % fewer rated players, or a
rated share more than 5 % lower, or nobody rated, is refused with the numbers unless --replace-list.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.formats import read_trf
from tests.snapshot import every_row

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "trf" / "fide-example1.trf"
runner = CliRunner()
ADVICE = (
    "check that the file has its rating column and that it is read as the rating (e.g. the CSV column "
    "`rating`); to load a list with these ratings as it is, use --replace-list"
)


def run(db_url: str, *args: str | Path) -> Any:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def write_list(path: Path, *, rating: bool = True, blank: int = 0, unrated_newcomers: bool = False) -> Path:
    """The example's rated players as a ratingdb CSV list; `blank` of them without their rating, and the
    138 players without a FIDE ID added unrated (national IDs 1…) with `unrated_newcomers`."""
    players = read_trf(EXAMPLE).players
    columns = ["fide_id", "national_id", "name", "birth_year", *(["rating"] if rating else [])]
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(columns)
        rated = [p for p in players if p.fide_id is not None]
        for i, p in enumerate(rated):
            shown = "" if i < blank else p.fide_rating
            out.writerow([p.fide_id, "", p.name, p.birth_year, *([shown] if rating else [])])
        if unrated_newcomers:
            for n, p in enumerate((p for p in players if p.fide_id is None), 1):
                out.writerow(["", n, p.name, p.birth_year, *([""] if rating else [])])
    return path


@pytest.fixture
def july(db_url: str, tmp_path: Path) -> None:
    result = run(db_url, "import-list", write_list(tmp_path / "july.csv"), "--date", "2005-07-01")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "Imported the standard list dated 2005-07-01 from july.csv (csv): 146 entries, 146 rated."
    )


def refused(db_url: str, *args: str | Path) -> str:
    before = every_row(db_url, counters=False)
    result = run(db_url, *args)
    assert result.exit_code == 1, result.output
    assert every_row(db_url, counters=False) == before
    assert result.stdout == ""
    return str(result.stderr)


def test_the_list_without_its_rating_column_is_refused_with_the_numbers(
    db_url: str, july: None, tmp_path: Path
) -> None:
    no_ratings = write_list(tmp_path / "august.csv", rating=False)
    assert refused(db_url, "import-list", no_ratings, "--date", "2005-08-01") == (
        "Error: this list has 146 players, 0 rated (0.0 %); the standard list in force (2005-07-01) has 146, "
        f"146 rated (100.0 %): 146 ratings would vanish (more than 5 %) — {ADVICE}\n"
    )
    # The officer who means it (a list that really has no ratings) says so.
    result = run(db_url, "import-list", no_ratings, "--date", "2005-08-01", "--replace-list")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "Imported the standard list dated 2005-08-01 from august.csv (csv): 146 entries, 0 rated."
    )


def test_more_than_five_percent_fewer_ratings_is_refused_and_up_to_five_percent_is_not(
    db_url: str, july: None, tmp_path: Path
) -> None:
    # 5 % of 146 ratings is 7.3: 8 ratings gone (138 rated) is more, 7 (139 rated) is not.
    eight = write_list(tmp_path / "eight.csv", blank=8)
    assert refused(db_url, "import-list", eight, "--date", "2005-08-01") == (
        "Error: this list has 146 players, 138 rated (94.5 %); the standard list in force (2005-07-01) has "
        f"146, 146 rated (100.0 %): 8 ratings would vanish (more than 5 %) — {ADVICE}\n"
    )
    seven = write_list(tmp_path / "seven.csv", blank=7)
    result = run(db_url, "import-list", seven, "--date", "2005-08-01")
    assert result.exit_code == 0, result.output
    assert "146 entries, 139 rated." in result.stdout


def test_a_list_whose_rated_share_falls_is_refused_though_no_rating_is_lost(
    db_url: str, july: None, tmp_path: Path
) -> None:
    # All 146 ratings kept, but 138 unrated players added: 146 of 284 rated is 51.4 %, against 100 %.
    merged = write_list(tmp_path / "merged.csv", unrated_newcomers=True)
    assert refused(db_url, "import-list", merged, "--date", "2005-08-01") == (
        "Error: this list has 284 players, 146 rated (51.4 %); the standard list in force (2005-07-01) has "
        f"146, 146 rated (100.0 %): the rated share would fall (more than 5 %) — {ADVICE}\n"
    )


def test_a_first_list_that_rates_nobody_is_refused(db_url: str, tmp_path: Path) -> None:
    no_ratings = write_list(tmp_path / "first.csv", rating=False)
    assert refused(db_url, "import-list", no_ratings, "--date", "2005-07-01") == (
        f"Error: this list has 146 players, 0 rated (0.0 %): every player would be unrated — {ADVICE}\n"
    )
