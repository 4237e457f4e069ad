"""Rating periods (§7.1.1) and list assignment by closing date (§7.1.3, §9.1)."""

from __future__ import annotations

from datetime import date

import pytest

from ratingdb.rating import (
    RATING_TYPES,
    Period,
    RulesError,
    check_rating_type,
    closing_date,
    latest_period_for_event,
    period_for_event,
)


def test_a_period_is_parsed_from_and_printed_as_year_dash_month() -> None:
    assert Period.parse("2025-10") == Period(2025, 10)
    assert str(Period(2025, 1)) == "2025-01"


@pytest.mark.parametrize("text", ["2025-13", "2025-00", "2025-1", "25-10", "2025/10", "", "october"])
def test_a_malformed_period_is_refused_with_a_sentence(text: str) -> None:
    with pytest.raises(RulesError, match="is not a rating period") as caught:
        Period.parse(text)
    assert isinstance(caught.value, ValueError)


def test_a_period_with_month_thirteen_cannot_be_built() -> None:
    with pytest.raises(RulesError):
        Period(2025, 13)


def test_the_period_of_a_date_is_its_month() -> None:
    assert Period.of(date(2025, 10, 31)) == Period(2025, 10)


def test_shifting_crosses_year_boundaries() -> None:
    assert Period(2025, 11).shift(2) == Period(2026, 1)
    assert Period(2025, 3).shift(-3) == Period(2024, 12)
    assert Period(2025, 10).months_since(Period(2024, 10)) == 12
    assert Period(2024, 10).months_since(Period(2025, 10)) == -12


def test_periods_are_ordered_by_time() -> None:
    assert Period(2024, 12) < Period(2025, 1) < Period(2025, 10)


def test_period_2025_10_uses_the_october_list_and_publishes_the_november_list() -> None:
    assert Period(2025, 10).first_day == date(2025, 10, 1)
    assert Period(2025, 10).published_list_date == date(2025, 11, 1)
    assert Period(2025, 12).published_list_date == date(2026, 1, 1)


def test_the_closing_date_is_three_days_before_the_list() -> None:
    assert closing_date(date(2025, 11, 1)) == date(2025, 10, 29)
    assert closing_date(date(2025, 11, 1), 1) == date(2025, 10, 31)


def test_an_event_ending_on_the_closing_date_is_rated_in_that_period() -> None:
    assert period_for_event(date(2025, 10, 29)) == Period(2025, 10)


def test_an_event_ending_the_day_after_the_closing_date_goes_to_the_next_period() -> None:
    assert period_for_event(date(2025, 10, 30)) == Period(2025, 11)


def test_official_fide_events_close_one_day_before_the_list() -> None:
    assert period_for_event(date(2025, 10, 31), official=True) == Period(2025, 10)
    assert period_for_event(date(2025, 10, 31)) == Period(2025, 11)
    assert period_for_event(date(2025, 11, 1), official=True) == Period(2025, 11)


def test_the_number_of_closing_days_is_a_setting() -> None:
    # With 0 days, an event ending 2025-10-31 still makes the 2025-11-01 list.
    assert period_for_event(date(2025, 10, 31), closing_days=0) == Period(2025, 10)
    # With 10 days the 2025-11-01 list closes 2025-10-22.
    assert period_for_event(date(2025, 10, 23), closing_days=10) == Period(2025, 11)


def test_events_early_in_a_month_belong_to_that_month() -> None:
    assert period_for_event(date(2025, 10, 1)) == Period(2025, 10)
    assert period_for_event(date(2025, 12, 29)) == Period(2025, 12)  # list 2026-01-01 closes 2025-12-29


def test_a_late_report_may_wait_until_the_third_list_after_the_event() -> None:
    # Ends 2026-02-15: lists after it are 2026-03-01, 04-01, 05-01; the third is published by 2026-04.
    latest = latest_period_for_event(date(2026, 2, 15))
    assert latest == Period(2026, 4)
    assert latest.published_list_date == date(2026, 5, 1)
    # FIDE's example: rated on the 2026-04-01 list, i.e. in period 2026-03, within the limit.
    assert Period(2026, 3) <= latest


def test_negative_closing_days_are_refused() -> None:
    with pytest.raises(RulesError):
        closing_date(date(2025, 11, 1), -1)


def test_the_three_rating_types_are_known_and_others_refused() -> None:
    assert RATING_TYPES == ("standard", "rapid", "blitz")
    assert check_rating_type("blitz") == "blitz"
    with pytest.raises(RulesError, match="is not a rating type"):
        check_rating_type("bullet")


def test_with_no_closing_days_an_event_ending_on_a_list_date_makes_that_list() -> None:
    # List 2026-01-01 closes 2026-01-01 with 0 days, so it is published by the close of 2025-12.
    assert period_for_event(date(2026, 1, 1), closing_days=0) == Period(2025, 12)
