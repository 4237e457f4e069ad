"""`ratingdb serve`: the served pages on every engine — the same pages as `publish`, search, paging,
downloads, errors, security headers and limits, and the proof that a public request cannot write.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, inspect, text
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app as cli
from ratingdb.web.deps import Reader
from ratingdb.web.security import CONTENT_SECURITY_POLICY
from tests.site.conftest import publish
from tests.site.test_publish import DOYLE, DOYLE_PAGE, files, moved, parse, rows, text_of
from tests.site.web import client, without_marked_parts

LIST = "/lists/standard-2025-12-01.html"


@pytest.fixture(scope="module")
def served(demo_url: str) -> Iterator[TestClient]:
    with client(demo_url, title="Demo Chess Federation") as c:
        yield c


def test_every_static_file_is_the_served_page_at_the_same_address(
    demo_url: str, served: TestClient, tmp_path: Path
) -> None:
    folder = tmp_path / "www"
    publish(demo_url, folder, "--title", "Demo Chess Federation")
    published = files(folder)
    assert len(published) > 300
    redirects = moved(published)
    for relative, content in published.items():
        if relative in redirects:
            # The page the static site leaves at an old address is an HTTP redirect when served.
            response = served.get(f"/{relative}", follow_redirects=False)
            assert response.status_code == 301, relative
            assert f"players/{response.headers['location']}" == redirects[relative], relative
            continue
        # A served list page is paged: a page as long as the list shows all of it, as the static page does.
        query = "?per_page=1000" if relative.startswith("lists/") and relative.endswith(".html") else ""
        response = served.get(f"/{relative}{query}")
        assert response.status_code == 200, relative
        assert without_marked_parts(response.content) == without_marked_parts(content), relative
    # What the served pages add is marked, and there is some: the search box and the live link.
    home = served.get("/").content
    assert b"<!--served-->" in home and without_marked_parts(home) != home


def test_the_home_page_has_a_search_box_that_finds_a_misspelt_name(served: TestClient) -> None:
    home = parse(served.get("/").content)
    form = home.find(".//form[@class='search']")
    assert form is not None and form.get("action") == "search" and form.get("method") == "get"
    assert form.find(".//input[@name='q']") is not None
    # "Patrik Doyle": no player has the word "patrik", so only names spelt alike are offered.
    page = parse(served.get("/search", params={"q": "Patrik Doyle"}).content)
    table = page.find(".//table[@class='found']")
    assert table is not None
    names = [r[0] for r in rows(table)]
    assert names[0] == "Doyle, Patrick"
    link = table.find("tbody/tr/td/a")
    assert link is not None and link.get("href") == DOYLE_PAGE
    # Then the players matching one word of the two (issue 47): the other Doyles (50), and the Pádraigs
    # ("patrik" and "patrick" fold alike; Pádraig is Patrick's Irish form: 95, mean 47.5).
    assert names == ["Doyle, Patrick", "Doyle, Cian", "Doyle, Siobhán", "Ó Briain, Pádraig", "Lynch, Pádraig"]
    assert text_of(page.find(".//main/p")) == (  # type: ignore[arg-type]
        "5 players match “Patrik Doyle”; the last 5 only have a name spelt alike."
    )
    # An exact word finds by the register's own search; an ID finds the player.
    by_id = parse(served.get("/search", params={"q": str(DOYLE)}).content)
    assert [r[0] for r in rows(by_id.find(".//table[@class='found']"))] == ["Doyle, Patrick"]  # type: ignore[arg-type]
    nothing = parse(served.get("/search", params={"q": "Zzyzx"}).content)
    assert "No player matches “Zzyzx”" in text_of(nothing.find(".//main/p"))  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["doyel", "Patrik Doyle", "10011", str(DOYLE), "siobhan doyle"])
def test_the_search_box_finds_what_player_find_finds_in_the_same_order(
    served: TestClient, demo_url: str, text: str
) -> None:
    # The register's scored search, the same as `ratingdb player find`: a misspelt name ("doyel"), a
    # national ID (10011), a FIDE ID, words in any order and without the accent.
    result = CliRunner().invoke(
        cli, ["--db", demo_url, "player", "find", text, "--format", "csv", "--limit", "20"]
    )
    assert result.exit_code == 0, result.output
    expected = [row["name"] for row in csv.DictReader(io.StringIO(result.output))]
    page = parse(served.get("/search", params={"q": text}).content)
    table = page.find(".//table[@class='found']")
    assert table is not None and expected
    assert [r[0] for r in rows(table)] == expected


def test_a_list_page_is_paged_sorted_and_filtered_by_the_server(served: TestClient) -> None:
    first = parse(served.get(LIST).content)
    table = first.find(".//table[@id='list']")
    assert table is not None
    lines = rows(table)
    assert len(lines) == 100 and lines[0][:3] == ["1", "GM", "Kovalenko, Dmytro"]
    assert text_of(first.find(".//p[@id='shown']")) == "300 of 300 players, page 1 of 3"  # type: ignore[arg-type]
    nxt = first.find(".//nav[@class='pager']/a[@rel='next']")
    assert nxt is not None and nxt.get("href") == "?page=2"
    third = rows(parse(served.get(LIST, params={"page": 3}).content).find(".//table[@id='list']"))  # type: ignore[arg-type]
    assert len(third) == 100 and [r[0] for r in third[-7:]] == [""] * 7  # the 7 unrated last
    # The three Doyles, by name (accents and case ignored), as the static page's filter finds them.
    doyles = rows(parse(served.get(LIST, params={"name": "DOYLE"}).content).find(".//table[@id='list']"))  # type: ignore[arg-type]
    assert [(r[2], r[6]) for r in doyles] == [
        ("Doyle, Siobhán", "1908"),
        ("Doyle, Patrick", "1901"),
        ("Doyle, Cian", "1819"),
    ]
    by_rating = rows(
        parse(served.get(LIST, params={"sort": "rating", "per_page": 1000}).content).find(
            ".//table[@id='list']"
        )  # type: ignore[arg-type]
    )
    ratings = [int(r[6]) for r in by_rating if r[6]]
    assert ratings == sorted(ratings) and len(ratings) == 293 and by_rating[-1][6] == ""
    women = rows(
        parse(served.get(LIST, params={"group": "women", "per_page": 1000}).content).find(
            ".//table[@id='list']"
        )
    )  # type: ignore[arg-type]
    assert women and all(r[4] == "F" for r in women)
    # Without JavaScript the form works: it is a plain GET form, not hidden.
    form = first.find(".//form[@id='query']")
    assert form is not None and form.get("hidden") is None and form.get("method") == "get"
    assert first.find(".//script") is None


def test_the_downloads_are_the_list_files_with_long_cache_headers(served: TestClient, demo_url: str) -> None:
    for fmt, suffix in (("csv", "csv"), ("fide-txt", "txt")):
        result = CliRunner().invoke(cli, ["--db", demo_url, "list", "2025-11-01", "--format", fmt])
        response = served.get(f"/lists/standard-2025-11-01.{suffix}")
        assert response.status_code == 200
        assert response.text == result.stdout
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"


def test_the_player_page_explains_d_and_pd_in_place(served: TestClient) -> None:
    page = parse(served.get(f"/{DOYLE_PAGE}").content)
    assert text_of(page.find(".//h1")) == "Doyle, Patrick"  # type: ignore[arg-type]
    note = page.find(".//p[@class='note']")
    assert note is not None and text_of(note).startswith("D: the rating difference")
    assert "PD: the expected score" in text_of(note)


def test_a_player_pages_calculations_are_read_for_every_close_at_once(served: TestClient) -> None:
    # The page shows every close of the site: each close's calculation and games not counted are read
    # for all the closes at once, a few statements in all; asking each close, as the page did, took two
    # statements a close that did not rate the player and eleven one that did (two hundred for a player of
    # 24 closes: bench/RESULTS.md, issue 28). Doyle has games not counted, so every query is needed.
    from ratingdb.site.publish import player_calculations, player_not_rated
    from ratingdb.site.served import player_by_key

    state = served.app.state.ratingdb  # type: ignore[attr-defined]
    sent: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        sent.append(statement)

    with state.database.read() as session:
        site = state.site(session, 0, "en")
        closes = [lst for lst in site.current if lst.origin == "computed"]
        doyle = player_by_key(session, DOYLE_PAGE.removeprefix("players/").removesuffix(".html"))
        event.listen(state.database.reader, "before_cursor_execute", count)
        try:
            calculations = player_calculations(session, site, doyle)
            not_rated = player_not_rated(session, site, doyle)
        finally:
            event.remove(state.database.reader, "before_cursor_execute", count)
    # The demo closes three months of five types, Glicko's league too: 15 closes.
    assert len(closes) == 15 and calculations and not_rated
    assert len(sent) <= 11, sent


def test_unknown_pages_and_bad_parameters_get_one_sentence_and_no_details(served: TestClient) -> None:
    cases = {
        "/players/99999999.html": (404, "Error: no player has FIDE ID or national ID '99999999'"),
        "/lists/standard-2031-01-01.html": (404, "Error: there is no list standard-2031-01-01"),
        "/events/999.html": (404, "Error: there is no event 999"),
        "/periods/standard-2031-01.html": (404, "Error: there is no close standard-2031-01"),
        "/nowhere": (404, "Error: there is nothing at /nowhere"),
        "/static/../../etc/passwd": (404, "Error: there is nothing at"),
        "/lists/standard-2025-12-01.html?page=0": (400, "Error: page is 0, less than 1 — write 1 or more"),
        "/lists/standard-2025-12-01.html?page=abc": (
            400,
            "Error: page is 'abc', which is not a whole number — write digits only",
        ),
        "/lists/standard-2025-12-01.html?per_page=100000": (
            400,
            "Error: per_page is 100000, more than 1000 — write 1000 or less",
        ),
        "/lists/standard-2025-12-01.html?federation=XXXX": (
            400,
            "Error: federation is longer than 3 characters — shorten it",
        ),
        "/lists/standard-2025-12-01.html?active=maybe": (
            400,
            "Error: active is 'maybe', which is neither yes nor no — write active=1 or active=0",
        ),
        "/lists/standard-2025-12-01.html?page=": (400, "Error: page is empty — give it a value"),
        "/lists/standard-2025-12-01.html?sort=evil": (400, "Error: 'evil' is not a column to sort by"),
        "/lists/standard-2025-12-01.html?page=99": (404, "Error: there is no page 99: the last page is 3"),
        f"{LIST}?page=2&name=zzzz": (404, "Error: there is no page 2: the last page is 1"),
        # An address whose number does not parse names no page.
        "/events/abc.html": (404, "Error: there is nothing at /events/abc.html"),
    }
    for path, (status, sentence) in cases.items():
        response = served.get(path)
        assert response.status_code == status, path
        body = text_of(parse(response.content).find(".//main"))  # type: ignore[arg-type]
        assert sentence in body, (path, body)
        assert "Traceback" not in response.text and "SELECT" not in response.text


def test_every_response_carries_the_security_headers(served: TestClient) -> None:
    for path in ("/", LIST, f"/{DOYLE_PAGE}", "/static/site.css", "/nowhere", "/api/v1/lists"):
        headers = served.get(path).headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert (
            "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe-inline" not in CONTENT_SECURITY_POLICY
        )
        assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"


def test_no_page_holds_an_inline_script_or_style(served: TestClient) -> None:
    for path in ("/", LIST, f"/{DOYLE_PAGE}", "/events/7.html", "/live/standard.html"):
        tree = parse(served.get(path).content)
        assert all(s.get("src") for s in tree.iter("script")), path  # scripts are files, never inline
        assert not any(e.get("style") for e in tree.iter()), path
        assert not list(tree.iter("style")), path


def test_long_queries_large_bodies_and_writes_are_refused(served: TestClient) -> None:
    long = served.get("/search", params={"q": "x" * 3000})
    assert (
        long.status_code == 414 and long.text == "Error: the query is longer than 2048 bytes — shorten it\n"
    )
    big = served.post("/", content=b"x" * 20_000)
    assert big.status_code == 413
    post = served.post("/", content=b"x")
    assert post.status_code == 405
    assert "Error: POST is not allowed here: the public site only reads (GET)" in post.text
    head = served.head(LIST)
    assert head.status_code == 200 and head.content == b""


def test_a_bug_is_a_generic_page_with_the_details_in_the_log(
    demo_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with client(demo_url) as c:
        app: FastAPI = c.app  # type: ignore[assignment]

        @app.get("/boom")
        def boom(session: Reader) -> None:
            session.execute(text("SELECT no_such_column FROM player WHERE name = 'secret'"))

        with caplog.at_level(logging.ERROR, logger="ratingdb.web"):
            response = c.get("/boom")
            api = c.get("/api/v1/lists")  # still answering
    assert response.status_code == 500
    assert "Error: internal error: the site could not answer this request" in response.text
    for leak in ("no_such_column", "secret", "SELECT", "Traceback", "sqlite"):
        assert leak not in response.text
    assert api.status_code == 200
    assert "no_such_column" in caplog.text  # the details are in the log


def test_a_public_request_cannot_write(demo_url: str) -> None:
    """A route handed the public session tries to write: the database refuses, nothing changes."""
    attempts = {
        "update": "UPDATE player SET name = 'Hacked' WHERE fide_id = 25900011",
        "insert": "INSERT INTO audit_log (action, detail, actor, command) VALUES ('x', 'x', 'x', 'x')",
        "delete": "DELETE FROM list_entry",
        "create": "CREATE TABLE hacked (id INTEGER)",
    }
    with client(demo_url) as c:
        app: FastAPI = c.app  # type: ignore[assignment]

        @app.get("/write/{kind}")
        def write(kind: str, session: Reader) -> dict[str, str]:
            session.execute(text(attempts[kind]))
            session.commit()
            return {"written": kind}

        for kind in attempts:
            response = c.get(f"/write/{kind}")
            assert response.status_code == 500, kind
            assert "Error: internal error" in response.text, kind
    engine = db.make_engine(demo_url)
    try:
        with engine.connect() as conn:
            assert conn.scalar(text("SELECT name FROM player WHERE fide_id = 25900011")) == "Doyle, Patrick"
            assert conn.scalar(text("SELECT COUNT(*) FROM audit_log WHERE action = 'x'")) == 0
            assert conn.scalar(text("SELECT COUNT(*) FROM list_entry")) > 0
        assert "hacked" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_the_search_box_and_the_list_filter_find_a_player_by_an_alias(
    demo_sqlite_url: str, tmp_path: Path
) -> None:
    # A member knows Patrick Doyle as "Pádraig Ó Dúill" (recorded as an alias, as --accept-name or a merge
    # records one): a spelling sharing no word with his name. On SQLite only: the alias is read by the
    # same ORM query on every engine, and the demo is built once per engine for the other tests.
    path = tmp_path / "demo.sqlite"
    path.write_bytes(Path(demo_sqlite_url.removeprefix("sqlite:///")).read_bytes())
    url = f"sqlite:///{path}"
    edit = CliRunner().invoke(
        cli,
        [
            "--db",
            url,
            "player",
            "edit",
            str(DOYLE),
            "--add-alias",
            "Ó Dúill, Pádraig",
            "--reason",
            "Irish form",
        ],
    )
    assert edit.exit_code == 0, edit.output
    with client(url, title="Demo Chess Federation") as served:
        # The search box (the register's search): the alias's words, without accents, find him.
        page = parse(served.get("/search", params={"q": "padraig o duill"}).content)
        table = page.find(".//table[@class='found']")
        assert table is not None
        # Then, matching two of the three words ("padraig", "o"): Ó Briain, Pádraig (issue 47).
        assert [r[0] for r in rows(table)] == ["Doyle, Patrick", "Ó Briain, Pádraig"]
        # The list page's name filter, served: the alias finds his row too.
        found = parse(served.get(LIST, params={"name": "dúill"}).content).find(".//table[@id='list']")
        assert found is not None and [(r[2], r[6]) for r in rows(found)] == [("Doyle, Patrick", "1901")]
    # The static list page carries the alias on his row, for the page's script (tests/site/test_browser.py).
    folder = tmp_path / "www"
    publish(url, folder, "--title", "Demo Chess Federation")
    static = parse((folder / LIST.lstrip("/")).read_bytes()).find(".//table[@id='list']")
    assert static is not None
    marked = [
        (text_of(tr.findall("td")[2]), tr.get("data-aka"))
        for tr in static.findall("tbody/tr")
        if tr.get("data-aka")
    ]
    assert marked == [("Doyle, Patrick", "Ó Dúill, Pádraig")]


def test_the_home_page_reads_only_the_latest_close_of_each_type(
    served: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The home page names every close and shows the latest of each type: reading every close's report
    # for it took 10 s at national on the first visit after a change (bench/RESULTS.md, issue 28).
    from ratingdb.site import publish
    from ratingdb.site import served as served_pages

    state = served.app.state.ratingdb  # type: ignore[attr-defined]
    read: list[tuple[str, str]] = []
    report = publish.period_report

    def counted(session: object, period: object, rating_type: str, **kwargs: object) -> object:
        read.append((str(period), rating_type))
        return report(session, period, rating_type, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(publish, "period_report", counted)
    with state.database.read() as session:
        site = state.site(session, 0, "en")
        page = served_pages.home(session, site).decode()
        closes = [lst for lst in site.current if lst.origin == "computed" and lst.period]
    latest = {lst.rating_type: lst.period for lst in sorted(closes, key=lambda lst: lst.list_date)}
    assert len(closes) == 15 and len(latest) < len(closes)
    assert sorted(read) == sorted((period, kind) for kind, period in latest.items())
    for lst in closes:  # and every close is still linked
        assert f'href="periods/{lst.rating_type}-{lst.period}.html"' in page


def test_two_whole_lists_are_joined_with_hash_joins_on_postgresql(demo_url: str) -> None:
    # PostgreSQL estimates a list written since its statistics were gathered at one row and rescanned the
    # other list for each entry (the served home page's period reports took minutes a close on the serve
    # bench's database); the period report, the list comparison and the close's counts turn nested loops
    # off for their one statement, and the transaction's setting is back afterwards.
    if not demo_url.startswith("postgresql"):
        pytest.skip("the planner's setting is PostgreSQL's")
    from ratingdb import engines

    engine = db.read_only_engine(demo_url)
    try:
        with db.read_transaction(engine) as session:
            setting = "SELECT current_setting('enable_nestloop')"
            assert session.scalar(text(setting)) == "on"
            with engines.of(session).whole_lists_joined(session):
                assert session.scalar(text(setting)) == "off"
            assert session.scalar(text(setting)) == "on"
    finally:
        engine.dispose()


def test_the_public_reader_plans_with_a_low_random_page_cost_on_postgresql(demo_url: str) -> None:
    # At PostgreSQL's default of 4 the planner joined a player's games to their opponents by hashing every
    # player (5.7 ms instead of 0.65 ms a page on the serve bench); the reader's sessions use 1.1, and the
    # officer's engine keeps the server's setting.
    if not demo_url.startswith("postgresql"):
        pytest.skip("the planner's setting is PostgreSQL's")
    from ratingdb.engines.postgresql import READER_RANDOM_PAGE_COST

    setting = text("SELECT current_setting('random_page_cost')")
    reader, writer = db.read_only_engine(demo_url), db.make_engine(demo_url)
    try:
        with db.read_transaction(reader) as session:
            assert float(session.scalar(setting)) == READER_RANDOM_PAGE_COST == 1.1
        with writer.connect() as conn:
            assert float(conn.scalar(setting)) == 4  # the server's default, left alone
    finally:
        reader.dispose()
        writer.dispose()


def test_a_player_s_history_is_read_from_the_lists_in_memory_as_the_query_reads_it(
    served: TestClient,
) -> None:
    # The served player pages read the histories from the current lists kept in columns
    # (AppState.histories); every player's must be what player_history reads, unrated and flagged lines too.
    from sqlalchemy import select

    from ratingdb.reports.lists import history_in, player_history
    from ratingdb.schema.models import Player

    state = served.app.state.ratingdb  # type: ignore[attr-defined]
    with state.database.read() as session:
        site = state.site(session, 0, "en")
        lists = state.histories(lambda: session, site)
        assert lists is not None and [lst for lst, _ in lists] == site.current
        read = [
            ([h for h in player_history(session, p) if h.rating_type in site.options.rating_types], p.id)
            for p in session.scalars(select(Player))
        ]
    assert len(read) > 100
    for history, player_id in read:
        assert history_in(lists, player_id) == history, player_id
    lines = [h for history, _ in read for h in history]
    assert any(h.rating is None for h in lines) and any(h.flag for h in lines)
    assert any(h.change is None for h in lines) and any(h.k is None for h in lines)


def test_a_site_whose_lists_hold_too_many_entries_reads_each_history_by_a_query(demo_url: str) -> None:
    # Over cached_history_entries the lists are not kept (a worker stays small): the same pages, read
    # by a query each.
    with client(demo_url, title="Demo Chess Federation", cached_history_entries=0) as small:
        state = small.app.state.ratingdb  # type: ignore[attr-defined]
        with state.database.read() as session:
            assert state.histories(lambda: session, state.site(session, 0, "en")) is None
        page = small.get(f"/{DOYLE_PAGE}")
    with client(demo_url, title="Demo Chess Federation") as kept:
        assert page.status_code == 200 and page.content == kept.get(f"/{DOYLE_PAGE}").content
    assert state.history_columns == {}


def _a_player_page_without_calculations(served: TestClient) -> str:
    from ratingdb.site.served import with_records

    state = served.app.state.ratingdb  # type: ignore[attr-defined]
    with state.database.read() as session:
        site = state.site(session, 0, "en")
        records = with_records(lambda: session, site)
        return next(path for path, pid in sorted(site.pages.items()) if pid not in records)


def test_a_player_page_without_calculations_is_read_without_a_transaction(
    served: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Most player pages need the player's row alone (the history is in memory): one statement, which reads
    # the data version with it, and no transaction (no BEGIN, no ROLLBACK). A page with calculations reads
    # in one transaction, as every other page does.
    state = served.app.state.ratingdb  # type: ignore[attr-defined]
    plain = _a_player_page_without_calculations(served)
    served.get(f"/{plain}")  # the site and the lists in memory made (in a transaction)
    state.pages.items.clear()
    begun: list[int] = []
    snapshot = state.database.snapshot

    def counted() -> object:
        begun.append(1)
        return snapshot()

    monkeypatch.setattr(state.database, "snapshot", counted)
    assert served.get(f"/{plain}").status_code == 200
    assert begun == []
    assert served.get(f"/{DOYLE_PAGE}").status_code == 200
    assert begun == [1]


def test_a_page_made_for_a_guessed_data_version_is_checked_and_made_for_the_true_one(
    served: TestClient,
) -> None:
    # A request takes the version the last one read as a guess (AppState.seen_version): a wrong guess — the
    # data changed since, here set by hand — is found by its first read, or at the end of a request that
    # read nothing (a page from the cache), and the request starts over with the version it reads.
    state = served.app.state.ratingdb  # type: ignore[attr-defined]
    plain = _a_player_page_without_calculations(served)
    pages = {path: served.get(f"/{path}").content for path in (plain, DOYLE_PAGE)}
    true = state.seen_version
    for path, content in pages.items():
        state.seen_version = true + 1000  # read by the player's row (plain) or the transaction (Doyle)
        assert served.get(f"/{path}").content == content, path
        assert state.seen_version == true
    # A page cached for the guessed version is not taken for it: the version is read at the end.
    key = plain.removeprefix("players/").removesuffix(".html")
    state.seen_version = true + 1000
    state.sites.put((true + 1000, "en"), state.sites.get((true, "en")))  # its site made, too
    state.pages.put((true + 1000, "en", "player", key), b"<p>the page of another version</p>")
    assert served.get(f"/{plain}").content == pages[plain]
    assert state.seen_version == true


def test_a_player_page_shows_a_change_of_the_register_at_once(demo_sqlite_url: str, tmp_path: Path) -> None:
    # Edited after the page was served (and cached): the next visitor sees the new name, the request's
    # guessed version found out by the version read at its end. On a copy of the SQLite demo (it writes).
    path = tmp_path / "demo.sqlite"
    path.write_bytes(Path(demo_sqlite_url.removeprefix("sqlite:///")).read_bytes())
    url = f"sqlite:///{path}"
    with client(url, title="Demo Chess Federation") as served:
        plain = _a_player_page_without_calculations(served)
        before = parse(served.get(f"/{plain}").content)
        name = text_of(before.find(".//h1"))  # type: ignore[arg-type]
        ident = plain.removeprefix("players/").removesuffix(".html").removeprefix("fide-")
        edit = CliRunner().invoke(
            cli, ["--db", url, "player", "edit", ident, "--name", "Renamed, Player", "--reason", "test"]
        )
        assert edit.exit_code == 0, edit.output
        after = parse(served.get(f"/{plain}").content)
        assert name != "Renamed, Player" and text_of(after.find(".//h1")) == "Renamed, Player"  # type: ignore[arg-type]


def test_the_collector_runs_less_often_while_the_app_serves(demo_sqlite_url: str) -> None:
    # A server keeps large indexes that the collector's full passes go through: it collects less often
    # while the app runs, what the app keeps is set aside from those passes (state.settled: the site's
    # index made for the first page among it), and Python's settings are put back when it stops.
    import gc

    from ratingdb.web.app import GC_YOUNGEST

    before = gc.get_threshold()
    with client(demo_sqlite_url) as served:
        assert gc.get_threshold() == (GC_YOUNGEST, *before[1:])
        assert gc.get_freeze_count() > 0
        assert served.get(f"/{DOYLE_PAGE}").status_code == 200
        (site,) = served.app.state.ratingdb.sites.items.values()  # type: ignore[attr-defined]
        assert not any(tracked is site for tracked in gc.get_objects())  # frozen: in no generation
        assert gc.is_tracked(site)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_the_header_is_written_once_per_depth_and_the_search_page_keeps_what_was_searched(
    demo_sqlite_url: str,
) -> None:
    # The site's header (newest lists, search box, live link) is alike on every page as deep in the site,
    # so a site writes it once per depth (Site.shared); the search page's box holds the visitor's words
    # and is written for that page alone, escaped.
    with client(demo_sqlite_url) as served:
        home, player = served.get("/").text, served.get(f"/{DOYLE_PAGE}").text
        (site,) = served.app.state.ratingdb.sites.items.values()  # type: ignore[attr-defined]
        assert {key for key in site.fragments if key[0] == "header"} == {("header", ""), ("header", "../")}
        assert str(site.fragments[("header", "")]) in home
        assert str(site.fragments[("header", "../")]) in player
        assert 'action="../search"' in player and 'value=""' in player
        searched = served.get("/search", params={"q": '<b>"Doyle'}).text
        assert 'value="&lt;b&gt;&#34;Doyle"' in searched
        assert len([key for key in site.fragments if key[0] == "header"]) == 2  # nothing kept for it
        assert 'value=""' in served.get("/").text


def test_the_list_filter_form_as_a_browser_sends_it(served: TestClient) -> None:
    # The form sends every field it shows, those left empty too: an empty rating bound is no bound.
    def ratings(params: dict[str, str]) -> list[str]:
        response = served.get(LIST, params={**params, "per_page": "1000"})  # every row on one page
        assert response.status_code == 200, response.text
        table = parse(response.content).find(".//table[@class='list']")
        return [row[6] for row in rows(table)]  # type: ignore[arg-type]  # the Rating column

    form = {"name": "", "federation": "", "group": "", "rating_min": "", "rating_max": "", "sort": "rank"}
    assert ratings(form) == ratings({})
    above = ratings({**form, "rating_min": "1800"})
    assert above == ratings({"rating_min": "1800"}) and above and min(int(r) for r in above) >= 1800
    assert len(above) < len(ratings({}))


@pytest.mark.parametrize("path", ["/search?q=doyle%00", "/players/100%0011.html", "/api/v1/players?q=a%00b"])
def test_an_address_with_a_nul_character_is_refused_before_anything_is_read(
    served: TestClient, path: str
) -> None:
    # PostgreSQL refuses the character in any text it is handed (a 500 on that engine before): refused
    # on every engine as the other limits are, in one sentence.
    response = served.get(path)
    assert response.status_code == 400
    sentence = "the address holds a NUL character (%00), which no page, name or ID contains — remove it"
    if path.startswith("/api/"):
        assert response.json() == {"error": sentence}
    else:
        assert response.text == f"Error: {sentence}\n"


def test_serve_on_a_port_in_use_or_an_address_not_here_is_one_line(demo_sqlite_url: str) -> None:
    # Said before "Serving …" (uvicorn said it in its own lines after starting the app).
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["--db", demo_sqlite_url, "serve", "--port", str(port)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: cannot serve on 127.0.0.1:{port}: Address already in use — stop what uses the port, or "
        "choose another with --port\n"
    )
    result = CliRunner().invoke(cli, ["--db", demo_sqlite_url, "serve", "--host", "203.0.113.7"])
    assert result.exit_code == 1
    assert result.output.startswith(
        "Error: cannot serve on 203.0.113.7:8000: Cannot assign requested address"
    )
