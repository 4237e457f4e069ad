"""The federation's numbering on the admin's desk (issue 47): shown, changed and audited, and the
renumbering of made-up national IDs checked, then done — the CLI's service (services.federation)."""

from __future__ import annotations

import html
from pathlib import Path

from sqlalchemy import Engine, select

from ratingdb import db
from ratingdb.schema.models import AuditEntry, Player, PlayerOldId
from ratingdb.services import users
from tests.cli.test_matching_stories import ok
from tests.cli.test_register_files import MASTERS, empty
from tests.site.test_desk_permissions import PASSWORD, browser, csrf, sign_in

__all__ = ["empty"]


def test_the_admin_sets_the_numbering_and_renumbers_made_up_ids_on_the_desk(
    empty: str, engine: Engine, tmp_path: Path
) -> None:
    ok(empty, "import-trf", MASTERS, "--type", "standard", "--federation-column", "mixed")  # 1 … 34 made up
    with db.transaction(engine) as session:
        users.add_user(session, "root", "admin", PASSWORD)
    with browser(empty) as admin:
        assert sign_in(admin, "root") == 303
        page = html.unescape(admin.get("/desk/federation").text)
        assert "<dd>numbers after the highest registered, from 1 on</dd>" in page
        assert "<dd>not set</dd>" in page
        # Renumbering while the numbering could give such numbers again is refused, in the page's language.
        refused = admin.post(
            "/desk/federation/renumber",
            data={"csrftoken": csrf(admin), "low": "1", "high": "34", "reason": "made up", "check": "yes"},
            headers={"accept-language": "de"},
        )
        assert refused.status_code == 400
        assert (
            "die Nummerierung vergibt Nummern ab 1, die wie die neu zu nummerierenden die eigenen des "
            "Verbands sein können" in html.unescape(refused.text)
        )
        # The numbering: the prefix R and the pattern of the federation's numbers (1 to 5 digits).
        form = {
            "national_ids": "prefix",
            "prefix": "R",
            "start": "1",
            "pattern": "[0-9]{1,5}",
            "reason": "ICU",
        }
        saved = admin.post(
            "/desk/federation", data={"csrftoken": csrf(admin), **form}, follow_redirects=False
        )
        assert saved.status_code == 303
        page = html.unescape(admin.get("/desk/federation").text)
        assert "<dd>R1, R2, … (prefix R)</dd>" in page and "<dd><code>[0-9]{1,5}</code></dd>" in page
        # The check lists what renumbering would do and changes nothing; then it is done.
        renumber = {"low": "1", "high": "34", "reason": "made up before the prefix"}
        checked = html.unescape(
            admin.post(
                "/desk/federation/renumber", data={"csrftoken": csrf(admin), **renumber, "check": "yes"}
            ).text
        )
        assert "What renumbering would do (nothing was changed)" in checked
        assert "<tr><td>Wilson, Alexandra</td><td>26</td><td>R26</td></tr>" in checked
        with db.transaction(engine) as session:
            assert (
                session.scalar(select(Player.national_id).where(Player.name == "Wilson, Alexandra")) == "26"
            )
        done = html.unescape(
            admin.post("/desk/federation/renumber", data={"csrftoken": csrf(admin), **renumber}).text
        )
        assert '<h2 id="renumbered">Renumbered</h2>' in done
    with db.transaction(engine) as session:
        assert session.scalar(select(Player.national_id).where(Player.name == "Wilson, Alexandra")) == "R26"
        assert (
            session.scalar(
                select(PlayerOldId.national_id).join(Player).where(Player.name == "Wilson, Alexandra")
            )
            == "26"
        )
        audit = session.execute(
            select(AuditEntry.action, AuditEntry.actor, AuditEntry.reason)
            .where(AuditEntry.action.startswith("federation-"))
            .order_by(AuditEntry.id)
        ).all()
        assert [tuple(a) for a in audit] == [
            ("federation-set", "web:root", "ICU"),
            ("federation-renumber", "web:root", "made up before the prefix"),
        ]
