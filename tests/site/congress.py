"""The trial's month on the demo's seeds (issue 46): two sections of one congress, a mistyped ID, a
corrected file, and an empty month before them.

The trial was done with Bunratty 2011's Masters and Minor (the same record 012 and start date, no player
in common, the Minor all newcomers) and a real officer's mistake: a mistyped ID settled as "a new player",
then corrected by replacing the event with the organiser's corrected file. The same shape, made from the
demo's own files so that it runs on the seeded list of 2025-09-01 (seeds/standard-2025-09-01.csv):

- the Masters is the demo's Limerick City Open (15–19 October 2025) under record 012 "Limerick Congress",
  with rank 3's FIDE ID mistyped: Mac Aodha, Kevin's 25900230 sent as 25900320, which no one has
  (`import-trf` refuses it as an ID typo: the name is registered under another ID);
- the corrected Masters is the Limerick City Open with the right ID;
- the Minor is the demo's Sligo Autumn Open moved to the Limerick dates (22–26 → 15–19 October), under the
  same record 012, its 32 players newcomers: invented names, no rating, FIDE IDs 25991001–25991032 that no
  one has. None of its games can be rated, so every close of its period warns of it (services.
  event_warnings: fewer than a tenth of the games rated).

The events are in period 2025-10, and the newest list is 2025-09-01's: period 2025-09 holds no event and
must be closed first (the trial's "close period 2011-02 first").
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).parents[2]
SEEDS = ROOT / "seeds"
LIST = SEEDS / "standard-2025-09-01.csv"
CONGRESS = "Limerick Congress"
TYPO_RANK, TYPO_ID, RIGHT_ID = 3, "25900320", "25900230"

GIVEN = ("Aoibhe", "Cathal", "Deirdre", "Eamon", "Fionnuala", "Gearóid", "Íde", "Lorcan")
SURNAMES = ("Quirke", "Tobin", "Furlong", "Mulcahy")


def _field(line: str, start: int, end: int, value: str) -> str:
    """`line` with its columns start..end (1-based, inclusive, as TRF16 numbers them) set to `value`."""
    width = end - start + 1
    assert len(value) <= width, value
    padded = line.ljust(end)
    return padded[: start - 1] + value.ljust(width) + padded[end:]


def _renamed(text: str, name: str) -> str:
    return "\n".join(("012 " + name) if line.startswith("012 ") else line for line in text.split("\n"))


def masters(*, corrected: bool) -> bytes:
    text = _renamed((SEEDS / "trf" / "standard-limerick-city-open.trf").read_text(encoding="utf-8"), CONGRESS)
    if not corrected:
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("001") and int(line[4:8]) == TYPO_RANK:
                assert line[57:68].strip() == RIGHT_ID
                lines[i] = _field(line, 58, 68, TYPO_ID.rjust(11))
        text = "\n".join(lines)
    return text.encode("utf-8")


def minor() -> bytes:
    text = _renamed((SEEDS / "trf" / "standard-sligo-autumn-open.trf").read_text(encoding="utf-8"), CONGRESS)
    for day in range(22, 27):  # 22–26 October → 15–19 October
        text = text.replace(f"2025/10/{day}", f"2025/10/{day - 7}").replace(
            f"25/10/{day}", f"25/10/{day - 7}"
        )
    lines = []
    for line in text.split("\n"):
        if line.startswith("001"):
            rank = int(line[4:8])
            name = f"{SURNAMES[(rank - 1) // 8]}, {GIVEN[(rank - 1) % 8]}"
            line = _field(line, 15, 47, name)
            line = _field(line, 11, 13, "")  # no title
            line = _field(line, 49, 52, "")  # no rating
            line = _field(line, 58, 68, str(25991000 + rank).rjust(11))
        lines.append(line)
    return "\n".join(lines).encode("utf-8")


def write_files(folder: Path) -> dict[str, Path]:
    """The three files in `folder`, named as the organiser sends them."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "masters": ("limerick-congress-masters.trf", masters(corrected=False)),
        "minor": ("limerick-congress-minor.trf", minor()),
        "corrected": ("limerick-congress-masters-corrected.trf", masters(corrected=True)),
    }
    found = {}
    for key, (name, content) in files.items():
        path = folder / name
        path.write_bytes(content)
        found[key] = path
    return found
