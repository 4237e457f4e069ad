"""Nothing a user can type or query goes undocumented (the sqlite-utils pattern).

The commands and options come from the Typer app and the views from a migrated database, so a new
command, option or view fails here until the manual (docs/) says what it is for. The command reference
page is generated from the same app (ratingdb/cli/reference.py): these tests check it too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from ratingdb.cli.reference import documented_params, is_option, markdown, option_names, walk
from tests.docs.docs_text import DOCS, blocks_of_docs

COMMANDS = [(path, command) for path, command, _ in walk() if path]
BLOCKS = blocks_of_docs()


def names(path: tuple[str, ...]) -> str:
    return " ".join(path)


def mentions(block: str, command: str) -> bool:
    """`ratingdb player edit …`, `ratingdb --db URL player edit`, or `player edit` in backquotes."""
    return re.search(r"(ratingdb (--db \S+ )?|`)" + re.escape(command) + r"(?![\w-])", block) is not None


def test_the_app_has_commands_to_check() -> None:
    # The walk must see the nested groups too, or the tests below would pass on nothing.
    found = {names(path) for path, _ in COMMANDS}
    assert {"import-trf", "close-period", "player edit", "report top", "rules add", "db check"} <= found


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=names)
def test_every_command_is_in_the_guide(path: tuple[str, ...]) -> None:
    command = names(path)
    assert any(mentions(block, command) for block in BLOCKS), (
        f"`ratingdb {command}` is not mentioned in docs/: say in the guide what it is for"
    )


@pytest.mark.parametrize(
    ("path", "option"),
    [
        (path, option_names(param)[0])
        for path, command in COMMANDS
        for param in documented_params(command)
        if is_option(param)
    ],
    ids=lambda value: names(value) if isinstance(value, tuple) else value,
)
def test_every_option_is_documented_with_its_command(path: tuple[str, ...], option: str) -> None:
    command = dict(COMMANDS)[path]
    param = next(p for p in documented_params(command) if is_option(p) and option_names(p)[0] == option)
    spellings = option_names(param)
    mine = [block for block in BLOCKS if mentions(block, names(path))]
    assert any(re.search(re.escape(s) + r"(?![\w-])", block) for block in mine for s in spellings), (
        f"`ratingdb {names(path)} {option}` is not documented: name it in a docs/ paragraph, list item "
        "or example that names the command"
    )


def test_the_generated_reference_has_every_command_and_option() -> None:
    page = markdown()
    for path, command in COMMANDS:
        assert f"`ratingdb {names(path)}`" in page
        for param in documented_params(command):
            assert f"`{option_names(param)[0]}" in page, (names(path), option_names(param))
    assert "Commands: `accounts`, `check`, `current`." in page  # a group lists its commands


def test_the_generated_reference_shows_a_command_as_help_does() -> None:
    page = markdown()
    section = page[page.index("## `ratingdb calculation`") :]
    section = section[: section.index("\n## ", 1)]
    assert "ratingdb calculation [OPTIONS] ID YYYY-MM" in section
    assert "- `ID` — FIDE ID or national ID. (required)" in section
    assert "- `--type TYPE`, `-t` — Rating type: standard, rapid or blitz. (default: `standard`)" in section


def view_columns(sqlite_template: Path) -> dict[str, list[str]]:
    engine = create_engine(f"sqlite:///{sqlite_template}")
    try:
        inspector = inspect(engine)
        return {view: [c["name"] for c in inspector.get_columns(view)] for view in inspector.get_view_names()}
    finally:
        engine.dispose()


def view_sections() -> dict[str, str]:
    text = (DOCS / "reference" / "views.md").read_text("utf-8")
    sections: dict[str, str] = {}
    for part in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        match = re.match(r"`(\w+)`", part)
        if match:
            sections[match.group(1)] = part
    return sections


def test_every_view_and_column_is_documented(sqlite_template: Path) -> None:
    every_view = view_columns(sqlite_template)
    # The reporting views are the v_ ones; a view of the storage itself (calc_event, over the calculation
    # record's tables since migration 0013) is described where the record's shape is.
    columns = {view: cols for view, cols in every_view.items() if view.startswith("v_")}
    assert "v_current_list" in columns and "v_player_version" in columns
    record = (DOCS / "operations" / "calculation-record.md").read_text("utf-8")
    assert [v for v in every_view if v not in columns and f"`{v}`" not in record] == []
    sections = view_sections()
    missing_views = sorted(set(columns) - set(sections))
    assert missing_views == [], f"views without a section in docs/reference/views.md: {missing_views}"
    for view, cols in columns.items():
        section = sections[view]
        if "the same columns as `v_list_entry`" in section:
            section = sections["v_list_entry"]
        undocumented = [c for c in cols if f"`{c}`" not in section]
        assert undocumented == [], f"{view}: columns not named in its section: {undocumented}"
    assert sorted(set(sections) - set(columns)) == [], "docs/reference/views.md describes a view that is gone"


def test_every_public_name_of_the_rules_library_is_on_the_python_api_page() -> None:
    import importlib

    import ratingdb.rating

    page = (DOCS / "reference" / "python.md").read_text("utf-8")
    listed = re.findall(r"^::: (ratingdb\.[\w.]+)$", page, re.MULTILINE)
    modules = [importlib.import_module(m) for m in listed]
    assert modules, "docs/reference/python.md lists no modules"
    missing = []
    for name in ratingdb.rating.__all__:
        value = getattr(ratingdb.rating, name)
        home = getattr(value, "__module__", None)
        if home in (None, "typing"):  # a constant, or a Literal alias: look for where it is defined
            home = next((m.__name__ for m in modules if name in vars(m)), None)
        if home not in [m.__name__ for m in modules]:
            missing.append(f"{name} ({home or 'a constant'})")
    assert missing == [], f"add the module to docs/reference/python.md: {missing}"
    # Names without a docstring (constants) are shown too, or the page would leave them out silently.
    assert "show_if_no_docstring: true" in (DOCS.parent / "mkdocs.yml").read_text("utf-8")


def test_the_python_api_example_is_the_readmes() -> None:
    from tests.docs.docs_text import code_blocks, readme_block

    (example,) = code_blocks((DOCS / "reference" / "python.md").read_text("utf-8"), "python")
    assert example == readme_block("From Python", "python")


def test_every_api_route_is_in_the_guide() -> None:
    # The routes come from the web app's own OpenAPI document; the serving guide must name each one
    # (`GET /api/v1/lists/{type}/{date}`: path parameters may have other names there).
    from tools.openapi_markdown import api_document, routes

    document = api_document()
    assert document is not None, "ratingdb.web is not importable"

    def shape(path: str) -> str:
        return re.sub(r"\{[^}]*\}", "{}", path)

    docs = " ".join(BLOCKS)
    named = {(m, shape(p)) for m, p in re.findall(r"`(GET|POST|PUT|DELETE) (/api/[^`?\s]*)", docs)}
    found = routes(document)
    assert len(found) >= 10
    missing = [f"{m} {p}" for m, p in found if (m, shape(p)) not in named]
    assert missing == [], f"API routes not named in docs/ (guide/serving.md): {missing}"
