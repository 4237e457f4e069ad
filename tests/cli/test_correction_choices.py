"""A correction is read as its event was imported (issue 25, item 1): the trial's national-ID story.

In the trial, `replace-event` of a file with national IDs read them as FIDE IDs, registered every line
as a new player and the re-close rated nothing; the player whose result was corrected to a win went
down. Here the same steps run on a four-player extract of the real Irish Junior Championships 2011
(tests/fixtures/trf/icu-junior-quad-2011.tab: its first four lines, ICU numbers in the ID column, two
rounds re-paired by hand) and a list of the four with those national IDs: import with
`--id-field national`, close 2011-07, reopen, replace the event with round 1 corrected, close again.

Worked by hand from table 8.1.2, K 20 for all four (adults, 100 games on the list), §8.3.4 rounding
of each player's total change to the nearest whole number:

  Finnegan 1476 – O'Connell 1475: D 1, PD .50 each. O'Kelly 1461 and Ogintas 1461: D 0, PD .50.
  Finnegan 1476 – O'Kelly 1461: D 15, Finnegan PD .52. O'Connell 1475 – Ogintas 1461: D 14, O'Connell
  PD .52.

  As imported: round 1 Finnegan 0–1 O'Connell; round 2 Finnegan 1–0 O'Kelly, O'Connell ½–½ Ogintas.
    Finnegan  (0 − .50) + (1 − .52) = −.02 × 20 = −0.4 → 0    → 1476
    O'Connell (1 − .50) + (.5 − .52) = .48 × 20 = 9.6 → +10   → 1485
  Corrected: round 1 Finnegan 1–0 O'Connell.
    Finnegan  (1 − .50) + (1 − .52) = .98 × 20 = 19.6 → +20   → 1496 (up 20 on the withdrawn list)
    O'Connell (0 − .50) + (.5 − .52) = −.52 × 20 = −10.4 → −10 → 1465 (down 20)
  O'Kelly and Ogintas played the same games with the same results: unchanged (O'Kelly: (.5 − .50) +
  (0 − .48) = −.48 × 20 = −9.6 → −10 → 1451; Ogintas: (.5 − .50) + (.5 − .48) = .02 × 20 = 0.4 → 0).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.cli.test_corrections import ok, run
from tests.cli.test_export_trf_roundtrip import with_old_rules
from tests.cli.test_matching_stories import query

QUAD = Path(__file__).resolve().parent.parent / "fixtures" / "trf" / "icu-junior-quad-2011.tab"
LIST = (
    "national_id,name,federation,sex,birth_year,rating,games,k,games_total\n"
    '4191,"Finnegan, Mark",IRL,M,1967,1476,0,20,100\n'
    '5963,"O\'Connell, Denis",IRL,M,1965,1475,0,20,100\n'
    '4273,"O\'Kelly, David",IRL,M,1956,1461,0,20,100\n'
    '9606,"Ogintas, Aligmantas",IRL,M,1950,1461,0,20,100\n'
)


def corrected(folder: Path) -> Path:
    """The quad with round 1 the other way round: Finnegan beat O'Connell (points 2.0 and 0.5)."""
    lines = QUAD.read_bytes().decode("latin-1").split("\r\n")
    for i, line in enumerate(lines):
        if line.startswith("001    1 "):
            lines[i] = line[:80] + " 2.0" + line[84:98] + "1" + line[99:]
        if line.startswith("001    2 "):
            lines[i] = line[:80] + " 0.5" + line[84:98] + "0" + line[99:]
    path = folder / "quad-corrected.tab"
    path.write_bytes("\r\n".join(lines).encode("latin-1"))
    return path


def by_national_id(db_url: str, date: str, *version: str) -> dict[str, int]:
    rows = ok(db_url, "list", date, *version, "--format", "csv").splitlines()
    header = rows[0].split(",")
    at = {name: header.index(name) for name in ("national_id", "rating")}
    return {r[at["national_id"]]: int(r[at["rating"]]) for r in csv.reader(rows[1:])}


def test_a_national_id_correction_rates_the_corrected_winner_up_and_the_loser_down(
    db_url: str, tmp_path: Path
) -> None:
    with_old_rules(db_url, tmp_path)
    (tmp_path / "list.csv").write_text(LIST, encoding="utf-8")
    ok(db_url, "import-list", tmp_path / "list.csv", "--date", "2011-07-01", "--type", "standard")
    imported = ok(db_url, "import-trf", QUAD, "--id-field", "national")
    assert imported.splitlines()[0] == (
        "Imported icu-junior-quad-2011.tab as event 1 'Irish Junior Quad 2011': standard, period 2011-07; "
        "4 players, 4 pairings (4 played games)."
    )
    ok(db_url, "close-period", "2011-07")
    first = by_national_id(db_url, "2011-08-01")
    assert first == {"4191": 1476, "5963": 1485, "4273": 1451, "9606": 1461}

    ok(db_url, "reopen", "2011-07", "--reason", "round 1 reported the wrong way round")
    replaced = ok(db_url, "replace-event", "1", corrected(tmp_path), "--reason", "round 1")
    assert replaced.splitlines() == [
        "Replaced event 1 'Irish Junior Quad 2011' (period 2011-07) with quad-corrected.tab: the corrected "
        "tournament is event 2; event 1 is kept as its withdrawn version.",
        "  read as event 1 was imported: --id-field national",
        "  result changed: round 1: Finnegan, Mark – O'Connell, Denis 0-1 → 1-0",
        "Players: 4 matched by ID, 0 by name, 0 new, 0 resolved by options.",
    ]
    ok(db_url, "close-period", "2011-07")
    again = by_national_id(db_url, "2011-08-01")
    assert again == {"4191": 1496, "5963": 1465, "4273": 1451, "9606": 1461}
    assert again["4191"] - first["4191"] == 20 and again["5963"] - first["5963"] == -20
    # The withdrawn version is kept as published.
    assert by_national_id(db_url, "2011-08-01", "--version", "1") == first


def test_an_option_given_to_replace_event_replaces_the_stored_choice(db_url: str, tmp_path: Path) -> None:
    """--id-field fide on the correction is the officer's word: the lines are then FIDE IDs, and ICU
    numbers of four digits cannot be FIDE IDs (six to nine) — refused, naming the option."""
    with_old_rules(db_url, tmp_path)
    (tmp_path / "list.csv").write_text(LIST, encoding="utf-8")
    ok(db_url, "import-list", tmp_path / "list.csv", "--date", "2011-07-01", "--type", "standard")
    ok(db_url, "import-trf", QUAD, "--id-field", "national")
    result = run(db_url, "replace-event", "1", corrected(tmp_path), "--id-field", "fide")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert result.stderr.splitlines() == [  # type: ignore[attr-defined]
        "Error: quad-corrected.tab: 4 of the file's 4 IDs cannot be FIDE IDs (a FIDE ID has 6 to 9 digits "
        "and none of these is on an imported list; e.g. line 15 (rank 1) 'Finnegan, Mark' 4191) — if the ID "
        "column holds national IDs, import again with --id-field national; if some IDs are wrong, correct "
        "them in the file; nothing was written"
    ]


def _stored_switches(db_url: str, event_id: int) -> tuple[bool, bool, bool]:
    """(official, type_override, distinct_event) of the event, as the database keeps them."""
    [(official, choices)] = query(
        db_url, "SELECT official, import_choices FROM event WHERE id = :id", id=event_id
    )
    stored = json.loads(choices)
    return bool(official), stored["type_override"], stored["distinct_event"]


def test_the_switches_an_event_was_imported_with_can_be_switched_off_by_replace_event(
    db_url: str, tmp_path: Path
) -> None:
    """--official and --distinct-event are kept with the event and hold for its correction unless given;
    --no-official and --no-distinct-event switch them off (they could only be switched on)."""
    with_old_rules(db_url, tmp_path)
    ok(db_url, "import-trf", QUAD, "--id-field", "national", "--official", "--distinct-event")
    assert _stored_switches(db_url, 1) == (True, False, True)
    fixed = corrected(tmp_path)
    kept = ok(db_url, "replace-event", "1", fixed, "--reason", "round 1", "--dry-run").splitlines()
    assert kept[2] == "  read as event 1 was imported: --official --id-field national --distinct-event"
    off = ok(
        db_url, "replace-event", "1", fixed, "--reason", "round 1", "--no-official", "--no-distinct-event"
    ).splitlines()
    assert off[1] == "  read as event 1 was imported: --id-field national"
    assert _stored_switches(db_url, 2) == (False, False, False)


def test_a_type_override_holds_for_the_correction_until_switched_off(db_url: str, tmp_path: Path) -> None:
    """The quad's record 092 says standard; imported as rapid with --type-override, its correction is read
    with the override (it was refused, asking for --type-override again); --no-type-override switches it
    off, and then the file's type disagrees with the event's: refused, saying what to leave out."""
    with_old_rules(db_url, tmp_path, rating_type="rapid")
    ok(db_url, "import-trf", QUAD, "--id-field", "national", "--type", "rapid", "--type-override")
    fixed = corrected(tmp_path)
    refused = run(db_url, "replace-event", "1", fixed, "--no-type-override")
    assert refused.exit_code == 1  # type: ignore[attr-defined]
    assert refused.stderr == (  # type: ignore[attr-defined]
        "Error: quad-corrected.tab is a standard tournament, event 1 is rapid: delete the event and import "
        "the file with its own type instead (or leave out --no-type-override if the file is wrong)\n"
    )
    kept = ok(db_url, "replace-event", "1", fixed, "--reason", "round 1").splitlines()
    assert kept[1] == "  read as event 1 was imported: --id-field national --type-override"
    assert _stored_switches(db_url, 2) == (False, True, False)


MONTH = Path(__file__).resolve().parent.parent / "fixtures" / "trf" / "web-month-dublin-open.trf"
SEPTEMBER = Path(__file__).resolve().parents[2] / "seeds" / "standard-2025-09-01.csv"


def test_a_match_given_to_replace_event_replaces_the_stored_new_of_that_line(
    db_url: str, tmp_path: Path
) -> None:
    """Issue 46, item 4: the officer chose "a new player" (--new 3) for rank 3, who is Kevin Mac Aodha
    (FIDE 25900230) spelt "Mac Aodha, Caoimhin"; replacing the event with --match 3=25900230 applied the
    stored --new 3 again. A line given a choice is settled by that choice alone."""
    ok(db_url, "import-list", SEPTEMBER, "--date", "2025-09-01", "--type", "standard")
    ok(db_url, "import-trf", MONTH, "--new", "3")
    fixed = tmp_path / "dublin-fixed.trf"
    fixed.write_bytes(MONTH.read_bytes().replace(b"022 Dublin\n", b"022 Dublin City\n"))
    dry = ok(db_url, "replace-event", "1", fixed, "--match", "3=25900230", "--dry-run")
    assert "--new 3" not in dry
    assert "read as event 1 was imported" not in dry  # --new 3 was its only choice
    ok(db_url, "replace-event", "1", fixed, "--match", "3=25900230", "--reason", "rank 3 is Kevin")
    [(player,)] = query(
        db_url,
        "SELECT p.fide_id FROM event_player ep JOIN player p ON p.id = ep.player_id "
        "WHERE ep.event_id = 2 AND ep.start_rank = 3",
    )
    assert player == 25900230
    stored = json.loads(query(db_url, "SELECT import_choices FROM event WHERE id = 2")[0][0])
    assert (stored["new"], stored["match"]) == ([], {"3": "25900230"})
    # The other stored choices of other lines are kept: a --new of rank 4 given now is added to them.
    again = tmp_path / "dublin-fixed-again.trf"
    again.write_bytes(fixed.read_bytes().replace(b"022 Dublin City\n", b"022 Dublin, IRL\n"))
    out = ok(db_url, "replace-event", "2", again, "--new", "4", "--dry-run")
    assert "  read as event 2 was imported: --match 3=25900230" in out.splitlines()
