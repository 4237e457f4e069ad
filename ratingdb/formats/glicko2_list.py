"""A Glicko-2 list as CSV: players with rating, deviation and volatility; imports ratingdb.formats only."""

# A Glicko list (Glickman's first system) is the same CSV without the volatility column
# (`read_deviation_list(..., volatility=False)`, `write_glicko2_list(..., volatility=False)`).

# The columns are the ratingdb CSV list's player columns (fide_id, national_id, name, federation, sex,
# title, birth_year) and `rating`, `deviation`, `volatility`; the rating and the deviation may have
# decimals (hundredths are kept), the volatility up to six. A blank rating is an unrated player (then the
# deviation and the volatility are blank too); a rated row needs all three: nothing is assumed.

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import TextIO

from ratingdb.errors import DeviationAboveLimit
from ratingdb.formats import limits
from ratingdb.formats.lists import ListRating, ListRow, _csv_field, _Fields

GLICKO2_CSV_COLUMNS = (
    "fide_id", "national_id", "name", "federation", "sex", "title", "birth_year", "rating", "deviation",
    "volatility",
)  # fmt: skip
REQUIRED = ("name", "rating", "deviation", "volatility")


@dataclass(frozen=True, slots=True)
class Glicko2Figures:
    """A row's figures as the list keeps them: rating and deviation in hundredths, σ in millionths."""

    rating_x100: int
    deviation_x100: int
    volatility_x1e6: int

    @property
    def whole_rating(self) -> int:
        return int((Decimal(self.rating_x100) / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _decimal(fields: _Fields, text: str, line: int, column: int, what: str, places: int, most: int) -> int:
    """`text` as a number of 10^−places units, above 0 and at most `most` (in whole units)."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise fields.error(line, column, f"{what} '{text[:40]}' is not a number") from None
    if not value.is_finite() or value <= 0 or value > most:
        raise fields.error(line, column, f"{what} {text[:40]} is out of range: above 0 and at most {most}")
    scaled = value.scaleb(places)
    if scaled != scaled.to_integral_value():
        raise fields.error(line, column, f"{what} {text[:40]} has more than {places} decimals")
    return int(scaled)


@dataclass(frozen=True)
class DeviationLimit:
    """The most a listed deviation may be: the rule set's maximum deviation, or its initial deviation."""

    deviation: float
    kind: str  # "maximum" or "initial"
    rules: str  # the rule set's name


def read_glicko2_list(
    path: Path, rating_type: str, limit: DeviationLimit | None = None
) -> Iterator[tuple[ListRow, Glicko2Figures | None]]:
    """Stream the rows of a Glicko-2 CSV list with their figures (None: unrated); ListFormatError else.

    Each ListRow carries the whole-point rating (half away from zero) for `rating_type`, so the list
    reads like any list everywhere a rating is shown. A deviation above `limit` is refused with its row
    (DeviationAboveLimit): the close would otherwise shrink it (or widen it past what a newcomer has).
    """
    return read_deviation_list(path, rating_type, limit, volatility=True, system="Glicko-2")


def read_deviation_list(
    path: Path, rating_type: str, limit: DeviationLimit | None, *, volatility: bool, system: str
) -> Iterator[tuple[ListRow, Glicko2Figures | None]]:
    """The rows of a CSV list of a system with deviations: Glicko-2's (`volatility`) or Glicko's (without
    one: the figures' volatility is 0, meaning none). `system` names the list in a refusal."""
    columns = GLICKO2_CSV_COLUMNS if volatility else GLICKO2_CSV_COLUMNS[:-1]
    required = REQUIRED if volatility else REQUIRED[:-1]
    fields = _Fields(path.name)
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise fields.error(None, None, f"cannot be read ({exc.strerror})") from None
    try:
        reader = csv.reader(handle)
        header = [h.strip() for h in next(reader, [])]
        if not header:
            raise fields.error(1, None, f"the {system} list has no header row")
        index: dict[str, int] = {}
        for i, column in enumerate(header):
            if column not in columns:
                raise fields.error(
                    1, i + 1, f"column '{column}' is not a {system} list column ({', '.join(columns)})"
                )
            if column in index:
                raise fields.error(1, i + 1, f"column '{column}' appears twice")
            index[column] = i
        for column in required:
            if column not in index:
                raise fields.error(1, None, f"the {system} list has no '{column}' column")
        if "fide_id" not in index and "national_id" not in index:
            raise fields.error(1, None, f"the {system} list needs a 'fide_id' or a 'national_id' column")
        line = 1
        for record in reader:
            line = reader.line_num
            if not any(v.strip() for v in record):
                continue
            if len(record) != len(header):
                raise fields.error(
                    line, None, f"the row has {len(record)} fields but the header has {len(header)}"
                )
            for i, value in enumerate(record):
                fields.plain(value, line, i + 1)
            cells = {c: (record[i].strip(), i + 1) for c, i in index.items()}
            found = _row(fields, cells, line, rating_type, volatility)
            figures = found[1]
            if (
                limit is not None
                and figures is not None
                and figures.deviation_x100 > round(limit.deviation * 100)
            ):
                raise DeviationAboveLimit(
                    fields.name, line, index["deviation"] + 1, record[index["deviation"]].strip(),
                    limit.deviation, limit.kind, limit.rules,
                )  # fmt: skip
            yield found
    except UnicodeDecodeError as e:
        raise fields.error(
            None, None, f"the {system} list is not UTF-8 ({e.reason} at byte {e.start})"
        ) from None
    except csv.Error as e:
        raise fields.error(None, None, f"the {system} list cannot be read: {e}") from None
    finally:
        handle.close()


def _row(
    fields: _Fields, cells: dict[str, tuple[str, int]], line: int, rating_type: str, volatility: bool
) -> tuple[ListRow, Glicko2Figures | None]:
    def get(column: str) -> tuple[str, int]:
        return cells.get(column, ("", 0))

    fide_id = _csv_field(fields.fide_id, get("fide_id"), line)
    national_id = _csv_field(fields.national_id, get("national_id"), line)
    if fide_id is None and national_id is None:
        raise fields.error(line, None, "the row has neither a FIDE ID nor a national ID")
    (rating_text, rating_col), (dev_text, dev_col), (vol_text, vol_col) = (
        get("rating"), get("deviation"), get("volatility")
    )  # fmt: skip
    figures = None
    if rating_text:
        if not dev_text or (volatility and not vol_text):
            missing = "deviation" if not dev_text else "volatility"
            given = "rating, deviation and volatility" if volatility else "rating and deviation"
            raise fields.error(line, None, f"the row is rated but has no {missing}: give {given}")
        figures = Glicko2Figures(
            _decimal(fields, rating_text, line, rating_col, "rating", 2, limits.RATING_MAX),
            _decimal(fields, dev_text, line, dev_col, "deviation", 2, 1000),
            _decimal(fields, vol_text, line, vol_col, "volatility", 6, 1) if volatility else 0,
        )
    elif dev_text or vol_text:
        column = dev_col if dev_text else vol_col
        what = "deviation or volatility" if volatility else "deviation"
        raise fields.error(line, column, f"an unrated row (blank rating) has no {what}")
    rating = ListRating(rating=figures.whole_rating if figures else None, games=None, k=None, games_total=0)
    return (
        ListRow(
            line=line,
            fide_id=fide_id,
            national_id=national_id,
            name=_csv_field(fields.player_name, get("name"), line),
            federation=_csv_field(fields.federation, get("federation"), line),
            sex=_csv_field(fields.sex, get("sex"), line),
            title=_csv_field(fields.title, get("title"), line),
            birth_year=_csv_field(fields.birth_year, get("birth_year"), line),
            flag=None,
            ratings={rating_type: rating},
        ),
        figures,
    )


def write_glicko2_list(
    rows: Iterable[tuple[ListRow, Glicko2Figures | None]], out: TextIO, *, volatility: bool = True
) -> None:
    """Write rows as a Glicko-2 CSV list (every column above; without `volatility`, Glicko's: all but
    the last); it re-imports to the same figures."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GLICKO2_CSV_COLUMNS if volatility else GLICKO2_CSV_COLUMNS[:-1])
    for row, figures in rows:
        shown = ["", "", ""] if volatility else ["", ""]
        if figures is not None:
            shown = [_fixed(figures.rating_x100, 2), _fixed(figures.deviation_x100, 2)]
            if volatility:
                shown.append(_fixed(figures.volatility_x1e6, 6))
        writer.writerow(
            ["" if v is None else str(v) for v in (row.fide_id, row.national_id)]
            + [row.name]
            + ["" if v is None else str(v) for v in (row.federation, row.sex, row.title, row.birth_year)]
            + shown
        )


def _fixed(units: int, places: int) -> str:
    """An integer count of 10^−places as the shortest exact decimal: 146405, 2 → 1464.05; 60000, 6 → 0.06."""
    text = str(Decimal(units).scaleb(-places).normalize())
    return format(Decimal(text), "f")
