"""MkDocs hooks (mkdocs.yml `hooks:`): the command reference page, written from the Typer app at build time.

The page is not a file in docs/: it is made from `ratingdb.cli.reference.markdown()` each time the site is
built, so it always matches the commands of the checkout it is built from.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

CLI_PAGE = "reference/cli.md"


def on_files(files: Files, config: Any) -> Files:
    from ratingdb.cli.reference import markdown

    existing = files.get_file_from_path(CLI_PAGE)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, CLI_PAGE, content=markdown()))
    return files
