"""Start-up: what `import ratingdb.cli` and a calculator run load, checked in a fresh interpreter.

A command pays for every module imported before it runs; `--help` and `calc` need no database, so
SQLAlchemy, Alembic, matplotlib and the PostgreSQL driver must stay out until a command asks for them;
`--help` needs neither the rules, the calculator nor the file readers either.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ratingdb import db
from ratingdb.cli import ADDED_TO, COMMANDS, demo
from ratingdb.services import demo as demo_service

HEAVY = (
    "sqlalchemy",
    "alembic",
    "matplotlib",
    "psycopg",
    "mako",
    "ratingdb.schema.models",
    "ratingdb.services",
    # Typer converts values through pydantic; ratingdb.cli.values does it for simple ones (65 ms saved).
    "pydantic",
)
# What `calc` needs and `--help` does not.
RULES = ("ratingdb.rating", "ratingdb.calculator", "ratingdb.formats.trf", "ratingdb.formats.lists")


def loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The heavy modules loaded after running `code` in a new interpreter."""
    # The command's own output goes to stdout; the module names to stderr.
    listing = f"sorted(m for m in sys.modules if m.startswith({heavy!r}))"
    probe = f"import sys\n{code}\nprint('\\n'.join({listing}), file=sys.stderr)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [name for name in result.stderr.splitlines() if name]


def test_importing_the_cli_loads_no_database_chart_migration_or_rules_module() -> None:
    assert loaded_after("import ratingdb.cli", HEAVY + RULES) == []


def test_the_help_loads_neither_the_database_nor_the_rules() -> None:
    run = (
        "from ratingdb.cli import main\n"
        "sys.argv = ['ratingdb', '--help']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
    )
    assert loaded_after(run, HEAVY + RULES) == []


def test_the_help_and_the_calculator_load_no_database_module() -> None:
    # Through main(), the console script's entry point, which also records the command line.
    run = (
        "from ratingdb.cli import main\n"
        "for args in (['--help'], ['calc', '2000', '--opponent', '1800', '--k', '20']):\n"
        "    sys.argv = ['ratingdb', *args]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
    )
    assert loaded_after(run) == []


def command_on_a_new_database(tmp_path: Path, args: list[str], exit_code: int = 0) -> str:
    """Code running `ratingdb --db URL ARGS` on a freshly migrated SQLite database (for loaded_after)."""
    url = f"sqlite:///{tmp_path / 'startup.sqlite'}"
    engine = db.make_engine(url)
    db.upgrade(engine)
    engine.dispose()
    return (
        "from ratingdb.cli import app\n"
        "try:\n"
        f"    app(['--db', {url!r}, *{args!r}])\n"
        "except SystemExit as exc:\n"
        f"    assert exc.code == {exit_code}, exc.code\n"
    )


def test_a_database_command_loads_sqlalchemy_but_not_alembic_or_the_postgresql_driver(tmp_path) -> None:
    run = command_on_a_new_database(tmp_path, ["sql", "SELECT 1 AS one"])
    loaded = {name.split(".")[0] for name in loaded_after(run)}
    assert "sqlalchemy" in loaded
    assert not loaded & {"alembic", "matplotlib", "psycopg", "mako", "pydantic"}


def test_showing_a_list_loads_neither_the_file_formats_nor_the_player_services(tmp_path) -> None:
    # There is no list yet (exit code 1), but the command has imported and queried all the same.
    run = command_on_a_new_database(tmp_path, ["list", "--limit", "10"], exit_code=1)
    heavy = ("ratingdb.formats.", "ratingdb.services.players", "ratingdb.rating.catalogue", "pydantic")
    loaded = [name for name in loaded_after(run, heavy) if name.startswith(heavy)]  # not the error line
    assert [name for name in loaded if name != "ratingdb.formats.limits"] == []


def test_the_schema_head_read_from_the_files_is_alembics_head() -> None:
    from alembic.script import ScriptDirectory

    assert db.head_revision() == ScriptDirectory.from_config(db.alembic_config()).get_current_head()


def test_the_demo_command_names_the_services_default_database() -> None:
    assert demo.DEFAULT_DEMO_URL == demo_service.DEFAULT_DEMO_URL


def test_the_commands_annotations_are_objects_not_strings() -> None:
    # Typer reads every command's annotations at each start, twice (signature and type hints); a string
    # annotation (`from __future__ import annotations` in a command module) costs an eval each time:
    # 20 ms of `ratingdb --help`. The command modules therefore do without that import.
    import typer

    from ratingdb.cli import app

    def functions(typer_app: typer.Typer) -> list[Any]:
        found = [info.callback for info in typer_app.registered_commands]
        if typer_app.registered_callback is not None:
            found.append(typer_app.registered_callback.callback)
        for group in typer_app.registered_groups:
            assert group.typer_instance is not None
            found += functions(group.typer_instance)
        return found

    commands = [inspect.unwrap(f) for f in functions(app) if f is not None]
    assert len(commands) > 30
    for function in commands:
        strings = [
            name for name, value in inspect.get_annotations(function).items() if isinstance(value, str)
        ]
        assert not strings, f"{function.__module__}.{function.__qualname__}: string annotations {strings}"


# `ratingdb calc …` as the console script runs it (main(), which also records the command line).
CALC_BY_THE_CONSOLE_SCRIPT = (
    "from ratingdb.cli import main\n"
    "sys.argv = ['ratingdb', 'calc', '2000', '--opponent', '1800', '--k', '20']\n"
    "try:\n"
    "    main()\n"
    "except SystemExit as exc:\n"
    "    assert exc.code == 0, exc.code\n"
)


def test_the_console_script_leaves_the_objects_it_made_out_of_the_exit_collection() -> None:
    # CPython's exit would run the cycle collector over every object the imports made (0.14 s of `list`).
    code = f"import gc, sys\n{CALC_BY_THE_CONSOLE_SCRIPT}print(gc.get_freeze_count(), file=sys.stderr)\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(result.stderr) > 10_000


def registered_after(modules: list[str] | None) -> dict[str, list[str]]:
    """In a new interpreter: the root app's commands and groups, and each group's commands, once
    `modules` are loaded (None: the way a test or `--help` finds them, every module on first use)."""
    code = (
        "import json, sys\n"
        "from typer.main import get_command\n"
        "from ratingdb.cli import app, load_commands\n"
        f"if {modules!r} is not None:\n"
        f"    load_commands({modules!r})\n"
        "root = get_command(app)\n"
        "found = {'': list(root.commands)}\n"
        "found |= {name: list(getattr(c, 'commands', {})) for name, c in root.commands.items()}\n"
        # `list` has a subcommand (`list bundle`) but is a command: Typer lists it among the commands.
        "found['(groups)'] = [name for name, c in root.commands.items() if hasattr(c, 'list_commands')]\n"
        "print(json.dumps(found), file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(result.stderr)


def test_the_table_of_command_modules_names_what_each_module_registers() -> None:
    # The console script imports only the module that the table names for its command (and those that
    # add to its group): the command must be all there, with every subcommand, as when all are loaded.
    everything = registered_after(None)
    table = [name for names in COMMANDS.values() for name in names]
    # --help's order: Typer puts the commands before the groups (those with commands of their own).
    groups = everything["(groups)"]
    assert everything[""] == [n for n in table if n not in groups] + [n for n in table if n in groups]
    for module, names in COMMANDS.items():
        for name in names:
            alone = registered_after([module, *ADDED_TO.get(name, ())])
            assert name in alone[""], (module, name)
            assert alone[name] == everything[name], (module, name)


def test_a_command_run_by_the_console_script_loads_only_its_command_module() -> None:
    others = tuple(f"ratingdb.cli.{module}" for module in COMMANDS if module != "calc")
    assert [name for name in loaded_after(CALC_BY_THE_CONSOLE_SCRIPT, others) if name in others] == []
