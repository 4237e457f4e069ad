"""TRF16/TRF26 tournament reports read into dataclasses and written back; imports only ratingdb.errors."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import operator
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO, Literal

from ratingdb.errors import NotATrfFile, TrfError
from ratingdb.formats import limits
from ratingdb.formats.time_control import rating_type_for_seconds, read_time_control

__all__ = [
    "MAX_TRF_BYTES",
    "TrfEvent",
    "TrfGame",
    "TrfPlayer",
    "parse_trf",
    "rating_type_for_time_control",
    "read_trf",
    "write_trf16",
]

Sex = Literal["M", "F"]


def as_sex(value: str | None) -> Sex | None:
    """A stored sex code ("M"/"F", anything else unknown) as the formats' typed value."""
    return "M" if value == "M" else "F" if value == "F" else None


@dataclass(frozen=True)
class TrfPlayer:
    """One `001` record, with the national ID and rating of its TRF26 national-rating line if any."""

    rank: int  # starting rank
    line: int  # line number of the 001 record in the file
    name: str
    sex: Sex | None
    title: str | None  # GM IM FM CM WGM WIM WFM WCM
    fide_rating: int | None
    federation: str | None
    fide_id: int | None
    national_id: str | None
    national_rating: int | None
    birth_year: int | None
    points: Decimal | None
    national_federation: str | None = None  # the code that opens the national-rating line
    final_rank: int | None = None  # the rank column (86–89): the player's place in the final standings
    # Not a TRF column: the club an import reads from the federation column when the file writes clubs
    # there (ratingdb.services.matching.split_federation_column); the reader never sets it.
    club: str | None = None


@dataclass(frozen=True)
class TrfGame:
    """One pairing of a round (recorded the same way on both lines), or one bye / unpaired round."""

    round: int
    date: date | None  # round date from record 132
    white: int  # starting rank
    black: int | None  # None for byes and unpaired rounds
    white_result: str  # TRF result code; letters upper-cased, blank read as "Z"
    black_result: str | None
    rated: bool  # §5.1: both sides played (1 = 0 against a real opponent)
    colour_known: bool = True  # False for colour "-": then `white` is the player on the earlier line


@dataclass(frozen=True)
class TrfEvent:
    """A whole tournament report file."""

    source_name: str  # base name of the file
    sha256: str  # hash of the raw bytes, for duplicate detection
    version: Literal[16, 26]
    name: str
    city: str | None
    federation: str | None
    start_date: date
    end_date: date
    time_control: str | None  # record 122, free text
    encoded_time_control: str | None  # TRF26 record 222, e.g. "5400+30"
    rating_type: str | None  # from 222, else 122 read, else the words of 092 ("... (Rapid)"); or None
    rounds: int
    round_dates: tuple[date | None, ...]
    players: tuple[TrfPlayer, ...]
    games: tuple[TrfGame, ...]
    rating_type_record: str | None = None  # "222", "122" or "092": where rating_type was read
    # Without 222: why the file gives no type though it has a 122 (unreadable, or 092 says another type).
    rating_type_problem: str | None = None
    tournament_type: str | None = None  # record 092, free text
    # Every line but the player and national-rating lines, verbatim and in file order (012, 022, 092,
    # 102 chief arbiter, 112 deputies, 132 round dates as written, TRF26 and program records …):
    # written back as they were by `write_trf16`, so that an exported file says what the import read.
    header_records: tuple[str, ...] = ()


# Result codes. Played results are rated (§5.1) when both sides have one against a real opponent.
PLAYED = frozenset("1=0")
RESULT_CODES = limits.RESULT_CODES
BYE_CODES = frozenset("HFUZ")
# What the opponent's line must show for each result on a player's line ("-" against "-" is a double forfeit).
COMPLEMENTS: dict[str, frozenset[str]] = {
    "1": frozenset("0"),
    "0": frozenset("1"),
    "=": frozenset("="),
    "+": frozenset("-"),
    "-": frozenset("+-"),
    "W": frozenset("L"),
    "L": frozenset("W"),
    "D": frozenset("D"),
}
OPPOSITE_COLOUR = {"w": "b", "b": "w", "-": "-"}

TITLES = {
    "GM": "GM", "IM": "IM", "FM": "FM", "CM": "CM",
    "WGM": "WGM", "WIM": "WIM", "WFM": "WFM", "WCM": "WCM",
    "G": "GM", "M": "IM", "F": "FM", "C": "CM",
    "WG": "WGM", "WM": "WIM", "WF": "WFM", "WC": "WCM",
}  # fmt: skip
SEXES: dict[str, Sex] = {"m": "M", "M": "M", "w": "F", "W": "F", "f": "F", "F": "F"}

# Records that exist only in TRF26; any of them makes the file a TRF26 file.
TRF26_RECORDS = frozenset(
    {"142", "152", "162", "172", "182", "192", "202", "212", "222", "310", "352", "362"}
)
HEADER_RECORDS = frozenset({"012", "022", "032", "042", "052", "092", "122", "132", "142", "222"})

FIRST_ROUND_COLUMN = 92
ROUND_WIDTH = 10

# The patterns read on every player line, compiled once.
_DIGITS = re.compile(r"[0-9]+")
_DATE_TEXT = re.compile(r"[0-9./\- ]+")
_POINTS = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")
_RECORD_LETTERS = re.compile(r"[A-Z]{3}")

# Round entries already read, by their text (_Reader.entry): bounded, emptied when full.
_ENTRY_READINGS: dict[str, tuple[int | None, str, str]] = {}
_ENTRY_READINGS_MAX = 10_000


def _field(line: str, first: int, last: int) -> str:
    """Columns `first`..`last` (1-based, inclusive) of `line`, stripped."""
    return line[first - 1 : last].strip()


@dataclass
class _Entry:
    """One round of one player line, as recorded."""

    opponent: int | None
    colour: str  # "w", "b" or "-"
    result: str
    column: int


@dataclass(frozen=True)
class _National:
    """A TRF26 national-rating line."""

    line: int
    rank: int
    federation: str
    national_id: str | None
    rating: int | None


@dataclass
class _PlayerLine:
    player: TrfPlayer
    entries: dict[int, _Entry]  # by round number, in ascending order (the order they are read in)


class _Reader:
    """Parses one file; keeps the file name for errors."""

    def __init__(self, name: str) -> None:
        self.name = name

    def error(self, line: int | None, column: int | None, reason: str) -> TrfError:
        return TrfError(self.name, line, column, reason)

    # -- small fields ---------------------------------------------------------------------------------

    def whole(self, text: str, line: int, column: int, what: str) -> int | None:
        """A whole number field; blank and 0 read as None."""
        if not text:
            return None
        if not limits.ascii_digits(text):
            raise self.error(line, column, f"{what} '{text}' is not a whole number")
        if len(text) > 11:  # the widest number field of a TRF (the FIDE ID)
            raise self.error(line, column, f"{what} '{text[:20]}' is too large")
        value = int(text)
        return value or None

    def text(self, value: str | None, line: int, column: int, what: str, longest: int) -> str | None:
        """A free-text header value, refused when longer than the database keeps."""
        if value is not None and len(value) > longest:
            raise self.error(
                line, column, f"{what} is {len(value)} characters long; at most {longest} are kept"
            )
        return value

    def birth_year(self, text: str, line: int) -> int | None:
        if _DIGITS.search(text) is None:
            return None  # blank, or an empty template such as ".  ."
        parts = _DIGITS.findall(text)
        year: str | None = None
        if len(parts) == 1 and len(parts[0]) == 4:
            year = parts[0]
        elif len(parts) == 3 and len(parts[0]) == 4:
            year = parts[0]
        elif len(parts) == 3 and len(parts[2]) == 4:
            year = parts[2]
        if year is None or _DATE_TEXT.fullmatch(text) is None:
            raise self.error(line, 70, f"birth date '{text}' is not a date")
        if int(year) and not limits.BIRTH_YEARS[0] <= int(year) <= limits.BIRTH_YEARS[1]:
            raise self.error(line, 70, f"birth date '{text}' does not have a four-digit year")
        return int(year) or None

    def rating(self, text: str, line: int, column: int, what: str) -> int | None:
        """A rating field; blank and 0 read as None (unrated)."""
        rating = self.whole(text, line, column, what)
        if rating is not None and rating > limits.RATING_MAX:
            raise self.error(line, column, f"{what} {rating} is more than {limits.RATING_MAX}")
        return rating

    # -- records --------------------------------------------------------------------------------------

    def player(self, text: str, line: int) -> _PlayerLine:
        rank = self.whole(_field(text, 5, 8), line, 5, "starting rank")
        if rank is None:
            raise self.error(line, 5, "the player record has no starting rank")
        title_text = _field(text, 11, 13).upper()
        points_text = _field(text, 81, 84)
        if points_text and _POINTS.fullmatch(points_text) is None:
            raise self.error(line, 81, f"points '{points_text}' is not a number")
        points = Decimal(points_text) if points_text else None
        player = TrfPlayer(
            rank=rank,
            line=line,
            name=self.name_of(text, line),
            sex=SEXES.get(_field(text, 10, 10)),
            title=TITLES.get(title_text),
            fide_rating=self.rating(_field(text, 49, 52), line, 49, "FIDE rating"),
            federation=_field(text, 54, 56) or None,
            fide_id=self.whole(_field(text, 58, 68), line, 58, "FIDE ID"),
            national_id=None,
            national_rating=None,
            birth_year=self.birth_year(_field(text, 70, 79), line),
            points=points,
            # Informational only: a rank column that is not a number (some programs leave text there)
            # is read as none rather than refusing a file whose games are fine.
            final_rank=int(rank_text)
            if (rank_text := _field(text, 86, 89)).isascii() and rank_text.isdigit()
            else None,
        )
        entries: dict[int, _Entry] = {}
        round_number = 1
        column = FIRST_ROUND_COLUMN
        while column <= len(text):
            chunk = text[column - 1 : column + 7]
            if chunk.strip():
                entries[round_number] = self.entry(chunk, line, column, rank)
            round_number += 1
            column += ROUND_WIDTH
        return _PlayerLine(player, entries)

    def name_of(self, text: str, line: int) -> str:
        name = _field(text, 15, 47)
        if not name:
            raise self.error(line, 15, "the player record has no name")
        return name

    def entry(self, chunk: str, line: int, column: int, rank: int) -> _Entry:
        # A file repeats the same few round entries ("  12 w 1") many times over, and what an entry
        # reads as does not depend on where it stands: each distinct text is checked once (the first
        # time it is met, with the refusal at that place) and its reading kept for the next ones.
        known = _ENTRY_READINGS.get(chunk)
        if known is None:
            known = self.entry_reading(chunk, line, column)
            if len(_ENTRY_READINGS) >= _ENTRY_READINGS_MAX:
                _ENTRY_READINGS.clear()
            _ENTRY_READINGS[chunk] = known
        opponent, colour, result = known
        if opponent is not None:
            if opponent == rank:
                raise self.error(line, column, f"player {rank} is paired with themselves")
            if result in BYE_CODES:
                shown = "blank" if chunk.ljust(8)[7] == " " else f"'{result}'"
                raise self.error(line, column + 7, f"result {shown} is a bye but an opponent is given")
        return _Entry(opponent, colour, result, column)

    def entry_reading(self, chunk: str, line: int, column: int) -> tuple[int | None, str, str]:
        """(opponent, colour, result) of a round entry; refused where its text is not one."""
        chunk = chunk.ljust(8)
        opponent_text = chunk[0:4].strip()
        colour = chunk[5].lower()
        result = chunk[7].upper()
        if chunk[4] != " " or chunk[6] != " ":
            raise self.error(line, column, f"round entry '{chunk.rstrip()}' is not in the TRF layout")
        opponent = self.whole(opponent_text, line, column, "opponent")
        if colour == " ":
            colour = "-"
        if colour not in OPPOSITE_COLOUR:
            raise self.error(line, column + 5, f"colour '{chunk[5]}' is not w, b or -")
        if result == " ":
            result = "Z"
        if result not in RESULT_CODES:
            raise self.error(line, column + 7, f"result '{chunk[7]}' is not a TRF result code")
        return opponent, colour, result

    def national(self, text: str, line: int) -> _National:
        rank = self.whole(_field(text, 5, 8), line, 5, "starting rank")
        if rank is None:
            raise self.error(line, 5, "the national-rating line has no starting rank")
        national_id = _field(text, 58, 68) or None
        rating = self.rating(_field(text, 49, 52), line, 49, "national rating")
        return _National(line, rank, text[:3], national_id, rating)


# -- dates ---------------------------------------------------------------------------------------------

# Orders tried for dates written with two-digit parts only; TRF's own YY/MM/DD comes first.
# Swiss-Manager-era files from Ireland write round dates as YY.DD.MM, hence the second order.
TWO_DIGIT_ORDERS = ("ymd", "ydm", "dmy", "mdy")


# Events and rounds are dated inside these years: outside them a "date" is a misread, and the period
# arithmetic (three lists later, the closing date) stays well inside what a date can hold.
YEARS = range(1900, 2100)


def _make_date(year: int, month: int, day: int) -> date | None:
    if year not in YEARS:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _century(two_digits: int) -> int:
    return 2000 + two_digits if two_digits < 70 else 1900 + two_digits


def _read_date(text: str, order: str) -> date | None:
    """`text` read in `order`; four-digit years fix the order (year first: Y-M-D, year last: D-M-Y)."""
    parts = re.findall(r"[0-9]+", text)
    # A part of more than four digits is no date (and int() refuses one of 4,300 digits: the fuzz found it).
    if len(parts) != 3 or max(map(len, parts)) > 4 or re.fullmatch(r"[0-9./\- ]+", text) is None:
        return None
    a, b, c = (int(p) for p in parts)
    if len(parts[0]) == 4:
        return _make_date(a, b, c)
    if len(parts[2]) == 4:
        return _make_date(c, b, a)
    if max(len(p) for p in parts) > 2:
        return None
    by_order = {"ymd": (a, b, c), "ydm": (a, c, b), "dmy": (c, b, a), "mdy": (c, a, b)}
    year, month, day = by_order[order]
    return _make_date(_century(year), month, day)


def _has_fixed_order(text: str) -> bool:
    parts = re.findall(r"[0-9]+", text)
    return len(parts) == 3 and (len(parts[0]) == 4 or len(parts[2]) == 4)


def _read_dates(texts: Iterable[str]) -> dict[str, tuple[date | None, ...]]:
    """Every order under which all non-blank `texts` are dates, with the dates it gives."""
    texts = list(texts)
    readings: dict[str, tuple[date | None, ...]] = {}
    for order in TWO_DIGIT_ORDERS:
        dates = tuple(_read_date(t, order) if t else None for t in texts)
        if all(d is not None for d, t in zip(dates, texts, strict=True) if t):
            readings[order] = dates
    return readings


# -- time control ----------------------------------------------------------------------------------------

_PERIOD = re.compile(r"(?:([0-9]+)/)?([0-9]+)(?:\+([0-9]+))?")


def _time_for_60_moves(periods: str) -> int | None:
    """Seconds a player has for 60 moves under `d[:d]` (FIDE's classification of rates of play)."""
    seconds = 0
    moves = 0
    for period in periods.split(":"):
        match = _PERIOD.fullmatch(period)
        if match is None:
            return None
        period_moves = int(match.group(1)) if match.group(1) else None
        if period_moves == 0:
            return None
        increment = int(match.group(3) or 0)
        if moves >= 60:
            continue
        counted = min(period_moves or 60, 60 - moves)
        seconds += int(match.group(2)) + increment * counted
        moves += counted
    return seconds


def rating_type_for_time_control(encoded: str) -> str | None:
    """The rating type of a TRF26 encoded time control (record 222), or None if it cannot be read.

    Time for 60 moves (base + 60 × increment for a single period) of 60 minutes or more is standard,
    more than 10 minutes rapid, otherwise blitz (formats/time_control.py). Armageddon (`W300-B240`) is
    classified by White's time.
    """
    text = encoded.strip()
    armageddon = re.fullmatch(r"W([^-]+)-B(.+)", text)
    if armageddon:
        if _time_for_60_moves(armageddon.group(2)) is None:
            return None
        text = armageddon.group(1)
    seconds = _time_for_60_moves(text)
    return None if seconds is None else rating_type_for_seconds(seconds)


# -- the file --------------------------------------------------------------------------------------------


MAX_TRF_BYTES = limits.MAX_TRF_BYTES
_LINE_BYTES = limits.LINE_MAX * 4  # a line of LINE_MAX characters in UTF-8


def read_trf(path: Path, *, max_bytes: int = MAX_TRF_BYTES) -> TrfEvent:
    """Read the TRF file at `path` line by line; errors name the file by its base name.

    A file larger than `max_bytes` is refused before it is read.
    """
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise TrfError(
            path.name,
            None,
            None,
            f"the file has {size:,} bytes, more than the {max_bytes:,} a tournament report may have "
            "(RATINGDB_TRF_MAX_BYTES) — check that it is the right file",
        )
    with path.open("rb") as handle:
        return _parse(_Reader(path.name), handle)


def parse_trf(name: str, data: bytes) -> TrfEvent:
    """Parse the bytes of a TRF16 or TRF26 file called `name`; raises TrfError(file, line, column, reason)."""
    return _parse(_Reader(name), io.BytesIO(data))


def _raw_lines(reader: _Reader, handle: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) from the start of `handle`; a line longer than any TRF line is refused."""
    handle.seek(0)
    number = 0
    while raw := handle.readline(_LINE_BYTES + 1):
        number += 1
        if len(raw) > _LINE_BYTES:
            raise reader.error(
                number, None, f"the line is longer than the {limits.LINE_MAX:,} characters of any TRF"
            )
        yield number, raw


def _encoding(reader: _Reader, handle: BinaryIO) -> tuple[str, str]:
    """(encoding, SHA-256 of the bytes): UTF-8 (with or without BOM), else CP1252, else Latin-1.

    Lines end at the byte 0x0A in all three, so each line can be tried on its own: the file is read
    twice, never held whole.
    """
    digest = hashlib.sha256()
    utf8 = cp1252 = True
    for _, raw in _raw_lines(reader, handle):
        digest.update(raw)
        for encoding, fits in (("utf-8", utf8), ("cp1252", cp1252)):
            if fits:
                try:
                    raw.decode(encoding)
                except UnicodeDecodeError:
                    utf8, cp1252 = (False, cp1252) if encoding == "utf-8" else (utf8, False)
    return ("utf-8" if utf8 else "cp1252" if cp1252 else "latin-1"), digest.hexdigest()


def _text_lines(reader: _Reader, handle: BinaryIO, encoding: str) -> Iterator[tuple[int, str]]:
    for number, raw in _raw_lines(reader, handle):
        text = raw.decode(encoding).rstrip("\n").rstrip("\r")
        if number == 1 and encoding == "utf-8":
            text = text.removeprefix("\ufeff")
        yield number, text


def _parse(reader: _Reader, handle: BinaryIO) -> TrfEvent:
    name = reader.name
    encoding, sha256 = _encoding(reader, handle)
    headers: dict[str, tuple[int, str]] = {}
    codes: set[str] = set()
    player_lines: list[_PlayerLine] = []
    national: dict[int, _National] = {}
    header_records: list[str] = []

    for number, text in _text_lines(reader, handle, encoding):
        code = text[:3]
        if not text.strip():
            continue
        # Every line is kept (header records are written back on export): none may carry a control.
        refused = limits.control_character(text)
        if refused is not None:
            raise reader.error(number, refused[0] + 1, f"the control character {refused[1]} is not allowed")
        if code == "###" or code.startswith("XX"):
            header_records.append(text)
            continue
        codes.add(code)
        is_national = _RECORD_LETTERS.fullmatch(code) is not None and limits.ascii_digits(_field(text, 5, 8))
        if code == "001":
            player_lines.append(reader.player(text, number))
        elif code in HEADER_RECORDS:
            headers.setdefault(code, (number, text))
            header_records.append(text)
        elif is_national:
            record = reader.national(text, number)
            if record.rank in national:
                first = national[record.rank].line
                raise reader.error(
                    number,
                    5,
                    f"player {record.rank} has a second national-rating line (first on line {first})",
                )
            national[record.rank] = record
        else:
            # Any other record (102, 112, team records, program extensions) is not read for rating,
            # only kept to be written back.
            header_records.append(text)
    if not player_lines:
        raise NotATrfFile(name, "no 001 player lines")

    def header(code: str, what: str = "", longest: int = 0) -> str | None:
        if code not in headers:
            return None
        line, text = headers[code]
        value = _field(text, 5, len(text)) or None
        return reader.text(value, line, 5, what, longest) if longest else value

    players = _check_players(reader, player_lines, national)
    by_rank = {p.player.rank: p for p in player_lines}

    event_name = header("012", "the tournament name (012)", limits.EVENT_NAME)
    if event_name is None:
        raise reader.error(None, None, "the file has no tournament name (record 012)")

    round_dates = _round_dates(reader, headers)
    rounds = _rounds(reader, headers, round_dates, player_lines)
    _check_pairings(reader, player_lines, by_rank)
    start, end = _event_dates(reader, headers, round_dates)

    encoded = header("222", "the encoded time control (222)", limits.TIME_CONTROL)
    tournament_type = header("092", "the type of tournament (092)", limits.EVENT_NAME)
    time_control = header("122", "the time control (122)", limits.TIME_CONTROL)
    rating_type, type_record, problem = None, None, None
    if encoded is not None:
        rating_type, type_record = rating_type_for_time_control(encoded), "222"
        if rating_type is None:
            raise reader.error(headers["222"][0], 5, f"encoded time control '{encoded}' cannot be read")
    else:
        # Most TRF16 files say the time control only in words (record 122): read it where it is certain,
        # and keep the reason where it is not, so the import says so instead of guessing.
        named = _rating_type_named(tournament_type) if tournament_type is not None else None
        if time_control is not None:
            reading = read_time_control(time_control)
            rating_type, type_record = reading.rating_type, "122"
            if reading.problem is not None:
                problem = f"record 122 '{time_control}' cannot be read as a time control: {reading.problem}"
            elif named is not None and named != rating_type:
                minutes = f"{reading.minutes} minutes for 60 moves, " if reading.seconds is not None else ""
                problem = (
                    f"record 122 '{time_control}' ({minutes}{rating_type}) and record 092 "
                    f"'{tournament_type}' ({named}) disagree"
                )
                rating_type = None
        if rating_type is None and problem is None and named is not None:
            rating_type, type_record = named, "092"
        if rating_type is None:
            type_record = None

    return TrfEvent(
        source_name=name,
        sha256=sha256,
        version=26 if codes & TRF26_RECORDS else 16,
        name=event_name,
        city=header("022", "the city (022)", limits.CITY),
        federation=_federation(reader, headers),
        start_date=start,
        end_date=end,
        time_control=time_control,
        encoded_time_control=encoded,
        rating_type=rating_type,
        rounds=rounds,
        round_dates=round_dates,
        players=players,
        games=_games(player_lines, by_rank, rounds, round_dates),
        rating_type_record=type_record,
        rating_type_problem=problem,
        tournament_type=tournament_type,
        header_records=tuple(header_records),
    )


_TYPE_WORDS = {"standard": "standard", "classical": "standard", "rapid": "rapid", "rapidplay": "rapid",
               "blitz": "blitz", "lightning": "blitz"}  # fmt: skip


def _rating_type_named(text: str) -> str | None:
    """The rating type that record 092 names ("Individual: Swiss-System (Rapid)"), if exactly one."""
    named = {_TYPE_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in _TYPE_WORDS}
    return named.pop() if len(named) == 1 else None


def _federation(reader: _Reader, headers: dict[str, tuple[int, str]]) -> str | None:
    if "032" not in headers:
        return None
    line, text = headers["032"]
    value = _field(text, 5, len(text))
    if len(value) > limits.FEDERATION:
        raise reader.error(line, 5, f"federation '{value}' (032) is not a three-letter code such as IRL")
    return value or None


def _check_players(
    reader: _Reader,
    player_lines: list[_PlayerLine],
    national: dict[int, _National],
) -> tuple[TrfPlayer, ...]:
    """Unique ranks; national-rating lines joined to their players."""
    seen_rank: dict[int, int] = {}
    for entry in player_lines:
        p = entry.player
        if p.rank in seen_rank:
            raise reader.error(
                p.line, 5, f"starting rank {p.rank} is used twice (lines {seen_rank[p.rank]} and {p.line})"
            )
        seen_rank[p.rank] = p.line
        # One ID on two lines is left to the matching step (ratingdb.services.matching), which refuses it
        # with the way out (--drop for a duplicate line without games, --match or --new otherwise).
    for record in national.values():
        if record.rank not in seen_rank:
            raise reader.error(
                record.line, 5, f"national-rating line for starting rank {record.rank}, which has no player"
            )
    players = []
    for entry in player_lines:
        nrs = national.get(entry.player.rank)
        if nrs is not None:
            entry.player = dataclasses.replace(
                entry.player,
                national_id=nrs.national_id,
                national_rating=nrs.rating,
                national_federation=nrs.federation,
            )
        players.append(entry.player)
    return tuple(players)


def _round_dates(reader: _Reader, headers: dict[str, tuple[int, str]]) -> tuple[date | None, ...]:
    """Record 132 read in the one order that makes every date valid (and inside 042..052 when given)."""
    if "132" not in headers:
        return ()
    line, text = headers["132"]
    texts: list[str] = []
    column = FIRST_ROUND_COLUMN
    while column <= len(text):
        texts.append(text[column - 1 : column + 7].strip())
        between = text[column + 7 : column + ROUND_WIDTH - 1]
        if between.strip():
            raise reader.error(
                line, column + 8, "round dates in record 132 must start at columns 92, 102, 112, ..."
            )
        column += ROUND_WIDTH
    if text[4 : FIRST_ROUND_COLUMN - 1].strip():
        raise reader.error(line, 5, "round dates in record 132 must start at column 92")
    while texts and not texts[-1]:
        texts.pop()
    if not texts:
        return ()
    if len(texts) > limits.ROUNDS_MAX:
        raise reader.error(
            line,
            FIRST_ROUND_COLUMN,
            f"record 132 dates more than the {limits.ROUNDS_MAX} rounds ratingdb accepts",
        )
    readings = _read_dates(texts)
    if not readings:
        raise reader.error(line, FIRST_ROUND_COLUMN, f"round dates '{' '.join(texts)}' are not dates")
    start, end = _header_dates(reader, headers)
    if start is not None or end is not None:
        low, high = start or end, end or start
        inside = {
            o: ds
            for o, ds in readings.items()
            if all(low <= d <= high for d in ds if d is not None)  # type: ignore[operator]
        }
        if inside:
            readings = inside
    if "ymd" in readings:
        return readings["ymd"]
    distinct = set(readings.values())
    if len(distinct) > 1:
        raise reader.error(
            line, FIRST_ROUND_COLUMN, f"round dates '{' '.join(texts)}' can be read in more than one way"
        )
    return distinct.pop()


def _header_dates(reader: _Reader, headers: dict[str, tuple[int, str]]) -> tuple[date | None, date | None]:
    """Records 042 and 052, read the same way. Four-digit years fix the order; two-digit dates are read
    as YY/MM/DD (TRF's own order) when that fits, else in the only order that is valid with start <= end."""
    texts = [_field(headers[c][1], 5, len(headers[c][1])) if c in headers else "" for c in ("042", "052")]
    for code, text in zip(("042", "052"), texts, strict=True):
        if text and not any(_read_date(text, o) for o in TWO_DIGIT_ORDERS):
            raise reader.error(headers[code][0], 5, f"date '{text}' is not a date")
    readings = _read_dates(texts)
    if not readings:
        raise reader.error(
            headers["052"][0], 5, f"dates '{texts[0]}' and '{texts[1]}' cannot be read the same way"
        )
    if "ymd" in readings and (_ordered(readings["ymd"]) or any(_has_fixed_order(t) for t in texts if t)):
        start, end = readings["ymd"]
        return start, end
    fitting = {ds for ds in readings.values() if _ordered(ds)}
    if len(fitting) > 1:
        line = headers["042"][0] if texts[0] else headers["052"][0]
        raise reader.error(line, 5, f"date '{texts[0] or texts[1]}' can be read in more than one way")
    start, end = (
        fitting.pop() if fitting else next(iter(readings.values()))
    )  # end < start: the caller says so
    return start, end


def _ordered(dates: tuple[date | None, ...]) -> bool:
    present = [d for d in dates if d is not None]
    return all(a <= b for a, b in zip(present, present[1:], strict=False))


def _event_dates(
    reader: _Reader, headers: dict[str, tuple[int, str]], round_dates: tuple[date | None, ...]
) -> tuple[date, date]:
    """Start and end from 042/052, else from the round dates; a one-date file is a one-day event."""
    start, end = _header_dates(reader, headers)
    known_rounds = [d for d in round_dates if d is not None]
    if start is None:
        start = min(known_rounds) if known_rounds else end
    if end is None:
        end = max(known_rounds) if known_rounds else start
    if start is None or end is None:
        raise reader.error(
            None, None, "the file has no start date (042), end date (052) or round dates (132)"
        )
    if end < start:
        line = headers["052"][0] if "052" in headers else None
        raise reader.error(line, 5 if line else None, f"end date {end} is before start date {start}")
    return start, end


def _rounds(
    reader: _Reader,
    headers: dict[str, tuple[int, str]],
    round_dates: tuple[date | None, ...],
    player_lines: list[_PlayerLine],
) -> int:
    """Number of rounds: record 142, else the round dates, else the longest player line."""
    declared: int | None = None
    if "142" in headers:
        line, text = headers["142"]
        declared = reader.whole(_field(text, 5, len(text)), line, 5, "number of rounds")
        if declared is not None and declared > limits.ROUNDS_MAX:
            raise reader.error(
                line, 5, f"{declared} rounds (142) is more than the {limits.ROUNDS_MAX} ratingdb accepts"
            )
    played = 0
    for entry in player_lines:
        for number, e in entry.entries.items():
            if declared is not None and number > declared:
                raise reader.error(
                    entry.player.line,
                    e.column,
                    f"round {number} is beyond the {declared} rounds of record 142",
                )
            if round_dates and number > len(round_dates):
                raise reader.error(
                    entry.player.line,
                    e.column,
                    f"round {number} is beyond the {len(round_dates)} round dates of record 132",
                )
            if number > limits.ROUNDS_MAX:
                raise reader.error(
                    entry.player.line,
                    e.column,
                    f"round {number} is beyond the {limits.ROUNDS_MAX} rounds ratingdb accepts",
                )
            played = max(played, number)
    return declared or (len(round_dates) if round_dates else played)


def _check_pairings(
    reader: _Reader, player_lines: list[_PlayerLine], by_rank: dict[int, _PlayerLine]
) -> None:
    """Every opponent exists, nobody is paired twice in a round, and both lines of a pairing agree."""
    for entry in player_lines:
        for e in entry.entries.values():
            if e.opponent is not None and e.opponent not in by_rank:
                raise reader.error(
                    entry.player.line, e.column, f"opponent {e.opponent} is not a starting rank in this file"
                )
    claimed: dict[tuple[int, int], int] = {}  # (round, opponent) -> line naming that opponent
    for entry in player_lines:
        for number, e in entry.entries.items():
            if e.opponent is None:
                continue
            key = (number, e.opponent)
            if key in claimed:
                raise reader.error(
                    entry.player.line,
                    e.column,
                    f"player {e.opponent} is paired twice in round {number} (lines {claimed[key]} and "
                    f"{entry.player.line})",
                )
            claimed[key] = entry.player.line
    for entry in player_lines:
        me = entry.player
        for number, e in entry.entries.items():
            if e.opponent is None:
                continue
            other = by_rank[e.opponent]
            theirs = other.entries.get(number)
            where = f"round {number}: player {me.rank} (line {me.line}) has {e.opponent}"
            if theirs is None or theirs.opponent != me.rank:
                shown = "no opponent" if theirs is None or theirs.opponent is None else f"{theirs.opponent}"
                raise reader.error(
                    me.line,
                    e.column,
                    f"{where}, but player {e.opponent} (line {other.player.line}) has {shown}",
                )
            if theirs.colour != OPPOSITE_COLOUR[e.colour]:
                raise reader.error(
                    me.line,
                    e.column + 5,
                    f"{where} with colour '{e.colour}', but player {e.opponent} (line {other.player.line}) "
                    f"has colour '{theirs.colour}'",
                )
            if theirs.result not in COMPLEMENTS[e.result]:
                raise reader.error(
                    me.line,
                    e.column + 7,
                    f"{where} with result '{e.result}', but player {e.opponent} (line {other.player.line}) "
                    f"has result '{theirs.result}'",
                )


_ROUND_AND_LINE = operator.itemgetter(0, 1)


def _games(
    player_lines: list[_PlayerLine],
    by_rank: dict[int, _PlayerLine],
    rounds: int,
    round_dates: tuple[date | None, ...],
) -> tuple[TrfGame, ...]:
    """One game per pairing (built from the earlier line), one per bye or unpaired round."""
    keyed: list[tuple[int, int, TrfGame]] = []
    for entry in player_lines:
        me = entry.player
        for number in range(1, max(rounds, max(entry.entries, default=0)) + 1):
            when = round_dates[number - 1] if number <= len(round_dates) else None
            e = entry.entries.get(number)
            if e is None or e.opponent is None:
                result = e.result if e is not None else "Z"
                game = TrfGame(number, when, me.rank, None, result, None, rated=False, colour_known=False)
                keyed.append((number, me.line, game))
                continue
            other = by_rank[e.opponent]
            if other.player.line < me.line:
                continue  # built when the earlier line was read
            theirs = other.entries[number]
            rated = e.result in PLAYED and theirs.result in PLAYED
            if e.colour == "b":
                game = TrfGame(number, when, other.player.rank, me.rank, theirs.result, e.result, rated)
            else:
                game = TrfGame(
                    number, when, me.rank, other.player.rank, e.result, theirs.result, rated, e.colour == "w"
                )
            keyed.append((number, me.line, game))
    keyed.sort(key=_ROUND_AND_LINE)
    return tuple(g for _, _, g in keyed)


# -- writing ---------------------------------------------------------------------------------------------


def _put(line: list[str], first: int, text: str) -> None:
    """Write `text` into `line` starting at 1-based column `first`."""
    end = first - 1 + len(text)
    if len(line) < end:
        line.extend(" " * (end - len(line)))
    line[first - 1 : end] = text


def _right(value: object, width: int) -> str:
    return str(value).rjust(width)[-width:]


def write_trf16(event: TrfEvent) -> str:
    """The event as TRF16 text (LF line ends). National IDs go on TRF26 national-rating lines, which
    TRF16 readers ignore as unknown records, so that re-reading the text gives the same players.

    The header is the file's own records when the event has them (`header_records`), else rebuilt from
    the event's fields."""
    out = list(event.header_records) or _header(event)
    out += _player_lines(event)
    return "\n".join(out) + "\n"


def _header(event: TrfEvent) -> list[str]:
    """Header records rebuilt from the parsed fields (an event stored without its own records)."""
    out = [f"012 {event.name}"]
    if event.city:
        out.append(f"022 {event.city}")
    if event.federation:
        out.append(f"032 {event.federation}")
    out.append(f"042 {event.start_date:%Y/%m/%d}")
    out.append(f"052 {event.end_date:%Y/%m/%d}")
    out.append(f"062 {len(event.players)}")
    out.append(f"072 {sum(1 for p in event.players if p.fide_rating)}")
    if event.time_control:
        out.append(f"122 {event.time_control}")
    if any(event.round_dates):
        line = list("132")
        for number, when in enumerate(event.round_dates, start=1):
            if when is not None:
                _put(line, FIRST_ROUND_COLUMN + ROUND_WIDTH * (number - 1), f"{when:%y/%m/%d}")
        out.append("".join(line))
    return out


def _player_lines(event: TrfEvent) -> list[str]:
    """The 001 lines with every round, each followed by its national-rating line if any."""
    out: list[str] = []
    entries: dict[int, dict[int, str]] = {p.rank: {} for p in event.players}
    for g in event.games:
        if g.black is None:
            entries[g.white][g.round] = f"0000 - {g.white_result}"
            continue
        white_colour, black_colour = ("w", "b") if g.colour_known else ("-", "-")
        entries[g.white][g.round] = f"{_right(g.black, 4)} {white_colour} {g.white_result}"
        entries[g.black][g.round] = f"{_right(g.white, 4)} {black_colour} {g.black_result}"

    for p in sorted(event.players, key=lambda p: p.rank):
        line = list("001")
        _put(line, 5, _right(p.rank, 4))
        if p.sex:
            _put(line, 10, "m" if p.sex == "M" else "w")
        if p.title:
            _put(line, 11, _right(p.title, 3))
        _put(line, 15, p.name[:33])
        if p.fide_rating:
            _put(line, 49, _right(p.fide_rating, 4))
        if p.federation:
            _put(line, 54, p.federation[:3])
        if p.fide_id:
            _put(line, 58, _right(p.fide_id, 11))
        if p.birth_year:
            _put(line, 70, f"{p.birth_year:04d}")
        if p.points is not None:
            _put(line, 81, _right(f"{p.points:.1f}", 4))
        if p.final_rank is not None:
            _put(line, 86, _right(p.final_rank, 4))
        for number, text in sorted(entries[p.rank].items()):
            _put(line, FIRST_ROUND_COLUMN + ROUND_WIDTH * (number - 1), text)
        out.append("".join(line).rstrip())
        if p.national_id or p.national_rating:
            nrs = list(p.national_federation or event.federation or "NAT")
            _put(nrs, 5, _right(p.rank, 4))
            _put(nrs, 15, p.name[:33])
            if p.national_rating:
                _put(nrs, 49, _right(p.national_rating, 4))
            if p.national_id:
                _put(nrs, 58, _right(p.national_id, 11))
            out.append("".join(nrs).rstrip())
    return out
