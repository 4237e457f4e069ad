"""Only a rating system's own modules (and the registries, the models, the catalogues) name a system.

Issue 48's fitness rule, as tests/unit/test_engine_names.py holds the engines': a rating system is one
package found by one registry, so a shared module loops over the registry instead of branching "Glicko-2
or else Elo". Read from the code's tokens (comments and docstrings may name the systems): refused are a
string that is a system's name ("elo", "glicko2", "glicko"), a name containing a non-default system's
("glicko2_entry", "Glicko2RuleSet", "_is_glicko_type") and an import of a system's module.

The shared modules that still branch are listed in STILL_BRANCHING, each with what it names, so the
list can only shrink: a new module naming a system fails, and so does an entry that no longer does.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import ratingdb

PACKAGE = Path(ratingdb.__file__).parent
ROOT = PACKAGE.parent

SYSTEM_NAMES = {"elo", "glicko2", "glicko"}
NAMED = re.compile(r"glicko", re.IGNORECASE)  # Elo is the default: its rules are ratingdb.rating's own

# A system's own modules, the registries (rating/systems.py for rule files, services/systems for the
# close and the record, reports/systems for the pages) and the models.
OWN = (
    "ratingdb/rating/glicko2.py", "ratingdb/rating/glicko.py", "ratingdb/calculator/glicko2.py",
    "ratingdb/calculator/glicko2_text.py", "ratingdb/calculator/glicko.py",
    "ratingdb/calculator/glicko_text.py",
    "ratingdb/calculator/elo.py", "ratingdb/calculator/elo_text.py", "ratingdb/cli/calc_glicko2.py",
    "ratingdb/cli/calc_glicko.py", "ratingdb/formats/glicko2_list.py", "ratingdb/services/glicko2_lists.py",
    "ratingdb/reports/glicko2.py", "ratingdb/services/systems/", "ratingdb/reports/systems/",
    "ratingdb/rating/systems.py", "ratingdb/schema/models.py", "ratingdb/bundle/systems/",
)  # fmt: skip

# Shared modules that still name a system (issue 48: each to be moved behind the registry).
STILL_BRANCHING = {
    "ratingdb/calc_notes.py", "ratingdb/cli/calc.py", "ratingdb/services/demo.py",
    "ratingdb/site/publish.py", "ratingdb/site/served.py", "ratingdb/web/api.py",
}  # fmt: skip


def system_names(source: str) -> list[str]:
    """Where `source` names a rating system, as `line: what` strings."""
    found: list[str] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        line = token.start[0]
        if token.type == tokenize.NAME and NAMED.search(token.string):
            found.append(f"{line}: {token.string}")
        elif token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str) and value.strip().lower() in SYSTEM_NAMES:
                found.append(f"{line}: {token.string}")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and NAMED.search(node.module):
            found.append(f"{node.lineno}: from {node.module}")
    return found


def _shared_modules() -> list[str]:
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*.py")
        if not path.relative_to(ROOT).as_posix().startswith(OWN)
    )


def test_no_new_shared_module_names_a_rating_system_and_the_known_ones_still_do() -> None:
    naming = {name for name in _shared_modules() if system_names((ROOT / name).read_text(encoding="utf-8"))}
    assert naming - STILL_BRANCHING == set(), (
        "a shared module names a rating system: loop over the registry (ratingdb.services.systems) instead"
    )
    assert STILL_BRANCHING - naming == set(), "no longer names a system: take it off STILL_BRANCHING"


def test_the_check_sees_each_way_of_naming_a_system() -> None:
    samples = {
        'if rules.system == "glicko2":\n    pass\n': 1,
        'report.system = "elo"\n': 1,
        "from ratingdb.rating.glicko import GlickoRuleSet\n": 3,  # the module, its name twice as tokens
        "rows = session.scalars(select(Glicko2Entry))\n": 1,
        "# a Glicko-2 list's deviations\n": 0,
        '"""Glicko-2 (Glickman)."""\n': 0,
        'x = "elo ratings"\n': 0,
    }
    assert {source: len(system_names(source)) for source in samples} == samples
