"""The commands that once held use cases are adapters again: they parse, call one service and print.

`close-period` held the loop over periods, the copy before each close, the dry run and the Ctrl-C
accounting; `import-list` chose the format, the types and one of four importers (issue 46). Those live
in services.closing and services.list_files now, which the desk and ratingdb.api call too. Read from
the source: each command's body (its docstring left out) stays under 60 lines and opens one transaction
or one unit of work at most.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ratingdb

CLI = Path(ratingdb.__file__).parent / "cli"
MAX_LINES = 60
OPENERS = {"transaction", "read_transaction", "command_unit_of_work"}


def _commands(path: Path) -> list[ast.FunctionDef]:
    """The functions `@app.command(...)` registers in the module at `path`."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and any(
            isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "command"
            for d in node.decorator_list
        ):
            found.append(node)
    return found


def _body_lines(function: ast.FunctionDef) -> int:
    body = function.body
    has_docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    first = body[1] if has_docstring and len(body) > 1 else body[0]
    assert function.end_lineno is not None
    return function.end_lineno - first.lineno + 1


def _opened(function: ast.FunctionDef) -> list[str]:
    return [
        node.func.id
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in OPENERS
    ]


@pytest.mark.parametrize("module", ["close.py", "imports.py"])
def test_each_command_parses_calls_one_service_and_prints(module: str) -> None:
    commands = _commands(CLI / module)
    assert commands, module
    for command in commands:
        assert _body_lines(command) < MAX_LINES, f"{module}: {command.name} is {_body_lines(command)} lines"
        assert len(_opened(command)) <= 1, f"{module}: {command.name} opens {_opened(command)}"


def test_the_check_reads_a_long_command_as_long() -> None:
    # The check itself: a command of 60 lines, or one opening two transactions, is caught.
    long_source = "@app.command('x')\ndef x():\n    '''Doc.'''\n" + "    pass\n" * MAX_LINES
    (long,) = [n for n in ast.parse(long_source).body if isinstance(n, ast.FunctionDef)]
    assert _body_lines(long) == MAX_LINES
    two = "def y():\n    with transaction() as a:\n        pass\n    with transaction() as b:\n        pass\n"
    (function,) = [n for n in ast.parse(two).body if isinstance(n, ast.FunctionDef)]
    assert _opened(function) == ["transaction", "transaction"]
