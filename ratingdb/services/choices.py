"""How a tournament file is read into an event: the choices `import-trf` and `replace-event` share, stored.

One dataclass holds every choice that shapes how a file is read and matched (the rating type and its
check, the period, the ID column, the lines settled by hand, the section). Each command fills it from its
options; a choice left as None is not made, and takes the value of the choices under it (`over`):
`import-trf` puts the defaults under it, `replace-event` the choices the replaced event was imported with
(event.import_choices, the JSON `stored` writes). Pure data and JSON: no Session, no CLI, no formats.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from ratingdb.rating import CLOSING_DAYS, Period
from ratingdb.services.matching import LineRef, Matching


@dataclass(frozen=True)
class ImportChoices:
    """The choices of one import or replacement; None: not made (see the module)."""

    rating_type: str | None = None  # --type; None after `over(DEFAULTS)` too: the file's record 222/092
    type_override: bool | None = None  # --type-override
    official: bool | None = None  # --official
    closing_days: int | None = None  # --closing-days
    period: Period | None = None  # --period; None after `over(DEFAULTS)` too: the end date's period
    distinct: bool | None = None  # --distinct-event
    section: str | None = None  # --section; "" is no section (an empty --section clears a stored one)
    id_field: str | None = None  # --id-field: fide | national
    federation_column: str | None = None  # --federation-column: federations | clubs | mixed
    matches: Mapping[LineRef, str] | None = None  # --match RANK=ID
    new: frozenset[LineRef] | None = None  # --new RANK
    accept_names: frozenset[LineRef] | None = None  # --accept-name RANK
    drops: frozenset[LineRef] | None = None  # --drop RANK
    # Lines whose stored choice is undone: matched as if none had been made (the replace page's "undo").
    cleared: frozenset[LineRef] | None = None
    national_id_start: int | None = None  # --national-id-start (a federation setting: not stored)

    def over(self, base: ImportChoices) -> ImportChoices:
        """These choices, each one not made taken from `base`."""
        made = {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}
        return replace(base, **made)

    def line_ranks(self) -> set[LineRef]:
        """The lines these choices settle (or undo), whatever the choice."""
        return {*(self.matches or {}), *(self.new or ()), *(self.accept_names or ()), *(self.drops or ()),
                *(self.cleared or ())}  # fmt: skip

    def lines_over(self, stored: ImportChoices) -> ImportChoices:
        """`stored` with every line these choices name taken out of its line choices (a line is settled
        once: `replace-event --match 10=ID` replaces a stored `--new 10`); then these choices over it,
        the line choices of both put together."""
        named = self.line_ranks()
        kept = replace(
            stored,
            matches={r: i for r, i in (stored.matches or {}).items() if r not in named},
            new=frozenset(r for r in stored.new or () if r not in named),
            accept_names=frozenset(r for r in stored.accept_names or () if r not in named),
            drops=frozenset(r for r in stored.drops or () if r not in named),
        )
        return replace(
            self.over(kept),
            matches={**kept.matches, **(self.matches or {})},  # type: ignore[dict-item]
            new=kept.new | (self.new or frozenset()),  # type: ignore[operator]
            accept_names=kept.accept_names | (self.accept_names or frozenset()),  # type: ignore[operator]
            drops=kept.drops | (self.drops or frozenset()),  # type: ignore[operator]
            cleared=None,
        )

    def matching(self, sources: str = "") -> Matching:
        """The matching step's choices (ratingdb.services.matching)."""
        return Matching(
            id_field=self.id_field or "fide",
            federation_column=self.federation_column or "federations",
            matches=dict(self.matches or {}),
            new=self.new or frozenset(),
            accept_names=self.accept_names or frozenset(),
            drops=self.drops or frozenset(),
            start=self.national_id_start,
            sources=sources,
        )

    def stored(self, source: str) -> str:
        """What event.import_choices keeps for the event of file `source`: the choices that applied to it,
        its lines named by rank alone (replace-event reads the corrected file with them)."""

        def ranks(refs: frozenset[LineRef] | None) -> list[int]:
            return sorted(rank for file, rank in refs or () if file in (None, source))

        return json.dumps(
            {
                "type_override": bool(self.type_override),
                "closing_days": self.closing_days if self.closing_days is not None else CLOSING_DAYS,
                "distinct_event": bool(self.distinct),
                "id_field": self.id_field or "fide",
                "federation_column": self.federation_column or "federations",
                "match": {
                    str(rank): ident
                    for (file, rank), ident in sorted((self.matches or {}).items(), key=lambda i: i[0][1])
                    if file in (None, source)
                },
                "new": ranks(self.new),
                "accept_name": ranks(self.accept_names),
                "drop": ranks(self.drops),
            },
            sort_keys=True,
        )

    @classmethod
    def from_stored(cls, text: str | None) -> ImportChoices:
        """The choices `stored` wrote (events imported before migration 0020 kept none: all defaults)."""
        if not text:
            return cls()
        data = json.loads(text)
        # A field given as null is a field not given (issue 51): its default, as when it is left out.
        return cls(
            type_override=data.get("type_override"),
            closing_days=data.get("closing_days"),
            distinct=data.get("distinct_event"),
            id_field=data.get("id_field"),
            federation_column=data.get("federation_column"),
            matches={(None, int(rank)): ident for rank, ident in (data.get("match") or {}).items()},
            new=frozenset((None, rank) for rank in data.get("new") or ()),
            accept_names=frozenset((None, rank) for rank in data.get("accept_name") or ()),
            drops=frozenset((None, rank) for rank in data.get("drop") or ()),
        )

    def as_options(self) -> list[str]:
        """The choices that differ from the defaults, written as the options that make them."""
        shown: list[str] = []
        if self.id_field and self.id_field != "fide":
            shown.append(f"--id-field {self.id_field}")
        if self.federation_column and self.federation_column != "federations":
            shown.append(f"--federation-column {self.federation_column}")
        if self.type_override:
            shown.append("--type-override")
        if self.closing_days is not None and self.closing_days != CLOSING_DAYS:
            shown.append(f"--closing-days {self.closing_days}")
        if self.distinct:
            shown.append("--distinct-event")
        shown += [f"--match {rank}={ident}" for (_, rank), ident in sorted((self.matches or {}).items())]
        for option, refs in (
            ("--new", self.new),
            ("--accept-name", self.accept_names),
            ("--drop", self.drops),
        ):
            shown += [f"{option} {rank}" for _, rank in sorted(refs or ())]
        return shown


# What a choice not made means when nothing is under it (import-trf).
DEFAULTS = ImportChoices(
    type_override=False,
    official=False,
    closing_days=CLOSING_DAYS,
    distinct=False,
    id_field="fide",
    federation_column="federations",
    matches={},
    new=frozenset(),
    accept_names=frozenset(),
    drops=frozenset(),
    national_id_start=None,  # the federation's numbering (ratingdb.services.federation)
)
