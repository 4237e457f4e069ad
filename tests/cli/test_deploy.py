"""deploy/ followed as far as a machine without systemd or a container allows (docs/operations/deploy.md):
the service's command line, as the unit writes it, starts the site; the backup timer's command makes a
checked copy and keeps the newest N. `systemd-analyze verify` and `caddy validate` check the files
themselves in .ci/run.
"""

from __future__ import annotations

import http.client
import os
import shlex
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from ratingdb.cli import app
from ratingdb.db import head_revision

DEPLOY = Path(__file__).parents[2] / "deploy"
PROGRAM = "/opt/ratingdb/venv/bin/ratingdb"  # where the guide installs it


def directives(unit: str) -> dict[str, list[str]]:
    """A unit file's `Key=value` lines, by key (a key may be given more than once)."""
    found: dict[str, list[str]] = {}
    for line in (DEPLOY / unit).read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def command_line(unit: str) -> list[str]:
    """The unit's ExecStart as argv, the program checked to be the guide's ratingdb."""
    (start,) = directives(unit)["ExecStart"]
    argv = shlex.split(start)
    assert argv[0] == PROGRAM
    return argv[1:]


def environment_file() -> dict[str, str]:
    """deploy/ratingdb.env's settings, as systemd's EnvironmentFile reads them."""
    settings = {}
    for line in (DEPLOY / "ratingdb.env").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            settings[key.strip()] = value.strip().removeprefix('"').removesuffix('"')  # as systemd reads it
    return settings


def test_the_units_name_what_the_guide_says() -> None:
    serve, backup, timer = (directives(u) for u in ("ratingdb.service", "ratingdb-backup.service",
                                                    "ratingdb-backup.timer"))  # fmt: skip
    for unit in (serve, backup):
        assert unit["User"] == ["ratingdb"] and unit["ProtectSystem"] == ["strict"]
        assert unit["EnvironmentFile"] == ["/etc/ratingdb/ratingdb.env"]
    assert serve["ReadWritePaths"] == ["/var/lib/ratingdb"]
    assert backup["ReadWritePaths"] == ["/var/lib/ratingdb /var/backups/ratingdb"]
    assert timer["Unit"] == ["ratingdb-backup.service"] and timer["Persistent"] == ["true"]
    settings = environment_file()
    assert settings["RATINGDB_URL"] == "sqlite:////var/lib/ratingdb/ratingdb.sqlite"
    assert settings["RATINGDB_REQUIRE_2FA"] == "officer"  # read by serve (--require-2fa's variable)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_the_service_s_command_line_starts_the_site(db_url: str) -> None:
    """ExecStart of deploy/ratingdb.service word for word but the port (a free one) and the program (this
    checkout's), with deploy/ratingdb.env's settings and this test's database."""
    argv = command_line("ratingdb.service")
    port = _port()
    argv[argv.index("--port") + 1] = str(port)
    program = Path(sys.executable).parent / "ratingdb"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RATINGDB_")}
    env |= environment_file() | {"RATINGDB_URL": db_url, "RATINGDB_SECRET": "a secret the workers share"}
    process = subprocess.Popen(
        [str(program), *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, body = _get(port, "/healthz")
                if status == 200:
                    break
            except OSError:
                pass
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "serve did not answer /healthz in 120 s"
            time.sleep(0.3)
        assert b'"status":"ok"' in body.replace(b" ", b"")
        login, page = _get(port, "/login")
        assert login == 200 and b"<title>Sign in \xc2\xb7 Irish Chess Union</title>" in page
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_the_backup_timer_s_command_makes_a_checked_copy_and_keeps_the_newest_n(
    db_url: str, tmp_path: Path
) -> None:
    """The command of the service deploy/ratingdb-backup.timer starts, its folder here a temporary one: a
    new copy, checked, and of the copies dated so, the newest N kept; no other file touched."""
    if db_url.startswith("mysql"):
        pytest.skip("ratingdb backup refuses MariaDB/MySQL, naming the mysqldump command (backups guide)")
    if db_url.startswith("postgresql") and shutil.which("pg_dump") is None:
        pytest.skip("pg_dump is not installed here")
    argv = command_line(directives("ratingdb-backup.timer")["Unit"][0])
    assert argv[:2] == ["backup", "/var/backups/ratingdb"] and argv[2] == "--keep"
    keep = int(argv[3])
    folder = tmp_path / "backups"
    folder.mkdir()
    suffix = ".sqlite" if db_url.startswith("sqlite") else ".dump"
    older = [folder / f"ratingdb-2026{month:02d}01T031500Z{suffix}" for month in (1, 2)]
    older += [folder / f"ratingdb-2026{month:02d}{day:02d}T031500Z{suffix}" for month in (3,) for day in
              range(1, keep)]  # fmt: skip
    for path in older:  # the copies of nights before: keep - 1 + 2, the oldest two to go
        path.write_bytes(b"an older copy")
    strangers = [folder / "notes.txt", folder / f"ratingdb-before-upgrade{suffix}"]
    for path in strangers:
        path.write_bytes(b"not the timer's")
    argv[1] = str(folder)
    result = CliRunner().invoke(app, ["--db", db_url, *argv])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1] == (
        f"Deleted 2 older copies ({older[0].name}, {older[1].name}); kept the newest {keep}."
    )
    dated = sorted(p for p in folder.iterdir() if p not in strangers)
    assert len(dated) == keep and dated[:-1] == sorted(older[2:])
    made = dated[-1]
    assert f"to {made} (" in lines[0]
    assert all(p.exists() for p in strangers)
    assert oct(made.stat().st_mode & 0o777) == "0o600"  # it holds password hashes: the owner's alone
    if suffix == ".sqlite":  # the copy is whole and at the newest migration
        copy = sqlite3.connect(made)
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert copy.execute("SELECT version_num FROM alembic_version").fetchone() == (head_revision(),)
        copy.close()
    else:
        assert made.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format
    engine = create_engine(db_url)
    with engine.connect() as conn:  # the database itself is as it was
        assert conn.scalar(text("SELECT COUNT(*) FROM player")) == 0
    engine.dispose()


def test_keep_takes_a_folder_and_no_force(db_url: str, tmp_path: Path) -> None:
    if not db_url.startswith("sqlite"):
        pytest.skip("the refusals come before any copy: one engine shows them")
    a_file = tmp_path / "one.sqlite"
    a_file.write_bytes(b"x")
    runner = CliRunner()
    not_a_folder = runner.invoke(app, ["--db", db_url, "backup", str(a_file), "--keep", "3"])
    assert (not_a_folder.exit_code, not_a_folder.stderr) == (
        1,
        f"Error: {a_file} is a file — with --keep, give the folder the dated copies go in\n",
    )
    forced = runner.invoke(app, ["--db", db_url, "backup", str(tmp_path), "--keep", "3", "--force"])
    assert (forced.exit_code, forced.stderr) == (
        1,
        "Error: --force does nothing with --keep, whose copies all have new names — leave it out\n",
    )
    assert not any(p.name.startswith("ratingdb-") for p in tmp_path.iterdir())  # no copy made
