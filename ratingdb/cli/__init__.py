"""The Typer command line: parse, open one transaction, call one service, render. No rules here.

Start-up time: every command pays for importing all the command modules and for Typer reading all the
commands' signatures, so a command module imports at the top only Typer and the light CLI modules (the
rules, readers, services and the database layer inside the functions that use them), and the command
modules do without `from __future__ import annotations` — Typer reads each command's annotations twice at
every start, and each string annotation costs an eval. tests/cli/test_startup.py checks both.
"""

from __future__ import annotations

import gc
import shlex
import sys
from importlib import import_module

from ratingdb.cli import collector
from ratingdb.command_line import current_command

# The collector is off while the CLI's modules are imported (ratingdb.cli.collector).
with collector.imports():
    from ratingdb.cli.app import app

    # Importing a command module registers its commands; `--help` lists them in this order, which is the
    # order a rating officer meets them (set-up, the monthly work, lists and reports, the tools).
    for _module in (
        "admin",
        "users",
        "backup",
        "rules",
        "imports",
        "submissions",
        "corrections",
        "close",
        "lists",
        "players",
        "events",
        "reports",
        "norms",
        "publish",
        "serve",
        "calc",
        "demo",
    ):
        import_module(f"ratingdb.cli.{_module}")


def main() -> None:
    """Entry point of the `ratingdb` console script."""
    collector.one_command_process()
    # The audit log records the command line of every change (docs/versioning.md); never the URL,
    # which can carry a password.
    current_command.set(shlex.join(["ratingdb", *_without_url(sys.argv[1:])]))
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


__all__ = ["app", "main"]
