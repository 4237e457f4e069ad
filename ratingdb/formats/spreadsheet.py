"""Spreadsheet-safe CSV cells for people (the CLI and the site): imports only the stdlib."""

from __future__ import annotations

import csv
import io
import re
from typing import Any, Final

# A cell starting with one of these is a formula to Excel, LibreOffice and Google Sheets (OWASP
# "CSV injection"); tab and carriage return start one after the spreadsheet strips them.
FORMULA_PREFIXES: Final = ("=", "+", "-", "@", "\t", "\r")
_NUMBER: Final = re.compile(r"[-+]?[0-9]+(\.[0-9]+)?")


def spreadsheet_safe(value: Any) -> Any:
    """A text cell that a spreadsheet would run as a formula gets a leading apostrophe; other values pass.

    A signed number written as text ("-15", "+2.5") is left alone: a spreadsheet reads it as the number.
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_safe_csv(text: str) -> str:
    """The CSV `text` with every cell made spreadsheet-safe; unchanged when no cell needs it."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    safe = [[spreadsheet_safe(cell) for cell in row] for row in rows]
    if safe == rows:
        return text
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(safe)
    return out.getvalue()
