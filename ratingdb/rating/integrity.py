"""Integrity screening from results alone: signals that an event may be manipulated; imports only the stdlib.

Pure: it is handed the events, games and ratings of a window of periods and returns, per screened event,
a level (`high`, `medium`, `low`, `none`) and its signals, each with a code, the players concerned and
the evidence in numbers. It is a screen, not a verdict: it says where the officer should look
(docs/guide/integrity.md gives each signal's arithmetic, thresholds and a worked example).

The model of "expected" is FIDE's table 8.1.2 (§8.1.2) with the real rating difference (no cap): a
player's score over n games against rated opponents has mean E = Σ PD and, each game taken as a
Bernoulli trial of mean PD, variance V = Σ PD (1 − PD); z = (S − E) / √V. Draws make the true variance
smaller, so z is if anything understated. Every threshold is a field of `IntegrityThresholds`, which a
rule file's optional [integrity] table sets (ratingdb.rating.rulefile).

Every signal is near-linear in the games of the window: counts in dictionaries, one union-find, one
sort of each player's events.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, NamedTuple

from .tables import expected_score

Level = Literal["none", "low", "medium", "high"]
LEVELS: Final[tuple[Level, ...]] = ("none", "low", "medium", "high")
_RANK: Final = {level: index for index, level in enumerate(LEVELS)}

REPEATED_PAIRING: Final = "repeated-pairing"
CLOSED_POOL: Final = "closed-pool"
CAP_FARMING: Final = "cap-farming"
IMPROBABLE_RESULT: Final = "improbable-result"
IMPROBABLE_MIX: Final = "improbable-mix"
FABRICATED_FIELD: Final = "fabricated-field"
SCHEDULE_CLASH: Final = "schedule-clash"
TOO_MANY_ROUNDS: Final = "too-many-rounds"
DUPLICATE_RESULTS: Final = "duplicate-results"
CODES: Final = (
    REPEATED_PAIRING, CLOSED_POOL, CAP_FARMING, IMPROBABLE_RESULT, IMPROBABLE_MIX, FABRICATED_FIELD,
    SCHEDULE_CLASH, TOO_MANY_ROUNDS, DUPLICATE_RESULTS,
)  # fmt: skip

# Scores in hundredths by result code (formats/limits.RESULT_CODES): a played game is 1, = or 0.
PLAYED_SCORE: Final = {"1": 100, "=": 50, "0": 0}


@dataclass(frozen=True)
class IntegrityThresholds:
    """When a pattern becomes a signal, and at what level; a rule file's [integrity] table sets them.

    The defaults and why each is what it is are in docs/guide/integrity.md ("Thresholds").
    """

    window_months: int = 12  # repeated pairings and closed pools look back this many periods
    # repeated pairings: a pair's games in the window beyond what its events' formats explain
    repeated_min_games: int = 4
    repeated_one_sided: float = 0.75  # one side's share of the pair's points that makes it medium
    # closed pools: a component of the window's games this small, its pairs meeting this often
    pool_max_players: int = 6
    pool_min_meetings: float = 2.0
    # improbable results: |z| of one player's score (medium), of the favourites' score in an event
    improbable_z: float = 3.0
    improbable_min_games: int = 5
    mix_z: float = 4.0
    mix_min_games: int = 20
    # 400-point farming: share of a player's period against opponents more than the cap below, and
    # the points the cap gave (K × Σ (PD uncapped − PD capped)) that make it medium
    farming_min_share: float = 0.6
    farming_min_games: int = 8
    farming_min_gain: float = 5.0
    # fabricated fields: newcomers (unrated, no earlier game) who make up the field and only lose
    fabricated_min_new: int = 10
    fabricated_min_share: float = 0.5
    fabricated_max_score: float = 0.1  # the newcomers' share of the points in their games
    fabricated_one_winner: float = 0.5  # one player's share of the newcomers' games that they won
    fabricated_letter_share: float = 0.4  # newcomers' surnames on one initial (high with the rest)
    # schedule clashes: events this short count (a league over months overlaps everything)
    clash_max_days: int = 10
    max_rounds_per_day: int | None = None  # None: 3 standard, 12 rapid, 30 blitz, 3 otherwise
    # duplicate results: crosstables this big whose shape equals another event's
    duplicate_min_games: int = 10


DEFAULT_THRESHOLDS: Final = IntegrityThresholds()
_ROUNDS_PER_DAY: Final = {"standard": 3, "rapid": 12, "blitz": 30}


def rounds_per_day(thresholds: IntegrityThresholds, rating_type: str) -> int:
    """The most rounds a day an event of `rating_type` may play before `too-many-rounds` (default by type)."""
    if thresholds.max_rounds_per_day is not None:
        return thresholds.max_rounds_per_day
    return _ROUNDS_PER_DAY.get(rating_type, 3)


class ScreenGame(NamedTuple):
    """One pairing as imported: black None for a bye; `played` when it was played over the board (§5.1)."""

    event_id: int
    round: int
    date: dt.date | None
    white: int
    black: int | None
    white_result: str
    black_result: str | None
    played: bool


@dataclass(frozen=True)
class ScreenEvent:
    """An event of the window: its dates, rounds and players (ids)."""

    id: int
    name: str
    rating_type: str
    period: str
    start: dt.date
    end: dt.date
    rounds: int
    players: tuple[int, ...]
    # The file's SHA-256: one file rated under several types (standard and a national list) is one event,
    # never a clash or a copy of itself.
    source: str = ""

    def same_file(self, other: ScreenEvent) -> bool:
        return bool(self.source) and self.source == other.source


@dataclass(frozen=True)
class Signal:
    """One finding: a code, its level, the players concerned and the evidence in numbers."""

    code: str
    level: Level
    players: tuple[int, ...]
    evidence: Mapping[str, int | float | str]
    summary: str  # one English sentence with the figures


@dataclass(frozen=True)
class RiskReport:
    """An event's level (the highest of its signals, raised to high by two codes on the same player)."""

    event_id: int
    level: Level
    signals: tuple[Signal, ...]


@dataclass
class Window:
    """What the screen reads: the window's events and games, and for each screened event the ratings at
    its start (the list in force then, as the close uses), the players' K and their names.

    `earlier_games` are the players who had a game in an event before the window (not newcomers).
    """

    events: Mapping[int, ScreenEvent]
    games: Sequence[ScreenGame]
    ratings: Mapping[int, Mapping[int, int]]  # screened event → player → rating at its start
    k: Mapping[int, int]  # player → K on the list in force (for the cap's gain)
    names: Mapping[int, str]  # player → name (at least the screened events' newcomers)
    cap: int | None = 400  # the rule set's §8.3.1 cap; None: no cap, no farming
    cap_exempt_from: int | None = 2650
    default_k: int = 20
    earlier_players: frozenset[int] = frozenset()
    # derived once, on first use
    _by_event: dict[int, list[ScreenGame]] = field(default_factory=dict, init=False, repr=False)
    _first_start: dict[int, dt.date] = field(default_factory=dict, init=False, repr=False)
    _events_played: dict[int, set[int]] = field(default_factory=dict, init=False, repr=False)
    _played: list[ScreenGame] = field(default_factory=list, init=False, repr=False)

    def played(self) -> list[ScreenGame]:
        """The window's games played over the board, with both players (read once, then kept)."""
        if not self._played and self.games:
            self._played.extend(_played(self.games))
        return self._played

    def games_of(self, event_id: int) -> list[ScreenGame]:
        """The pairings of one event of the window."""
        if not self._by_event:
            by_event: dict[int, list[ScreenGame]] = defaultdict(list)
            for game in self.games:
                by_event[game.event_id].append(game)
            self._by_event.update(by_event)
        return self._by_event.get(event_id, [])

    def _index_players(self) -> None:
        first: dict[int, dt.date] = {}
        played: dict[int, set[int]] = defaultdict(set)
        for game in self.played():
            event = self.events.get(game.event_id)
            if event is None:
                continue
            for player in (game.white, game.black):
                assert player is not None
                played[player].add(event.id)
                if player not in first or event.start < first[player]:
                    first[player] = event.start
        self._first_start.update(first)
        self._events_played.update(played)

    def played_before(self, player: int, start: dt.date) -> bool:
        """Whether `player` played a game before the window or in an event of it starting before `start`."""
        if player in self.earlier_players:
            return True
        if not self._first_start and self.games:
            self._index_players()
        first = self._first_start.get(player)
        return first is not None and first < start

    def events_played(self, player: int) -> set[int]:
        """The events of the window in which `player` played a game."""
        if not self._events_played and self.games:
            self._index_players()
        return self._events_played.get(player, set())


def screen(
    window: Window, screened: Iterable[int], thresholds: IntegrityThresholds = DEFAULT_THRESHOLDS
) -> dict[int, RiskReport]:
    """Each screened event's report: every signal found, its level and the event's level."""
    wanted = [e for e in screened if e in window.events]
    found: dict[int, list[Signal]] = {e: [] for e in wanted}
    for event_id in wanted:
        event = window.events[event_id]
        games = window.games_of(event_id)
        ratings = window.ratings.get(event_id, {})
        found[event_id] += improbable_results(games, ratings, thresholds)
        found[event_id] += improbable_mix(games, ratings, thresholds)
        found[event_id] += fabricated_field(event, games, window, ratings, thresholds)
        found[event_id] += too_many_rounds(event, games, thresholds)
    for event_id, signals in repeated_pairings(window, wanted, thresholds).items():
        found[event_id] += signals
    for event_id, signals in closed_pools(window, wanted, thresholds).items():
        found[event_id] += signals
    for event_id, signals in cap_farming(window, wanted, thresholds).items():
        found[event_id] += signals
    for event_id, signals in schedule_clashes(window, wanted, thresholds).items():
        found[event_id] += signals
    for event_id, signals in duplicate_results(window, wanted, thresholds).items():
        found[event_id] += signals
    return {e: report(e, found[e]) for e in wanted}


def report(event_id: int, signals: Sequence[Signal]) -> RiskReport:
    """The level of an event: its highest signal; two different codes at medium or above that concern
    the same player make it high (independent patterns agreeing on one person)."""
    ordered = tuple(sorted(signals, key=lambda s: (-_RANK[s.level], CODES.index(s.code), s.players)))
    level: Level = ordered[0].level if ordered else "none"
    strong = [s for s in ordered if _RANK[s.level] >= _RANK["medium"]]
    codes_of: dict[int, set[str]] = defaultdict(set)
    for signal in strong:
        for player in signal.players:
            codes_of[player].add(signal.code)
    if any(len(codes) >= 2 for codes in codes_of.values()):
        level = "high"
    return RiskReport(event_id, level, ordered)


def highest(levels: Iterable[Level]) -> Level:
    """The highest of `levels` ("none" if there are none)."""
    return max(levels, key=lambda level: _RANK[level], default="none")


def at_least(level: Level, floor: Level) -> bool:
    """Whether `level` is `floor` or above."""
    return _RANK[level] >= _RANK[floor]


# -- the model ---------------------------------------------------------------------------------------


class Expectation(NamedTuple):
    """A score against its expectation: games, score S, expected E, variance V, z = (S − E) / √V."""

    n: int
    score: float
    expected: float
    variance: float

    @property
    def z(self) -> float:
        if self.variance <= 0:
            return 0.0
        return (self.score - self.expected) / math.sqrt(self.variance)


# PD of table 8.1.2 by difference, read once: beyond ±735 it is 1.00 or 0.00.
_PD_BY_DIFFERENCE: Final = tuple(expected_score(d) / 100 for d in range(-736, 737))


def _pd(own: int, opponent: int) -> float:
    """PD of table 8.1.2 for the real difference (no cap), as a fraction."""
    d = own - opponent
    return _PD_BY_DIFFERENCE[max(-736, min(736, d)) + 736]


def _played(games: Iterable[ScreenGame]) -> Iterable[ScreenGame]:
    return (g for g in games if g.played and g.black is not None and g.white_result in PLAYED_SCORE)


def _sides(game: ScreenGame) -> tuple[tuple[int, int, float], tuple[int, int, float]]:
    """(player, opponent, score as a fraction) for white and for black of a played game."""
    assert game.black is not None
    white = PLAYED_SCORE[game.white_result] / 100
    return (game.white, game.black, white), (game.black, game.white, 1 - white)


# -- improbable results ----------------------------------------------------------------------------------


def improbable_results(
    games: Sequence[ScreenGame], ratings: Mapping[int, int], t: IntegrityThresholds
) -> list[Signal]:
    """A player whose score against rated opponents is |z| ≥ improbable_z from the table's expectation."""
    sums: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for game in _played(games):
        # Both sides at once: white's PD is pd, black's 1 − pd, and the variance pd (1 − pd) is both's.
        assert game.black is not None
        own, other = ratings.get(game.white), ratings.get(game.black)
        if own is None or other is None:
            continue
        pd = _pd(own, other)
        score = PLAYED_SCORE[game.white_result] / 100
        variance = pd * (1 - pd)
        row = sums[game.white]
        row[0] += 1
        row[1] += score
        row[2] += pd
        row[3] += variance
        row = sums[game.black]
        row[0] += 1
        row[1] += 1 - score
        row[2] += 1 - pd
        row[3] += variance
    signals = []
    for player in sorted(sums):
        n, score, expected, variance = sums[player]
        found = Expectation(int(n), score, expected, variance)
        if found.n < t.improbable_min_games or abs(found.z) < t.improbable_z:
            continue
        way = "above" if found.z > 0 else "below"
        signals.append(
            Signal(
                IMPROBABLE_RESULT,
                "medium",
                (player,),
                {
                    "games": found.n,
                    "score": found.score,
                    "expected": round(found.expected, 2),
                    "z": round(found.z, 2),
                    "rating": ratings[player],
                },
                f"scored {found.score:g} of {found.n} against rated opponents where the table expects "
                f"{found.expected:.2f} (z = {found.z:.2f}, {way} the threshold ±{t.improbable_z:g})",
            )
        )
    return signals


def improbable_mix(
    games: Sequence[ScreenGame], ratings: Mapping[int, int], t: IntegrityThresholds
) -> list[Signal]:
    """The favourites' score over the event's games between rated players, |z| ≥ mix_z (draws count ½)."""
    n, score, expected, variance = 0, 0.0, 0.0, 0.0
    for game in _played(games):
        (white, black, white_score), _ = _sides(game)
        a, b = ratings.get(white), ratings.get(black)
        if a is None or b is None or a == b:
            continue
        favourite_score = white_score if a > b else 1 - white_score
        pd = _pd(max(a, b), min(a, b))
        n += 1
        score += favourite_score
        expected += pd
        variance += pd * (1 - pd)
    found = Expectation(n, score, expected, variance)
    if n < t.mix_min_games or abs(found.z) < t.mix_z:
        return []
    return [
        Signal(
            IMPROBABLE_MIX,
            "medium",
            (),
            {"games": n, "favourites_score": score, "expected": round(expected, 2), "z": round(found.z, 2)},
            f"the higher-rated players scored {score:g} in {n} games where the table expects "
            f"{expected:.2f} (z = {found.z:.2f}, threshold ±{t.mix_z:g})",
        )
    ]


# -- fabricated fields ----------------------------------------------------------------------------------


def _initial(name: str) -> str:
    """The surname's first letter ("Byrne, Noel" and "Noel Byrne" both give B)."""
    surname = name.split(",")[0] if "," in name else (name.split() or [""])[-1]
    surname = surname.strip()
    return surname[:1].upper()


def fabricated_field(
    event: ScreenEvent,
    games: Sequence[ScreenGame],
    window: Window,
    ratings: Mapping[int, int],
    t: IntegrityThresholds,
) -> list[Signal]:
    """Many newcomers (unrated, no game before this event in the window) who only lose, or lose to one player.

    Medium when newcomers are at least fabricated_min_new and fabricated_min_share of the field and
    either their share of the points in their games is at most fabricated_max_score or one player won
    at least fabricated_one_winner of their games; high when, besides, their surnames crowd on one
    initial (fabricated_letter_share) and none of them played anyone outside the event in the window.
    """
    newcomers = {p for p in event.players if p not in ratings and not window.played_before(p, event.start)}
    if len(newcomers) < t.fabricated_min_new or len(newcomers) < t.fabricated_min_share * len(event.players):
        return []
    played = total = 0
    won_by: Counter[int] = Counter()
    points = 0.0
    for game in _played(games):
        for player, opponent, score in _sides(game):
            if player in newcomers:
                played += 1
                points += score
                if score == 0:
                    won_by[opponent] += 1
    total = played
    if total == 0:
        return []
    share = points / total
    winner, wins = won_by.most_common(1)[0] if won_by else (None, 0)
    one_winner = wins / total
    if share > t.fabricated_max_score and one_winner < t.fabricated_one_winner:
        return []
    initials = Counter(_initial(window.names.get(p, "")) for p in newcomers)
    letter, on_letter = initials.most_common(1)[0]
    elsewhere = {p for p in newcomers if window.events_played(p) - {event.id}}
    crowded = on_letter / len(newcomers) >= t.fabricated_letter_share
    level: Level = "high" if crowded and not elsewhere else "medium"
    concerned = tuple(sorted(newcomers)) if winner is None or one_winner < t.fabricated_one_winner else (
        winner, *sorted(newcomers))  # fmt: skip
    return [
        Signal(
            FABRICATED_FIELD,
            level,
            concerned,
            {
                "newcomers": len(newcomers),
                "field": len(event.players),
                "newcomer_games": total,
                "newcomer_score_share": round(share, 3),
                "top_winner": winner if winner is not None else "",
                "top_winner_share": round(one_winner, 3),
                "initial": letter,
                "initial_share": round(on_letter / len(newcomers), 3),
                "newcomers_playing_elsewhere": len(elsewhere),
            },
            f"{len(newcomers)} of {len(event.players)} players are newcomers who scored "
            f"{share:.0%} of the points in their {total} games"
            + (f", {one_winner:.0%} of those games won by one player" if winner is not None else "")
            + f"; {on_letter} of their surnames start with {letter!r}; "
            f"{len(elsewhere)} of them played anyone outside this event in the window",
        )
    ]


# -- schedule -------------------------------------------------------------------------------------------


def too_many_rounds(event: ScreenEvent, games: Sequence[ScreenGame], t: IntegrityThresholds) -> list[Signal]:
    """More rounds than the event's days allow (rounds_per_day), or more than that on one game date."""
    days = (event.end - event.start).days + 1
    limit = rounds_per_day(t, event.rating_type)
    rounds = max([event.rounds, *(g.round for g in games)])
    rounds_on: dict[dt.date, set[int]] = defaultdict(set)
    for game in games:
        if game.date is not None:
            rounds_on[game.date].add(game.round)
    most = max((len(r) for r in rounds_on.values()), default=0)
    if rounds <= days * limit and most <= limit:
        return []
    return [
        Signal(
            TOO_MANY_ROUNDS,
            "medium",
            (),
            {
                "rounds": rounds,
                "days": days,
                "rounds_per_day_allowed": limit,
                "most_rounds_on_one_date": most,
            },
            f"{rounds} rounds in {days} day(s) (at most {limit} a day for {event.rating_type}); "
            f"at most {most} round(s) on one game date",
        )
    ]


def schedule_clashes(
    window: Window, screened: Sequence[int], t: IntegrityThresholds
) -> dict[int, list[Signal]]:
    """A player in two events of the window whose days overlap (both at most clash_max_days long), or
    with games on the same date in two events."""
    wanted = set(screened)
    short = {e.id: e for e in window.events.values() if (e.end - e.start).days + 1 <= t.clash_max_days}
    by_player: dict[int, list[ScreenEvent]] = defaultdict(list)
    for event in short.values():
        for player in event.players:
            by_player[player].append(event)
    dates: dict[tuple[int, int], set[dt.date]] = defaultdict(set)  # (player, event) → game dates
    for game in window.games:
        if game.date is None:
            continue
        dates[(game.white, game.event_id)].add(game.date)
        if game.black is not None:
            dates[(game.black, game.event_id)].add(game.date)
    clashes: dict[tuple[int, int], list[int]] = defaultdict(list)  # (event, other event) → players
    for player, events in by_player.items():
        if len(events) < 2:
            continue
        events.sort(key=lambda e: (e.start, e.id))
        # Sorted by start: an event overlaps a later one while the later starts before it ends.
        for index, first in enumerate(events):
            for second in events[index + 1 :]:
                if second.start > first.end:
                    break
                if (first.id in wanted or second.id in wanted) and not first.same_file(second):
                    clashes[(first.id, second.id)].append(player)
    found: dict[int, list[Signal]] = defaultdict(list)
    for (a, b), players in sorted(clashes.items()):
        first, second = window.events[a], window.events[b]
        same_dates = sum(1 for p in players if dates.get((p, a), set()) & dates.get((p, b), set()))
        overlap = (min(first.end, second.end) - max(first.start, second.start)).days + 1
        for this, other in ((first, second), (second, first)):
            if this.id not in wanted:
                continue
            found[this.id].append(
                Signal(
                    SCHEDULE_CLASH,
                    "medium",
                    tuple(sorted(players)),
                    {
                        "other_event": other.id,
                        "other_name": other.name,
                        "players": len(players),
                        "overlap_days": overlap,
                        "players_with_games_on_the_same_date": same_dates,
                    },
                    f"{len(players)} player(s) also played event {other.id} ({other.name}, "
                    f"{other.start.isoformat()} … {other.end.isoformat()}), {overlap} day(s) overlapping",
                )
            )
    return found


# -- repeated pairings and closed pools -----------------------------------------------------------------


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _explained(event: ScreenEvent) -> int:
    """How often one pair may meet by the event's format: rounds over (players − 1), rounded up (a Swiss
    of fewer rounds than players: once; a double round robin of four in six rounds: twice)."""
    others = max(1, len(event.players) - 1)
    return max(1, -(-event.rounds // others))


def _same_type(window: Window, screened: Sequence[int]) -> set[str]:
    return {window.events[e].rating_type for e in screened}


def repeated_pairings(
    window: Window, screened: Sequence[int], t: IntegrityThresholds
) -> dict[int, list[Signal]]:
    """A pair meeting at least repeated_min_games times in the window, more than their events' formats
    explain; medium when one side took at least repeated_one_sided of the points, low otherwise."""
    types = _same_type(window, screened)
    allowed_in = {e.id: _explained(e) for e in window.events.values() if e.rating_type in types}
    in_event: Counter[tuple[int, int, int]] = Counter()  # (lower id, higher id, event) → games
    points: Counter[tuple[int, int]] = Counter()  # pair → the lower id's points (hundredths)
    for game in window.played():
        if game.event_id not in allowed_in:
            continue
        assert game.black is not None
        white, black = game.white, game.black
        score = PLAYED_SCORE[game.white_result]
        if white < black:
            in_event[(white, black, game.event_id)] += 1
            points[(white, black)] += score
        else:
            in_event[(black, white, game.event_id)] += 1
            points[(black, white)] += 100 - score
    meetings: Counter[tuple[int, int]] = Counter()
    explained: Counter[tuple[int, int]] = Counter()
    events_of: dict[tuple[int, int], set[int]] = defaultdict(set)
    for (a, b, event_id), n in in_event.items():
        meetings[(a, b)] += n
        explained[(a, b)] += allowed_in[event_id]
        events_of[(a, b)].add(event_id)
    wanted = set(screened)
    found: dict[int, list[Signal]] = defaultdict(list)
    for pair, n in meetings.items():
        allowed = explained[pair]
        if n < t.repeated_min_games or n <= allowed:
            continue
        share = points[pair] / (100 * n)
        one_sided = max(share, 1 - share)
        level: Level = "medium" if one_sided >= t.repeated_one_sided else "low"
        for event_id in sorted(events_of[pair] & wanted):
            found[event_id].append(
                Signal(
                    REPEATED_PAIRING,
                    level,
                    pair,
                    {
                        "games": n,
                        "explained_by_format": allowed,
                        "events": len(events_of[pair]),
                        "first_player_points": points[pair] / 100,
                        "one_sided_share": round(one_sided, 3),
                    },
                    f"met {n} times in {len(events_of[pair])} event(s) of the window where the formats "
                    f"explain {allowed}; one side took {one_sided:.0%} of the points",
                )
            )
    return found


def closed_pools(window: Window, screened: Sequence[int], t: IntegrityThresholds) -> dict[int, list[Signal]]:
    """A group of at most pool_max_players whose every game in the window is among themselves, each pair
    meeting at least pool_min_meetings times: medium when one member scored |z| ≥ improbable_z against
    the group's ratings (the member's gain the ratings do not predict), low otherwise."""
    types = _same_type(window, screened)
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    games = [
        g for g in window.played()
        if (e := window.events.get(g.event_id)) is not None and e.rating_type in types
    ]  # fmt: skip
    for game in games:
        assert game.black is not None
        a, b = root(game.white), root(game.black)
        if a != b:
            parent[a] = b
    members: dict[int, set[int]] = defaultdict(set)
    for player in list(parent):
        members[root(player)].add(player)
    small = {r: m for r, m in members.items() if len(m) <= t.pool_max_players}
    pool_games: dict[int, list[ScreenGame]] = defaultdict(list)
    for game in games:
        r = root(game.white)
        if r in small:
            pool_games[r].append(game)
    wanted = set(screened)
    found: dict[int, list[Signal]] = defaultdict(list)
    for r, group in small.items():
        played = pool_games[r]
        pairs = len(group) * (len(group) - 1) // 2
        if pairs == 0 or len(played) / pairs < t.pool_min_meetings:
            continue
        events = {g.event_id for g in played}
        here = sorted(events & wanted)
        if not here:
            continue
        ratings = window.ratings.get(here[0], {})
        rated = [ratings[p] for p in group if p in ratings]
        # An unrated member is taken at the group's mean rating (equal to the others when none is rated).
        mean = round(sum(rated) / len(rated)) if rated else 1500
        rating = {p: ratings.get(p, mean) for p in group}
        sums: dict[int, list[float]] = {p: [0, 0.0, 0.0, 0.0] for p in group}
        for game in played:
            for player, opponent, score in _sides(game):
                pd = _pd(rating[player], rating[opponent])
                row = sums[player]
                row[0] += 1
                row[1] += score
                row[2] += pd
                row[3] += pd * (1 - pd)
        best = max(sorted(group), key=lambda p: Expectation(int(sums[p][0]), *sums[p][1:]).z)
        top = Expectation(int(sums[best][0]), *sums[best][1:])
        level: Level = "medium" if top.z >= t.improbable_z else "low"
        concerned = (best, *sorted(group - {best}))
        for event_id in here:
            found[event_id].append(
                Signal(
                    CLOSED_POOL,
                    level,
                    concerned,
                    {
                        "players": len(group),
                        "games": len(played),
                        "meetings_per_pair": round(len(played) / pairs, 2),
                        "events": len(events),
                        "top_player": best,
                        "top_score": top.score,
                        "top_expected": round(top.expected, 2),
                        "top_z": round(top.z, 2),
                    },
                    f"{len(group)} players played {len(played)} games only among themselves in "
                    f"{len(events)} event(s) ({len(played) / pairs:.1f} per pair); player {best} scored "
                    f"{top.score:g} where their ratings expect {top.expected:.2f} (z = {top.z:.2f})",
                )
            )
    return found


# -- 400-point farming ---------------------------------------------------------------------------------


def cap_farming(window: Window, screened: Sequence[int], t: IntegrityThresholds) -> dict[int, list[Signal]]:
    """A player whose period's games (the screened events' period) are mostly against opponents more
    than the cap below, gaining through the cap: the cap's gift K × Σ (PD − PD capped) at least
    farming_min_gain and the capped change over those games above zero."""
    if window.cap is None:
        return {}
    cap = window.cap
    periods = {window.events[e].period for e in screened}
    types = _same_type(window, screened)
    per_player: dict[int, list[float]] = defaultdict(lambda: [0, 0, 0.0, 0.0])  # games, far, gift, change
    events_of: dict[int, set[int]] = defaultdict(set)
    for game in window.played():
        event = window.events.get(game.event_id)
        if event is None or event.period not in periods or event.rating_type not in types:
            continue
        ratings = window.ratings.get(event.id)
        if ratings is None:
            continue
        for player, opponent, score in _sides(game):
            own, other = ratings.get(player), ratings.get(opponent)
            if own is None or other is None:
                continue
            row = per_player[player]
            row[0] += 1
            if own - other <= cap or (window.cap_exempt_from is not None and own >= window.cap_exempt_from):
                continue
            k = window.k.get(player, window.default_k)
            capped = expected_score(cap) / 100
            row[1] += 1
            row[2] += k * (_pd(own, other) - capped)
            row[3] += k * (score - capped)
            events_of[player].add(event.id)
    wanted = set(screened)
    found: dict[int, list[Signal]] = defaultdict(list)
    for player in sorted(per_player):
        games, far, gift, change = per_player[player]
        if far < t.farming_min_games or far / games < t.farming_min_share:
            continue
        if gift < t.farming_min_gain or change <= 0:
            continue
        for event_id in sorted(events_of[player] & wanted):
            found[event_id].append(
                Signal(
                    CAP_FARMING,
                    "medium",
                    (player,),
                    {
                        "games": int(games),
                        "games_beyond_cap": int(far),
                        "share": round(far / games, 3),
                        "cap_gain": round(gift, 2),
                        "capped_change": round(change, 2),
                        "uncapped_change": round(change - gift, 2),
                    },
                    f"{int(far)} of {int(games)} games of the period against opponents over {cap} below; "
                    f"the cap made those games worth {change:+.2f} instead of {change - gift:+.2f} "
                    f"(it gave {gift:.2f})",
                )
            )
    return found


# -- duplicate results ----------------------------------------------------------------------------------


def crosstable_shape(games: Iterable[ScreenGame]) -> str | None:
    """The crosstable without its names: each player's row (per round the colour, the result and the
    opponent's total) sorted, hashed. Two events with the same shape are the same crosstable whatever
    the names and start ranks."""
    rows: dict[int, list[tuple[int, str, str, int]]] = defaultdict(list)
    totals: Counter[int] = Counter()
    listed = list(games)
    for game in listed:
        totals[game.white] += _points(game.white_result)
        if game.black is not None and game.black_result is not None:
            totals[game.black] += _points(game.black_result)
    for game in listed:
        opponent_total = totals[game.black] if game.black is not None else -1
        rows[game.white].append((game.round, "w", game.white_result, opponent_total))
        if game.black is not None:
            rows[game.black].append((game.round, "b", game.black_result or "", totals[game.white]))
    if not rows:
        return None
    shape = sorted((totals[p], tuple(sorted(r))) for p, r in rows.items())
    return hashlib.sha256(repr(shape).encode("utf-8")).hexdigest()


_HALF_POINTS: Final = {"1": 2, "=": 1, "+": 2, "W": 2, "D": 1, "H": 1, "F": 2, "U": 2}


def _points(code: str) -> int:
    """Half-points of a result code (a win, a forfeit win, a bye: 2; a draw, a half-point bye: 1)."""
    return _HALF_POINTS.get(code, 0)


def duplicate_results(
    window: Window, screened: Sequence[int], t: IntegrityThresholds
) -> dict[int, list[Signal]]:
    """An event of at least duplicate_min_games played games whose crosstable shape equals another's."""
    # First a cheap invariant (games played, the players' totals): only events that share it with
    # another are given their whole shape.
    played_in: Counter[int] = Counter(g.event_id for g in window.played())
    by_outline: dict[tuple[int, tuple[int, ...]], list[int]] = defaultdict(list)
    for event_id in sorted(window.events):
        if played_in[event_id] < t.duplicate_min_games:
            continue
        totals: Counter[int] = Counter()
        for game in window.games_of(event_id):
            totals[game.white] += _points(game.white_result)
            if game.black is not None and game.black_result is not None:
                totals[game.black] += _points(game.black_result)
        by_outline[(played_in[event_id], tuple(sorted(totals.values())))].append(event_id)
    by_shape: dict[str, list[int]] = defaultdict(list)
    sizes: dict[int, int] = {}
    for alike in by_outline.values():
        if len(alike) < 2:
            continue
        for event_id in alike:
            shape = crosstable_shape(window.games_of(event_id))
            if shape is not None:
                by_shape[shape].append(event_id)
                sizes[event_id] = played_in[event_id]
    wanted = set(screened)
    found: dict[int, list[Signal]] = defaultdict(list)
    for same in by_shape.values():
        if len(same) < 2:
            continue
        for event_id in same:
            if event_id not in wanted:
                continue
            for other in same:
                original = window.events[other]
                if other == event_id or original.same_file(window.events[event_id]):
                    continue
                found[event_id].append(
                    Signal(
                        DUPLICATE_RESULTS,
                        "high",
                        window.events[event_id].players,
                        {"other_event": other, "other_name": original.name, "games": sizes[event_id]},
                        f"its crosstable ({sizes[event_id]} games) equals that of event {other} "
                        f"({original.name}) but for the names",
                    )
                )
    return found
