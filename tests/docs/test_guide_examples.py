"""Every command example of the guide (docs/guide/*.md) runs as written, on the demo database.

Each page's shell blocks run in order, as a reader would type them, in a new folder holding a copy of the
demo's database (or, for the pages that start a federation, a new database) and the seed files. Each
command must succeed. A line that cannot run here (a PostgreSQL server, a web server that runs until
Ctrl-C) is listed in NOT_RUN with the reason, and the list is checked against the pages so it cannot go
stale. A comment that states figures (`# 39 games: K 20 → 17`) is checked too: each must be in the output.
"""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.docs.docs_text import DOCS, ROOT, code_blocks

runner = CliRunner()
GUIDE = sorted((DOCS / "guide").glob("*.md"))

# Pages whose examples start a federation: they run on a new database, not on the demo's.
NEW_DATABASE = {"setting-up.md", "monthly-routine.md"}
# The database file RATINGDB_URL names for a page (backups.md restores ratingdb.sqlite by name).
DATABASE_FILE = {"backups.md": "ratingdb.sqlite", "setting-up.md": "federation.sqlite"}

SERVER = "a PostgreSQL server named db"
SERVES = "serves until Ctrl-C; the curl examples run against a server the test starts (below)"
NOT_RUN = {
    "ratingdb --db postgresql+psycopg://rater@db/ratingdb backup ratingdb-2025-11-01.dump": SERVER,
    "createdb -h db -U rater ratingdb_restored": SERVER,
    "pg_restore --no-owner -h db -U rater -d ratingdb_restored ratingdb-2025-11-01.dump": SERVER,
    "export RATINGDB_URL=postgresql+psycopg://rater@db/ratingdb_restored": (
        "a PostgreSQL server named db; tests/cli/test_backup.py restores, inits, queries on the test server"
    ),
    "python3 -m http.server --directory site 8000": "serves until Ctrl-C",
    "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/ratingdb demo": (
        "the install; tests/docs/test_readme.py builds the package and runs its demo"
    ),
    "export RATINGDB_URL=sqlite:///federation.sqlite": "the test sets RATINGDB_URL itself",
    "ratingdb --db sqlite:///demo.sqlite serve --title Demo Chess Federation": SERVES,
    "ratingdb serve --host 127.0.0.1 --port 8000 --workers 4 --type standard --type rapid": SERVES,
    "uvicorn ratingdb.web:app --host 127.0.0.1 --port 8000 --workers 4": SERVES,
}


def commands_with_comments(block: str) -> Iterator[tuple[list[str], str]]:
    """Each command of a shell block as words, with the comment that ends its line."""
    for line in block.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
        lexer.whitespace_split = True
        lexer.commenters = ""
        words: list[str] = []
        comment = ""
        for word in lexer:
            if word.startswith("#"):
                comment = line[line.index(" #") + 2 :] if " #" in line else word
                break
            words.append(word)
        if words:
            yield words, comment


def shell_blocks(page: Path) -> list[str]:
    text = page.read_text("utf-8")
    return [*code_blocks(text, "sh"), *code_blocks(text, "bash")]


def page_commands(page: Path) -> list[tuple[list[str], str]]:
    return [c for block in shell_blocks(page) for c in commands_with_comments(block)]


def text_of(words: list[str]) -> str:
    return " ".join(words)


@pytest.fixture(scope="module")
def demo_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    result = runner.invoke(app, ["demo", "--db", f"sqlite:///{folder / 'demo.sqlite'}"])
    assert result.exit_code == 0, result.output
    return folder / "demo.sqlite"


def test_the_not_run_lines_are_still_in_the_guide() -> None:
    lines = {text_of(words) for page in [*GUIDE, DOCS / "index.md"] for words, _ in page_commands(page)}
    assert sorted(set(NOT_RUN) - lines) == []


def numbers(text: str) -> list[str]:
    """The figures a comment states: not a paragraph it cites (§9.1), nor a figure it denies ("not 400")."""
    text = re.sub(r"§[\d.]+|\bnot [+-]?\d+", "", text.replace("−", "-"))
    return re.findall(r"(?<![\w.])[+-]?\d+(?:[.,]\d+)*", text)  # not the 16 of TRF16


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.name)
def test_the_pages_examples_run(
    page: Path, demo_database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = page_commands(page)
    if not commands:
        pytest.skip(f"{page.name} has no shell examples")
    (tmp_path / "seeds").symlink_to(ROOT / "seeds")
    if page.name not in NEW_DATABASE:
        shutil.copyfile(demo_database, tmp_path / "demo.sqlite")
    database = DATABASE_FILE.get(page.name, "ratingdb.sqlite" if page.name in NEW_DATABASE else "demo.sqlite")
    if database != "demo.sqlite" and page.name not in NEW_DATABASE:
        shutil.copyfile(demo_database, tmp_path / database)
    if page.name == "corrections.md":
        corrected_masters(demo_database, tmp_path / "masters-corrected.trf")
    monkeypatch.chdir(tmp_path)
    ran = 0
    for words, comment in commands:
        line = text_of(words)
        if line in NOT_RUN or words[0] == "curl":  # curl: test_the_api_examples_answer_as_the_page_says
            continue
        for part in split_and(words):
            output = run(part, database)
            if part[:1] == ["ratingdb"] and comment:
                flat = output.replace("−", "-")
                missing = [n for n in numbers(comment) if n not in flat]
                assert missing == [], f"{line}: the comment's {missing} are not in the output:\n{output}"
            ran += 1
    assert ran > 0


def split_and(words: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for word in words:
        if word == "&&":
            parts.append([])
        else:
            parts[-1].append(word)
    return parts


def run(words: list[str], database: str) -> str:
    env = {"RATINGDB_URL": f"sqlite:///{database}"}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, value = words[0].split("=", 1)
        env[name] = value
        words = words[1:]
    if words[0] in ("cp", "rm", "mkdir"):
        subprocess.run(words, check=True)
        return ""
    assert words[0] == "ratingdb", f"not a ratingdb command (add it to NOT_RUN with a reason): {words}"
    result = runner.invoke(app, words[1:], env=env)
    assert result.exit_code == 0, f"{text_of(words)}\n{result.output}"
    return result.output


def corrected_masters(demo_database: Path, path: Path) -> None:
    """The corrections page's file: event 7 as export-trf writes it, round 9's result the other way round.

    Kovalenko (rank 1) beat Whitfield (rank 2) in round 9; the corrected file makes it Whitfield's win,
    with each player's points moved by one (8.5 → 7.5, 6.0 → 7.0).
    """
    exported = path.with_name("masters.trf")
    url = f"sqlite:///{demo_database}"
    result = runner.invoke(app, ["--db", url, "export-trf", "7", "-o", str(exported)])
    assert result.exit_code == 0, result.output
    lines = exported.read_text("utf-8").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("001    1 "):
            assert line.endswith("2 w 1") and " 8.5 " in line
            lines[i] = line.replace(" 8.5 ", " 7.5 ", 1)[:-1] + "0"
        elif line.startswith("001    2 "):
            assert line.endswith("1 b 0") and " 6.0 " in line
            lines[i] = line.replace(" 6.0 ", " 7.0 ", 1)[:-1] + "1"
    path.write_text("\n".join(lines), "utf-8")
    exported.unlink()


def test_the_correction_notice_is_the_one_the_page_works_out(
    demo_database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # corrections.md: D 111 → PD .65; the reversed result moves each Σ by 1.00, 10 points with K 10.
    shutil.copyfile(demo_database, tmp_path / "demo.sqlite")
    corrected_masters(demo_database, tmp_path / "masters-corrected.trf")
    monkeypatch.chdir(tmp_path)
    for words, _ in page_commands(DOCS / "guide" / "corrections.md"):
        run(words, "demo.sqlite")
    notice = (tmp_path / "correction-notice.csv").read_text("utf-8").splitlines()
    assert notice == [
        "fide_id,national_id,name,rating_before,rating_after,change,k_before,k_after,flag_before,flag_after",
        '25900001,,"Kovalenko, Dmytro",2683,2673,-10,10,10,,',
        '25900002,,"Whitfield, Oliver",2558,2568,10,10,10,,',
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served_demo(demo_database: Path, tmp_path: Path) -> Iterator[str]:
    """`ratingdb serve` on a copy of the demo database, on a free port: its base URL."""
    shutil.copyfile(demo_database, tmp_path / "demo.sqlite")
    port = free_port()
    executable = Path(sys.executable).with_name("ratingdb")
    log_path = tmp_path / "serve.log"
    log = log_path.open("wb")
    server = subprocess.Popen(
        [str(executable), "--db", f"sqlite:///{tmp_path / 'demo.sqlite'}", "serve", "--port", str(port)],
        cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/v1/openapi.json", timeout=5):
                    break
            except OSError:
                assert server.poll() is None, log_path.read_text("utf-8", errors="replace")
                assert time.monotonic() < deadline, "ratingdb serve did not answer within 120 s"
                time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_the_api_examples_answer_as_the_page_says(served_demo: str, tmp_path: Path) -> None:
    # serving.md's curl lines, each as a reader types it (pipes included), against a running server on
    # the demo: every one succeeds, and the ETag pair answers 304 as the page says.
    lines = [
        line.strip()
        for block in shell_blocks(DOCS / "guide" / "serving.md")
        for line in block.splitlines()
        if line.startswith("curl ")
    ]
    assert len(lines) >= 5
    etag = ""
    for line in lines:
        command = line.replace("http://127.0.0.1:8000", served_demo).replace('"<etag>"', etag)
        shell = ["bash", "-o", "pipefail", "-c", command]
        result = subprocess.run(shell, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, f"{line}\n{result.stdout}{result.stderr}"
        if "grep -i etag" in line:
            etag = result.stdout.split(":", 1)[1].strip()
            assert etag.startswith('"'), result.stdout
        elif "If-None-Match" in line:
            assert result.stdout.strip() == "304"
        elif " -o " not in line:
            assert result.stdout.strip(), f"{line}: an empty answer"
    assert etag, "the page shows no ETag example"
    assert (tmp_path / "standard.csv").read_text("utf-8").startswith("fide_id,")
