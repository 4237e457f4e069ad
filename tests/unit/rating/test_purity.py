"""ratingdb.rating stays pure: no database, CLI or package imports, and every function cites its rule."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import ratingdb.rating as rating

PACKAGE_DIR = Path(rating.__file__).parent
MODULES = sorted(PACKAGE_DIR.glob("*.py"))
FORBIDDEN_TOP_LEVEL = {"sqlalchemy", "alembic", "typer", "rich", "click", "psycopg", "matplotlib"}


def _absolute_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names.append(node.module or "")
            else:
                # A relative import may only reach sibling modules of ratingdb.rating.
                assert node.level == 1, f"{path.name}: relative import leaves ratingdb.rating"
    return names


def test_the_rating_package_has_the_expected_modules() -> None:
    assert {path.stem for path in MODULES} >= {"tables", "periods", "rules", "change", "kfactor", "initial"}


def test_every_module_imports_only_the_standard_library_and_itself() -> None:
    for path in MODULES:
        for name in _absolute_imports(path):
            top = name.split(".")[0]
            if name == "ratingdb.lazy":
                # The package's names loaded on first use (the one mechanism: stdlib only, test_layers.py).
                assert path.name == "__init__.py", (path.name, name)
            elif name.startswith("ratingdb"):
                assert name == "ratingdb.rating" or name.startswith("ratingdb.rating."), (path.name, name)
            else:
                assert top not in FORBIDDEN_TOP_LEVEL, (path.name, name)
                assert top in sys.stdlib_module_names, (path.name, name)


def test_importing_ratingdb_rating_loads_no_database_cli_or_other_package_module() -> None:
    script = "import sys, ratingdb.rating\nprint('\\n'.join(sorted(name for name in sys.modules)))\n"
    loaded = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout.split()
    assert not [name for name in loaded if name.split(".")[0] in FORBIDDEN_TOP_LEVEL]
    others = [
        name for name in loaded if name.startswith("ratingdb.") and not name.startswith("ratingdb.rating")
    ]
    assert others == ["ratingdb.lazy"]  # the first-use loading of catalogue, rulefile and norms


def test_every_module_starts_with_a_one_line_docstring() -> None:
    for path in MODULES:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert docstring, path.name
        assert "import" in docstring.splitlines()[0], f"{path.name}: say what it must not import"


def test_every_public_function_names_the_paragraph_it_implements() -> None:
    public = [getattr(rating, name) for name in rating.__all__]
    functions = [value for value in public if inspect.isfunction(value)]
    assert len(functions) > 20
    for function in functions:
        assert "§" in (function.__doc__ or ""), function.__name__


def test_everything_in_all_is_importable_from_the_package() -> None:
    for name in rating.__all__:
        assert hasattr(rating, name), name


def test_the_rule_files_are_read_when_a_rule_set_is_asked_for_not_on_import() -> None:
    # A command that needs only a Period (every read) should not parse FIDE's TOML rule files.
    script = (
        "import sys, ratingdb.rating as rating\n"
        "print('ratingdb.rating.catalogue' in sys.modules)\n"
        "print(len(rating.RULE_SETS) > 0, 'ratingdb.rating.catalogue' in sys.modules)\n"
    )
    lines = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout
    assert lines.split("\n")[:2] == ["False", "True True"]
    from ratingdb.lazy import TABLES

    for name, module in TABLES["ratingdb.rating"].items():
        assert getattr(rating, name) is getattr(sys.modules[f"ratingdb.rating.{module}"], name)
