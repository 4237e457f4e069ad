"""A calculation's write-up is in the terms of the rule set that computed it (issue 51): a first rating under
the history template (FIDE's 2022 method) reads with the 2022 formula and adds up; a change names its
rounding. The sentences are the ones `ratingdb calculation`, the pages, the API and the live pages print."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sqlalchemy import Engine

from ratingdb import db
from ratingdb.rating import Period
from ratingdb.reports.lists import calculation, calculation_summary
from ratingdb.schema.models import Player
from ratingdb.services.rules import add_rule_set
from tests import builders as b
from tests.integration.test_close import close
from tests.unit.rating.test_working import check_step

HISTORY = (Path(__file__).parents[2] / "seeds" / "history" / "history-standard-2014.toml").read_text(
    encoding="utf-8"
)
MARCH_2015 = Period(2015, 3)


def _summary(engine: Engine, player_id: int, period: Period = MARCH_2015) -> list[str]:
    with db.transaction(engine) as s:
        player = s.get(Player, player_id)
        return calculation_summary(calculation(s, player, period, "standard"))


def _steps(line: str) -> list[str]:
    """The equations of a summary line: the parts after its words, up to the outcome."""
    body = line.split("): ", 1)[1]
    return [part for part in body.split("; ") if " = " in part]


def _pool(engine: Engine, template: str, opponents: list[tuple[int, str]]) -> tuple[int, list[int]]:
    with db.transaction(engine) as s:
        add_rule_set(s, template, source="history-standard-2014.toml")
        new = b.player(s, "New, N")
        rated = [b.player(s, f"Rated, {i}") for i in range(len(opponents))]
        listed = {p: (r, 20) for p, (r, _) in zip(rated, opponents, strict=True)}
        b.imported_list(s, "standard", MARCH_2015.first_day, listed)
        games = [(new, p, result) for p, (_, result) in zip(rated, opponents, strict=True)]
        b.event(s, "Open", dt.date(2015, 3, 7), dt.date(2015, 3, 8), games)
        return new.id, [p.id for p in rated]


def test_a_2237_draw_in_one_pooled_game_reads_with_the_2022_formula_and_adds_up(engine: Engine) -> None:
    # The trial case of issue 51: one pooled game, a draw against 2237, under the history template
    # (method fide-2022). The template asks 5 games; the replay rated one, so the minimum is 1 here.
    # FIDE 2022: Ra = 2237 / 1 = 2237; 0.5 of 1 is 50 %, no half point above: dp = 20 × (2 × 0.5 − 1) = 0;
    # Ru = 2237. (The 2024 text printed "(2237 + 2 × 1800) / 3 = 1945.67, dp = 0 → 2237", which does not add.)
    one_game = HISTORY.replace("min_games = 5\n", "min_games = 1\n")
    assert one_game != HISTORY
    new, _ = _pool(engine, one_game, [(2237, "=")])
    assert close(engine, MARCH_2015).rules == "history-standard-2014"
    first = _summary(engine, new)[0]
    assert first == (
        "Unrated: 1 pooled games (FIDE's 2022 method: 20 per half point above half the points, else dp): "
        "Ra = Σ / n = 2237 / 1 = 2237.00; dp = 20 × (2 × W − n) = 20 × (2 × 0.50 − 1) = 0; "
        "Ru = Ra + dp = 2237 / 1 + 0 = 2237.00 → 2237; first rating 2237"
    )
    assert [check_step(step) for step in _steps(first)][-1] == 2237


def test_five_games_under_the_unedited_history_template_add_up_to_the_published_first_rating(
    engine: Engine,
) -> None:
    # By hand, FIDE 2022: opponents 2237 + 2100 + 2300 + 2200 + 2163 = 11000, Ra = 2200; score 1 + 1 + 1 +
    # ½ + 0 = 3.5 of 5, above 50 %: 2 × 3.5 − 5 = 2 half points → dp 40 → Ru 2240 (no cap in this template).
    new, _ = _pool(engine, HISTORY, [(2237, "1"), (2100, "1"), (2300, "1"), (2200, "="), (2163, "0")])
    close(engine, MARCH_2015)
    first = _summary(engine, new)[0]
    assert "Ra = Σ / n = 11000 / 5 = 2200.00; dp = 20 × (2 × W − n) = 20 × (2 × 3.50 − 5) = 40" in first
    assert [check_step(step) for step in _steps(first)][-1] == 2240
    assert first.endswith("; first rating 2240")


def test_a_change_under_the_fide_rules_names_its_rounding_and_adds_up(engine: Engine) -> None:
    # FIDE 2025-10: 2000 (K 20) beats 2000: PD .50, Σ = +.50, K × Σ = 10.00 → +10, Rn = 2010.
    with db.transaction(engine) as s:
        a, c = b.player(s, "A, A"), b.player(s, "C, C")
        b.imported_list(s, "standard", dt.date(2025, 11, 1), {a: (2000, 20), c: (2000, 20)})
        b.event(s, "Club", dt.date(2025, 11, 5), dt.date(2025, 11, 5), [(a, c, "1")])
        a_id = a.id
    close(engine, Period(2025, 11))
    line = _summary(engine, a_id, Period(2025, 11))[0]
    assert line == (
        "Ro 2000, K 20; 1 games; K × Σ(score − PD) = 20 × 0.50 = 10.00 → +10 (rounded once, half away from "
        "zero, §8.3.4); Rn = Ro + change = 2000 + 10 = 2010"
    )
