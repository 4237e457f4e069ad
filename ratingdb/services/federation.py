"""The federation's settings, stored once: how ratingdb numbers players it registers without any ID,
what the federation's own national IDs look like, and the renumbering of numbers it made up before.

A national ID ratingdb makes up must never be one the federation's own files carry (issue 47: the
Bunratty Masters' players got 1, 2 … 34, and the next section's real number 26 was refused as another
player's). `ratingdb federation set` (and the admin's desk, and ratingdb.api) says whether ratingdb issues
national IDs at all and, if so, from which number or with which prefix (a prefix no federation number has,
"R" → R1, R2 …, can never meet one), and the pattern of the federation's own numbers (a regular
expression: the ID-column check reads an ID of that shape as national, and a numbering whose first number
has that shape is refused). `renumber` gives the players whose numbers ratingdb made up new ones by the
numbering and keeps each old one (PlayerOldId), so that old files still match. Without a setting: numbers
from 1, as before. Takes a Session, never commits; no CLI or web. Refusals are SettingRefused: which
setting, and a sentence each front end words (the CLI names its option, the desk its control).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.i18n import N_, translatable
from ratingdb.schema.models import FederationSetting, Player, PlayerOldId
from ratingdb.services.bulk import Driver
from ratingdb.services.players import (
    NATIONAL_ID_START,
    Details,
    change_players,
    highest_national_id,
    numeric_national_id,
)
from ratingdb.services.versions import record_change

# How players registered without any ID are numbered: numbers from `start`, `prefix` + a number, or none.
NUMBERING_MODES = ("numbers", "prefix", "none")
PREFIX_LENGTH = 8
PATTERN_LENGTH = 100  # a setting's value is at most 100 characters (federation_setting.value)
SETTINGS = ("national_ids", "national_id_start", "national_id_prefix", "national_id_pattern")


class SettingRefused(ConfigError):
    """A federation setting refused. `setting` says which (mode, start, prefix, pattern, range, reason):
    the CLI names its option, the desk its control; the sentence is translatable (ratingdb.i18n)."""

    def __init__(self, setting: str, message: str, **values: object) -> None:
        super().__init__(message % values)
        self.setting = setting
        translatable(self, message, **values)


@dataclass(frozen=True)
class Numbering:
    """The federation's numbering of the players ratingdb registers without any ID, and the pattern of
    the federation's own national IDs ("" when not set)."""

    mode: str = "numbers"
    start: int = NATIONAL_ID_START
    prefix: str = ""
    pattern: str = ""

    def describe(self) -> str:
        if self.mode == "none":
            text = "ratingdb issues no national IDs: a player registered without any ID has none"
        elif self.mode == "prefix":
            text = f"ratingdb issues national IDs {self.prefix}1, {self.prefix}2, … (prefix {self.prefix})"
        else:
            text = f"ratingdb issues numeric national IDs after the highest registered, from {self.start} on"
        if self.pattern:
            text += f"; the federation's own national IDs have the pattern {self.pattern}"
        return text

    def first(self) -> str | None:
        """The first national ID this numbering makes up (None: it makes up none)."""
        if self.mode == "none":
            return None
        return f"{self.prefix}1" if self.mode == "prefix" else str(self.start)

    def is_federations(self, national_id: str) -> bool:
        """Whether `national_id` has the shape of the federation's own national IDs (False: no pattern)."""
        return bool(self.pattern) and re.fullmatch(self.pattern, national_id) is not None


def numbering(session: Session) -> Numbering:
    """The stored numbering, or the default (numbers from 1, no pattern) where none is stored."""
    stored = dict(
        session.execute(
            select(FederationSetting.name, FederationSetting.value).where(
                FederationSetting.name.in_(SETTINGS)
            )
        ).all()
    )
    return Numbering(
        mode=stored.get("national_ids", "numbers"),
        start=int(stored.get("national_id_start", NATIONAL_ID_START)),
        prefix=stored.get("national_id_prefix", ""),
        pattern=stored.get("national_id_pattern", ""),
    )


def set_numbering(
    session: Session,
    *,
    mode: str | None = None,
    start: int | None = None,
    prefix: str | None = None,
    pattern: str | None = None,
    reason: str,
) -> tuple[Numbering, Numbering]:
    """Store the numbering (only what is given changes; pattern "" removes it), audited with `reason`;
    (before, after)."""
    if mode is None and start is None and prefix is None and pattern is None:
        raise SettingRefused(
            "mode", N_("nothing to set: give the numbering, its first number, its prefix or the pattern")
        )
    if not reason.strip():
        raise SettingRefused("reason", N_("the reason is empty: say why the numbering changes"))
    before = numbering(session)
    after = replace(
        before,
        mode=before.mode if mode is None else mode,
        start=before.start if start is None else start,
        prefix=before.prefix if prefix is None else prefix.strip(),
        pattern=before.pattern if pattern is None else pattern.strip(),
    )
    _check(after)
    for name, value in zip(
        SETTINGS, (after.mode, str(after.start), after.prefix, after.pattern), strict=True
    ):
        row = session.get(FederationSetting, name)
        if row is None:
            session.add(FederationSetting(name=name, value=value))
        else:
            row.value = value
    record_change(
        session,
        "federation-set",
        f"{after.describe()} (was: {before.describe()})",
        reason=reason.strip(),
    )
    session.flush()
    return before, after


def _check(rule: Numbering) -> None:
    """Refuse a numbering that is not one, or whose numbers could be the federation's own."""
    if rule.mode not in NUMBERING_MODES:
        raise SettingRefused(
            "mode", N_("'%(mode)s' is not a numbering: use numbers, prefix or none"), mode=rule.mode
        )
    if rule.start < 1:
        raise SettingRefused(
            "start", N_("the first number %(start)s is not a number from 1 on"), start=rule.start
        )
    if rule.mode == "prefix":
        if not rule.prefix:
            raise SettingRefused("prefix", N_("numbering with a prefix needs the prefix, e.g. R (R1, R2, …)"))
        if (
            len(rule.prefix) > PREFIX_LENGTH
            or not rule.prefix.isascii()
            or not rule.prefix.isprintable()
            or " " in rule.prefix
            or rule.prefix[0].isdigit()
        ):
            raise SettingRefused(
                "prefix",
                N_(
                    "'%(prefix)s' is not a prefix: 1 to %(most)s letters or signs without spaces, not "
                    "starting with a digit (a number's first digit could meet a federation's)"
                ),
                prefix=rule.prefix,
                most=PREFIX_LENGTH,
            )
    if rule.pattern:
        if len(rule.pattern) > PATTERN_LENGTH:
            raise SettingRefused(
                "pattern", N_("the pattern is longer than %(most)s characters"), most=PATTERN_LENGTH
            )
        try:
            re.compile(rule.pattern)
        except re.error as error:
            raise SettingRefused(
                "pattern",
                N_(
                    "'%(pattern)s' is not a regular expression (%(problem)s): e.g. [0-9]{1,5} for 1 to 5 "
                    "digits"
                ),
                pattern=rule.pattern,
                problem=str(error),
            ) from None
        first = rule.first()
        if first is not None and rule.is_federations(first):
            raise SettingRefused(
                "pattern",
                N_(
                    "the first national ID ratingdb would make up, %(first)s, has the pattern of the "
                    "federation's own (%(pattern)s): choose a prefix, or a first number outside the pattern"
                ),
                first=first,
                pattern=rule.pattern,
            )


def highest_with_prefix(session: Session, prefix: str) -> int:
    """The highest number after `prefix` among registered national IDs (0 if none)."""
    found = 0
    for (national_id,) in session.execute(
        select(Player.national_id).where(Player.national_id.startswith(prefix, autoescape=True))
    ):
        number = numeric_national_id(str(national_id)[len(prefix) :])
        if number is not None:
            found = max(found, number)
    return found


# -- renumbering ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Renumbered:
    """One player renumbered: their name, the old national ID (kept, PlayerOldId) and the new (None: the
    numbering issues none)."""

    player_id: int
    name: str
    old: str
    new: str | None


def renumber(session: Session, *, low: int, high: int, reason: str) -> list[Renumbered]:
    """Give the registered players whose national IDs are the numbers `low` to `high` (the numbers the
    register made up: the import summaries said "national ID assigned") new ones by the federation's
    numbering, each old one kept as an old ID so that the files written before still match; audited with
    `reason`. Refused when the numbering could give numbers of that range again (numbers from a first
    number not above `high`), or when no player has such a number."""
    if not reason.strip():
        raise SettingRefused("reason", N_("the reason is empty: say why the numbers change"))
    if not 1 <= low <= high:
        raise SettingRefused(
            "range", N_("%(low)s to %(high)s is not a range of numbers from 1 on"), low=low, high=high
        )
    rule = numbering(session)
    if rule.mode == "numbers" and rule.start <= high:
        raise SettingRefused(
            "range",
            N_(
                "the numbering issues numbers from %(start)s, which can be the federation's own as the "
                "numbers renumbered were: set a prefix (or a first number above %(high)s) first"
            ),
            start=rule.start,
            high=high,
        )
    players = [
        p
        for p in session.scalars(
            select(Player)
            .where(Player.merged_into.is_(None), Player.national_id.is_not(None))
            .order_by(Player.id)
        )
        if (number := numeric_national_id(str(p.national_id))) is not None and low <= number <= high
    ]
    if not players:
        raise SettingRefused(
            "range", N_("no registered player has a national ID from %(low)s to %(high)s"), low=low, high=high
        )
    driver = Driver(session)
    if rule.mode == "prefix":
        first = highest_with_prefix(session, rule.prefix) + 1
        new: list[str | None] = [f"{rule.prefix}{n}" for n in range(first, first + len(players))]
    elif rule.mode == "numbers":
        first = max(rule.start, highest_national_id(driver) + 1)
        new = [str(n) for n in range(first, first + len(players))]
    else:
        new = [None] * len(players)
    audit = record_change(
        session,
        "federation-renumber",
        f"{len(players)} national IDs from {low} to {high} renumbered: {rule.describe()}; the old ones kept",
        reason=reason.strip(),
    )
    done = [Renumbered(p.id, p.name, str(p.national_id), n) for p, n in zip(players, new, strict=True)]
    session.add_all(PlayerOldId(player_id=d.player_id, national_id=d.old, created_by=audit.id) for d in done)
    # The new version of each: the details as they are, the national ID the new one.
    changes = [
        (p.id, Details(p.name, p.federation, p.sex, p.title, p.birth_year, p.fide_id, d.new, p.deceased))
        for p, d in zip(players, done, strict=True)
    ]
    session.flush()
    change_players(driver, changes, audit.id)
    for p in players:
        session.expire(p)
    return done
