"""The Typer command line: parse, open one transaction, call one service, render. No rules here."""

from __future__ import annotations

from ratingdb.cli.app import app


def main() -> None:
    """Entry point of the `ratingdb` console script."""
    app()
