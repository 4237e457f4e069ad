"""The calculation tables' rows are written in Python (ratingdb.site.publish.game_rows): every text in them
must be escaped exactly as the templates escape it."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import escape

from ratingdb.i18n import Language
from ratingdb.reports.lists import EventRecord, GameRecord
from ratingdb.site.publish import game_rows, html_text


@given(st.text())
def test_html_text_escapes_as_markupsafe_does(text: str) -> None:
    assert html_text(text) == str(escape(text))


def test_a_game_row_escapes_the_opponent_and_the_national_id() -> None:
    game = GameRecord(
        round=3, opponent="O'Brien <b>&</b> \"Jr\"", opponent_fide_id=None, opponent_national_id="<i>7",
        opponent_rating=1850, own_rating=1900, d=50, pd_x100=57, score_x100=100, opponent_id=9,
    )  # fmt: skip
    event = EventRecord(
        1, "Open", dt.date(2025, 1, 4), dt.date(2025, 1, 5), dt.date(2025, 1, 1),
        1900, 185000, 1, 100, 43, 20, 860, None, [game],
    )  # fmt: skip
    site = SimpleNamespace(language=Language("en"), urls={9: "players/9.html"})
    row = game_rows(site, event, "../")  # type: ignore[arg-type]
    # By hand: round, the linked name escaped, no FIDE ID, the national ID escaped, rating, D, PD 0.57,
    # score 1.00, score − PD = 1.00 − 0.57 = +0.43.
    assert row == (
        '<tr><td>3<td><a href="../players/9.html">O&#39;Brien &lt;b&gt;&amp;&lt;/b&gt; &#34;Jr&#34;</a>'
        "<td><td>&lt;i&gt;7<td>1850<td>50<td>0.57<td>1.00<td>+0.43</tr>\n"
    )
