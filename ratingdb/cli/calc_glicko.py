"""CLI: `calc --system glicko` — reads the options and the rule set, prints ratingdb.calculator.glicko.

Imported by `calc` only when Glicko is asked for (or the rule set chosen is a Glicko one).
"""

from __future__ import annotations

import json
from datetime import date

import typer

from ratingdb.calculator import glicko_text
from ratingdb.calculator.glicko import calculate_glicko, parse_glicko_game
from ratingdb.cli.calc_rules import PERIOD_TEXT, named_rule_set, rule_set_in_force
from ratingdb.cli.common import check_type, parse_period
from ratingdb.errors import ConfigError
from ratingdb.rating import RATING_TYPES, Period, RulesError
from ratingdb.rating.glicko import GlickoParameters, GlickoRating, GlickoRuleSet


def glicko_rules(rating_type: str, rules: str | None) -> tuple[GlickoRuleSet, str] | None:
    """The Glicko rule set `--rules NAME|PERIOD` or `--type` choose, with why; None if it is not one."""
    if rules is not None and not PERIOD_TEXT.fullmatch(rules.strip()):
        chosen, reason = named_rule_set(rules.strip()), "from --rules"
    elif rating_type in RATING_TYPES:
        return None
    else:
        period = Period.of(date.today()) if rules is None else parse_period(rules)
        chosen = rule_set_in_force(rating_type, period)
        reason = f"in force in {period}" + (", the current period" if rules is None else ", from --rules")
    return (chosen, reason) if isinstance(chosen, GlickoRuleSet) else None


def glicko_calc(
    rating: str | None, games: list[str], rating_type: str, rules: str | None, deviation: float | None,
    output_format: str,
) -> None:  # fmt: skip
    """Rate one period by Glicko with every step, under the chosen rule set or Glickman's values."""
    if rating_type not in RATING_TYPES:
        check_type(rating_type)
    found = glicko_rules(rating_type, rules)
    if found is None and rules is not None and not rules.strip()[:1].isdigit():
        raise ConfigError(f"rule set '{rules.strip()}' is not a Glicko rule set: leave out --system glicko")
    if found is None and rating_type not in RATING_TYPES:
        raise ConfigError(f"the {rating_type} rule set is not a Glicko one: leave out --system glicko")
    if found is None:
        params, name, reason = GlickoParameters(), "glicko", "Glickman's example values, no rule set"
    else:
        chosen, reason = found
        params, name = chosen.glicko, chosen.name
    if rating is None:
        raise ConfigError(
            "give RATING (or 'unrated'), e.g. calc 1500 --system glicko --rd 200 --game 1400:30:1"
        )
    newcomer = rating.strip().lower() == "unrated"
    if newcomer and deviation is not None:
        raise ConfigError("an unrated player starts at the rule set's deviation: leave out --deviation")
    player = None
    try:
        if not newcomer:
            try:
                value = float(rating)
            except ValueError:
                raise ConfigError(
                    f"'{rating}' is not a rating: give a number such as 1500, or 'unrated'"
                ) from None
            if deviation is None:
                raise ConfigError("Glicko needs your rating deviation too: add --rd RD, e.g. --rd 200")
            player = GlickoRating(value, deviation)
        # --rd is the deviation at the onset of the period (Step 1 done), as in Glickman's example.
        calculation = calculate_glicko(
            player, [parse_glicko_game(text) for text in games], params, periods=0, rules_name=name,
            rules_reason=reason,
        )  # fmt: skip
    except RulesError as exc:
        raise ConfigError(str(exc).replace("Glicko-2", "Glicko")) from exc
    if output_format == "json":
        typer.echo(json.dumps(glicko_text.as_dict(calculation), indent=2, ensure_ascii=False))
    else:
        for line in glicko_text.lines(calculation):
            typer.echo(line)
