"""`ratingdb publish`: the static site built from the demo federation, on every engine.

Checks what a visitor and a web server rely on (links resolve, pages parse as HTML5, names are text),
that the pages say what the CLI says (calculation, list files, chart), and what "publish again" means:
byte-identical output, only changed files rewritten, stale files removed.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import html5lib
import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.cli import app
from ratingdb.reports.chart import history_svg
from ratingdb.reports.lists import find_player, player_history
from ratingdb.schema.models import Player
from ratingdb.services.events import delete_event
from ratingdb.services.versions import record_change, withdraw
from ratingdb.site.output import MANIFEST
from tests import builders
from tests.site.conftest import publish

runner = CliRunner()
SVG = "{http://www.w3.org/2000/svg}"  # html5lib puts inline SVG in its own namespace, as browsers do
DOYLE = 25900011  # 39 games in October: K 20 → 17 by the 700 rule (README, "What each seeded case shows")
DOYLE_PAGE = "players/10011.html"  # addressed by his national ID (publishing.md, "Addresses")


def files(folder: Path) -> dict[str, bytes]:
    """Every file of a published folder by relative path, the manifest left out."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }


def parse(page: bytes) -> ET.Element:
    """The page as html5lib parses it; strict: any HTML5 parse error fails the test."""
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse(page)


def text_of(element: ET.Element) -> str:
    return re.sub(r"\s+", " ", "".join(element.itertext())).strip()


def rows(table: ET.Element) -> list[list[str]]:
    body = table.find("tbody")
    assert body is not None
    return [[text_of(td) for td in tr.findall("td")] for tr in body.findall("tr")]


@pytest.fixture(scope="module")
def site(demo_url: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site") / "www"
    publish(demo_url, folder, "--title", "Demo Chess Federation")
    return folder


def test_publish_writes_every_file_once_and_says_so(demo_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "www"
    # FIDE's two types of the demo (without --type the national and club lists come too: see
    # tests/site/test_glicko2_pages.py, the home page of every type).
    output = publish(demo_url, folder, "--type", "standard", "--type", "rapid")
    published = files(folder)
    size = sum(len(content) for content in published.values())
    assert output == (
        f"Published {len(published)} files ({size / 1_000_000:.1f} MB) to {folder}: "
        f"{len(published)} written, 0 unchanged, 0 removed.\n"
    )
    # Standard and rapid lists of 2025-09-01 (imported) and of the three closes (README, "The demo").
    lists = sorted(p for p in published if p.startswith("lists/") and p.endswith(".html"))
    assert lists == [
        "lists/rapid-2025-09-01.html",
        "lists/rapid-2025-10-01.html",
        "lists/rapid-2025-11-01.html",
        "lists/rapid-2025-12-01.html",
        "lists/standard-2025-09-01.html",
        "lists/standard-2025-10-01.html",
        "lists/standard-2025-11-01.html",
        "lists/standard-2025-12-01.html",
    ]
    assert sorted(p for p in published if p.startswith("periods/")) == [
        f"periods/{t}-{p}.html" for t in ("rapid", "standard") for p in ("2025-09", "2025-10", "2025-11")
    ]
    assert sorted(p for p in published if p.startswith("events/")) == sorted(
        f"events/{n}.html" for n in range(1, 17)
    )
    assert {"index.html", "static/site.css", "static/site.js"} <= published.keys()
    # 300 players on the standard list; every one of them has a page, by national ID where the player has
    # one (264 of seeds/standard-2025-09-01.csv do), else by FIDE ID; and each with a FIDE ID a page at
    # the address earlier versions gave (players/<FIDE ID>.html) that sends the visitor on.
    pages = [p for p in published if p.startswith("players/") and b"http-equiv" not in published[p]]
    assert len(pages) == 300
    assert sum(1 for p in pages if p.startswith("players/fide-")) == 300 - 264
    assert sum(1 for p in published if p.startswith("players/")) == 600


def moved(published: dict[str, bytes]) -> dict[str, str]:
    """The pages left at old addresses (publishing.md, "Addresses") → the page each sends the visitor to."""
    found = {}
    for relative, content in published.items():
        refresh = re.search(rb'<meta http-equiv="refresh" content="0; url=([^"]+)">', content)
        if refresh:
            found[relative] = (PurePosixPath(relative).parent / refresh[1].decode()).as_posix()
    return found


def test_every_internal_link_resolves_and_every_file_is_reachable_from_the_home_page(site: Path) -> None:
    published = files(site)
    redirects = moved(published)
    links: dict[str, set[str]] = {}
    for relative, content in published.items():
        if not relative.endswith(".html"):
            continue
        links[relative] = set()
        for element in parse(content).iter():
            target = element.get("href") if element.tag in ("a", "link") else element.get("src")
            if target is None:
                continue
            parts = urlsplit(target)
            assert not parts.scheme and not parts.netloc, f"{relative} links outside the site: {target}"
            resolved = PurePosixPath(os.path.normpath(PurePosixPath(relative).parent / parts.path)).as_posix()
            assert resolved in published, f"{relative} links to {target}, which was not published"
            links[relative].add(resolved)
    reached, todo = {"index.html"}, ["index.html"]
    while todo:
        for target in links.get(todo.pop(), set()) - reached:
            reached.add(target)
            todo.append(target)
    # Nothing links to the pages at old addresses (they are for bookmarks and links from elsewhere); each
    # sends the visitor to a page that is reached, the same player's (its old address was the FIDE ID).
    assert reached == published.keys() - redirects.keys()
    assert len(redirects) == 300 and set(redirects.values()) <= reached
    assert redirects[f"players/{DOYLE}.html"] == DOYLE_PAGE
    for old, new in redirects.items():
        fide_id = PurePosixPath(old).stem
        assert f"<dt>FIDE ID</dt><dd>{fide_id}</dd>".encode() in published[new], old


def test_every_page_parses_as_html5_without_a_single_error(site: Path) -> None:
    pages = {name: content for name, content in files(site).items() if name.endswith(".html")}
    for name, content in pages.items():
        tree = parse(content)  # raises on the first parse error
        assert tree.get("lang") == "en", name
        assert tree.find("head/meta[@charset='utf-8']") is not None, name
        assert text_of(tree.find("body/main/h1")), name  # type: ignore[arg-type]
    assert len(pages) > 300


def test_the_list_page_shows_the_list_in_rating_order_with_its_downloads(site: Path) -> None:
    page = parse((site / "lists/standard-2025-12-01.html").read_bytes())
    table = page.find(".//table[@id='list']")
    assert table is not None
    lines = rows(table)
    assert len(lines) == 300  # every entry, the 7 unrated ones last without a rank
    assert lines[:3] == [
        ["1", "GM", "Kovalenko, Dmytro", "UKR", "M", "1992", "2683", "0", "0", "10", ""],
        ["2", "GM", "Whitfield, Oliver", "ENG", "M", "1996", "2558", "0", "0", "10", ""],
        ["3", "IM", "Ó Briain, Cathal", "IRL", "M", "1988", "2489", "0", "0", "10", ""],
    ]
    assert [line[0] for line in lines[-7:]] == [""] * 7
    # The filter form is hidden until the script shows it: without JavaScript the full table stands.
    form = page.find(".//form[@id='filters']")
    assert form is not None and form.get("hidden") is not None
    downloads = [a.get("href") for a in page.iterfind(".//p[@class='downloads']/a")]
    assert downloads == ["../lists/standard-2025-12-01.csv", "../lists/standard-2025-12-01.txt"]


def test_the_downloads_are_the_files_the_list_command_writes(site: Path, demo_url: str) -> None:
    for fmt, suffix in (("csv", "csv"), ("fide-txt", "txt")):
        result = runner.invoke(app, ["--db", demo_url, "list", "2025-11-01", "--format", fmt])
        assert result.exit_code == 0, result.output
        assert (site / f"lists/standard-2025-11-01.{suffix}").read_text("utf-8") == result.stdout


def test_the_player_page_shows_the_calculation_as_the_calculation_command_does(
    site: Path, demo_url: str
) -> None:
    page = parse((site / DOYLE_PAGE).read_bytes())
    assert text_of(page.find(".//h1")) == "Doyle, Patrick"  # type: ignore[arg-type]
    section = next(s for s in page.iter("section") if "period 2025-10" in text_of(s.find("h3")))  # type: ignore[arg-type]
    shown = [text_of(p) for p in section.findall("p")]
    result = runner.invoke(app, ["--db", demo_url, "calculation", str(DOYLE), "2025-10"])
    command = result.stdout.splitlines()
    assert (
        shown[:2]
        == command[1:3]
        == [
            "Ro 1846, K 20 → 17 by the 700 rule (39 games); 39 games; K × Σ(score − PD) = 17 × 3.26 = 55.42 "
            "→ +55 (rounded once, half away from zero, §8.3.4); Rn = Ro + change = 1846 + 55 = 1901",
            "New list: rating 1901, K 20, flag —, games 39",
        ]
    )
    # The first event's line, then its games, each opponent linked to their page.
    assert (
        shown[2]
        == command[5].strip()
        == ("Ro 1846, Rc 1801.78, n 9, score 5.00, Σ(score − PD) +0.02, K 17, K × Σ +0.34")
    )
    games = section.findall(".//table[@class='games']")
    assert sum(len(rows(t)) for t in games) == 39
    # Each opponent with both IDs (issue 24): FIDE ID and national ID.
    assert rows(games[0])[0] == [
        "1",
        "Duffy, James",
        "25900087",
        "10087",
        "1840",
        "6",
        "0.51",
        "0.00",
        "-0.51",
    ]
    first_opponent = games[0].find("tbody/tr/td/a")
    assert first_opponent is not None and first_opponent.get("href") == "../players/10087.html"


def test_the_player_page_embeds_the_chart_report_history_draws(site: Path, demo_url: str) -> None:
    engine = db.make_engine(demo_url)
    try:
        with db.transaction(engine) as session:
            doyle = find_player(session, str(DOYLE))
            expected = history_svg(
                player_history(session, doyle), "Doyle, Patrick (FIDE 25900011): ratings by list"
            )
    finally:
        engine.dispose()
    page = (site / DOYLE_PAGE).read_text("utf-8")
    assert expected in page
    chart = parse(page.encode()).find(f".//figure/{SVG}svg")
    assert chart is not None
    # One point per standard list, each with its rating as a tooltip.
    standard = chart.find(f"{SVG}g[@class='series standard']")
    assert standard is not None
    assert [c.findtext(f"{SVG}title") for c in standard.findall(f"{SVG}circle")] == [
        "standard 2025-09-01: 1846",
        "standard 2025-10-01: 1846",
        "standard 2025-11-01: 1901",
        "standard 2025-12-01: 1901",
    ]


def test_the_crosstable_of_the_round_robin_adds_up(site: Path) -> None:
    page = parse((site / "events/7.html").read_bytes())
    assert text_of(page.find(".//h1")) == "Irish Masters"  # type: ignore[arg-type]
    table = page.find(".//table[@class='crosstable']")
    assert table is not None
    lines = rows(table)
    assert len(lines) == 10
    # Ten players, nine rounds: 45 games, so 45 points in all; ranks 1..10 in order of points.
    points = [float(line[15].replace("½", ".5") or 0) for line in lines]
    assert sum(points) == 45 and points == sorted(points, reverse=True)
    assert [line[0] for line in lines] == [str(n) for n in range(1, 11)]
    # Each line names the player's FIDE ID and national ID, as `ratingdb report event` does (the seeds:
    # Kovalenko, first on 8½, has no national ID; Ó Briain, second on 6½, both).
    assert [line[2:5] for line in lines[:2]] == [
        ["Kovalenko, Dmytro", "25900001", ""],
        ["Ó Briain, Cathal", "25900003", "10003"],
    ]
    # Each round cell names the opponent's rank and colour; the opponent's cell names this one back.
    cells = {(int(line[0]), rnd): line[6 + rnd - 1] for line in lines for rnd in range(1, 10)}
    for (rank, rnd), cell in cells.items():
        match = re.fullmatch(r"(\d+)([wb]) (1|½|0)", cell)
        assert match, cell
        opponent, colour, result = int(match[1]), match[2], match[3]
        back = re.fullmatch(r"(\d+)([wb]) (1|½|0)", cells[(opponent, rnd)])
        assert back and int(back[1]) == rank and back[2] != colour
        assert {result, back[3]} in ({"1", "0"}, {"½"})


def test_a_hostile_name_is_shown_as_text(db_url: str, tmp_path: Path) -> None:
    hostile = "<script>alert('x')</script> O'Brien & Søn \"Ŝ\""
    engine = db.make_engine(db_url)
    try:
        with db.transaction(engine) as session:
            a = builders.player(session, hostile, fide_id=700001)
            b = builders.player(session, "Plain, Paul", fide_id=700002)
            builders.imported_list(session, "standard", dt.date(2025, 9, 1), {a: 1800, b: 1700})
            builders.event(session, "<b>Open</b>", dt.date(2025, 9, 6), dt.date(2025, 9, 7), [(a, b, "1")])
    finally:
        engine.dispose()
    folder = tmp_path / "www"
    publish(db_url, folder)
    published = files(folder)
    for name in ("lists/standard-2025-09-01.html", "players/fide-700001.html", "players/fide-700002.html"):
        page = published[name].decode()
        assert "<script>alert" not in page and "<b>Open" not in page
        tree = parse(published[name])
        assert [s.get("src") for s in tree.iter("script")] in ([], ["../static/site.js"])
        assert tree.find(".//b") is None
    # The names read back exactly as stored, as text, in the page and in the chart's title.
    player_page = parse(published["players/fide-700001.html"])
    assert text_of(player_page.find(".//h1")) == hostile  # type: ignore[arg-type]
    title = player_page.findtext(f".//figure/{SVG}svg/{SVG}title")
    assert title == f"{hostile} (FIDE 700001): ratings by list"
    events = [name for name in published if name.startswith("events/")]
    assert len(events) == 1
    assert text_of(parse(published[events[0]]).find(".//h1")) == "<b>Open</b>"  # type: ignore[arg-type]


def test_a_withdrawn_list_version_keeps_its_page_marked_and_linked_to_the_current_one(
    db_url: str, tmp_path: Path
) -> None:
    engine = db.make_engine(db_url)
    try:
        with db.transaction(engine) as session:
            a = builders.player(session, "Ash, Ann", fide_id=720001)
            b = builders.player(session, "Birch, Bea", fide_id=720002)
            first = builders.imported_list(session, "standard", dt.date(2025, 9, 1), {a: 1800, b: 1700})
            change = record_change(session, "withdraw-list", "standard 2025-09-01 v1", reason="wrong file")
            withdraw(session, first, change)
            builders.imported_list(session, "standard", dt.date(2025, 9, 1), {a: 1810, b: 1700}, version=2)
            withdrawn_on = change.created_at.date().strftime("%b %-d, %Y")  # English: Dec 1, 2026
    finally:
        engine.dispose()
    folder = tmp_path / "www"
    publish(db_url, folder)
    published = files(folder)
    old = parse(published["lists/standard-2025-09-01-v1.html"])
    notice = old.find(".//p[@class='withdrawn-notice']")
    assert notice is not None
    assert text_of(notice) == (
        f"Withdrawn on {withdrawn_on}: wrong file. This is version 1 of the list, kept for the record; "
        "the list in force is version 2."
    )
    assert [a.get("href") for a in notice.iter("a")] == ["../lists/standard-2025-09-01.html"]
    assert rows(old.find(".//table[@id='list']"))[0][2:7] == ["Ash, Ann", "", "M", "1990", "1800"]  # type: ignore[arg-type]
    current = parse(published["lists/standard-2025-09-01.html"])
    assert current.find(".//p[@class='withdrawn-notice']") is None
    assert rows(current.find(".//table[@id='list']"))[0][2:7] == ["Ash, Ann", "", "M", "1990", "1810"]  # type: ignore[arg-type]
    home = parse(published["index.html"])
    listed = [(tr.get("class"), text_of(tr.find("td"))) for tr in home.iterfind(".//tbody/tr")]  # type: ignore[arg-type]
    assert listed == [(None, "Sep 1, 2025 version 2"), ("withdrawn", "Sep 1, 2025 version 1, withdrawn")]
    # The player's history is the current list only.
    history = parse(published["players/fide-720001.html"]).find(".//table[@class='history']")
    assert rows(history) == [["Sep 1, 2025", "1810", "", "0", "", ""]]  # type: ignore[arg-type]


def test_a_second_publish_is_byte_identical_and_rewrites_nothing(demo_url: str, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    publish(demo_url, first)
    publish(demo_url, second)
    assert files(first) == files(second)
    stamps = {p: p.stat().st_mtime_ns for p in first.rglob("*") if p.is_file()}
    count = len(files(first))
    assert publish(demo_url, first) == (
        f"Published {count} files ({sum(map(len, files(first).values())) / 1_000_000:.1f} MB) to {first}: "
        f"0 written, {count} unchanged, 0 removed.\n"
    )
    assert {p: p.stat().st_mtime_ns for p in first.rglob("*") if p.is_file()} == stamps


def test_publishing_again_rewrites_only_changed_pages_and_removes_stale_ones(
    db_url: str, tmp_path: Path
) -> None:
    engine = db.make_engine(db_url)
    try:
        with db.transaction(engine) as session:
            a = builders.player(session, "Ash, Ann", fide_id=710001)
            b = builders.player(session, "Birch, Bea", fide_id=710002)
            builders.imported_list(session, "standard", dt.date(2025, 9, 1), {a: 1800, b: 1700})
        folder = tmp_path / "www"
        publish(db_url, folder)
        before = files(folder)
        stamps = {name: (folder / name).stat().st_mtime_ns for name in before}
        # An event imported into the open period: its page is new, and no other page changes.
        with db.transaction(engine) as session:
            a, b = session.get_one(Player, a.id), session.get_one(Player, b.id)
            event_id = builders.event(
                session, "September Open", dt.date(2025, 9, 6), dt.date(2025, 9, 7), [(a, b, "=")]
            ).id
        page = f"events/{event_id}.html"
        assert publish(db_url, folder).endswith(f"1 written, {len(before)} unchanged, 0 removed.\n")
        after = files(folder)
        assert after.keys() - before.keys() == {page}
        assert {name: after[name] for name in before} == before
        assert {name: (folder / name).stat().st_mtime_ns for name in before} == stamps
        assert "Not rated yet: period 2025-09 is not closed." in text_of(parse(after[page]))
        # The event deleted again: its page goes, nothing else is touched.
        with db.transaction(engine) as session:
            delete_event(session, event_id)
        assert publish(db_url, folder).endswith(f"0 written, {len(before)} unchanged, 1 removed.\n")
        assert files(folder) == before
        assert not (folder / "events").exists()  # the emptied folder goes too
        assert (folder / MANIFEST).read_text("utf-8").splitlines() == sorted(before)
    finally:
        engine.dispose()


def test_a_folder_with_other_files_is_refused_and_left_alone(demo_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "www"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", "utf-8")
    result = runner.invoke(app, ["--db", demo_url, "publish", str(folder)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {folder} is not empty and holds no site published by ratingdb: give a new or empty folder\n"
    )
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_only_the_chosen_types_are_published_with_a_sitemap_for_the_base_url(
    demo_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "www"
    publish(demo_url, folder, "--type", "rapid", "--base-url", "https://ratings.example.org/")
    published = files(folder)
    assert not any("standard" in name for name in published)
    index = parse(published["index.html"])
    canonical = index.find("head/link[@rel='canonical']")
    assert canonical is not None and canonical.get("href") == "https://ratings.example.org/index.html"
    sitemap = ET.fromstring(published["sitemap.xml"])
    locs = [loc.text for loc in sitemap.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    # Every page but those at old addresses, whose canonical link is the page they send the visitor to.
    redirects = moved(published)
    assert redirects
    assert len(locs) == sum(1 for name in published if name.endswith(".html") and name not in redirects)
    assert "https://ratings.example.org/lists/rapid-2025-12-01.html" in locs
    old, new = next(iter(redirects.items()))
    canonical = parse(published[old]).find("head/link[@rel='canonical']")
    assert canonical is not None and canonical.get("href") == f"https://ratings.example.org/{new}"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        # The demo stores its national rule set, so "national" is a known type there.
        (
            ["--type", "bullet"],
            "Error: 'bullet' is not a rating type: use one of standard, rapid, blitz, club, league, "
            "national\n",
        ),
        (
            ["--base-url", "ratings.example.org"],
            "Error: 'ratings.example.org' is not a web address: give one such as https://ratings.example.org/\n",
        ),
    ],
)
def test_bad_options_are_refused_before_anything_is_written(
    demo_url: str, tmp_path: Path, args: list[str], error: str
) -> None:
    result = runner.invoke(app, ["--db", demo_url, "publish", str(tmp_path / "www"), *args])
    assert (result.exit_code, result.stderr) == (1, error)
    assert not (tmp_path / "www").exists()


def test_a_game_that_did_not_count_is_named_with_its_reason(site: Path, demo_url: str) -> None:
    # Culligan, Gráinne (rated) drew two newcomers in the Bray Newcomers' Weekend II in October; they had
    # no rating at the event's start, so those games count only toward the newcomers' first ratings.
    from ratingdb.reports.not_rated import OPPONENT_UNRATED

    page = parse((site / "players/10022.html").read_bytes())
    section = next(s for s in page.iter("section") if "period 2025-10" in text_of(s.find("h3")))  # type: ignore[arg-type]
    notes = [text_of(li) for li in section.findall(".//ul[@class='not-rated']/li")]
    assert notes == [
        f"Bray Newcomers' Weekend II, round 1 against Ní Mhurchú, Saoirse: {OPPONENT_UNRATED}",
        f"Bray Newcomers' Weekend II, round 4 against Kowalczyk, Piotr: {OPPONENT_UNRATED}",
    ]
    # Every game she played in October's events is either in the calculation or in the note.
    engine = db.make_engine(demo_url)
    try:
        with db.transaction(engine) as session:
            player = find_player(session, "25900022")
            played = session.scalar(
                text(
                    "SELECT COUNT(*) FROM game g JOIN event e ON e.id = g.event_id "
                    "WHERE e.period = '2025-10' AND e.rating_type = 'standard' AND e.is_current = TRUE "
                    "AND (g.white_id = :p OR g.black_id = :p)"
                ),
                {"p": player.id},
            )
    finally:
        engine.dispose()
    counted = sum(len(rows(t)) for t in section.findall(".//table[@class='games']"))
    assert counted + len(notes) == played
