"""`report diff`: what changed between two versions of a list, and what a close changed.

Two lists of one type are compared by ratingdb.services.list_diff (the officer's period page and the close
of several periods, services.closing, use it too), where these are defined. No CLI imports.
"""

from __future__ import annotations

from ratingdb.services.list_diff import VersionChange, close_changes, version_diff, withdrawn_version

__all__ = ["VersionChange", "close_changes", "version_diff", "withdrawn_version"]
