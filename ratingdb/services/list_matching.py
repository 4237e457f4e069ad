"""The matching step of `import-list`: a list row whose ID and name disagree, or whose new ID looks like a
typo of a registered player's, is refused with the choice, like a tournament line (services/matching.py).

A list differs from a tournament file in two ways, and the checks follow them. A list is where a
player's details are corrected (a transfer, a birth year, a name after marriage), so a row found by its
ID changes the registered details as before; only a name unlike the registered one and every alias
(rapidfuzz token_sort_ratio of the name keys below NAME_THRESHOLD, as for tournaments) stops the import —
"Smith, David J." on Gawain Jones's ID is another person, or a typo in the ID. And a full list names
every listed player by their own ID, so a new ID is a probable typo only when a player registered before
the import has the row's name and birth year (and federation where both give one) *and* the list does
not name that player elsewhere; the list is read as a stream, so these lines are judged at its end.
Every problem is collected and the import refused whole (the caller's rollback: nothing written).

The options name a row by its line in the file: `--match LINE=ID` (this row is that registered player:
the entry is theirs, their IDs and name stay), `--new LINE` (a new player, really), `--accept-name LINE` (the
registered player of the row's ID, renamed: the row's name is taken and the registered one kept as an
alias). `--match-certain` decides in bulk what a federation's first FIDE list over players registered by
national ID asks line by line: a row whose new ID fits exactly one registered player by name, birth year
and federation (all three on both sides), who has no ID of the row's kind, is named by no other row and
claimed by no other row, is that player, and the row's ID is recorded for them; every other such row is
refused as without the option. It needs the file read twice: a first pass (`survey`) that writes nothing
finds these rows before the import writes any. docs/guide/matching.md, "Lists".

Takes a Session (through the bulk Driver), never commits. No CLI or formats parsing imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, UnknownPlayer, UnresolvedPlayers
from ratingdb.formats import ListRow
from ratingdb.names import name_key
from ratingdb.schema.models import Player
from ratingdb.services.bulk import Driver
from ratingdb.services.matching import NAME_THRESHOLD
from ratingdb.services.players import (
    DETAIL_COLUMNS,
    Details,
    add_alias,
    aliases_of,
    describe,
    find_by_id,
    players_by_alias,
)

# Lines shown in one refusal; the rest are counted (a wrong file can get thousands of lines wrong).
SHOWN = 20


@dataclass
class ListMatching:
    """The choices made by hand for one list file, and what the checks found while it streamed past."""

    source: str
    matches: Mapping[int, str] = field(default_factory=dict)  # --match LINE=ID
    new: frozenset[int] = frozenset()  # --new LINE
    accept_names: frozenset[int] = frozenset()  # --accept-name LINE
    match_certain: bool = False  # --match-certain
    # line → the registered player the row is, found by --match-certain's first pass (survey)
    certain: dict[int, Player] = field(default_factory=dict)
    # line → (the row, ids of players registered before with its name, federation agreeing, whose birth
    # year the row or the register lacks): registered new, and named in the summary as possible duplicates
    namesakes: dict[int, tuple[ListRow, list[int]]] = field(default_factory=dict)
    possible: list[tuple[int, str, str]] = field(default_factory=list)  # possible_duplicates(), at finish
    # what --match-certain did, for the summary: (line, the row's ID recorded, the player as registered)
    matched_certain: list[tuple[int, str, str]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    # line → (the row, ids of the players registered before the import with its name and birth year)
    suspects: dict[int, tuple[ListRow, list[int]]] = field(default_factory=dict)
    renamed: list[tuple[int, str]] = field(default_factory=list)  # (player id, the name it had)
    named: bytearray = field(default_factory=bytearray)  # one byte per player id the list names
    lines: set[int] = field(default_factory=set)  # the lines the options name that the file has
    registered_before = 0  # the highest player id before the import: later ones are the list's own
    _targets: dict[int, Player] = field(default_factory=dict)
    _session: Session | None = None

    def __post_init__(self) -> None:
        for option, lines in (("--new", self.new), ("--accept-name", self.accept_names)):
            both = lines & set(self.matches)
            if both:
                raise ConfigError(f"--match and {option} both name line {min(both)}: give one")
        both = self.new & self.accept_names
        if both:
            raise ConfigError(f"--new and --accept-name both name line {min(both)}: give one")

    def begin(self, session: Session) -> None:
        """Find the players --match names and the register's size, before the first row is written."""
        self._session = session
        self.registered_before = session.scalar(select(func.max(Player.id))) or 0
        for line, ident in sorted(self.matches.items()):
            try:
                self._targets[line] = find_by_id(session, ident)
            except UnknownPlayer:
                raise UnknownPlayer(
                    f"--match {line}={ident}: no player has FIDE ID or national ID '{ident}' — "
                    "`ratingdb player find NAME` finds the right one; --new LINE registers a new player"
                ) from None

    def rows(self, rows: Iterable[ListRow]) -> Iterator[ListRow]:
        """The rows as the import writes them: a --match row carries its player's IDs and registered name
        (the option says who the row is; its other details correct the player's as any row's do)."""
        for row in rows:
            target = self._targets.get(row.line)
            if target is not None:
                self.lines.add(row.line)
                row.fide_id, row.national_id, row.name = target.fide_id, target.national_id, target.name
            elif row.line in self.certain:
                # The player's other ID and registered name stay; the row's new ID is theirs (certain()).
                certain = self.certain[row.line]
                ident = f"FIDE ID {row.fide_id}" if row.fide_id else f"national ID {row.national_id}"
                self.matched_certain.append((row.line, ident, describe(certain)))
                row.name = certain.name
                if row.fide_id:
                    row.national_id = certain.national_id
                else:
                    row.fide_id = certain.fide_id
            elif row.line in self.new or row.line in self.accept_names:
                self.lines.add(row.line)
            yield row

    def check(self, driver: Driver, batch: list[ListRow], known: Mapping[Any, Any], key: Any) -> None:
        """Check one batch: `known` maps `key(row)` to (player id, version id, current Details or None)
        for the registered players it names."""
        mismatched: list[tuple[ListRow, int, Details]] = []
        new_rows: list[ListRow] = []
        for r in batch:
            found = known.get(key(r))
            if found is None:
                if r.line not in self.new and self.registered_before:
                    new_rows.append(r)
                continue
            player_id, _, current = found
            self._name(player_id)
            if current is None or r.line in self.matches or r.name == current.name:
                continue
            mismatched.append((r, player_id, current))
        if mismatched:
            self._check_names(driver, mismatched)
        if new_rows:
            self._check_new(driver, new_rows)

    def known_certain(self, batch: list[ListRow], known: dict[Any, Any], key: Any) -> None:
        """Add the players --match-certain gave rows of `batch` to `known` (found as if by the row's ID)."""
        for r in batch:
            p = self.certain.get(r.line)
            if p is not None:
                details = Details(
                    p.name, p.federation, p.sex, p.title, p.birth_year, p.fide_id, p.national_id, p.deceased
                )
                known[key(r)] = (p.id, p.current_version_id, details)

    def certain_matches(self, session: Session) -> dict[int, Player]:
        """Line → player of the rows --match-certain decides, from what the checks found (the whole file
        read): the one unnamed candidate, of the row's federation, without an ID of the row's kind, with
        the row's other ID if it gives one, and claimed by no other row."""
        claims: dict[int, list[int]] = {}
        players: dict[int, Player] = {}
        for line, (r, candidates) in self.suspects.items():
            unnamed = [c for c in candidates if not self._is_named(c)]
            if len(unnamed) != 1 or r.federation is None:
                continue
            p = session.get_one(Player, unnamed[0])
            if p.federation != r.federation or p.birth_year != r.birth_year:
                continue
            if r.fide_id:
                if p.fide_id is not None or (r.national_id and r.national_id != p.national_id):
                    continue
            elif p.national_id is not None:
                continue
            players[p.id] = p
            claims.setdefault(p.id, []).append(line)
        return {lines[0]: players[pid] for pid, lines in claims.items() if len(lines) == 1}

    def possible_duplicates(self, session: Session) -> list[tuple[int, str, str]]:
        """(line, the row's ID, the registered players) of the rows registered new although a player
        registered before has the row's name and federation, with a birth year unknown on one side: not
        certain enough to refuse the row (the typo check needs both birth years), worth a look."""
        out = []
        for line, (r, candidates) in sorted(self.namesakes.items()):
            unnamed = [c for c in candidates if not self._is_named(c)]
            if unnamed and line not in self.new:
                ident = f"FIDE {r.fide_id}" if r.fide_id else f"national {r.national_id}"
                listed = "; ".join(describe(session.get_one(Player, c)) for c in unnamed)
                out.append((line, f"'{r.name}' {ident}", listed))
        return out

    def finish(self, session: Session, audit_id: int) -> None:
        """Refuse the import if a line needs a decision; else record the names --accept-name replaced."""
        for option, lines in (
            ("--match", set(self.matches)),
            ("--new", set(self.new)),
            ("--accept-name", set(self.accept_names)),
        ):
            for line in sorted(lines - self.lines):
                raise ConfigError(f"{option} {line}: {self.source} has no player row on line {line}")
        for line, (r, candidates) in self.suspects.items():
            unnamed = [c for c in candidates if not self._is_named(c)]
            if unnamed:
                players = [session.get_one(Player, c) for c in unnamed]
                listed = "; ".join(describe(p) for p in players)
                self.problems.append(
                    (
                        line,
                        f"{self._where(r)}: no player has that ID, but {listed} has this name and birth "
                        f"year{' and federation' if r.federation else ''} and is not on this list — a typo "
                        f"in the ID? --match {line}={_ident(players[0])} (this line is {players[0].name}) "
                        f"or --new {line} (a new player, registered with the line's ID)",
                    )
                )
        if self.problems:
            self.problems.sort()
            shown = [text for _, text in self.problems[:SHOWN]]
            if len(self.problems) > SHOWN:
                shown.append(f"… and {len(self.problems) - SHOWN} more lines like these")
            if not self.match_certain and (n := len(self.certain_matches(session))):
                shown.append(
                    f"{n} of these {'row is' if n == 1 else 'rows are'} certain: the one registered player "
                    "of the row's name, birth year and federation, without an ID of the row's kind and named "
                    "by no other row — --match-certain gives each its player (the row's ID recorded for "
                    "them) and still refuses the others"
                )
            raise UnresolvedPlayers(shown, lines=len(self.problems))
        self.possible = self.possible_duplicates(session)
        if self.renamed:
            session.expire_all()  # the rows were renamed by the bulk writer, behind the ORM's back
        for player_id, old_name in self.renamed:
            add_alias(session, session.get_one(Player, player_id), old_name, audit_id)

    # -- the two checks --------------------------------------------------------------------------------

    def _check_names(self, driver: Driver, rows: list[tuple[ListRow, int, Details]]) -> None:
        from rapidfuzz import fuzz

        unlike: list[tuple[ListRow, int, Details, float]] = []
        for r, player_id, current in rows:
            score = float(fuzz.token_sort_ratio(name_key(r.name), name_key(current.name)))
            if score < NAME_THRESHOLD:
                unlike.append((r, player_id, current, score))
        if not unlike:
            return
        aliases = aliases_of(self._orm(), [player_id for _, player_id, _, _ in unlike])
        for r, player_id, current, score in unlike:
            key = name_key(r.name)
            if any(
                fuzz.token_sort_ratio(key, name_key(a)) >= NAME_THRESHOLD for a in aliases.get(player_id, [])
            ):
                continue
            if r.line in self.accept_names:
                self.renamed.append((player_id, current.name))
                continue
            self.problems.append(
                (
                    r.line,
                    f"{self._where(r)}: that ID is registered to {describe(current)}, but the names do not "
                    f"match (score {score:.0f}, below {NAME_THRESHOLD}) — say which: --accept-name {r.line} "
                    f"(the same player, renamed: '{current.name}' is kept as an alias), or --match "
                    f"{r.line}=ID (this line is another registered player: `ratingdb player find NAME`)",
                )
            )

    def _check_new(self, driver: Driver, rows: list[ListRow]) -> None:
        """Rows with a new ID: the players registered before the import with the row's name and birth year."""
        keys = sorted({name_key(r.name) for r in rows} - {""})
        by_key: dict[str, set[int]] = {}
        for start in range(0, len(keys), 10_000):
            chunk = keys[start : start + 10_000]
            among, values = driver.among("name_key", chunk)
            for pid, key in driver.rows(
                f"SELECT id, name_key FROM player WHERE {among} AND merged_into IS NULL AND id <= ?",
                [*values, self.registered_before],
            ):
                by_key.setdefault(key, set()).add(pid)
        for key, pids in players_by_alias(self._orm(), keys).items():
            by_key.setdefault(key, set()).update(p for p in pids if p <= self.registered_before)
        wanted = sorted({p for r in rows for p in by_key.get(name_key(r.name), ())})
        if not wanted:
            return
        details: dict[int, tuple[Any, ...]] = {}
        columns = ", ".join(("id", *DETAIL_COLUMNS))
        for start in range(0, len(wanted), 10_000):
            among, values = driver.among("id", wanted[start : start + 10_000])
            for row in driver.rows(f"SELECT {columns} FROM player WHERE {among}", values):
                details[row[0]] = tuple(row[1:])
        year, federation = DETAIL_COLUMNS.index("birth_year"), DETAIL_COLUMNS.index("federation")
        for r in rows:
            agreeing = [
                p
                for p in sorted(by_key.get(name_key(r.name), ()))
                if r.federation is None or details[p][federation] in (None, r.federation)
            ]
            candidates = [
                p for p in agreeing if r.birth_year is not None and details[p][year] == r.birth_year
            ]
            if candidates:
                self.suspects[r.line] = (r, candidates)
                continue
            unknown = [p for p in agreeing if r.birth_year is None or details[p][year] is None]
            if unknown:
                self.namesakes[r.line] = (r, unknown)

    # -- helpers ---------------------------------------------------------------------------------------

    def _orm(self) -> Session:
        assert self._session is not None, "begin() first"
        return self._session

    def _name(self, player_id: int) -> None:
        if player_id >= len(self.named):
            self.named.extend(bytes(player_id + 1 - len(self.named) + 65_536))
        self.named[player_id] = 1

    def _is_named(self, player_id: int) -> bool:
        return player_id < len(self.named) and bool(self.named[player_id])

    def _where(self, r: ListRow) -> str:
        ident = f"FIDE {r.fide_id}" if r.fide_id else f"national {r.national_id}"
        return f"{self.source} line {r.line} '{r.name}' {ident}"


def _ident(p: Player) -> str:
    return str(p.fide_id or p.national_id)
