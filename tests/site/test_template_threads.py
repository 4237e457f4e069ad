"""The site's templates rendered by many threads at once, as `ratingdb serve` renders them.

A template imported by others ({% from "macros.html" import … %}) is made into a module once and shared by
every thread; its macros run in that module's one context. A `{% autoescape %}` block in such a module
switches escaping for every thread's macros at once, and while it switches back the context has no escaping
setting at all: the served player page failed with "'EvalContext' object has no attribute 'autoescape'"
(6 of 2,344 pages under 50 clients on PostgreSQL). A template imported `with context` is made anew for
each page that imports it, in that page's context: it may switch escaping (calc_events.html does).
"""

from __future__ import annotations

import datetime as dt
import re
import sys
import threading
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from ratingdb.site.publish import environment

IMPORT = re.compile(r"""{%-?\s*(?:from|import)\s+["']([^"']+)["']([^%]*)%}""")


def _imported(with_context: bool) -> set[str]:
    """The templates other templates import, `with_context` or not."""
    env = environment("en")
    sources = [env.loader.get_source(env, name)[0] for name in env.list_templates()]  # type: ignore[union-attr]
    return {
        name
        for source in sources
        for name, rest in IMPORT.findall(source)
        if ("with context" in rest) == with_context
    }


def test_no_shared_template_changes_escaping() -> None:
    env = environment("en")
    imported = _imported(with_context=False)
    assert "macros.html" in imported
    assert "calc_events.html" in _imported(with_context=True)  # switches escaping off for its table
    assert "calc_events.html" not in imported
    for name in sorted(imported):
        source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
        assert not re.search(r"{%-?\s*autoescape", source), f"{name} is imported by other templates"


@pytest.fixture
def fast_switching() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns as often as the interpreter lets them
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def test_the_shared_macros_render_from_four_threads_at_once(fast_switching: None) -> None:
    env = environment("en")
    games = env.from_string(
        '{% from "calc_events.html" import calc_events with context %}{{ calc_events(events, "") }}'
    )
    site = SimpleNamespace(shared=lambda key, write, *values: write(*values))  # Site.shared, keeping nothing
    heads = env.from_string('{% from "macros.html" import headings %}{{ headings(columns) }}')
    event = SimpleNamespace(
        event_id=1, name="Open", start_date=dt.date(2025, 1, 4), end_date=dt.date(2025, 1, 5),
        ratings_from=dt.date(2025, 1, 1), note=None,
    )  # fmt: skip
    events = [(event, "", [(1, "<b>Bold</b>, A", None, 1, "I-1", 2000, 100, 0.64, 1, 0.36)])]
    columns = [SimpleNamespace(key="k", numeric=False, heading="Rating", symbol=False)] * 20
    errors: list[str] = []
    outputs: set[str] = set()

    def with_games() -> None:
        try:
            for _ in range(10_000):
                outputs.add(games.render(events=events, site=site))
        except Exception as exc:  # noqa: BLE001 - what a thread raised is the test's finding
            errors.append(repr(exc))

    def with_headings() -> None:
        try:
            for _ in range(10_000):
                heads.render(columns=columns)
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))

    threads = [threading.Thread(target=f) for f in (with_games, with_headings, with_games, with_headings)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(outputs) == 1  # every rendering the same, the opponent's name escaped in each
    assert "&lt;b&gt;Bold&lt;/b&gt;, A" in outputs.pop()
