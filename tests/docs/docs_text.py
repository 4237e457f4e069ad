"""Reading the documentation for the docs tests: the README, the pages of docs/, their code blocks."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def pages() -> list[Path]:
    """Every hand-written page of the manual (the command reference is generated, not a file)."""
    return sorted(DOCS.rglob("*.md"))


def code_blocks(text: str, language: str | None = None) -> list[str]:
    """The fenced code blocks of a Markdown text, optionally only those of one language."""
    return [body for lang, body in FENCE.findall(text) if language is None or lang == language]


def shell_lines(block: str) -> list[list[str]]:
    """A shell block's commands as words (as the shell splits them): comments dropped, `\\` lines joined."""
    lines: list[list[str]] = []
    pending = ""
    for raw in block.splitlines():
        line = pending + raw
        pending = ""
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1] + " "
            continue
        words = shlex.split(line, comments=True)
        if words:
            lines.append(words)
    return lines


def readme_block(heading: str, language: str) -> str:
    """The first code block of the given language under a README heading (`## heading`)."""
    text = README.read_text("utf-8")
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    blocks = code_blocks(text[start : end if end != -1 else None], language)
    assert blocks, f"README section {heading!r} has no {language} block"
    return blocks[0]


def blocks_of_docs() -> list[str]:
    """The paragraphs (a list or a table is one) and code lines of every page, each on one line.

    A command's options count as documented when a block that names the command names them too.
    """
    out: list[str] = []
    for page in pages():
        text = page.read_text("utf-8")
        prose = FENCE.sub(lambda m: "\n\n".join(m.group(2).splitlines()) + "\n\n", text)
        for block in re.split(r"\n\s*\n", prose):
            out.append(" ".join(block.split()))
    return out
