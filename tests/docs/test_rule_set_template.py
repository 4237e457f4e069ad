"""The guide's template for replaying history before 2022 (docs/guide/rule-sets.md) works as it says.

Stored as written, it lets a period of 2019 be closed, which is refused without it, with the rules it
states: the 400-point rule for every player and a floor of 1000.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from sqlalchemy import Engine, text
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from tests import builders as b
from tests.docs.docs_text import DOCS, ROOT, code_blocks

runner = CliRunner()


def template_section() -> str:
    page = (DOCS / "guide" / "rule-sets.md").read_text("utf-8")
    return page[page.index("## Replaying history before 2022") :]


def template() -> str:
    (toml,) = code_blocks(template_section(), "toml")
    return toml


def test_the_shipped_template_is_the_one_the_page_shows() -> None:
    assert (ROOT / "seeds" / "history" / "history-standard-2014.toml").read_text("utf-8") == template()


def test_the_template_replays_a_2019_period(db_url: str, engine: Engine, tmp_path: Path) -> None:
    with db.transaction(engine) as s:
        ash = b.player(s, "Ash, Adam", fide_id=1001)
        birch = b.player(s, "Birch, Bea", fide_id=1002)
        cedar = b.player(s, "Cedar, Cal", fide_id=1003)
        b.imported_list(
            s, "standard", dt.date(2019, 6, 1), {ash: (2000, 20), birch: (1450, 20), cedar: (1002, 40)}
        )
        b.event(
            s,
            "Summer Open",
            dt.date(2019, 6, 8),
            dt.date(2019, 6, 9),
            [(ash, birch, "1"), (birch, cedar, "1")],
        )

    refused = runner.invoke(app, ["--db", db_url, "close-period", "2019-06"])
    assert refused.exit_code == 1
    # The refusal names `rules add` and the template, as the page shows it.
    (shown,) = code_blocks(template_section(), "text")
    assert refused.stderr == shown

    path = ROOT / "seeds" / "history" / "history-standard-2014.toml"  # the template as shipped
    added = runner.invoke(app, ["--db", db_url, "rules", "add", str(path), "--reason", "replaying 2019"])
    assert added.exit_code == 0, added.output
    assert re.search(r"history-standard-2014 \(standard, periods 2014-07 … 2021-12\)", added.stdout)

    closed = runner.invoke(app, ["--db", db_url, "close-period", "2019-06"])
    assert closed.exit_code == 0, closed.output
    assert "history-standard-2014" in closed.stdout
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT fide_id, rating, \"change\" FROM v_list_entry WHERE rating_type = 'standard' "
                "AND CAST(list_date AS VARCHAR(10)) = '2019-07-01' ORDER BY fide_id"
            )
        ).all()
        cedar_change = conn.execute(
            text(
                'SELECT ro, new_rating, "change" FROM v_period_change '
                "WHERE fide_id = 1003 AND period = '2019-06'"
            )
        ).one()
    # Ash 2000 beats Birch 1450: D 550 counts as 400 → PD .92; 20 × (1 − .92) = +1.6 → +2 → 2002.
    # Birch: −.08 against Ash (D −400 after the cap), +.08 beating Cedar (D 448 → 400 → .92): Σ 0 → 1450.
    # Cedar 1002, K 40, loses to Birch: D −448 → −400 → PD .08; 40 × −.08 = −3.2 → −3 → 999, below the
    # template's floor of 1000: unrated on the new list (FIDE's 2024 floor would be 1400).
    assert [tuple(r) for r in rows] == [(1001, 2002, 2), (1002, 1450, 0), (1003, None, None)]
    assert tuple(cedar_change) == (1002, 999, -3)
