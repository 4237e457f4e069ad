"""docs/reference/bundle.md is enough to verify a bundle: tests/docs/bundle_verifier.py, written from the
page alone and importing only the standard library, recomputes a small bundle's list and record exactly,
and finds a result changed behind the manifest's back."""

from __future__ import annotations

import ast
import csv
import io
import sys
from pathlib import Path

from sqlalchemy import Engine

from ratingdb import db
from ratingdb.bundle.archive import build, read_bundle
from ratingdb.services.bundle import list_bundle
from tests.docs import bundle_verifier
from tests.integration.test_close import OCT, test_k_drops_to_17_when_39_games_would_exceed_700
from tests.integration.test_close import (
    test_the_2813_player_loses_three_points_rounded_once_with_real_differences as star_close,
)


def test_the_verifier_imports_the_standard_library_only() -> None:
    tree = ast.parse(Path(bundle_verifier.__file__).read_text("utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [node])  # type: ignore[list-item]
    }
    assert imported - {"__future__"} <= sys.stdlib_module_names, imported


def _published(data: bytes) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    members = read_bundle(data).members
    listed = {
        (r["fide_id"] or "N" + r["national_id"]): (r["rating"], r["games"], r["k"], r["flag"])
        for r in csv.DictReader(io.StringIO(members["published/list.csv"].decode()))
    }
    record = {
        r["player"]: (r["ro"], r["k"], r["n"], r["sum_dr_x100"], r["k_sum_dr_x100"], r["change"])
        for r in csv.DictReader(io.StringIO(members["published/calc-players.csv"].decode()))
    }
    return listed, record


def _bundle(engine: Engine) -> bytes:
    with db.read_transaction(engine) as session:
        return list_bundle(session, "standard", OCT.published_list_date).data


def test_the_page_is_enough_to_recompute_the_2813_players_close(engine: Engine) -> None:
    # Spec §11: 2813 → 2810 (Σ −.25, K 10, −2.50 → −3); the page's verifier gives every figure of the list.
    star_close(engine)
    data = _bundle(engine)
    listed, record = bundle_verifier.recompute(data)
    assert (listed, record) == _published(data)
    assert [r for r in record.values() if r[0] == "2813"] == [("2813", "10", "5", "-25", "-250", "-3")]


def test_the_page_is_enough_for_the_700_rule(engine: Engine) -> None:
    test_k_drops_to_17_when_39_games_would_exceed_700(engine)
    data = _bundle(engine)
    listed, record = bundle_verifier.recompute(data)
    assert (listed, record) == _published(data)
    assert any(r[1] == "17" and r[2] == "39" for r in record.values())


def test_the_verifier_from_the_page_sees_a_changed_result(engine: Engine) -> None:
    star_close(engine)
    data = _bundle(engine)
    bundle = read_bundle(data)
    members = dict(bundle.members)
    name = next(n for n in members if n.endswith(".trf"))
    lines = members[name].decode().split("\n")
    # The first line's first cell (columns 92–101, TRF16): the star's round-1 win reported as a loss, on
    # both players' lines.
    first = next(i for i, line in enumerate(lines) if line.startswith("001"))
    assert lines[first][98] == "1"
    opponent = int(lines[first][91:95])
    other = next(i for i, line in enumerate(lines) if line.startswith("001") and int(line[4:8]) == opponent)
    assert lines[other][98] == "0"
    lines[first] = lines[first][:98] + "0" + lines[first][99:]
    lines[other] = lines[other][:98] + "1" + lines[other][99:]
    members[name] = "\n".join(lines).encode()
    forged = build({k: v for k, v in bundle.manifest.items() if k != "members"}, members)
    listed, record = bundle_verifier.recompute(forged)
    published_list, published_record = _published(forged)
    assert listed != published_list and record != published_record
    changed = {p for p in record if record[p] != published_record[p]}
    assert len(changed) == 2  # the star and the round-1 opponent
