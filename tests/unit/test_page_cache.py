"""The served app's caches are bounded by size as well as by count (ratingdb.web.state.LRU): a worker
keeps pages by their bytes and lists by their lines, so a site of large pages cannot grow a worker past
what its settings allow (issue 28: 200 MB a worker)."""

from __future__ import annotations

from ratingdb.web.state import LRU


def test_the_least_recently_used_entries_go_first_when_the_weights_pass_the_budget() -> None:
    cache: LRU[str, bytes] = LRU(10, len, budget=10)
    cache.put("a", b"1234")
    cache.put("b", b"1234")
    assert cache.get("a") == b"1234"  # a is now the most recently used
    cache.put("c", b"1234")  # 12 bytes > 10: b, the least recently used, goes
    assert list(cache.items) == ["a", "c"] and cache.weight == 8
    cache.put("a", b"12")  # a replaced: its old weight is taken off
    assert cache.weight == 6


def test_an_entry_heavier_than_the_budget_is_kept_alone_and_the_count_still_bounds() -> None:
    cache: LRU[str, bytes] = LRU(2, len, budget=10)
    cache.put("a", b"1")
    cache.put("big", b"x" * 50)  # the newest entry stays, alone
    assert list(cache.items) == ["big"] and cache.weight == 50
    cache.put("b", b"1")
    cache.put("c", b"1")  # two entries at most
    assert list(cache.items) == ["b", "c"] and cache.weight == 2
