"""The JSON API reference page, written from the API's own OpenAPI document (no MkDocs import here).

tools/docs_hooks.py asks the web app for its document at build time and publishes `markdown(document)`
as reference/api.md, so the page always matches the routes and response models of the checkout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

INTRO = """# JSON API

Every call of the JSON API that `ratingdb serve` answers, written at build time from the API's own
OpenAPI document (`{openapi_url}` on a running server), so this page matches the routes and answers of
the version it was built from. [Serving the site](../guide/serving.md) says how to run it.

{description}
"""


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def type_of(schema: dict[str, Any]) -> str:
    """A schema as a reader would say it: `integer`, `string (date)`, `list of PlayerOut`, `A or null`."""
    name = _ref_name(schema)
    if name:
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(type_of(s) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {type_of(schema.get('items', {}))}"
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    fmt = schema.get("format")
    return f"{kind} ({fmt})" if fmt else str(kind)


def _text(text: str) -> str:
    """Prose from the document, safe in Markdown: `<N>` is text, not an HTML tag (code spans kept)."""
    parts = " ".join(text.split()).split("`")
    return "`".join(p if i % 2 else p.replace("<", "&lt;").replace(">", "&gt;") for i, p in enumerate(parts))


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|")


def _parameters(operation: dict[str, Any]) -> list[str]:
    rows = operation.get("parameters", [])
    if not rows:
        return []
    out = ["| parameter | in | type | required | what |", "|---|---|---|---|---|"]
    for p in rows:
        schema = p.get("schema", {})
        what = p.get("description") or schema.get("description") or ""
        if "default" in schema:
            what = f"{what} (default `{schema['default']}`)".strip()
        patterns = [s["pattern"] for s in [schema, *schema.get("anyOf", [])] if "pattern" in s]
        pattern = patterns[0] if patterns else None
        if pattern:
            what = f"{what} (written as `{pattern}`)".strip()
        out.append(
            f"| `{p['name']}` | {p['in']} | {type_of(schema)} | {'yes' if p.get('required') else 'no'} "
            f"| {_cell(what)} |"
        )
    return [*out, ""]


def _responses(operation: dict[str, Any]) -> list[str]:
    out = ["| status | answer |", "|---|---|"]
    for status, response in sorted(operation.get("responses", {}).items()):
        content = response.get("content", {})
        bodies = [
            f"{kind}: {type_of(body.get('schema', {}))}" if body.get("schema") else kind
            for kind, body in content.items()
        ]
        answer = response.get("description", "")
        if bodies:
            answer = f"{answer} — {'; '.join(bodies)}"
        out.append(f"| {status} | {_cell(answer)} |")
    return [*out, ""]


def _schemas(document: dict[str, Any]) -> list[str]:
    schemas = document.get("components", {}).get("schemas", {})
    out: list[str] = []
    for name, schema in sorted(schemas.items()):
        out += [f"### {name}", ""]
        if schema.get("description"):
            out += [_text(schema["description"]), ""]
        properties = schema.get("properties", {})
        if properties:
            required = set(schema.get("required", []))
            out += ["| field | type | what |", "|---|---|---|"]
            for field, prop in properties.items():
                what = " ".join([prop.get("description", ""), "" if field in required else "(may be absent)"])
                out.append(f"| `{field}` | {type_of(prop)} | {_cell(what)} |")
            out.append("")
    return out


def routes(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(METHOD, path) of every call the document describes."""
    return [(method.upper(), path) for path, ops in document.get("paths", {}).items() for method in ops]


def markdown(document: dict[str, Any], openapi_url: str) -> str:
    """The whole reference page for an OpenAPI document."""
    info = document.get("info", {})
    out = [INTRO.format(openapi_url=openapi_url, description=_text(info.get("description", "")))]
    out += ["## Calls", ""]
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            out += [f"### `{method.upper()} {path}`", ""]
            summary = operation.get("description") or operation.get("summary") or ""
            if summary:
                out += [_text(summary), ""]
            out += _parameters(operation)
            out += _responses(operation)
    out += ["## Answers", "", "The objects the calls answer with, by name.", ""]
    out += _schemas(document)
    return "\n".join(out).rstrip() + "\n"


def api_document() -> dict[str, Any] | None:
    """The web app's OpenAPI document, from an app on a new, migrated SQLite file; None without the app."""
    import tempfile

    try:
        from ratingdb.web.app import create_app
        from ratingdb.web.state import WebSettings
    except ImportError:
        return None
    from ratingdb import db

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'schema.sqlite'}"
        engine = db.make_engine(url)
        try:
            db.upgrade(engine)
        finally:
            engine.dispose()
        document: dict[str, Any] = create_app(WebSettings(url=url)).openapi()
    return document
