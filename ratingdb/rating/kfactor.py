"""The development coefficient K for a new list, in the order of §8.3.3; imports only the stdlib."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Final

from .errors import RulesError

K_REACHED_2400 = 10
K_JUNIOR = 40
K_NEW_PLAYER = 40
K_DEFAULT = 20
JUNIOR_MAX_AGE = 18
GAMES_FOR_ESTABLISHED = 30
# The thresholds a K rule may test with `reached`: the database keeps a flag for each (§8.3.3).
TRACKED_REACHED: Final = (2300, 2400)


@dataclass(frozen=True)
class KDecision:
    """The K published on a list and a sentence naming the §8.3.3 rule that gave it."""

    k: int
    rule: str


@dataclass(frozen=True)
class KRule:
    """One line of a rule set's K table (§8.3.3): K `value` when every condition given holds.

    Conditions: the published rating ever `reached` a threshold (2300 or 2400, kept as stored flags);
    a junior by `junior_max_age` (list year − birth year ≤ it, i.e. until the end of the year of that
    birthday), who never reached `unless_reached`; fewer than `fewer_games_than` rated games in total.
    A rule with no condition applies to everyone left. Rules are tried in order; the first match wins.
    """

    value: int
    reached: int | None = None
    junior_max_age: int | None = None
    unless_reached: int | None = None
    fewer_games_than: int | None = None


FIDE_K_RULES: Final[tuple[KRule, ...]] = (
    KRule(K_REACHED_2400, reached=2400),
    KRule(K_JUNIOR, junior_max_age=JUNIOR_MAX_AGE, unless_reached=2300),
    KRule(K_NEW_PLAYER, fewer_games_than=GAMES_FOR_ESTABLISHED),
    KRule(K_DEFAULT),
)


def is_junior(birth_year: int | None, list_year: int, max_age: int = JUNIOR_MAX_AGE) -> bool:
    """A junior until the end of the year of the 18th birthday: list year − birth year ≤ 18 (§8.3.3)."""
    return birth_year is not None and list_year - birth_year <= max_age


def k_factor(
    *,
    reached_2400: bool,
    reached_2300: bool,
    birth_year: int | None,
    games_total: int,
    list_date: date,
    rules: Sequence[KRule] = FIDE_K_RULES,
) -> KDecision:
    """K on the list dated `list_date`, from stored state, rules of §8.3.3 tried in order.

    With FIDE's rules (the default):
    1. The published rating ever reached 2400 → 10, for good (a stored flag, not the current rating).
    2. A junior whose published rating never reached 2300 → 40.
    3. Fewer than 30 rated games in total (the games of the initial rating count) → 40.
    4. Otherwise → 20.
    A rule set may give another ordered list of `KRule`s.
    """
    reached = {2400: reached_2400, 2300: reached_2300}
    year = list_date.year
    for index, rule in enumerate(rules):
        if rule.reached is not None and not reached[rule.reached]:
            continue
        if rule.unless_reached is not None and reached[rule.unless_reached]:
            continue
        if rule.junior_max_age is not None and not is_junior(birth_year, year, rule.junior_max_age):
            continue
        if rule.fewer_games_than is not None and not games_total < rule.fewer_games_than:
            continue
        return KDecision(rule.value, _sentence(rule, rules[:index], games_total, year))
    raise RulesError("the K table has no rule for this player: end it with a rule without conditions")


def _sentence(rule: KRule, earlier: Sequence[KRule], games_total: int, year: int) -> str:
    # The sentences of FIDE's own table read as they always have; other tables reuse the same words.
    k = f"K {rule.value} (§8.3.3)"
    if rule.reached is not None:
        return f"published rating reached {rule.reached} at some time → {k}"
    if rule.junior_max_age is not None:
        never = f" who never reached {rule.unless_reached}" if rule.unless_reached is not None else ""
        return f"junior ({rule.junior_max_age} or younger in {year}){never} → {k}"
    if rule.fewer_games_than is not None:
        return f"{games_total} rated games in total, fewer than {rule.fewer_games_than} → {k}"
    parts = []
    if any(r.fewer_games_than is not None for r in earlier):
        parts.append(f"{games_total} rated games")
    parts += [f"never reached {r.reached}" for r in earlier if r.reached is not None]
    return f"{' and '.join(parts) if parts else 'every player'} → {k}"
