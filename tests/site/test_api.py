"""The JSON API under /api/v1 on every engine: each call's status, content and headers, errors as one
sentence, paging, and the ETag / 304 of published list versions. Figures are the demo's (README, "The
demo"), the same the CLI prints (each test compares with the command where there is one).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ratingdb.cli import app as cli
from tests.site.test_publish import DOYLE, DOYLE_PAGE
from tests.site.web import client

runner = CliRunner()


@pytest.fixture(scope="module")
def api(demo_url: str) -> Iterator[TestClient]:
    with client(demo_url) as c:
        yield c


def test_the_openapi_document_lists_every_call(api: TestClient) -> None:
    response = api.get("/api/v1/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["info"]["title"] == "ratingdb API"
    assert set(document["paths"]) == {
        "/api/v1/players",
        "/api/v1/players/{key}",
        "/api/v1/players/{key}/history",
        "/api/v1/players/{key}/calculations",
        "/api/v1/players/{key}/live",
        "/api/v1/lists",
        "/api/v1/lists/{rating_type}/{list_date}",
        "/api/v1/lists/{rating_type}/{list_date}/csv",
        "/api/v1/lists/{rating_type}/{list_date}/bundle",
        "/api/v1/events",
        "/api/v1/events/{event_id}",
        "/api/v1/closes",
        "/api/v1/closes/{rating_type}/{period}",
        "/api/v1/live/{rating_type}",
    }
    # The pages are not API calls.
    assert not any(p.endswith(".html") for p in document["paths"])


def test_search_finds_by_name_misspelt_name_and_id(api: TestClient) -> None:
    found = api.get("/api/v1/players", params={"q": "doyle"}).json()
    assert [p["name"] for p in found["players"]] == ["Doyle, Cian", "Doyle, Patrick", "Doyle, Siobhán"]
    assert found["alike"] == 0
    typo = api.get("/api/v1/players", params={"q": "Patrik Doyle"}).json()
    assert typo["players"][0]["name"] == "Doyle, Patrick" and typo["alike"] == len(typo["players"])
    by_id = api.get("/api/v1/players", params={"q": str(DOYLE)}).json()
    assert [p["key"] for p in by_id["players"]] == ["10011"]  # his national ID, the page's name
    assert by_id["players"][0]["page"] == DOYLE_PAGE


def test_one_player_with_ids(api: TestClient) -> None:
    player = api.get(f"/api/v1/players/{DOYLE}").json()
    assert player == {
        "key": "10011",
        "fide_id": DOYLE,
        "national_id": player["national_id"],
        "name": "Doyle, Patrick",
        "title": None,
        "federation": "IRL",
        "sex": "M",
        "birth_year": player["birth_year"],
        "page": DOYLE_PAGE,
        "aliases": [],
        "deceased": False,
    }
    # The national ID (his key) finds the same player, and so does fide-<FIDE ID>.
    assert api.get(f"/api/v1/players/{player['national_id']}").json()["fide_id"] == DOYLE
    assert api.get(f"/api/v1/players/fide-{DOYLE}").json()["key"] == "10011"


def test_history_is_every_list_as_the_player_command_shows(api: TestClient) -> None:
    history = api.get(f"/api/v1/players/{DOYLE}/history", params={"type": "standard"}).json()
    assert [(e["list_date"], e["rating"], e["change"], e["games"]) for e in history["entries"]] == [
        ("2025-09-01", 1846, None, 0),
        ("2025-10-01", 1846, 0, 0),
        ("2025-11-01", 1901, 55, 39),
        ("2025-12-01", 1901, 0, 0),
    ]


def test_the_calculation_is_the_calculation_command_s(api: TestClient, demo_url: str) -> None:
    calcs = api.get(f"/api/v1/players/{DOYLE}/calculations", params={"type": "standard"}).json()
    october = next(c for c in calcs["calculations"] if c["period"] == "2025-10")
    command = runner.invoke(cli, ["--db", demo_url, "calculation", str(DOYLE), "2025-10"]).stdout.splitlines()
    assert october["summary"] == command[1:3]
    first = october["events"][0]
    assert (
        first["ro"],
        first["rc"],
        first["n"],
        first["score"],
        first["sum_score_minus_pd"],
        first["k"],
    ) == (
        1846,
        "1801.78",
        9,
        "5.00",
        "+0.02",
        17,
    )
    assert first["games"][0] == {
        "round": 1,
        "opponent": "Duffy, James",
        "opponent_fide_id": 25900087,
        "opponent_national_id": "10087",
        "opponent_rating": 1840,
        "own_rating": 1846,
        "d": 6,
        "pd": "0.51",
        "score": "0.00",
    }
    assert sum(len(e["games"]) for e in october["events"]) == 39


def test_lists_index_and_one_version_paged(api: TestClient, demo_url: str) -> None:
    index = api.get("/api/v1/lists", params={"type": "standard"}).json()["lists"]
    assert [(v["list_date"], v["version"], v["state"], v["origin"]) for v in index] == [
        ("2025-12-01", 1, "current", "computed"),
        ("2025-11-01", 1, "current", "computed"),
        ("2025-10-01", 1, "current", "computed"),
        ("2025-09-01", 1, "current", "imported"),
    ]
    page = api.get("/api/v1/lists/standard/2025-12-01", params={"per_page": 50, "page": 2}).json()
    assert (page["total"], page["pages"], page["page"], page["per_page"]) == (300, 6, 2, 50)
    assert [e["rank"] for e in page["entries"]] == list(range(51, 101))
    # The same entries, in the same order, as `ratingdb list --format json`.
    listed = json.loads(
        runner.invoke(cli, ["--db", demo_url, "list", "2025-12-01", "--format", "json"]).stdout
    )
    assert [e["name"] for e in page["entries"]] == [e["name"] for e in listed[50:100]]
    last = api.get("/api/v1/lists/standard/2025-12-01", params={"per_page": 50, "page": 6}).json()
    assert [e["rank"] for e in last["entries"][-7:]] == [None] * 7


def test_a_list_version_is_cached_and_answers_304(api: TestClient) -> None:
    url = "/api/v1/lists/standard/2025-11-01"
    versioned = api.get(url, params={"version": 1})
    assert versioned.status_code == 200
    etag = versioned.headers["etag"]
    assert versioned.headers["cache-control"] == "public, max-age=31536000, immutable"
    again = api.get(url, params={"version": 1}, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    # Another page is another representation; the current version is cached briefly (a reopen moves it).
    assert api.get(url, params={"version": 1, "page": 2}).headers["etag"] != etag
    current = api.get(url)
    assert current.headers["cache-control"] == "public, max-age=60"
    assert api.get(url, params={"version": 1}, headers={"if-none-match": '"other"'}).status_code == 200


def test_the_csv_is_the_list_command_s(api: TestClient, demo_url: str) -> None:
    response = api.get("/api/v1/lists/standard/2025-11-01/csv")
    assert response.status_code == 200 and response.headers["content-type"] == "text/csv; charset=utf-8"
    assert (
        response.text
        == runner.invoke(cli, ["--db", demo_url, "list", "2025-11-01", "--format", "csv"]).stdout
    )
    assert len(list(csv.DictReader(io.StringIO(response.text)))) == 300
    etag = response.headers["etag"]
    assert (
        api.get("/api/v1/lists/standard/2025-11-01/csv", headers={"if-none-match": etag}).status_code == 304
    )


def test_events_and_one_event(api: TestClient) -> None:
    events = api.get("/api/v1/events", params={"type": "standard", "period": "2025-11"}).json()["events"]
    assert [e["name"] for e in events] == ["Halloween Open", "Cork Congress", "Irish Seniors Championship"]
    assert all(e["rated"] for e in events)
    masters = api.get("/api/v1/events/7").json()
    assert masters["name"] == "Irish Masters" and len(masters["players"]) == 10
    assert masters["list_date"] is not None


def test_closes_and_one_close(api: TestClient, demo_url: str) -> None:
    closes = api.get("/api/v1/closes", params={"type": "standard"}).json()["closes"]
    assert [(c["period"], c["list_date"]) for c in closes] == [
        ("2025-11", "2025-12-01"),
        ("2025-10", "2025-11-01"),
        ("2025-09", "2025-10-01"),
    ]
    october = api.get("/api/v1/closes/standard/2025-10").json()
    assert october["list_date"] == "2025-11-01" and october["in_force_date"] == "2025-10-01"
    doyle = next(m for m in october["gains"] if m["fide_id"] == DOYLE)
    assert (doyle["before"], doyle["after"], doyle["change"], doyle["games"]) == (1846, 1901, 55, 39)


def test_live_ratings_with_nothing_imported_since_equal_the_list_in_force(api: TestClient) -> None:
    live = api.get("/api/v1/live/standard", params={"per_page": 300}).json()
    assert live["provisional"] is True and live["notice"] == "provisional — not an official rating"
    assert live["in_force"] == "2025-12-01" and live["periods"] == [] and live["events"] == []
    assert all(e["rating"] == e["official"] and e["games"] == 0 for e in live["entries"])
    mine = api.get(f"/api/v1/players/{DOYLE}/live").json()
    assert mine["provisional"] is True and mine["player"]["fide_id"] == DOYLE
    assert [(r["rating_type"], r["official"], r["rating"], r["change"]) for r in mine["ratings"]] == [
        ("standard", 1901, 1901, 0),
        *[(r["rating_type"], r["official"], r["rating"], 0) for r in mine["ratings"][1:]],
    ]


def test_errors_are_one_sentence_in_json(api: TestClient) -> None:
    cases = {
        "/api/v1/players/99999999": (
            404,
            "no player has FIDE ID or national ID '99999999': search by name on the home page",
        ),
        "/api/v1/lists/standard/2031-01-01": (
            404,
            "there is no standard list dated 2031-01-01: /api/v1/lists lists them",
        ),
        "/api/v1/lists/standard/2025-11-01?version=9": (
            404,
            "there is no standard list dated 2025-11-01 version 9: /api/v1/lists lists them",
        ),
        "/api/v1/events/999": (404, "there is no event 999: /api/v1/events lists them"),
        "/api/v1/closes/standard/2025-13": (
            400,
            "'2025-13' is not a rating period: write it as YYYY-MM, for example 2025-10",
        ),
        "/api/v1/lists/standard/yesterday": (
            400,
            "'yesterday' is not a date: write it as YYYY-MM-DD, e.g. 2025-11-01",
        ),
        "/api/v1/players/25900011/history?type=" + "x" * 30: (
            400,
            "type is longer than 20 characters — shorten it",
        ),
        "/api/v1/players?q=": (400, "q is empty — give it a value"),
        "/api/v1/lists/standard/2025-12-01?page=0": (400, "page is 0, less than 1 — write 1 or more"),
        "/api/v1/players?q=doyle%00": (
            400,
            "the address holds a NUL character (%00), which no page, name or ID contains — remove it",
        ),
        "/api/v1/live/bullet": (404, "this site has no bullet list, so no live ratings"),
        # A misspelt type is refused, not answered with nothing found.
        "/api/v1/players/25900011/history?type=standrad": (
            404,
            "this site has no standrad lists: /api/v1/lists lists the lists it has",
        ),
        "/api/v1/events?type=standrad": (
            404,
            "this site has no standrad lists: /api/v1/lists lists the lists it has",
        ),
        "/api/v1/closes/standard/2025-12": (
            404,
            "period 2025-12 of the standard lists is not closed: /api/v1/closes lists the closes",
        ),
    }
    for path, (status, message) in cases.items():
        response = api.get(path)
        assert response.status_code == status, path
        assert response.headers["content-type"] == "application/json"
        assert response.json() == {"error": message}, path


def test_a_digit_that_is_not_ascii_is_searched_as_text_not_read_as_an_id(demo_url: str) -> None:
    # '¹'.isdigit() is true but int('¹') fails: the search answered 500 (schemathesis found it).
    with client(demo_url) as api:
        for query in ("¹", "²5900011", "٣"):
            response = api.get("/api/v1/players", params={"q": query})
            assert response.status_code in (200, 400), (query, response.text)


def test_a_glicko2_list_carries_rating_deviation_volatility_and_the_provisional_mark(demo_url: str) -> None:
    # The demo's club list by Glicko-2 (served with RATINGDB_TYPES=standard,club): the same figures as
    # `ratingdb list --type club --format csv`.
    with client(demo_url, rating_types=("standard", "club")) as api:
        _check_glicko2_list(api, demo_url)


def _check_glicko2_list(api: TestClient, demo_url: str) -> None:
    page = api.get("/api/v1/lists/club/2025-12-01", params={"per_page": 5}).json()
    first = page["entries"][0]
    assert (first["name"], first["rating"], first["glicko2_rating"], first["deviation"]) == (
        "Kovalenko, Dmytro", 2693, 2692.65, 58.5
    )  # fmt: skip
    assert first["provisional"] is False and 0.05 < first["volatility"] < 0.07
    exported = runner.invoke(
        cli, ["--db", demo_url, "list", "2025-12-01", "--type", "club", "--format", "csv"]
    )
    assert exported.stdout.splitlines()[0].endswith(",rating,deviation,volatility")
    assert api.get("/api/v1/lists/club/2025-12-01/csv").text == exported.stdout
    # An Elo list has none of them.
    elo = api.get("/api/v1/lists/standard/2025-12-01", params={"per_page": 1}).json()["entries"][0]
    assert (elo["glicko2_rating"], elo["deviation"], elo["volatility"], elo["provisional"]) == (None,) * 4


def test_a_glicko_list_carries_rating_deviation_and_the_provisional_mark(demo_url: str) -> None:
    # The demo's league list by Glicko (served with RATINGDB_TYPES=standard,league): the same figures as
    # `ratingdb list --type league --format csv`, which is the Glicko list format (no volatility).
    exported = runner.invoke(
        cli, ["--db", demo_url, "list", "2025-12-01", "--type", "league", "--format", "csv"]
    ).stdout.splitlines()
    assert exported[0] == "fide_id,national_id,name,federation,sex,title,birth_year,rating,deviation"
    fide_id, _nid, _name, *_rest, rating, deviation = next(csv.reader([exported[1]]))
    with client(demo_url, rating_types=("standard", "league")) as api:
        first = api.get("/api/v1/lists/league/2025-12-01", params={"per_page": 1}).json()["entries"][0]
        assert (str(first["fide_id"]), first["exact_rating"], first["deviation"]) == (
            fide_id, float(rating), float(deviation)
        )  # fmt: skip
        assert first["glicko2_rating"] is None and first["volatility"] is None
        assert first["provisional"] is (float(deviation) > 110)  # the league's provisional_deviation
        assert api.get("/api/v1/lists/league/2025-12-01/csv").text.splitlines() == exported
