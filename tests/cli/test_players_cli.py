"""The player register through the CLI on real databases: matching without IDs, national IDs, versioned
details (published lists never change), edit, merge, find, duplicates.

Tournament files are written with ratingdb's own TRF16 writer from small tables below; every expected
figure is worked by hand in the test that uses it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.formats import TrfEvent, TrfGame, TrfPlayer, write_trf16

runner = CliRunner()

# The list in force for period 2025-10: six adults, K 20, established.
OCT_LIST = (
    "fide_id,name,federation,sex,birth_year,rating,k\n"
    '300001,"Adams, Ann",IRL,F,1980,2000,20\n'
    '300002,"Brady, Bob",IRL,M,1980,1900,20\n'
    '300003,"Casey, Cian",IRL,M,1980,1800,20\n'
    '300004,"Doyle, Dan",IRL,M,1980,1700,20\n'
    '300005,"Egan, Eve",IRL,F,1980,1600,20\n'
    '300006,"Flynn, Finn",IRL,M,1980,1500,20\n'
)
RATING = {300001: 2000, 300002: 1900, 300003: 1800, 300004: 1700, 300005: 1600, 300006: 1500}
OPPOSITE = {"1": "0", "0": "1", "=": "="}

Line = tuple[str, int | None, int | None, str | None]  # name, ID column, birth year, federation


def run(db_url: str, *args: str | Path) -> object:
    # The files written here have no TRF26 time-control record: say they are standard events.
    extra = ["--type", "standard"] if args and args[0] == "import-trf" else []
    return runner.invoke(app, ["--db", db_url, *map(str, args), *extra])


def ok(db_url: str, *args: str | Path) -> str:
    result = run(db_url, *args)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    return result.stdout  # type: ignore[attr-defined]


def trf(
    folder: Path, name: str, start: dt.date, players: list[Line], games: list[tuple[int, int, str]]
) -> Path:
    """A round-robin-ish file: players by starting rank 1…n, games (white rank, black rank, white's result)
    one per round."""
    rows = tuple(
        TrfPlayer(
            rank=rank,
            line=0,
            name=player_name,
            sex=None,
            title=None,
            fide_rating=RATING.get(ident or 0),
            federation=fed,
            fide_id=ident,
            national_id=None,
            national_rating=None,
            birth_year=born,
            points=None,
        )
        for rank, (player_name, ident, born, fed) in enumerate(players, 1)
    )
    pairings = tuple(
        TrfGame(
            round=rnd,
            date=start + dt.timedelta(days=rnd - 1),
            white=white,
            black=black,
            white_result=result,
            black_result=OPPOSITE[result],
            rated=True,
        )
        for rnd, (white, black, result) in enumerate(games, 1)
    )
    event = TrfEvent(
        source_name=f"{name}.trf",
        sha256=hashlib.sha256(name.encode()).hexdigest(),
        version=16,
        name=name,
        city=None,
        federation="IRL",
        start_date=start,
        end_date=start + dt.timedelta(days=len(games) - 1),
        time_control=None,
        encoded_time_control=None,
        rating_type="standard",
        rounds=len(games),
        round_dates=tuple(start + dt.timedelta(days=r) for r in range(len(games))),
        players=rows,
        games=pairings,
    )
    path = folder / f"{name.replace(' ', '_').lower()}.trf"
    path.write_text(write_trf16(event), encoding="utf-8")
    return path


def query(db_url: str, sql: str) -> list[tuple[object, ...]]:
    engine = create_engine(db_url)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text(sql)).all()]
    engine.dispose()
    return rows


@pytest.fixture
def oct_list(tmp_path: Path) -> Path:
    path = tmp_path / "oct.csv"
    path.write_text(OCT_LIST, encoding="utf-8")
    return path


def junior_files(folder: Path) -> tuple[Path, Path, Path]:
    """A junior without an ID, spelt three ways, in two October files and one November file."""
    autumn_a = trf(
        folder,
        "Autumn A",
        dt.date(2025, 10, 3),
        [("Adams, Ann", 300001, 1980, "IRL"), ("Brady, Bob", 300002, 1980, "IRL"),
         ("Byrne, Aoife", None, 2012, "IRL")],
        [(3, 1, "1"), (2, 3, "1"), (1, 2, "=")],
    )  # fmt: skip
    autumn_b = trf(
        folder,
        "Autumn B",
        dt.date(2025, 10, 17),
        [("Casey, Cian", 300003, 1980, "IRL"), ("Doyle, Dan", 300004, 1980, "IRL"),
         ("Aoife Byrne", None, 2012, "IRL")],
        [(3, 1, "="), (2, 3, "1"), (1, 2, "=")],
    )  # fmt: skip
    winter = trf(
        folder,
        "Winter",
        dt.date(2025, 11, 7),
        [("Egan, Eve", 300005, 1980, "IRL"), ("Flynn, Finn", 300006, 1980, "IRL"),
         ("BYRNE, Aoife", None, 2012, None)],
        [(3, 1, "1"), (2, 3, "="), (1, 2, "1")],
    )  # fmt: skip
    return autumn_a, autumn_b, winter


def test_a_junior_without_an_id_in_three_files_over_two_periods_is_one_player_with_a_first_rating(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    autumn_a, autumn_b, winter = junior_files(tmp_path)
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    out = ok(db_url, "import-trf", autumn_a, autumn_b)
    assert out.splitlines()[2:] == [
        "Players: 4 matched by ID, 1 by name, 1 new, 0 resolved by options.",
        "  autumn_b.trf line 10 (rank 3) 'Aoife Byrne': no ID; name (birth year and federation agreeing) "
        "of Byrne, Aoife (national 1, born 2012, IRL)",
        "Registered 1 new player:",
        "  Byrne, Aoife (national 1, born 2012, IRL; national ID assigned)",
    ]
    ok(db_url, "close-period", "2025-10")
    # Four pooled games in October: too few for a rating (§8.2.2 needs five).
    out = ok(db_url, "import-trf", winter)
    assert "Registered" not in out  # "BYRNE, Aoife" without a federation is the same junior
    ok(db_url, "close-period", "2025-11")
    assert query(db_url, "SELECT COUNT(*) FROM player WHERE name_key = 'aoife byrne'") == [(1,)]
    # Six pooled games: opponents 2000 + 1900 + 1800 + 1700 + 1600 + 1500 = 10500, score 1+0+½+0+1+½ = 3.
    # Ra = (10500 + 2 × 1800) / 8 = 1762.5; p = (3 + 1) / 8 = 0.50 → dp 0; Ru = 1762.5 → 1763.
    history = ok(db_url, "player", "1", "--format", "csv").splitlines()
    assert history == [
        "type,list_date,origin,rating,change,games,k,flag",
        "standard,2025-11-01,computed,,,4,,",
        "standard,2025-12-01,computed,1763,,2,40,",
    ]


def test_every_csv_list_export_re_imports_to_the_same_list(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    autumn_a, autumn_b, winter = junior_files(tmp_path)
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    ok(db_url, "import-trf", autumn_a, autumn_b)
    ok(db_url, "close-period", "2025-10")
    ok(db_url, "import-trf", winter)
    ok(db_url, "close-period", "2025-11")
    fresh = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    ok(fresh, "init")
    for day in ("2025-11-01", "2025-12-01"):
        exported = tmp_path / f"{day}.csv"
        ok(db_url, "list", day, "--format", "csv", "-o", exported)
        # The pooled junior (no ID in any file) is exported with the national ID it was given.
        assert any(line.startswith(",1,Byrne, Aoife") or ',1,"Byrne, Aoife"' in line
                   for line in exported.read_text(encoding="utf-8").splitlines())  # fmt: skip
        ok(fresh, "import-list", exported, "--date", day)
        again = tmp_path / f"{day}-again.csv"
        ok(fresh, "list", day, "--format", "csv", "-o", again)
        assert again.read_bytes() == exported.read_bytes()


def test_published_lists_stay_byte_identical_after_edits_merges_and_raw_updates(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    autumn_a, autumn_b, _ = junior_files(tmp_path)
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    ok(db_url, "import-trf", autumn_a, autumn_b)
    ok(db_url, "close-period", "2025-10")

    def exports() -> dict[str, bytes]:
        found = {}
        for day in ("2025-10-01", "2025-11-01"):
            for fmt in ("csv", "fide-txt", "json"):
                out = tmp_path / f"{day}.{fmt}"
                ok(db_url, "list", day, "--format", fmt, "-o", out, "--force")
                found[f"{day}.{fmt}"] = out.read_bytes()
        return found

    before = exports()
    edit = ["--name", "Adams-Smith, Ann", "--federation", "eng", "--title", "WFM", "--birth-year", "1981"]
    out = ok(db_url, "player", "edit", "300001", *edit, "--reason", "married; transferred to England")
    assert out == (
        "Player 1 Adams-Smith, Ann: name Adams, Ann → Adams-Smith, Ann, federation IRL → ENG, "
        "title — → WFM, birth_year 1980 → 1981.\n"
        "Player 1 Adams-Smith, Ann: the old name 'Adams, Ann' kept as an alias.\n"
    )
    ok(db_url, "player", "add", "--name", "Byrne, Aoife", "--birth-year", "2012", "--federation", "IRL")
    ok(db_url, "player", "merge", "2", "1", "--reason", "registered twice")
    engine = create_engine(db_url)
    with engine.begin() as conn:  # a raw edit outside ratingdb changes the register, not the lists
        conn.execute(text("UPDATE player SET name = 'X', federation = 'XXX' WHERE fide_id = 300002"))
    engine.dispose()
    assert exports() == before
    # The register itself has the new details, with both versions kept.
    show = ok(db_url, "player", "show", "300001").splitlines()
    assert show[0] == "WFM Adams-Smith, Ann (FIDE 300001), born 1981, ENG"
    assert query(db_url, "SELECT version, name, is_current FROM player_version WHERE player_id = 1 "
                 "ORDER BY version") in ([(1, "Adams, Ann", None), (2, "Adams-Smith, Ann", True)],
                                         [(1, "Adams, Ann", None), (2, "Adams-Smith, Ann", 1)])  # fmt: skip


def test_a_birth_year_correction_changes_k_from_the_next_list_only(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    ok(db_url, "close-period", "2025-10")
    ok(db_url, "player", "edit", "300006", "--birth-year", "2010", "--reason", "birth certificate")
    ok(db_url, "close-period", "2025-11")
    rows = query(
        db_url,
        "SELECT list_date, birth_year, k FROM v_list_entry WHERE fide_id = 300006 ORDER BY list_date",
    )
    # Born 1980 with 30+ games: K 20 on the lists published before the correction. Born 2010: a junior
    # in 2025 who never reached 2300 → K 40 (§8.3.3) on the next list.
    assert [(str(d), b, k) for d, b, k in rows] == [
        ("2025-10-01", 1980, 20),
        ("2025-11-01", 1980, 20),
        ("2025-12-01", 2010, 40),
    ]


def test_an_ambiguous_name_is_refused_with_the_candidates_and_match_settles_it(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    ok(db_url, "player", "add", "--name", "Kelly, Sean", "--national-id", "5001", "--birth-year", "2010",
       "--federation", "IRL")  # fmt: skip
    ok(db_url, "player", "add", "--name", "Sean Kelly", "--national-id", "5002", "--birth-year", "2010")
    club = trf(
        tmp_path,
        "Club night",
        dt.date(2025, 10, 8),
        [("Adams, Ann", 300001, 1980, "IRL"), ("Brady, Bob", 300002, 1980, "IRL"),
         ("KELLY, Sean", None, 2010, "IRL")],
        [(3, 1, "0"), (2, 3, "1"), (1, 2, "=")],
    )  # fmt: skip
    result = run(db_url, "import-trf", club)
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert result.stderr == (  # type: ignore[attr-defined]
        "Error: club_night.trf line 10 (rank 3) 'KELLY, Sean' (no ID) could be any of: "
        "Kelly, Sean (national 5001, born 2010, IRL); Sean Kelly (national 5002, born 2010) — --match 3=ID "
        "names the right one, --new 3 registers a new player; nothing was written\n"
    )
    assert query(db_url, "SELECT COUNT(*) FROM event") == [(0,)]
    bad = run(db_url, "import-trf", club, "--match", "9=5002")
    assert bad.stderr == "Error: --match 9=5002: club_night.trf has no player with starting rank 9\n"  # type: ignore[attr-defined]
    ok(db_url, "import-trf", club, "--match", "3=5002")
    assert query(
        db_url,
        "SELECT p.national_id FROM event_player ep JOIN player p ON p.id = ep.player_id WHERE start_rank = 3",
    ) == [("5002",)]


def test_id_field_national_matches_a_starting_list_given_by_national_ids(db_url: str, tmp_path: Path) -> None:
    # An Irish-style file: the ID column of the player lines holds ICU (national) numbers.
    start_list = tmp_path / "icu.csv"
    start_list.write_text(
        "national_id,name,federation,sex,birth_year,rating,k\n"
        '12057,"O\'Brien, Pat",IRL,M,1970,1900,20\n'
        '12252,"Dineen, Tim",IRL,M,1975,1800,20\n'
        '10914,"Dunne, Thomas",IRL,M,1965,1700,20\n',
        encoding="utf-8",
    )
    ok(db_url, "import-list", start_list, "--date", "2025-10-01")
    club = trf(
        tmp_path,
        "Limerick",
        dt.date(2025, 10, 10),
        [("O'Brien, Pat", 12057, 1970, "IRL"), ("Dineen, Tim", 12252, 1975, "IRL"),
         ("Dunne, Thomas", 10914, 1965, "IRL")],
        [(1, 2, "1"), (2, 3, "="), (3, 1, "0")],
    )  # fmt: skip
    out = ok(db_url, "import-trf", club, "--id-field", "national")
    assert "Registered" not in out
    assert query(db_url, "SELECT COUNT(*) FROM player") == [(3,)]
    assert query(
        db_url,
        "SELECT ep.start_rank, p.national_id, p.fide_id FROM event_player ep "
        "JOIN player p ON p.id = ep.player_id ORDER BY ep.start_rank",
    ) == [(1, "12057", None), (2, "12252", None), (3, "10914", None)]
    bad = run(db_url, "import-trf", club, "--id-field", "icu")
    assert bad.stderr == "Error: --id-field 'icu' is not fide or national\n"  # type: ignore[attr-defined]


def _walsh_files(folder: Path) -> tuple[Path, Path, Path]:
    october = trf(
        folder, "October open", dt.date(2025, 10, 4),
        [("Adams, Ann", 300001, 1980, "IRL"), ("Brady, Bob", 300002, 1980, "IRL"),
         ("Walsh, Liam", None, 2011, "IRL")],
        [(3, 1, "0"), (2, 3, "="), (1, 2, "1")],
    )  # fmt: skip
    november = trf(
        folder, "November open", dt.date(2025, 11, 4),
        [("Casey, Cian", 300003, 1980, "IRL"), ("Doyle, Dan", 300004, 1980, "IRL"),
         ("Walsh, William", None, 2011, "IRL")],
        [(3, 1, "1"), (2, 3, "0"), (1, 2, "=")],
    )  # fmt: skip
    both = trf(
        folder, "November rapidplay", dt.date(2025, 11, 15),
        [("Walsh, Liam", None, 2011, "IRL"), ("Walsh, William", None, 2011, "IRL")],
        [(1, 2, "=")],
    )  # fmt: skip
    return october, november, both


def test_merge_moves_open_period_games_and_is_refused_in_the_two_cases_named(
    db_url: str, oct_list: Path, tmp_path: Path
) -> None:
    october, november, both = _walsh_files(tmp_path)
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    ok(db_url, "import-trf", october)  # Walsh, Liam: national 1
    ok(db_url, "close-period", "2025-10")
    ok(db_url, "import-trf", november)  # Walsh, William: national 2
    ok(db_url, "import-trf", both)
    refused = run(db_url, "player", "merge", "2", "1", "--reason", "William is Liam")
    assert refused.exit_code == 1  # type: ignore[attr-defined]
    assert refused.stderr == (  # type: ignore[attr-defined]
        "Error: Walsh, William (national 2, born 2011, IRL) and Walsh, Liam (national 1, born 2011, IRL) "
        "both played in event 3 'November rapidplay': two players of one event are two people, so they "
        "are not merged\n"
    )
    ok(db_url, "delete-event", "3", "--yes")
    closed = run(db_url, "player", "merge", "1", "2", "--reason", "Liam is William")
    assert closed.stderr == (  # type: ignore[attr-defined]
        "Error: Walsh, Liam (national 1, born 2011, IRL) has games in closed periods (event 1 'October "
        "open' (standard 2025-10)): their list is published and explained by those games; reopen the "
        "period first (issue of corrections), then merge\n"
    )
    out = ok(db_url, "player", "merge", "2", "1", "--reason", "William is Liam")
    assert out == (
        "Done: merged player 8 Walsh, William (national 2, born 2011, IRL) into player 7 Walsh, Liam "
        "(national 1, born 2011, IRL); 1 event(s) re-pointed; alias 'Walsh, William' kept; "
        "reason: William is Liam.\n"
    )
    assert query(db_url, "SELECT white_id FROM game WHERE event_id = 2 AND round = 1 AND rated = TRUE") == [
        (7,)
    ]
    # The duplicate's ID finds the player kept.
    assert ok(db_url, "player", "show", "2").splitlines()[0] == "Walsh, Liam (national 1), born 2011, IRL"
    # November's close pools Liam's October and November games: 2 + 2 = 4, still too few for a rating.
    ok(db_url, "close-period", "2025-11")
    assert query(db_url, "SELECT COUNT(*) FROM calc_game WHERE player_id = 7 AND kind = 'pool'") == [(4,)]


def test_find_by_name_in_either_order_without_accents_and_by_id(db_url: str, oct_list: Path) -> None:
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    ok(db_url, "player", "add", "--name", "Ó Dálaigh, Seán", "--federation", "IRL", "--birth-year", "2009")
    header = "score,fide_id,national_id,name,federation,sex,title,birth_year,found_by"
    expected = [header, '100,,1,"Ó Dálaigh, Seán",IRL,,,2009,name']
    assert ok(db_url, "player", "find", "sean o dalaigh", "--format", "csv").splitlines() == expected
    assert ok(db_url, "player", "find", "DALAIGH", "--format", "csv").splitlines() == expected
    assert ok(db_url, "player", "find", "1", "--format", "csv").splitlines() == [
        header,
        '100,,1,"Ó Dálaigh, Seán",IRL,,,2009,national ID',
    ]
    # A typo: "dalaihg" starts no word, but sounds as "dalaigh" (NYSIIS DALAG: 90, above its ratio 2 × 6 /
    # 14 = 85.7), and "sean" and "o" start words (100 each): (100 + 100 + 90) / 3 = 96.7.
    assert ok(db_url, "player", "find", "sean o dalaihg", "--format", "csv").splitlines() == [
        header,
        '97,,1,"Ó Dálaigh, Seán",IRL,,,2009,name',
    ]
    assert ok(db_url, "player", "find", "a", "--federation", "irl", "--born", "1980", "--format", "csv"
              ).splitlines()[1:] == ['100,300001,,"Adams, Ann",IRL,F,,1980,name']  # fmt: skip
    assert ok(db_url, "player", "find", "nobody") == "No registered player matches 'nobody'.\n"


def test_add_gives_the_next_national_id_from_the_federation_setting_and_refuses_a_taken_id(
    db_url: str,
) -> None:
    assert ok(db_url, "player", "add", "--name", "Nolan, Nora", "--national-id-start", "90001") == (
        "Registered Nolan, Nora (national 90001).\n"
    )
    assert (
        ok(db_url, "player", "add", "--name", "Nolan, Nuala") == "Registered Nolan, Nuala (national 90002).\n"
    )
    taken = run(db_url, "player", "add", "--name", "Other", "--national-id", "90001")
    assert taken.exit_code == 1  # type: ignore[attr-defined]
    assert taken.stderr == (  # type: ignore[attr-defined]
        "Error: national ID 90001 belongs to Nolan, Nora (national 90001) already: if that is the same "
        "person, `ratingdb player merge` the two instead\n"
    )
    bad = run(db_url, "player", "add", "--name", "Other", "--sex", "X")
    assert bad.stderr == "Error: --sex 'X' is not M or F\n"  # type: ignore[attr-defined]


def test_edit_without_a_change_is_refused_and_changes_nothing(db_url: str, oct_list: Path) -> None:
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    same = run(db_url, "player", "edit", "300001", "--federation", "IRL", "--reason", "typo")
    assert (same.exit_code, same.stderr) == (  # type: ignore[attr-defined]
        1,
        "Error: nothing to change: Adams, Ann (FIDE 300001, born 1980, IRL) already has these details\n",
    )
    assert query(db_url, "SELECT COUNT(*) FROM player_version") == [(6,)]


def test_duplicates_lists_likely_pairs_with_the_merge_command(db_url: str) -> None:
    ok(db_url, "player", "add", "--name", "Murphy, Sean", "--federation", "IRL", "--birth-year", "2010")
    ok(db_url, "player", "add", "--name", "Sean Murphy", "--federation", "IRL", "--birth-year", "2010")
    ok(db_url, "player", "add", "--name", "Murphey, Sean", "--federation", "IRL", "--birth-year", "2010")
    ok(db_url, "player", "add", "--name", "Murphy, Sean", "--federation", "IRL", "--birth-year", "1970")
    out = ok(db_url, "player", "duplicates", "--format", "csv").splitlines()
    assert out[0] == "keep,possible duplicate,why,direction,to merge"
    # None is on a list: the older registration is kept.
    assert out[1] == (
        '"Murphy, Sean (national 1, born 2010, IRL)","Sean Murphy (national 2, born 2010, IRL)",'
        'same name and birth year,"keep: on 0 list(s), the duplicate on 0",'
        "ratingdb player merge 2 1 --reason '...'"
    )
    # Murphey/Murphy: token_sort_ratio of "murphey sean" and "murphy sean" is 96 (one letter in 23).
    assert out[2:] == [
        '"Murphy, Sean (national 1, born 2010, IRL)","Murphey, Sean (national 3, born 2010, IRL)",'
        '"similar names (96%), same federation and birth year","keep: on 0 list(s), the duplicate on 0",'
        "ratingdb player merge 3 1 --reason '...'",
        '"Sean Murphy (national 2, born 2010, IRL)","Murphey, Sean (national 3, born 2010, IRL)",'
        '"similar names (96%), same federation and birth year","keep: on 0 list(s), the duplicate on 0",'
        "ratingdb player merge 3 2 --reason '...'",
    ]
    # Several duplicates at once, into the last ID: one transaction, both names kept as aliases.
    done = ok(db_url, "player", "merge", "2", "3", "1", "--reason", "one boy, three registrations")
    assert done.splitlines()[0].startswith(
        "Done: merged player 2 Sean Murphy (national 2, born 2010, IRL) into"
    )
    assert done.splitlines()[1].startswith("Done: merged player 3 Murphey, Sean")
    assert query(db_url, "SELECT name FROM player_alias ORDER BY id") == [("Murphey, Sean",)]
    assert ok(db_url, "player", "duplicates") == "No likely duplicates.\n"


def test_duplicates_never_pairs_a_player_with_itself_when_a_fide_id_is_another_players_national_id(
    db_url: str, tmp_path: Path
) -> None:
    # Issue 24's story: 10586 is one player's FIDE ID and the other's national ID; the hint used to be
    # `player merge 10586 10586`, which merged the player with itself and failed.
    on_list = tmp_path / "list.csv"
    on_list.write_text(
        'national_id,name,birth_year,rating\n10586,"Quinn, Rory",1990,1700\n', encoding="utf-8"
    )
    ok(db_url, "import-list", on_list, "--date", "2025-09-01", "--type", "standard")
    ok(db_url, "player", "add", "--name", "Quinn, Rory", "--fide-id", "10586", "--birth-year", "1990")
    out = ok(db_url, "player", "duplicates", "--format", "csv").splitlines()
    # The one on a list is kept; the duplicate (FIDE 10586) goes into national:10586.
    assert out[1:] == [
        '"Quinn, Rory (national 10586, born 1990)","Quinn, Rory (FIDE 10586, born 1990)",'
        'same name and birth year,"keep: on 1 list(s), the duplicate on 0",'
        "ratingdb player merge 10586 national:10586 --reason '...'"
    ]
    ok(db_url, "player", "merge", "10586", "national:10586", "--reason", "registered twice")
    # The player kept had no FIDE ID: it takes the duplicate's (issue 47), which the duplicate gives up.
    assert query(db_url, "SELECT fide_id, national_id, merged_into FROM player ORDER BY id") == [
        (10586, "10586", None),
        (None, None, 1),
    ]


def test_player_id_without_a_sub_command_still_shows_the_player(db_url: str, oct_list: Path) -> None:
    ok(db_url, "import-list", oct_list, "--date", "2025-10-01")
    assert ok(db_url, "player", "300002", "--format", "csv").splitlines() == [
        "type,list_date,origin,rating,change,games,k,flag",
        "standard,2025-10-01,imported,1900,,0,20,",
    ]
    unknown = run(db_url, "player", "Griffiths")
    assert unknown.stderr == (  # type: ignore[attr-defined]
        "Error: no player has FIDE ID or national ID 'Griffiths': "
        "`ratingdb player find NAME` searches by name\n"
    )


def test_a_list_naming_a_merged_duplicate_gives_the_entry_to_the_player_kept(
    db_url: str, tmp_path: Path
) -> None:
    first = tmp_path / "oct.csv"
    first.write_text('national_id,name,birth_year,rating\n101,"Ryan, Rory",1990,1700\n', encoding="utf-8")
    ok(db_url, "import-list", first, "--date", "2025-10-01")
    ok(db_url, "player", "add", "--name", "Ryan, Rory", "--national-id", "202", "--birth-year", "1990")
    ok(db_url, "player", "merge", "202", "101", "--reason", "registered twice")
    later = tmp_path / "nov.csv"
    later.write_text('national_id,name,birth_year,rating\n202,"Ryan, R.",1990,1710\n', encoding="utf-8")
    # The line after it says what a list without K or games_total was assumed to mean (issue 18).
    assert ok(db_url, "import-list", later, "--date", "2025-11-01").splitlines()[-2] == (
        "Players: 0 new, 0 updated."
    )
    assert query(
        db_url, "SELECT list_date, national_id, name, rating FROM v_list_entry ORDER BY list_date"
    ) in (
        [
            (d, "101", "Ryan, Rory", r)
            for d, r in ((dt.date(2025, 10, 1), 1700), (dt.date(2025, 11, 1), 1710))
        ],
        [(d, "101", "Ryan, Rory", r) for d, r in (("2025-10-01", 1700), ("2025-11-01", 1710))],
    )
    both = tmp_path / "dec.csv"
    both.write_text(
        'national_id,name,birth_year,rating\n101,"Ryan, Rory",1990,1710\n202,"Ryan, R.",1990,1710\n',
        encoding="utf-8",
    )
    refused = run(db_url, "import-list", both, "--date", "2025-12-01")
    assert (refused.exit_code, refused.stderr) == (  # type: ignore[attr-defined]
        1,
        "Error: line 3 of the list names registered player 1 a second time (through a merged duplicate's "
        "ID): list each player once\n",
    )


def test_add_refuses_what_the_readers_and_the_database_refuse_in_one_line(db_url: str) -> None:
    for args, error in (
        (["--name", "x" * 121], "--name is 121 characters long; at most 120 are kept"),
        (["--name", "Evil\x1b[2J"], "--name holds the control character U+001B, which is not allowed"),
        (["--name", "A", "--national-id", "x" * 21], "--national-id is longer than 20 characters"),
        (["--name", "A", "--national-id", "N\u202e1"], "--national-id holds the control character U+202E, "
                                                         "which is not allowed"),
        (["--name", "A", "--fide-id", str(10**11)], "--fide-id 100000000000 is not a FIDE ID"),
    ):  # fmt: skip
        result = run(db_url, "player", "add", *args)
        assert (result.exit_code, result.stderr) == (1, f"Error: {error}\n"), args  # type: ignore[attr-defined]
    assert "No registered player" in ok(db_url, "player", "find", "A")
