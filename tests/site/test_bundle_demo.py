"""Every published list of the demo as a bundle (issue 49): it verifies from the bundle alone, bundles of
the same list from each engine's database are byte for byte those from SQLite's, and a changed result,
a changed rating or a member altered behind the manifest's back is found and named."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
from pathlib import Path

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from ratingdb import db
from ratingdb.bundle.archive import BundleError, build, read_bundle
from ratingdb.bundle.verify import verify
from ratingdb.cli import app
from ratingdb.engines.urls import make_engine
from ratingdb.formats import parse_trf, write_trf16
from ratingdb.schema.models import RatingList
from ratingdb.services.bundle import list_bundle

runner = CliRunner()


def bundles(url: str) -> dict[tuple[str, str, int], bytes]:
    """The bundle of every computed list of the database at `url`, by (type, date, version)."""
    engine = make_engine(url)
    try:
        with db.read_transaction(engine) as session:
            lists = session.execute(
                select(RatingList.rating_type, RatingList.list_date, RatingList.version).where(
                    RatingList.origin == "computed"
                )
            ).all()
            return {
                (t, d.isoformat(), v): list_bundle(session, t, d, version=v).data for t, d, v in sorted(lists)
            }
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def demo_bundles(demo_url: str) -> dict[tuple[str, str, int], bytes]:
    return bundles(demo_url)


def forged(data: bytes, member: str, change: object) -> bytes:
    """The bundle with `member` changed by `change` (bytes → bytes) and the manifest's hash made to fit."""
    bundle = read_bundle(data)
    members = dict(bundle.members)
    members[member] = change(members[member])  # type: ignore[operator]
    manifest = {k: v for k, v in bundle.manifest.items() if k != "members"}
    return build(manifest, members)


def test_every_computed_list_of_the_demo_verifies_from_its_bundle(
    demo_bundles: dict[tuple[str, str, int], bytes],
) -> None:
    # The demo closes September, October and November for standard, rapid, national (Elo), club
    # (Glicko-2) and league (Glicko): fifteen computed lists.
    assert len(demo_bundles) == 15
    systems = {}
    for key, data in demo_bundles.items():
        bundle = read_bundle(data)
        systems[key[0]] = bundle.manifest["rating_system"]
        result = verify(bundle)
        assert result.ok, (key, result.tampered, result.differences[:3])
        assert result.entries > 100, key
    assert systems == {
        "standard": "elo", "rapid": "elo", "national": "elo", "club": "glicko2", "league": "glicko",
    }  # fmt: skip


def test_the_bundles_are_byte_identical_to_those_of_a_sqlite_demo(
    demo_bundles: dict[tuple[str, str, int], bytes], demo_sqlite_url: str
) -> None:
    # The same month's bundle from PostgreSQL or MariaDB is the SQLite one (and SQLite's, from a second
    # demo database, is the first's): nothing of an engine or of a database's ids reaches a bundle.
    assert demo_bundles == bundles(demo_sqlite_url)


def _changed_result(trf: bytes) -> tuple[bytes, tuple[int, str, str]]:
    """The file with the first decisive rated game's result reversed: the file and (round, white, black)
    as its lines' FIDE IDs."""
    event = parse_trf("event.trf", trf)
    ids = {p.rank: str(p.fide_id) if p.fide_id is not None else f"N{p.national_id}" for p in event.players}
    games = list(event.games)
    for i, g in enumerate(games):
        if g.rated and g.black is not None and g.white_result in ("1", "0"):
            games[i] = dataclasses.replace(g, white_result=g.black_result, black_result=g.white_result)
            return write_trf16(dataclasses.replace(event, games=tuple(games))).encode(), (
                g.round, ids[g.white], ids[g.black],
            )  # fmt: skip
    raise AssertionError("no decisive game")


def test_a_result_changed_in_a_bundled_file_names_both_players_and_the_game(
    demo_bundles: dict[tuple[str, str, int], bytes],
) -> None:
    data = demo_bundles[("standard", "2025-11-01", 1)]
    member = "inputs/events/0003.trf"
    found: list[tuple[int, str, str]] = []

    def change(trf: bytes) -> bytes:
        changed, game = _changed_result(trf)
        found.append(game)
        return changed

    result = verify(read_bundle(forged(data, member, change)))
    ((rnd, white, black),) = found
    assert not result.tampered  # the manifest was made to fit: only the recomputation can tell
    assert [d.player for d in result.differences] == sorted([white, black])
    for difference in result.differences:
        assert any(
            line.startswith(f"game of round {rnd} in event 3 ") and "score_x100 published" in line
            for line in difference.lines
        ), difference.lines


def test_a_changed_published_rating_names_the_player(
    demo_bundles: dict[tuple[str, str, int], bytes], tmp_path: Path
) -> None:
    data = demo_bundles[("standard", "2025-11-01", 1)]

    def change(data: bytes) -> bytes:
        rows = list(csv.reader(io.StringIO(data.decode())))
        assert rows[1][:2] == ["25900001", ""] and rows[1][7] == "2683"  # the demo's top player, 2683
        rows[1][7] = "2684"
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue().encode()

    result = verify(read_bundle(forged(data, "published/list.csv", change)))
    assert [(d.player, d.lines) for d in result.differences] == [
        ("25900001", ["the published list: rating published 2684, recomputed 2683"])
    ]
    path = tmp_path / "forged.zip"
    path.write_bytes(forged(data, "published/list.csv", change))
    said = runner.invoke(app, ["verify", str(path)])
    assert said.exit_code == 1
    assert said.output.splitlines()[1:] == [
        "player 25900001 Kovalenko, Dmytro:",
        "  the published list: rating published 2684, recomputed 2683",
        "not verified: 1 player(s) of the standard list 2025-11-01 version 1 differ from the recomputation",
    ]


def test_a_changed_published_glicko_rating_names_the_player(
    demo_bundles: dict[tuple[str, str, int], bytes],
) -> None:
    # The Glicko league list of November: its first published figures (the demo's top player) a hundredth
    # higher. The recomputation gives back the figure the close published.
    data = demo_bundles[("league", "2025-12-01", 1)]
    bundle = read_bundle(data)
    assert {"inputs/glicko-in-force.csv", "published/glicko.csv"} <= set(bundle.members)
    published = list(csv.reader(io.StringIO(bundle.text("published/glicko.csv"))))
    assert published[0] == ["player", "rating_x100", "deviation_x100"]
    player, rating_x100, _deviation = published[1]
    assert player == "25900001"

    def change(data: bytes) -> bytes:
        rows = list(csv.reader(io.StringIO(data.decode())))
        rows[1][1] = str(int(rows[1][1]) + 1)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue().encode()

    result = verify(read_bundle(forged(data, "published/glicko.csv", change)))
    assert not result.tampered
    assert [(d.player, d.lines) for d in result.differences] == [
        (
            "25900001",
            [
                f"the published Glicko figures: rating_x100 published {int(rating_x100) + 1}, "
                f"recomputed {rating_x100}"
            ],
        )
    ]


def test_a_member_altered_without_its_hash_is_named(
    demo_bundles: dict[tuple[str, str, int], bytes], tmp_path: Path
) -> None:
    bundle = read_bundle(demo_bundles[("club", "2025-11-01", 1)])
    members = dict(
        bundle.members, **{"published/glicko2.csv": bundle.members["published/glicko2.csv"] + b"\n"}
    )
    path = tmp_path / "club.zip"
    from ratingdb.bundle.archive import write_zip

    path.write_bytes(write_zip({**members, "manifest.json": bundle.manifest_raw}))
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 1
    assert "tampered: published/glicko2.csv (changed since the manifest was made)" in result.output
    assert "not verified: 1 member(s) of the club list 2025-11-01 version 1 were altered" in result.output


def test_verify_prints_the_verdict_and_exits_0(
    demo_bundles: dict[tuple[str, str, int], bytes], tmp_path: Path
) -> None:
    path = tmp_path / "standard.zip"
    path.write_bytes(demo_bundles[("standard", "2025-11-01", 1)])
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "unsigned: the bundle carries no signature, so nothing says who made it",
        "verified: the standard list 2025-11-01 version 1, 300 entries, every rating, K and games count "
        "identical (1386 rows of the calculation record)",
    ]


def test_a_file_that_is_not_a_bundle_is_refused_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "list.zip"
    path.write_bytes(b"fide_id,name\n")
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 1
    assert result.output == f"Error: {path} is not a zip file, so not a list bundle\n"
    with pytest.raises(BundleError):
        read_bundle(io.BytesIO(b"PK").getvalue())


def test_list_bundle_writes_the_file_and_refuses_an_imported_list(demo_url: str, tmp_path: Path) -> None:
    out = tmp_path / "b.zip"
    result = runner.invoke(
        app, ["--db", demo_url, "list", "bundle", "2025-12-01", "--type", "club", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"Wrote the bundle of the club list 2025-12-01 (version 1: 294 entries, 3 events) to {out}, unsigned "
        "(the federation has no signing key: `ratingdb keys create`).\n"
    )
    assert verify(read_bundle(out.read_bytes())).ok
    refused = runner.invoke(
        app, ["--db", demo_url, "list", "bundle", "2025-09-01", "-o", str(tmp_path / "c.zip")]
    )
    assert refused.exit_code == 1
    assert refused.output == (
        "Error: the standard list dated 2025-09-01 was imported (standard-2025-09-01.csv), not computed by a "
        "close: there is nothing to recompute, so no bundle\n"
    )
    assert not (tmp_path / "c.zip").exists()
    _ = dt


def test_the_published_site_links_each_computed_lists_bundle_and_the_served_site_and_api_serve_them(
    demo_url: str, demo_bundles: dict[tuple[str, str, int], bytes], tmp_path: Path
) -> None:
    from tests.site.conftest import publish
    from tests.site.web import client

    folder = tmp_path / "site"
    publish(demo_url, folder)
    for (rating_type, date, _version), data in demo_bundles.items():
        assert (folder / "lists" / f"{rating_type}-{date}.zip").read_bytes() == data
        page = (folder / "lists" / f"{rating_type}-{date}.html").read_text("utf-8")
        assert f'Its <a href="../lists/{rating_type}-{date}.zip">bundle</a> holds everything' in page
    imported = (folder / "lists" / "standard-2025-09-01.html").read_text("utf-8")
    assert "bundle" not in imported and not (folder / "lists" / "standard-2025-09-01.zip").exists()
    # No key: no key file, and no link to one.
    assert not (folder / ".well-known").exists()
    assert "public key" not in (folder / "lists" / "standard-2025-11-01.html").read_text("utf-8")

    data = demo_bundles[("standard", "2025-11-01", 1)]
    with client(demo_url) as c:
        served = c.get("/lists/standard-2025-11-01.zip")
        assert (served.status_code, served.headers["content-type"], served.content) == (
            200,
            "application/zip",
            data,
        )
        api = c.get("/api/v1/lists/standard/2025-11-01/bundle", params={"version": 1})
        assert (api.status_code, api.content) == (200, data)
        assert api.headers["content-disposition"] == 'attachment; filename="standard-2025-11-01-v1.zip"'
        again = c.get(
            "/api/v1/lists/standard/2025-11-01/bundle",
            params={"version": 1},
            headers={"if-none-match": api.headers["etag"]},
        )
        assert again.status_code == 304
        none = c.get("/api/v1/lists/standard/2025-09-01/bundle")
        assert none.status_code == 404
        assert "was imported: it has no bundle, nothing was computed" in none.text
        assert c.get("/.well-known/ratingdb-bundle-key.json").status_code == 404
