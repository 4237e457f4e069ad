"""Who each player line of a batch of tournament files is: a registered player, or one the batch registers.

Takes a Session, never commits. Every file's lines are looked up at once (one query by ID, one by name)
and the players new to the register are written together when the batch is accepted, so an import of
many files costs a few round trips; a later file still finds the players an earlier file registers,
exactly as if the files were imported one by one. No CLI, formats parsing or report imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import AmbiguousPlayer, ConfigError, UnknownPlayer
from ratingdb.formats import TrfEvent, TrfPlayer
from ratingdb.models import Player
from ratingdb.names import name_key
from ratingdb.services.bulk import Driver
from ratingdb.services.players import (
    NATIONAL_ID_START,
    Details,
    describe,
    find_by_id,
    highest_national_id,
    kept,
    numeric_national_id,
    register_players,
    similar_players,
)
from ratingdb.services.versions import record_change

# Lookups by ID or name key send at most this many values in one IN list (SQLite allows 32,766).
LOOKUP_CHUNK = 10_000


@dataclass
class Matching:
    """How player lines find registered players: what the TRF16 ID column holds, choices made by hand."""

    id_field: str = "fide"  # fide | national: the register the 001 line's ID column (cols 58–68) refers to
    # (file name, or None for the only file; starting rank) → FIDE or national ID, or "new"
    matches: Mapping[tuple[str | None, int], str] = field(default_factory=dict)
    start: int = NATIONAL_ID_START  # the first national ID given to a player registered without one
    sources: str = ""
    _audit_id: int | None = None

    def audit_id(self, session: Session) -> int:
        """The audit row of this import's registrations (written once, when the first player is new)."""
        if self._audit_id is None:
            change = record_change(session, "import-trf", f"players registered by importing {self.sources}")
            self._audit_id = change.id
        return self._audit_id


class NewPlayer:
    """A player a file of the batch registers: its details now, its id once the batch is written."""

    __slots__ = ("details", "assigned", "file", "id")

    def __init__(self, details: Details, assigned: bool, file: int) -> None:
        self.details = details
        self.assigned = assigned  # the national ID was given by the import (the line had no ID)
        self.file = file  # position of the file that registers it, in the batch
        self.id = 0

    # What `describe` and `_agrees` read, as on a registered Player.
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


# A player line's player: the id of a registered player, or one the batch registers.
PlayerRef = int | NewPlayer


class Entrants:
    """The register as the batch's files see it: what the database holds plus what earlier files add."""

    def __init__(
        self, session: Session, driver: Driver, matching: Matching, files: Sequence[TrfEvent]
    ) -> None:
        self.session = session
        self.driver = driver
        self.matching = matching
        self.new: list[NewPlayer] = []
        self.files = 0
        lines = [_with_id_field(p, matching.id_field) for trf in files for p in trf.players]
        self.by_fide, self.by_national = _registered_by_id(session, lines)
        self.by_name = _registered_by_name(session, [p for p in lines if not _has_id(p)])
        self.new_by_fide: dict[int, NewPlayer] = {}
        self.new_by_national: dict[str, NewPlayer] = {}
        self.new_by_name: dict[str, list[NewPlayer]] = {}
        self.highest_registered: int | None = None  # the highest numeric national ID in the database
        self.highest_new = 0  # … among the players the batch registers

    def match(self, trf: TrfEvent) -> dict[int, PlayerRef]:
        """Starting rank → player, registering (in the batch) the players the register does not know.

        By FIDE ID, then national ID (a merged duplicate's IDs give the player it was merged into). A line
        without an ID is matched by name (ratingdb.names.name_key) to the one registered player whose
        birth year and federation agree where both are known; with several such players the whole import
        is refused listing them, unless `--match RANK=ID` (or `RANK=new`) names the right one.
        """
        file = self.files
        self.files += 1
        players = [_with_id_field(p, self.matching.id_field) for p in trf.players]
        chosen = self._chosen(trf, {p.rank for p in players})
        ids: dict[int, PlayerRef] = {}
        unknown: list[TrfPlayer] = []
        no_id: list[TrfPlayer] = []
        for p in players:
            if p.rank in chosen:
                target = chosen[p.rank]
                if target is None:
                    unknown.append(p)
                else:
                    ids[p.rank] = target
                continue
            found = self._by_fide(p.fide_id) if p.fide_id else None
            if found is None and p.national_id:
                found = self._by_national(p.national_id)
            if found is not None:
                ids[p.rank] = found
            elif p.fide_id or p.national_id:
                unknown.append(p)
            else:
                no_id.append(p)
        ambiguous: list[str] = []
        for p in no_id:
            key = name_key(p.name)
            # A name with no letters or digits to compare matches nobody.
            candidates = [c for c in self._named(key) if _agrees(p, c)] if key else []
            if len(candidates) == 1:
                only = candidates[0]
                ids[p.rank] = only if isinstance(only, NewPlayer) else only.id
            elif not candidates:
                unknown.append(p)
            else:
                listed = "; ".join(describe(c) for c in candidates)
                ambiguous.append(f"player {p.rank} {describe(p)} could be any of: {listed}")
        if ambiguous:
            raise AmbiguousPlayer(
                f"{trf.source_name}: {' | '.join(ambiguous)} — name the right one with --match RANK=ID "
                "(or --match RANK=new for a new player) and import again"
            )
        assigned = iter(self._free_national_ids(sum(1 for p in unknown if not _has_id(p))))
        new = [
            NewPlayer(
                Details(
                    name=p.name,
                    federation=p.federation,
                    sex=p.sex,
                    title=p.title,
                    birth_year=p.birth_year,
                    fide_id=p.fide_id or None,
                    national_id=p.national_id if _has_id(p) else next(assigned),
                ),
                assigned=not _has_id(p),
                file=file,
            )
            for p in unknown
        ]
        # Known to the next files only: a file's own lines are two people even when they look alike.
        for p, n in zip(unknown, new, strict=True):
            ids[p.rank] = n
            self._remember(n)
        self.new.extend(new)
        return ids

    def register(self) -> list[str]:
        """Write the players the batch registers (one bulk write per table); how each is described."""
        if not self.new:
            return []
        audit_id = self.matching.audit_id(self.session)
        registered = register_players(self.driver, [n.details for n in self.new], audit_id)
        for n, reg in zip(self.new, registered, strict=True):
            n.id = reg.player_id
        lines: list[str] = []
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
                line = f"{line[:-1]}; national ID assigned)" + notes.get(n.id, "")
            lines.append(line)
        return lines

    @staticmethod
    def player_ids(refs: Mapping[int, PlayerRef]) -> dict[int, int]:
        """Starting rank → player id, once `register` has written the new players."""
        return {rank: ref if isinstance(ref, int) else ref.id for rank, ref in refs.items()}

    def _chosen(self, trf: TrfEvent, ranks: set[int]) -> dict[int, PlayerRef | None]:
        """Starting rank → the player chosen with --match (None: register a new player)."""
        chosen: dict[int, PlayerRef | None] = {}
        for (file, rank), ident in self.matching.matches.items():
            if file is not None and file != trf.source_name:
                continue
            if rank not in ranks:
                raise ConfigError(
                    f"--match {rank}={ident}: {trf.source_name} has no player with starting rank {rank}"
                )
            chosen[rank] = None if ident.strip().lower() == "new" else self._by_ident(ident)
        return chosen

    def _by_ident(self, ident: str) -> PlayerRef:
        """The player --match names: registered (find_by_id), else registered by an earlier file."""
        try:
            return find_by_id(self.session, ident).id
        except UnknownPlayer:
            text = ident.strip()
            found = self.new_by_fide.get(int(text)) if text.isdigit() and len(text) <= 18 else None
            found = found or self.new_by_national.get(text)
            if found is None:
                raise
            return found

    def _by_fide(self, fide_id: int) -> PlayerRef | None:
        found = self.by_fide.get(fide_id)
        return found if found is not None else self.new_by_fide.get(fide_id)

    def _by_national(self, national_id: str) -> PlayerRef | None:
        found = self.by_national.get(national_id)
        return found if found is not None else self.new_by_national.get(national_id)

    def _named(self, key: str) -> list[Player | NewPlayer]:
        """Registered players with this name key, in the order they were registered."""
        return [*self.by_name.get(key, ()), *self.new_by_name.get(key, ())]

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

    def _free_national_ids(self, count: int) -> list[str]:
        """`count` numeric national IDs after the highest one registered so far (at least `start`)."""
        if count == 0:
            return []
        if self.highest_registered is None:
            self.highest_registered = highest_national_id(self.driver)
        first = max(self.matching.start, max(self.highest_registered, self.highest_new) + 1)
        return [str(n) for n in range(first, first + count)]


def _has_id(p: TrfPlayer) -> bool:
    return bool(p.fide_id or p.national_id)


def _with_id_field(p: TrfPlayer, id_field: str) -> TrfPlayer:
    """With --id-field national, the 001 line's ID column (cols 58–68) is a national ID, not a FIDE ID."""
    if id_field == "national" and p.fide_id:
        return replace(p, fide_id=None, national_id=str(p.fide_id))
    return p


def _agrees(p: TrfPlayer, c: Player | NewPlayer) -> bool:
    """Birth year and federation agree wherever both the line and the register know them."""
    return (p.birth_year is None or c.birth_year is None or p.birth_year == c.birth_year) and (
        p.federation is None or c.federation is None or p.federation == c.federation
    )


def _registered_by_id(
    session: Session, players: Sequence[TrfPlayer]
) -> tuple[dict[int, int], dict[str, int]]:
    """FIDE ID → player id and national ID → player id of the registered players among `players`."""
    fide_ids = {p.fide_id for p in players if p.fide_id}
    national_ids = {p.national_id for p in players if p.national_id}
    by_fide: dict[int, int] = {}
    by_national: dict[str, int] = {}
    for column, wanted in ((Player.fide_id, fide_ids), (Player.national_id, national_ids)):
        for chunk in _chunks(sorted(wanted), LOOKUP_CHUNK):
            for fide_id, national_id, player_id, merged_into in session.execute(
                select(Player.fide_id, Player.national_id, Player.id, Player.merged_into).where(
                    column.in_(chunk)
                )
            ):
                target = (
                    player_id if merged_into is None else kept(session, session.get_one(Player, player_id)).id
                )
                if fide_id in fide_ids:
                    by_fide[fide_id] = target
                if national_id in national_ids:
                    by_national[national_id] = target
    return by_fide, by_national


def _registered_by_name(session: Session, players: Sequence[TrfPlayer]) -> dict[str, list[Player]]:
    keys = sorted({name_key(p.name) for p in players})
    found: dict[str, list[Player]] = {}
    for chunk in _chunks(keys, LOOKUP_CHUNK):
        for c in session.scalars(
            select(Player).where(Player.name_key.in_(chunk), Player.merged_into.is_(None)).order_by(Player.id)
        ):
            found.setdefault(c.name_key, []).append(c)
    return found


def _chunks(items: Sequence[object], size: int) -> Iterable[Sequence[object]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
