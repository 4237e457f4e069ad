"""The JSON API reference page (tools/openapi_markdown.py) says what the OpenAPI document says."""

from __future__ import annotations

from tools.openapi_markdown import markdown, routes, type_of

PLAYER_OUT = "#/components/schemas/PlayerOut"
PERIOD = "^[0-9]{4}-[0-9]{2}$"
DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "ratingdb API", "version": "1", "description": 'Errors are `{"error": "<sentence>"}`.'},
    "paths": {
        "/api/v1/players/{key}": {
            "get": {
                "summary": "Player",
                "description": "One player: IDs, details and <b>names</b>.",
                "parameters": [
                    {
                        "name": "key",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "description": "FIDE ID, national ID, or id<N>."},
                    },
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}},
                    {
                        "name": "period",
                        "in": "query",
                        "schema": {"anyOf": [{"type": "string", "pattern": PERIOD}, {"type": "null"}]},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "Successful Response",
                        "content": {"application/json": {"schema": {"$ref": PLAYER_OUT}}},
                    },
                    "404": {"description": "No such player | list."},
                },
            }
        }
    },
    "components": {
        "schemas": {
            "PlayerOut": {
                "description": "A player.",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "description": "Last, First"},
                    "ratings": {"type": "array", "items": {"$ref": "#/components/schemas/EntryOut"}},
                },
            }
        }
    },
}


def test_each_call_gets_its_parameters_and_answers() -> None:
    page = markdown(DOCUMENT, "/api/v1/openapi.json")
    assert routes(DOCUMENT) == [("GET", "/api/v1/players/{key}")]
    assert "### `GET /api/v1/players/{key}`" in page
    # Prose is text: a tag in the document is shown, not interpreted; code spans stay as written.
    assert "One player: IDs, details and &lt;b&gt;names&lt;/b&gt;." in page
    assert 'Errors are `{"error": "<sentence>"}`.' in page
    assert "| `key` | path | string | yes | FIDE ID, national ID, or id&lt;N&gt;. |" in page
    assert "| `limit` | query | integer | no | (default `20`) |" in page
    assert "| `period` | query | string or null | no | (written as `^[0-9]{4}-[0-9]{2}$`) |" in page
    assert "| 200 | Successful Response — application/json: [PlayerOut](#playerout) |" in page
    assert "| 404 | No such player \\| list. |" in page


def test_each_answer_object_lists_its_fields() -> None:
    page = markdown(DOCUMENT, "/api/v1/openapi.json")
    assert "### PlayerOut\n\nA player.\n" in page
    assert "| `name` | string | Last, First |" in page
    assert "| `ratings` | list of [EntryOut](#entryout) | (may be absent) |" in page
    assert type_of({"type": "string", "format": "date"}) == "string (date)"
