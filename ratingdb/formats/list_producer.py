"""`read_list(..., ahead=True)`: a second process parses while the import writes; stdlib imports."""

# Parsing a FIDE-size list is a third of its import; in its own process it runs on the second core while
# the importing process writes the rows before. Rows travel as plain tuples in pickled frames (a tuple of
# numbers and strings unpickles at C speed; building two million objects the reader's way costs as much
# as parsing), each frame's distinct ratings sent once. A thread writes the frames so that parsing goes
# on while the pipe is full; at most FRAMES_AHEAD frames wait, so memory stays flat whatever the length.
#
# The second process runs ratingdb.formats.list_child, which hands `produce` the reader: this module
# imports the rows' shapes (list_rows), never the readers that call it.
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
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

from ratingdb.errors import ListFormatError
from ratingdb.formats.list_rows import ListFormat, ListRating, ListRow

FRAME_ROWS = 5_000
FRAMES_AHEAD = 8  # with FRAME_ROWS, 40,000 rows parsed ahead: two of the import's batches

# A frame of rows: each row as the ListRow fields, with `ratings` replaced by its ratings' fields (a
# tuple of ListRating fields per rating type asked for, None where the row has none). Equal values are
# one object in the frame, which pickle then sends once.
Frame = list[tuple[Any, ...]]
# The reader keeps at most this many distinct combinations of ratings (their mappings) between frames.
DISTINCT_RATINGS = 100_000


def encode(rows: Sequence[ListRow], types: Sequence[str]) -> Frame:
    """Rows as a frame of plain tuples."""
    same: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    encoded: list[tuple[Any, ...]] = []
    for row in rows:
        combination = tuple(
            None if r is None else (r.rating, r.games, r.k, r.games_total, r.reached_2400, r.reached_2300)
            for r in map(row.ratings.get, types)
        )
        combination = same.setdefault(combination, combination)
        encoded.append(
            (row.line, row.fide_id, row.national_id, row.name, row.federation, row.sex, row.title,
             row.birth_year, row.flag, combination)
        )  # fmt: skip
    return encoded


class Decoder:
    """Frames back into rows, as `read_list` yields them: rows with equal ratings share one `ratings`
    mapping and equal ratings one ListRating (nothing changes them), which keeps reading a frame a
    fraction of the cost of parsing its lines."""

    def __init__(self, types: Sequence[str]) -> None:
        self.types = tuple(types)
        self.mappings: dict[tuple[Any, ...], dict[str, ListRating]] = {}
        self.ratings: dict[tuple[Any, ...], ListRating] = {}

    def rows(self, frame: Frame) -> list[ListRow]:
        mappings = self.mappings
        if len(mappings) > DISTINCT_RATINGS:  # memory stays flat, however varied the file
            mappings.clear()
            self.ratings.clear()
        for combination in {row[9] for row in frame} - mappings.keys():
            mappings[combination] = {
                t: self._rating(fields) for t, fields in zip(self.types, combination, strict=True) if fields
            }
        return [
            ListRow(
                line, fide_id, national_id, name, federation, sex, title, born, flag, mappings[combination]
            )
            for line, fide_id, national_id, name, federation, sex, title, born, flag, combination in frame
        ]

    def _rating(self, fields: tuple[Any, ...]) -> ListRating:
        found = self.ratings.get(fields)
        if found is None:
            found = self.ratings[fields] = ListRating(*fields)
        return found


def decode(frame: Frame, types: Sequence[str]) -> list[ListRow]:
    """The rows of one frame (`Decoder` for a stream of them)."""
    return Decoder(types).rows(frame)


def produce(read: Callable[[], Iterable[ListRow]], types: Sequence[str], out: BinaryIO) -> None:
    """Write the frames of the rows `read()` yields to `out`, ending with the frame saying how it ended."""
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
        rows = iter(read())
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
    """The rows of `path`, parsed by a second process (ratingdb.formats.list_child) while they are used.

    Raises what `read_list` raises, when the row it is about is reached: the rows before it come first.
    The process is ended when the rows are no longer wanted (the iterator is closed or dropped).
    """
    package = Path(__file__).resolve().parents[2]  # the process imports this very ratingdb
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(package), env.get("PYTHONPATH")) if p)
    process = subprocess.Popen(
        # -P: the current folder is not put first on the path, so a folder holding another ratingdb (a
        # checkout, say) cannot stand in for this one.
        [sys.executable, "-P", "-m", "ratingdb.formats.list_child", str(path), fmt, *types],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    decoder = Decoder(types)
    try:
        while True:
            try:
                kind, payload = pickle.load(process.stdout)
            except EOFError:
                raise RuntimeError(
                    f"the process reading {path.name} ended without a word (exit code {process.wait()})"
                ) from None
            if kind == "rows":
                yield from decoder.rows(payload)
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
