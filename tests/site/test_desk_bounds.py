"""Bounded work on the signed-in side (issue 54): a check runs once, with a time limit and without the close
lock; uploads have a rate and a quota; every form field refuses NUL; one accept of a submission wins.

On every engine, in-process (the browser is FastAPI's TestClient over HTTPS).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from ratingdb import db
from ratingdb.schema.models import AuditEntry, Event, Submission
from ratingdb.services import submissions as subs
from ratingdb.services.lists import lock_periods
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings
from tests.site.test_desk_month import MONTH_FILE, prepare, text_of
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, routes, setup_people, sign_in


def _send(c: object, content: bytes = b"", name: str = MONTH_FILE.name, **form: str) -> object:
    return c.post(  # type: ignore[attr-defined]
        "/desk/submissions",
        data={"csrftoken": csrf(c), "rating_type": "standard", **form},  # type: ignore[arg-type]
        files=[("file", (name, content or MONTH_FILE.read_bytes(), "text/plain"))],
    )


def test_a_view_of_a_submission_shows_its_stored_check_and_runs_none(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare(db_url, engine)
    runs: list[str] = []
    real = subs.check_file

    def counted(*args: object, **kwargs: object) -> subs.Check:
        runs.append("check")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(subs, "check_file", counted)
    # The organiser's plain words, drawn from the refused line as data (kept with the check, and read back).
    refusal = "The ID FIDE 25900230 of line 12 (Mac Aodha, Caoimhin) belongs to Mac Aodha, Kevin"
    with browser(db_url) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        assert refusal in text_of(_send(organiser))
        assert runs == ["check"]  # the upload's
        for _ in range(3):
            page = text_of(organiser.get("/desk/submissions/1"))
            assert refusal in page  # the check as stored, line and rank in their columns
            assert "<td>12</td><td>3</td>" in page
        assert runs == ["check"]
    with browser(db_url) as officer:
        assert sign_in(officer, "aoife") == 303
        review = text_of(officer.get("/desk/queue/1"))
        assert refusal in review and 'name="choice_3"' in review
        assert runs == ["check"]
        again = text_of(
            officer.post("/desk/queue/1/check", data={"csrftoken": csrf(officer), "choice_3": "accept-name"})
        )
        assert "The file can be imported: 'Dublin September Open'" in again
        assert runs == ["check", "check"]  # "Check again" alone runs it


def test_a_check_past_its_time_limit_is_stopped_in_one_sentence(db_url: str, engine: Engine) -> None:
    prepare(db_url, engine)
    with db.transaction(engine, dry_run=True) as session:
        check = subs.check_file(session, MONTH_FILE.read_bytes(), MONTH_FILE.name, "standard", seconds=0)
    assert [r.text for r in check.refusals] == [
        "the check of this file took longer than 0 seconds and was stopped — send a smaller file, or ask the "
        "officer to import it with `ratingdb import-trf`"
    ]


def test_a_check_neither_waits_for_nor_holds_the_close_lock(db_url: str, engine: Engine) -> None:
    # A close (or an import) of standard ratings holds the period lock in another transaction: the check
    # of a file goes on at once. (SQLite has one write lock for the whole database, taken by BEGIN
    # IMMEDIATE: there the check's time limit is what bounds the wait of others.)
    if engine.dialect.name == "sqlite":
        pytest.skip("SQLite's period lock is the database's write lock (BEGIN IMMEDIATE)")
    prepare(db_url, engine)
    holding, release = threading.Event(), threading.Event()

    def close() -> None:
        with db.transaction(engine) as session:
            lock_periods(session, "standard")
            holding.set()
            release.wait(60)

    closing = threading.Thread(target=close)
    closing.start()
    try:
        assert holding.wait(30)
        finished = threading.Event()
        found: list[subs.Check] = []

        def check() -> None:
            with db.transaction(engine, dry_run=True) as session:
                found.append(subs.check_file(session, MONTH_FILE.read_bytes(), MONTH_FILE.name, "standard"))
            finished.set()

        checking = threading.Thread(target=check)
        checking.start()
        assert finished.wait(30), "the check waited for the close lock"
        checking.join()
    finally:
        release.set()
        closing.join(60)
    assert "Mac Aodha, Kevin" in found[0].text()
    with db.transaction(engine) as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 0


PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
)


@contextmanager
def limited(url: str, **limits: int) -> Iterator[TestClient]:
    """The app over HTTPS, with the upload limits given (the rest their defaults)."""
    app = create_app(WebSettings(url=url, upload_limits=subs.UploadLimits(**limits)))
    try:
        with TestClient(app, base_url="https://testserver", raise_server_exceptions=False) as c:
            yield c
    finally:
        app.state.ratingdb.database.dispose()


def _stored(engine: Engine) -> list[tuple[int, str]]:
    with db.transaction(engine) as session:
        return [tuple(row) for row in session.execute(select(Submission.id, Submission.file_name))]  # type: ignore[misc]


def _variant(n: int) -> bytes:
    """The month's file, its 012 line's name changed: another file (another SHA-256) of the same size."""
    content = MONTH_FILE.read_bytes()
    start = content.index(b"012 ") + 4
    return content[:start] + b"%03d" % n + content[start + 3 :]


def test_a_file_that_is_not_text_is_refused_unchecked_and_stored_nowhere(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare(db_url, engine)
    runs: list[str] = []
    monkeypatch.setattr(subs, "check_file", lambda *a, **k: runs.append("check"))
    with browser(db_url) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        sent = _send(organiser, PNG, "results.trf")
        assert sent.status_code == 400  # type: ignore[attr-defined]
        assert "Error: this is not a tournament report file — send the tournament's TRF file" in text_of(sent)
        german = organiser.post(
            "/desk/submissions",
            data={"csrftoken": csrf(organiser), "rating_type": "standard"},
            files=[("file", ("results.trf", PNG, "image/png"))],
            headers={"accept-language": "de"},
        )
        assert german.status_code == 400
        assert (
            "Fehler: das ist keine Turnierberichtsdatei — senden Sie die TRF-Datei des Turniers"
            in text_of(german)
        )
    assert runs == [] and _stored(engine) == []


def test_uploads_past_the_hourly_rate_or_the_quota_are_refused_in_one_sentence(
    db_url: str, engine: Engine
) -> None:
    prepare(db_url, engine)
    size = len(MONTH_FILE.read_bytes())
    with limited(db_url, per_hour=2) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        assert [_send(organiser, _variant(n)).status_code for n in (1, 2)] == [200, 200]  # type: ignore[attr-defined]
        third = _send(organiser, _variant(3))
        assert third.status_code == 400  # type: ignore[attr-defined]
        assert (
            "Error: you have sent 2 files in the last hour, as many as this site takes — send this one later"
            in text_of(third)
        )
    assert [i for i, _ in _stored(engine)] == [1, 2]
    # Two files kept, not accepted: a third of the same size is refused by a quota one byte short of three.
    with limited(db_url, quota_bytes=3 * size - 1) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        third = _send(organiser, _variant(3))
        assert third.status_code == 400  # type: ignore[attr-defined]
        assert (
            f"Error: your files waiting here would hold more than the {3 * size - 1:,} bytes this site keeps "
            "for you — withdraw the ones you no longer need, or ask the officer" in text_of(third)
        )
    assert [i for i, _ in _stored(engine)] == [1, 2]
    with limited(db_url, quota_bytes=3 * size) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        assert _send(organiser, _variant(3)).status_code == 200  # type: ignore[attr-defined]
    assert [i for i, _ in _stored(engine)] == [1, 2, 3]


def test_a_file_refused_by_its_check_is_kept_for_the_retention_period_only(
    db_url: str, engine: Engine
) -> None:
    prepare(db_url, engine)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        for n in (1, 2):
            assert _send(organiser, _variant(n)).status_code == 200  # type: ignore[attr-defined]
    with db.transaction(engine) as session:
        first, second = session.scalars(select(Submission).order_by(Submission.id))
        assert not first.check_ok and not second.check_ok  # rank 3's name needs a choice
        first.created_at -= dt.timedelta(days=31)  # past the 30 days: deleted at the next upload
        second.created_at -= dt.timedelta(days=29)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        assert _send(organiser, _variant(3)).status_code == 200  # type: ignore[attr-defined]
    assert [i for i, _ in _stored(engine)] == [2, 3]


def _until_someone_waits(engine: Engine, deadline: float) -> None:
    """Until another transaction waits for a lock (PostgreSQL: any lock not granted; MySQL/MariaDB: a row
    lock or a named lock). SQLite shows no waiter: the second comer waits on the write lock that the
    first holds (BEGIN IMMEDIATE), a pause of a second stands for the probe."""
    probe = {
        "postgresql": "SELECT count(*) FROM pg_locks WHERE NOT granted",
        "mysql": "SELECT (SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT')"
        " + (SELECT count(*) FROM information_schema.processlist WHERE state LIKE '%%lock%%')",
    }.get(engine.dialect.name)
    if probe is None:
        time.sleep(1)
        return
    with engine.connect() as conn:
        while time.monotonic() < deadline:
            if conn.exec_driver_sql(probe).scalar():
                return
            conn.rollback()
            time.sleep(0.05)
    if engine.dialect.name == "mysql":
        # MariaDB does not always show the waiter in either table (seen once in CI under load, 7 December):
        # the outcome below (one import, one "already accepted") is what the test holds to.
        return
    raise AssertionError("the second accept never waited")


def test_of_two_accepts_at_once_one_imports_and_the_other_is_told_it_is_already_accepted(
    db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ratingdb.services import events

    prepare(db_url, engine)
    with browser(db_url) as organiser:
        assert sign_in(organiser, "galway-open") == 303
        assert _send(organiser).status_code == 200  # type: ignore[attr-defined]
    holding, release = threading.Event(), threading.Event()
    real = events.import_events

    def held(*args: object, **kwargs: object) -> object:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        if not holding.is_set():  # the first accept: imported, held before it commits
            holding.set()
            release.wait(60)
        return found

    monkeypatch.setattr(events, "import_events", held)
    answers: list[tuple[int, str]] = []
    with browser(db_url) as first, browser(db_url) as second:
        for officer in (first, second):
            assert sign_in(officer, "aoife") == 303

        def accept(officer: TestClient) -> None:
            sent = officer.post(
                "/desk/queue/1/accept",
                data={"csrftoken": csrf(officer), "choice_3": "accept-name"},
                follow_redirects=False,
            )
            answers.append((sent.status_code, text_of(sent)))

        one = threading.Thread(target=accept, args=(first,))
        one.start()
        try:
            assert holding.wait(60)
            other = threading.Thread(target=accept, args=(second,))
            other.start()
            _until_someone_waits(engine, time.monotonic() + 20)
        finally:
            release.set()
            one.join(120)
        other.join(120)
    assert sorted(status for status, _ in answers) == [303, 400]
    refused = next(body for status, body in answers if status == 400)
    assert "Error: submission 1 is already accepted, as event 1" in refused
    with db.transaction(engine) as session:
        assert session.scalar(select(func.count()).select_from(Event)) == 1


def test_a_nul_in_any_form_field_or_file_name_is_one_sentence_and_changes_nothing(
    db_url: str, engine: Engine
) -> None:
    sub = setup_people(engine)
    refusal = (
        "Error: a field of the form holds a control character (such as NUL), which no name, note or ID "
        "contains — remove it and send the form again"
    )
    forms = [(m, path, form, file) for m, path, form, file, _ in routes(sub) if m == "POST"]
    forms.append(("POST", "/login", {"username": "admin", "password": PASSWORD}, None))
    tried = 0
    with browser(db_url) as admin:
        assert sign_in(admin, "admin") == 303
        with db.transaction(engine) as session:
            before = session.scalar(select(func.max(AuditEntry.id)))
        for _method, path, form, file in forms:
            fields = [*form, *(["file name"] if file else [])]
            for field in fields:
                sent = dict(form)
                if field == "file name":
                    answer = _with_raw_file_name(admin, path, sent, b"round\x00robin.trf")
                else:
                    sent[field] = f"{form[field]}\x00"
                    answer = admin.post(
                        path,
                        data={"csrftoken": csrf(admin), **sent},
                        files=[file] if file else None,
                        follow_redirects=False,
                    )
                assert (answer.status_code, refusal in text_of(answer)) == (400, True), (path, field)
                tried += 1
        with db.transaction(engine) as session:
            assert session.scalar(select(func.max(AuditEntry.id))) == before
            assert session.scalar(select(func.count()).select_from(Submission)) == 1
    assert tried >= 25


def _with_raw_file_name(c: TestClient, path: str, form: dict[str, str], name: bytes) -> object:
    """A multipart form whose file's name holds `name`'s bytes as they are (a browser's client, httpx,
    would escape a NUL as %00: a hand-made request need not)."""
    boundary = b"ratingdb-test-boundary"
    parts = [
        b'--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n'
        % (boundary, key.encode(), value.encode())
        for key, value in {"csrftoken": csrf(c), **form}.items()
    ]
    parts.append(
        b'--%s\r\nContent-Disposition: form-data; name="file"; filename="%s"\r\n'
        b"Content-Type: text/plain\r\n\r\n012 x\n\r\n" % (boundary, name)
    )
    body = b"".join(parts) + b"--%s--\r\n" % boundary
    return c.post(
        path,
        content=body,
        headers={"content-type": f"multipart/form-data; boundary={boundary.decode()}"},
        follow_redirects=False,
    )
