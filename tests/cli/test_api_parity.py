"""ratingdb.api does what the commands do: every option of `close-period` and `import-list` has its
parameter in the API (the same service behind both, services.closing and services.list_files), or is
named here as the terminal's alone, with the reason.

Read from the commands themselves (Typer's parameters) and the functions' signatures: a new option
without an API equivalent, or a parameter renamed on one side, fails here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from typer.main import get_command

from ratingdb import api
from ratingdb.cli import app

# command → {the command's parameter (its Python name): (the API function, its parameter)}
EQUIVALENTS: dict[str, dict[str, tuple[Callable[..., Any], str]]] = {
    "close-period": {
        "period": (api.close_period, "period"),
        "rating_type": (api.close_period, "rating_type"),
        "adjust": (api.close_period, "adjustment"),
        "dry_run": (api.close_period, "dry_run"),
        # --through: several periods, each a transaction of its own, one summary each.
        "through": (api.close_periods, "through"),
    },
    "import-list": {
        "file": (api.import_list, "path"),
        "date": (api.import_list, "list_date"),
        "rating_type": (api.import_list, "rating_type"),
        "fmt": (api.import_list, "format"),
        "update": (api.import_list, "update"),
        "replace_list": (api.import_list, "replace"),
        "reason": (api.import_list, "reason"),
        "match": (api.import_list, "match"),
        "new": (api.import_list, "new"),
        "accept_name": (api.import_list, "accept_name"),
        "match_certain": (api.import_list, "match_certain"),
    },
}
# command → {parameter: why the terminal alone has it}
TERMINAL_ONLY: dict[str, dict[str, str]] = {
    "close-period": {
        "fmt": "how the rating changes are printed (table, csv, json); a script reads every entry's change "
        "from the published list (api.read_list: ListLine.change)",
    },
    "import-list": {
        "dry_run": "import_list works in the script's transaction: its dry run is "
        "database.transaction(dry_run=True), the same rolled-back transaction --dry-run opens",
    },
}


def _parameters(command: str) -> list[str]:
    group = get_command(app)
    found = group.commands[command]  # type: ignore[attr-defined]
    return [p.name for p in found.params if p.name is not None]


@pytest.mark.parametrize("command", sorted(EQUIVALENTS))
def test_every_option_of_the_command_has_its_api_parameter_or_a_reason(command: str) -> None:
    options = _parameters(command)
    mapped, alone = EQUIVALENTS[command], TERMINAL_ONLY[command]
    assert sorted(set(options) - set(mapped) - set(alone)) == [], "add an API parameter or a reason"
    assert sorted((set(mapped) | set(alone)) - set(options)) == [], "no longer an option of the command"
    assert set(mapped).isdisjoint(alone)
    for option, (function, parameter) in mapped.items():
        assert parameter in inspect.signature(function).parameters, (command, option, function.__name__)
    for option, reason in alone.items():
        assert len(reason.split()) > 5, (command, option)
