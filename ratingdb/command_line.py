"""The command line being run, for the audit log: set by the CLI's entry point, read by services.versions.

A module of its own (no imports from the package, no SQLAlchemy) so that setting it costs the CLI's
start-up nothing: `ratingdb --help` and `calc` never import the database layer.
"""

from __future__ import annotations

from contextvars import ContextVar

# Library callers leave it unset.
current_command: ContextVar[str | None] = ContextVar("ratingdb_current_command", default=None)
