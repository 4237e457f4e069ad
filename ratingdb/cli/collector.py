"""CPython's cycle collector during the command line's imports: off while they run, frozen after them.

Importing the CLI, SQLAlchemy, the ORM and the models makes some 300,000 objects that live as long as the
process. The cycle collector runs after every 700 new container objects, and each run of an older
generation scans all of them again: about 320 collections and 0.13 s of CPU of a `close-period` at
`national` (a tenth of the command), while the close itself makes few objects that outlive it. Imports
make no garbage worth collecting, so the collector is off while they run; and when the process is one
command (the console script, `main()`), what they made is moved out of the collector's sight
(`gc.freeze()`), as `main()` already does at exit. A library caller or a test runner keeps its collector
as it was: nothing is frozen for it.

Imports only the standard library: the CLI's start-up imports it first.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_one_command = False  # set by the console script: this process runs one command and ends


def one_command_process() -> None:
    """Called by the console script's entry point: this process is one command."""
    global _one_command
    _one_command = True


@contextmanager
def imports() -> Iterator[None]:
    """Around heavy imports: no collection while they run; after them, on a command's process, the
    objects they made are frozen (never scanned again)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _one_command:
            gc.freeze()
        if enabled:
            gc.enable()
