"""The second process of `read_list(..., ahead=True)`: reads the list, sends its frames; stdlib imports."""

# Run as `python -m ratingdb.formats.list_child PATH FORMAT TYPE...` by list_producer.read_ahead: it
# imports both the readers and the producer, which import neither this module nor each other back.

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from ratingdb.formats.list_producer import produce
from ratingdb.formats.lists import read_list


def main(argv: Sequence[str]) -> None:
    path, fmt, *types = argv
    # Ctrl-C reaches the whole process group: the importing process answers it and ends this one.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt the frames
    produce(lambda: read_list(Path(path), format=fmt, rating_types=types, ahead=False), types, out)  # type: ignore[arg-type]
    out.close()


if __name__ == "__main__":
    main(sys.argv[1:])
