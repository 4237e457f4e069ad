"""schemathesis against the API's own OpenAPI document: generated requests for every call, and each
answer must not be a server error and must match the document (status, content type, schema).

On the demo federation on SQLite (the engines' answers are compared by tests/site/test_api.py), with
fewer examples than schemathesis's default, since the suite runs on a shared machine. (schemathesis's
pytest plugin does not run under this pytest, so each operation's strategy is driven by Hypothesis here.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from ratingdb.web.app import create_app
from ratingdb.web.state import WebSettings


def checked(operation: Any) -> Callable[[], None]:
    # A search text without a letter or digit ("\x17", "--") is refused with a sentence (400), as
    # `ratingdb player find` refuses it; OpenAPI's patterns cannot say "a Unicode letter or digit", so
    # the document allows it and only this one check is left out, for the search only.
    excluded = [positive_data_acceptance] if operation.path.endswith("/players") else []

    @given(case=operation.as_strategy())
    # derandomize: the same examples every run (a seed drawn anew each run once found a value the document
    # allowed and the API refused, a NUL in `type` — issue 54: CI must not depend on a random seed). The
    # document now says what each text may hold (web.api.TEXT), so no seed can draw such a value.
    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,
    )
    def answers(case: schemathesis.Case) -> None:
        case.call_and_validate(excluded_checks=excluded)

    return answers  # type: ignore[no-any-return]


def test_every_call_answers_as_its_document_says(demo_sqlite_url: str) -> None:
    app = create_app(WebSettings(url=demo_sqlite_url))
    try:
        schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", app)
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) == 14
        for operation in operations:
            try:
                checked(operation)()
            except Exception as exc:
                pytest.fail(f"{operation.method.upper()} {operation.path}: {exc}")
    finally:
        app.state.ratingdb.database.dispose()
