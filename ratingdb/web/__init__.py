"""The web app: the federation's site served live, the JSON API under /api/v1, live ratings.

`uvicorn ratingdb.web:app` serves it (configured by RATINGDB_URL, RATINGDB_READ_URL, RATINGDB_TITLE,
RATINGDB_TYPES); `ratingdb serve` does the same from the command line. The app object is made when
first asked for (ratingdb.web.asgi, loaded by ratingdb.lazy), not at import, so importing the package
opens no database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratingdb.lazy import on_first_use

if TYPE_CHECKING:
    from ratingdb.web.asgi import app

__all__ = ["app"]

__getattr__ = on_first_use(__name__, {"asgi": ("app",)})
