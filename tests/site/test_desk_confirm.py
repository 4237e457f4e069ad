"""Withdrawing a submission, disabling an account and reopening a period ask first (issue 46, item 7: each
acted on one click). The question is a page of its own, with a button that sends the same form again with
confirm=yes: no script (the site's CSP allows none). The page comes from the action run in a dry run, so a
refusal is said at once (the last admin) and nothing changes until the button is pressed.
"""

from __future__ import annotations

import html

from sqlalchemy import Engine, select

from ratingdb import db
from ratingdb.schema.models import Submission
from ratingdb.services import users
from tests.site.test_desk_permissions import browser, csrf, setup_people, sign_in


def text_of(response: object) -> str:
    return html.unescape(response.text)  # type: ignore[attr-defined]


def test_withdrawing_a_submission_asks_first_and_a_no_changes_nothing(db_url: str, engine: Engine) -> None:
    setup_people(engine)
    with db.transaction(engine) as session:
        session.execute(Submission.__table__.update().values(status="submitted"))
    with browser(db_url) as organiser:
        assert sign_in(organiser, "organiser_a") == 303
        page = text_of(organiser.get("/desk/submissions/1"))
        assert 'action="/desk/submissions/1/withdraw"' in page
        asked = organiser.post("/desk/submissions/1/withdraw", data={"csrftoken": csrf(organiser)})
        shown = text_of(asked)
        assert asked.status_code == 200 and "<h1>Withdraw submission 1?</h1>" in shown
        assert "round_robin.trf is taken back: the officer will not import it." in shown
        assert '<input type="hidden" name="confirm" value="yes">' in shown
        assert '<a href="/desk/submissions/1" id="cancel">' in shown
        german = text_of(
            organiser.post(
                "/desk/submissions/1/withdraw",
                data={"csrftoken": csrf(organiser)},
                headers={"accept-language": "de"},
            )
        )
        assert "<h1>Einreichung 1 zurückziehen?</h1>" in german and ">Ja, zurückziehen</button>" in german
        with db.transaction(engine, dry_run=True) as session:
            assert session.scalars(select(Submission.status)).one() == "submitted"
        done = organiser.post(
            "/desk/submissions/1/withdraw",
            data={"csrftoken": csrf(organiser), "confirm": "yes"},
            follow_redirects=False,
        )
        assert (done.status_code, done.headers["location"]) == (303, "/desk/submissions")
        # Asked again once withdrawn: refused at once, not asked.
        again = organiser.post("/desk/submissions/1/withdraw", data={"csrftoken": csrf(organiser)})
        assert again.status_code == 400
        assert "submission 1 is withdrawn: it can no longer be withdrawn" in text_of(again)
    with db.transaction(engine, dry_run=True) as session:
        assert session.scalars(select(Submission.status)).one() == "withdrawn"


def test_disabling_an_account_asks_first_and_the_last_admin_is_refused_before_asking(
    db_url: str, engine: Engine
) -> None:
    setup_people(engine)
    with browser(db_url) as admin:
        assert sign_in(admin, "admin") == 303
        asked = text_of(admin.post("/desk/users/officer/disable", data={"csrftoken": csrf(admin)}))
        assert "<h1>Disable the account officer?</h1>" in asked
        assert "Its sessions end at once, and it cannot sign in until an admin enables it again." in asked
        assert 'action="/desk/users/officer/disable"' in asked and "This is your own account" not in asked
        german = text_of(
            admin.post(
                "/desk/users/officer/disable",
                data={"csrftoken": csrf(admin)},
                headers={"accept-language": "de"},
            )
        )
        assert "<h1>Das Konto officer sperren?</h1>" in german
        with db.transaction(engine, dry_run=True) as session:
            assert users.find_user(session, "officer").disabled is False
        last = admin.post("/desk/users/admin/disable", data={"csrftoken": csrf(admin)})
        assert last.status_code == 400 and "confirm" not in last.text  # refused, not asked
        done = admin.post(
            "/desk/users/officer/disable",
            data={"csrftoken": csrf(admin), "confirm": "yes"},
            follow_redirects=False,
        )
        assert (done.status_code, done.headers["location"]) == (303, "/desk/users")
    with db.transaction(engine, dry_run=True) as session:
        assert users.find_user(session, "officer").disabled is True
