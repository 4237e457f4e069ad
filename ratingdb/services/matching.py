"""Who each player line of a batch of files is: a registered player, a new one, or a refusal with the choice.

The one matching step of every command that reads players from a file (`import-trf`, `replace-event`):
each line is resolved by ID, else by name, with a confidence a person can read; a line whose ID and name
disagree, whose unregistered ID looks like a typo of a registered player's, whose ID appears twice in the
file, or whose file seems to hold the other kind of ID, is refused whole, naming the candidates and the
option that settles it (`--match RANK=ID`, `--new RANK`, `--accept-name RANK`, `--drop RANK`, or
`--id-field`). Before that, `check_columns` refuses a file whose ID column cannot hold FIDE IDs or whose
federation column holds clubs, unless the import says so. A line the ID and the name identify is that
player: its other details are register differences, listed, never refusals (issue 47).
docs/guide/matching.md explains every rule with a worked example.

Takes a Session, never commits. Every file's lines are looked up at once (one query per ID kind and one
by name) and the players new to the register are written together when the batch is accepted; a later
file still finds the players an earlier file registers, exactly as if the files came one by one. No CLI,
formats parsing or report imports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb import engines
from ratingdb.errors import (
    ID_COLUMN,
    ID_TYPO,
    NAME_DIFFERS,
    NO_ID,
    OTHER_KIND,
    SAME_ID,
    SAME_PLAYER,
    ConfigError,
    FederationColumnRefused,
    IdColumnRefused,
    LineCandidate,
    OtherLine,
    UnknownPlayer,
    UnresolvedLine,
    UnresolvedPlayers,
)
from ratingdb.federations import FIDE_FEDERATIONS
from ratingdb.formats import TrfEvent, TrfPlayer
from ratingdb.names import name_key
from ratingdb.schema.models import ListEntry, Player, PlayerOldId, RatingList
from ratingdb.services.bulk import Driver
from ratingdb.services.federation import Numbering, highest_with_prefix, numbering
from ratingdb.services.players import (
    Details,
    add_alias,
    aliases_of,
    describe,
    find_by_id,
    highest_national_id,
    kept,
    numeric_national_id,
    players_by_alias,
    register_players,
    similar_players,
)
from ratingdb.services.versions import record_change

# Lookups by ID or name key send at most this many values in one IN list (SQLite allows 32,766).
LOOKUP_CHUNK = 10_000
# A line's name matches a registered name (or alias) when rapidfuzz's token_sort_ratio of the two name
# keys (ratingdb.names: accents, case, punctuation and word order removed) is at least this. 90 takes
# one wrong, missing or doubled letter in a name of ten or more letters ("Fitzsimmons, Ciaran" /
# "Fitzsimons, Ciarán" 97; "Smith, David J." / "Smith, David" 92) and refuses another first name
# ("Kelly, Darren" / "Kelly, David" 70) or another person ("Smith, David J." / "Jones, Gawain" 22).
NAME_THRESHOLD = 90

# What a FIDE ID looks like: a federation's block of one to three digits followed by five digits of its
# own (England's 400041, Ireland's 2500035, India's 46616543), nine digits for players FIDE registers
# itself (FIDE Online Arena): six to nine digits. National numbers are often shorter — the ICU's run from
# 1 to 5 digits — so a file whose ID column holds them is told apart before they are stored as FIDE IDs.
# docs/guide/matching.md, "Which kind of ID the column holds", gives the sources.
FIDE_ID_DIGITS = (6, 9)

# A line as the options name it: (file name, or None for "the only file"; starting rank).
LineRef = tuple[str | None, int]


@dataclass
class Matching:
    """How player lines find registered players: what the ID column holds, and the choices made by hand.

    `matches`: --match RANK=ID (this line is that player; "new" means --new); `new`: --new RANK (a new
    player, really); `accept_names`: --accept-name RANK (the registered player of the line's ID, spelt
    another way: the spelling is recorded as an alias); `drops`: --drop RANK (a duplicate line without
    games, left out of the event).
    """

    id_field: str = "fide"  # fide | national: the register the 001 line's ID column (cols 58–68) refers to
    federation_column: str = "federations"  # federations | clubs | mixed (FEDERATION_COLUMNS)
    matches: Mapping[LineRef, str] = field(default_factory=dict)
    new: frozenset[LineRef] = frozenset()
    accept_names: frozenset[LineRef] = frozenset()
    drops: frozenset[LineRef] = frozenset()
    # The first national ID given to a player registered without one (--national-id-start); None: as the
    # federation's numbering says (ratingdb.services.federation, `ratingdb federation set`).
    start: int | None = None
    sources: str = ""
    _audit_id: int | None = None

    def audit_id(self, session: Session) -> int:
        """The audit row of this import's registrations and aliases (written once, when first needed)."""
        if self._audit_id is None:
            change = record_change(session, "import-trf", f"players registered by importing {self.sources}")
            self._audit_id = change.id
        return self._audit_id

    def chosen(self, option: str, file: str) -> set[int]:
        refs = {"new": self.new, "accept-name": self.accept_names, "drop": self.drops}[option]
        return {rank for f, rank in refs if f is None or f == file}

    def matched(self, file: str) -> dict[int, str]:
        return {rank: ident for (f, rank), ident in self.matches.items() if f is None or f == file}

    def options_given(self) -> int:
        return len(self.matches) + len(self.new) + len(self.accept_names) + len(self.drops)


class NewPlayer:
    """A player a file of the batch registers: its details now, its id once the batch is written."""

    __slots__ = ("details", "assigned", "file", "id", "without")

    def __init__(self, details: Details, assigned: bool, file: int, without: str = "") -> None:
        self.details = details
        self.assigned = assigned  # the national ID was given by the import (the line had no usable ID)
        self.file = file  # position of the file that registers it, in the batch
        self.without = without  # the line's ID left out ("FIDE 123, another player's"), if any
        self.id = 0

    # What `describe` and the checks read, as on a registered Player.
    @property
    def name(self) -> str:
        return self.details.name

    @property
    def fide_id(self) -> int | None:
        return self.details.fide_id

    @property
    def national_id(self) -> str | None:
        return self.details.national_id

    @property
    def birth_year(self) -> int | None:
        return self.details.birth_year

    @property
    def federation(self) -> str | None:
        return self.details.federation

    @property
    def sex(self) -> str | None:
        return self.details.sex

    @property
    def title(self) -> str | None:
        return self.details.title

    @property
    def name_key(self) -> str:
        return name_key(self.details.name)


# A player line's player: the id of a registered player, or one the batch registers.
PlayerRef = int | NewPlayer
Candidate = Player | NewPlayer


@dataclass(frozen=True)
class Resolution:
    """How one line was resolved: `how` is id, name, new or option; `confidence` is for a person."""

    file: str
    line: int
    rank: int
    name: str
    how: str
    confidence: str


@dataclass(frozen=True)
class RegisterDifference:
    """A line the ID and the name identify whose file gives one of the player's attributes otherwise than
    the register: the line is imported and the register keeps its value; `attribute` is federation, sex,
    birth_year or title (player edit's option, `--birth-year` for birth_year, takes the file's value)."""

    file: str
    line: int
    rank: int
    name: str  # the line's name
    player: str  # the registered player, described
    ident: str  # the registered player's FIDE ID or national ID (for `ratingdb player edit IDENT`)
    attribute: str
    in_file: str
    registered: str  # "" when the register has none


@dataclass(frozen=True)
class UniformSex:
    """A file whose sex column gives the same letter on every line: not evidence of anyone's sex, so the
    players it registers get none recorded and no difference is listed."""

    file: str
    letter: str
    lines: int
    registered: int  # players the file registers (no sex recorded)
    contradicted: int  # lines of registered players of the other sex (the register's kept)


@dataclass
class MatchReport:
    """What the matching step did, for the summary line and the lines worth a look."""

    resolutions: list[Resolution] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)  # "Smith, David J. for Jones, … (FIDE …)"
    dropped: list[str] = field(default_factory=list)
    differences: list[RegisterDifference] = field(default_factory=list)
    uniform_sex: list[UniformSex] = field(default_factory=list)

    def counts(self) -> Counter[str]:
        return Counter(r.how for r in self.resolutions)

    def summary(self) -> str:
        """ "Players: 31 matched by ID, 2 by name, 1 new, 3 resolved by options." """
        c = self.counts()
        text = (
            f"Players: {c['id']} matched by ID, {c['name']} by name, {c['new']} new, "
            f"{c['option'] + len(self.dropped)} resolved by options"
        )
        if self.dropped:
            text += f" ({len(self.dropped)} line{'s' if len(self.dropped) != 1 else ''} dropped)"
        return text + "."

    def worth_a_look(self) -> list[Resolution]:
        """Lines not matched exactly: a name score below 100, by name only, an alias, or an option."""
        return [
            r
            for r in self.resolutions
            if r.how in ("name", "option")
            or (r.how == "id" and ("alias" in r.confidence or "name 100" not in r.confidence))
        ]


def drop_lines(trf: TrfEvent, matching: Matching, report: MatchReport | None = None) -> TrfEvent:
    """The file without the lines `--drop` names: duplicate lines of a player, without games.

    A line with a game against an opponent is refused: its games are someone's, so it is a person, to be
    named with --match or --new. Byes and unplayed rounds of the line go with it.
    """
    ranks = matching.chosen("drop", trf.source_name)
    if not ranks:
        return trf
    by_rank = {p.rank: p for p in trf.players}
    for rank in sorted(ranks):
        p = by_rank.get(rank)
        if p is None:
            raise ConfigError(f"--drop {rank}: {trf.source_name} has no player with starting rank {rank}")
        played = [g for g in trf.games if g.black is not None and rank in (g.white, g.black)]
        if played:
            rounds = ", ".join(str(g.round) for g in played)
            raise ConfigError(
                f"--drop {rank}: {_where(trf.source_name, p)} has games (rounds {rounds}): a line "
                f"with games is a player — name it with --match {rank}=ID or --new {rank}"
            )
    if report is not None:
        report.dropped.extend(
            f"{trf.source_name} line {by_rank[r].line} '{by_rank[r].name}'" for r in sorted(ranks)
        )
    return replace(
        trf,
        players=tuple(p for p in trf.players if p.rank not in ranks),
        games=tuple(g for g in trf.games if g.white not in ranks and g.black not in ranks),
    )


class Entrants:
    """The register as the batch's files see it: what the database holds plus what earlier files add."""

    def __init__(
        self,
        session: Session,
        driver: Driver,
        matching: Matching,
        files: Sequence[TrfEvent],
        report: MatchReport | None = None,
    ) -> None:
        self.session = session
        self.driver = driver
        self.matching = matching
        self.report = report or MatchReport()
        self.new: list[NewPlayer] = []
        self.files = 0
        lines = [with_id_field(p, matching.id_field) for trf in files for p in trf.players]
        self.players: dict[int, Player] = {}  # registered players read, by id (merged ones: the kept)
        self.by_fide, self.by_national = self._registered_by_id(lines)
        self.by_name = self._registered_by_name(lines)
        self.aliases = aliases_of(session, self.players)
        self.new_by_fide: dict[int, NewPlayer] = {}
        self.new_by_national: dict[str, NewPlayer] = {}
        self.new_by_name: dict[str, list[NewPlayer]] = {}
        self.pending_aliases: list[tuple[PlayerRef, str]] = []
        self.highest_registered: int | None = None  # the highest numeric national ID in the database
        self.highest_new = 0  # … among the players the batch registers
        self.numbering: Numbering | None = None  # the federation's, read when first needed
        self.highest_prefixed: int | None = None  # the highest number after its prefix, batch included

    # -- one file ----------------------------------------------------------------------------------------

    def match(self, trf: TrfEvent) -> dict[int, PlayerRef]:
        """Starting rank → player, registering (in the batch) the players the register does not know, or
        UnresolvedPlayers naming every line that needs a decision (nothing is written then).

        By FIDE ID, then national ID (a merged duplicate's IDs give the player it was merged into), the
        name checked against the registered name and aliases (NAME_THRESHOLD) and birth year, sex and
        federation against the register's where both know them. A line without an ID is matched by name
        to the one registered player whose name key (or an alias's) it has and whose birth year and
        federation agree. See the module docstring for the refusals.
        """
        file = self.files
        self.files += 1
        source = trf.source_name
        players = [with_id_field(p, self.matching.id_field) for p in trf.players]
        letter = uniform_sex(players)
        if letter is not None:
            players = [replace(p, sex=None) for p in players]
        ranks = {p.rank for p in players}
        by_rank = {p.rank: p for p in players}
        matched = self.matching.matched(source)
        new_ranks = self.matching.chosen("new", source) | {
            r for r, i in matched.items() if i.strip().lower() == "new"
        }
        matched = {r: i for r, i in matched.items() if r not in new_ranks}
        accept = self.matching.chosen("accept-name", source)
        for option, chosen in (("--match", set(matched)), ("--new", new_ranks), ("--accept-name", accept)):
            for rank in sorted(chosen - ranks):
                given = f"{rank}={matched[rank]}" if option == "--match" else str(rank)
                raise ConfigError(f"{option} {given}: {source} has no player with starting rank {rank}")
        for a, b, both in (
            ("--match", "--new", set(matched) & new_ranks),
            ("--new", "--accept-name", new_ranks & accept),
        ):
            if both:
                raise ConfigError(f"{a} and {b} both name rank {min(both)} of {source}: give one")

        ids: dict[int, PlayerRef] = {}
        how: dict[int, tuple[str, str]] = {}
        problems: list[UnresolvedLine] = []
        new_lines: list[tuple[TrfPlayer, str]] = []  # (line, the ID left out and why)
        for rank, ident in sorted(matched.items()):
            ids[rank] = self._by_ident(ident)
            how[rank] = ("option", f"--match {rank}={ident.strip()}")

        # One ID on two lines of the file (those settled by an option aside).
        open_lines = [p for p in players if p.rank not in matched and p.rank not in new_ranks]
        twice = _repeated_ids(open_lines)
        for p in open_lines:
            others = twice.get(_id_of(p), []) if _has_id(p) else []
            if len(others) > 1 and p.rank != others[0].rank:
                first = others[0]
                games = {q.rank: _played(trf, q.rank) for q in others}
                without = [q.rank for q in others if games[q.rank] == 0]
                problems.append(
                    _line(
                        source, p, SAME_ID, ("drop", "match", "new") if without else ("match", "new"),
                        conflict=OtherLine(first.line, first.rank, first.name),
                        drop=without[-1] if without else None,
                    )
                )  # fmt: skip
        repeated = {q.rank for group in twice.values() if len(group) > 1 for q in group}

        other_kind: list[tuple[TrfPlayer, Candidate]] = []  # ID column value = the other kind's ID
        own_kind = 0  # lines whose ID found a player of that name by its own kind
        for p in open_lines:
            if p.rank in repeated and twice[_id_of(p)][0].rank != p.rank:
                continue
            if not _has_id(p):
                continue
            found = self._by_id(p)
            if found is None and self._by_old_id(source, p, ids, how):
                own_kind += 1
                continue
            if found is None:
                twin = self._other_kind(p)
                if twin is not None:
                    other_kind.append((p, twin))
                    continue
                typo = [c for c in self._named(name_key(p.name)) if _agrees(p, c)]
                if typo:
                    problems.append(
                        _line(source, p, ID_TYPO, ("match", "new"), candidates=typo, detail=_agreeing(p))
                    )
                    continue
                new_lines.append((p, ""))
                how[p.rank] = ("new", "new player (ID not registered, no registered player of this name)")
                continue
            score, spelling = self._name_score(p, found)
            # The ID and the name say who the line is; its federation, sex, birth year and title are
            # the file's account of that player's details: listed where they differ, never a refusal.
            if score >= NAME_THRESHOLD:
                own_kind += 1
                ids[p.rank] = found
                kind = "FIDE ID" if p.fide_id else "national ID"
                via = f" (alias '{spelling}')" if spelling else ""
                how[p.rank] = ("id", f"{kind}, name {score:.0f}{via}")
                if p.rank in accept and score < 100:
                    self._alias(found, p.name)
                self._differences(source, p, self._candidate(found))
                continue
            if p.rank not in accept:
                problems.append(
                    _line(
                        source, p, NAME_DIFFERS, ("match", "new", "accept-name"),
                        candidates=[self._candidate(found)],
                        detail=f"the names do not match (score {score:.0f}, below {NAME_THRESHOLD})",
                    )
                )  # fmt: skip
                continue
            own_kind += 1
            ids[p.rank] = found
            self._alias(found, p.name)
            how[p.rank] = ("option", f"--accept-name {p.rank} (name {score:.0f}; alias recorded)")
            self._differences(source, p, self._candidate(found))

        if other_kind and len(other_kind) >= own_kind:
            other = "national" if self.matching.id_field == "fide" else "fide"
            p, twin = other_kind[0]
            held = "FIDE IDs" if other == "fide" else "national IDs"
            with_ids = sum(1 for q in players if _has_id(q))
            said = (
                f"{len(other_kind)} of the file's {with_ids} IDs are {held} of registered "
                f"players of the same name (e.g. line {p.line} (rank {p.rank}) '{p.name}' "
                f"{_column_value(p)}: "
                f"{describe(twin)}) and {own_kind} {'is' if own_kind == 1 else 'are'} "
                f"{'FIDE' if other == 'national' else 'national'} IDs of theirs — the ID column holds "
                f"{held}"
            )
            raise UnresolvedPlayers(
                [_line(source, p, ID_COLUMN, ("id-field",), candidates=[twin], detail=said, id_field=other)]
            )
        for p, twin in other_kind:
            problems.append(_line(source, p, OTHER_KIND, ("match", "new"), candidates=[twin]))

        for p in open_lines:
            if _has_id(p):
                continue
            key = name_key(p.name)
            # A name with no letters or digits to compare matches nobody.
            candidates = [c for c in self._named(key) if _agrees(p, c)] if key else []
            if len(candidates) == 1:
                ids[p.rank] = candidates[0] if isinstance(candidates[0], NewPlayer) else candidates[0].id
                how[p.rank] = ("name", f"no ID; name{_agreeing(p)} of {describe(candidates[0])}")
            elif not candidates:
                new_lines.append((p, ""))
                how[p.rank] = ("new", "new player (no ID, no registered player of this name)")
            else:
                problems.append(_line(source, p, NO_ID, ("match", "new"), candidates=candidates))
        for rank in sorted(new_ranks):
            p = by_rank[rank]
            kept_ids = self._taken(p, players, rank)
            left_out = [
                f"{kind} {value}"
                for kind, value, kept_value in (
                    ("FIDE", p.fide_id, kept_ids.fide_id),
                    ("national", p.national_id, kept_ids.national_id),
                )
                if value and not kept_value
            ]
            taken = " and ".join(left_out) + (", another player's or line's" if left_out else "")
            new_lines.append((kept_ids, taken))
            how[rank] = ("option", f"--new {rank}" + (f" (registered without {taken})" if taken else ""))

        # Two lines of one file are two people: no player may be resolved twice.
        seen: dict[int, int] = {}
        for rank, ref in sorted(ids.items()):
            key_id = id(ref) if isinstance(ref, NewPlayer) else ref
            if key_id in seen:
                first = by_rank[seen[key_id]]
                p = by_rank[rank]
                problems.append(
                    _line(
                        source, p, SAME_PLAYER, ("drop", "match", "new"),
                        candidates=[self._candidate(ref)],
                        conflict=OtherLine(first.line, first.rank, first.name),
                    )
                )  # fmt: skip
            seen[key_id] = rank
        if problems:
            problems.sort(key=lambda x: x.rank)
            raise UnresolvedPlayers(problems)

        assigned = iter(self._free_national_ids(sum(1 for p, _ in new_lines if not _has_id(p))))
        for p, taken in new_lines:
            keep_ids = _has_id(p)
            made_up = None if keep_ids else next(assigned)
            n = NewPlayer(
                Details(
                    name=p.name,
                    federation=p.federation,
                    sex=p.sex,
                    title=p.title,
                    birth_year=p.birth_year,
                    fide_id=p.fide_id or None,
                    national_id=p.national_id if keep_ids else made_up,
                ),
                assigned=made_up is not None,
                file=file,
                without=taken,
            )
            ids[p.rank] = n
            # Known to the next files only: a file's own lines are two people even when they look alike.
            self._remember(n)
            self.new.append(n)
        for p in trf.players:
            kind, text = how[p.rank]
            self.report.resolutions.append(Resolution(source, p.line, p.rank, p.name, kind, text))
        if letter is not None:
            # Said where it mattered: players registered without a sex, or registered ones it contradicts.
            contradicted = sum(
                1 for ref in ids.values() if (c := self._candidate(ref)).sex and c.sex != letter
            )
            registered = sum(1 for ref in ids.values() if isinstance(ref, NewPlayer) and ref.file == file)
            if contradicted or registered:
                self.report.uniform_sex.append(
                    UniformSex(source, letter, len(players), registered, contradicted)
                )
        return ids

    def _differences(self, source: str, p: TrfPlayer, c: Candidate) -> None:
        self.report.differences.extend(
            RegisterDifference(source, p.line, p.rank, p.name, describe(c), _ident(c), attribute, file, had)
            for attribute, file, had in register_differences(p, c)
        )

    # -- the batch ---------------------------------------------------------------------------------------

    def register(self) -> list[str]:
        """Write the players the batch registers (one bulk write per table) and the aliases accepted;
        how each new player is described."""
        lines: list[str] = []
        if self.new:
            audit_id = self.matching.audit_id(self.session)
            registered = register_players(self.driver, [n.details for n in self.new], audit_id)
            for n, reg in zip(self.new, registered, strict=True):
                n.id = reg.player_id
            later: set[int] = set()  # players of files after the one at hand: not registered yet back then
            by_file: dict[int, list[NewPlayer]] = {}
            for n in self.new:
                by_file.setdefault(n.file, []).append(n)
            notes: dict[int, str] = {}
            for file in sorted(by_file, reverse=True):
                for n in by_file[file]:
                    if n.assigned:
                        similar = similar_players(self.session, n.name, exclude={n.id, *later})
                        if similar:
                            notes[n.id] = " — similar registered: " + "; ".join(describe(s) for s in similar)
                later.update(n.id for n in by_file[file])
            for n in self.new:
                line = describe(n.details)
                if n.assigned:
                    given = "national ID assigned" + (f"; not {n.without}" if n.without else "")
                    line = f"{line[:-1]}; {given})" + notes.get(n.id, "")
                lines.append(line)
        for ref, spelling in self.pending_aliases:
            pid = ref.id if isinstance(ref, NewPlayer) else ref
            player = self.session.get_one(Player, pid)
            if add_alias(self.session, player, spelling, self.matching.audit_id(self.session)):
                self.report.aliases.append(f"'{spelling}' for {describe(player)}")
        return lines

    @staticmethod
    def player_ids(refs: Mapping[int, PlayerRef]) -> dict[int, int]:
        """Starting rank → player id, once `register` has written the new players."""
        return {rank: ref if isinstance(ref, int) else ref.id for rank, ref in refs.items()}

    # -- lookups -----------------------------------------------------------------------------------------

    def _by_ident(self, ident: str) -> PlayerRef:
        """The player --match names: registered (find_by_id), else registered by an earlier file."""
        try:
            found = find_by_id(self.session, ident)
            self.players.setdefault(found.id, found)
            return found.id
        except UnknownPlayer:
            text = ident.strip()
            new = (
                self.new_by_fide.get(int(text))
                if text.isascii() and text.isdigit() and len(text) <= 18
                else None
            )
            new = new or self.new_by_national.get(text)
            if new is None:
                raise UnknownPlayer(
                    f"--match ...={ident}: no player has FIDE ID or national ID '{ident}' — "
                    "`ratingdb player find NAME` finds the right one; --new RANK registers a new player"
                ) from None
            return new

    def _by_id(self, p: TrfPlayer) -> PlayerRef | None:
        found: PlayerRef | None = None
        if p.fide_id:
            found = self.by_fide.get(p.fide_id)
            found = found if found is not None else self.new_by_fide.get(p.fide_id)
        if found is None and p.national_id:
            found = self.by_national.get(p.national_id)
            found = found if found is not None else self.new_by_national.get(p.national_id)
        return found

    def _other_kind(self, p: TrfPlayer) -> Candidate | None:
        """The registered player whose ID of the other kind is this line's ID column and whose name it has."""
        value = _column_value(p)
        if value is None:
            return None
        if p.fide_id and value in self.by_national_any:
            c: Candidate = self.players[self.by_national_any[value]]
        elif (
            not p.fide_id
            and value.isascii()
            and value.isdigit()
            and len(value) <= 18
            and int(value) in self.by_fide_any
        ):
            c = self.players[self.by_fide_any[int(value)]]
        else:
            return None
        score, _ = self._name_score(p, c.id)
        return c if score >= NAME_THRESHOLD else None

    def _by_old_id(
        self, source: str, p: TrfPlayer, ids: dict[int, PlayerRef], how: dict[int, tuple[str, str]]
    ) -> bool:
        """Whether the line's national ID is a renumbered player's old one and its name theirs: then it is
        that player (written in `ids` and `how`). With another name the old number is no claim: the
        federation's own number of someone else, which the line goes on to be matched by."""
        old = self.by_old_national.get(p.national_id) if p.national_id and not p.fide_id else None
        if old is None:
            return False
        score, spelling = self._name_score(p, old)
        if score < NAME_THRESHOLD:
            return False
        ids[p.rank] = old
        via = f" (alias '{spelling}')" if spelling else ""
        how[p.rank] = ("id", f"old national ID {p.national_id} (renumbered), name {score:.0f}{via}")
        self._differences(source, p, self._candidate(old))
        return True

    def _name_score(self, p: TrfPlayer, ref: PlayerRef) -> tuple[float, str]:
        """The best score of the line's name against the player's name and aliases, and the alias (or "")."""
        from rapidfuzz import fuzz

        c = ref if isinstance(ref, NewPlayer) else self.players[ref]
        key = name_key(p.name)
        best, via = float(fuzz.token_sort_ratio(key, c.name_key)), ""
        pid = None if isinstance(ref, NewPlayer) else ref
        for alias in self.aliases.get(pid, []) if pid is not None else []:
            score = float(fuzz.token_sort_ratio(key, name_key(alias)))
            if score > best:
                best, via = score, alias
        return best, via

    def _candidate(self, ref: PlayerRef) -> Candidate:
        return ref if isinstance(ref, NewPlayer) else self.players[ref]

    def _describe(self, ref: PlayerRef) -> str:
        return describe(self._candidate(ref))

    def _alias(self, ref: PlayerRef, spelling: str) -> None:
        self.pending_aliases.append((ref, spelling))

    def _taken(self, p: TrfPlayer, players: Sequence[TrfPlayer], rank: int) -> TrfPlayer:
        """The line as a --new player can be registered: without an ID another player or line has."""
        fide_id, national_id = p.fide_id, p.national_id
        others = [q for q in players if q.rank != rank]
        if fide_id and (
            self.by_fide.get(fide_id) is not None
            or fide_id in self.new_by_fide
            or any(q.fide_id == fide_id for q in others)
        ):
            fide_id = None
        if national_id and (
            self.by_national.get(national_id) is not None
            or national_id in self.new_by_national
            or any(q.national_id == national_id for q in others)
        ):
            national_id = None
        return replace(p, fide_id=fide_id, national_id=national_id)

    def _named(self, key: str) -> list[Candidate]:
        """Registered players with this name key or an alias of it, in the order they were registered."""
        return [*self.by_name.get(key, ()), *self.new_by_name.get(key, ())]

    def _registered_by_id(self, lines: Sequence[TrfPlayer]) -> tuple[dict[int, int], dict[str, int]]:
        """FIDE ID → player id and national ID → player id of the registered players the lines name (a
        merged duplicate's IDs give the player kept); the other kind's IDs too, for the --id-field check."""
        fide_ids = {p.fide_id for p in lines if p.fide_id}
        national_ids = {p.national_id for p in lines if p.national_id}
        as_national = {str(p.fide_id) for p in lines if p.fide_id}
        as_fide = {int(n) for n in national_ids if n.isascii() and n.isdigit() and len(n) <= 18}
        by_fide: dict[int, int] = {}
        by_national: dict[str, int] = {}
        self.by_fide_any: dict[int, int] = {}
        self.by_national_any: dict[str, int] = {}
        one_of = engines.of(self.session).one_of
        for column, wanted in (
            (Player.fide_id, fide_ids | as_fide),
            (Player.national_id, national_ids | as_national),
        ):
            for chunk in _chunks(sorted(wanted), LOOKUP_CHUNK):
                for player in self.session.scalars(select(Player).where(one_of(column, chunk))):
                    target = player if player.merged_into is None else kept(self.session, player)
                    self.players[target.id] = target
                    if player.fide_id is not None:
                        self.by_fide_any[player.fide_id] = target.id
                        if player.fide_id in fide_ids:
                            by_fide[player.fide_id] = target.id
                    if player.national_id is not None:
                        self.by_national_any[player.national_id] = target.id
                        if player.national_id in national_ids:
                            by_national[player.national_id] = target.id
        # The old numbers of renumbered players (`federation renumber`) that no player holds now: a line
        # with one and the player's name is that player (a file written before the renumbering).
        self.by_old_national: dict[str, int] = {}
        old = sorted(national_ids - set(by_national))
        for chunk in _chunks(old, LOOKUP_CHUNK):
            for national_id, player in self.session.execute(
                select(PlayerOldId.national_id, Player)
                .join(Player, Player.id == PlayerOldId.player_id)
                .where(one_of(PlayerOldId.national_id, chunk))
                .order_by(PlayerOldId.id)
            ):
                target = player if player.merged_into is None else kept(self.session, player)
                self.players[target.id] = target
                self.by_old_national.setdefault(national_id, target.id)
        return by_fide, by_national

    def _registered_by_name(self, lines: Sequence[TrfPlayer]) -> dict[str, list[Player]]:
        """Name key → registered players (not merged) of that name key or with an alias of it."""
        keys = sorted({k for p in lines if (k := name_key(p.name))})
        found: dict[str, list[Player]] = {}
        one_of = engines.of(self.session).one_of
        # Most of these players were read by their IDs just before: only their ids and keys are read
        # here, and the players not read yet are loaded by id.
        named: list[tuple[int, str]] = []
        for chunk in _chunks(keys, LOOKUP_CHUNK):
            named.extend(
                (pid, key)
                for pid, key in self.session.execute(
                    select(Player.id, Player.name_key)
                    .where(one_of(Player.name_key, chunk), Player.merged_into.is_(None))
                    .order_by(Player.id)
                )
            )
        unread = [pid for pid, _ in named if pid not in self.players]
        for chunk in _chunks(unread, LOOKUP_CHUNK):
            for c in self.session.scalars(select(Player).where(one_of(Player.id, chunk))):
                self.players[c.id] = c
        for pid, key in named:
            found.setdefault(key, []).append(self.players[pid])
        for key, pids in players_by_alias(self.session, keys).items():
            for pid in pids:
                c = self.players.get(pid) or self.session.get_one(Player, pid)
                self.players.setdefault(pid, c)
                if c not in found.get(key, []):
                    found.setdefault(key, []).append(c)
        return found

    def _remember(self, n: NewPlayer) -> None:
        d = n.details
        if d.fide_id:
            self.new_by_fide.setdefault(d.fide_id, n)
        if d.national_id:
            self.new_by_national.setdefault(d.national_id, n)
            number = numeric_national_id(d.national_id)
            if number is not None:
                self.highest_new = max(self.highest_new, number)
        self.new_by_name.setdefault(name_key(d.name), []).append(n)

    def _free_national_ids(self, count: int) -> list[str | None]:
        """`count` national IDs for players registered without any, as the federation's numbering says
        (or --national-id-start): numbers after the highest one registered so far, at least the start;
        the prefix and a number after the highest so prefixed; or none (None: no national ID)."""
        if count == 0:
            return []
        if self.numbering is None:
            self.numbering = numbering(self.session)
        if self.highest_registered is None:
            self.highest_registered = highest_national_id(self.driver)  # also holds the numbering lock
        rule = self.numbering
        if self.matching.start is None and rule.mode == "none":
            return [None] * count
        if self.matching.start is None and rule.mode == "prefix":
            if self.highest_prefixed is None:
                self.highest_prefixed = highest_with_prefix(self.session, rule.prefix)
            first = self.highest_prefixed + 1
            self.highest_prefixed += count
            return [f"{rule.prefix}{n}" for n in range(first, first + count)]
        start = rule.start if self.matching.start is None else self.matching.start
        first = max(start, max(self.highest_registered, self.highest_new) + 1)
        return [str(n) for n in range(first, first + count)]


def file_differences(session: Session, parsed: Sequence[TrfEvent], matching: Matching) -> MatchReport:
    """`ratingdb player differences FILE...`: how the files' lines would be matched, with the register
    differences of the players they identify and the sex columns not taken — writing nothing (the players
    new to the register are only counted). A line that needs a decision is refused as `import-trf` does."""
    report = MatchReport()
    parsed = [check_columns(session, drop_lines(trf, matching, report), matching) for trf in parsed]
    entrants = Entrants(session, Driver(session), matching, parsed, report)
    for trf in parsed:
        entrants.match(trf)
    return report


def check_columns(session: Session, trf: TrfEvent, matching: Matching) -> TrfEvent:
    """The file with its columns read as the import's choices say, or the refusal naming the choice,
    before anything is written: the ID column read as FIDE IDs must hold plausible FIDE IDs
    (`implausible_fide_ids`; lines --match settles are not stored with their ID and are left out), and
    the federation column is read by `split_federation_column`."""
    settled = {r for r, i in matching.matched(trf.source_name).items() if i.strip().lower() != "new"}
    with_ids = [
        p for p in trf.players if p.rank not in settled and with_id_field(p, matching.id_field).fide_id
    ]
    rule = numbering(session)
    wrong = implausible_fide_ids(session, [p.fide_id for p in with_ids if p.fide_id], rule)
    if wrong:
        first = next(p for p in with_ids if p.fide_id in wrong)
        raise IdColumnRefused(
            source=trf.source_name,
            implausible=sum(1 for p in with_ids if p.fide_id in wrong),
            with_ids=len(with_ids),
            line=first.line,
            rank=first.rank,
            name=first.name,
            value=str(first.fide_id),
            choice="national",
            pattern=rule.pattern,
        )
    return split_federation_column(trf, matching.federation_column)


def implausible_fide_ids(
    session: Session, fide_ids: Iterable[int], rule: Numbering | None = None
) -> set[int]:
    """The IDs that cannot be FIDE IDs: not of FIDE_ID_DIGITS digits, or of the shape of the federation's
    own national IDs (`rule`'s pattern, `ratingdb federation set --national-id-pattern`), unless a list
    imported into the register (FIDE's, read with its IDs) has a player with that FIDE ID — the list is
    the better evidence."""
    low, high = FIDE_ID_DIGITS
    odd = sorted(
        {
            i
            for i in fide_ids
            if not 10 ** (low - 1) <= i < 10**high or (rule is not None and rule.is_federations(str(i)))
        }
    )
    if not odd:
        return set()
    listed: set[int] = set()
    one_of = engines.of(session).one_of
    for chunk in _chunks(odd, LOOKUP_CHUNK):
        listed.update(
            session.scalars(
                select(Player.fide_id)
                .join(ListEntry, ListEntry.player_id == Player.id)
                .join(RatingList, RatingList.id == ListEntry.list_id)
                .where(one_of(Player.fide_id, chunk), RatingList.origin == "imported")
                .distinct()
            )
        )
    return set(odd) - listed


def _line(
    source: str,
    p: TrfPlayer,
    problem: str,
    choices: tuple[str, ...],
    *,
    candidates: Sequence[Any] = (),
    conflict: OtherLine | None = None,
    drop: int | None = None,
    detail: str = "",
    id_field: str | None = None,
) -> UnresolvedLine:
    """A refused line as data (errors.UnresolvedLine): each front end words it."""
    return UnresolvedLine(
        source, p.line, p.rank, p.name, _shown_id(p) if _has_id(p) else "", problem, choices,
        tuple(LineCandidate(_ident(c), c.name, describe(c)) for c in candidates), conflict, drop, detail,
        id_field,
    )  # fmt: skip


# What the 001 line's federation column (cols 54–56) holds: FIDE federation codes (the TRF's meaning,
# the default), clubs (every value a club: the Bunratty Minor), or both (mixed: a FIDE code is a
# federation, any other value a club: the Bunratty Masters' ENG players beside Irish clubs).
FEDERATION_COLUMNS = ("federations", "clubs", "mixed")


def split_federation_column(trf: TrfEvent, reading: str) -> TrfEvent:
    """The file with its federation column read as `reading` says: each line's federation a FIDE code or
    nothing, and its club the value that is not a federation. Read as federations (the default), a value
    that is not a FIDE code refuses the file (FederationColumnRefused), naming the readings."""
    if reading not in FEDERATION_COLUMNS:
        raise ConfigError(f"--federation-column '{reading}' is not one of {', '.join(FEDERATION_COLUMNS)}")
    values = [(p, (p.federation or "").strip().upper()) for p in trf.players]
    if reading == "federations":
        clubs = Counter(v for _, v in values if v and v not in FIDE_FEDERATIONS)
        if clubs:
            feds = Counter(v for _, v in values if v in FIDE_FEDERATIONS)
            raise FederationColumnRefused(
                source=trf.source_name, clubs=clubs.most_common(), federations=feds.most_common()
            )
        return trf

    def read(p: TrfPlayer, value: str) -> TrfPlayer:
        if not value:
            return replace(p, federation=None, club=None)
        if reading == "mixed" and value in FIDE_FEDERATIONS:
            return replace(p, federation=value, club=None)
        return replace(p, federation=None, club=(p.federation or "").strip())

    return replace(trf, players=tuple(read(p, v) for p, v in values))


def _where(source: str, p: TrfPlayer) -> str:
    return f"{source} line {p.line} (rank {p.rank}) '{p.name}'"


def _has_id(p: TrfPlayer) -> bool:
    return bool(p.fide_id or p.national_id)


def _id_of(p: TrfPlayer) -> tuple[str, object]:
    return ("fide", p.fide_id) if p.fide_id else ("national", p.national_id)


def _shown_id(p: TrfPlayer) -> str:
    return f"FIDE {p.fide_id}" if p.fide_id else f"national {p.national_id}"


def _column_value(p: TrfPlayer) -> str | None:
    """The value the 001 line's ID column held, whichever kind --id-field says it is."""
    if p.fide_id:
        return str(p.fide_id)
    return p.national_id


def _ident(c: Any) -> str:
    return str(c.fide_id or c.national_id)


def _repeated_ids(players: Iterable[TrfPlayer]) -> dict[tuple[str, object], list[TrfPlayer]]:
    found: dict[tuple[str, object], list[TrfPlayer]] = {}
    for p in players:
        if _has_id(p):
            found.setdefault(_id_of(p), []).append(p)
    return found


def _played(trf: TrfEvent, rank: int) -> int:
    return sum(1 for g in trf.games if g.black is not None and rank in (g.white, g.black))


def with_id_field(p: TrfPlayer, id_field: str) -> TrfPlayer:
    """With --id-field national, the 001 line's ID column (cols 58–68) is a national ID, not a FIDE ID."""
    if id_field == "national" and p.fide_id:
        return replace(p, fide_id=None, national_id=str(p.fide_id))
    return p


def _agrees(p: TrfPlayer, c: Candidate) -> bool:
    """Birth year and federation agree wherever both the line and the register know them."""
    return (p.birth_year is None or c.birth_year is None or p.birth_year == c.birth_year) and (
        p.federation is None or c.federation is None or p.federation == c.federation
    )


def _agreeing(p: TrfPlayer) -> str:
    known = [w for w, v in (("birth year", p.birth_year), ("federation", p.federation)) if v]
    return f" ({' and '.join(known)} agreeing)" if known else ""


def register_differences(p: TrfPlayer, c: Candidate) -> list[tuple[str, str, str]]:
    """(attribute, the file's value, the register's or "") where the line gives a federation, sex, birth
    year or title that the register does not have for the player."""
    out = []
    for attribute, file, had in (
        ("federation", p.federation, c.federation),
        ("sex", p.sex, c.sex),
        ("birth_year", p.birth_year, c.birth_year),
        ("title", p.title, c.title),
    ):
        if file and file != had:
            out.append((attribute, str(file), "" if had is None else str(had)))
    return out


def uniform_sex(players: Sequence[TrfPlayer]) -> str | None:
    """The letter every line's sex column gives, if every line of a file of two or more gives the same
    one: a column filled in by default (the Bunratty files' M, …), not an account of who is a woman."""
    given = {p.sex for p in players}
    if len(players) < 2 or len(given) != 1 or None in given:
        return None
    return next(iter(given))


def _chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
