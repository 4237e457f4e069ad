"""Player identity you can trust (issue 24): every file line goes to the right person, or is refused with
the choice — each story of the issue reproduced from the real Irish files (national IDs in the ID column).

The register is made by importing the Irish Junior Championships 2011 (34 players, ICU numbers in the ID
column, hence --id-field national). Then a file made from that real file by one stated edit (a name, an
ID, a line added) is imported: refused with the exact sentence, the database exactly as it was (every
table compared), and the option the sentence names resolves it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.cli.test_export_trf_roundtrip import with_old_rules

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trf"
JUNIOR = FIXTURES / "icu-irish_junior_champs_2011.tab"  # a copy of /work/shared/data/trf-samples'
MINOR = FIXTURES / "icu-bunratty_minor_2011.tab"
runner = CliRunner()


def run(db_url: str, *args: str | Path) -> Any:
    return runner.invoke(app, ["--db", db_url, *map(str, args)])


def ok(db_url: str, *args: str | Path) -> str:
    result = run(db_url, *args)
    assert result.exit_code == 0, result.output
    return str(result.stdout)


def query(db_url: str, sql: str, **params: object) -> list[tuple[Any, ...]]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text(sql), params)]
    engine.dispose()
    return rows


def snapshot(db_url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (the migrations' version table aside): "byte for byte as it was"."""
    engine = create_engine(db_url)
    tables = [t for t in inspect(engine).get_table_names() if t != "alembic_version"]
    engine.dispose()
    return {t: sorted(query(db_url, f"SELECT * FROM {t}"), key=repr) for t in tables}


def refused(db_url: str, *args: str | Path) -> str:
    """Run a command that must be refused: exit 1, nothing written; its stderr."""
    before = snapshot(db_url)
    result = run(db_url, *args)
    assert result.exit_code == 1, result.output
    assert snapshot(db_url) == before
    return str(result.stderr)


def edited(
    folder: Path, name: str, edits: dict[int, tuple[str | None, str | None]], *, add: str = ""
) -> Path:
    """The Junior Championships as another tournament (record 012 `name`) with the lines of `edits`
    (rank → new name or None, new ID or None) changed, and an extra player line `add`."""
    lines = JUNIOR.read_bytes().decode("latin-1").split("\r\n")
    out = []
    for line in lines:
        if line.startswith("012 "):
            line = f"012 {name}"
        if line.startswith("001 ") and int(line[4:8]) in edits:
            new_name, new_id = edits[int(line[4:8])]
            if new_name is not None:
                line = line[:14] + f"{new_name:<33}" + line[47:]
            if new_id is not None:
                line = line[:57] + f"{new_id:>11}" + line[68:]
        out.append(line)
    if add:
        out.insert(max(i for i, line in enumerate(out) if line.startswith("001 ")) + 1, add)
    path = folder / f"{name.lower().replace(' ', '_')}.tab"
    path.write_bytes("\r\n".join(out).encode("latin-1"))
    return path


def player_of(db_url: str, event: int, rank: int) -> tuple[Any, ...]:
    return query(
        db_url,
        "SELECT p.national_id, p.name FROM event_player ep JOIN player p ON p.id = ep.player_id "
        "WHERE ep.event_id = :e AND ep.start_rank = :r",
        e=event,
        r=rank,
    )[0]


@pytest.fixture
def register(db_url: str, tmp_path: Path) -> str:
    with_old_rules(db_url, tmp_path)
    out = ok(db_url, "import-trf", JUNIOR, "--type", "standard", "--id-field", "national")
    assert "Players: 0 matched by ID, 0 by name, 34 new, 0 resolved by options." in out
    return db_url


def test_a_wrong_name_on_a_registered_id_is_refused_with_the_candidate_and_match_or_new_resolve_it(
    register: str, tmp_path: Path
) -> None:
    # Rank 1 of the real file is Finnegan, Mark (ICU 4191); the edited file calls that line another man.
    smith = edited(tmp_path, "Summer Open", {1: ("Smith, David J.", None)})
    args = ("import-trf", smith, "--type", "standard", "--id-field", "national")
    assert refused(register, *args) == (
        "Error: summer_open.tab line 15 (rank 1) 'Smith, David J.' national 4191: that ID is registered to "
        "Finnegan, Mark (national 4191, born 1967, IRL), but the names do not match (score 23, below 90) — "
        "say which: --match 1=4191 (this line is that player; or =ID of another player), --new 1 (a new "
        "player, registered without the ID), --accept-name 1 (the same player, another spelling: kept as an "
        "alias); nothing was written\n"
    )
    out = ok(register, *args, "--new", "1")
    assert "Players: 33 matched by ID, 0 by name, 0 new, 1 resolved by options." in out
    assert "  Smith, David J. (national 12859, born 1967, IRL; national ID assigned; not national 4191, " \
        "another player's or line's)" in out  # fmt: skip
    assert player_of(register, 2, 1) == ("12859", "Smith, David J.")
    # The same file as the officer says it is: line 1 is Finnegan after all.
    again = edited(tmp_path, "Autumn Open", {1: ("Smith, David J.", None)})
    ok(register, "import-trf", again, "--type", "standard", "--id-field", "national", "--match", "1=4191")
    assert player_of(register, 3, 1) == ("4191", "Finnegan, Mark")


def test_a_typo_in_an_id_is_refused_naming_the_registered_player(register: str, tmp_path: Path) -> None:
    # O'Connell, Denis is ICU 5963; the edited file swaps two digits (5936, nobody's).
    typo = edited(tmp_path, "Summer Open", {2: (None, "5936")})
    args = ("import-trf", typo, "--type", "standard", "--id-field", "national")
    assert refused(register, *args) == (
        "Error: summer_open.tab line 16 (rank 2) 'O'Connell, Denis' national 5936: no player has that ID, "
        "but O'Connell, Denis (national 5963, born 1965, IRL) has this name (birth year and federation "
        "agreeing) — a typo in the ID? --match 2=5963 (this line is O'Connell, Denis) or --new 2 (a new "
        "player, registered with national 5936); nothing was written\n"
    )
    ok(register, *args, "--match", "2=5963")
    assert player_of(register, 2, 2) == ("5963", "O'Connell, Denis")


def test_a_forgotten_id_field_is_refused_suggesting_the_right_one_with_the_count(register: str) -> None:
    # The Bunratty Minor carries ICU numbers too (1 to 5 digits: no FIDE ID has fewer than 6).
    assert refused(register, "import-trf", MINOR, "--type", "standard") == (
        "Error: icu-bunratty_minor_2011.tab: 85 of the file's 85 IDs cannot be FIDE IDs (a FIDE ID has 6 "
        "to 9 "
        "digits and none of these is on an imported list; e.g. line 14 (rank 1) 'O'Brien, Pat' 12057) — if "
        "the ID column holds national IDs, import again with --id-field national; if some IDs are wrong, "
        "correct them in the file; nothing was written\n"
    )
    # With --id-field national, three of its players played the Junior Championships: their IDs and names
    # agree, so they are those players; the Minor's own quirk (M for both women) is a register
    # difference, listed, and the register keeps its values; its club codes are clubs (issue 47).
    args = (
        "import-trf",
        MINOR,
        "--type",
        "standard",
        "--id-field",
        "national",
        "--federation-column",
        "clubs",
    )
    out = ok(register, *args)
    assert "Players: 3 matched by ID, 0 by name, 100 new, 0 resolved by options." in out
    assert (
        "  icu-bunratty_minor_2011.tab line 43 (rank 30) 'Ni Mhuireagain, Eibhia' is Ní Mhuireagáin, Eibhia "
        "(national 12368, born 2000, IRL): sex M in the file, F registered — `ratingdb player edit 12368 "
        "--sex "
        "M --reason TEXT` takes the file's"
    ) in out.splitlines()
    assert query(
        register,
        "SELECT national_id, sex, federation FROM player WHERE national_id IN ('12275', '12368') "
        "ORDER BY national_id",
    ) == [("12275", "M", "IRL"), ("12368", "F", "IRL")]


def test_one_player_on_two_lines_is_refused_and_drop_or_match_resolves_it(
    register: str, tmp_path: Path
) -> None:
    # The file names Finnegan twice: a second line, another spelling, the same ICU number, no games.
    line = "001   35 m    Finnegan, M.                      1476 IRL        4191 1967/09/12  0.0   35"
    twice = edited(tmp_path, "Summer Open", {}, add=line)
    args = ("import-trf", twice, "--type", "standard", "--id-field", "national")
    assert refused(register, *args) == (
        "Error: summer_open.tab line 49 (rank 35) 'Finnegan, M.' national 4191: the same ID as line 15 (rank "
        "1) 'Finnegan, Mark' — one person, two lines: --drop 35 (rank 35 has no games); or, if rank 35 is "
        "someone else, --match 35=ID or --new 35; nothing was written\n"
    )
    assert refused(register, *args, "--drop", "1") == (
        "Error: --drop 1: summer_open.tab line 15 (rank 1) 'Finnegan, Mark' has games (rounds 1, 2, 3, 4, "
        "5): a line with games is a player — name it with --match 1=ID or --new 1\n"
    )
    out = ok(register, *args, "--drop", "35")
    assert "Players: 34 matched by ID, 0 by name, 0 new, 1 resolved by options (1 line dropped)." in out
    assert query(register, "SELECT COUNT(*) FROM event_player WHERE event_id = 2") == [(34,)]


def test_a_line_with_games_sharing_an_id_is_someone_else_and_new_resolves_it(db_url: str) -> None:
    # Horvat (rank 3) carries Kowalski's FIDE ID and has games: not a duplicate line, another person.
    path = FIXTURES / "bad_duplicate_fide_id.trf"
    args = ("import-trf", path, "--type", "standard")
    assert "--drop is not possible: every one of these lines has games" in refused(db_url, *args)
    assert refused(db_url, *args, "--drop", "3").startswith(
        "Error: --drop 3: bad_duplicate_fide_id.trf line 11"
    )
    out = ok(db_url, *args, "--new", "3")
    assert "  Horvat, Ivan (national 1, born 1980, IRL; national ID assigned; not FIDE 200001, another " \
        "player's or line's)" in out  # fmt: skip


def test_accept_name_records_an_alias_that_the_next_file_matches_without_options(
    register: str, tmp_path: Path
) -> None:
    # Mullins, Niki (ICU 3575) written "Mullins, Nicola": 77, below the threshold.
    nicola = edited(tmp_path, "Summer Open", {8: ("Mullins, Nicola", None)})
    args = ("import-trf", nicola, "--type", "standard", "--id-field", "national")
    assert "score 77, below 90" in refused(register, *args)
    out = ok(register, *args, "--accept-name", "8")
    assert (
        "  summer_open.tab line 22 (rank 8) 'Mullins, Nicola': --accept-name 8 (name 77; alias recorded)"
        in out
    )
    assert "  alias recorded: 'Mullins, Nicola' for Mullins, Niki (national 3575, born 1977, IRL)" in out
    assert query(
        register, "SELECT a.name, l.action FROM player_alias a JOIN audit_log l ON l.id = a.created_by"
    ) == [("Mullins, Nicola", "import-trf")]
    later = edited(tmp_path, "Winter Open", {8: ("Mullins, Nicola", None)})
    out = ok(register, "import-trf", later, "--type", "standard", "--id-field", "national")
    assert "Players: 34 matched by ID, 0 by name, 0 new, 0 resolved by options." in out
    assert (
        "  winter_open.tab line 22 (rank 8) 'Mullins, Nicola': national ID, name 100 "
        "(alias 'Mullins, Nicola')" in out
    )


def test_accents_and_name_order_are_not_a_mismatch(register: str, tmp_path: Path) -> None:
    plain = edited(tmp_path, "Summer Open", {27: ("O Muireagain, Colm", None), 1: ("Mark Finnegan", None)})
    out = ok(register, "import-trf", plain, "--type", "standard", "--id-field", "national")
    assert "Players: 34 matched by ID, 0 by name, 0 new, 0 resolved by options." in out
    assert player_of(register, 2, 27) == ("12275", "Ó Muireagáin, Colm")


def test_an_alias_added_by_hand_is_listed_audited_and_used_by_matching(register: str, tmp_path: Path) -> None:
    # Kelly, Martin (ICU 704) plays as "Kelly, Mairtin" in an Irish-language event: 80, below 90.
    assert ok(
        register, "player", "edit", "704", "--add-alias", "Kelly, Máirtín", "--reason", "Irish form"
    ) == ("Player 11 Kelly, Martin: alias 'Kelly, Máirtín' added.\n")
    shown = ok(register, "player", "show", "704")
    assert "Other spellings (aliases)" in shown and "Kelly, Máirtín" in shown and "Irish form" in shown
    again = run(register, "player", "edit", "704", "--add-alias", "kelly mairtin", "--reason", "x")
    assert again.stderr == (
        "Error: 'kelly mairtin' is already Kelly, Martin's name or an alias of it (accents, case and word "
        "order aside): nothing to add\n"
    )
    irish = edited(tmp_path, "Comortas", {11: ("Kelly, Mairtin", None)})
    out = ok(register, "import-trf", irish, "--type", "standard", "--id-field", "national")
    assert "Players: 34 matched by ID, 0 by name, 0 new, 0 resolved by options." in out


def test_a_merge_keeps_both_names_as_aliases(register: str, tmp_path: Path) -> None:
    # A duplicate registration of Foran, Barry (ICU 5342) under another number and spelling.
    ok(
        register,
        "player",
        "add",
        "--name",
        "Foran, Barry J.",
        "--national-id",
        "99001",
        "--birth-year",
        "1952",
    )
    ok(register, "player", "merge", "99001", "5342", "--reason", "one person")
    assert query(register, "SELECT a.name FROM player_alias a JOIN player p ON p.id = a.player_id "
                           "WHERE p.national_id = '5342'") == [("Foran, Barry J.",)]  # fmt: skip
    # A file that uses the duplicate's spelling without an ID is matched to the player kept, by the alias.
    alias_only = edited(tmp_path, "Summer Open", {6: ("Foran, Barry J.", "")})
    out = ok(register, "import-trf", alias_only, "--type", "standard", "--id-field", "national")
    assert "Players: 33 matched by ID, 1 by name, 0 new, 0 resolved by options." in out
    assert player_of(register, 2, 6) == ("5342", "Foran, Barry")


def first_fide_list(folder: Path, *, namesake: bool) -> Path:
    """A federation's first FIDE list over the register the Junior Championships made: each of the real
    file's 34 players as FIDE lists them (name, federation, sex, birth year as the file gives them) with a
    FIDE ID the register does not know (2500000 + 13 × rank); with `namesake`, one line more (line 36):
    a second "O'Connell, Denis", born 1965, IRL, under FIDE ID 2599999."""
    import datetime as dt

    from ratingdb.formats import ListRating, ListRow
    from ratingdb.formats.lists import write_fide_txt
    from ratingdb.formats.trf import read_trf

    event = read_trf(JUNIOR)
    rows = [
        ListRow(
            p.rank + 1,
            2_500_000 + 13 * p.rank,
            None,
            p.name,
            p.federation,
            p.sex,
            None,
            p.birth_year,  # type: ignore[arg-type]
            None,
            {"standard": ListRating(p.fide_rating or None, 0, 20)},
        )  # fmt: skip
        for p in event.players
    ]
    if namesake:
        rows.append(ListRow(36, 2_599_999, None, "O'Connell, Denis", "IRL", "M", None, 1965, None,
                            {"standard": ListRating(1500, 0, 20)}))  # fmt: skip
    path = folder / "fide-nov25.txt"
    with path.open("w", encoding="utf-8") as out:
        write_fide_txt(rows, out, "standard", dt.date(2025, 11, 1))
    return path


def test_a_first_fide_list_over_national_registrations_is_matched_in_bulk_when_certain(
    register: str, tmp_path: Path
) -> None:
    # The register: 34 players by ICU number, no FIDE IDs. 33 have a birth year in the file (Hall, Shane,
    # rank 30, has none). Each of those 33 rows has a FIDE ID nobody has and exactly one registered player
    # of its name, birth year and federation: 33 "typo in the ID?" refusals. With the namesake, rank 2's
    # player (O'Connell, Denis, ICU 5963) is claimed by two rows: 34 refusals, 32 certain.
    fide = first_fide_list(tmp_path, namesake=True)
    args = ("import-list", fide, "--date", "2025-11-01")
    err = refused(register, *args)
    assert err.startswith("Error: 34 player lines need a decision; nothing was written:\n")
    assert (
        "  fide-nov25.txt line 2 'Finnegan, Mark' FIDE 2500013: no player has that ID, but Finnegan, Mark "
        "(national 4191, born 1967, IRL) has this name and birth year and federation and is not on this "
        "list — a typo in the ID? --match 2=4191 (this line is Finnegan, Mark) or --new 2 (a new player, "
        "registered with the line's ID)\n"
    ) in err
    assert "  … and 14 more lines like these\n" in err  # 20 shown of 34
    assert err.endswith(
        "  32 of these rows are certain: the one registered player of the row's name, birth year and "
        "federation, without an ID of the row's kind and named by no other row — --match-certain gives "
        "each its player (the row's ID recorded for them) and still refuses the others\n"
    )
    # --match-certain takes the 32 and still refuses the two rows claiming O'Connell.
    err = refused(register, *args, "--match-certain")
    assert err.startswith("Error: 2 player lines need a decision; nothing was written:\n")
    assert "fide-nov25.txt line 3 'O'Connell, Denis' FIDE 2500026: no player has that ID" in err
    assert "fide-nov25.txt line 36 'O'Connell, Denis' FIDE 2599999: no player has that ID" in err
    # The officer says which is which: line 3 is the registered man, line 36 a new player.
    out = ok(register, *args, "--match-certain", "--match", "3=5963", "--new", "36")
    # 34 rows and the namesake; 31 of the file's players have a rating, and the namesake.
    assert "from fide-nov25.txt (fide-txt): 35 entries, 32 rated.\n" in out
    assert (
        "Players: 2 new, 32 updated.\n" in out
    )  # Hall (no birth year) and the namesake; the 32 given FIDE IDs
    assert "Matched by name, birth year and federation (--match-certain): 32 rows, the row's ID recorded " \
        "for the player:\n" in out  # fmt: skip
    assert "  line 2: Finnegan, Mark (national 4191, born 1967, IRL) — FIDE ID 2500013 recorded\n" in out
    assert (
        "  line 28: Ó Muireagáin, Colm (national 12275, born 1966, IRL) — FIDE ID 2500351 recorded\n" in out
    )
    assert query(register, "SELECT name, fide_id FROM player WHERE national_id = '4191'") == [
        ("Finnegan, Mark", 2500013)
    ]
    # --match keeps the player's IDs (the row's may be the typo): O'Connell's FIDE ID is not taken from it.
    assert query(register, "SELECT fide_id FROM player WHERE national_id = '5963'") == [(None,)]
    assert query(register, "SELECT COUNT(*) FROM player") == [(36,)]
    # Hall, Shane (ICU 3312, no birth year) was registered again by his FIDE row, and the import says so.
    assert (
        "Registered new beside a registered player of the same name and federation (a birth year unknown on "
        "one side) — if one person, `ratingdb player merge DUPLICATE KEEP --reason TEXT` joins them:\n"
        "  line 31 'Hall, Shane' FIDE 2500390: Hall, Shane (national 3312, IRL)\n"
    ) in out
    # `player duplicates`
    # proposes the pair (same name, neither with a birth year), keeping the one on the list.
    assert "ratingdb player merge 3312 2500390" in ok(register, "player", "duplicates", "--format", "csv")


def test_match_certain_refuses_a_row_whose_player_has_another_id_of_its_kind(
    register: str, tmp_path: Path
) -> None:
    # Finnegan, Mark is given FIDE ID 2500000 by hand first: the list's 2500013 for him is then a typo or
    # another man, never certain.
    ok(register, "player", "edit", "4191", "--fide-id", "2500000", "--reason", "FIDE ID from the officer")
    fide = first_fide_list(tmp_path, namesake=False)
    err = refused(register, "import-list", fide, "--date", "2025-11-01", "--match-certain")
    assert err.startswith(
        "Error: fide-nov25.txt line 2 'Finnegan, Mark' FIDE 2500013: no player has that ID, but Finnegan, "
        "Mark (FIDE 2500000, national 4191, born 1967, IRL) has this name"
    )
    update = run(register, "import-list", fide, "--update", "--reason", "FIDE IDs", "--match-certain")
    assert update.exit_code == 1
    assert update.stderr == (
        "Error: --match-certain is for a new list (a federation's first FIDE list), not --update: name the "
        "rows with --match LINE=ID\n"
    )
