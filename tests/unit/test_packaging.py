"""What an installed ratingdb ships is what the checkout holds: pyproject.toml lists every package folder
and its package data covers every file beside the code (setuptools ships only what is listed).

The packages are listed by hand because ratingdb.migrations and ratingdb.seeds are mapped from top-level
folders (`[tool.setuptools.package-dir]`), so a new package folder that is not added to the list, or a new
template in a folder no glob names, would be missing from a wheel while every test of the checkout passes.
"""

from __future__ import annotations

import tomllib
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
PACKAGES: list[str] = SETUPTOOLS["packages"]
PACKAGE_DIR: dict[str, str] = SETUPTOOLS["package-dir"]
PACKAGE_DATA: dict[str, list[str]] = SETUPTOOLS["package-data"]
SOURCES = ("ratingdb", *sorted({folder.split("/")[0] for folder in PACKAGE_DIR.values()}))
# Files beside the code that are for the checkout only, each with why.
CHECKOUT_ONLY = {
    ("ratingdb.seeds", "norm-case.json"): "docs/guide/norms.md's example, run as seeds/norm-case.json",
}


def folder_of(package: str) -> Path:
    """The folder setuptools takes `package` from: its own mapping, else its parent's, else its name."""
    parts = package.split(".")
    for length in range(len(parts), 0, -1):
        mapped = PACKAGE_DIR.get(".".join(parts[:length]))
        if mapped is not None:
            return ROOT / mapped / Path(*parts[length:])
    return ROOT / Path(*parts)


def _package_folders() -> set[Path]:
    return {init.parent for source in SOURCES for init in (ROOT / source).rglob("__init__.py")}


def _beside_the_code(folder: Path) -> list[PurePosixPath]:
    """The files of a package folder (not of its subpackages) that are not Python source, relative to it."""
    subpackages = {p for p in _package_folders() if p != folder and p.is_relative_to(folder)}
    return sorted(
        PurePosixPath(path.relative_to(folder).as_posix())
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix not in (".py", ".pyc")
        and "__pycache__" not in path.parts
        and not any(path.is_relative_to(sub) for sub in subpackages)
    )


def matches(name: PurePosixPath, pattern: str) -> bool:
    """Whether setuptools' glob `pattern` (relative to the package folder) takes the file `name`: `*` stays
    within one folder, so `*.trf` does not take trf/a.trf."""
    return len(name.parts) == len(PurePosixPath(pattern).parts) and name.match(pattern)


def test_every_package_folder_is_listed_and_every_listed_package_exists() -> None:
    listed = {folder_of(package) for package in PACKAGES}
    assert sorted(str(p.relative_to(ROOT)) for p in _package_folders() - listed) == []
    assert sorted(p for p in PACKAGES if not (folder_of(p) / "__init__.py").is_file()) == []


def test_every_file_beside_the_code_ships_as_package_data() -> None:
    unshipped = [
        f"{package}: {name}"
        for package in PACKAGES
        for name in _beside_the_code(folder_of(package))
        if not any(matches(name, pattern) for pattern in PACKAGE_DATA.get(package, []))
        and (package, str(name)) not in CHECKOUT_ONLY
    ]
    assert unshipped == []


def test_each_package_data_pattern_names_files_that_exist() -> None:
    empty = [
        f"{package}: {pattern}"
        for package, patterns in PACKAGE_DATA.items()
        for pattern in patterns
        if not any(matches(name, pattern) for name in _beside_the_code(folder_of(package)))
    ]
    assert empty == []


def test_the_glob_match_is_setuptools_one_folder_at_a_time() -> None:
    assert matches(PurePosixPath("trf/a.trf"), "trf/*.trf")
    assert not matches(PurePosixPath("trf/a.trf"), "*.trf")
    assert not matches(PurePosixPath("a.trf"), "trf/*.trf")
