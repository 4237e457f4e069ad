"""A calculation's games as its table shows them: ratingdb.site.publish.game_rows gives the cells (data),
the template writes the rows and escapes every text, as everywhere else on the pages."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from ratingdb.i18n import Language
from ratingdb.reports.lists import EventRecord, GameRecord
from ratingdb.site.publish import environment, game_rows


def test_a_game_row_shows_the_figures_and_escapes_the_opponent_and_the_national_id() -> None:
    game = GameRecord(
        round=3, opponent="O'Brien <b>&</b> \"Jr\"", opponent_fide_id=None, opponent_national_id="<i>7",
        opponent_rating=1850, own_rating=1900, d=50, pd_x100=57, score_x100=100, opponent_id=9, game_id=4,
    )  # fmt: skip
    event = EventRecord(
        1, "Open", dt.date(2025, 1, 4), dt.date(2025, 1, 5), dt.date(2025, 1, 1),
        1900, 185000, 1, 100, 43, 20, 860, None, [game],
    )  # fmt: skip
    site = SimpleNamespace(language=Language("en"), urls={9: "players/9.html"})
    cells = game_rows(site, event)  # type: ignore[arg-type]
    # By hand: round 3, the opponent with their page, no FIDE ID, rating 1850, D 50, PD 0.57, score 1.00,
    # score − PD = 1.00 − 0.57 = +0.43.
    assert cells == [(3, game.opponent, "players/9.html", "", "<i>7", 1850, 50, "0.57", "1.00", "+0.43")]
    table = environment("en").from_string(
        '{% from "calc_events.html" import calc_events with context %}{{ calc_events(events, "../") }}'
    )
    keeping_nothing = SimpleNamespace(shared=lambda key, write, *values: write(*values))  # as Site.shared
    page = table.render(events=[(event, "", cells)], site=keeping_nothing)
    assert (
        '<tr><td>3<td><a href="../players/9.html">O&#39;Brien &lt;b&gt;&amp;&lt;/b&gt; &#34;Jr&#34;</a>'
        "<td><td>&lt;i&gt;7<td>1850<td>50<td>0.57<td>1.00<td>+0.43</tr>\n"
    ) in page
