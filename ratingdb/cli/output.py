"""What the CLI writes: data made harmless for terminals and spreadsheets, and files written safely.

Imports only ratingdb.errors, the engines' package (the backends load when asked for) and the CLI's global
options; no database, no services.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, BinaryIO, Final, Literal, TextIO, overload

import typer

from ratingdb import engines
from ratingdb.cli.app import database_url
from ratingdb.errors import RatingDbError

if TYPE_CHECKING:
    from rich.text import Text  # imported when a table is drawn: `--help` and `calc` do not pay for rich

# Bidirectional embeddings, overrides and isolates (and the marks) reorder what a terminal shows
# ("Trojan Source"); C0/C1 controls move the cursor, clear the screen or open OSC-8 hyperlinks.
_BIDI: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
REPLACEMENT: Final = "\ufffd"
_SHOWN: Final = {
    c: REPLACEMENT for c in [*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), *_BIDI]
}
_TRANSLATION: Final = str.maketrans(_SHOWN)

OutputOption = Annotated[
    Path | None,
    typer.Option("-o", "--output", metavar="FILE", help="Write to this file instead of stdout."),
]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace the output file if it already exists.")]


class OutputRefused(RatingDbError):
    """An output file that ratingdb will not write: the database itself, a link, an existing file."""


def terminal_text(value: object) -> str:
    """`value` as text a terminal shows literally: control and bidi-override characters become �."""
    text = str(value)
    if text.isascii() and text.isprintable():
        return text  # nothing to replace (most values: numbers, IDs, dates, names), and no copy made
    return text.translate(_TRANSLATION)


def cell(value: object) -> Text:
    """A data value for a rich table or line: plain text (never read as markup), controls replaced."""
    from rich.text import Text

    return Text("" if value is None else terminal_text(value))


def database_files(url: str) -> list[Path]:
    """The files of a SQLite database URL (the file and its -wal, -shm, -journal); none for a server."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return []
    backend = engines.for_url(parsed)
    file = None if backend is None else backend.database_file(parsed)
    if file is None:
        return []
    base = file.expanduser().resolve()
    return [base, *(base.with_name(base.name + s) for s in ("-wal", "-shm", "-journal"))]


def check_output(path: Path, *, force: bool) -> None:
    """Refuse an output path that is the database, a symbolic link, a folder, or (without --force) a file."""
    resolved = path.expanduser().resolve()
    files = database_files(database_url())
    for protected in files:
        same = resolved.exists() and protected.exists() and resolved.samefile(protected)
        if resolved == protected or same:
            what = "the database" if protected == files[0] else f"a file of the database {files[0].name}"
            raise OutputRefused(f"{path} is {what} — write the output to another file")
    if path.is_symlink():
        raise OutputRefused(
            f"{path} is a symbolic link to {os.readlink(path)} — ratingdb does not write through links: "
            "give the real path, or remove the link"
        )
    if path.is_dir():
        raise OutputRefused(f"{path} is a folder — give a file name, e.g. {path / 'out.csv'}")
    if path.exists() and not force:
        raise OutputRefused(f"{path} already exists — add --force to replace it, or choose another name")
    if not path.parent.is_dir():
        raise OutputRefused(f"cannot write {path}: the folder {path.parent} does not exist — create it first")


@overload
@contextmanager
def output_file(path: Path, *, force: bool, binary: Literal[False] = ...) -> Iterator[TextIO]: ...
@overload
@contextmanager
def output_file(path: Path, *, force: bool, binary: Literal[True]) -> Iterator[BinaryIO]: ...
@contextmanager
def output_file(path: Path, *, force: bool, binary: bool = False) -> Iterator[IO[Any]]:
    """A file to write `path` through: a temporary file beside it, renamed over `path` when complete.

    A command that fails half-way leaves the old file (or none) untouched; a reader never sees a
    half-written file. The rename replaces a directory entry, so it never writes through a link.
    """
    check_output(path, force=force)
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputRefused(
            f"cannot write {path}: {exc.strerror} — choose a folder you can write to"
        ) from None
    try:
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise OutputRefused(f"cannot write {path}: {exc.strerror} — nothing was written") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    """The replaced file keeps its permissions; a new file gets the usual ones (0666 less the umask)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def echo(line: str = "") -> None:
    """Print one line that carries data (names, notes, file names) with controls and bidi replaced."""
    typer.echo(terminal_text(line))
