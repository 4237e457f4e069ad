"""The Typer command line: parse, open one transaction, call one service, render. No rules here.

Start-up time: a command pays for importing its command module and for Typer reading its commands'
signatures (`--help` for all of them: `load_commands`), so a command module imports at the top only Typer
and the light CLI modules (the rules, readers, services and the database layer inside the functions that
use them), and the command modules do without `from __future__ import annotations` — Typer reads each
command's annotations twice at every start, and each string annotation costs an eval.
tests/cli/test_startup.py checks both.
"""

from __future__ import annotations

import gc
import shlex
import sys
from collections.abc import Callable, Iterable
from importlib import import_module
from typing import Final

from typer.main import get_command_name

from ratingdb.cli import collector
from ratingdb.command_line import current_command

# Each command module and the commands and command groups it registers on the root app, in the order
# `--help` lists them, which is the order a rating officer meets them (set-up, the monthly work, lists
# and reports, the tools). tests/cli/test_startup.py checks the table against what the modules register.
COMMANDS: Final[dict[str, tuple[str, ...]]] = {
    "admin": ("init", "db"),
    "users": ("user",),
    "notices": ("notices",),
    "backup": ("backup",),
    "rules": ("rules",),
    "federation": ("federation",),
    "imports": ("import-trf", "import-list", "withdraw-list", "export-trf", "delete-event"),
    "submissions": ("submission",),
    "corrections": ("reopen", "replace-event"),
    "close": ("close-period",),
    "lists": ("list", "lists", "calculation"),
    "players": ("player",),
    "events": ("events", "event"),
    "reports": ("sql", "report"),
    "norms": ("norm",),
    "bundles": ("verify", "keys"),
    "publish": ("publish",),
    "serve": ("serve", "live"),
    "calc": ("calc",),
    "demo": ("demo",),
}
# Commands a module adds to another module's group: `report norms` is ratingdb.cli.norms's.
ADDED_TO: Final[dict[str, tuple[str, ...]]] = {"report": ("norms",)}
_ORDER: Final = {name: n for n, name in enumerate(name for names in COMMANDS.values() for name in names)}

# The collector is off while the CLI's modules are imported (ratingdb.cli.collector).
with collector.imports():
    from ratingdb.cli.app import app


def load_commands(modules: Iterable[str] = COMMANDS) -> None:
    """Register the commands of `modules` (all by default) on the app, in the order of COMMANDS.

    Importing a command module registers its commands. The app loads them all when Typer first reads its
    commands (to run one, for `--help`, a test's CliRunner, the manual's reference); the console script
    loads only the module of the command it runs (`main`): the other sixteen modules and Typer's making
    of their fifty commands are about 25 ms of every command's start.
    """
    app.commands_on_first_use(None)
    with collector.imports():
        for module in modules:
            import_module(f"ratingdb.cli.{module}")
    # A command module imported on its own before (a test's import) registered its commands first.
    app.registered_commands.sort(key=lambda c: _ORDER[c.name or get_command_name(_name(c.callback))])
    app.registered_groups.sort(key=lambda g: _ORDER[str(g.name)])


def _name(callback: Callable[..., object] | None) -> str:
    return getattr(callback, "__name__", "")


app.commands_on_first_use(load_commands)


def _modules_of(args: list[str]) -> list[str] | None:
    """The command modules of the command line `args` (after the program's name), if it names a command
    before anything else but --db; None otherwise (`--help`, no command, a misspelt one: Typer's answer
    to those needs every command)."""
    index = 0
    while index < len(args) and (args[index] == "--db" or args[index].startswith("--db=")):
        index += 2 if args[index] == "--db" else 1
    if index >= len(args):
        return None
    name = args[index]
    module = next((module for module, names in COMMANDS.items() if name in names), None)
    return None if module is None else [module, *ADDED_TO.get(name, ())]


def main() -> None:
    """Entry point of the `ratingdb` console script."""
    collector.one_command_process()
    # The audit log records the command line of every change (docs/versioning.md); never the URL,
    # which can carry a password.
    current_command.set(shlex.join(["ratingdb", *_without_url(sys.argv[1:])]))
    modules = _modules_of(sys.argv[1:])
    if modules is not None:
        load_commands(modules)
    try:
        app()
    finally:
        # The process ends here, and CPython's exit runs the cycle collector over every object still
        # alive: the hundreds of thousands the imports made, SQLAlchemy's most (0.14 s of CPU for `list`).
        # Frozen, they are skipped; the operating system takes the memory back at once. Nothing relies on
        # that collection: the commands close their files and dispose of their engines themselves.
        gc.freeze()


def _without_url(args: list[str]) -> list[str]:
    shown: list[str] = []
    skip = False
    for arg in args:
        if skip:
            shown.append("***")
            skip = False
        elif arg == "--db":
            shown.append(arg)
            skip = True
        elif arg.startswith("--db="):
            shown.append("--db=***")
        else:
            shown.append(arg)
    return shown


__all__ = ["ADDED_TO", "COMMANDS", "app", "load_commands", "main"]
