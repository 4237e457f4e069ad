"""Every command and subcommand has help: enumerated from the Typer app, so new commands are covered."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from ratingdb.cli import app

runner = CliRunner()


def command_paths() -> list[tuple[str, ...]]:
    """The path of every command and command group below the app, e.g. ("db", "check")."""
    paths: list[tuple[str, ...]] = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            paths.append((*path, name))
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return paths


def test_the_app_has_the_commands_the_readme_names() -> None:
    names = {path[0] for path in command_paths()}
    assert {"init", "import-list", "import-trf", "close-period", "list", "calculation", "demo"} <= names


def test_ratingdb_help_exits_0_and_lists_the_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Rating-list database for chess federations" in result.output
    assert "demo" in result.output


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_every_command_has_non_empty_help(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.strip()
    assert f"Usage: ratingdb {' '.join(path)}" in " ".join(result.output.split())


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_every_command_says_what_it_does(path: tuple[str, ...]) -> None:
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    assert (command.help or "").strip(), f"`ratingdb {' '.join(path)}` has no help text"
