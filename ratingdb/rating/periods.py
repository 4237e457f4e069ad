"""Rating types, rating periods and list assignment (§7.1.1, §7.1.3, §9.1); imports only the stdlib."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final, Literal, get_args

from .errors import RulesError

RatingType = Literal["standard", "rapid", "blitz"]
RATING_TYPES: Final[tuple[RatingType, ...]] = get_args(RatingType)

CLOSING_DAYS: Final = 3
OFFICIAL_CLOSING_DAYS: Final = 1

_PERIOD_PATTERN: Final = re.compile(r"(\d{4})-(\d{2})")


def check_rating_type(rating_type: str) -> RatingType:
    """Return `rating_type` if it is standard, rapid or blitz: each has its own lists and periods (§7.1.1)."""
    for known in RATING_TYPES:
        if rating_type == known:
            return known
    raise RulesError(f"{rating_type!r} is not a rating type: expected one of {', '.join(RATING_TYPES)}")


@dataclass(frozen=True, order=True)
class Period:
    """A rating period "YYYY-MM": the month in which the list dated YYYY-MM-01 is in force (§7.1.1).

    Closing period 2025-10 rates its events and publishes the list dated 2025-11-01.
    """

    year: int
    month: int

    def __post_init__(self) -> None:
        if not 1 <= self.month <= 12:
            raise RulesError(f"month {self.month} is not a month: a rating period needs a month 1–12")
        if not 1 <= self.year <= 9998:
            raise RulesError(f"year {self.year} is out of range for a rating period")

    @classmethod
    def parse(cls, text: str) -> Period:
        """Read a period written "YYYY-MM" (for example "2025-10"), as §7.1.1 periods are named."""
        match = _PERIOD_PATTERN.fullmatch(text.strip())
        if match is None:
            raise RulesError(f"{text!r} is not a rating period: write it as YYYY-MM, for example 2025-10")
        year, month = int(match.group(1)), int(match.group(2))
        if not 1 <= month <= 12:
            raise RulesError(f"{text!r} is not a rating period: the month must be 01 to 12")
        return cls(year, month)

    @classmethod
    def of(cls, d: date) -> Period:
        """The period containing date `d` (§7.1.1)."""
        return cls(d.year, d.month)

    def __str__(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    def _index(self) -> int:
        return self.year * 12 + (self.month - 1)

    def shift(self, months: int) -> Period:
        """The period `months` later (earlier if negative)."""
        year, month0 = divmod(self._index() + months, 12)
        return Period(year, month0 + 1)

    def months_since(self, other: Period) -> int:
        """self − other in months: Period(2025, 10).months_since(Period(2024, 10)) == 12."""
        return self._index() - other._index()

    @property
    def first_day(self) -> date:
        """The date of the list in force during this period (2025-10 → 2025-10-01)."""
        return date(self.year, self.month, 1)

    @property
    def published_list_date(self) -> date:
        """The date of the list that closing this period publishes (2025-10 → 2025-11-01)."""
        return self.shift(1).first_day


def closing_date(list_date: date, closing_days: int = CLOSING_DAYS) -> date:
    """The closing date of a list: `closing_days` before the list date (§7.1.3; 2025-11-01 → 2025-10-29)."""
    if closing_days < 0:
        raise RulesError(f"closing days cannot be negative, got {closing_days}")
    return list_date - timedelta(days=closing_days)


def period_for_event(
    end_date: date,
    *,
    official: bool = False,
    closing_days: int = CLOSING_DAYS,
    official_closing_days: int = OFFICIAL_CLOSING_DAYS,
) -> Period:
    """The period whose close rates an event ending on `end_date` (§7.1.3).

    The event belongs to the first list whose closing date is on or after its end date; the result is
    the period whose close publishes that list. Official FIDE events use `official_closing_days` (1).
    An event ending 2025-10-29 → 2025-10 (list 2025-11-01, closing 2025-10-29); 2025-10-30 → 2025-11.
    """
    days = official_closing_days if official else closing_days
    # Start one period early: with 0 closing days an event ending on a list date makes that very list.
    period = Period.of(end_date).shift(-1)
    while closing_date(period.published_list_date, days) < end_date:
        period = period.shift(1)
    return period


def latest_period_for_event(
    end_date: date,
    *,
    official: bool = False,
    closing_days: int = CLOSING_DAYS,
    official_closing_days: int = OFFICIAL_CLOSING_DAYS,
) -> Period:
    """The last period that may rate a late-reported event: the third list after it ends (§9.1).

    That is the natural period of `period_for_event` shifted by two.
    """
    natural = period_for_event(
        end_date, official=official, closing_days=closing_days, official_closing_days=official_closing_days
    )
    return natural.shift(2)
