"""The package's floors: no module imports one of a floor above it, no modules import one another round
a circle, and one mechanism loads names late.

The floors, lowest first (docs/development.md, "The layers", draws them and says where a change goes):

    plumbing      errors, lazy, command_line, mail: the standard library only
    pure          rating (the rules), formats (the readers), bundle (a list's bundle, recomputed),
                  names, passwords, calculator, i18n, calc_notes, templating: no database
    schema        schema (models, CHECKs, triggers)
    engines       engines, db, db_errors, backup: connections and each engine's SQL
    services      services (and titles, accounts): use cases taking a session
    reports/site  reports, site: read-only queries and the published pages
    adapters      cli, web, api: parse, one transaction, call a service, render

Every import counts, at the top of a module or inside a function, under TYPE_CHECKING too: a module of a
floor may import its own floor and those below. Read from the source; nothing is imported but ratingdb.lazy
and the packages using it.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

import ratingdb

PACKAGE = Path(ratingdb.__file__).parent

FLOORS: tuple[tuple[str, ...], ...] = (
    ("ratingdb", "ratingdb.errors", "ratingdb.lazy", "ratingdb.command_line", "ratingdb.mail"),
    (
        "ratingdb.rating",
        "ratingdb.formats",
        "ratingdb.bundle",
        "ratingdb.names",
        "ratingdb.passwords",
        "ratingdb.federations",
        "ratingdb.calculator",
        "ratingdb.i18n",
        "ratingdb.calc_notes",
        "ratingdb.templating",
    ),
    ("ratingdb.schema",),
    ("ratingdb.engines", "ratingdb.db", "ratingdb.db_errors", "ratingdb.backup"),
    ("ratingdb.services", "ratingdb.titles", "ratingdb.accounts"),
    ("ratingdb.reports", "ratingdb.site"),
    ("ratingdb.cli", "ratingdb.web", "ratingdb.api"),
)
FLOOR_OF = {unit: floor for floor, units in enumerate(FLOORS) for unit in units}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every ratingdb module `path` imports, wherever the import stands (relative imports resolved)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # `from ratingdb.reports import sql` imports the module ratingdb.reports.sql.
            found |= {base} | {
                f"{base}.{alias.name}" for alias in node.names if _is_module(f"{base}.{alias.name}")
            }
    return {name for name in found if name == "ratingdb" or name.startswith("ratingdb.")}


def _is_module(name: str) -> bool:
    relative = Path(*name.split("."))
    return (PACKAGE.parent / relative).with_suffix(".py").exists() or (PACKAGE.parent / relative).is_dir()


def _unit(module: str) -> str:
    """The floor's unit a module belongs to: its package below ratingdb, or itself at the root."""
    return ".".join(module.split(".")[:2])


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_package_and_root_module_stands_on_a_floor() -> None:
    units = {_unit(_module_name(path)) for path in MODULES}
    assert sorted(units - set(FLOOR_OF)) == []


def test_no_module_imports_a_module_of_a_floor_above_it() -> None:
    upward = []
    for path in MODULES:
        module = _module_name(path)
        floor = FLOOR_OF[_unit(module)]
        for name in sorted(_imports(path)):
            if FLOOR_OF.get(_unit(name), -1) > floor:
                upward.append(f"{module} imports {name}")
    assert upward == []


def _import_cycles(imports: Callable[[Path], set[str]] = _imports) -> list[list[str]]:
    """The groups of modules that import one another round a circle (strongly connected components of
    the import graph, every import counted as above). A package importing its own modules and a module
    importing its package are left out: that is how a package gathers its names, not a circle."""
    known = {_module_name(path) for path in MODULES}
    graph = {
        module: {
            name
            for name in imports(path)
            if name in known
            and name != module
            and not name.startswith(module + ".")
            and not module.startswith(name + ".")
        }
        for path in MODULES
        for module in [_module_name(path)]
    }
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        order[module] = low[module] = len(order)
        stack.append(module)
        for name in sorted(graph[module]):
            if name not in order:
                visit(name)
                low[module] = min(low[module], low[name])
            elif name in stack:
                low[module] = min(low[module], order[name])
        if low[module] == order[module]:
            group = [stack.pop()]
            while group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return cycles


def test_no_modules_import_one_another_round_a_circle() -> None:
    assert _import_cycles() == []


def test_the_cycle_finder_finds_a_circle() -> None:
    # The check itself, on the real graph: ratingdb.db imports ratingdb.engines.urls, so the finder must
    # report the pair once urls is made to import db back.
    urls = next(path for path in MODULES if _module_name(path) == "ratingdb.engines.urls")

    def with_a_circle(path: Path) -> set[str]:
        return _imports(path) | ({"ratingdb.db"} if path == urls else set())

    assert ["ratingdb.db", "ratingdb.engines.urls"] in _import_cycles(with_a_circle)


def test_the_plumbing_imports_only_the_standard_library() -> None:
    for name in ("errors", "lazy", "command_line", "mail"):
        assert _imports(PACKAGE / f"{name}.py") <= {"ratingdb", "ratingdb.errors"}, name


# --- One mechanism for names loaded on first use (ratingdb.lazy) ---------------------------------------


def test_no_package_writes_a_getattr_of_its_own() -> None:
    # A module-level __getattr__ (PEP 562) is ratingdb.lazy.on_first_use's, assigned, never written.
    written = [
        _module_name(path)
        for path in MODULES
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]
    assert written == []


def _loads_late(path: Path) -> bool:
    """Whether the module's `__getattr__` is ratingdb.lazy.on_first_use's (assigned at its top level)."""
    return any(
        isinstance(node, ast.Assign)
        and [getattr(target, "id", None) for target in node.targets] == ["__getattr__"]
        and isinstance(node.value, ast.Call)
        and getattr(node.value.func, "id", None) == "on_first_use"
        for node in ast.parse(path.read_text(encoding="utf-8")).body
    )


def _users_of_lazy() -> list[str]:
    return sorted(_module_name(path) for path in MODULES if _loads_late(path))


def test_the_modules_loading_names_on_first_use_are_the_known_four() -> None:
    # Three packages, and the API (the types its functions return).
    assert _users_of_lazy() == ["ratingdb.api", "ratingdb.formats", "ratingdb.rating", "ratingdb.web"]


def _type_checking_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for item in node.body:
                if isinstance(item, ast.ImportFrom):
                    names |= {alias.asname or alias.name for alias in item.names}
    return names


@pytest.mark.parametrize("package", _users_of_lazy())
def test_a_package_names_each_late_name_once_for_readers_the_loader_and_all(package: str) -> None:
    from ratingdb.lazy import TABLES

    module = importlib.import_module(package)
    table = TABLES[package]
    path = Path(module.__file__ or "")
    # What a type checker sees (the TYPE_CHECKING imports) is what is loaded late, and all of it is offered.
    assert _type_checking_names(path) == set(table)
    assert set(table) <= set(module.__all__)


@pytest.mark.parametrize("package", ["ratingdb.api", "ratingdb.formats", "ratingdb.rating"])
def test_each_late_name_is_its_modules_own_object(package: str) -> None:
    from ratingdb.lazy import TABLES, source

    module = importlib.import_module(package)
    for name, where in TABLES[package].items():
        assert getattr(module, name) is getattr(importlib.import_module(source(package, where)), name)
