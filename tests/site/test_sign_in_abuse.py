"""Sign-in that strangers cannot turn against a user (issue 54: M1, L3, L4, M3, L10), on every engine.

The times are the service's clock (`users.now`) set by the test, so that each wait is met exactly: the
n-th failure in a row makes an account wait 2**(n − 5) seconds from n = 5 on (users.delay), at most 15
minutes; an address the same from its 20th failure.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import threading
import time

import httpx2
import pytest
from sqlalchemy import DateTime, Engine, bindparam, select, text

from ratingdb import db
from ratingdb.errors import ConfigError
from ratingdb.schema.models import WebUser
from ratingdb.services import users
from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings

PASSWORD = "a long enough password"
T0 = dt.datetime(2026, 12, 7, 12, 0, 0)
TOKEN = re.compile(r'name="csrftoken" value="([^"]+)"')


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[dt.datetime]:
    now = [T0]
    monkeypatch.setattr(users, "now", lambda: now[0])
    return now


def _olga(engine: Engine) -> None:
    with db.transaction(engine) as session:
        users.add_user(session, "olga", "admin", PASSWORD)


def _try(engine: Engine, password: str, address: str, name: str = "olga") -> users.NewSession | None:
    with db.transaction(engine) as session:
        return users.log_in(session, name, password, address)


def _failures(engine: Engine) -> int:
    with db.transaction(engine) as session:
        return int(session.execute(select(WebUser.failed_logins)).scalar_one())


def _until(engine: Engine) -> dt.datetime | None:
    with db.transaction(engine) as session:
        return session.execute(select(WebUser.locked_until)).scalar_one()


def test_strangers_make_an_account_wait_but_cannot_lock_it_and_its_open_session_goes_on(
    engine: Engine, clock: list[dt.datetime]
) -> None:
    _olga(engine)
    opened = _try(engine, PASSWORD, "198.51.100.1")
    assert opened is not None
    # Five strangers' guesses from five addresses (no address waits): the fifth makes the account wait
    # 2**(5 - 5) = 1 s. Twenty more while it waits are counted, but do not move the end of the wait.
    for i in range(5):
        assert _try(engine, "wrong password", f"203.0.113.{i}") is None
    clock[0] = T0 + dt.timedelta(milliseconds=500)
    for i in range(20):
        assert _try(engine, "wrong password", f"203.0.113.{100 + i}") is None
    assert _failures(engine) == 25
    with db.transaction(engine) as session:  # the open session is not ended by any of it
        user = users.session_user(session, opened.token)
        assert user is not None and user.username == "olga"
    clock[0] = T0 + dt.timedelta(milliseconds=999)
    assert _try(engine, PASSWORD, "198.51.100.2") is None  # the right password, but it still waits
    # The wait over, the right password opens a session, and the count starts again.
    clock[0] = T0 + dt.timedelta(seconds=1)
    assert _try(engine, PASSWORD, "198.51.100.2") is not None
    assert (_failures(engine), _until(engine)) == (0, None)


def test_the_longest_wait_is_fifteen_minutes_whatever_strangers_do(
    engine: Engine, clock: list[dt.datetime]
) -> None:
    _olga(engine)
    # 4 free failures, then waits of 1, 2, 4, … s, each guess made when the last wait ended: the 15th
    # failure's wait would be 2**10 = 1024 s, past the 900 s cap.
    for n in range(1, 16):
        assert _try(engine, "wrong password", f"203.0.113.{n}") is None
        until = _until(engine)
        expected = None if n < 5 else clock[0] + min(dt.timedelta(seconds=2 ** (n - 5)), users.LONGEST_DELAY)
        assert until == expected, n
        clock[0] = until or clock[0]
    # Now at the end of the 15th failure's wait (900 s): it is over, the right password opens a session.
    assert _try(engine, PASSWORD, "198.51.100.2") is not None


def test_sixteen_concurrent_wrong_guesses_are_sixteen_failures(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A count read, then written back, loses the guesses made meanwhile (48 guesses before a lock of 5).
    The password check is made slow and cheap here (50 ms, no argon2), so that all sixteen overlap."""
    _olga(engine)
    monkeypatch.setattr(users, "_verify", lambda stored, password: time.sleep(0.05) or False)
    start = threading.Barrier(16)
    errors: list[BaseException] = []

    def guess(i: int) -> None:
        try:
            start.wait()
            assert _try(engine, "wrong password", f"203.0.113.{i}") is None
        except BaseException as exc:  # noqa: BLE001  shown by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert _failures(engine) == 16


def test_an_address_is_one_row_a_window_and_old_windows_are_pruned(
    engine: Engine, clock: list[dt.datetime]
) -> None:
    _olga(engine)
    with db.transaction(engine) as session:  # a window of two days ago, left by an earlier attack
        session.execute(
            text(
                "INSERT INTO login_failure (address, window_start, failures, last_at) "
                "VALUES ('192.0.2.9', :at, 40, :at)"
            ).bindparams(bindparam("at", T0 - dt.timedelta(days=2), type_=DateTime()))
        )
    for i in range(30):
        assert _try(engine, "wrong password", "198.51.100.7", name=f"nobody{i}") is None
    with db.transaction(engine) as session:
        rows = session.execute(text("SELECT address, failures FROM login_failure")).all()
    assert [tuple(r) for r in rows] == [("198.51.100.7", 30)]
    # The address waits from its 20th failure: the 30th at T0 waits 2**(30 - 20) s = 1024 s → 900 s.
    assert _try(engine, PASSWORD, "198.51.100.7") is None
    clock[0] = T0 + users.LONGEST_DELAY
    assert _try(engine, PASSWORD, "198.51.100.7") is not None


def test_the_hashing_pool_checks_one_password_at_a_time(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight sign-ins at once for an unknown name: the argon2 work — the check, and the hash of nothing an
    unknown name is checked against, made at the first — runs one at a time (sixteen at once took 64 MiB
    each and the processor from the public pages), in threads, so the event loop goes on meanwhile."""
    running = [0, 0]  # now, most at once
    lock = threading.Lock()

    def slow(result: object) -> object:
        with lock:
            running[0] += 1
            running[1] = max(running)
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return result

    class SlowHasher:  # argon2's PasswordHasher, as slow and watched
        def hash(self, password: str) -> object:
            return slow("$argon2id$not-a-real-hash")

        def verify(self, stored: str, password: str) -> object:
            return slow(False)

    monkeypatch.setattr(users, "_hasher", SlowHasher)
    monkeypatch.setattr(users, "_DUMMY", [])  # made again, by the first of the eight
    app = create_app(WebSettings(url=db_url))

    async def sign_ins() -> list[int]:
        transport = httpx2.ASGITransport(app=app, client=("127.0.0.1", 5000))
        async with httpx2.AsyncClient(transport=transport, base_url="https://testserver") as c:
            token = TOKEN.search((await c.get("/login")).text).group(1)  # type: ignore[union-attr]
            form = {"csrftoken": token, "username": "nobody", "password": "wrong password"}
            answers = await asyncio.gather(*(c.post("/login", data=form) for _ in range(8)))
            return [a.status_code for a in answers]

    try:
        assert asyncio.run(sign_ins()) == [400] * 8
    finally:
        app.state.ratingdb.database.dispose()
    assert running[1] == 1


def test_the_only_active_admin_is_neither_disabled_nor_demoted(engine: Engine) -> None:
    with db.transaction(engine) as session:
        users.add_user(session, "mary", "admin", PASSWORD)
    sentence = (
        "mary is the only active admin — make another account an admin first, so that someone can still "
        "manage the accounts"
    )
    for change in (
        lambda session: users.set_disabled(session, "mary", True),
        lambda session: users.set_role(session, "mary", "officer"),
    ):
        with pytest.raises(ConfigError) as refused, db.transaction(engine) as session:
            change(session)
        assert str(refused.value) == sentence
    with db.transaction(engine) as session:
        users.add_user(session, "ann", "officer", PASSWORD)
        users.set_disabled(session, "ann", True)
        users.set_role(session, "ann", "admin")  # a disabled admin does not count
    with pytest.raises(ConfigError), db.transaction(engine) as session:
        users.set_role(session, "mary", "organiser")
    with db.transaction(engine) as session:
        users.set_disabled(session, "ann", False)
        users.set_role(session, "mary", "officer")  # now another admin is active
        assert [(u.username, u.role, u.disabled) for u in users.list_users(session)] == [
            ("ann", "admin", False),
            ("mary", "officer", False),
        ]


def test_the_desk_refuses_to_demote_or_disable_the_only_active_admin_in_one_sentence(db_url: str) -> None:
    from fastapi.testclient import TestClient

    engine = db.make_engine(db_url)
    try:
        with db.transaction(engine) as session:
            users.add_user(session, "mary", "admin", PASSWORD)
    finally:
        engine.dispose()
    app = create_app(WebSettings(url=db_url))
    try:
        with TestClient(app, base_url="https://testserver") as c:
            form = {"csrftoken": TOKEN.search(c.get("/login").text).group(1)}  # type: ignore[union-attr]
            signed = c.post(
                "/login", data={**form, "username": "mary", "password": PASSWORD}, follow_redirects=False
            )
            assert signed.status_code == 303
            form = {"csrftoken": TOKEN.search(c.get("/desk/users").text).group(1)}  # type: ignore[union-attr]
            for action, extra in (("role", {"role": "officer"}), ("disable", {})):
                refused = c.post(f"/desk/users/mary/{action}", data={**form, **extra}, follow_redirects=False)
                assert refused.status_code == 400
                assert "mary is the only active admin — make another account an admin first" in refused.text
            assert c.get("/desk/users").status_code == 200  # still signed in, still an admin
    finally:
        app.state.ratingdb.database.dispose()
