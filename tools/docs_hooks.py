"""MkDocs hooks (mkdocs.yml `hooks:`): the reference pages written from the program at build time.

reference/cli.md comes from the Typer app (`ratingdb.cli.reference.markdown()`), and, when the web app
(ratingdb.web) is there, reference/api.md from its OpenAPI document (tools/openapi_markdown.py). Neither
is a file in docs/, so both always match the checkout the site is built from.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

# tools/openapi_markdown.py, beside this file (MkDocs loads hooks by path, not as a package).
_spec = importlib.util.spec_from_file_location(
    "openapi_markdown", Path(__file__).with_name("openapi_markdown.py")
)
assert _spec is not None and _spec.loader is not None
openapi_markdown = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(openapi_markdown)

CLI_PAGE = "reference/cli.md"


_api: dict[str, Any] = {}


def on_config(config: Any) -> Any:
    """With the web app present, the JSON API page joins the Reference section of the navigation."""
    document = openapi_markdown.api_document()
    if document is not None:
        _api["document"] = document
        for section in config["nav"]:
            if isinstance(section, dict) and "Reference" in section:
                section["Reference"].insert(2, {"JSON API": API_PAGE})
    return config


def on_files(files: Files, config: Any) -> Files:
    from ratingdb.cli.reference import markdown

    pages = {CLI_PAGE: markdown()}
    if "document" in _api:
        pages[API_PAGE] = openapi_markdown.markdown(_api["document"], API_URL)
    for path, content in pages.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files


API_PAGE = "reference/api.md"
API_URL = "/api/v1/openapi.json"
