"""The development coefficient K for a new list, in the order of §8.3.3; imports only the stdlib."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

K_REACHED_2400 = 10
K_JUNIOR = 40
K_NEW_PLAYER = 40
K_DEFAULT = 20
JUNIOR_MAX_AGE = 18
GAMES_FOR_ESTABLISHED = 30


@dataclass(frozen=True)
class KDecision:
    """The K published on a list and a sentence naming the §8.3.3 rule that gave it."""

    k: int
    rule: str


def is_junior(birth_year: int | None, list_year: int) -> bool:
    """A junior until the end of the year of the 18th birthday: list year − birth year ≤ 18 (§8.3.3)."""
    return birth_year is not None and list_year - birth_year <= JUNIOR_MAX_AGE


def k_factor(
    *, reached_2400: bool, reached_2300: bool, birth_year: int | None, games_total: int, list_date: date
) -> KDecision:
    """K on the list dated `list_date`, from stored state, rules of §8.3.3 tried in order.

    1. The published rating ever reached 2400 → 10, for good (a stored flag, not the current rating).
    2. A junior whose published rating never reached 2300 → 40.
    3. Fewer than 30 rated games in total (the games of the initial rating count) → 40.
    4. Otherwise → 20.
    """
    if reached_2400:
        return KDecision(K_REACHED_2400, "published rating reached 2400 at some time → K 10 (§8.3.3)")
    year = list_date.year
    if not reached_2300 and is_junior(birth_year, year):
        return KDecision(K_JUNIOR, f"junior (18 or younger in {year}) who never reached 2300 → K 40 (§8.3.3)")
    if games_total < GAMES_FOR_ESTABLISHED:
        return KDecision(K_NEW_PLAYER, f"{games_total} rated games in total, fewer than 30 → K 40 (§8.3.3)")
    return KDecision(K_DEFAULT, f"{games_total} rated games and never reached 2400 → K 20 (§8.3.3)")
