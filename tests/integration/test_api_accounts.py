"""The served site's accounts through the promised Python API (ratingdb.api): the same service and the
same password rules as `ratingdb user add` and the desk (issue 52), on every engine."""

from __future__ import annotations

import pyotp
import pytest

from ratingdb import api


def test_a_script_s_account_gets_the_password_rules_of_the_cli_and_the_desk(db_url: str) -> None:
    refusals = {
        "password123": "the password is on a list of commonly used or breached passwords, which attackers "
        "try first — choose another",
        "aaaaaaaaaaaa": "the password is a simple pattern (a character or piece repeated, a run such as "
        "12345 or abcde, a row of the keyboard or a date) — choose another",
        "Irish Chess Union": "the password contains the site's name — choose another",
    }
    with api.open_database(db_url) as database:
        for password, sentence in refusals.items():
            with database.transaction() as session, pytest.raises(api.RatingDbError) as refused:
                api.add_user(session, "mary", "admin", password, site_name="Irish Chess Union")
            assert str(refused.value) == sentence
        with database.transaction() as session:
            api.add_user(session, "mary", "admin", "correct horse battery", site_name="Irish Chess Union")
        with database.transaction() as session, pytest.raises(api.RatingDbError) as short:
            api.set_password(session, "mary", "eleven char")
        assert str(short.value) == "the password is shorter than 12 characters — choose a longer one"
        with database.transaction() as session:
            api.set_password(session, "mary", "a new passphrase for mary's desk".replace("mary", "her"))


def test_a_script_resets_a_lost_second_factor(db_url: str) -> None:
    from ratingdb.services import second_factor, users

    with api.open_database(db_url) as database:
        with database.transaction() as session:
            api.add_user(session, "aoife", "officer", "correct horse battery")
            user = users.find_user(session, "aoife")
            secret = second_factor.begin_enrolment(session, user, "ratingdb").secret
            second_factor.confirm_enrolment(session, user, pyotp.TOTP(secret).now())
        with database.transaction() as session:
            api.reset_second_factor(session, "aoife")
        with database.read() as session:
            user = users.find_user(session, "aoife")
            assert (user.totp_secret, user.totp_enrolled_at) == (None, None)
            assert second_factor.recovery_codes_left(session, user) == 0
