"""The Typer command line: parse, open one transaction, call one service, render. No rules here."""

from __future__ import annotations

# Importing the command modules registers their commands on the app.
from ratingdb.cli import admin, calc, close, demo, imports, lists, reports  # noqa: F401
from ratingdb.cli.app import app


def main() -> None:
    """Entry point of the `ratingdb` console script."""
    app()
