"""The `ratingdb` console script, with a clock around close-period's transactions (bench/close_command.py).

    python bench/timed_command.py OUT_FILE ratingdb-arguments…

Does what the installed `ratingdb` script does — import ratingdb.cli, call its `main()` with the
arguments — and, in addition, writes to OUT_FILE the wall-clock and CPU seconds spent inside the
transactions `close-period` opens (`ratingdb.cli.close.transaction`: for one period, the close's own,
commit included), so that the benchmark can report the whole command minus the close's transaction:
start-up, imports, the engine and schema check, the summary, the exit. The clock costs two calls of
`time.perf_counter` and `time.process_time` per transaction. Imports ratingdb; nothing imports this.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def main() -> None:
    out, args = sys.argv[1], sys.argv[2:]
    import ratingdb.cli
    import ratingdb.cli.close as close_command

    spent = {"wall_s": 0.0, "cpu_s": 0.0, "transactions": 0}
    opened = close_command.transaction

    @contextmanager
    def timed(**kwargs: Any) -> Iterator[Any]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            with opened(**kwargs) as session:
                yield session
        finally:
            spent["wall_s"] += time.perf_counter() - wall
            spent["cpu_s"] += time.process_time() - cpu
            spent["transactions"] += 1

    close_command.transaction = timed  # type: ignore[assignment]
    sys.argv = ["ratingdb", *args]
    try:
        ratingdb.cli.main()
    finally:
        with open(out, "w") as fh:
            json.dump(spent, fh)


if __name__ == "__main__":
    main()
