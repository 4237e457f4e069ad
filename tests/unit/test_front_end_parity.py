"""Every option of the monthly routine's commands has its equivalent on the desk and in ratingdb.api
(issue 46): the options come from the Typer app, so a new option fails here until both front ends have
it, or it is named below as terminal-only, with the reason.

The desk's equivalent is a form control of the page that calls the same service (the review page for
`import-trf` and `submission accept`, whose accept is import-trf's service; the replace page; the period
page), found in its template; the API's is a parameter of the function that calls that service, or a
field of the choices it takes. What is not there yet is listed as a known gap (strict xfail): adding it
makes the test fail until it is taken off the list.
"""

from __future__ import annotations

import inspect
from dataclasses import fields
from pathlib import Path

import pytest

from ratingdb import api
from ratingdb.cli.reference import documented_params, is_option, option_names, walk
from ratingdb.services import submissions as subs

TEMPLATES = Path(api.__file__).parent / "web" / "templates"
COMMANDS = {" ".join(path): command for path, command, _ in walk() if path}
ROUTINE = ("import-trf", "submission accept", "replace-event", "close-period")

# The review page (import-trf's service through subs.accept): each option's control.
REVIEW = {
    "--type": 'name="type"', "--type-override": 'name="type_override"', "--official": 'name="official"',
    "--closing-days": 'name="closing_days"', "--period": 'name="period"', "--id-field": 'name="id_field"',
    "--match": 'value="match"', "--new": 'value="new"', "--accept-name": 'value="accept-name"',
    "--drop": 'value="drop"', "--distinct-event": 'name="distinct_event"', "--section": 'name="section"',
    "--dry-run": 'id="check"', "--federation-column": 'name="federation_column"',
}  # fmt: skip
DESK = {
    "import-trf": (("review.html", "_settings.html", "_choices.html"), REVIEW),
    "submission accept": (("review.html", "_settings.html", "_choices.html"), REVIEW),
    "replace-event": (
        ("replace.html", "_choices.html"),
        {
            "--reason": 'name="reason"',
            "--id-field": 'name="id_field"',
            "--match": 'value="match"',
            "--new": 'value="new"',
            "--accept-name": 'value="accept-name"',
            "--drop": 'value="drop"',
            "--dry-run": 'value="check"',
        },  # fmt: skip
    ),
    "close-period": (("period.html",), {"--dry-run": "/dry-run"}),
}
# The replace page's switches (subs.SWITCHES, drawn in a loop): on, off or as the event was imported.
SWITCHED = {
    "--official": "official",
    "--type-override": "type_override",
    "--distinct-event": "distinct_event",
}

TERMINAL_ONLY = {
    "--max-file-size": "the site has its own limit for every file sent (WebSettings.max_upload_bytes)",
    "--national-id-start": "a federation setting (RATINGDB_NATIONAL_ID_START), not a choice about one file",
    "--format": "how the terminal prints the summary; the page is the summary",
    "--adjust": "a federation's one-off compression of a list, decided by resolution and run with care "
    "from the terminal, never one click away",
}
# On close-period the type is the period page's address (/desk/periods/TYPE/PERIOD), not a control.
IN_THE_ADDRESS = {("close-period", "--type")}
DESK_GAPS = {
    ("replace-event", "--type"),
    ("replace-event", "--closing-days"),
    ("replace-event", "--period"),
    ("replace-event", "--section"),
    ("replace-event", "--federation-column"),
    ("close-period", "--through"),
}

# ratingdb.api: the function of each command, and where an option lands (a parameter of it).
API = {
    "import-trf": (
        api.import_trf,
        {
            "--type": "rating_type",
            "--official": "official",
            "--period": "period",
            "--federation-column": "federation_column",
        },
    ),  # fmt: skip
    "close-period": (api.close_period, {"--type": "rating_type", "--adjust": "adjustment"}),
}
# A dry run is the transaction's (Database.transaction(dry_run=True)), for every function.
API_GAPS = {
    ("import-trf", option)
    for option in ("--type-override", "--closing-days", "--id-field", "--match", "--new", "--accept-name",
                   "--drop", "--distinct-event", "--section")
} | {("replace-event", "*"), ("submission accept", "*"), ("close-period", "--through")}  # fmt: skip


def options(command: str) -> list[str]:
    return [option_names(p)[0] for p in documented_params(COMMANDS[command]) if is_option(p)]


def cases(gaps: set[tuple[str, str]]) -> list[object]:
    found = []
    for command in ROUTINE:
        for option in options(command):
            if option in TERMINAL_ONLY:
                continue
            gap = (command, option) in gaps or (command, "*") in gaps
            marks = [pytest.mark.xfail(strict=True, reason="not there yet (issue 46)")] if gap else []
            found.append(pytest.param(command, option, marks=marks, id=f"{command} {option}"))
    return found


def test_the_four_commands_are_found_with_their_options() -> None:
    assert set(ROUTINE) <= set(COMMANDS)
    assert {"--section", "--distinct-event", "--match"} <= set(options("submission accept"))


@pytest.mark.parametrize(("command", "option"), cases(DESK_GAPS))
def test_every_option_has_its_control_on_the_desk(command: str, option: str) -> None:
    if (command, option) in IN_THE_ADDRESS:
        return
    pages, controls = DESK[command]
    if command == "replace-event" and option in SWITCHED:
        assert SWITCHED[option] in subs.SWITCHES
        return
    assert option in controls, f"{command} {option}: no control on the desk (nor named terminal-only)"
    text = "".join((TEMPLATES / page).read_text(encoding="utf-8") for page in pages)
    assert controls[option] in text


@pytest.mark.parametrize(("command", "option"), cases(API_GAPS))
def test_every_option_has_its_parameter_in_the_api(command: str, option: str) -> None:
    assert command in API, f"ratingdb.api has no function for {command}"
    if option == "--dry-run":
        assert "dry_run" in inspect.signature(api.Database.transaction).parameters
        return
    function, names = API[command]
    assert option in names, f"{command} {option}: no parameter in ratingdb.api (nor named terminal-only)"
    assert names[option] in inspect.signature(function).parameters


def test_the_terminal_only_options_exist_and_the_desk_choices_are_the_services() -> None:
    every = {option for command in ROUTINE for option in options(command)}
    assert set(TERMINAL_ONLY) <= every  # no reason kept for an option that is gone
    from ratingdb.services.choices import ImportChoices

    made = {f.name for f in fields(ImportChoices)}
    assert {"section", "distinct", "period", "closing_days", "official", "type_override"} <= made
