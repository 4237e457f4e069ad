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
                or (name == "ratingdb.lazy" and path.name == "__init__.py")
                or name.startswith("ratingdb.formats")
            ), f"{path.name} imports {name}"


def test_each_format_module_starts_with_a_one_line_docstring_naming_its_import_limit() -> None:
    for path in MODULES:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert "\n" not in docstring and "import" in docstring, path.name


def test_every_name_the_package_offers_is_its_modules_own() -> None:
    # The package imports its modules on first use (ratingdb.lazy): its table of names must match
    # __all__, and each name must be the object its module defines.
    import importlib

    from ratingdb.lazy import TABLES

    assert sorted(TABLES["ratingdb.formats"]) == sorted(formats.__all__)
    for name, module in TABLES["ratingdb.formats"].items():
        assert getattr(formats, name) is getattr(importlib.import_module(f"ratingdb.formats.{module}"), name)


def test_the_limits_module_loads_without_the_readers() -> None:
    # The command line reads its defaults from ratingdb.formats.limits; `ratingdb --help` loads no reader.
    import subprocess

    code = "import sys, ratingdb.formats.limits; print(*sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert [name for name in loaded.split() if name.startswith("ratingdb.")] == [
        "ratingdb.lazy",
        "ratingdb.formats",
        "ratingdb.formats.limits",
    ]
