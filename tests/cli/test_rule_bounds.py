"""Rule sets hold only values the lists and the close accept (issue 26: `[floor] rating = 4000,
below = "floor"` passed validation, then every close died with a 67-line IntegrityError).

Each bound is tried at its edge: the largest accepted value closes a period and publishes it; one past
it is refused when the file is added, naming the key.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.rating.rulefile import RuleFileError, parse_rule_set
from tests.cli.test_import_cli import FIXTURES

runner = CliRunner()
SAMPLE = (Path(__file__).parents[2] / "seeds" / "national-2025.toml").read_text(encoding="utf-8")
LIST = (
    "fide_id,name,federation,sex,birth_year,rating\n"
    '200001,"Kowalski, Jan",IRL,M,1980,{r}\n'
    '200002,"Novak, Petra",IRL,F,1980,{r}\n'
    '200003,"Horvat, Ivan",IRL,M,1980,{r}\n'
    '200004,"Szabo, Eva",IRL,F,2009,{r}\n'
)


def edited(**changes: str) -> str:
    """The sample rule set with `key = value` lines replaced (the first line of each key)."""
    out = SAMPLE
    for key, value in changes.items():
        key = key.replace("__", ".")
        name = key.split(".")[-1]
        out, n = re.subn(rf"(?m)^{name} = [^#\n]*", f"{name} = {value} ", out, count=1)
        assert n == 1, key
    return out


@pytest.mark.parametrize(
    ("changes", "key", "reason"),
    [
        (
            {"rating": "4000", "below": '"floor"'},
            "floor.rating",
            "4000 is out of range: write a whole number from 0 to 3999",
        ),
        (
            {"rating": "0", "below": '"floor"'},
            "floor.rating",
            "0 cannot be a rating players are raised to: write 1 to 3999",
        ),
        ({"max_rating": "4000"}, "initial.max_rating", "4000 is out of range"),
        ({"max_rating": "0"}, "initial.max_rating", "0 is out of range"),
        ({"exempt_from": "4000"}, "cap.exempt_from", "4000 is out of range"),
        ({"above": "4000", "difference": "600"}, "exclusion.above", "4000 is out of range"),
        ({"value": "1001"}, "k.rule[1].value", "1001 is out of range"),
    ],
)
def test_a_value_no_list_can_hold_is_refused_when_the_file_is_read(
    changes: dict[str, str], key: str, reason: str
) -> None:
    with pytest.raises(RuleFileError) as refused:
        parse_rule_set(edited(**changes), source="national.toml")
    assert refused.value.key == key
    assert refused.value.reason.startswith(reason), refused.value.reason


def test_a_huge_or_deeply_nested_rule_file_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(RuleFileError, match="64,001 characters is too long for a rule file"):
        parse_rule_set("#" * 64_001)
    with pytest.raises(RuleFileError, match="nested too deeply"):
        parse_rule_set("x = " + "[" * 20_000 + "]" * 20_000)
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * 100_000_000)
    result = runner.invoke(app, ["--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "rules", "add", str(big)])
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: {big}: 100,000,002 bytes is too large for a rule file (FIDE's are 3 KB; at most 64,000 "
        "characters) — give the rule set's TOML file\n",
    )


def _close(db_url: str, tmp_path: Path, rules: str, rating: int) -> tuple[int, str, str]:
    def run(*args: str | Path) -> object:
        result = runner.invoke(app, ["--db", db_url, *map(str, args)])
        return result

    (tmp_path / "national.toml").write_text(rules, encoding="utf-8")
    (tmp_path / "oct.csv").write_text(LIST.format(r=rating), encoding="utf-8")
    for args in (
        ("rules", "add", tmp_path / "national.toml"),
        ("import-list", tmp_path / "oct.csv", "--date", "2025-10-01", "--type", "national"),
        ("import-trf", FIXTURES / "round_robin.trf", "--type", "national"),
    ):
        result = run(*args)
        assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    closed = run("close-period", "2025-10", "--type", "national")
    return closed.exit_code, closed.stdout, closed.stderr  # type: ignore[attr-defined]


def _national_list(db_url: str) -> list[tuple[object, ...]]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return list(
                conn.execute(
                    text(
                        "SELECT e.rating FROM list_entry e JOIN rating_list l ON l.id = e.list_id "
                        "WHERE l.rating_type = 'national' AND l.origin = 'computed' ORDER BY e.player_id"
                    )
                )
            )
    finally:
        engine.dispose()


def test_the_highest_floor_closes_and_publishes_everyone_at_it(db_url: str, tmp_path: Path) -> None:
    # Floor 3999, kept at the floor: every rating the round robin gives (about 2000) is raised to 3999.
    code, out, err = _close(db_url, tmp_path, edited(rating="3999", below='"floor"'), 2000)
    assert (code, err) == (0, ""), err
    assert _national_list(db_url) == [(3999,)] * 4


@pytest.mark.parametrize(
    "rules",
    [
        edited(exempt_from="3999"),  # cap.exempt_from at its highest
        # exclusion.above at its highest (the sample's exclusion difference is "none"; the cap's is 400)
        edited(above="3999").replace('difference = "none"', "difference = 600", 1),
        edited(max_rating="3999"),  # initial.max_rating at its highest
        edited(value="1000"),  # k.rule[1].value at its highest (the rule of the round robin's players)
    ],
    ids=["cap-exempt-3999", "exclusion-above-3999", "initial-max-3999", "k-1000"],
)
def test_every_highest_accepted_value_closes_and_publishes(db_url: str, tmp_path: Path, rules: str) -> None:
    code, out, err = _close(db_url, tmp_path, rules, 2000)
    assert (code, err) == (0, ""), err
    assert len(_national_list(db_url)) == 4


def test_a_close_whose_rating_would_pass_3999_is_refused_in_one_line(db_url: str, tmp_path: Path) -> None:
    # K 1000 on players rated 3990, capped so that K × 3 games ≤ 700 (§8.3.3, the sample's 700): K 233.
    # Kowalski's 2.5 of 3 against three 3990s gives 3990 + 233 × (2.5 − 1.5) = 4223, which no list can
    # hold (ratings are 1–3999). Before the check came back to the close this was a traceback.
    code, out, err = _close(db_url, tmp_path, edited(value="1000"), 3990)
    assert (code, err) == (
        1,
        "Error: the close computed a rating of 4223 for player 1, outside the 1–3999 a list holds (rule set "
        "national-2025) — correct the rule set's K or floor; nothing was published\n",
    )
    assert _national_list(db_url) == []
