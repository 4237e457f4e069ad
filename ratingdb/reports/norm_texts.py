"""The norm verdicts of the event page in the page's language: the same phrases as
ratingdb.rating.norms.NormCheck.verdict (which the CLI and the IT1 figures print in English), built
from the check's figures and rules with the catalogue's words.

Imports the rules library and ratingdb.i18n only; no database.
"""

from __future__ import annotations

from typing import Final

from ratingdb.calc_notes import shown_phrase
from ratingdb.i18n import N_, Language
from ratingdb.rating.norms import NormCheck, RuleCheck

SYSTEMS: Final = {
    "swiss": N_("Swiss"),
    "round_robin": N_("round robin"),
    "double_round_robin": N_("double round robin"),
    "knockout": N_("knockout"),
}
# The rules' names (ratingdb.rating.norms): Ra and Rp are symbols, printed as they are.
RULE_NAMES: Final = {
    "games": N_("games"),
    "opponents' federations": N_("opponents' federations"),
    "foreign federations": N_("foreign federations"),
    "own federation": N_("own federation"),
    "one federation": N_("one federation"),
    "titled opponents": N_("titled opponents"),
    "players": N_("players"),
    "score": N_("score"),
    "women's title": N_("women's title"),
}
# The rules' values and requirements that are words (the figures alone are printed as they are).
RULE_PHRASES: Final = (
    N_("%(titles)s opponents"),
    N_("8 + forfeit win or bye in round %(round)s"),
    N_("exempt: %(exemption)s"),
    N_("the applicant's federation is not known"),
    N_("%(n)s (3/5 of %(games)s)"),
    N_("%(n)s (2/3 of %(games)s)"),
    N_("%(n)s (half of %(games)s)"),
    N_("%(n)s (1/3 of %(games)s, at least 3)"),
    N_("no games counted"),
    N_("the applicant is not a woman"),
)
# Where the event's system came from (ratingdb.reports.norms.event_norms).
SYSTEM_SOURCES: Final = (
    N_("from the file's 092 line (%(line)s)"),
    N_("assumed (no 092 line; --system sets it)"),
    N_("assumed (the file's 092 line says %(line)s; --system sets it)"),
    N_("given with --system"),
)
_NEGATED: Final = {"≥": "<", "≤": ">", "=": "≠"}


def system_word(system: str, lang: Language) -> str:
    found = SYSTEMS.get(system)
    return lang.gettext(found) if found else system.replace("_", " ")


def system_source(source: str, lang: Language) -> str:
    return shown_phrase(source, lang, SYSTEM_SOURCES)


def rule_text(rule: RuleCheck, lang: Language) -> str:
    """RuleCheck.text in `lang`: 'Rp 2566 < 2600', 'Partien 8 < 9'."""
    found = RULE_NAMES.get(rule.name)
    name = lang.gettext(found) if found else shown_phrase(rule.name, lang, RULE_PHRASES)
    value = shown_phrase(rule.value, lang, RULE_PHRASES)
    if not rule.comparison:
        return f"{name}: {value}"
    shown = rule.comparison if rule.passed else _NEGATED[rule.comparison]
    return f"{name} {value} {shown} {shown_phrase(rule.required, lang, RULE_PHRASES)}"


def _points(x100: int) -> str:
    whole, rest = divmod(x100, 100)
    return f"{whole}½" if rest == 50 and whole else ("½" if rest == 50 else str(whole))


def verdict(check: NormCheck, lang: Language) -> str:
    """The event page's verdict: 'GM norm met' or 'GM: Rp 2566 < 2600 — ½ point short', in `lang`."""
    if lang.code == "en":
        return check.verdict()
    _ = lang.gettext
    if check.met:
        extras = []
        if check.left_out:
            extras.append(
                _("leaving out round %(rounds)s (%(paragraphs)s)")
                % {
                    "rounds": ", ".join(str(r) for r in check.left_out_rounds),
                    "paragraphs": "/".join(sorted({x.paragraph for x in check.left_out})),
                }
            )
        if check.forfeit_credit_round is not None:
            extras.append(
                _("8 games + forfeit/bye in round %(round)s (1.4.1c)") % {"round": check.forfeit_credit_round}
            )
        if check.forfeit_as_loss_round is not None:
            extras.append(
                _("round %(round)s forfeit counted as a loss (1.4.2c)")
                % {"round": check.forfeit_as_loss_round}
            )
        if check.exemption is not None:
            extras.append(_("federations exempt by %(exemption)s") % {"exemption": check.exemption})
        met = _("%(norm)s norm met") % {"norm": check.norm}
        return met + (f" ({'; '.join(extras)})" if extras else "")
    shown = "; ".join(rule_text(r, lang) for r in check.failed_rules)
    text = _("%(norm)s: %(rules)s") % {"norm": check.norm, "rules": shown}
    if check.points_short is not None:
        short = lang.ngettext(
            "%(points)s point short", "%(points)s points short", 1 if check.points_short <= 100 else 2
        )
        text += " — " + short % {"points": _points(check.points_short)}
    return text
