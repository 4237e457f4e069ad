"""The rules library's own error type; imports nothing (not even ratingdb.errors, to stay pure)."""

from __future__ import annotations


class RulesError(ValueError):
    """A value the FIDE rules cannot be applied to (a bad period, score or rating), as one sentence.

    It derives from ValueError rather than ratingdb.errors.RatingDbError so that ratingdb.rating stays
    free of imports from the rest of the package; callers that show it to a user wrap it.
    """


class UncoveredPeriod(RulesError):
    """No rule set covers the rating type in the period (callers add what to store: `rules add`)."""
