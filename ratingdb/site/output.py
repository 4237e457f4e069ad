"""Writing a site into a folder: only files whose content changed, stale files removed, a manifest kept.

Pure file handling: no database, no templates, no CLI imports.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ratingdb.errors import ConfigError

# Lists the files a publish wrote, so the next one removes only its own stale files and never a file
# someone else put in the folder.
MANIFEST: Final = ".ratingdb-site"


@dataclass
class PublishResult:
    """What a publish did to the folder."""

    files: int = 0  # files of the site (the manifest not counted)
    bytes: int = 0
    written: list[str] = field(default_factory=list)  # new or changed, in the order written
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)


class SiteFolder:
    """A folder being (re)published: `write` each file of the site, then `finish`."""

    def __init__(self, root: Path) -> None:
        if root.exists() and not root.is_dir():
            raise ConfigError(f"{root} is a file: give a folder to publish into")
        manifest = root / MANIFEST
        self.previous: set[str] = set()
        if manifest.is_file():
            self.previous = set(manifest.read_text("utf-8").splitlines())
        elif root.is_dir() and any(root.iterdir()):
            raise ConfigError(
                f"{root} is not empty and holds no site published by ratingdb: give a new or empty folder"
            )
        self.root = root
        self.current: set[str] = set()
        self.result = PublishResult()

    def write(self, relative: str, content: bytes) -> None:
        """Write one file of the site unless the folder already holds exactly this content."""
        if relative in self.current:
            raise ValueError(f"{relative} is written twice")  # a bug in the site builder, not user input
        self.current.add(relative)
        self.result.files += 1
        self.result.bytes += len(content)
        target = self.root / relative
        try:
            if target.stat().st_size == len(content) and target.read_bytes() == content:
                self.result.unchanged += 1
                return
        except FileNotFoundError:
            pass
        target.parent.mkdir(parents=True, exist_ok=True)
        # Write beside it and rename: a web server serving the folder never sees half a page.
        temporary = target.with_name(f".{target.name}.tmp")
        temporary.write_bytes(content)
        os.replace(temporary, target)
        self.result.written.append(relative)

    def finish(self) -> PublishResult:
        """Remove the files the previous publish wrote and this one did not, then record this one."""
        for relative in sorted(self.previous - self.current):
            if Path(relative).is_absolute() or ".." in Path(relative).parts:
                continue  # not a file a publish writes: never follow a manifest out of the folder
            path = self.root / relative
            path.unlink(missing_ok=True)
            self.result.removed.append(relative)
            folder = path.parent
            while folder != self.root and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
        self._record(self.current)
        return self.result

    def abandon(self) -> None:
        """After a failure: record every file either publish wrote, so the next publish can clean up."""
        self._record(self.previous | self.current)

    def _record(self, files: set[str]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        text = "".join(f"{name}\n" for name in sorted(files))
        manifest = self.root / MANIFEST
        if not manifest.is_file() or manifest.read_text("utf-8") != text:
            manifest.write_text(text, "utf-8")
