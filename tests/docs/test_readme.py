"""The README is a short front door, and every command in it runs here (or is CI's own command).

- "Try it: the demo": the install line builds the package as `pip install .` does, into a new
  environment, whose `ratingdb demo` then runs in an empty folder.
- "Run the tests": the line is the one .ci/run runs.
- "A month in eleven commands": each line runs as written against a new database on every engine, with
  the demo's seed files, and the numbers the README tells are checked.
- "From Python": the example runs and prints FIDE's worked check (2813, K 10: Σ −2.50 → −3 → 2810).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratingdb.cli import app
from tests.docs.docs_text import README, ROOT, readme_block, shell_lines

runner = CliRunner()


def test_the_readme_is_at_most_200_lines() -> None:
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move the detail into a docs/ page"


def test_the_readme_test_command_is_the_one_ci_runs() -> None:
    (command,) = shell_lines(readme_block("Run the tests", "sh"))
    ci = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    assert command in [shlex.split(line) for line in ci if line.strip() and not line.startswith("#")]


def test_the_demo_line_installs_the_package_and_runs_the_demo() -> None:
    (line,) = shell_lines(readme_block("Try it: the demo", "sh"))
    assert " ".join(line) == "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/ratingdb demo"


@pytest.mark.slow
def test_the_package_as_pip_install_dot_builds_it_runs_the_demo(tmp_path: Path) -> None:
    # The README's line, except that the new environment borrows the dependencies of this one (a .pth
    # file naming its site-packages, which does not bring this environment's editable ratingdb) and pip
    # installs the checkout without them (the build backend still comes from the package index). pip
    # writes this environment's interpreter into the script's first line, so the new one runs it.
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(
        subprocess.run(
            [str(env_dir / "bin" / "python"), "-c", purelib], check=True, capture_output=True, text=True
        ).stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # A copy of the checkout: setuptools builds in the source folder (build/), which must stay clean.
    source = tmp_path / "checkout"
    shutil.copytree(
        ROOT, source,
        ignore=shutil.ignore_patterns(".*", "build", "site-docs", "*.egg-info", "__pycache__", "*.sqlite*"),
    )  # fmt: skip
    subprocess.run(
        # --ignore-installed: without it pip would first uninstall this environment's own ratingdb.
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed",
         "--prefix", str(env_dir), str(source)],
        check=True, cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    folder = tmp_path / "federation"
    folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("RATINGDB_URL", "PYTHONPATH")}
    result = subprocess.run(
        [str(env_dir / "bin" / "python"), str(env_dir / "bin" / "ratingdb"), "demo"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (folder / "demo.sqlite").is_file()
    where = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", "import ratingdb; print(ratingdb.__file__)"],
        cwd=folder, env=env, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(env_dir)), where  # the installed package ran, not the checkout


def month_commands() -> list[list[str]]:
    commands = shell_lines(readme_block("A month in eleven commands", "sh"))
    assert len(commands) == 11
    assert all(words[0] == "ratingdb" for words in commands)
    return [words[1:] for words in commands]


def test_a_month_in_eleven_commands_runs_as_written(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run from a folder holding the seed files where the README says (it runs from the checkout).
    (tmp_path / "seeds").symlink_to(ROOT / "seeds")
    monkeypatch.chdir(tmp_path)
    outputs = []
    for args in month_commands():
        result = runner.invoke(app, args, env={"RATINGDB_URL": db_url})
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.stdout)
    by_command = dict(zip((" ".join(a[:2]) for a in month_commands()), outputs, strict=False))
    # The dry run before the close: its first line, then Byrne's fall in the list of every change.
    dry_run = outputs[[a[-1] for a in month_commands()].index("--dry-run")].splitlines()
    assert dry_run[0] == "dry run: nothing was written"
    assert "    below the floor: Byrne, Noel 1412 → unrated" in dry_run
    # The README's story: Noel Byrne (25900012), 1412 with K 20, loses to 1496, 1503 and 1511:
    # PD .38 + .38 + .36, Σ(score − PD) = −1.12, 20 × −1.12 = −22.4 → −22 → 1390, below 1400.
    calculation = " ".join(by_command["calculation 25900012"].split())
    assert "1412" in calculation and "-22" in calculation.replace("−", "-") and "1390" in calculation
    # The list written by the tenth command: every player of the list in force (299) is on it, Byrne
    # without a rating (unrated, not clamped to 1400).
    with (tmp_path / "standard-2025-10-01.csv").open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    byrne = next(row for row in rows if row["fide_id"] == "25900012")
    assert (byrne["name"], byrne["rating"], byrne["games"]) == ("Byrne, Noel", "", "3")
    assert len(rows) >= 299


def test_the_python_example_prints_fides_worked_check() -> None:
    code = readme_block("From Python", "python")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue() == "-2.50 -3 2810\n"
