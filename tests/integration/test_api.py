"""The promised Python API (ratingdb.api): a federation's short script, run on every engine.

The script imports a starting list and a club round robin (tests/fixtures/trf/round_robin.trf), closes
October 2025 and reads the list, a player and a calculation back, using only names in `api.__all__`.
The figures are worked by hand from table 8.1.2 (K 20 for all four players, from the list):

    Kowalski 2210: D +230, +60, +105 → PD .79 .58 .64 = 2.01; score 2.5; 20 × 0.49 = 9.8 → +10 → 2220
    Novak    2150: D +45, −60, +170  → PD .56 .42 .72 = 1.70; score 2.0; 20 × 0.30 = 6.0 → +6  → 2156
    Horvat   2105: D −45, +125, −105 → PD .44 .67 .36 = 1.47; score 1.5; 20 × 0.03 = 0.6 → +1  → 2106
    Szabo    1980: D −230, −170, −125 → PD .21 .28 .33 = 0.82; score 0;  20 × −0.82 = −16.4 → −16 → 1964
"""

from __future__ import annotations

import csv
import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from ratingdb import api

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OCTOBER, NOVEMBER = dt.date(2025, 10, 1), dt.date(2025, 11, 1)
STARTING_LIST = """\
fide_id,national_id,name,federation,sex,title,birth_year,rating,games,k,flag,games_total,reached_2400,reached_2300
200001,,"Kowalski, Jan",IRL,M,,1980,2210,0,20,,100,false,false
200002,,"Novak, Petra",IRL,F,,1980,2150,0,20,,100,false,false
200003,,"Horvat, Ivan",IRL,M,,1980,2105,0,20,,100,false,false
200004,,"Szabo, Eva",IRL,F,,2009,1980,0,20,,100,false,false
"""


def test_a_federation_script_imports_closes_and_reads_through_the_api(db_url: str, tmp_path: Path) -> None:
    start = tmp_path / "standard-2025-10.csv"
    start.write_text(STARTING_LIST, encoding="utf-8")

    with api.open_database(db_url, create=True) as database:
        with database.transaction() as session:
            imported = api.import_list(session, start, list_date=OCTOBER)
            events = api.import_trf(session, [FIXTURES / "trf" / "round_robin.trf"], rating_type="standard")
        with database.transaction() as session:
            summary = api.close_period(session, "2025-10")
        with database.transaction() as session:
            again = api.close_period(session, api.Period(2025, 10))
        with database.read() as session:
            lines = api.read_list(session, NOVEMBER)
            kowalski = api.find_player(session, 200001)
            history = api.player_history(session, kowalski)
            record = api.calculation(session, kowalski, "2025-10").record
            assert record is not None
            assert (record.k, record.n, record.score_x100, record.sum_dr_x100, record.change) == (
                20,
                3,
                250,
                49,
                10,
            )

    assert (imported.entries, [e.rated_games for e in events.events]) == ({"standard": 4}, [6])
    assert (summary.list_date, summary.players_rated, summary.games_rated) == (NOVEMBER, 4, 6)
    assert again.already_closed
    assert [(line.name, line.rating, line.change) for line in lines] == [
        ("Kowalski, Jan", 2220, 10),
        ("Novak, Petra", 2156, 6),
        ("Horvat, Ivan", 2106, 1),
        ("Szabo, Eva", 1964, -16),
    ]
    assert [(h.list_date, h.rating, h.change) for h in history] == [
        (OCTOBER, 2210, None),
        (NOVEMBER, 2220, 10),
    ]


def test_a_refusal_through_the_api_is_a_ratingdb_error_sentence(db_url: str) -> None:
    with api.open_database(db_url) as database, database.transaction() as session:
        with pytest.raises(api.RatingDbError) as refused:
            api.close_period(session, "2025-13")
    assert str(refused.value) == "'2025-13' is not a rating period: the month must be 01 to 12"


def test_the_api_names_only_documented_functions_and_types() -> None:
    for name in api.__all__:
        doc = getattr(api, name).__doc__ or ""
        # A dataclass or named tuple without a docstring gets a generated one: its signature.
        assert doc and not doc.startswith(f"{name}("), f"ratingdb.api.{name} has no docstring"


def _received(annotation: object, found: set[type]) -> None:
    """The classes of ratingdb and SQLAlchemy that a value of type `annotation` holds, into `found`: a
    dataclass's or named tuple's fields are followed (the models' are not: their columns are values)."""
    import dataclasses
    import sys
    import typing

    from ratingdb.schema.models import Base

    if typing.get_origin(annotation) is not None:
        for argument in typing.get_args(annotation):
            _received(argument, found)
        return
    if not isinstance(annotation, type) or not annotation.__module__.startswith(("ratingdb", "sqlalchemy")):
        return
    if annotation in found:
        return
    found.add(annotation)
    if issubclass(annotation, Base) or not (
        dataclasses.is_dataclass(annotation) or hasattr(annotation, "_fields")
    ):
        return
    names = {**vars(api), **vars(sys.modules[annotation.__module__])}  # what TYPE_CHECKING imported
    for hint in typing.get_type_hints(annotation, localns=names).values():
        _received(hint, found)


def test_every_type_a_script_receives_is_promised() -> None:
    import inspect
    import typing

    found: set[type] = set()
    promised = {name: getattr(api, name) for name in api.__all__}  # loads the late names
    for function in [*promised.values(), api.Database.transaction, api.Database.read]:
        if inspect.isfunction(function):
            _received(typing.get_type_hints(function, localns=promised)["return"], found)
    _received(typing.get_type_hints(api.Database.__init__, localns=promised)["engine"], found)
    missing = sorted(t.__qualname__ for t in found if promised.get(t.__name__) is not t)
    assert missing == [], f"add to ratingdb.api.__all__: {missing}"
    # The calculation's events and games, a close's changes, an import's events: all followed.
    assert {"EventRecord", "GameRecord", "PlayerChange", "ImportedEvent", "Session"} <= {
        t.__name__ for t in found
    }


def test_every_promised_function_is_typed_parameters_and_result() -> None:
    import inspect

    functions = [name for name in api.__all__ if inspect.isfunction(getattr(api, name))]
    methods = [f"Database.{name}" for name in ("transaction", "read", "close")]
    assert functions == [
        "accept_submission",
        "add_user",
        "calculation",
        "close_period",
        "close_periods",
        "federation_numbering",
        "compare_bundles",
        "create_signing_key",
        "find_player",
        "import_list",
        "import_trf",
        "list_bundle",
        "open_database",
        "player_history",
        "read_list",
        "renumber_national_ids",
        "replace_event",
        "replace_event_with_submission",
        "set_federation_numbering",
        "review_event",
        "risk_dossier",
        "risk_screen",
        "verify_bundle",
        "list_notices",
        "open_database",
        "player_history",
        "read_list",
        "send_notices",
        "set_contact",
        "reset_second_factor",
        "set_password",
    ]
    for name in functions + methods:
        owner, _, attr = name.rpartition(".")
        function = getattr(api.Database if owner else api, attr)
        signature = inspect.signature(function)
        untyped = [p for p in signature.parameters.values() if p.name != "self" and p.annotation is p.empty]
        assert untyped == [], f"ratingdb.api.{name}: {untyped} without a type"
        assert signature.return_annotation is not signature.empty, f"ratingdb.api.{name} has no result type"


def test_importing_the_api_loads_no_cli_and_no_database_driver() -> None:
    code = (
        "import sys, ratingdb.api; print(sorted(m for m in sys.modules "
        "if m.startswith(('ratingdb.cli', 'typer', 'psycopg', 'pymysql'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_dry_run_transaction_writes_nothing_and_hands_out_the_same_ids_again(
    db_url: str, tmp_path: Path
) -> None:
    # What the web app's preview of an import and a close does (issue 25, item 2): the same services in
    # database.transaction(dry_run=True), read inside the block, then the real run.
    from tests.snapshot import every_row

    start = tmp_path / "standard-2025-10.csv"
    start.write_text(STARTING_LIST, encoding="utf-8")
    trf = [FIXTURES / "trf" / "round_robin.trf"]
    with api.open_database(db_url, create=True) as database:
        before = every_row(db_url)
        with database.transaction(dry_run=True) as session:
            dry_list = api.import_list(session, start, list_date=OCTOBER).lists
            dry_event = api.import_trf(session, trf, rating_type="standard").events[0].id
            dry_close = api.close_period(session, "2025-10")
        assert every_row(db_url) == before
        with database.transaction() as session:
            real_list = api.import_list(session, start, list_date=OCTOBER).lists
            real_event = api.import_trf(session, trf, rating_type="standard").events[0].id
            real_close = api.close_period(session, "2025-10")
    assert (dry_list, dry_event, dry_close.list_id) == (real_list, real_event, real_close.list_id)
    assert (dry_close.games_rated, dry_close.players_rated) == (real_close.games_rated, 4)


SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def test_the_api_imports_the_demos_glicko2_club_list_as_import_list_does(db_url: str) -> None:
    # The demo's club type is rated by Glicko-2 (seeds/club-glicko.toml): its list carries each player's
    # deviation and volatility, which the API refused ("column 'deviation' is not a list column") where
    # `ratingdb import-list club-2025-09-01.csv --type club --date 2025-09-01` imports every row.
    from sqlalchemy import select
    from typer.testing import CliRunner

    from ratingdb import db
    from ratingdb.cli import app
    from ratingdb.schema.models import Glicko2Entry, ListEntry, Player

    added = CliRunner().invoke(app, ["--db", db_url, "rules", "add", str(SEEDS / "club-glicko.toml")])
    assert added.exit_code == 0, added.output
    with (SEEDS / "club-2025-09-01.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with api.open_database(db_url) as database, database.transaction() as session:
        summary = api.import_list(
            session, SEEDS / "club-2025-09-01.csv", list_date=dt.date(2025, 9, 1), rating_type="club"
        )
    assert (summary.entries, summary.rated, summary.new_players) == ({"club": 292}, {"club": 292}, 292)
    assert len(rows) == 292
    engine = db.make_engine(db_url)
    try:
        with db.transaction(engine) as session:
            figures = (ListEntry.rating, Glicko2Entry.deviation_x100, Glicko2Entry.volatility_x1e6)
            stored = session.execute(
                select(Player.name, *figures)
                .join(ListEntry, ListEntry.player_id == Player.id)
                .join(
                    Glicko2Entry,
                    (Glicko2Entry.list_id == ListEntry.list_id) & (Glicko2Entry.player_id == Player.id),
                )
            ).all()
    finally:
        engine.dispose()
    # Each row's figures as the file gives them: the rating, the deviation (hundredths) and the volatility
    # (millionths).
    assert sorted(stored) == sorted(
        (r["name"], int(r["rating"]), round(float(r["deviation"]) * 100), round(float(r["volatility"]) * 1e6))
        for r in rows
    )


def test_the_api_imports_a_fide_combined_list_as_three_lists_as_import_list_does(db_url: str) -> None:
    combined = FIXTURES / "lists" / "fide_combined.txt"
    with api.open_database(db_url) as database, database.transaction() as session:
        summary = api.import_list(session, combined, list_date=dt.date(2025, 10, 1))
    assert sorted(summary.entries) == ["blitz", "rapid", "standard"]


def test_a_close_given_the_database_is_a_transaction_of_its_own_and_its_dry_run_writes_nothing(
    db_url: str, tmp_path: Path
) -> None:
    # close_period(database, …) is `close-period` (services.closing): its own transaction, or with dry_run
    # one that is rolled back; given a session, a dry run is refused (it is the transaction's to be one).
    from tests.snapshot import every_row

    start = tmp_path / "standard-2025-10.csv"
    start.write_text(STARTING_LIST, encoding="utf-8")
    with api.open_database(db_url, create=True) as database:
        with database.transaction() as session:
            api.import_list(session, start, list_date=OCTOBER)
            api.import_trf(session, [FIXTURES / "trf" / "round_robin.trf"], rating_type="standard")
        before = every_row(db_url)
        dry = api.close_period(database, "2025-10", dry_run=True)
        assert every_row(db_url) == before
        with database.transaction() as session, pytest.raises(api.RatingDbError) as refused:
            api.close_period(session, "2025-10", dry_run=True)
        real = api.close_period(database, "2025-10")
        with database.read() as session:
            lines = api.read_list(session, NOVEMBER)
    assert str(refused.value) == (
        "a dry run is a transaction of its own: pass the database, or open database.transaction(dry_run=True)"
    )
    assert (dry.list_date, dry.players_rated, dry.games_rated) == (NOVEMBER, 4, 6)
    assert (real.list_id, real.players_rated, real.games_rated) == (dry.list_id, 4, 6)
    assert [(line.name, line.rating) for line in lines][0] == ("Kowalski, Jan", 2220)  # as worked above
