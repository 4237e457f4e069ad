"""User-facing errors: every exception a user should read as one sentence. No imports from the package."""

from __future__ import annotations


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


class UnresolvedPlayers(AmbiguousPlayer):
    """Player lines of a file that matching cannot resolve without a decision (ratingdb.services.matching):
    each problem names the file, line, name, ID, the registered candidates and the option that settles it.
    """

    def __init__(self, problems: list[str], *, lines: int | None = None) -> None:
        # `lines`: how many lines need a decision when `problems` shows only some (and counts the rest).
        self.problems = problems
        total = len(problems) if lines is None else lines
        if len(problems) == 1:
            text = f"{problems[0]}; nothing was written"
        else:
            need = "player line needs" if total == 1 else "player lines need"
            text = f"{total} {need} a decision; nothing was written:\n  " + "\n  ".join(problems)
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
    ) -> None:
        self.source = source
        self.implausible = implausible
        self.with_ids = with_ids
        self.line = line
        self.rank = rank
        self.name = name
        self.value = value
        self.choice = choice
        super().__init__(
            [
                f"{source}: {implausible} of the file's {with_ids} IDs cannot be FIDE IDs (a FIDE ID has 6 "
                f"to 9 "
                f"digits and none of these is on an imported list; e.g. line {line} (rank {rank}) '{name}' "
                f"{value}) — if the ID column holds national IDs, import again with --id-field {choice}; "
                "if some IDs are wrong, correct them in the file"
            ]
        )


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


class UnknownEvent(RatingDbError):
    """An event ID that the database does not know."""


class DuplicateEvent(RatingDbError):
    """The same tournament file was imported before."""


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
