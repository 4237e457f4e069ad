"""The register's corrections as a person asks for them: `ratingdb player edit` and `player merge`, and the
served site's player pages (ratingdb.web.desk), through the same functions.

The details given are checked as the readers check a file's (and the database's CHECK constraints check
them again); a correction is a new version of the details and any new aliases, with one reason; a merge
folds one or more duplicates into the player kept, in order, in the caller's transaction. Every message is
one sentence naming the option of `ratingdb player edit` it is about (the site's form labels name them
too). Takes a Session, never commits. No CLI or web imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from ratingdb.errors import ConfigError
from ratingdb.formats import limits
from ratingdb.names import name_key
from ratingdb.services.players import Merged, add_alias_by_hand, edit_player, find_by_id, merge_players

# What `player edit` may change, as its options name them.
CHANGEABLE = (
    "--name, --federation, --sex, --title, --birth-year, --fide-id, --national-id, --deceased/--alive, "
    "--add-alias"
)


def check_details(
    name: str | None = None,
    federation: str | None = None,
    sex: str | None = None,
    title: str | None = None,
    birth_year: int | None = None,
    fide_id: int | None = None,
    national_id: str | None = None,
) -> dict[str, Any]:
    """The details given, checked and written as they are stored; only those given (None: not given)."""
    given: dict[str, Any] = {}
    for option, value in (("--name", name), ("--national-id", national_id)):
        refused = limits.control_character(value or "")
        if refused is not None:
            raise ConfigError(f"{option} holds the control character {refused[1]}, which is not allowed")
    if name is not None:
        if not name.strip():
            raise ConfigError("--name is empty: give the player's name, e.g. 'Murphy, Sean'")
        given["name"] = " ".join(name.split())
        if len(given["name"]) > limits.PLAYER_NAME:
            raise ConfigError(
                f"--name is {len(given['name'])} characters long; at most {limits.PLAYER_NAME} are kept"
            )
    if federation is not None:
        fed = federation.strip().upper()
        if not (len(fed) == 3 and fed.isalpha()):
            raise ConfigError(f"--federation '{federation}' is not a three-letter code such as IRL")
        given["federation"] = fed
    if sex is not None:
        if sex.upper() not in ("M", "F"):
            raise ConfigError(f"--sex '{sex}' is not M or F")
        given["sex"] = sex.upper()
    if title is not None:
        if title.upper() not in limits.TITLES and title != "":
            raise ConfigError(f"--title '{title}' is not one of {' '.join(limits.TITLES)} (or '' for none)")
        given["title"] = title.upper() or None
    if birth_year is not None:
        if not 1000 <= birth_year <= 9999:
            raise ConfigError(f"--birth-year {birth_year} is not a four-digit year")
        given["birth_year"] = birth_year
    if fide_id is not None:
        if not 0 < fide_id <= limits.FIDE_ID_MAX:
            raise ConfigError(f"--fide-id {fide_id} is not a FIDE ID")
        given["fide_id"] = fide_id
    if national_id is not None:
        given["national_id"] = national_id.strip() or None
        if len(national_id.strip()) > limits.NATIONAL_ID:
            raise ConfigError(f"--national-id is longer than {limits.NATIONAL_ID} characters")
    return given


def check_alias(value: str) -> str:
    """Another spelling of a player's name, as it is kept."""
    clean = " ".join(value.split())
    refused = limits.control_character(value)
    if refused is not None:
        raise ConfigError(f"--add-alias holds the control character {refused[1]}, which is not allowed")
    if not clean:
        raise ConfigError("--add-alias is empty: give the other spelling, e.g. 'Smith, David J.'")
    if len(clean) > limits.PLAYER_NAME:
        raise ConfigError(
            f"--add-alias is {len(clean)} characters long; at most {limits.PLAYER_NAME} are kept"
        )
    return clean


@dataclass
class Correction:
    """What a correction did: each changed detail (column, before, after), the aliases added, and the old
    name kept as an alias when the name changed."""

    player_id: int
    name: str  # the player's name after it
    changed: list[tuple[str, object, object]] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    kept_alias: str | None = None  # the name before a change of name, kept as an alias


def correct_player(
    session: Session, ident: str, given: dict[str, Any], aliases: Sequence[str], reason: str
) -> Correction:
    """`ratingdb player edit IDENT`: the details in `given` (check_details, and "deceased") as a new
    version, and each alias (check_alias) added, all with `reason`."""
    if not given and not aliases:
        raise ConfigError(f"nothing to change: give at least one of {CHANGEABLE}")
    if not reason.strip():
        raise ConfigError("--reason is empty: say why the details change")
    player = find_by_id(session, ident)
    done = Correction(player.id, player.name)
    if given:
        before, after = edit_player(session, player, given, reason.strip())
        done.changed = [
            (c, getattr(before, c), getattr(after, c))
            for c in before._fields
            if getattr(before, c) != getattr(after, c)
        ]
        if name_key(before.name) != name_key(after.name):
            done.kept_alias = before.name
    for spelling in aliases:
        if not add_alias_by_hand(session, player, spelling, reason.strip()):
            raise ConfigError(
                f"'{spelling}' is already {player.name}'s name or an alias of it (accents, case and word "
                "order aside): nothing to add"
            )
        done.aliases.append(spelling)
    done.name = player.name
    return done


def merge_into(session: Session, duplicates: Sequence[str], keep: str, reason: str) -> list[Merged]:
    """`ratingdb player merge DUPLICATE... KEEP`: each duplicate merged into the player kept, in order;
    what each merge did (and took from each duplicate)."""
    if not duplicates:
        raise ConfigError("player merge needs DUPLICATE... KEEP: at least two IDs, the player to keep last")
    if not reason.strip():
        raise ConfigError("--reason is empty: say why the two are one person")
    details: list[Merged] = []
    for ident in duplicates:
        details.append(
            merge_players(session, find_by_id(session, ident), find_by_id(session, keep), reason.strip())
        )
    return details
