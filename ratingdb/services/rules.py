"""Stored rule sets: add a federation's rule file as a new version, find the set in force; never commits.

FIDE's sets ship with the package (ratingdb.rating.RULE_SETS); a federation's sets live in the
`rule_set` table, the file's text kept verbatim with its SHA-256 and versioned like lists
(docs/versioning.md). A stored set may define its own rating type, which is then known everywhere a
type is. Must not import the CLI, the formats or the reports.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb import rating as shipped  # RULE_SETS: its catalogue loads when first read
from ratingdb.errors import InvalidRuleFile, RuleSetConflict, UnknownRuleSet
from ratingdb.rating import RATING_TYPES, Period, RuleFileError, RuleSet, parse_rule_set
from ratingdb.schema.models import ListRuleSet, RatingList, StoredRuleSet
from ratingdb.services.versions import record_change, withdraw

CURRENT = StoredRuleSet.is_current.is_(True)


@dataclass(frozen=True)
class RuleSetInForce:
    """A rule set and, when it is stored, the row (the exact version) it was read from."""

    rules: RuleSet
    stored: StoredRuleSet | None


@dataclass(frozen=True)
class AddedRuleSet:
    """What `rules add` did: `unchanged` when the same text is already the current version."""

    row: StoredRuleSet
    rules: RuleSet
    unchanged: bool
    replaced_version: int | None


def _parse(row: StoredRuleSet) -> RuleSet:
    return parse_rule_set(row.content, source=f"rule set {row.name} version {row.version}")


def stored_rule_sets(session: Session) -> list[StoredRuleSet]:
    """The current version of every stored rule set, by rating type and first period."""
    return list(
        session.scalars(
            select(StoredRuleSet)
            .where(CURRENT)
            .order_by(StoredRuleSet.rating_type, StoredRuleSet.effective_from)
        )
    )


def rating_types(session: Session) -> list[str]:
    """standard, rapid, blitz and the types the stored rule sets define."""
    stored = session.scalars(select(StoredRuleSet.rating_type).where(CURRENT).distinct()).all()
    return list(dict.fromkeys([*RATING_TYPES, *sorted(stored)]))


def rule_set_in_force(session: Session, rating_type: str, period: Period) -> RuleSetInForce:
    """The one rule set, FIDE's or stored, that covers `rating_type` in `period` (RulesError if none)."""
    rows = {row.name: row for row in stored_rule_sets(session)}
    parsed = {name: _parse(row) for name, row in rows.items()}
    rules = shipped.rule_set_for(rating_type, period, (*shipped.RULE_SETS, *parsed.values()))
    return RuleSetInForce(rules, rows.get(rules.name))


HISTORY_TEMPLATE = "seeds/history/history-standard-2014.toml"  # docs/guide/rule-sets.md shows it


def uncovered_advice(rating_type: str, period: Period) -> str:
    """What to do about a period no rule set covers: store one with `rules add`, from the template for
    the years before FIDE's built-in sets (2014-07 … 2021-12, standard) when the period is that early."""
    add = "`ratingdb rules add FILE --reason TEXT`"
    starts = [
        r.effective_from for r in shipped.RULE_SETS if r.rating_type == rating_type and r.effective_from
    ]
    first = min(starts, default=None)
    if first is None or period >= first:
        return f"store a {rating_type} rule set that covers {period} with {add}"
    template = f"{HISTORY_TEMPLATE} in the checkout is a template for 2014-07 … 2021-12"
    if rating_type != "standard":
        template += f' (written for standard: set rating_type = "{rating_type}" and its K rules)'
    return (
        f"FIDE's built-in {rating_type} rule sets start at {first}: store one for earlier periods with {add} "
        f'({template}: "Replaying history before 2022" in docs/guide/rule-sets.md)'
    )


def find_rule_set(session: Session, name: str) -> RuleSetInForce:
    """A rule set by name: one of FIDE's, or the current version of a stored one."""
    for rules in shipped.RULE_SETS:
        if rules.name == name:
            return RuleSetInForce(rules, None)
    row = session.scalars(select(StoredRuleSet).where(StoredRuleSet.name == name, CURRENT)).one_or_none()
    if row is None:
        known = [r.name for r in shipped.RULE_SETS] + [r.name for r in stored_rule_sets(session)]
        raise UnknownRuleSet(f"there is no rule set named '{name}': known are {', '.join(known)}")
    return RuleSetInForce(_parse(row), row)


def versions(session: Session, name: str) -> list[StoredRuleSet]:
    """Every version of a stored rule set, oldest first."""
    return list(
        session.scalars(
            select(StoredRuleSet).where(StoredRuleSet.name == name).order_by(StoredRuleSet.version)
        )
    )


def add_rule_set(session: Session, text: str, *, source: str, reason: str | None = None) -> AddedRuleSet:
    """Store a rule file as the current version of its name; an edited file supersedes the old version.

    Refused whole (InvalidRuleFile) when the file is not a valid rule set, when it takes the name of one
    of FIDE's built-in sets, or (RuleSetConflict) when it would cover a period that another set of its
    rating type covers. Adding the same text again changes nothing. Lists closed under an earlier version
    keep pointing at that version.
    """
    try:
        rules = parse_rule_set(text, source=source)
    except RuleFileError as exc:
        raise InvalidRuleFile(str(exc)) from None
    if any(builtin.name == rules.name for builtin in shipped.RULE_SETS):
        raise InvalidRuleFile(
            f"{source}: name: '{rules.name}' is one of FIDE's built-in rule sets: give your set its own name"
        )
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    old = session.scalars(
        select(StoredRuleSet).where(StoredRuleSet.name == rules.name, CURRENT)
    ).one_or_none()
    if old is not None and old.sha256 == digest:
        return AddedRuleSet(old, rules, unchanged=True, replaced_version=None)
    others = [_parse(row) for row in stored_rule_sets(session) if row.name != rules.name]
    for other in (*shipped.RULE_SETS, *others):
        if other.rating_type == rules.rating_type and _overlap(other, rules):
            raise RuleSetConflict(
                f"{source}: {rules.rating_type} periods {_span(rules)} overlap the rule set '{other.name}' "
                f"({_span(other)}): change effective_from or effective_until so one set covers each period"
            )
    verb = "added" if old is None else f"replaced version {old.version} of"
    detail = f"{verb} rule set '{rules.name}' ({rules.rating_type}, {_span(rules)}) from {source}"
    change = record_change(session, "rules-add", f"{detail}, sha256 {digest}", reason=reason)
    if old is not None:
        withdraw(session, old, change)
    row = StoredRuleSet(
        name=rules.name,
        rating_type=rules.rating_type,
        effective_from=str(rules.effective_from),
        effective_until=str(rules.effective_to) if rules.effective_to is not None else None,
        content=text,
        sha256=digest,
        source=source[:255],
        version=(max((r.version for r in versions(session, rules.name)), default=0) + 1),
        is_current=True,
        created_by=change.id,
    )
    session.add(row)
    session.flush()
    return AddedRuleSet(row, rules, unchanged=False, replaced_version=old.version if old else None)


def record_list_rules(session: Session, list_id: int, stored: StoredRuleSet | None) -> None:
    """Record on a computed (still unsealed) list the exact stored rule set version it was closed under."""
    if stored is not None:
        session.add(ListRuleSet(list_id=list_id, rule_set_id=stored.id))
        session.flush()


def list_rule_set(session: Session, list_id: int) -> StoredRuleSet | None:
    """The stored rule set version a list was computed under (None: a FIDE set, or an imported list)."""
    return session.scalars(
        select(StoredRuleSet)
        .join(ListRuleSet, ListRuleSet.rule_set_id == StoredRuleSet.id)
        .where(ListRuleSet.list_id == list_id)
    ).one_or_none()


def rules_of_lists(session: Session, list_ids: Iterable[int]) -> dict[int, RuleSet | None]:
    """The rule set each computed list was closed under: the stored version it records (list_rule_set),
    else FIDE's set of its name; None for an imported list or a name no longer known. A write-up of a
    list's figures is written by these rules, not by the set in force today (issue 51)."""
    ids = list(dict.fromkeys(list_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(RatingList.id, RatingList.rules, StoredRuleSet)
        .outerjoin(ListRuleSet, ListRuleSet.list_id == RatingList.id)
        .outerjoin(StoredRuleSet, StoredRuleSet.id == ListRuleSet.rule_set_id)
        .where(RatingList.id.in_(ids))
    ).all()
    fide = {rules.name: rules for rules in shipped.RULE_SETS}
    parsed: dict[int, RuleSet] = {}
    found: dict[int, RuleSet | None] = {}
    for list_id, name, stored in rows:
        if stored is not None:
            if stored.id not in parsed:
                parsed[stored.id] = _parse(stored)
            found[list_id] = parsed[stored.id]
        else:
            found[list_id] = fide.get(name) if name else None
    return found


def _overlap(a: RuleSet, b: RuleSet) -> bool:
    far = Period(9998, 12)
    a_from, b_from = a.effective_from or Period(1, 1), b.effective_from or Period(1, 1)
    return a_from <= (b.effective_to or far) and b_from <= (a.effective_to or far)


def _span(rules: RuleSet) -> str:
    until = str(rules.effective_to) if rules.effective_to is not None else "on"
    return (
        f"{rules.effective_from} … {until}"
        if rules.effective_to is not None
        else f"{rules.effective_from} on"
    )
