"""The Typer command line: parse, open one transaction, call one service, render. No rules here."""

from __future__ import annotations

from importlib import import_module

from ratingdb.cli.app import app

# Importing a command module registers its commands; `--help` lists them in this order, which is the
# order a rating officer meets them (set-up, the monthly work, lists and reports, the tools).
for _module in ("admin", "backup", "imports", "close", "lists", "reports", "calc", "demo"):
    import_module(f"ratingdb.cli.{_module}")


def main() -> None:
    """Entry point of the `ratingdb` console script."""
    app()


__all__ = ["app", "main"]
