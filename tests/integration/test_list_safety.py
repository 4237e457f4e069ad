"""List imports take the close's lock: no event slips into a period that a list being imported closes."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import text

from ratingdb import db
from ratingdb.errors import PeriodAlreadyClosed
from ratingdb.formats import ListRow, read_list, read_trf
from ratingdb.services.choices import ImportChoices
from ratingdb.services.events import import_events
from ratingdb.services.list_import import import_list
from tests.cli.test_import_cli import FIXTURES, ROUND_ROBIN_LIST

OCT, NOV = dt.date(2025, 10, 1), dt.date(2025, 11, 1)


def test_an_event_import_during_a_list_import_waits_and_then_finds_the_period_closed(
    db_url: str, tmp_path: Path
) -> None:
    # Without the lock, on PostgreSQL the event would land in period 2025-10 while the uncommitted
    # 2025-11-01 list closes it: an event that could never be rated (issue 11).
    path = tmp_path / "list.csv"
    path.write_text(ROUND_ROBIN_LIST, encoding="utf-8")

    def rows() -> Iterator[ListRow]:
        return read_list(path, format="csv", rating_types=["standard"])

    setup = db.make_engine(db_url)
    with db.transaction(setup) as s:
        import_list(s, rows(), list_date=OCT, rating_types=["standard"], source="list.csv")
    listing, importing = db.make_engine(db_url), db.make_engine(db_url)
    outcome: list[object] = []
    started = threading.Event()

    def import_now() -> None:
        started.set()
        try:
            with db.transaction(importing) as s:
                import_events(
                    s, [read_trf(FIXTURES / "round_robin.trf")], ImportChoices(rating_type="standard")
                )
            outcome.append("imported")
        except PeriodAlreadyClosed as exc:
            outcome.append(exc)

    with db.transaction(listing) as s:
        import_list(s, rows(), list_date=NOV, rating_types=["standard"], source="list.csv")
        worker = threading.Thread(target=import_now)
        worker.start()
        started.wait()
        worker.join(timeout=1.0)
        assert worker.is_alive(), "the event import did not wait for the list import"
    worker.join()
    assert len(outcome) == 1 and isinstance(outcome[0], PeriodAlreadyClosed)
    with setup.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM event")).scalar() == 0
    for eng in (setup, listing, importing):
        eng.dispose()
