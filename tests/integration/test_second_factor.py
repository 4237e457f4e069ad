"""The second factor's one-code-once rule under concurrency (services.second_factor), on every engine: two
sign-ins that send the same code at the same moment get one session between them, since the step is
taken by one conditional UPDATE of `web_user.totp_last_step`, not read and written back."""

from __future__ import annotations

import datetime as dt
import threading

import pyotp
from sqlalchemy import Engine

from ratingdb import db
from ratingdb.services import second_factor, users

PASSWORD = "a long enough password"


def test_one_code_sent_twice_at_once_opens_one_session(engine: Engine) -> None:
    at = users.now()
    step = int(at.replace(tzinfo=dt.UTC).timestamp()) // second_factor.STEP_SECONDS
    with db.transaction(engine) as session:
        users.add_user(session, "aoife", "officer", PASSWORD)
        user = users.find_user(session, "aoife")
        app = pyotp.TOTP(second_factor.begin_enrolment(session, user, "ratingdb").secret)
        # Enrolled with the code of the step before, so that this step's code is still to be taken.
        second_factor.confirm_enrolment(session, user, app.generate_otp(step - 1), at=at)
    tokens = []
    for address in ("192.0.2.1", "192.0.2.2"):
        with db.transaction(engine) as session:
            started = users.log_in(session, "aoife", PASSWORD, address)
            assert started is not None and started.awaiting_code
            tokens.append(started.token)
    code = app.generate_otp(step)
    both = threading.Barrier(2)
    results: list[object] = []

    def sign_in(token: str) -> None:
        both.wait()
        with db.transaction(engine) as session:
            results.append(second_factor.complete_sign_in(session, token, code, "192.0.2.9"))

    threads = [threading.Thread(target=sign_in, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 2 and sum(r is not None for r in results) == 1
