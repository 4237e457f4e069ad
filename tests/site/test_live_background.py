"""Live ratings are made again at most once per data change, in the background (issue 54): a request after
a change starts the recompute and is answered at once with the previous live list, as is every request
while it runs; changes made while one runs are all in the next one. On every engine, in-process."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.reports.live import LiveList
from ratingdb.web import state as web_state
from tests.site.test_desk_month import MONTH_FILE, prepare
from tests.site.test_desk_permissions import browser
from tests.site.test_public_version import version

runner = CliRunner()
HELD = 30.0  # how long the held recompute waits at most: far longer than an answer "at once" may take
AT_ONCE = 10.0  # an answer while the recompute is held (a loaded machine's slow request, not the hold)


def cli(url: str, *args: str) -> None:
    result = runner.invoke(app, ["--db", url, *args])
    assert result.exit_code == 0, result.output


def test_a_data_change_makes_the_live_list_once_in_the_background_and_serves_the_previous_meanwhile(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare(db_url, engine)  # the list of 1 September 2025 in force
    made: list[int] = []  # the data version of each live list made
    gate = threading.Event()  # the recomputes after the first wait for it once made
    real = web_state.settled

    def held(value: object) -> object:
        # Each live list, once made (its transaction ended), as the app sets it aside: held there.
        if isinstance(value, LiveList):
            made.append(value.as_of)
            if len(made) > 1:
                gate.wait(HELD)
        return real(value)

    started: list[str] = []  # each live list begun
    begin = web_state.live_list

    def counted(session: object, rating_type: str) -> object:
        started.append(rating_type)
        return begin(session, rating_type)  # type: ignore[arg-type]

    monkeypatch.setattr(web_state, "settled", held)
    monkeypatch.setattr(web_state, "live_list", counted)
    with browser(db_url) as visitor:
        state = visitor.app.state.ratingdb  # type: ignore[attr-defined]
        first = visitor.get("/live/standard.html")
        assert first.status_code == 200 and "Dublin September Open" not in first.text
        assert len(started) == len(made) == 1
        # A data change: the month's tournament imported.
        cli(db_url, "import-trf", str(MONTH_FILE), "--type", "standard", "--accept-name", "3")
        # The next request starts the one recompute and, like each one while it runs, is answered at once
        # with the previous live list; none starts another.
        for _ in range(4):
            asked = time.perf_counter()
            during = visitor.get("/live/standard.html")
            assert time.perf_counter() - asked < AT_ONCE
            assert during.status_code == 200 and "Dublin September Open" not in during.text
        assert len(started) == 2
        # A second change while the recompute runs (a register edit writes a public change): no recompute
        # of its own until the running one ends.
        before = version(engine)
        cli(db_url, "federation", "set", "--national-ids", "none", "--reason", "a public change")
        newest = version(engine)
        assert newest > before
        assert visitor.get("/live/standard.html").status_code == 200
        assert len(started) == 2
        gate.set()
        state.settle_live()
        # The running recompute read the first change; the second, which came while it ran, made one more.
        assert made == [made[0], before, newest] and len(started) == 3
        assert state.latest_live["standard"].as_of == newest
        after = visitor.get("/live/standard.html")
        assert after.status_code == 200 and "Dublin September Open" in after.text
        assert len(started) == 3  # nothing changed since: nothing made again
