"""The demo federation as a database to publish: built once per engine by the real `ratingdb demo`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.conftest import ENGINES, new_database_url


@pytest.fixture(scope="session", params=ENGINES)
def demo_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database holding the demo federation (lists, events and closes). Tests must not change it."""
    urls = new_database_url(request.param, request, tmp_path_factory.mktemp("demo"))
    url = next(urls)
    try:
        result = CliRunner().invoke(app, ["demo", "--db", url, "--force"])
        assert result.exit_code == 0, result.output
        yield url
    finally:
        next(urls, None)


@pytest.fixture(scope="session")
def demo_sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo on SQLite only: for the browser test, which checks pages rather than engines."""
    path = tmp_path_factory.mktemp("demo-sqlite") / "demo.sqlite"
    result = CliRunner().invoke(app, ["demo", "--db", f"sqlite:///{path}"])
    assert result.exit_code == 0, result.output
    return f"sqlite:///{path}"


def publish(url: str, folder: Path, *args: str) -> str:
    """Run `ratingdb publish` and return its one line of output."""
    result = CliRunner().invoke(app, ["--db", url, "publish", str(folder), *args])
    assert result.exit_code == 0, result.output
    return result.output
