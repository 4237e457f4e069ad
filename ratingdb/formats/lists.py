"""Rating lists (ratingdb CSV, FIDE text, FIDE XML) streamed and written; imports ratingdb.errors only."""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import BinaryIO, Literal, TextIO, TypeVar
from xml.parsers import expat

from ratingdb.errors import ListFormatError
from ratingdb.formats import limits
from ratingdb.formats.list_rows import ListFormat, ListRating, ListRow

__all__ = [
    "CSV_COLUMNS",
    "RATING_TYPES",
    "ListFormat",
    "ListRating",
    "ListRow",
    "detect_list_format",
    "read_list",
    "write_csv_list",
    "write_fide_txt",
]

T = TypeVar("T")
RATING_TYPES = ("standard", "rapid", "blitz")
TITLES = frozenset(limits.TITLES)
FLAGS = frozenset({"i", "w", "wi"})
MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


# -- shared field readers --------------------------------------------------------------------------------


class _Fields:
    """Turns the text of one field into a value or a ListFormatError naming file, line and column."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen_fide: set[int] = set()
        self.seen_national: set[str] = set()

    def error(self, line: int | None, column: int | None, reason: str) -> ListFormatError:
        return ListFormatError(self.name, line, column, reason)

    def whole(
        self, text: str, line: int, column: int, what: str, most: int = limits.GAMES_TOTAL_MAX
    ) -> int | None:
        """A whole number from 0 to `most`; blank reads as None."""
        if not text:
            return None
        if not limits.ascii_digits(text):
            raise self.error(line, column, f"{what} '{text[:40]}' is not a whole number")
        if len(text) > len(str(most)) or int(text) > most:
            raise self.error(
                line, column, f"{what} {text[:40]} is more than {most:,}, the most ratingdb accepts"
            )
        return int(text)

    def rating(self, text: str, line: int, column: int) -> int | None:
        """A rating; 0 and blank mean unrated."""
        return self.whole(text, line, column, "rating", limits.RATING_MAX) or None

    def games(self, text: str, line: int, column: int) -> int | None:
        return self.whole(text, line, column, "games", limits.GAMES_MAX)

    def k(self, text: str, line: int, column: int) -> int | None:
        """K; 0 reads as None (FIDE writes 0 for unrated players)."""
        return self.whole(text, line, column, "K", limits.K_MAX) or None

    def player_name(self, text: str, line: int, column: int) -> str:
        if not text:
            raise self.error(line, column or None, "the row has no name")
        if len(text) > limits.PLAYER_NAME:
            raise self.error(
                line,
                column,
                f"the name is {len(text)} characters long; at most {limits.PLAYER_NAME} are kept",
            )
        return text

    def federation(self, text: str, line: int, column: int) -> str | None:
        if len(text) > limits.FEDERATION:
            raise self.error(line, column, f"federation '{text[:40]}' is not a three-letter code such as IRL")
        return text.upper() or None

    def plain(self, text: str, line: int, column: int) -> None:
        """Refuse control and bidi-override characters anywhere in `text` (column: where it starts)."""
        refused = limits.control_character(text)
        if refused is not None:
            raise self.error(line, column + refused[0], f"the control character {refused[1]} is not allowed")

    def birth_year(self, text: str, line: int, column: int) -> int | None:
        year = self.whole(text, line, column, "birth year")
        if not year:
            return None  # FIDE writes 0 for an unknown birth year
        if not limits.BIRTH_YEARS[0] <= year <= limits.BIRTH_YEARS[1]:
            raise self.error(line, column, f"birth year '{text}' is not a four-digit year")
        return year

    def sex(self, text: str, line: int, column: int) -> Literal["M", "F"] | None:
        upper = text.upper()
        if upper == "M":
            return "M"
        if upper == "F":
            return "F"
        if not text:
            return None
        raise self.error(line, column, f"sex '{text}' is not M or F")

    def title(self, text: str, line: int, column: int) -> str | None:
        if not text:
            return None
        upper = text.upper()
        if upper not in TITLES:
            raise self.error(line, column, f"title '{text}' is not one of GM IM FM CM WGM WIM WFM WCM")
        return upper

    def flag(self, text: str, line: int, column: int) -> str | None:
        if not text:
            return None
        if text not in FLAGS:
            raise self.error(line, column, f"flag '{text}' is not i, w or wi")
        return text

    def fide_id(self, text: str, line: int, column: int) -> int | None:
        fide_id = self.whole(text, line, column, "FIDE ID", limits.FIDE_ID_MAX) or None  # 0: none
        if fide_id is not None:
            if fide_id in self.seen_fide:
                raise self.error(line, column, f"FIDE ID {fide_id} appears more than once in the file")
            self.seen_fide.add(fide_id)
        return fide_id

    def national_id(self, text: str, line: int, column: int) -> str | None:
        if not text:
            return None
        if len(text) > limits.NATIONAL_ID:
            raise self.error(
                line, column, f"national ID '{text[:40]}' is longer than {limits.NATIONAL_ID} characters"
            )
        if text in self.seen_national:
            raise self.error(line, column, f"national ID '{text}' appears more than once in the file")
        self.seen_national.add(text)
        return text

    def boolean(self, text: str, line: int, column: int, what: str) -> bool | None:
        lower = text.lower()
        if lower == "true":
            return True
        if lower == "false":
            return False
        if not text:
            return None
        raise self.error(line, column, f"{what} '{text}' is not true or false")


def _check_types(fields: _Fields, rating_types: Sequence[str], one_only: str | None) -> tuple[str, ...]:
    types = tuple(rating_types)
    if not types:
        raise fields.error(None, None, "no rating type was asked for")
    for t in types:
        # A CSV list holds one type, which may be a federation's own (checked by the caller); FIDE's
        # files hold FIDE's three.
        if t not in RATING_TYPES and one_only is None:
            raise fields.error(None, None, f"'{t}' is not a rating type (standard, rapid or blitz)")
    if len(set(types)) != len(types):
        raise fields.error(None, None, "a rating type was asked for twice")
    if one_only is not None and len(types) != 1:
        raise fields.error(1, None, f"{one_only} holds one rating type: ask for exactly one")
    return types


# -- detection -------------------------------------------------------------------------------------------


def detect_list_format(path: Path) -> ListFormat:
    """The format of the list file at `path`, told from its first bytes rather than its name."""
    path = Path(path)
    with path.open("rb") as f:
        head = f.read(4096)
    if head.startswith(b"PK\x03\x04"):
        raise ListFormatError(path.name, None, None, "the file is a ZIP archive: unzip the list first")
    text = head.removeprefix(b"\xef\xbb\xbf").decode("latin-1").lstrip()
    first = text.split("\n", 1)[0]
    if text.startswith("<"):
        return "fide-xml"
    if re.match(r"\s*ID\s+Number\b", first, re.IGNORECASE):
        return "fide-txt"
    names = {c.strip().strip('"').lower() for c in first.split(",")}
    if "name" in names and names & {"fide_id", "national_id"}:
        return "csv"
    raise ListFormatError(path.name, 1, None, "cannot tell whether this is a CSV, FIDE text or FIDE XML list")


# A list file this big is parsed in a second process while its rows are imported (`read_list`'s `ahead`):
# about 60,000 lines, where the process's start (a tenth of a second) is small beside the parsing.
AHEAD_BYTES = 8 * 2**20


def read_list(
    path: Path, *, format: ListFormat | None = None, rating_types: Sequence[str], ahead: bool | None = None
) -> Iterator[ListRow]:
    """Stream the rows of a list file; the header is checked before the first row is yielded.

    Every row carries each type of `rating_types` (unrated ones with rating None). A CSV file, a
    per-type FIDE text list or a per-type FIDE XML list holds exactly one type. Raises ListFormatError.

    With `ahead` (by default for files of AHEAD_BYTES or more) a second process parses the file and
    stays a few batches ahead of the caller, so that parsing overlaps whatever the caller does with the
    rows: the same rows and the same errors, at the same row, on two cores.
    """
    path = Path(path)
    chosen = format or detect_list_format(path)
    fields = _Fields(path.name)
    if chosen == "csv":
        types = _check_types(fields, rating_types, "a CSV list")
    elif chosen in ("fide-txt", "fide-xml"):
        types = _check_types(fields, rating_types, None)
    else:
        raise fields.error(None, None, f"'{chosen}' is not a list format (csv, fide-txt or fide-xml)")
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # reading it raises as it always has
    if ahead is None:
        ahead = size >= AHEAD_BYTES
    if ahead:
        from ratingdb.formats import list_producer

        # its process reads through read_list here
        return _Sized(list_producer.read_ahead(path, chosen, types), size // BYTES_PER_ROW[chosen])
    if chosen == "csv":
        rows = _not_empty(_read_csv(path, fields, types), fields, "no row after the header")
    elif chosen == "fide-txt":
        rows = _not_empty(_read_fide_txt(path, fields, types), fields, "no player line after the header")
    else:
        rows = _not_empty(
            _read_fide_xml(path, fields, types),
            fields,
            "no <player> element in <playerslist> (element names are lowercase)",
        )
    return _Sized(rows, size // BYTES_PER_ROW[chosen])


# About how many bytes of each format hold one row (a FIDE text line is 113 to 133 characters): the file's
# size over these says about how many rows come (for a caller's progress, say; import-list sized SQLite's
# page cache by it until the cache was bounded: issue 32). A row more or less changes nothing written.
BYTES_PER_ROW: dict[ListFormat, int] = {"csv": 40, "fide-txt": 100, "fide-xml": 250}


class _Sized(Iterator[ListRow]):
    """`rows` with `operator.length_hint` giving about how many rows come (from the file's size)."""

    def __init__(self, rows: Iterator[ListRow], expected: int) -> None:
        self.rows, self.expected = rows, expected

    def __next__(self) -> ListRow:
        return next(self.rows)

    def __length_hint__(self) -> int:
        return self.expected

    def close(self) -> None:
        """Close the rows' generator (ends the reading process of a file read ahead)."""
        close = getattr(self.rows, "close", None)
        if close is not None:
            close()


def _not_empty(rows: Iterator[ListRow], fields: _Fields, what: str) -> Iterator[ListRow]:
    """`rows`, refusing a file that holds none (as the TRF reader refuses a file without 001 lines): an
    empty or unrecognised file must never become a list of no players."""
    count = 0
    for row in rows:
        count += 1
        yield row
    if count == 0:
        raise fields.error(
            None, None, f"does not look like a rating list: {what} — give the file with the list's players"
        )


# -- ratingdb CSV ----------------------------------------------------------------------------------------

CSV_COLUMNS = (
    "fide_id",
    "national_id",
    "name",
    "federation",
    "sex",
    "title",
    "birth_year",
    "rating",
    "games",
    "k",
    "flag",
    "games_total",
    "reached_2400",
    "reached_2300",
)


def _read_csv(path: Path, fields: _Fields, types: tuple[str, ...]) -> Iterator[ListRow]:
    (rating_type,) = types
    handle = path.open(encoding="utf-8-sig", newline="")
    reader = csv.reader(handle)
    try:
        header = [h.strip() for h in next(reader, [])]
        if not header:
            raise fields.error(1, None, "the CSV list has no header row")
        index: dict[str, int] = {}
        for i, column in enumerate(header):
            if column not in CSV_COLUMNS:
                # A quoted header cell can span lines: the error stays one line.
                shown = column.replace("\r", "\\r").replace("\n", "\\n")
                raise fields.error(
                    1, i + 1, f"column '{shown}' is not a list column ({', '.join(CSV_COLUMNS)})"
                )
            if column in index:
                raise fields.error(1, i + 1, f"column '{column}' appears twice")
            index[column] = i
        if "name" not in index:
            raise fields.error(1, None, "the CSV list has no 'name' column")
        if "fide_id" not in index and "national_id" not in index:
            raise fields.error(1, None, "the CSV list needs a 'fide_id' or a 'national_id' column")
        yield from _csv_rows(reader, index, len(header), fields, rating_type)
    except UnicodeDecodeError as e:
        raise fields.error(None, None, f"the CSV list is not UTF-8 ({e.reason} at byte {e.start})") from None
    except csv.Error as e:
        # The reader's line_num is the line it had reached: the one holding the field it refused.
        at_line = reader.line_num or None
        if "field larger than field limit" in str(e):
            limit = csv.field_size_limit()
            at_column = _long_field_column(path, at_line, limit) if at_line else None
            raise fields.error(
                at_line,
                at_column,
                f"the field is longer than {limit:,} characters, more than any list column holds",
            ) from None
        raise fields.error(at_line, None, f"the CSV list cannot be read: {e}") from None
    finally:
        handle.close()


def _long_field_column(path: Path, line: int, limit: int) -> int | None:
    """The column of the first field longer than `limit` on physical line `line` (quotes followed)."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        for number, text in enumerate(handle, start=1):
            if number < line:
                continue
            column, size, quoted = 1, 0, False
            for char in text:
                if char == '"':
                    quoted = not quoted
                elif char == "," and not quoted:
                    column, size = column + 1, 0
                    continue
                size += 1
                if size > limit:
                    return column
            return None
    return None


def _csv_rows(
    reader: Iterator[list[str]], index: dict[str, int], width: int, fields: _Fields, rating_type: str
) -> Iterator[ListRow]:
    line = 1
    for record in reader:
        line = getattr(reader, "line_num", line + 1)
        if not any(v.strip() for v in record):
            continue
        if len(record) != width:
            raise fields.error(line, None, f"the row has {len(record)} fields but the header has {width}")

        for i, value in enumerate(record):
            fields.plain(value, line, i + 1)
        cells = {column: (record[i].strip(), i + 1) for column, i in index.items()}

        def get(column: str, cells: dict[str, tuple[str, int]] = cells) -> tuple[str, int]:
            return cells.get(column, ("", 0))

        fide_id = _csv_field(fields.fide_id, get("fide_id"), line)
        national_id = _csv_field(fields.national_id, get("national_id"), line)
        if fide_id is None and national_id is None:
            raise fields.error(line, None, "the row has neither a FIDE ID nor a national ID")
        name = _csv_field(fields.player_name, get("name"), line)
        rating = ListRating(
            rating=_csv_field(fields.rating, get("rating"), line),
            games=_csv_field(fields.games, get("games"), line),
            k=_csv_field(fields.k, get("k"), line),
            games_total=_csv_whole(fields, get("games_total"), line, "games_total"),
            reached_2400=_csv_bool(fields, get("reached_2400"), line, "reached_2400"),
            reached_2300=_csv_bool(fields, get("reached_2300"), line, "reached_2300"),
        )
        yield ListRow(
            line=line,
            fide_id=fide_id,
            national_id=national_id,
            name=name,
            federation=_csv_field(fields.federation, get("federation"), line),
            sex=_csv_field(fields.sex, get("sex"), line),
            title=_csv_field(fields.title, get("title"), line),
            birth_year=_csv_field(fields.birth_year, get("birth_year"), line),
            flag=_csv_field(fields.flag, get("flag"), line),
            ratings={rating_type: rating},
        )


def _csv_field(read: Callable[[str, int, int], T], value: tuple[str, int], line: int) -> T:
    text, column = value
    return read(text, line, column)


def _csv_whole(fields: _Fields, value: tuple[str, int], line: int, what: str) -> int | None:
    return fields.whole(value[0], line, value[1], what)


def _csv_bool(fields: _Fields, value: tuple[str, int], line: int, what: str) -> bool | None:
    return fields.boolean(value[0], line, value[1], what)


def _yes_no(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


def _text(value: object) -> str:
    return "" if value is None else str(value)


def write_csv_list(rows: Iterable[ListRow], out: TextIO, rating_type: str) -> None:
    """Write `rows` as a ratingdb CSV list of `rating_type`, with every column of the spec."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        r = row.ratings.get(rating_type) or ListRating(None, None, None)
        writer.writerow(
            [
                _text(row.fide_id),
                _text(row.national_id),
                row.name,
                _text(row.federation),
                _text(row.sex),
                _text(row.title),
                _text(row.birth_year),
                _text(r.rating),
                _text(r.games),
                _text(r.k),
                _text(row.flag),
                _text(r.games_total),
                _yes_no(r.reached_2400),
                _yes_no(r.reached_2300),
            ]
        )


# -- FIDE fixed-width text -------------------------------------------------------------------------------

# Header tokens (lower case) and the field each one heads; "mon" stands for a per-type block's date token.
_TXT_FIELDS = {
    "id number": "fide_id",
    "name": "name",
    "fed": "federation",
    "sex": "sex",
    "tit": "title",
    "wtit": "women_title",
    "b-day": "birth_year",
    "flag": "flag",
    "srtng": "standard.rating",
    "sgm": "standard.games",
    "sk": "standard.k",
    "rrtng": "rapid.rating",
    "rgm": "rapid.games",
    "rk": "rapid.k",
    "brtng": "blitz.rating",
    "bgm": "blitz.games",
    "bk": "blitz.k",
    "mon": "single.rating",
    "gms": "single.games",
    "k": "single.k",
}
_REQUIRED = ("fide_id", "name")


_LINE_BYTES = limits.LINE_MAX * 4  # a line of LINE_MAX characters in UTF-8


def _decode_line(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _header_spans(header: str, fields: _Fields) -> dict[str, tuple[int, int | None]]:
    """Field -> (start, end) character offsets: each field runs from its header token to the next."""
    tokens = [(m.group(), m.start()) for m in re.finditer(r"\S+", header)]
    merged: list[tuple[str, int]] = []
    for token, start in tokens:
        if merged and merged[-1][0].lower() == "id" and token.lower() == "number":
            merged[-1] = ("ID Number", merged[-1][1])
        else:
            merged.append((token, start))
    spans: dict[str, tuple[int, int | None]] = {}
    for i, (token, start) in enumerate(merged):
        key = token.lower()
        if re.fullmatch(r"[a-z]{3}\d{2}", key):
            key = "mon"
        field = _TXT_FIELDS.get(key)
        if field is None:
            continue  # OTit, FOA and any newer column: skipped, their offsets still bound the others
        if field in spans:
            raise fields.error(1, start + 1, f"header column '{token}' appears twice")
        end = merged[i + 1][1] if i + 1 < len(merged) else None
        spans[field] = (start, end)
    for field in _REQUIRED:
        if field not in spans:
            raise fields.error(
                1, None, f"the header has no '{'ID Number' if field == 'fide_id' else 'Name'}' column"
            )
    return spans


def _read_fide_txt(path: Path, fields: _Fields, types: tuple[str, ...]) -> Iterator[ListRow]:
    with path.open("rb") as handle:
        yield from _fide_txt_rows(handle, fields, types)


def _fide_txt_rows(handle: BinaryIO, fields: _Fields, types: tuple[str, ...]) -> Iterator[ListRow]:
    header = _decode_line(handle.readline().removeprefix(b"\xef\xbb\xbf")).rstrip("\r\n")
    spans = _header_spans(header, fields)
    per_type = "single.rating" in spans
    blocks: list[tuple[str, str]] = []  # (rating type asked for, block name in `spans`)
    if per_type:
        if len(types) != 1:
            raise fields.error(1, None, "a per-type FIDE list holds one rating type: ask for exactly one")
        blocks.append((types[0], "single"))
    else:
        for t in types:
            if f"{t}.rating" not in spans:
                raise fields.error(1, None, f"the header has no {t} rating column")
            blocks.append((t, t))

    def span(field: str) -> tuple[int, int | None]:
        return spans.get(field, (0, 0))

    id_a, id_b = span("fide_id")
    name_a, name_b = span("name")
    fed_a, fed_b = span("federation")
    sex_a, sex_b = span("sex")
    tit_a, tit_b = span("title")
    wtit_a, wtit_b = span("women_title")
    bday_a, bday_b = span("birth_year")
    flag_a, flag_b = span("flag")
    block_spans = [(t, span(f"{b}.rating"), span(f"{b}.games"), span(f"{b}.k")) for t, b in blocks]

    # Sex, title, flag, birth year, games, K and ratings take few distinct values: each text is checked
    # once and its value remembered, which keeps a 1.9-million-line list well inside half a minute.
    def remembered(read: Callable[[str, int, int], object], column: int) -> Callable[[str, int], object]:
        seen: dict[str, object] = {}

        def value(text: str, line: int) -> object:
            try:
                return seen[text]
            except KeyError:
                result = seen[text] = read(text, line, column)
                return result

        return value

    sex = remembered(fields.sex, sex_a + 1)
    title = remembered(fields.title, tit_a + 1)
    women_title = remembered(fields.title, wtit_a + 1)
    birth_year = remembered(fields.birth_year, bday_a + 1)
    flag = remembered(fields.flag, flag_a + 1)
    federation = remembered(fields.federation, fed_a + 1)
    readers = [
        (
            rating_type,
            ra,
            rb,
            remembered(fields.rating, ra + 1),
            ga,
            gb,
            remembered(fields.games, ga + 1),
            ka,
            kb,
            remembered(fields.k, ka + 1),
        )
        for rating_type, (ra, rb), (ga, gb), (ka, kb) in block_spans
    ]
    ratings_seen: dict[tuple[object, object, object], ListRating] = {}  # equal ratings share one object
    seen_ids = fields.seen_fide

    line = 1
    while raw := handle.readline(_LINE_BYTES + 1):
        line += 1
        if len(raw) > _LINE_BYTES:
            raise fields.error(
                line, None, f"the line is longer than the {limits.LINE_MAX:,} characters of a list line"
            )
        text = _decode_line(raw).rstrip("\r\n")
        if not text.strip():
            continue
        fields.plain(text, line, 1)
        fide_text = text[id_a:id_b].strip()
        if (
            fide_text.isascii()
            and fide_text.isdigit()
            and len(fide_text) <= 11
            and int(fide_text) not in seen_ids
        ):
            fide_id: int | None = int(fide_text)
            seen_ids.add(fide_id)  # type: ignore[arg-type]
        else:
            fide_id = fields.fide_id(fide_text, line, id_a + 1)  # raises for a bad or repeated ID
            if fide_id is None:
                raise fields.error(line, id_a + 1, "the row has no FIDE ID")
        name = fields.player_name(text[name_a:name_b].strip(), line, name_a + 1)
        ratings: dict[str, ListRating] = {}
        for rating_type, ra, rb, rating, ga, gb, games, ka, kb, k in readers:
            key = (
                rating(text[ra:rb].strip(), line),
                games(text[ga:gb].strip(), line),
                k(text[ka:kb].strip(), line),
            )
            entry = ratings_seen.get(key)
            if entry is None:
                entry = ratings_seen[key] = ListRating(*key)  # type: ignore[arg-type]
            ratings[rating_type] = entry
        yield ListRow(
            line,
            fide_id,
            None,
            name,
            federation(text[fed_a:fed_b].strip(), line),  # type: ignore[arg-type]
            sex(text[sex_a:sex_b].strip(), line),  # type: ignore[arg-type]
            title(text[tit_a:tit_b].strip(), line) or women_title(text[wtit_a:wtit_b].strip(), line),  # type: ignore[arg-type]
            birth_year(text[bday_a:bday_b].strip(), line),  # type: ignore[arg-type]
            flag(text[flag_a:flag_b].strip(), line),  # type: ignore[arg-type]
            ratings,
        )


# Column starts of FIDE's per-type layout (the combined header of the spec up to FOA, then one block).
_TXT_LAYOUT = (
    ("ID Number", 0),
    ("Name", 15),
    ("Fed", 76),
    ("Sex", 80),
    ("Tit", 84),
    ("WTit", 89),
    ("OTit", 94),
    ("FOA", 109),
    ("{month}", 113),
    ("Gms", 119),
    ("K", 123),
    ("B-day", 126),
    ("Flag", 132),
)


def _fixed(values: Sequence[str]) -> str:
    line = ""
    for (_, start), value in zip(_TXT_LAYOUT, values, strict=True):
        if len(line) < start:
            line = line.ljust(start)
        elif line:
            line += " "  # a value too wide for its column still leaves one space before the next
        line += value
    return line.rstrip()


def write_fide_txt(rows: Iterable[ListRow], out: TextIO, rating_type: str, list_date: date) -> None:
    """Write `rows` as a per-type FIDE text list of `rating_type`, headed like FIDE's (`NOV25 Gms K`)."""
    month = f"{MONTHS[list_date.month - 1]}{list_date:%y}"
    out.write(_fixed([name.format(month=month) for name, _ in _TXT_LAYOUT]) + "\n")
    for row in rows:
        r = row.ratings.get(rating_type) or ListRating(None, None, None)
        values = [
            _text(row.fide_id),
            row.name[:60],
            _text(row.federation),
            _text(row.sex),
            _text(row.title),
            "",
            "",
            "",
            _text(r.rating),
            _text(r.games),
            _text(r.k),
            _text(row.birth_year or 0),
            _text(row.flag),
        ]
        out.write(_fixed(values) + "\n")


# -- FIDE XML --------------------------------------------------------------------------------------------

_XML_TYPES = {"standard": "", "rapid": "rapid_", "blitz": "blitz_"}
XML_FIELD_MAX = 1_000  # characters in one field: the longest kept (a name) has 120
XML_FIELDS_MAX = 100  # distinct fields in one <player>: FIDE's have about 20


class _XmlPlayers:
    """Expat handlers collecting each <player> as {element: (text, line, column)}."""

    def __init__(self, parser: expat.XMLParserType, fields: _Fields) -> None:
        self.parser = parser
        self.fields = fields
        self.root: str | None = None
        self.player: tuple[int, dict[str, tuple[str, int, int]]] | None = None
        self.field: tuple[str, int, int] | None = None
        self.text: list[str] = []
        self.size = 0
        self.done: list[tuple[int, dict[str, tuple[str, int, int]]]] = []
        parser.StartDoctypeDeclHandler = self.refuse_doctype
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.data

    def refuse_doctype(self, *_: object) -> None:
        raise self.fields.error(
            self.parser.CurrentLineNumber, None, "the XML list may not contain a document type"
        )

    def start(self, name: str, _attrs: dict[str, str]) -> None:
        line = self.parser.CurrentLineNumber
        if self.root is None:
            if name != "playerslist":
                raise self.fields.error(line, None, f"the XML root is <{name}>, not <playerslist>")
            self.root = name
        elif name == "player":
            self.player = (line, {})
        elif self.player is not None:
            if len(self.player[1]) >= XML_FIELDS_MAX and name not in self.player[1]:
                raise self.fields.error(line, None, f"the player has more than {XML_FIELDS_MAX} fields")
            self.field = (name, line, self.parser.CurrentColumnNumber + 1)
            self.text.clear()
            self.size = 0

    def end(self, name: str) -> None:
        if self.field is not None and self.field[0] == name and self.player is not None:
            field, line, column = self.field
            self.player[1][field] = ("".join(self.text).strip(), line, column)
            self.field = None
        elif name == "player" and self.player is not None:
            self.done.append(self.player)
            self.player = None

    def data(self, chunk: str) -> None:
        if self.field is not None:
            # Capped while it streams in: a huge <name> is refused without ever being held whole.
            self.size += len(chunk)
            if self.size > XML_FIELD_MAX:
                field, line, column = self.field
                raise self.fields.error(
                    line, column, f"<{field}> is longer than {XML_FIELD_MAX:,} characters"
                )
            self.text.append(chunk)


def _read_fide_xml(path: Path, fields: _Fields, types: tuple[str, ...]) -> Iterator[ListRow]:
    """Streamed with expat (line numbers for errors, no DTDs, each player dropped once converted)."""
    parser = expat.ParserCreate()
    players = _XmlPlayers(parser, fields)
    mode: dict[str, str] | None = None
    with path.open("rb") as handle:
        while True:
            chunk = handle.read(1 << 16)
            try:
                parser.Parse(chunk, not chunk)
            except expat.ExpatError as e:
                reason = f"not well-formed XML ({expat.ErrorString(e.code)})"
                raise fields.error(e.lineno, e.offset + 1, reason) from None
            except LookupError as e:
                # The XML declaration names an encoding Python does not know (expat asks codecs for it).
                reason = f"the XML declaration names an unknown encoding ({e}): use UTF-8 or ISO-8859-1"
                raise fields.error(1, None, reason) from None
            for line, values in players.done:
                if mode is None:
                    combined = any(k.startswith(("rapid_", "blitz_")) for k in values)
                    if not combined and len(types) != 1:
                        reason = "a per-type FIDE list holds one rating type: ask for exactly one"
                        raise fields.error(line, None, reason)
                    mode = {t: _XML_TYPES[t] if combined else "" for t in types}
                yield _xml_row(fields, line, values, mode)
            players.done.clear()
            if not chunk:
                break
    if players.root is None:
        raise fields.error(None, None, "the XML list has no <playerslist> element")


def _xml_row(
    fields: _Fields, line: int, values: dict[str, tuple[str, int, int]], mode: dict[str, str]
) -> ListRow:
    def get(name: str) -> tuple[str, int, int]:
        return values.get(name, ("", line, 0))

    for text, text_line, column in values.values():
        fields.plain(text, text_line, column)
    fide_text, fide_line, fide_col = get("fideid")
    if not fide_text:
        raise fields.error(line, None, "the player has no <fideid>")
    name_text, name_line, name_column = get("name")
    if not name_text:
        raise fields.error(line, None, "the player has no <name>")
    name = fields.player_name(name_text, name_line, name_column)
    ratings: dict[str, ListRating] = {}
    for rating_type, prefix in mode.items():
        r = get(f"{prefix}rating")
        g = get(f"{prefix}games")
        k = get(f"{prefix}k")
        ratings[rating_type] = ListRating(
            fields.rating(r[0], r[1], r[2]),
            fields.games(*g),
            fields.k(*k),
        )
    sex, title, birthday, flag = get("sex"), get("title"), get("birthday"), get("flag")
    return ListRow(
        line=line,
        fide_id=fields.fide_id(fide_text, fide_line, fide_col),
        national_id=None,
        name=name,
        federation=fields.federation(*get("country")),
        sex=fields.sex(*sex),
        title=fields.title(*title) or fields.title(*get("w_title")),
        birth_year=fields.birth_year(*birthday),
        flag=fields.flag(*flag),
        ratings=ratings,
    )
