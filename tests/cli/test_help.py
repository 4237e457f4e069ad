"""Every command and subcommand has help: enumerated from the Typer app, so new commands are covered."""

from __future__ import annotations

import re
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


# Typer prints a value's Python type when an option or argument has no `metavar=`: `<str>`, `<int>`,
# `<list[Path]>`, `<int range>`; and `{files}...` for a required argument without one.
TYPE_PLACEHOLDER = re.compile(r"<[a-z][\w\[\]|, ]*>|\{\w+\}")


@pytest.mark.parametrize("path", [(), *command_paths()], ids=lambda p: " ".join(p) or "ratingdb")
def test_every_help_names_values_as_a_person_would(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert TYPE_PLACEHOLDER.findall(result.output) == [], (
        f"`ratingdb {' '.join(path)} --help` shows a Python type: give it metavar= (FILE, YYYY-MM, ID)"
    )


def test_a_required_list_argument_reads_file_dots_in_the_usage_line() -> None:
    result = runner.invoke(app, ["import-trf", "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert "Usage: ratingdb import-trf [OPTIONS] FILE..." in result.output
    argument_row = next(line for line in result.output.splitlines() if "FILE..." in line and "│" in line)
    assert argument_row.split("│")[1].split() == [
        "*",
        "FILE...",
        "Tournament",
        "report",
        "files",
        "(TRF16",
        "or",
        "TRF26).",
        "[required]",
    ]


def test_flags_and_help_show_no_value() -> None:
    result = runner.invoke(app, ["calc", "--help"], env={"COLUMNS": "120"})
    rows = {
        line.split()[1]: line.split("│")[1].split() for line in result.output.splitlines() if "│ --" in line
    }
    assert rows["--no-cap"] == ["--no-cap", "Switch", "off", "the", "400-point", "rule", "(§8.3.1)."]
    assert rows["--help"] == ["--help", "Show", "this", "message", "and", "exit."]
    assert rows["--rules"][:2] == ["--rules", "YYYY-MM|NAME"]


MONTHLY_WORK = [
    "import-trf",
    "import-list",
    "export-trf",
    "delete-event",
    "close-period",
    "reopen",
    "replace-event",
    "withdraw-list",
]


@pytest.mark.parametrize("name", MONTHLY_WORK)
def test_each_monthly_work_command_shows_examples_one_a_line(name: str) -> None:
    result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "160"})
    lines = [line.strip() for line in result.output.splitlines()]
    examples = lines[lines.index("Examples:") + 1 :]
    assert examples[0].startswith(f"ratingdb {name} ")
    assert examples[1].startswith("ratingdb ")


def test_close_period_help_examples_are_exact() -> None:
    result = runner.invoke(app, ["close-period", "--help"], env={"COLUMNS": "160"})
    lines = [line.rstrip() for line in result.output.splitlines()]
    start = lines.index(" Examples:")
    assert lines[start : start + 3] == [
        " Examples:",
        "   ratingdb close-period 2025-10                 (publishes the standard list dated 2025-11-01)",
        "   ratingdb close-period 2025-10 --type rapid",
    ]
