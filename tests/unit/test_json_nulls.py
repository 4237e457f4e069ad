"""Null means not given, in every JSON input the program reads (issue 51): the norm case of `norm check` and
the import choices an event keeps (event.import_choices). Each field, set to null, reads exactly as the
same document without it — accepted with its default when optional, refused with the same sentence when
required. The fields are the readers' own lists, so a field added later is walked too."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from ratingdb.cli.norm_case import (
    _APPLICANT_FIELDS,
    _EVENT_FIELDS,
    _GAME_FIELDS,
    NormCaseError,
    read_norm_case,
)
from ratingdb.services.choices import ImportChoices

# Every field of the case given (the spec's worked check: nine GMs of 2400, 7/9), so that each null matters.
FULL_CASE: dict[str, Any] = {
    "norm": "GM",
    "applicant": {"federation": "ENG", "sex": "M", "title": "IM"},
    "event": {
        "rounds": 9, "system": "swiss", "team": False, "national_championship": False,
        "national_team_championship": False, "zonal": False, "swiss_1_4_3d": False, "min_games": 9,
        "players": 10, "federation": "ENG", "fid_as_one_federation": False,
    },
    "games": [
        {
            "round": i + 1, "opponent_rating": 2400, "opponent_title": "GM", "opponent_federation": fed,
            "result": result, "forfeit": False, "bye": False, "opponent_zero_vs_rated": False,
            "opponent": f"Player {i + 1}",
        }
        for i, (fed, result) in enumerate(
            zip(["GER", "FRA", "ESP", "ITA", "NED", "BEL", "SUI", "AUT", "POL"], [1] * 7 + [0] * 2,
                strict=True)
        )
    ],
}  # fmt: skip
REQUIRED = {
    "applicant", "event", "games", "applicant.sex", "event.rounds", "games[0].round", "games[0].result",
    "games[0].opponent_federation",
}  # fmt: skip


def _paths() -> list[str]:
    paths = ["norm", "applicant", "event", "games"]
    paths += [f"applicant.{name}" for name in sorted(_APPLICANT_FIELDS)]
    paths += [f"event.{name}" for name in sorted(_EVENT_FIELDS)]
    paths += [f"games[0].{name}" for name in sorted(_GAME_FIELDS)]
    return paths


def _container(case: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    if "." not in path:
        return case, path
    parent, name = path.split(".")
    return (case["games"][0] if parent == "games[0]" else case[parent]), name


def _read(case: dict[str, Any]) -> Any:
    try:
        return read_norm_case(json.dumps(case), "case.json")
    except NormCaseError as exc:
        return str(exc)


def test_every_field_of_the_full_case_is_walked() -> None:
    for path in _paths():
        container, name = _container(FULL_CASE, path)
        assert name in container, path


@pytest.mark.parametrize("path", _paths())
def test_a_norm_case_field_given_as_null_reads_as_the_field_not_given(path: str) -> None:
    with_null, without = copy.deepcopy(FULL_CASE), copy.deepcopy(FULL_CASE)
    container, name = _container(with_null, path)
    container[name] = None
    container, name = _container(without, path)
    del container[name]
    read_null, read_absent = _read(with_null), _read(without)
    assert read_null == read_absent
    if path in REQUIRED:
        assert isinstance(read_null, str)
        assert "is missing" in read_null or "is required" in read_null, read_null
    else:
        assert not isinstance(read_null, str), read_null  # accepted


def test_min_games_null_is_the_default_nine() -> None:
    # The case: "min_games": null was refused ("must be a whole number").
    case = copy.deepcopy(FULL_CASE)
    case["event"]["min_games"] = None
    assert read_norm_case(json.dumps(case), "case.json").event.min_games == 9


STORED = {
    "type_override": True, "closing_days": 10, "distinct_event": True, "id_field": "national",
    "match": {"3": "12345"}, "new": [4], "accept_name": [5], "drop": [6],
}  # fmt: skip


@pytest.mark.parametrize("key", sorted(STORED))
def test_a_stored_import_choice_given_as_null_reads_as_the_choice_not_made(key: str) -> None:
    with_null = dict(STORED, **{key: None})
    without = {k: v for k, v in STORED.items() if k != key}
    assert ImportChoices.from_stored(json.dumps(with_null)) == ImportChoices.from_stored(json.dumps(without))
