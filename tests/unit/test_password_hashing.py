"""The site's password hasher outside the tests' shortcut (tests/conftest.py makes hashing cheap)."""

from __future__ import annotations

import pytest
from argon2 import Type
from argon2.profiles import RFC_9106_LOW_MEMORY

from ratingdb.services import users


def test_the_site_hashes_with_argon2id_at_rfc_9106s_low_memory_profile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.undo()  # the tests' cheap hasher off: the module's own
    hasher = users._hasher()
    assert hasher.type is Type.ID
    assert (hasher.memory_cost, hasher.time_cost, hasher.parallelism) == (
        RFC_9106_LOW_MEMORY.memory_cost,
        RFC_9106_LOW_MEMORY.time_cost,
        RFC_9106_LOW_MEMORY.parallelism,
    )
    assert (hasher.memory_cost, hasher.time_cost, hasher.parallelism) == (65536, 3, 4)
    assert users.hash_password("a long enough password").startswith("$argon2id$v=19$m=65536,t=3,p=4$")
