"""FIDE title norms (B.01, in force from 1 January 2024): the pure norm check; imports only the stdlib.

Given the applicant, the event and the applicant's games, `check_norms` says for each of GM, IM, WGM and WIM
whether the games make a norm, with every figure and every rule and the paragraph it comes from. Integer
arithmetic throughout: scores in hundredths (a win is 100), Ra and p rounded once, .5 up (1.4.7, 1.4.8).

Readings of the regulation that are ours (the docs say them too):
- "Events without predetermined pairings" (1.4.1e, later games left out) are Swiss events; round robins and
  knockouts leave out only won games (1.4.1f).
- An opponent whose federation is not known is counted as a game, is no foreign federation (1.4.3) and is
  counted with the applicant's own federation for the 3/5 cap (1.4.4): the cautious side, said in a note.
- 1.4.5f (double round robin): the event has at least 6 players and half the games, rounded up, are against
  opponents with the required titles (each opponent is met twice, so half the games is half the opponents).
- The 35 % minimum score (1.4.8) is compared exactly (score × 100 ≥ 35 × games), not after rounding p.
- 1.4.3a/b exempt the host federation's players only ("for home players"): an applicant of another
  federation meets 1.4.3–1.4.4 as in any event. A national event whose host federation is not given is
  taken to have none, so it exempts no one; the check says so.
- FID players are no federation for 1.4.3 (never a foreign federation). Whether the 2/3 cap of 1.4.4
  counts them together as one federation no ruling we know settles: by default they are not counted
  (B.03 1.6 makes FID the players "without a Federation"; the spec's QC clarification: "not as a
  federation for 1.4.3–1.4.4"); `NormEvent.fid_as_one_federation` counts them as one for the 2/3 cap.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from .errors import RulesError
from .points import check_score, round_half_away_from_zero
from .tables import dp_for_fraction

NORMS: Final = ("GM", "IM", "WGM", "WIM")
SYSTEMS: Final = ("swiss", "round_robin", "double_round_robin", "knockout")
TITLES: Final = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM")
# 1.4.5: a title-holder holds one of these; CM and WCM do not count.
TITLE_HOLDERS: Final = frozenset({"GM", "IM", "FM", "WGM", "WIM", "WFM"})
# The order the norms' titles rank in (1.4.5): a WGM norm takes WGM, IM and GM opponents.
_RANK: Final = {"GM": 4, "IM": 3, "WGM": 2, "WIM": 1}

UNRATED_RATING: Final = 1400  # 1.4.6: an unrated opponent counts as 1400 (before the floor)
MIN_SCORE_PERCENT: Final = 35  # 1.4.8
MAX_CREDITED_GAMES: Final = 13  # 1.7: an event of more than 13 rounds counts as 13 games
MIN_FOREIGN_FEDERATIONS: Final = 2  # 1.4.3
OWN_FEDERATION_SHARE: Final = (3, 5)  # 1.4.4: at most 3/5 from the applicant's federation, rounded down
ONE_FEDERATION_SHARE: Final = (2, 3)  # 1.4.4: at most 2/3 from any one federation, rounded down
MIN_NORM_TITLED: Final = 3  # 1.4.5: at least 1/3, and at least 3, with the norm's title or higher
DOUBLE_ROUND_ROBIN_PLAYERS: Final = 6  # 1.4.5f
NO_FEDERATION: Final = "NON"  # 1.4.2a: no FIDE federation
FIDE_PLAYERS: Final = "FID"  # counted as opponents, not as a federation (QC clarification)
# Each set of games that might be left out is looked at; 13 games with up to 4 left out are 1 093 sets, 16
# games 26 333, 17 games 65 536, 20 games 700 000. Past this many the search stops and says so: only an
# event of 17 or more games can reach it.
MAX_LEFT_OUT_SETS: Final = 50_000


@dataclass(frozen=True)
class NormRequirement:
    """The figures of one norm (1.4.5, 1.4.6, 1.4.8)."""

    norm: str
    floor: int  # 1.4.6: the lowest opponent is raised to this
    min_performance: int  # 1.4.8 Rp
    min_average: int  # 1.4.8 Ra
    opponent_titles: frozenset[str]  # 1.4.5: the norm's title or higher


REQUIREMENTS: Final = {
    "GM": NormRequirement("GM", 2200, 2600, 2380, frozenset({"GM"})),
    "IM": NormRequirement("IM", 2050, 2450, 2230, frozenset({"GM", "IM"})),
    "WGM": NormRequirement("WGM", 2000, 2400, 2180, frozenset({"GM", "IM", "WGM"})),
    "WIM": NormRequirement("WIM", 1850, 2250, 2030, frozenset({"GM", "IM", "WGM", "WIM"})),
}


@dataclass(frozen=True)
class Applicant:
    federation: str | None  # None: not known (1.4.3–1.4.4 cannot then be met)
    sex: str  # "M" or "F": WGM and WIM norms are women's
    title: str | None = None


@dataclass(frozen=True)
class NormEvent:
    rounds: int
    system: str = "swiss"
    team: bool = False
    national_championship: bool = False  # 1.4.3a: the final of a national individual championship
    national_team_championship: bool = False  # 1.4.3b: a national team championship, home players
    zonal: bool = False  # 1.4.3c: zonal and sub-zonal events
    swiss_1_4_3d: bool = False  # 1.4.3d: every round had the foreign rated and titled players it asks
    min_games: int = 9  # 1.4.1a; 7 by 1.4.1b (team championships of 7–9 rounds); 8 at the World Cup
    players: int | None = None  # players in the event: 1.4.5f needs it for a double round robin
    federation: str | None = None  # the host federation (TRF 032): 1.4.3a/b exempt its players only
    fid_as_one_federation: bool = False  # count FID opponents as one federation for the 2/3 cap (1.4.4)


@dataclass(frozen=True)
class NormGame:
    """One round of the applicant: a game, a forfeit or a pairing-allocated bye (then no opponent)."""

    round: int
    score: int  # hundredths: 100, 50 or 0
    opponent_rating: int | None = None  # None: unrated
    opponent_title: str | None = None
    opponent_federation: str | None = None  # None: not known; "NON": no FIDE federation; "FID": FIDE
    forfeit: bool = False
    bye: bool = False  # pairing-allocated bye
    opponent_zero_vs_rated: bool = False  # 1.4.2b: an unrated opponent who scored 0 against rated players
    opponent: str | None = None  # a name or ID, for display only


@dataclass(frozen=True)
class RuleCheck:
    """One rule applied: `name value comparison required`, e.g. Rp 2620 ≥ 2600 (1.4.8)."""

    paragraph: str
    name: str
    value: str
    comparison: str  # "≥", "≤", "=" or "" (a condition without figures)
    required: str
    passed: bool

    @property
    def text(self) -> str:
        """The rule as one phrase: 'Rp 2566 < 2600' when it fails, 'Rp 2620 ≥ 2600' when it holds."""
        if not self.comparison:
            return f"{self.name}: {self.value}"
        shown = self.comparison if self.passed else _NEGATED[self.comparison]
        return f"{self.name} {self.value} {shown} {self.required}"


_NEGATED: Final = {"≥": "<", "≤": ">", "=": "≠"}


@dataclass(frozen=True)
class CountedGame:
    round: int
    opponent: str | None
    title: str | None
    federation: str | None
    rating: int | None  # as given; None: unrated
    counted_rating: int  # after 1400 for the unrated and the floor (1.4.6)
    score: int  # hundredths
    note: str | None = None  # "raised to the floor (1.4.6)", "forfeit counted as a loss (1.4.2c)"


@dataclass(frozen=True)
class SetAside:
    """A game not counted (1.4.2) or left out (1.4.1e/f), with the reason and its paragraph."""

    round: int
    paragraph: str
    reason: str


@dataclass(frozen=True)
class NormCheck:
    """The verdict on one norm with every figure it rests on."""

    norm: str
    met: bool
    already_holds: bool  # the applicant holds this title or a higher one
    games: tuple[CountedGame, ...]
    excluded: tuple[SetAside, ...]  # not counted by 1.4.2
    left_out: tuple[SetAside, ...]  # left out by 1.4.1e/f to give the norm
    games_counted: int
    games_credited: int  # toward the 27 games of a title application (1.4.1c, 1.7)
    score: int  # hundredths
    rating_sum: int
    average_rating: int | None  # Ra (1.4.7); None without games
    percentage: int | None  # p in whole per cent (1.4.8)
    dp: int | None
    performance: int | None  # Rp = Ra + dp
    raised: CountedGame | None  # the one opponent raised to the floor (1.4.6)
    federations: tuple[tuple[str, int], ...]  # opponents per federation (FID and unknown ones included)
    foreign_federations: int
    own_federation_games: int
    max_own_federation: int
    max_one_federation: int
    titled: int
    titled_required: int
    norm_titled: int
    norm_titled_required: int
    exemption: str | None  # the paragraph of 1.4.3a–d that exempts the event from 1.4.3–1.4.4
    forfeit_credit_round: int | None  # 1.4.1c: the forfeit win or bye that makes 8 games count as 9
    forfeit_as_loss_round: int | None  # 1.4.2c: the last-round forfeit win counted as a played loss
    rules: tuple[RuleCheck, ...]
    notes: tuple[str, ...]
    points_short: int | None  # hundredths more score that would have given Rp and 35 %, if only they fail
    search_stopped: bool = False

    @property
    def failed_rules(self) -> tuple[RuleCheck, ...]:
        return tuple(rule for rule in self.rules if not rule.passed)

    @property
    def left_out_rounds(self) -> tuple[int, ...]:
        return tuple(item.round for item in self.left_out)

    @property
    def near_miss(self) -> bool:
        """Missed only on the performance, and half a point more would have given it."""
        return not self.met and self.points_short is not None and 0 < self.points_short <= 50

    @property
    def meets_normal_mix(self) -> bool:
        """Met without an exemption from 1.4.3–1.4.4: 1.4.3e wants one such norm in an application."""
        return self.met and self.exemption is None

    def verdict(self, *, brief: bool = False) -> str:
        """'GM norm met' or 'GM: Rp 2566 < 2600', with what was left out or used to get there.

        Brief: the two failed rules that say most (Rp, Ra, games first) and how many more failed.
        """
        if self.met:
            extras = []
            if self.left_out:
                rounds = ", ".join(str(r) for r in self.left_out_rounds)
                paragraphs = "/".join(sorted({x.paragraph for x in self.left_out}))
                extras.append(f"leaving out round {rounds} ({paragraphs})")
            if self.forfeit_credit_round is not None:
                extras.append(f"8 games + forfeit/bye in round {self.forfeit_credit_round} (1.4.1c)")
            if self.forfeit_as_loss_round is not None:
                extras.append(f"round {self.forfeit_as_loss_round} forfeit counted as a loss (1.4.2c)")
            if self.exemption is not None:
                extras.append(f"federations exempt by {self.exemption}")
            return f"{self.norm} norm met" + (f" ({'; '.join(extras)})" if extras else "")
        rules = list(self.failed_rules)
        if brief:
            order = {"Rp": 0, "Ra": 1, "games": 2, "score": 3}
            rules.sort(key=lambda r: order.get(r.name, 4))
            shown = "; ".join(r.text for r in rules[:2]) + (
                f" (+{len(rules) - 2} more)" if len(rules) > 2 else ""
            )
        else:
            shown = "; ".join(r.text for r in rules)
        short = ""
        if self.points_short is not None:
            short = f" — {_points(self.points_short)} point{'' if self.points_short <= 100 else 's'} short"
        return f"{self.norm}: {shown}{short}"


@dataclass
class _Base:
    """The games a check starts from, before any are left out."""

    games: list[CountedGame]
    excluded: list[SetAside]
    as_loss_round: int | None = None
    credit_round: int | None = None
    notes: list[str] = field(default_factory=list)


def check_norms(
    applicant: Applicant, event: NormEvent, games: Sequence[NormGame], norms: Iterable[str] = NORMS
) -> list[NormCheck]:
    """The check of each norm asked for (all four by default), in the order GM, IM, WGM, WIM (B.01 §1.4)."""
    wanted = list(norms)
    for norm in wanted:
        if norm not in REQUIREMENTS:
            raise RulesError(f"unknown norm {norm!r}: expected one of {', '.join(NORMS)}")
    return [check_norm(norm, applicant, event, games) for norm in NORMS if norm in wanted]


def check_norm(norm: str, applicant: Applicant, event: NormEvent, games: Sequence[NormGame]) -> NormCheck:
    """One norm (B.01 §1.4): the games as played first, then the sets of games B.01 lets be left out
    (1.4.1e/f) and the last-round forfeit counted as a loss (1.4.2c), fewest left out first; the first set
    that gives the norm is the verdict, else the games as played with what they missed."""
    requirement = REQUIREMENTS.get(norm)
    if requirement is None:
        raise RulesError(f"unknown norm {norm!r}: expected one of {', '.join(NORMS)}")
    _validate(applicant, event, games)
    plain, with_loss = _bases(event, games)
    if norm in ("WGM", "WIM") and applicant.sex != "F":
        return _evaluate(requirement, applicant, event, plain, ())
    minimum = event.min_games
    evaluated = 0
    stopped = False
    bases = [plain] + ([with_loss] if with_loss is not None else [])
    longest = max(len(base.games) for base in bases)
    for size in range(0, max(longest - minimum, 0) + 1):
        for base in bases:
            # Left-out games may not take the games below the minimum (1.4.1e/f).
            if size and len(base.games) - size < minimum:
                continue
            for omitted in itertools.combinations(range(len(base.games)), size):
                evaluated += 1
                if evaluated > MAX_LEFT_OUT_SETS:
                    stopped = True
                    break
                if not _may_leave_out(event, base, omitted):
                    continue
                result = _evaluate(requirement, applicant, event, base, omitted)
                if result.met:
                    return result
            if stopped:
                break
        if stopped:
            break
    result = _evaluate(requirement, applicant, event, plain, ())
    if stopped:
        note = f"the search for games to leave out stopped after {MAX_LEFT_OUT_SETS} sets (1.4.1e/f)"
        result = replace(result, notes=(*result.notes, note), search_stopped=True)
    return result


def _validate(applicant: Applicant, event: NormEvent, games: Sequence[NormGame]) -> None:
    if applicant.sex not in ("M", "F"):
        raise RulesError(f"the applicant's sex must be M or F, not {applicant.sex!r}")
    if applicant.title is not None and applicant.title not in TITLES:
        raise RulesError(f"unknown title {applicant.title!r}: expected one of {', '.join(TITLES)}")
    if event.system not in SYSTEMS:
        raise RulesError(f"unknown system {event.system!r}: expected one of {', '.join(SYSTEMS)}")
    if event.rounds < 1:
        raise RulesError(f"an event has at least 1 round, not {event.rounds}")
    if event.min_games not in (7, 8, 9):
        raise RulesError(
            f"the minimum number of games is 9 (1.4.1a), 7 (1.4.1b) or 8 (World Cup), not {event.min_games}"
        )
    if event.min_games == 7 and not (event.team and 7 <= event.rounds <= 9):
        raise RulesError("7 games are enough only at team or club championships of 7 to 9 rounds (1.4.1b)")
    if event.swiss_1_4_3d and event.system != "swiss":
        raise RulesError("the exemption of 1.4.3d is for Swiss events only")
    if event.system == "double_round_robin" and event.players is None:
        raise RulesError("a double round robin needs the number of players in the event (1.4.5f)")
    seen: set[int] = set()
    for game in games:
        check_score(game.score)
        if not 1 <= game.round <= event.rounds:
            raise RulesError(f"round {game.round} is outside the event's rounds 1 to {event.rounds}")
        if game.round in seen and event.system != "knockout":
            raise RulesError(f"round {game.round} appears twice (only knockout rounds have several games)")
        seen.add(game.round)
        if game.opponent_title is not None and game.opponent_title not in TITLES:
            raise RulesError(f"round {game.round}: unknown title {game.opponent_title!r}")
        if game.opponent_rating is not None and game.opponent_rating <= 0:
            raise RulesError(f"round {game.round}: a rating is a positive number, not {game.opponent_rating}")
        if game.bye and game.forfeit:
            raise RulesError(f"round {game.round} cannot be both a bye and a forfeit")


def _order(game: NormGame) -> tuple[object, ...]:
    # Rounds first; within a knockout round every field, so that the order given never matters.
    return (
        game.round, -game.score, game.forfeit, game.bye, game.opponent_rating or 0, game.opponent_title or "",
        game.opponent_federation or "", game.opponent_zero_vs_rated, game.opponent or "",
    )  # fmt: skip


def _counted(game: NormGame, score: int, note: str | None = None) -> CountedGame:
    rating = game.opponent_rating
    return CountedGame(
        game.round, game.opponent, game.opponent_title, game.opponent_federation, rating,
        rating if rating is not None else UNRATED_RATING, score, note,
    )  # fmt: skip


def _bases(event: NormEvent, games: Sequence[NormGame]) -> tuple[_Base, _Base | None]:
    """The games that count (1.4.2) and, if the last round was a forfeit win, the same with it as a loss."""
    counted: list[CountedGame] = []
    excluded: list[SetAside] = []
    credit: int | None = None
    last_round_forfeit: NormGame | None = None
    round_robin = event.system in ("round_robin", "double_round_robin")
    for game in sorted(games, key=_order):
        if game.bye:
            excluded.append(SetAside(game.round, "1.4.2c", "pairing-allocated bye: no game played"))
            if game.score == 100 and credit is None:
                credit = game.round
        elif game.forfeit:
            won = "forfeit win" if game.score == 100 else "forfeit"
            excluded.append(SetAside(game.round, "1.4.2c", f"{won}: not played over the board"))
            if game.score == 100:
                if credit is None:
                    credit = game.round
                if game.round == event.rounds:
                    last_round_forfeit = game
        elif game.opponent_federation == NO_FEDERATION:
            excluded.append(SetAside(game.round, "1.4.2a", "opponent of no FIDE federation (NON)"))
        elif round_robin and game.opponent_rating is None and game.opponent_zero_vs_rated:
            excluded.append(
                SetAside(game.round, "1.4.2b", "unrated opponent who scored 0 against rated players")
            )
        else:
            counted.append(_counted(game, game.score))
    # 1.4.1c: in a 9-round event, 8 games and one forfeit win or pairing-allocated bye.
    plain = _Base(counted, excluded)
    if event.rounds == 9 and event.min_games == 9 and len(counted) == 8 and credit is not None:
        plain.credit_round = credit
    with_loss = None
    if last_round_forfeit is not None and last_round_forfeit.opponent_federation != NO_FEDERATION:
        loss = _counted(last_round_forfeit, 0, "forfeit win counted as a played loss (1.4.2c)")
        others = [item for item in excluded if item.round != last_round_forfeit.round]
        with_loss = _Base(sorted([*counted, loss], key=lambda g: g.round), others, last_round_forfeit.round)
    return plain, with_loss


def _may_leave_out(event: NormEvent, base: _Base, omitted: tuple[int, ...]) -> bool:
    """A set of games B.01 lets be left out: won games (1.4.1f), and in a Swiss event a run of the last
    games (1.4.1e). So a draw or a loss goes only with every game after it."""
    if not omitted:
        return True
    chosen = set(omitted)
    last = len(base.games) - 1
    for index in omitted:
        game = base.games[index]
        if game.score == 100 and game.note is None:
            continue  # 1.4.1f: a won game (not the forfeit counted as a loss)
        if event.system != "swiss":
            return False
        if any(later not in chosen for later in range(index + 1, last + 1)):
            return False
    return True


def _floor_raised(games: list[CountedGame], floor: int) -> tuple[list[CountedGame], CountedGame | None]:
    """1.4.6: at most one opponent, the lowest-rated (after 1400 for the unrated), is raised to the floor."""
    if not games:
        return games, None
    lowest = min(range(len(games)), key=lambda i: (games[i].counted_rating, games[i].round))
    if games[lowest].counted_rating >= floor:
        return games, None
    old = games[lowest]
    was = "unrated, 1400" if old.rating is None else str(old.rating)
    note = f"{was} raised to the floor {floor} (1.4.6)"
    raised = CountedGame(
        old.round, old.opponent, old.title, old.federation, old.rating, floor, old.score,
        note if old.note is None else f"{old.note}; {note}",
    )  # fmt: skip
    return [raised if i == lowest else g for i, g in enumerate(games)], raised


def _exemption(event: NormEvent, applicant: Applicant) -> tuple[str | None, str | None]:
    """The paragraph of 1.4.3a–d that exempts this applicant, and a note when a national event's
    exemption does not (1.4.3a/b are for the host federation's players)."""
    note = None
    for flagged, paragraph in (
        (event.national_championship, "1.4.3a"),
        (event.national_team_championship, "1.4.3b"),
    ):
        if not flagged:
            continue
        what = EXEMPTIONS[paragraph]
        if event.federation is None:
            note = (
                f"{paragraph}: the {what} has no host federation given: assumed none, so it exempts no "
                "one and 1.4.3–1.4.4 apply (give the event's federation)"
            )
        elif applicant.federation != event.federation:
            note = (
                f"{paragraph}: the {what} exempts the players of its host federation {event.federation} "
                f"only; the applicant's is {applicant.federation or 'not known'}: 1.4.3–1.4.4 apply"
            )
        else:
            return paragraph, None
    return _other_exemption(event), note


def _other_exemption(event: NormEvent) -> str | None:
    if event.zonal:
        return "1.4.3c"
    if event.swiss_1_4_3d:
        return "1.4.3d"
    return None


EXEMPTIONS: Final = {
    "1.4.3a": "final of a national individual championship",
    "1.4.3b": "national team championship (home players)",
    "1.4.3c": "zonal or sub-zonal event",
    "1.4.3d": "Swiss event with 20 foreign rated players of 3 federations, 10 titled, in every round",
}


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def _evaluate(
    requirement: NormRequirement,
    applicant: Applicant,
    event: NormEvent,
    base: _Base,
    omitted: tuple[int, ...],
) -> NormCheck:
    chosen = set(omitted)
    left_out = tuple(
        SetAside(
            g.round,
            "1.4.1f" if g.score == 100 and g.note is None else "1.4.1e",
            "won game left out" if g.score == 100 and g.note is None else "later game left out",
        )
        for i, g in enumerate(base.games)
        if i in chosen
    )
    games, raised = _floor_raised([g for i, g in enumerate(base.games) if i not in chosen], requirement.floor)
    n = len(games)
    rules: list[RuleCheck] = []
    notes: list[str] = list(base.notes)
    norm = requirement.norm

    # 1.4.1: the number of games, and what they count for in an application (1.4.1c, 1.7).
    credit_round = base.credit_round if not omitted else None
    minimum = event.min_games
    if credit_round is not None:
        rules.append(
            RuleCheck("1.4.1c", "games", f"8 + forfeit win or bye in round {credit_round}", "", "", True)
        )
        credited = 9
        notes.append("1.4.1c: at most one norm of a title application may be of 8 games and a forfeit or bye")
    else:
        paragraph = "1.4.1a" if minimum == 9 else "1.4.1b"
        rules.append(RuleCheck(paragraph, "games", str(n), "≥", str(minimum), n >= minimum))
        credited = 9 if minimum == 8 and n == 8 else min(n, MAX_CREDITED_GAMES)
    if n > MAX_CREDITED_GAMES:
        notes.append(f"1.7: {n} games count as {MAX_CREDITED_GAMES} toward a title application")

    # 1.4.3–1.4.4: the opponents' federations. FID players are opponents but no federation.
    own = applicant.federation
    per_federation = Counter(g.federation if g.federation else "unknown" for g in games)
    unknown = per_federation.get("unknown", 0)
    if unknown:
        notes.append(
            f"{unknown} opponent(s) of unknown federation: counted with the applicant's own federation for "
            "1.4.4 and as no foreign federation for 1.4.3; the officer must confirm"
        )
    real = {fed: count for fed, count in per_federation.items() if fed not in (FIDE_PLAYERS, "unknown")}
    foreign = len([fed for fed in real if fed != own])
    own_games = (real.get(own, 0) if own not in (None, FIDE_PLAYERS) else 0) + unknown
    max_own = OWN_FEDERATION_SHARE[0] * n // OWN_FEDERATION_SHARE[1]
    max_one = ONE_FEDERATION_SHARE[0] * n // ONE_FEDERATION_SHARE[1]
    fid_games = per_federation.get(FIDE_PLAYERS, 0)
    largest = max([*real.values(), *([fid_games] if event.fid_as_one_federation else [])], default=0)
    if fid_games:
        notes.append(
            f"{fid_games} FID opponent(s): no federation for 1.4.3; for the 2/3 cap of 1.4.4 "
            + (
                "counted together as one federation (the case's fid_as_one_federation)"
                if event.fid_as_one_federation
                else "not counted as a federation (no ruling settles it; fid_as_one_federation counts them)"
            )
        )
    exemption, not_exempt = _exemption(event, applicant)
    if not_exempt is not None:
        notes.append(not_exempt)
    if exemption is not None:
        rules.append(
            RuleCheck(exemption, "opponents' federations", f"exempt: {EXEMPTIONS[exemption]}", "", "", True)
        )
        notes.append(
            "1.4.3e: at least one norm of a title application must meet 1.4.3–1.4.4 without exemption"
        )
    elif own is None:
        rules.append(
            RuleCheck(
                "1.4.3", "opponents' federations", "the applicant's federation is not known", "", "", False
            )
        )
    else:
        rules.append(
            RuleCheck(
                "1.4.3",
                "foreign federations",
                str(foreign),
                "≥",
                str(MIN_FOREIGN_FEDERATIONS),
                foreign >= MIN_FOREIGN_FEDERATIONS,
            )
        )
        rules.append(
            RuleCheck(
                "1.4.4",
                "own federation",
                str(own_games),
                "≤",
                f"{max_own} (3/5 of {n})",
                own_games <= max_own,
            )
        )
        rules.append(
            RuleCheck(
                "1.4.4", "one federation", str(largest), "≤", f"{max_one} (2/3 of {n})", largest <= max_one
            )
        )

    # 1.4.5: the opponents' titles.
    titled = sum(1 for g in games if g.title in TITLE_HOLDERS)
    titled_required = _ceil_div(n, 2)
    norm_titled = sum(1 for g in games if g.title in requirement.opponent_titles)
    titles_named = "/".join(t for t in ("GM", "IM", "WGM", "WIM") if t in requirement.opponent_titles)
    rules.append(
        RuleCheck(
            "1.4.5",
            "titled opponents",
            str(titled),
            "≥",
            f"{titled_required} (half of {n})",
            titled >= titled_required,
        )
    )
    if event.system == "double_round_robin":
        players = event.players or 0
        norm_titled_required = _ceil_div(n, 2)
        rules.append(
            RuleCheck(
                "1.4.5f",
                "players",
                str(players),
                "≥",
                str(DOUBLE_ROUND_ROBIN_PLAYERS),
                players >= DOUBLE_ROUND_ROBIN_PLAYERS,
            )
        )
        rules.append(
            RuleCheck(
                "1.4.5f",
                f"{titles_named} opponents",
                str(norm_titled),
                "≥",
                f"{norm_titled_required} (half of {n})",
                norm_titled >= norm_titled_required,
            )
        )
    else:
        norm_titled_required = max(MIN_NORM_TITLED, _ceil_div(n, 3))
        rules.append(
            RuleCheck(
                "1.4.5",
                f"{titles_named} opponents",
                str(norm_titled),
                "≥",
                f"{norm_titled_required} (1/3 of {n}, at least 3)",
                norm_titled >= norm_titled_required,
            )
        )

    # 1.4.6–1.4.8: ratings, Ra, p, dp, Rp and the score.
    rating_sum = sum(g.counted_rating for g in games)
    score = sum(g.score for g in games)
    ra = percentage = dp = rp = None
    short = None
    if n:
        ra = round_half_away_from_zero(rating_sum, n)  # ratings are positive: .5 up (1.4.7)
        percentage = round_half_away_from_zero(score, n)  # score in hundredths / n = per cent, .5 up
        dp = dp_for_fraction(percentage)
        rp = ra + dp
        rules.append(
            RuleCheck(
                "1.4.8", "Ra", str(ra), "≥", str(requirement.min_average), ra >= requirement.min_average
            )
        )
        rules.append(
            RuleCheck(
                "1.4.8",
                "Rp",
                str(rp),
                "≥",
                str(requirement.min_performance),
                rp >= requirement.min_performance,
            )
        )
        rules.append(
            RuleCheck(
                "1.4.8",
                "score",
                f"{_points(score)}/{n} ({percentage} %)",
                "≥",
                f"{MIN_SCORE_PERCENT} %",
                100 * score >= MIN_SCORE_PERCENT * 100 * n,
            )
        )
    else:
        rules.append(RuleCheck("1.4.8", "Rp", "no games counted", "", "", False))
    if raised is not None:
        notes.append(f"round {raised.round}: {raised.note}")

    if norm in ("WGM", "WIM") and applicant.sex != "F":
        rules.append(RuleCheck("B.01", "women's title", "the applicant is not a woman", "", "", False))
    met = all(rule.passed for rule in rules)
    if not met and n:
        short = _points_short(requirement, rules, ra or 0, score, n)
    already = applicant.title in _RANK and _RANK[applicant.title] >= _RANK[norm]
    return NormCheck(
        norm=norm, met=met, already_holds=already, games=tuple(games), excluded=tuple(base.excluded),
        left_out=left_out, games_counted=n, games_credited=credited, score=score, rating_sum=rating_sum,
        average_rating=ra, percentage=percentage, dp=dp, performance=rp, raised=raised,
        federations=tuple(sorted(per_federation.items())), foreign_federations=foreign,
        own_federation_games=own_games, max_own_federation=max_own, max_one_federation=max_one,
        titled=titled, titled_required=titled_required, norm_titled=norm_titled,
        norm_titled_required=norm_titled_required, exemption=exemption, forfeit_credit_round=credit_round,
        forfeit_as_loss_round=base.as_loss_round, rules=tuple(rules), notes=tuple(notes), points_short=short,
    )  # fmt: skip


def _points_short(
    requirement: NormRequirement, rules: list[RuleCheck], ra: int, score: int, n: int
) -> int | None:
    """Hundredths more score (in half points) that would have met Rp and 35 %, when nothing else failed."""
    if any(not r.passed and not (r.paragraph == "1.4.8" and r.name in ("Rp", "score")) for r in rules):
        return None
    for more in range(50, 100 * n - score + 1, 50):
        total = score + more
        if ra + dp_for_fraction(round_half_away_from_zero(total, n)) >= requirement.min_performance and (
            100 * total >= MIN_SCORE_PERCENT * 100 * n
        ):
            return more
    return None


def _points(x100: int) -> str:
    whole, rest = divmod(x100, 100)
    return f"{whole}½" if rest == 50 and whole else ("½" if rest == 50 else str(whole))
