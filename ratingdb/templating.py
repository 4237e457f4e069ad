"""The one kind of Jinja2 environment ratingdb's templates are made in (the site's, the signed-in pages',
the history chart's).

Jinja2 gives each template its globals as a ChainMap over the environment's, so that a template never
changes them; every render then lists the ChainMap's keys (twice for a page that imports macros: once
for the page, once to see whether the import needs a module of its own), a twentieth of a player page
without calculations (bench/RESULTS.md, issue 28, "a fourth time"). Here a template's globals are a dict
of its own, copied from the environment's when the template is first loaded: the same protection, and
the same values, since every environment here has its globals set before it loads a template.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from jinja2 import Environment


class Templates(Environment):
    """A Jinja2 environment whose templates keep a plain copy of its globals (the module says why): set
    the globals before the first template is loaded."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}
