"""Time controls as written in tournament files, read into the time for a 60-move game; imports nothing."""

# FIDE classes a rate of play by the time each player has for a game of 60 moves: the base time(s) plus 60
# times the increment (Laws of Chess, Appendix A.1 and B.1; FIDE Rating Regulations B.02 §1.1, which also
# asks more of standard games between players rated 1800 or 2400 and above: 90 and 120 minutes). The
# project's rulebook (spec/fide-rules.md) does not state these thresholds; docs/rules/index.md says so.
#
#     standard   60 minutes or more
#     rapid      more than 10 minutes and less than 60
#     blitz      10 minutes or less
#
# TRF16 files carry the time control only as record 122, free text written by people and pairing programs
# ("90 min for 40 moves + 30 min, 30 s per move from move 1", "G/90+30", "90'+30''", "1:30 + 10 from move
# 1"). `read_time_control` reads the forms whose meaning is certain and says why for the others ("90 min +
# 30": thirty minutes more, or thirty seconds a move?) rather than guess.
#

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["TimeControl", "rating_type_for_seconds", "read_time_control"]

STANDARD_SECONDS = 60 * 60  # 60 minutes or more for 60 moves
BLITZ_SECONDS = 10 * 60  # 10 minutes or less
MOVES = 60  # the game length the classification assumes


def rating_type_for_seconds(seconds: int) -> str:
    """The rating type of a rate of play giving each player `seconds` for 60 moves."""
    if seconds >= STANDARD_SECONDS:
        return "standard"
    if seconds > BLITZ_SECONDS:
        return "rapid"
    return "blitz"


class TimeControl(NamedTuple):
    """What a record 122 says: the seconds each player has for 60 moves and the type they give, or why the
    text cannot be read (`problem`, then `seconds` and `rating_type` are None)."""

    text: str
    seconds: int | None
    rating_type: str | None
    problem: str | None = None

    @property
    def minutes(self) -> str:
        """The time for 60 moves in minutes, as a person writes it: "150", "92.5"."""
        if self.seconds is None:
            return "?"
        whole, part = divmod(self.seconds, 60)
        return str(whole) if not part else f"{self.seconds / 60:g}"


_TYPE_WORDS = {
    "standard": "standard", "classical": "standard", "classic": "standard", "rapid": "rapid",
    "rapidplay": "rapid", "quickplay": "rapid", "blitz": "blitz", "lightning": "blitz",
}  # fmt: skip
# Words that carry no number and change nothing once the numbers around them are read.
_FILLER = frozenset(
    "in for the a an of each player players per with then and plus followed by game all moves move rest "
    "remaining sudden death sd fischer increment increments inc incr bonus added on to time control "
    "tc".split()
)
_INCREMENT_WORDS = re.compile(
    r"\b(?:per|a|each|every)\s+moves?\b|/\s*moves?\b|\bincrements?\b|\binc\b|\bincr\b|\bbonus\b|\bfischer\b"
)
_FROM_MOVE = re.compile(r"\bfrom\s+(?:the\s+)?(?:move\s*(?:no\.?\s*)?(\d+)|(first|1st)\s+move|start)\b")
_DELAY = re.compile(r"\b(?:delay|bronstein|d\d+)\b")

_H_MM = r"(\d+):([0-5]\d)"  # 1:30
_HOURS = r"(\d+)\s*(?:hours?|hrs?|h)(?![a-z])\s*(?:(\d+)\s*(?:minutes?|mins|min|m(?![a-z])|')?)?"  # 2h, 1h30
_MINUTES = r"(\d+)\s*(?:minutes?|mins|min|mn|m(?![a-z])|')"
_SECONDS = r"(\d+)\s*(?:seconds?|secs|sec|s(?![a-z])|\")"
_TIME = rf"(?:{_H_MM}|{_HOURS}|{_MINUTES}|(\d+))"  # a base time (a bare number: minutes)
_TOKEN = re.compile(
    rf"(?P<moves_first>(\d+)\s*(?:moves?\s*)?(?:in|/)\s*{_TIME})"  # 40/90, 40 moves in 90 minutes
    rf"|(?P<time_first>{_TIME}\s*(?:for|/)\s*(\d+)\s*moves?)"  # 90 min for 40 moves, 90 min/40 moves
    r"|(?P<moves>\d+\s*moves?(?![a-z]))"  # a number of moves without its time
    rf"|(?P<seconds>{_SECONDS})"
    rf"|(?P<time>{_H_MM}|{_HOURS}|{_MINUTES})"
    r"|(?P<bare>\d+)"
    r"|(?P<plus>\+|\bplus\b|&)"
    r"|(?P<sep>[,;]|\bthen\b|\band\b|\bfollowed\s+by\b)"
    r"|(?P<word>[a-z]+\.?)"
    r"|(?P<space>[\s/.:()\-]+)"
)


class _Item(NamedTuple):
    kind: str  # "period" (a base time, `moves` None for the rest of the game), "seconds", "bare"
    seconds: int
    moves: int | None
    after_plus: bool


def read_time_control(text: str) -> TimeControl:
    """Record 122 read: the seconds for 60 moves and the type, or the reason it cannot be read."""
    original = " ".join(text.split())
    t = _normalised(original)
    named = {_TYPE_WORDS[w] for w in re.findall(r"[a-z]+", t) if w in _TYPE_WORDS}
    if len(named) > 1:
        return _unread(original, f"it names {' and '.join(sorted(named))}")
    if _DELAY.search(t):
        return _unread(original, "it has a delay, which the 60-move classification does not count")
    from_move = 1
    found = _FROM_MOVE.search(t)
    if found:
        from_move = int(found.group(1)) if found.group(1) else 1
        if from_move < 1:
            return _unread(original, f"an increment from move {from_move}")
        t = t[: found.start()] + " " + t[found.end() :]
    marked = found is not None or _INCREMENT_WORDS.search(t) is not None
    t = _INCREMENT_WORDS.sub(" ", t)
    for word in _TYPE_WORDS:
        t = re.sub(rf"\b{word}\b", " ", t)
    t = re.sub(r"\bg\s*/?\s*(?=\d)", " ", t)  # G/90, G90: a game in 90 minutes

    items, problem = _items(t)
    if problem:
        return _unread(original, problem)
    if not items:
        if named:
            return TimeControl(original, None, named.pop())  # only words: "Rapid"
        return _unread(original, "it gives no time")
    items, problem = _increments(items, marked)
    if problem:
        return _unread(original, problem)
    periods = [i for i in items if i.kind == "period"]
    increments = {i.seconds for i in items if i.kind == "seconds"}
    if not periods:
        return _unread(original, "it gives an increment but no base time")
    if len(increments) > 1:
        return _unread(original, "it gives more than one increment")
    seconds = _seconds_for_60_moves(periods)
    increment = increments.pop() if increments else 0
    seconds += increment * max(0, MOVES + 1 - from_move)
    rating_type = rating_type_for_seconds(seconds)
    reading = TimeControl(original, seconds, rating_type)
    if named and named != {rating_type}:
        return _unread(
            original,
            f"it says {named.pop()} but gives {reading.minutes} minutes for 60 moves, which is {rating_type}",
        )
    return reading


def _normalised(text: str) -> str:
    t = text.lower()
    for quote in ("’", "‘", "′", "´", "`"):
        t = t.replace(quote, "'")
    for double in ("''", "″", "“", "”"):
        t = t.replace(double, '"')
    return t


def _unread(text: str, why: str) -> TimeControl:
    return TimeControl(text, None, None, why)


def _items(text: str) -> tuple[list[_Item], str | None]:
    """The times in `text` in order, or what could not be read."""
    items: list[_Item] = []
    after_plus = False
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return [], f"'{text[position:].strip()}' is not a time"
        position = match.end()
        kind = match.lastgroup
        if kind == "space":
            continue
        if kind == "plus":
            after_plus = True
            continue
        if kind == "sep":
            after_plus = False
            continue
        if kind == "word":
            word = match.group(0).rstrip(".")
            if word not in _FILLER:
                return [], f"the word '{word}' is not understood"
            continue
        token = match.group(0)
        if kind == "moves":
            return [], f"'{token}' has no time"
        if kind == "seconds":
            items.append(_Item("seconds", _number(token), None, after_plus))
        elif kind == "bare":
            items.append(_Item("bare", int(token), None, after_plus))
        elif kind == "time":
            items.append(_Item("period", _time_seconds(token), None, after_plus))
        else:  # a period with a number of moves
            moves_text, time_text = _moves_and_time(token, moves_first=kind == "moves_first")
            moves = int(moves_text)
            if moves == 0:
                return [], "a period of 0 moves"
            items.append(_Item("period", _time_seconds(time_text), moves, after_plus))
        after_plus = False
    return items, None


def _moves_and_time(token: str, *, moves_first: bool) -> tuple[str, str]:
    if moves_first:
        found = re.match(r"(\d+)\s*(?:moves?\s*)?(?:in|/)\s*(.+)", token)
    else:
        found = re.match(r"(.+?)\s*(?:for|/)\s*(\d+)\s*moves?$", token)
    assert found is not None  # the token matched the same shape
    return (found.group(1), found.group(2)) if moves_first else (found.group(2), found.group(1))


def _time_seconds(token: str) -> int:
    """A base time's seconds: 1:30, 2h, 1h30, 90 min, 90' or a bare number of minutes."""
    token = token.strip()
    if m := re.fullmatch(_H_MM, token):
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60
    if m := re.fullmatch(_HOURS, token):
        return int(m.group(1)) * 3600 + int(m.group(2) or 0) * 60
    return _number(token) * 60


def _number(token: str) -> int:
    """The number a token starts with."""
    return int(re.match(r"\d*", token).group(0) or 0)  # type: ignore[union-attr]


def _increments(items: list[_Item], marked: bool) -> tuple[list[_Item], str | None]:
    """Bare numbers resolved: minutes of a period, or an increment in seconds where the text says so.

    "90+30", "G/90+30", "25+10": base minutes + increment seconds, the way players write it when nothing
    has a unit. A bare number after "+" that follows a time with a unit is an increment only when the text
    says "per move", "from move 1" or "increment"; otherwise ("90 min + 30") it could be either.
    """
    resolved: list[_Item] = []
    units = any(i.kind != "bare" for i in items)
    for index, item in enumerate(items):
        if item.kind != "bare":
            resolved.append(item)
        elif not item.after_plus:
            resolved.append(item._replace(kind="period", seconds=item.seconds * 60))
        elif marked or (not units and index == len(items) - 1 and len(items) == 2):
            resolved.append(item._replace(kind="seconds"))
        else:
            return [], f"'+ {item.seconds}' could be minutes or seconds per move"
    return resolved, None


def _seconds_for_60_moves(periods: list[_Item]) -> int:
    """The base times that start before move 61: each period with a number of moves, then the rest."""
    seconds = moves = 0
    for period in periods:
        if moves >= MOVES:
            break
        seconds += period.seconds
        moves = MOVES if period.moves is None else moves + period.moves
    return seconds
