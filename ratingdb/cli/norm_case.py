"""A norm case as JSON (`ratingdb norm check`): read it into the rules' types, and a check as a JSON document.

Reading refuses the whole case at the first bad field and names it (`games[3].result`); nothing is guessed.
A field given as null is a field not given: its default when it is optional, "is missing" when required.
Imports the rules and the error types only: no database. (Not in ratingdb.formats, whose readers import
nothing of the rules; this one builds the rules' own types, as the CLI's option parsing does for `calc`.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ratingdb.errors import FormatError
from ratingdb.rating.errors import RulesError
from ratingdb.rating.norms import (
    NORMS,
    SYSTEMS,
    TITLES,
    Applicant,
    CountedGame,
    NormCheck,
    NormEvent,
    NormGame,
    check_norms,
)


class NormCaseError(FormatError):
    """A norm case (JSON) that is refused: names the file and the field."""


@dataclass(frozen=True)
class NormCase:
    norm: str | None
    applicant: Applicant
    event: NormEvent
    games: tuple[NormGame, ...]

    def check(self) -> list[NormCheck]:
        return check_norms(self.applicant, self.event, self.games, [self.norm] if self.norm else NORMS)


_APPLICANT_FIELDS = {"federation", "sex", "title"}
_EVENT_FIELDS = {
    "rounds", "system", "team", "national_championship", "national_team_championship", "zonal",
    "swiss_1_4_3d", "min_games", "players", "federation", "fid_as_one_federation",
}  # fmt: skip
_GAME_FIELDS = {
    "round", "opponent_rating", "opponent_title", "opponent_federation", "result", "forfeit", "bye",
    "opponent_zero_vs_rated", "opponent",
}  # fmt: skip
_RESULTS = {1: 100, 0.5: 50, 0: 0}


def read_norm_case(text: str, source: str) -> NormCase:
    """The case in `text` (JSON), read from `source` (a file name, or `-` for standard input)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NormCaseError(source, exc.lineno, exc.colno, f"not valid JSON ({exc.msg})") from None
    reader = _Reader(source)
    case = reader.case(document)
    try:
        case.check()  # the rules' own checks (rounds in range, 1.4.1b, 1.4.5f), as the same one line
    except RulesError as exc:
        raise NormCaseError(source, None, None, str(exc)) from None
    return case


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, reason: str) -> NormCaseError:
        if reason == "is required":
            reason = "is missing — the norm case schema is in the docs (`ratingdb norm check --help`)"
        return NormCaseError(self.source, None, None, f"{where}: {reason}")

    def object(self, value: Any, where: str, known: set[str]) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, "must be a JSON object")
        unknown = sorted(set(value) - known)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}" if where else unknown[0],
                            f"unknown field (known: {', '.join(sorted(known))})")  # fmt: skip
        return value

    def text(self, value: Any, where: str, *, choices: Sequence[str] | None = None, optional: bool = True,
             length: int | None = None) -> str | None:  # fmt: skip
        if value is None:
            if optional:
                return None
            raise self.fail(where, "is required")
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, "must be a text")
        value = value.strip()
        if choices is not None and value not in choices:
            raise self.fail(where, f"{value!r} is not one of {', '.join(choices)}")
        if length is not None and len(value) != length:
            raise self.fail(where, f"{value!r} is not a {length}-letter code")
        return value

    def whole(self, value: Any, where: str, *, optional: bool = False) -> int | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, "must be a whole number")
        return value

    def flag(self, value: Any, where: str) -> bool:
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.fail(where, "must be true or false")
        return value

    def case(self, document: Any) -> NormCase:
        top = self.object(document, "", {"norm", "applicant", "event", "games"})
        for name in ("applicant", "event", "games"):
            if top.get(name) is None:
                raise self.fail(name, "is required")
        norm = self.text(top.get("norm"), "norm", choices=NORMS)
        a = self.object(top["applicant"], "applicant", _APPLICANT_FIELDS)
        applicant = Applicant(
            federation=self.text(a.get("federation"), "applicant.federation", length=3),
            sex=self.text(a.get("sex"), "applicant.sex", choices=("M", "F"), optional=False) or "",
            title=self.text(a.get("title"), "applicant.title", choices=TITLES),
        )
        e = self.object(top["event"], "event", _EVENT_FIELDS)
        if e.get("rounds") is None:
            raise self.fail("event.rounds", "is required")
        rounds = self.whole(e["rounds"], "event.rounds") or 0
        if rounds < 1:
            raise self.fail("event.rounds", f"must be at least 1, not {rounds}")
        min_games = self.whole(e.get("min_games"), "event.min_games", optional=True)
        min_games = 9 if min_games is None else min_games
        if min_games not in (7, 8, 9):
            raise self.fail("event.min_games", f"must be 9, 7 (1.4.1b) or 8 (World Cup), not {min_games}")
        event = NormEvent(
            rounds=rounds,
            system=self.text(e.get("system", "swiss"), "event.system", choices=SYSTEMS) or "swiss",
            team=self.flag(e.get("team"), "event.team"),
            national_championship=self.flag(e.get("national_championship"), "event.national_championship"),
            national_team_championship=self.flag(
                e.get("national_team_championship"), "event.national_team_championship"
            ),
            zonal=self.flag(e.get("zonal"), "event.zonal"),
            swiss_1_4_3d=self.flag(e.get("swiss_1_4_3d"), "event.swiss_1_4_3d"),
            min_games=min_games,
            players=self.whole(e.get("players"), "event.players", optional=True),
            federation=self.text(e.get("federation"), "event.federation", length=3),
            fid_as_one_federation=self.flag(e.get("fid_as_one_federation"), "event.fid_as_one_federation"),
        )
        if not isinstance(top["games"], list):
            raise self.fail("games", "must be a list of games")
        games = tuple(self.game(g, f"games[{i}]", rounds) for i, g in enumerate(top["games"]))
        seen: dict[int, int] = {}
        for i, game in enumerate(games):
            if game.round in seen and event.system != "knockout":
                raise self.fail(f"games[{i}].round", f"round {game.round} is also games[{seen[game.round]}]")
            seen.setdefault(game.round, i)
        return NormCase(norm, applicant, event, games)

    def game(self, value: Any, where: str, rounds: int) -> NormGame:
        g = self.object(value, where, _GAME_FIELDS)
        for name in ("round", "result"):
            if g.get(name) is None:
                raise self.fail(f"{where}.{name}", "is required")
        rnd = self.whole(g["round"], f"{where}.round") or 0
        if not 1 <= rnd <= rounds:
            raise self.fail(f"{where}.round", f"{rnd} is not a round of the event (1 to {rounds})")
        result = g["result"]
        if isinstance(result, bool) or not isinstance(result, int | float) or result not in _RESULTS:
            raise self.fail(f"{where}.result", f"must be 1, 0.5 or 0, not {json.dumps(result)}")
        rating = self.whole(g.get("opponent_rating"), f"{where}.opponent_rating", optional=True)
        if rating is not None and not 0 < rating < 4000:
            raise self.fail(f"{where}.opponent_rating", f"{rating} is not a rating (null for unrated)")
        forfeit = self.flag(g.get("forfeit"), f"{where}.forfeit")
        bye = self.flag(g.get("bye"), f"{where}.bye")
        if forfeit and bye:
            raise self.fail(where, "cannot be both a forfeit and a bye")
        federation = self.text(g.get("opponent_federation"), f"{where}.opponent_federation", length=3)
        if federation is None and not bye:
            raise self.fail(
                f"{where}.opponent_federation", "is required (NON: no FIDE federation; FID: FIDE)"
            )
        opponent = g.get("opponent")
        if opponent is not None and not isinstance(opponent, str | int):
            raise self.fail(f"{where}.opponent", "must be a name or an ID")
        return NormGame(
            round=rnd,
            score=_RESULTS[result],
            opponent_rating=rating,
            opponent_title=self.text(g.get("opponent_title"), f"{where}.opponent_title", choices=TITLES),
            opponent_federation=federation,
            forfeit=forfeit,
            bye=bye,
            opponent_zero_vs_rated=self.flag(
                g.get("opponent_zero_vs_rated"), f"{where}.opponent_zero_vs_rated"
            ),
            opponent=None if opponent is None else str(opponent),
        )


def _points(x100: int) -> float:
    return x100 / 100  # halves are exact in binary


def _game(game: CountedGame) -> dict[str, Any]:
    return {
        "round": game.round,
        "opponent": game.opponent,
        "title": game.title,
        "federation": game.federation,
        "rating": game.rating,
        "counted_rating": game.counted_rating,
        "result": _points(game.score),
        "note": game.note,
    }


def check_document(check: NormCheck) -> dict[str, Any]:
    """One norm's check as JSON with stable keys (the docs list them)."""
    return {
        "norm": check.norm,
        "met": check.met,
        "already_holds": check.already_holds,
        "near_miss": check.near_miss,
        "games_counted": check.games_counted,
        "games_credited": check.games_credited,
        "score": _points(check.score),
        "percentage": check.percentage,
        "dp": check.dp,
        "rating_sum": check.rating_sum,
        "average_rating": check.average_rating,
        "performance": check.performance,
        "raised_opponent": None if check.raised is None else _game(check.raised),
        "federations": dict(check.federations),
        "foreign_federations": check.foreign_federations,
        "own_federation_games": check.own_federation_games,
        "max_own_federation": check.max_own_federation,
        "max_one_federation": check.max_one_federation,
        "titled_opponents": check.titled,
        "titled_required": check.titled_required,
        "norm_title_opponents": check.norm_titled,
        "norm_title_required": check.norm_titled_required,
        "exemption": check.exemption,
        "forfeit_credit_round": check.forfeit_credit_round,
        "forfeit_as_loss_round": check.forfeit_as_loss_round,
        "left_out_rounds": list(check.left_out_rounds),
        "left_out": [
            {"round": x.round, "paragraph": x.paragraph, "reason": x.reason} for x in check.left_out
        ],
        "excluded": [
            {"round": x.round, "paragraph": x.paragraph, "reason": x.reason} for x in check.excluded
        ],
        "failed_rules": [f"{r.paragraph}: {r.text}" for r in check.failed_rules],
        "rules": [
            {
                "paragraph": r.paragraph,
                "rule": r.text,
                "passed": r.passed,
                "value": r.value,
                "required": r.required,
            }
            for r in check.rules
        ],  # fmt: skip
        "points_short": None if check.points_short is None else _points(check.points_short),
        "games": [_game(g) for g in check.games],
        "notes": list(check.notes),
    }
