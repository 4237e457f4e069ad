"""The rating floor (§7.2.1) and the activity flags i / w / wi (§7.2.2); imports only the stdlib."""

from __future__ import annotations

from typing import Final

from .periods import Period

FLOOR: Final = 1400
ACTIVITY_WINDOW_PERIODS: Final = 12


def below_floor(rating: int, floor: int = FLOOR) -> bool:
    """Whether a new rating is below the floor, 1400 by §7.2.1 (a rule set may set another floor)."""
    return rating < floor


def is_active(last_active: Period | None, period: Period) -> bool:
    """Whether the player had a rated game in the 12 periods ending with `period` (§7.2.2).

    `last_active` is the last period in which the player had a rated game (None: never).
    """
    if last_active is None:
        return False
    return 0 <= period.months_since(last_active) < ACTIVITY_WINDOW_PERIODS


def activity_flag(*, female: bool, active: bool) -> str:
    """The list flag of §7.2.2 as in FIDE's list files: "" active, "i" inactive, "w" woman, "wi" both."""
    if female:
        return "w" if active else "wi"
    return "" if active else "i"
