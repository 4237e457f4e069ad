"""The cycle collector around the CLI's imports (ratingdb.cli.collector): off while they run, then as it was;
frozen objects only in a process that is one command (the console script), never in a library caller's."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from ratingdb.cli import collector


def test_the_collector_is_off_during_the_imports_and_on_again_after_them() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with collector.imports():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen  # not the console script: nothing frozen in this process


def test_a_failed_import_turns_the_collector_on_again() -> None:
    with pytest.raises(ModuleNotFoundError), collector.imports():
        import ratingdb_no_such_module  # type: ignore[import-not-found]  # noqa: F401
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with collector.imports():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_in_a_command_process_what_the_imports_made_is_frozen() -> None:
    code = (
        "import gc\n"
        "from ratingdb.cli import collector\n"
        "collector.one_command_process()\n"
        "with collector.imports():\n"
        "    import json\n"
        "print(gc.get_freeze_count() > 0, gc.isenabled())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "True"]
