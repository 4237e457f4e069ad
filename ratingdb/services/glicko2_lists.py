"""Glicko-2 lists: import a starting list with deviations, and read a list's Glicko-2 figures; never commits.

A Glicko-2 list is an ordinary list (rating_list, list_entry with the whole-point rating) plus one
glicko2_entry row per rated player (migration 0019). Must not import the CLI or the reports.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError, RatingDbError
from ratingdb.rating import Period, RulesError
from ratingdb.rating.glicko2 import Glicko2Parameters, Glicko2RuleSet, PublishedGlicko2
from ratingdb.schema.models import Glicko2CalcPlayer, Glicko2Entry, RatingList

if TYPE_CHECKING:
    from ratingdb.formats import ListRow
    from ratingdb.formats.glicko2_list import DeviationLimit, Glicko2Figures
    from ratingdb.services.list_import import ListImportSummary

ENTRY_COLUMNS = ("list_id", "player_id", "rating_x100", "deviation_x100", "volatility_x1e6")


def glicko2_parameters(session: Session, rating_type: str, period: Period) -> Glicko2Parameters | None:
    """The Glicko-2 parameters of the rule set rating `rating_type` in `period`; None: not Glicko-2."""
    from ratingdb.services.rules import rule_set_in_force  # reads FIDE's rule files: only when asked

    try:
        rules = rule_set_in_force(session, rating_type, period).rules
    except RulesError:
        return None
    return rules.glicko2 if isinstance(rules, Glicko2RuleSet) else None


def deviation_limit(session: Session, rating_type: str, period: Period) -> DeviationLimit | None:
    """The most a deviation of a `rating_type` list of `period` may be (its rule set's maximum deviation,
    or its initial deviation without one); None: the type is not rated by Glicko-2 then."""
    from ratingdb.formats.glicko2_list import DeviationLimit
    from ratingdb.services.rules import rule_set_in_force

    try:
        rules = rule_set_in_force(session, rating_type, period).rules
    except RulesError:
        return None
    if not isinstance(rules, Glicko2RuleSet):
        return None
    params = rules.glicko2
    kind = "initial" if params.maximum_deviation is None else "maximum"
    return DeviationLimit(params.deviation_limit, kind, rules.name)


def list_parameters(session: Session, lst: RatingList) -> Glicko2Parameters | None:
    """The Glicko-2 parameters a list is shown with (its own rule set's, else its type's); None for a list
    that is not a Glicko-2 one (it has no glicko2_entry rows: one look-up by the primary key)."""
    if session.scalar(select(Glicko2Entry.list_id).where(Glicko2Entry.list_id == lst.id).limit(1)) is None:
        return None
    from ratingdb.services.rules import list_rule_set

    stored = list_rule_set(session, lst.id)
    if stored is not None:
        from ratingdb.rating import parse_rule_set

        rules = parse_rule_set(stored.content, source=stored.name)
        return rules.glicko2 if isinstance(rules, Glicko2RuleSet) else None
    return glicko2_parameters(session, lst.rating_type, Period.of(lst.list_date))


@dataclass(frozen=True)
class Glicko2Shown:
    """A player's figures on a Glicko-2 list, as published, and whether the rating is provisional."""

    figures: PublishedGlicko2
    provisional: bool
    # Hundredths since the list the close rated from (its calculation record's rating before); None for
    # a newcomer and on an imported list. list_entry.change is the whole points' difference.
    change_x100: int | None = None

    @property
    def rating(self) -> float:
        return self.figures.rating_x100 / 100

    @property
    def deviation(self) -> float:
        return self.figures.deviation_x100 / 100

    @property
    def volatility(self) -> float:
        return self.figures.volatility_x1e6 / 1e6


def glicko2_figures(
    session: Session, list_id: int, params: Glicko2Parameters, player_id: int | None = None
) -> dict[int, Glicko2Shown]:
    """Player id → the Glicko-2 figures of a list (of one player if given; rated players only)."""
    before = Glicko2CalcPlayer
    query = (
        select(Glicko2Entry, before.rating_x100, before.newcomer)
        .outerjoin(
            before, (before.list_id == Glicko2Entry.list_id) & (before.player_id == Glicko2Entry.player_id)
        )
        .where(Glicko2Entry.list_id == list_id)
    )
    if player_id is not None:
        query = query.where(Glicko2Entry.player_id == player_id)
    return {
        row.player_id: Glicko2Shown(
            PublishedGlicko2(row.rating_x100, row.deviation_x100, row.volatility_x1e6),
            params.is_provisional(row.deviation_x100 / 100),
            None if was_x100 is None or newcomer else row.rating_x100 - was_x100,
        )
        for row, was_x100, newcomer in session.execute(query)
    }


def import_glicko2_list(
    session: Session,
    path: Path,
    *,
    list_date: dt.date,
    rating_type: str,
    replace: bool = False,
    reason: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ListImportSummary:
    """Record a Glicko-2 CSV list (rating, deviation, volatility) as the imported list of `rating_type`.

    Refused (ConfigError) when the type is not rated by Glicko-2 in the list's period; the file's rows are
    checked by ratingdb.formats.glicko2_list, and the list follows import_list's rules otherwise.
    """
    # The readers and the list import are loaded here: `list` and the other reads need neither.
    from ratingdb.formats.glicko2_list import read_glicko2_list
    from ratingdb.services.bulk import Driver
    from ratingdb.services.list_import import import_list

    limit = deviation_limit(session, rating_type, Period.of(list_date))
    if limit is None:
        raise ConfigError(
            f"the {rating_type} list dated {list_date.isoformat()} is not rated by Glicko-2 (no rule set "
            f'with system = "glicko2" covers {Period.of(list_date)}): import it without deviations'
        )
    figures: dict[tuple[str, object], Glicko2Figures] = {}

    def rows() -> Iterator[ListRow]:
        for row, found in read_glicko2_list(path, rating_type, limit):
            if found is not None:
                figures[_key(row.fide_id, row.national_id)] = found
            yield row

    def write_figures(lists: dict[str, RatingList]) -> None:
        list_id = lists[rating_type].id
        driver = Driver(session)
        try:
            written = []
            for player_id, fide_id, national_id in driver.rows(
                "SELECT e.player_id, p.fide_id, p.national_id FROM list_entry e "
                "JOIN player p ON p.id = e.player_id WHERE e.list_id = ? AND e.rating IS NOT NULL",
                (list_id,),
            ):
                found = figures.get(("fide", fide_id)) if fide_id is not None else None
                if found is None:
                    found = figures.get(("national", national_id))
                if found is None:
                    raise RatingDbError(f"no Glicko-2 figures for player {player_id} of the imported list")
                written.append(
                    (list_id, player_id, found.rating_x100, found.deviation_x100, found.volatility_x1e6)
                )
            if len(written) != len(figures):
                raise RatingDbError(f"{len(figures)} rated rows in {path.name}, {len(written)} rated entries")
            driver.write("glicko2_entry", ENTRY_COLUMNS, sorted(written))
        finally:
            driver.restore()

    return import_list(
        session,
        rows(),
        list_date=list_date,
        rating_types=[rating_type],
        source=path.name,
        replace=replace,
        reason=reason,
        progress=progress,
        before_seal=write_figures,
    )


def update_glicko2_list(
    session: Session,
    path: Path,
    *,
    rating_type: str,
    reason: str,
    list_date: dt.date | None = None,
    progress: Callable[[int], None] | None = None,
) -> ListImportSummary:
    """A corrected Glicko-2 list: a new version of the list in force (or of `list_date`'s), as
    `import-list --update` publishes one of an Elo list (services/list_import.update_list).

    A row of the file gives a player's rating, deviation and volatility, all three (a blank rating keeps
    the entry as it was); every player the file leaves out keeps the figures of the version replaced. So a
    federation corrects one wrong deviation of its starting list with a one-line file. Refused, as any
    update, for a list a close has rated from: reopen that period instead.
    """
    from ratingdb.formats.glicko2_list import read_glicko2_list
    from ratingdb.services.bulk import Driver, chunks
    from ratingdb.services.list_import import update_list
    from ratingdb.services.rows import LIST_ENTRY_COLUMNS

    figures: dict[tuple[str, object], Glicko2Figures] = {}
    # The rule set of the corrected list's period (the list in force: this period's).
    limit = deviation_limit(session, rating_type, Period.of(list_date or dt.date.today()))

    def rows() -> Iterator[ListRow]:
        for row, found in read_glicko2_list(path, rating_type, limit):
            if found is not None:
                figures[_key(row.fide_id, row.national_id)] = found
            yield row

    def write_figures(lists: dict[str, RatingList], replaced: dict[str, RatingList]) -> dict[str, int]:
        new, old = lists[rating_type], replaced[rating_type]
        driver = Driver(session)
        try:
            kept = {
                row[0]: row[1:]
                for row in driver.rows(
                    "SELECT player_id, rating_x100, deviation_x100, volatility_x1e6 FROM glicko2_entry "
                    "WHERE list_id = ?",
                    (old.id,),
                )
            }
            written = []
            corrected = []  # the file's players whose figures change
            for player_id, fide_id, national_id in driver.rows(
                "SELECT e.player_id, p.fide_id, p.national_id FROM list_entry e "
                "JOIN player p ON p.id = e.player_id WHERE e.list_id = ? AND e.rating IS NOT NULL",
                (new.id,),
            ):
                found = figures.get(("fide", fide_id)) if fide_id is not None else None
                if found is None:
                    found = figures.get(("national", national_id))
                if found is not None:
                    shown = (found.rating_x100, found.deviation_x100, found.volatility_x1e6)
                    written.append((new.id, player_id, *shown))
                    if kept.get(player_id) != shown:
                        corrected.append(player_id)
                elif player_id in kept:
                    written.append((new.id, player_id, *kept[player_id]))
                # else: an entry of an Elo starting list without figures, which the close starts at its
                # rating with the initial deviation and volatility (services/systems/glicko2.py)
            driver.write("glicko2_entry", ENTRY_COLUMNS, sorted(written))
            # Of those, the entries list_entry shows unchanged (the same whole rating): changed here.
            same = 0
            for chunk in chunks(corrected, 500):
                condition, params = driver.among("n.player_id", chunk)
                same += driver.rows(
                    f"SELECT COUNT(*) FROM list_entry n JOIN list_entry o ON o.player_id = n.player_id "
                    f"AND o.list_id = ? WHERE n.list_id = ? AND {condition} AND "
                    + " AND ".join(_same(c) for c in LIST_ENTRY_COLUMNS[2:]),
                    (old.id, new.id, *params),
                )[0][0]
            return {rating_type: same}
        finally:
            driver.restore()

    return update_list(
        session,
        rows(),
        rating_types=[rating_type],
        source=path.name,
        reason=reason,
        list_date=list_date,
        progress=progress,
        before_seal=write_figures,
    )


def _same(column: str) -> str:
    """Two list entries agree on `column` (NULL agreeing with NULL)."""
    return f"(n.{column} = o.{column} OR (n.{column} IS NULL AND o.{column} IS NULL))"


def _key(fide_id: int | None, national_id: str | None) -> tuple[str, object]:
    return ("fide", fide_id) if fide_id is not None else ("national", national_id)


def player_glicko2(session: Session, player_id: int) -> dict[tuple[str, dt.date], Glicko2Shown]:
    """(rating type, list date) → the player's Glicko-2 figures on each current Glicko-2 list."""
    found: dict[tuple[str, dt.date], Glicko2Shown] = {}
    for lst in session.scalars(
        select(RatingList)
        .join(Glicko2Entry, Glicko2Entry.list_id == RatingList.id)
        .where(Glicko2Entry.player_id == player_id, RatingList.is_current.is_(True))
    ):
        params = list_parameters(session, lst)
        if params is not None:
            for shown in glicko2_figures(session, lst.id, params, player_id).values():
                found[(lst.rating_type, lst.list_date)] = shown
    return found
