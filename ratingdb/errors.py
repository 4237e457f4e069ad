"""User-facing errors: every exception a user should read as one sentence. No imports from the package."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class RatingDbError(Exception):
    """Base of every error the CLI prints as `Error: <sentence>` with a non-zero exit code."""


class ConfigError(RatingDbError):
    """A bad setting, URL or command-line value."""


class SchemaError(RatingDbError):
    """The database schema is missing or not at the current migration."""


class PeriodAlreadyClosed(RatingDbError):
    """An edit or import touches a period whose list is already published."""


class MissingList(RatingDbError):
    """A list the operation needs (for example the list in force) is not in the database."""


class UnknownPlayer(RatingDbError):
    """A player ID that the database does not know."""


class DuplicatePlayer(RatingDbError):
    """One person would be registered twice, or two registered players claim the same ID."""


class AmbiguousPlayer(RatingDbError):
    """A player line without an ID matches several registered players; --match settles it."""


@dataclass(frozen=True)
class LineCandidate:
    """A registered player a refused line may be: the ID that names them and how they are described
    ("Finnegan, Mark (national 4191, born 1967, IRL)")."""

    ident: str
    name: str
    text: str


@dataclass(frozen=True)
class OtherLine:
    """Another line of the same file a refused line conflicts with."""

    line: int
    rank: int
    name: str


# What can be wrong with a player line (UnresolvedLine.problem), and the choices that can settle each.
SAME_ID = "same-id"  # the ID of another line of the file
ID_TYPO = "id-typo"  # an unregistered ID, and a registered player of this name
NAME_DIFFERS = "name-differs"  # a registered ID whose player has another name, birth year, sex or federation
OTHER_KIND = "other-kind"  # an unregistered ID that is a registered player's ID of the other kind
NO_ID = "no-id"  # no ID, and several registered players of this name
SAME_PLAYER = "same-player"  # two lines resolved to one player
ID_COLUMN = "id-column"  # the whole file: its ID column holds the other kind of ID


@dataclass(frozen=True)
class UnresolvedLine:
    """A player line matching cannot settle without a decision, as data: each front end words it for its
    reader (the terminal as options: `as_options`; the officer's desk as controls; the organiser in plain
    words). `choices`: what settles it ("match", "new", "accept-name", "drop", or "id-field" for the whole
    file's ID column, with `id_field` the kind it seems to hold)."""

    source: str
    line: int
    rank: int
    name: str
    ids: str  # the line's ID as read ("FIDE 2500123", "national 4191"), "" if it has none
    problem: str
    choices: tuple[str, ...]
    candidates: tuple[LineCandidate, ...] = ()
    conflict: OtherLine | None = None  # the other line (SAME_ID, SAME_PLAYER)
    drop: int | None = None  # SAME_ID: the rank without games that can be left out
    detail: str = ""  # in the terminal's words: why (names' score, contradictions, agreeing fields, counts)
    id_field: str | None = None  # ID_COLUMN: what the column seems to hold (fide | national)

    def as_options(self) -> str:
        """The refusal as the terminal says it: the line, why, and the options that settle it."""
        where = f"{self.source} line {self.line} (rank {self.rank}) '{self.name}'"
        r = self.rank
        first = self.candidates[0] if self.candidates else None
        if self.problem == SAME_ID and self.conflict is not None:
            c = self.conflict
            drop = (
                f"--drop {self.drop} (rank {self.drop} has no games)"
                if self.drop is not None
                else "--drop is not possible: every one of these lines has games"
            )
            return (
                f"{where} {self.ids}: the same ID as line {c.line} (rank {c.rank}) '{c.name}' — one person, "
                f"two lines: {drop}; or, if rank {r} is someone else, --match {r}=ID or --new {r}"
            )
        if self.problem == ID_TYPO and first is not None:
            listed = "; ".join(c.text for c in self.candidates)
            return (
                f"{where} {self.ids}: no player has that ID, but {listed} has this name{self.detail} — a "
                f"typo in the ID? --match {r}={first.ident} (this line is {first.name}) or "
                f"--new {r} (a new player, registered with {self.ids})"
            )
        if self.problem == NAME_DIFFERS and first is not None:
            accept = (
                f", --accept-name {r} (the same player, another spelling: kept as an alias)"
                if "accept-name" in self.choices
                else ""
            )
            return (
                f"{where} {self.ids}: that ID is registered to {first.text}, but {self.detail} — say which: "
                f"--match {r}={first.ident} (this line is that player; or =ID of another player), --new {r} "
                f"(a new player, registered without the ID){accept}"
            )
        if self.problem == OTHER_KIND and first is not None:
            kind = "national" if self.ids.startswith("FIDE") else "FIDE"
            return (
                f"{where} {self.ids}: no player has that ID, but it is the {kind} ID of {first.text} — "
                f"--match {r}={first.ident} (this line is that player) or --new {r}"
            )
        if self.problem == NO_ID:
            listed = "; ".join(c.text for c in self.candidates)
            return (
                f"{where} (no ID) could be any of: {listed} — --match {r}=ID names the right one, --new {r} "
                "registers a new player"
            )
        if self.problem == SAME_PLAYER and self.conflict is not None and first is not None:
            c = self.conflict
            return (
                f"{where} and line {c.line} (rank {c.rank}) '{c.name}' are both {first.text} — one person, "
                "two lines: --drop RANK for a line without games, or --match RANK=ID / --new RANK for the "
                "other"
            )
        if self.problem == ID_COLUMN:
            return f"{self.source}: {self.detail}: import again with --id-field {self.id_field}"
        return f"{where}: {self.detail}"


class UnresolvedPlayers(AmbiguousPlayer):
    """Player lines of a file that matching cannot resolve without a decision (ratingdb.services.matching):
    each is an UnresolvedLine (`lines`), worded for the terminal in `problems` (UnresolvedLine.as_options);
    a plain sentence stands for what is not a line (as "… and 3 more lines like these")."""

    def __init__(self, problems: Sequence[str | UnresolvedLine], *, lines: int | None = None) -> None:
        # `lines`: how many lines need a decision when `problems` shows only some (and counts the rest).
        self.lines = [p for p in problems if isinstance(p, UnresolvedLine)]
        self.problems = [p.as_options() if isinstance(p, UnresolvedLine) else p for p in problems]
        total = len(problems) if lines is None else lines
        if len(problems) == 1:
            text = f"{self.problems[0]}; nothing was written"
        else:
            need = "player line needs" if total == 1 else "player lines need"
            text = f"{total} {need} a decision; nothing was written:\n  " + "\n  ".join(self.problems)
        super().__init__(text)


class IdColumnRefused(UnresolvedPlayers):
    """A file whose ID column, read as FIDE IDs, holds values that cannot be FIDE IDs: refused whole before
    anything is written, naming the other reading (`choice`: "national", `import-trf --id-field national`,
    the desk's "The ID column of the player lines holds" control). The values say what was found: how many
    of the file's IDs are implausible, and the first such line."""

    def __init__(
        self,
        *,
        source: str,
        implausible: int,
        with_ids: int,
        line: int,
        rank: int,
        name: str,
        value: str,
        choice: str,
        pattern: str = "",
    ) -> None:
        self.source = source
        self.implausible = implausible
        self.with_ids = with_ids
        self.line = line
        self.rank = rank
        self.name = name
        self.value = value
        self.choice = choice
        self.pattern = pattern  # the federation's national ID pattern, when set (`federation set`)
        self.kind = "id-column"
        self.values: dict[str, object] = {
            "source": source, "implausible": implausible, "with_ids": with_ids, "line": line, "rank": rank,
            "name": name, "value": value, "choice": choice, "pattern": pattern,
        }  # fmt: skip
        shape = f", not the pattern of the federation's national IDs ({pattern})," if pattern else ""
        super().__init__(
            [
                f"{source}: {implausible} of the file's {with_ids} IDs cannot be FIDE IDs (a FIDE ID has 6 "
                f"to 9 digits{shape} "
                f"and none of these is on an imported list; e.g. line {line} (rank {rank}) '{name}' "
                f"{value}) — if the ID column holds national IDs, import again with --id-field {choice}; "
                "if some IDs are wrong, correct them in the file"
            ]
        )


def _codes(values: list[tuple[str, int]]) -> str:
    """The first eight values of a federation column (most frequent first), for a page."""
    return ", ".join(code for code, _ in values[:8]) + (", …" if len(values) > 8 else "")


class FederationColumnRefused(RatingDbError):
    """A file whose federation column holds values that are not FIDE federation codes: refused whole
    before anything is written, since ratingdb never guesses what they are. `choices` are the readings
    (`import-trf --federation-column clubs|mixed`): every value a club, or the FIDE codes federations and
    the rest clubs. `clubs` and `federations` count the values of each kind, most frequent first."""

    def __init__(
        self,
        *,
        source: str,
        clubs: list[tuple[str, int]],
        federations: list[tuple[str, int]],
        choices: tuple[str, ...] = ("clubs", "mixed"),
    ) -> None:
        self.source = source
        self.clubs = clubs
        self.federations = federations
        self.choices = choices
        self.kind = "federation-column"
        self.values: dict[str, object] = {
            "source": source,
            "lines": sum(n for _, n in clubs),
            "clubs": _codes(clubs),
            "federations": _codes(federations),
        }

        def listed(values: list[tuple[str, int]]) -> str:
            shown = ", ".join(f"{code} {n}" for code, n in values[:8])
            return shown + (f", … ({len(values)} codes)" if len(values) > 8 else "")

        lines = sum(n for _, n in clubs)
        text = (
            f"{source}: the federation column holds values that are not FIDE federations on {lines} "
            f"line{'s' if lines != 1 else ''} ({listed(clubs)})"
        )
        if federations:
            text += (
                f" beside FIDE codes ({listed(federations)}) — if the column holds clubs, import again with "
                "--federation-column clubs; if the FIDE codes are federations and the rest clubs, with "
                "--federation-column mixed (check the FIDE codes: a club may write one, as BRA is Brazil's)"
            )
        else:
            text += " — if the column holds clubs, import again with --federation-column clubs"
        super().__init__(text + "; nothing was written")


class TypeMismatch(ConfigError):
    """A rating type given for a file whose own time control says another: refused, as data (`kind`,
    `values`) for the pages; str() is the terminal's sentence (--type, --type-override)."""

    kind = "type-mismatch"

    def __init__(self, *, source: str, given: str, found: str, record: str) -> None:
        self.values: dict[str, object] = {"source": source, "given": given, "found": found, "record": record}
        super().__init__(
            f"{source}: --type {given} does not match the file, whose {record} says {found} — import it with "
            f"--type {found}, or add --type-override if the file is wrong"
        )


class LateEvent(PeriodAlreadyClosed):
    """A file whose period is closed: refused, as data (`kind`, `values`) for the pages; str() is the
    terminal's sentence (a later period with --period, or `ratingdb reopen`)."""

    kind = "late-event"

    def __init__(self, *, source: str, name: str, rating_type: str, period: str, list_date: str) -> None:
        self.values: dict[str, object] = {
            "source": source, "name": name, "rating_type": rating_type, "period": period,
            "list_date": list_date,
        }  # fmt: skip
        super().__init__(
            f"cannot add {source} ({name}): {rating_type} period {period} is closed (its list dated "
            f"{list_date} is published); a late event can go into a later, open period with --period (at "
            f"most the third list after it ends, §9.1); to rate it in {period} itself, reopen that period "
            f"first: `ratingdb reopen {period} --type {rating_type} --reason TEXT`"
        )


class UnknownEvent(RatingDbError):
    """An event ID that the database does not know."""


class DuplicateEvent(RatingDbError):
    """The same tournament file was imported before."""


class AnotherSection(DuplicateEvent):
    """A file with the name and start date of a stored event but few of its players: another section of
    the same congress, or another tournament. As data (`kind`, `values`) for the pages, which name their
    controls or say it in plain words; str() is the terminal's sentence, naming its options (--section,
    --distinct-event). The services raise it with the values only."""

    kind = "another-section"

    def __init__(
        self, *, source: str, event_id: int, shown: str, period: str, rated: bool, shared: int,
        players: int, titled: str, has_section: bool,
    ) -> None:  # fmt: skip
        self.values: dict[str, object] = {
            "source": source, "event_id": event_id, "shown": shown, "period": period, "rated": rated,
            "shared": shared, "players": players, "titled": titled, "has_section": has_section,
        }  # fmt: skip
        where = f"rated in {period}" if rated else f"period {period}, not rated yet"
        name_it = (
            ""
            if has_section
            else f"; to show event {event_id} with its section too: `ratingdb event edit {event_id} "
            "--section NAME --reason TEXT`"
        )
        super().__init__(
            f"{source} has the name and start date of event {event_id} '{shown}' ({where}) but "
            f"only {shared} of the file's {players} players played in it (a corrected file keeps "
            "at least half): another section of the same congress — import it with --section NAME (shown as "
            f"'{titled}'), or with --distinct-event if it is another tournament" + name_it
        )


class CorrectedVersion(DuplicateEvent):
    """A file with the name and start date of a stored event and most of its players: a corrected
    version, which replaces the event (replace-event, after a reopen if its period is rated). As data
    (`kind`, `values`) for the pages; str() is the terminal's sentence, naming its commands and options."""

    kind = "corrected-version"

    def __init__(
        self, *, source: str, event_id: int, shown: str, period: str, rating_type: str, rated: bool,
        shared: int, players: int,
    ) -> None:  # fmt: skip
        self.values: dict[str, object] = {
            "source": source, "event_id": event_id, "shown": shown, "period": period,
            "rating_type": rating_type, "rated": rated, "shared": shared, "players": players,
        }  # fmt: skip
        where = f"rated in {period}" if rated else f"period {period}, not rated yet"
        steps = f"`ratingdb replace-event {event_id} {source}`"
        if rated:
            steps = f"`ratingdb reopen {period} --type {rating_type} --reason TEXT` then " + steps
        super().__init__(
            f"{source} looks like a corrected version of event {event_id} '{shown}' ({where}; "
            f"{shared} of the file's {players} players played in it): {steps}; if it is a different "
            "tournament with the same name and start date, add --distinct-event (a section of a congress: "
            "--section NAME)"
        )


class ImmutableList(RatingDbError):
    """An attempt to change a published list or its entries."""


class FormatError(RatingDbError):
    """A file that cannot be read unambiguously; names the file, line, column and reason."""

    def __init__(self, file: str, line: int | None, column: int | None, reason: str) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason
        where = file
        if line is not None:
            where += f" line {line}"
            if column is not None:
                where += f" col {column}"
        super().__init__(f"{where}: {reason}")


class TrfError(FormatError):
    """A tournament report file (TRF) that is refused."""


class NotATrfFile(TrfError):
    """A file given as a tournament report that is something else (a list, a spreadsheet, an archive)."""

    def __init__(self, file: str, reason: str) -> None:
        super().__init__(file, None, None, reason)
        self.args = (f"{file} does not look like a TRF file: {reason}",)

    def __str__(self) -> str:
        return str(self.args[0])


class ListFormatError(FormatError):
    """A rating-list file (CSV, FIDE text or XML) that is refused."""


class DeviationAboveLimit(ListFormatError):
    """A rated row of a Glicko-2 list whose deviation is above what the rule set allows: its maximum
    deviation, or without one its initial deviation (`limit` names which, `rules` the set)."""

    def __init__(self, file: str, line: int, column: int | None, deviation: str, limit: float, kind: str,
                 rules: str) -> None:  # fmt: skip
        self.deviation, self.limit, self.kind, self.rules = deviation, limit, kind, rules
        super().__init__(
            file, line, column,
            f"deviation {deviation} is above {limit:g}, the {kind} deviation of rule set '{rules}'",
        )  # fmt: skip


class InvalidRuleFile(RatingDbError):
    """A rule file that cannot be used: names the file, the key and the reason."""


class UnknownRuleSet(RatingDbError):
    """A rule-set name that is neither one of FIDE's built-in sets nor stored in the database."""


class RuleSetConflict(RatingDbError):
    """A rule set that would cover a period another set of the same rating type already covers."""


class ListWouldShrink(RatingDbError):
    """A list import that would drop many players of the list in force, or strand imported events."""


class NothingToUpdate(RatingDbError):
    """An `import-list --update` whose file changes nothing: no new version is written."""


class ListInUse(RatingDbError):
    """A list that something was already computed from, so it can be neither updated nor withdrawn."""


class LockWaitTimeout(RatingDbError):
    """Another close or import of the same rating type held the database lock for too long."""


class UnpublishableRating(RatingDbError):
    """The close computed a rating no list can hold (outside 1–3999): the rule set allows it."""
