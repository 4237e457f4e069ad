"""The initial rating of an unrated player from a pool of results (§7.1.4, §8.2); imports only the stdlib."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal

from .errors import RulesError
from .flags import FLOOR
from .periods import Period
from .points import check_score, round_fraction_to_hundredths, round_half_away_from_zero
from .tables import dp_for_fraction

MIN_GAMES_FOR_RATING: Final = 5
INITIAL_RATING_CAP: Final = 2200
POOL_WINDOW_MONTHS: Final = 26
HYPOTHETICAL_OPPONENT: Final = 1800
HYPOTHETICAL_GAMES: Final = 2

InitialStatus = Literal["rated", "too_few_games", "below_floor"]
InitialMethodName = Literal["fide-2024", "fide-2022", "fixed"]
INITIAL_METHODS: Final[tuple[InitialMethodName, ...]] = ("fide-2024", "fide-2022", "fixed")
# FIDE's 2022 rules: with 50 % or more, Ru = Ra + 20 for each half point above 50 %.
POINTS_PER_HALF_POINT_2022: Final = 20


@dataclass(frozen=True)
class InitialMethod:
    """How a rule set turns an unrated player's pool into a first rating (§8.2).

    "fide-2024": Ra and p with two hypothetical 1800 draws, Ru = Ra + dp (§8.2.2, the default).
    "fide-2022": Ra = the rated opponents' average; 50 % or more → Ra + 20 per half point above 50 %,
    below → Ra + dp(p) (FIDE 2022). "fixed": `start_rating` once the pool holds `min_games` games.
    """

    name: InitialMethodName = "fide-2024"
    min_games: int = MIN_GAMES_FOR_RATING
    window_months: int = POOL_WINDOW_MONTHS
    max_rating: int | None = INITIAL_RATING_CAP
    first_event_rule: bool = True  # §8.2.1: a zero score in the first event is disregarded
    start_rating: int | None = None  # "fixed" only


FIDE_2024_INITIAL: Final = InitialMethod()


@dataclass(frozen=True)
class PoolGame:
    """A result of an unrated player against a rated opponent, kept in the pool (§7.1.4)."""

    opponent_rating: int
    score: int  # hundredths
    period: Period  # the period in which the game was rated / pooled
    event: object  # hashable event key
    event_order: tuple[Any, ...] = field(default=())  # sortable key, e.g. (start_date, event_id)


@dataclass(frozen=True)
class InitialRating:
    """The outcome of §8.2 for one pool: the figures, the games used and whether a rating results."""

    status: InitialStatus
    games: tuple[PoolGame, ...]  # the games used (after the window and first-event rules)
    n: int
    wins_x100: int  # score total in hundredths
    opponent_sum: int  # sum of the real opponents' ratings
    ra: Fraction  # (opponent_sum + 2 × 1800) / (n + 2), not rounded
    p: int  # (score + 1) / (n + 2) rounded to the hundredth (.005 up), in hundredths
    dp: int
    rating: int | None  # Ru, at most 2200, when status == "rated"
    unrounded: Fraction | None  # Ra + dp (None when there are too few games)
    games_needed: int  # 0 when the pool holds 5 or more games
    dropped_first_event: bool  # the first-event-zero rule (§8.2.1) removed games
    dropped_old_games: int  # games outside the 26-month window

    @property
    def ra_rounded(self) -> Fraction:
        """Ra rounded to two decimals for display (13107/7 → 1872.43)."""
        return Fraction(round_half_away_from_zero(100 * self.ra.numerator, self.ra.denominator), 100)


def _first_event(games: Sequence[PoolGame]) -> object:
    # The earliest event by event_order; ties (and an empty order) fall back to the order of the pool.
    first_seen: dict[object, tuple[tuple[Any, ...], int]] = {}
    for index, game in enumerate(games):
        if game.event not in first_seen:
            first_seen[game.event] = (game.event_order, index)
    return min(first_seen, key=lambda event: first_seen[event])


def initial_rating(
    games: Sequence[PoolGame],
    period: Period,
    *,
    first_event_rule: bool = True,
    method: InitialMethod = FIDE_2024_INITIAL,
    floor: int = FLOOR,
) -> InitialRating:
    """Rate an unrated player from their pool when closing `period` (§7.1.4, §8.2.1–§8.2.2).

    - Only results of the 26 periods ending with `period` count; older ones drop out (§7.1.4).
    - If the player scored zero in their first event, that event's games are disregarded (§8.2.1).
      The first event is judged before the window drops old games, so pass the whole history of the
      pool, games older than 26 months included: otherwise the earliest event left in the window would
      be taken for the first. Set `first_event_rule=False` when the rule no longer applies.
    - With at least 5 games: Ra = (Σ opponents + 2 × 1800) / (n + 2), p = (W + 1) / (n + 2) rounded to
      the hundredth, Ru = round_half_away_from_zero(Ra + dp(p)), at most 2200 (§8.2.2).
    - Ru below 1400 is not published: status "below_floor", the pool continues (§7.2.1).
    A rule set may give another `method` (its window, minimum, cap and formula) and `floor`.
    """
    for game in games:
        check_score(game.score)
        if game.period > period:
            raise RulesError(f"a pool game of period {game.period} cannot count in the close of {period}")

    dropped_first_event = False
    candidates = list(games)
    if first_event_rule and method.first_event_rule and candidates:
        first = _first_event(candidates)
        if sum(game.score for game in candidates if game.event == first) == 0:
            candidates = [game for game in candidates if game.event != first]
            dropped_first_event = True

    used = tuple(game for game in candidates if period.months_since(game.period) < method.window_months)
    dropped_old = len(candidates) - len(used)

    n = len(used)
    wins_x100 = sum(game.score for game in used)
    opponent_sum = sum(game.opponent_rating for game in used)
    if method.name == "fide-2024":
        ra = Fraction(opponent_sum + HYPOTHETICAL_GAMES * HYPOTHETICAL_OPPONENT, n + HYPOTHETICAL_GAMES)
        # The two hypothetical games are draws: W + 1 points out of n + 2 games.
        p = round_fraction_to_hundredths(wins_x100 + 100, 100 * (n + HYPOTHETICAL_GAMES))
        dp = dp_for_fraction(p)
    else:
        ra = Fraction(opponent_sum, n) if n else Fraction(0)
        p = round_fraction_to_hundredths(wins_x100, 100 * n) if n else 0
        if method.name == "fixed":
            ra, dp = Fraction(method.start_rating or 0), 0
        elif 2 * wins_x100 >= 100 * n:
            # Half points above 50 %: (W − n/2) / ½ = 2W − n, with W in hundredths.
            dp = POINTS_PER_HALF_POINT_2022 * (2 * wins_x100 - 100 * n) // 100
        else:
            dp = dp_for_fraction(p)

    status: InitialStatus
    rating: int | None = None
    unrounded: Fraction | None = None
    games_needed = max(0, method.min_games - n)
    if games_needed > 0:
        status = "too_few_games"
    else:
        unrounded = ra + dp
        ru = round_half_away_from_zero(unrounded.numerator, unrounded.denominator)
        if method.max_rating is not None:
            ru = min(ru, method.max_rating)
        if ru < floor:
            status = "below_floor"
        else:
            status, rating = "rated", ru

    return InitialRating(
        status=status,
        games=used,
        n=n,
        wins_x100=wins_x100,
        opponent_sum=opponent_sum,
        ra=ra,
        p=p,
        dp=dp,
        rating=rating,
        unrounded=unrounded,
        games_needed=games_needed,
        dropped_first_event=dropped_first_event,
        dropped_old_games=dropped_old,
    )
