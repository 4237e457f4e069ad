"""The federation's settings, stored once: how ratingdb numbers players it registers without any ID.

A national ID ratingdb makes up must never be one the federation's own files carry (issue 47: the
Bunratty Masters' players got 1, 2 … 34, and the next section's real number 26 was refused as another
player's). `ratingdb federation set` says whether ratingdb issues national IDs at all and, if so, from
which number or with which prefix (a prefix no federation number has, "R" → R1, R2 …, can never meet
one); `ratingdb federation show`, the import's matching (ratingdb.services.matching) and `player add`
read it. Without a setting: numbers from 1, as before. Takes a Session, never commits; no CLI or web.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.schema.models import FederationSetting, Player
from ratingdb.services.players import NATIONAL_ID_START, numeric_national_id
from ratingdb.services.versions import record_change

# How players registered without any ID are numbered: numbers from `start`, `prefix` + a number, or none.
NUMBERING_MODES = ("numbers", "prefix", "none")
PREFIX_LENGTH = 8


@dataclass(frozen=True)
class Numbering:
    """The federation's numbering of the players ratingdb registers without any ID."""

    mode: str = "numbers"
    start: int = NATIONAL_ID_START
    prefix: str = ""

    def describe(self) -> str:
        if self.mode == "none":
            return "ratingdb issues no national IDs: a player registered without any ID has none"
        if self.mode == "prefix":
            return f"ratingdb issues national IDs {self.prefix}1, {self.prefix}2, … (prefix {self.prefix})"
        return f"ratingdb issues numeric national IDs after the highest registered, from {self.start} on"


def numbering(session: Session) -> Numbering:
    """The stored numbering, or the default (numbers from 1) where none is stored."""
    stored = dict(
        session.execute(
            select(FederationSetting.name, FederationSetting.value).where(
                FederationSetting.name.in_(("national_ids", "national_id_start", "national_id_prefix"))
            )
        ).all()
    )
    return Numbering(
        mode=stored.get("national_ids", "numbers"),
        start=int(stored.get("national_id_start", NATIONAL_ID_START)),
        prefix=stored.get("national_id_prefix", ""),
    )


def set_numbering(
    session: Session,
    *,
    mode: str | None = None,
    start: int | None = None,
    prefix: str | None = None,
    reason: str,
) -> tuple[Numbering, Numbering]:
    """Store the numbering (only what is given changes), audited with `reason`; (before, after)."""
    if mode is None and start is None and prefix is None:
        raise ConfigError("nothing to set: give --national-ids, --national-id-start or --national-id-prefix")
    if not reason.strip():
        raise ConfigError("--reason is empty: say why the numbering changes")
    before = numbering(session)
    after = replace(
        before,
        mode=before.mode if mode is None else mode,
        start=before.start if start is None else start,
        prefix=before.prefix if prefix is None else prefix.strip(),
    )
    if after.mode not in NUMBERING_MODES:
        raise ConfigError(f"--national-ids '{after.mode}' is not one of {', '.join(NUMBERING_MODES)}")
    if after.start < 1:
        raise ConfigError(f"--national-id-start {after.start} is not a number from 1 on")
    if after.mode == "prefix":
        if not after.prefix:
            raise ConfigError("--national-ids prefix needs --national-id-prefix TEXT, e.g. R (R1, R2, …)")
        if (
            len(after.prefix) > PREFIX_LENGTH
            or not after.prefix.isascii()
            or not after.prefix.isprintable()
            or " " in after.prefix
            or after.prefix[0].isdigit()
        ):
            raise ConfigError(
                f"--national-id-prefix '{after.prefix}' is not a prefix: 1 to {PREFIX_LENGTH} letters "
                "or signs without spaces, not starting with a digit (a number's first digit could meet a "
                "federation's)"
            )
    for name, value in (
        ("national_ids", after.mode),
        ("national_id_start", str(after.start)),
        ("national_id_prefix", after.prefix),
    ):
        row = session.get(FederationSetting, name)
        if row is None:
            session.add(FederationSetting(name=name, value=value))
        else:
            row.value = value
    record_change(
        session, "federation-set", f"{after.describe()} (was: {before.describe()}); {reason.strip()}"
    )
    session.flush()
    return before, after


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
