"""CLI: `calc --system glicko2` — reads the options and the rule set, prints ratingdb.calculator.glicko2.

Imported by `calc` only when Glicko-2 is asked for (or the rule set chosen is a Glicko-2 one).
"""

from __future__ import annotations

import json
from datetime import date

import typer

from ratingdb.errors import ConfigError


def glicko2_rules(rating_type: str, rules: str | None) -> tuple[object, str] | None:
    """The Glicko-2 rule set `--rules NAME|PERIOD` or `--type` choose, with why; None if it is not one."""
    from ratingdb.cli.calc_rules import PERIOD_TEXT, named_rule_set, rule_set_in_force
    from ratingdb.rating import RATING_TYPES, Period
    from ratingdb.rating.glicko2 import Glicko2RuleSet

    if rules is not None and not PERIOD_TEXT.fullmatch(rules.strip()):
        chosen, reason = named_rule_set(rules.strip()), "from --rules"
    elif rating_type in RATING_TYPES:
        return None
    else:
        from ratingdb.cli.common import parse_period

        today = Period.of(date.today())
        period = today if rules is None else parse_period(rules)
        chosen = rule_set_in_force(rating_type, period)
        reason = f"in force in {period}" + (", the current period" if rules is None else ", from --rules")
    return (chosen, reason) if isinstance(chosen, Glicko2RuleSet) else None


def glicko2_calc(
    rating: str | None,
    games: list[str],
    rating_type: str,
    rules: str | None,
    deviation: float | None,
    volatility: float | None,
    tau: float | None,
    output_format: str,
    player_id: int | None = None,
) -> None:
    """Rate one period by Glicko-2 with every step, under the chosen rule set or Glickman's defaults."""
    import dataclasses

    from ratingdb.calculator import glicko2_text
    from ratingdb.calculator.glicko2 import calculate_glicko2, parse_glicko2_game
    from ratingdb.cli.common import check_type
    from ratingdb.rating import RATING_TYPES, RulesError
    from ratingdb.rating.glicko2 import Glicko2Parameters, Glicko2Rating, Glicko2RuleSet

    if rating_type not in RATING_TYPES:
        check_type(rating_type)
    found = glicko2_rules(rating_type, rules)
    if found is None and rules is not None and not rules.strip()[:1].isdigit():
        raise ConfigError(
            f"rule set '{rules.strip()}' is not a Glicko-2 rule set: leave out --system glicko2"
        )
    if found is None and rating_type not in RATING_TYPES:
        raise ConfigError(f"the {rating_type} rule set is not a Glicko-2 one: leave out --system glicko2")
    if found is None:
        params, name, reason = Glicko2Parameters(), "glicko2", "Glickman's example values, no rule set"
    else:
        chosen, reason = found
        assert isinstance(chosen, Glicko2RuleSet)
        params, name = chosen.glicko2, chosen.name
    try:
        if tau is not None:
            params, reason = dataclasses.replace(params, tau=tau), f"{reason}, τ from --tau"
        label = None
        if player_id is not None:
            if rating is not None or deviation is not None or volatility is not None:
                raise ConfigError(
                    "--player takes rating, deviation and volatility from the list: give none of them"
                )
            rating, deviation, volatility, label = _from_list(player_id, rating_type)
        if rating is None:
            raise ConfigError(
                "give RATING (or 'unrated'), e.g. calc 1500 --system glicko2 --rd 200 --game 1400:30:1"
            )
        newcomer = rating.strip().lower() == "unrated"
        if newcomer and (deviation is not None or volatility is not None):
            raise ConfigError("an unrated player starts at the rule set's deviation and volatility: "
                              "leave out --deviation and --volatility")  # fmt: skip
        player, note = None, None
        if not newcomer:
            try:
                value = float(rating)
            except ValueError:
                raise ConfigError(
                    f"'{rating}' is not a rating: give a number such as 1500, or 'unrated'"
                ) from None
            if deviation is None:
                raise ConfigError("Glicko-2 needs your rating deviation too: add --rd RD, e.g. --rd 200")
            if volatility is None:
                volatility = params.initial_volatility
                note = "the initial volatility: give yours with --volatility"
            player = Glicko2Rating(value, deviation, volatility)
        calculation = calculate_glicko2(
            player,
            [parse_glicko2_game(text) for text in games],
            params,
            rules_name=name,
            rules_reason=reason,
            rating_note=note,
            player_label=label,
        )
    except RulesError as exc:
        raise ConfigError(str(exc)) from exc
    if output_format == "json":
        typer.echo(json.dumps(glicko2_text.as_dict(calculation), indent=2, ensure_ascii=False))
    else:
        for line in glicko2_text.lines(calculation):
            typer.echo(line)


def _from_list(fide_id: int, rating_type: str) -> tuple[str, float, float, str]:
    """A player's figures on the newest current Glicko-2 list of `rating_type` that rates them."""
    from sqlalchemy import select

    from ratingdb.cli.common import transaction
    from ratingdb.errors import MissingList, UnknownPlayer
    from ratingdb.schema.models import Glicko2Entry, Player, RatingList

    with transaction() as session:
        player = session.scalars(select(Player).where(Player.fide_id == fide_id)).one_or_none()
        if player is None:
            raise UnknownPlayer(f"no player has FIDE ID {fide_id}")
        row = session.execute(
            select(Glicko2Entry, RatingList.list_date)
            .join(RatingList, RatingList.id == Glicko2Entry.list_id)
            .where(
                Glicko2Entry.player_id == player.id,
                RatingList.rating_type == rating_type,
                RatingList.is_current.is_(True),
            )
            .order_by(RatingList.list_date.desc())
            .limit(1)
        ).first()
        if row is None:
            raise MissingList(f"{player.name} (FIDE ID {fide_id}) is rated on no {rating_type} Glicko-2 list")
        entry, list_date = row
        label = f"{player.name} (FIDE ID {fide_id}), {rating_type} list dated {list_date.isoformat()}"
        return (
            f"{entry.rating_x100 / 100:g}",
            entry.deviation_x100 / 100,
            entry.volatility_x1e6 / 1e6,
            label,
        )
