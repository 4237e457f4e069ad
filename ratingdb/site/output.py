"""Writing a site into a folder: only files whose content changed, stale files removed, a manifest kept.

Pure file handling: no database, no templates, no CLI imports.

The folder is walked by directory file descriptors, never by path: every folder below the root is
opened with O_NOFOLLOW|O_DIRECTORY from its parent, every file is read with O_NOFOLLOW and must be a
regular file, and every file is written to a new temporary name created exclusively (O_CREAT|O_EXCL|
O_NOFOLLOW) beside it and renamed over it. So a symbolic link planted in the folder — a `.NAME.tmp`
pointing at `~/.bashrc`, a `lists` link to another folder, a linked `.ratingdb-site` — is never read,
written or deleted through: the publish stops with one line naming it, and nothing outside the folder
changes. (A rename replaces a directory entry, never what a link points at.)
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final

from ratingdb.errors import ConfigError

# Lists the files a publish wrote, so the next one removes only its own stale files and never a file
# someone else put in the folder.
MANIFEST: Final = ".ratingdb-site"
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_BINARY: Final = getattr(os, "O_BINARY", 0)


@dataclass
class PublishResult:
    """What a publish did to the folder."""

    files: int = 0  # files of the site (the manifest not counted)
    bytes: int = 0
    written: list[str] = field(default_factory=list)  # new or changed, in the order written
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)


def _link_refused(path: Path) -> ConfigError:
    return ConfigError(
        f"{path} is a symbolic link or not a plain file or folder: publish never follows links — "
        "remove it (the site folder should be writable by the rating officer only)"
    )


def _os_error(path: Path, exc: OSError) -> ConfigError:
    if exc.errno == errno.ELOOP:
        return _link_refused(path)
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        hint = "free some space and publish again"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "give a folder you may write to"
    else:
        hint = "check the folder and publish again"
    return ConfigError(f"cannot write {path}: {exc.strerror} — {hint}")


class SiteFolder:
    """A folder being (re)published: `write` each file of the site, then `finish` (or `abandon`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.current: set[str] = set()
        self.result = PublishResult()
        self._folders: dict[str, int] = {}  # relative folder ("" the root) → an open descriptor
        self._made: list[str] = []  # folders and files this publish created, in order ("" the root)
        try:
            info = os.lstat(root)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise _os_error(root, exc) from None
        if info is not None and stat.S_ISLNK(info.st_mode):
            raise ConfigError(f"{root} is a symbolic link: give the real folder to publish into")
        if info is not None and not stat.S_ISDIR(info.st_mode):
            raise ConfigError(f"{root} is a file: give a folder to publish into")
        try:
            if info is None:
                os.mkdir(root)
                self._made.append("")
            self._folders[""] = os.open(root, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
        except OSError as exc:
            raise _os_error(root, exc) from None
        manifest = self._read(MANIFEST)
        self.previous: set[str] = set()
        if manifest is not None:
            self.previous = set(manifest.decode("utf-8").splitlines())
        elif os.listdir(self._folders[""]):
            self.close()
            raise ConfigError(
                f"{root} is not empty and holds no site published by ratingdb: give a new or empty folder"
            )

    # --- descriptors -----------------------------------------------------------------------------------

    def _folder(self, relative: str, create: bool) -> int | None:
        """The descriptor of folder `relative` below the root, each part opened without following a link;
        made if missing and `create`, else None when missing."""
        if relative in self._folders:
            return self._folders[relative]
        parent_path, _, name = relative.rpartition("/")
        parent = self._folder(parent_path, create)
        if parent is None:
            return None
        if name in ("", ".", ".."):
            raise ValueError(f"{relative!r} is not a path inside the site")  # a bug, not user input
        try:
            fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                return None
            try:
                os.mkdir(name, 0o755, dir_fd=parent)
                self._made.append(relative + "/")
                fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=parent)
            except OSError as exc:
                raise _os_error(self.root / relative, exc) from None
        except OSError as exc:  # ELOOP: a link; ENOTDIR: a file where a folder belongs
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise _link_refused(self.root / relative) from None
            raise _os_error(self.root / relative, exc) from None
        self._folders[relative] = fd
        return fd

    def close(self) -> None:
        for fd in self._folders.values():
            os.close(fd)
        self._folders.clear()

    @staticmethod
    def _split(relative: str) -> tuple[str, str]:
        parts = PurePosixPath(relative).parts
        if not parts or PurePosixPath(relative).is_absolute() or any(p in (".", "..") for p in parts):
            raise ValueError(f"{relative!r} is not a path inside the site")
        return "/".join(parts[:-1]), parts[-1]

    def _read(self, relative: str) -> bytes | None:
        """The content of file `relative`, None if there is none; a link or a non-file is refused."""
        folder, name = self._split(relative)
        fd_dir = self._folder(folder, create=False)
        if fd_dir is None:
            return None
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _BINARY, dir_fd=fd_dir)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _link_refused(self.root / relative) from None
            raise _os_error(self.root / relative, exc) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _link_refused(self.root / relative)
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def _replace(self, relative: str, content: bytes) -> None:
        """Write `content` to a new file beside `relative` (created exclusively) and rename it over it."""
        folder, name = self._split(relative)
        fd_dir = self._folder(folder, create=True)
        assert fd_dir is not None
        temporary = f".{name}.{secrets.token_hex(6)}.tmp"
        path = self.root / relative
        try:
            fd = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY, 0o644, dir_fd=fd_dir
            )
        except OSError as exc:
            raise _os_error(path, exc) from None
        try:
            try:
                view = memoryview(content)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(temporary, name, src_dir_fd=fd_dir, dst_dir_fd=fd_dir)
        except OSError as exc:
            try:
                os.unlink(temporary, dir_fd=fd_dir)
            except OSError:
                pass
            raise _os_error(path, exc) from None

    # --- the publish -----------------------------------------------------------------------------------

    def write(self, relative: str, content: bytes) -> None:
        """Write one file of the site unless the folder already holds exactly this content."""
        if relative in self.current:
            raise ValueError(f"{relative} is written twice")  # a bug in the site builder, not user input
        self.current.add(relative)
        self.result.files += 1
        self.result.bytes += len(content)
        existing = self._read(relative)
        if existing == content:
            self.result.unchanged += 1
            return
        if existing is None:
            self._made.append(relative)
        # Write beside it and rename: a web server serving the folder never sees half a page.
        self._replace(relative, content)
        self.result.written.append(relative)

    def finish(self) -> PublishResult:
        """Remove the files the previous publish wrote and this one did not, then record this one."""
        try:
            for relative in sorted(self.previous - self.current):
                try:
                    folder, name = self._split(relative)
                except ValueError:
                    continue  # not a file a publish writes: never follow a manifest out of the folder
                fd_dir = self._folder(folder, create=False)
                if fd_dir is None:
                    continue
                try:
                    os.unlink(name, dir_fd=fd_dir)  # removes a link itself, never what it points at
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    raise _os_error(self.root / relative, exc) from None
                self.result.removed.append(relative)
                while folder:
                    parent, _, last = folder.rpartition("/")
                    fd = self._folders.pop(folder, None)
                    if fd is not None:
                        os.close(fd)
                    parent_fd = self._folder(parent, create=False)
                    if parent_fd is None:
                        break
                    try:
                        os.rmdir(last, dir_fd=parent_fd)
                    except OSError:
                        break  # not empty (or not ours to remove): keep it
                    folder = parent
            self._record(self.current)
        finally:
            self.close()
        return self.result

    def abandon(self) -> None:
        """After a failure: record every file either publish wrote, so the next publish can clean up.
        If the manifest cannot be written (a full disk), what this publish created is removed instead, so
        the folder is as the old manifest describes it; the first error is the one reported."""
        try:
            self._record(self.previous | self.current)
        except (ConfigError, OSError):
            self._remove_made()
        finally:
            self.close()

    def _remove_made(self) -> None:
        files = [m for m in self._made if m and not m.endswith("/")]
        folders = [m for m in self._made if not m or m.endswith("/")]
        for relative in [*files, *reversed(folders)]:  # the files first, then each folder, deepest first
            try:
                if relative == "":
                    self.close()
                    os.rmdir(self.root)
                    continue
                folder, name = self._split(relative.rstrip("/"))
                fd_dir = self._folder(folder, create=False)
                if fd_dir is None:
                    continue
                if relative.endswith("/"):
                    fd = self._folders.pop(relative.rstrip("/"), None)
                    if fd is not None:
                        os.close(fd)
                    os.rmdir(name, dir_fd=fd_dir)
                else:
                    os.unlink(name, dir_fd=fd_dir)
            except (ConfigError, OSError):
                pass

    def _record(self, files: set[str]) -> None:
        text = "".join(f"{name}\n" for name in sorted(files)).encode("utf-8")
        if self._read(MANIFEST) != text:
            self._replace(MANIFEST, text)
