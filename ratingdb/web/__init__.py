"""The web app: the federation's site served live, the JSON API under /api/v1, live ratings.

`uvicorn ratingdb.web:app` serves it (configured by RATINGDB_URL, RATINGDB_READ_URL, RATINGDB_TITLE,
RATINGDB_TYPES); `ratingdb serve` does the same from the command line. The app object is made when
first asked for, not at import, so importing the package opens no database.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "app":
        from ratingdb.web.app import create_app

        app = create_app()
        globals()["app"] = app
        return app
    raise AttributeError(name)
