"""Rating change of a rated player for a whole period (§8.3.2–§8.3.4, 700 rule); imports only the stdlib."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .errors import RulesError
from .points import check_score, round_half_away_from_zero, round_with
from .rules import MAX_K_TIMES_GAMES, RuleSet, capped_difference, expected_score_under, upgraded_games

_HUNDREDTH = Decimal("0.01")


@dataclass(frozen=True)
class RatedGame:
    """One rated game of the player (§8.3.2), with the ratings of the list used for its event."""

    own_rating: int  # the player's rating on the list used for this game's event
    opponent_rating: int  # the opponent's rating on that list
    score: int  # 100 / 50 / 0
    event: object = None  # any hashable key grouping games into events


@dataclass(frozen=True)
class GameLine:
    """One game of the calculation record: D after the cap, PD, score and dR = score − PD (§8.3.2)."""

    own_rating: int
    opponent_rating: int
    d: int  # after the cap
    pd: int  # hundredths
    score: int  # hundredths
    dr: int  # score − pd, hundredths
    event: object

    @property
    def pd_decimal(self) -> Decimal:
        """PD as a decimal (36 → 0.36)."""
        return Decimal(self.pd).scaleb(-2)

    @property
    def dr_decimal(self) -> Decimal:
        """dR as a decimal (−36 → −0.36)."""
        return Decimal(self.dr).scaleb(-2)


@dataclass(frozen=True)
class EventSum:
    """The games of one event within a period's change (§8.3.2): counts and sums in hundredths."""

    event: object
    n: int
    score: int  # hundredths
    sum_dr: int  # hundredths
    ro: int  # the player's rating used in the event (that of its first game)
    rc_sum: int  # sum of the opponents' ratings
    k: int  # K used, after the 700 rule
    k_sum_dr: int  # K × sum_dr, hundredths of rating points

    @property
    def rc(self) -> Decimal:
        """Average opponent rating Rc, rounded to two decimals (half away from zero)."""
        return Decimal(round_half_away_from_zero(100 * self.rc_sum, self.n)).scaleb(-2)

    @property
    def change_decimal(self) -> Decimal:
        """This event's share of the change, unrounded (K × Σ dR)."""
        return Decimal(self.k_sum_dr).scaleb(-2)


@dataclass(frozen=True)
class PeriodChange:
    """A rated player's whole period: per-game lines, per-event sums, K, one rounding (§8.3.2–§8.3.4)."""

    rating: int  # rating on the list in force
    k_base: int  # K on the list in force
    k: int  # K after the 700 rule
    n: int
    games: tuple[GameLine, ...]
    events: tuple[EventSum, ...]  # first-seen order
    sum_dr: int  # hundredths
    k_sum_dr: int  # K × sum_dr in hundredths of rating points: the exact unrounded change × 100
    change: int  # rounded once, half away from zero
    new_rating: int  # rating + change; the floor (§7.2.1) is not applied here

    @property
    def unrounded_change(self) -> Decimal:
        """K × Σ dR before the single rounding (9248 → 92.48)."""
        return Decimal(self.k_sum_dr).scaleb(-2)

    @property
    def unrounded_fraction(self) -> Fraction:
        """K × Σ dR as an exact fraction."""
        return Fraction(self.k_sum_dr, 100)


def k_after_700_rule(k: int, n: int, limit: int | None = MAX_K_TIMES_GAMES) -> int:
    """K for a period with n rated games: if K × n exceeds 700, K = floor(700 / n) (§8.3.3).

    K 20 with 39 games → 17; K 40 with 18 games → 38; K 20 with 35 games stays 20 (700 is not above 700).
    A rule set may give another `limit`, or None for no such rule.
    """
    if k < 0 or n < 0:
        raise RulesError(f"K and the number of games cannot be negative (K {k}, {n} games)")
    if limit is not None and n > 0 and k * n > limit:
        return limit // n
    return k


def game_line(game: RatedGame, rules: RuleSet, *, upgrade: bool = True) -> GameLine:
    """D after the cap (§8.3.1), PD from table 8.1.2 and dR = score − PD (§8.3.2) for one game.

    `upgrade`: whether a one-upgrade rule set may cap this game (see `upgraded_games`).
    """
    score = check_score(game.score)
    d = capped_difference(game.own_rating, game.opponent_rating, rules, upgrade=upgrade)
    pd = expected_score_under(d, rules)
    return GameLine(game.own_rating, game.opponent_rating, d, pd, score, score - pd, game.event)


def rating_change(rating: int, k: int, games: Sequence[RatedGame], rules: RuleSet) -> PeriodChange:
    """The change of a rated player for one period: ΔR = K × Σ(score − PD), rounded once (§8.3.2–§8.3.4).

    `games` are all the player's rated games of the period, every event together, each carrying the
    ratings of the list its event used (FIDE's practice). K is the K of the list in force, reduced by the
    700 rule over all n games. The change is rounded once for the period — not per event — because
    rounding per event would make the result depend on how the games are split into events.
    Which games are rated (forfeits, unrated opponents, the rapid/blitz 600/2600 exclusion of
    `excluded_by_difference`) is decided by the caller; every game given here is rated.
    """
    n = len(games)
    k_used = k_after_700_rule(k, n, rules.k_times_games_max)
    upgraded = upgraded_games([(g.own_rating - g.opponent_rating, g.event) for g in games], rules)
    lines = tuple(game_line(game, rules, upgrade=i in upgraded) for i, game in enumerate(games))

    # Per-event sums in first-seen order; dicts keep insertion order.
    grouped: dict[object, list[GameLine]] = {}
    for line in lines:
        grouped.setdefault(line.event, []).append(line)
    events = tuple(
        EventSum(
            event=event,
            n=len(event_lines),
            score=sum(line.score for line in event_lines),
            sum_dr=sum(line.dr for line in event_lines),
            ro=event_lines[0].own_rating,
            rc_sum=sum(line.opponent_rating for line in event_lines),
            k=k_used,
            k_sum_dr=k_used * sum(line.dr for line in event_lines),
        )
        for event, event_lines in grouped.items()
    )

    sum_dr = sum(line.dr for line in lines)
    k_sum_dr = k_used * sum_dr
    change = round_with(k_sum_dr, 100, rules.rounding)
    return PeriodChange(
        rating=rating,
        k_base=k,
        k=k_used,
        n=n,
        games=lines,
        events=events,
        sum_dr=sum_dr,
        k_sum_dr=k_sum_dr,
        change=change,
        new_rating=rating + change,
    )
