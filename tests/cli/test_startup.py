"""Start-up: what `import ratingdb.cli` and a calculator run load, checked in a fresh interpreter.

A command pays for every module imported before it runs; `--help` and `calc` need no database, so
SQLAlchemy, Alembic, matplotlib and the PostgreSQL driver must stay out until a command asks for them.
"""

from __future__ import annotations

import subprocess
import sys

from ratingdb import db
from ratingdb.cli import demo
from ratingdb.services import demo as demo_service

HEAVY = ("sqlalchemy", "alembic", "matplotlib", "psycopg", "mako", "ratingdb.models", "ratingdb.services")


def loaded_after(code: str) -> list[str]:
    """The heavy modules loaded after running `code` in a new interpreter."""
    # The command's own output goes to stdout; the module names to stderr.
    listing = f"sorted(m for m in sys.modules if m.startswith({HEAVY!r}))"
    probe = f"import sys\n{code}\nprint('\\n'.join({listing}), file=sys.stderr)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [name for name in result.stderr.splitlines() if name]


def test_importing_the_cli_loads_no_database_chart_or_migration_module() -> None:
    assert loaded_after("import ratingdb.cli") == []


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


def test_a_database_command_loads_sqlalchemy_but_not_alembic_or_the_postgresql_driver(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'startup.sqlite'}"
    engine = db.make_engine(url)
    db.upgrade(engine)
    engine.dispose()
    run = (
        "from ratingdb.cli import app\n"
        "try:\n"
        f"    app(['--db', {url!r}, 'sql', 'SELECT 1 AS one'])\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
    )
    loaded = {name.split(".")[0] for name in loaded_after(run)}
    assert "sqlalchemy" in loaded
    assert not loaded & {"alembic", "matplotlib", "psycopg", "mako"}


def test_the_schema_head_read_from_the_files_is_alembics_head() -> None:
    from alembic.script import ScriptDirectory

    assert db.head_revision() == ScriptDirectory.from_config(db.alembic_config()).get_current_head()


def test_the_demo_command_names_the_services_default_database() -> None:
    assert demo.DEFAULT_DEMO_URL == demo_service.DEFAULT_DEMO_URL
