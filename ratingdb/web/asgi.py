"""The served app made from the environment, for `uvicorn ratingdb.web:app`: importing this makes it.

Only ratingdb.web's first-use table imports this module (ratingdb.lazy); everything else builds its
app with ratingdb.web.app.create_app and its own settings.
"""

from __future__ import annotations

from ratingdb.web.app import create_app

app = create_app()
