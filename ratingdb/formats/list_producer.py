"""The second process of `read_list(..., ahead=True)`: parses while the import writes; stdlib imports."""

# Parsing a FIDE-size list is a third of its import; in its own process it runs on the second core while
# the importing process writes the rows before. Rows travel as plain tuples in pickled frames (a tuple of
# numbers and strings unpickles at C speed; building two million objects the reader's way costs as much
# as parsing), each frame's distinct ratings sent once. A thread writes the frames so that parsing goes
# on while the pipe is full; at most FRAMES_AHEAD frames wait, so memory stays flat whatever the length.
#
# The first frame that is not rows ends the stream: ("end", None), ("error", (file, line, column,
# reason)) for a ListFormatError, ("oserror", (errno, strerror, filename)), or ("crash", traceback).

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

from ratingdb.errors import ListFormatError
from ratingdb.formats.lists import ListFormat, ListRating, ListRow, read_list

FRAME_ROWS = 5_000
FRAMES_AHEAD = 8  # with FRAME_ROWS, 40,000 rows parsed ahead: two of the import's batches

# A frame of rows: the distinct ratings (ListRating fields); the distinct combinations of them a row
# carries (positions in the first list, one per rating type asked for, None where a row has none); the
# rows, each as the ListRow fields with `ratings` replaced by the position of its combination.
Frame = tuple[list[tuple[Any, ...]], list[tuple[int | None, ...]], list[tuple[Any, ...]]]


def encode(rows: Sequence[ListRow], types: Sequence[str]) -> Frame:
    """Rows as a frame: tuples of plain values, each distinct rating and combination of ratings once."""
    ratings: list[tuple[Any, ...]] = []
    rating_at: dict[int, int] = {}  # id of a ListRating → its position (the rows keep them alive)
    combinations: list[tuple[int | None, ...]] = []
    combination_at: dict[tuple[int, ...], int] = {}
    encoded: list[tuple[Any, ...]] = []
    for row in rows:
        found = [row.ratings.get(t) for t in types]
        key = tuple(map(id, found))
        at = combination_at.get(key)
        if at is None:
            slots: list[int | None] = []
            for rating in found:
                if rating is None:
                    slots.append(None)
                    continue
                slot = rating_at.get(id(rating))
                if slot is None:
                    slot = rating_at[id(rating)] = len(ratings)
                    ratings.append(
                        (rating.rating, rating.games, rating.k, rating.games_total, rating.reached_2400,
                         rating.reached_2300)
                    )  # fmt: skip
                slots.append(slot)
            at = combination_at[key] = len(combinations)
            combinations.append(tuple(slots))
        encoded.append(
            (row.line, row.fide_id, row.national_id, row.name, row.federation, row.sex, row.title,
             row.birth_year, row.flag, at)
        )  # fmt: skip
    return ratings, combinations, encoded


def decode(frame: Frame, types: Sequence[str]) -> list[ListRow]:
    """The rows of a frame, as `read_list` yields them. Rows with equal ratings share one `ratings`
    mapping (nothing changes a row's ratings), which keeps this a third of the cost of parsing."""
    table = [ListRating(*fields) for fields in frame[0]]
    maps = [
        {t: table[slot] for t, slot in zip(types, slots, strict=True) if slot is not None}
        for slots in frame[1]
    ]
    return [
        ListRow(line, fide_id, national_id, name, federation, sex, title, born, flag, maps[at])
        for line, fide_id, national_id, name, federation, sex, title, born, flag, at in frame[2]
    ]


def produce(path: Path, fmt: ListFormat, types: Sequence[str], out: BinaryIO) -> None:
    """Parse `path` and write its frames to `out`, ending with the frame that says how it ended."""
    frames: queue.Queue[bytes | None] = queue.Queue(maxsize=FRAMES_AHEAD)

    def send() -> None:
        try:
            while (frame := frames.get()) is not None:
                out.write(frame)
                out.flush()
        except BrokenPipeError:  # the importing process stopped reading: it has its answer already
            os._exit(0)

    sender = threading.Thread(target=send, name="list-frames", daemon=True)
    sender.start()
    batch: list[ListRow] = []

    def put_rows() -> None:
        if batch:
            frames.put(pickle.dumps(("rows", encode(batch, types)), pickle.HIGHEST_PROTOCOL))
            batch.clear()

    try:
        rows = read_list(path, format=fmt, rating_types=types, ahead=False)
        while True:
            # The rows before an error are sent first: the caller gets them all, then the error.
            batch.extend(islice(rows, FRAME_ROWS))
            if len(batch) < FRAME_ROWS:
                break
            put_rows()
        put_rows()
        end: tuple[str, object] = ("end", None)
    except ListFormatError as e:
        put_rows()
        end = ("error", (e.file, e.line, e.column, e.reason))
    except OSError as e:
        put_rows()
        end = ("oserror", (e.errno, e.strerror, e.filename))
    except Exception:  # a bug: the importing process raises it with this traceback
        end = ("crash", traceback.format_exc())
    frames.put(pickle.dumps(end, pickle.HIGHEST_PROTOCOL))
    frames.put(None)
    sender.join()


def read_ahead(path: Path, fmt: ListFormat, types: Sequence[str]) -> Iterator[ListRow]:
    """The rows of `path`, parsed by a second process (this module run as a script) while they are used.

    Raises what `read_list` raises, when the row it is about is reached: the rows before it come first.
    The process is ended when the rows are no longer wanted (the iterator is closed or dropped).
    """
    package = Path(__file__).resolve().parents[2]  # the process imports this very ratingdb
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(package), env.get("PYTHONPATH")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "ratingdb.formats.list_producer", str(path), fmt, *types],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    try:
        while True:
            try:
                kind, payload = pickle.load(process.stdout)
            except EOFError:
                raise RuntimeError(
                    f"the process reading {path.name} ended without a word (exit code {process.wait()})"
                ) from None
            if kind == "rows":
                yield from decode(payload, types)
            elif kind == "end":
                return
            elif kind == "error":
                raise ListFormatError(*payload)
            elif kind == "oserror":
                raise OSError(*payload)
            else:
                raise RuntimeError(f"the process reading {path.name} failed:\n{payload}")
    finally:
        if process.poll() is None:
            process.kill()
        process.stdout.close()
        process.wait()


def main(argv: Sequence[str]) -> None:
    path, fmt, *types = argv
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not corrupt the frames
    produce(Path(path), fmt, types, out)  # type: ignore[arg-type]
    out.close()


if __name__ == "__main__":
    main(sys.argv[1:])
