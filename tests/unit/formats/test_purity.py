"""ratingdb.formats stays pure: standard library and ratingdb.errors only, and each module says so."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import ratingdb.formats as formats

MODULES = sorted(Path(formats.__file__).parent.glob("*.py"))


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module or "")
    return names


def test_format_modules_import_only_the_standard_library_and_the_error_types() -> None:
    for path in MODULES:
        for name in _imports(path):
            top = name.split(".")[0]
            assert (
                top in sys.stdlib_module_names
                or name in {"ratingdb.errors"}
                or name.startswith("ratingdb.formats")
            ), f"{path.name} imports {name}"


def test_each_format_module_starts_with_a_one_line_docstring_naming_its_import_limit() -> None:
    for path in MODULES:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert "\n" not in docstring and "import" in docstring, path.name
