"""Names a package offers, loaded from its modules on first use (PEP 562); imports only the stdlib.

The one start-up mechanism of the package modules: a package whose modules are dear to import (the
rule sets parsed from TOML, the file readers, the web app) names what it offers from them in one table,
module by module, and the module is imported when one of its names is first asked for:

    if TYPE_CHECKING:  # what a type checker and a reader see
        from .catalogue import RULE_SETS, rule_set_for

    __getattr__ = on_first_use(__name__, {"catalogue": ("RULE_SETS", "rule_set_for")})

The names go into the package's `__all__` like any other. A module that is not a package (ratingdb.api,
which offers the types its functions return) names its sources by their full names instead.
tests/unit/test_layers.py checks, for every module using this, that the table, the TYPE_CHECKING imports
and `__all__` name the same things and that each name is its module's own object; no module writes a
`__getattr__` of its own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any

# package → {name: module}: what each package using on_first_use loads on use (read by the tests).
TABLES: dict[str, dict[str, str]] = {}


def on_first_use(package: str, modules: Mapping[str, Sequence[str]]) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: each name of `modules[module]` is imported from that module."""
    where = {name: module for module, names in modules.items() for name in names}
    TABLES[package] = where

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(source(package, module)), name)
        setattr(sys.modules[package], name, value)  # found once; later lookups do not come here
        return value

    return __getattr__


def source(package: str, module: str) -> str:
    """The full name of the module that a table of `package` names `module`: one of the package's own
    modules, or for a module that is not a package, the name as written."""
    return f"{package}.{module}" if hasattr(sys.modules[package], "__path__") else module
