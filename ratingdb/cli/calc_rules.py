"""CLI: the rule set a calculator command (`calc`, `calc --system glicko2`) is asked for by --rules or --type.

FIDE's built-in sets need no database; a stored one (`rules add`) is read from the database of --db, as the
close would take it. One module both calculators import, so neither imports the other.
"""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ratingdb.cli.common import engine, transaction
from ratingdb.errors import ConfigError, SchemaError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from ratingdb.rating import Period, RuleSet


PERIOD_TEXT = re.compile(r"[0-9-]+")  # digits only: meant as a period (names have letters)


def named_rule_set(name: str) -> "RuleSet":
    """FIDE's built-in rule set of that name (no database needed), else a stored one."""
    from ratingdb.rating import RULE_SETS

    for builtin in RULE_SETS:
        if builtin.name == name:
            return builtin
    from ratingdb.services.rules import find_rule_set

    known = ", ".join(r.name for r in RULE_SETS)
    with _database(f"there is no built-in rule set named '{name}' ({known})") as session:
        return find_rule_set(session, name).rules


def rule_set_in_force(rating_type: str, period: "Period") -> "RuleSet":
    """The rule set of `rating_type` in `period`: FIDE's built-in one when it covers the period (no
    database needed), else the stored one of the database (--db) that does (`rules add`), as the close
    would take it."""
    from ratingdb.rating import RATING_TYPES, RulesError, rule_set_for

    if rating_type in RATING_TYPES:
        try:
            return rule_set_for(rating_type, period)
        except RulesError:
            pass  # before or after FIDE's sets: a stored set may cover it
    from ratingdb.services import rules as stored

    advice = stored.uncovered_advice(rating_type, period)
    with _database(f"no built-in {rating_type} rule set covers period {period}") as session:
        try:
            return stored.rule_set_in_force(session, rating_type, period).rules
        except RulesError as exc:
            raise ConfigError(f"{exc} — {advice}") from exc


@contextmanager
def _database(missing: str) -> "Iterator[Session]":
    """A transaction on the database of --db (RATINGDB_URL), to find a stored rule set in; when there is
    none to read, `missing` and why, in one line."""
    try:
        on = engine()
    except SchemaError as exc:
        why = str(exc).split(" — ")[0]
        raise ConfigError(
            f"{missing}, and there is no database to find a stored one in ({why}) — give it with --db URL"
        ) from None
    try:
        with transaction(on=on) as session:
            yield session
    finally:
        on.dispose()
