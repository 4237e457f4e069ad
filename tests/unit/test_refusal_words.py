"""No module of ratingdb/services names a terminal option (issue 46): a refusal is data — which choice
settles it, with its values — and each adapter words it (the terminal as its options, the desk as its
controls or in plain words, translated). Read from the code: every string literal of ratingdb/services
(f-string parts included; docstrings and comments may name options) is searched for `--` and a letter.

Most refusals of the services still carry the terminal's sentence: those modules are listed in
STILL_NAMING with how many such literals each holds, so the list can only shrink — a new literal, or a
module not listed, fails, and so does a count that is now too high (lower it). Refusals already data:
a player line (errors.UnresolvedLine), the file's ID column (IdColumnRefused), its federation column
(FederationColumnRefused), another section of a congress (AnotherSection), a corrected version
(CorrectedVersion); their terminal sentence is the error class's (ratingdb/errors.py), their desk words
are web/templates/_refusal.html's.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import ratingdb

SERVICES = Path(ratingdb.__file__).parent / "services"
OPTION = re.compile(r"--[a-z]")

# module (relative to ratingdb/services) → literals naming an option, to be converted to data (issue 46).
STILL_NAMING = {
    "bundle_keys.py": 2,  # keys create --replace --reason (terminal and API only: no desk control)
    "choices.py": 9,  # ImportChoices.as_options: the choices kept, as the terminal writes them
    "close.py": 6,
    "corrections.py": 17,
    "demo.py": 4,
    "event_labels.py": 4,
    "event_warnings.py": 1,
    "events.py": 4,  # the unknown type (--type), a reopen advice, a refusal to delete
    "integrity.py": 3,  # the screen's advice and a decision refused in a closed period (reopen first)
    "list_import.py": 13,
    "notices.py": 2,  # the serve options of a mail setting left out (terminal only)
    "list_matching.py": 14,
    "matching.py": 18,
    "register.py": 16,
    "rules.py": 1,
    "second_factor.py": 1,  # serve --require-2fa's refusal (terminal only)
    "submissions.py": 8,  # choices_text and SWITCHES (the choices as options), --id-field's refusal
    "systems/glicko.py": 2,  # --adjust and --update refused for a Glicko list (terminal and API)
    "systems/glicko2.py": 1,
    "users.py": 1,
}


def naming_options(path: Path) -> list[tuple[int, str]]:
    """The string literals of `path` (not docstrings) that name a terminal option, with their lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and OPTION.search(node.value)
    ]


def test_no_service_names_a_terminal_option_but_those_still_listed() -> None:
    found = {
        path.relative_to(SERVICES).as_posix(): len(literals)
        for path in sorted(SERVICES.rglob("*.py"))
        if (literals := naming_options(path))
    }
    grew = {name: n for name, n in found.items() if n > STILL_NAMING.get(name, 0)}
    assert grew == {}, (
        f"a service names a terminal option: make the refusal data, worded by each adapter {grew}"
    )
    shrank = {name: found.get(name, 0) for name, n in STILL_NAMING.items() if found.get(name, 0) < n}
    assert shrank == {}, f"fewer literals name an option now: lower STILL_NAMING to {shrank}"


def test_the_search_finds_an_option_in_an_f_string_and_skips_docstrings(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Module: --id-field in a docstring is allowed."""\n'
        "def f(rank: int) -> str:\n"
        '    """--match in a docstring too."""\n'
        '    return f"name it with --match {rank}=ID"  # --new in a comment\n',
        encoding="utf-8",
    )
    assert naming_options(sample) == [(4, "name it with --match ")]


def test_the_sections_refusal_is_data_that_no_service_words() -> None:
    assert not [hit for hit in naming_options(SERVICES / "events.py") if "--section" in hit[1]]
    assert not [hit for hit in naming_options(SERVICES / "events.py") if "--distinct-event" in hit[1]]
