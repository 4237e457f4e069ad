"""CLI: `rules add|list|show` — FIDE's built-in rule sets and a federation's own, stored as versions."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ratingdb.cli.app import SETUP, RatingDbTyper, app
from ratingdb.cli.common import (
    DryRunOption,
    FormatOption,
    dry_run_heading,
    render_rows,
    transaction,
    user_errors,
)
from ratingdb.cli.output import echo
from ratingdb.errors import ConfigError, UnknownRuleSet

if TYPE_CHECKING:
    from ratingdb.rating import RuleSet

rules_app = RatingDbTyper(
    help="Rule sets: FIDE's built-in ones and your federation's own (TOML files, kept as versions).",
    no_args_is_help=True,
)
app.add_typer(rules_app, name="rules", rich_help_panel=SETUP)


def _span(rules: "RuleSet") -> str:
    if rules.effective_to is None:
        return f"{rules.effective_from} on"
    return f"{rules.effective_from} … {rules.effective_to}"


@rules_app.command("add")
@user_errors
def add(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="The rule set's TOML file (see docs/guide/rule-sets.md).")
    ],
    reason: Annotated[
        str | None, typer.Option(metavar="TEXT", help="Why the rule set is added or changed (audit log).")
    ] = None,
    dry_run: DryRunOption = False,
) -> None:
    """Store a rule set; adding an edited file makes a new version and changes no published list."""
    from ratingdb.rating.rulefile import RULE_FILE_MAX

    try:
        # Checked before reading: a huge file is never read into memory (UTF-8: 4 bytes a character).
        if file.is_file() and file.stat().st_size > 4 * RULE_FILE_MAX:
            raise ConfigError(
                f"{file}: {file.stat().st_size:,} bytes is too large for a rule file (FIDE's are 3 KB; "
                f"at most {RULE_FILE_MAX:,} characters) — give the rule set's TOML file"
            )
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: not UTF-8 text — save the rule file as UTF-8") from None
    from ratingdb.services.rules import add_rule_set

    with transaction(dry_run=dry_run) as session:
        added = add_rule_set(session, text, source=file.name, reason=reason)
        row, rules = added.row, added.rules
        name, version, digest = row.name, row.version, row.sha256
    dry_run_heading(dry_run)
    what = f"{name} ({rules.rating_type}, periods {_span(rules)})"
    if added.unchanged:
        echo(f"Rule set {what} is unchanged: version {version} already has this text.")
    elif added.replaced_version is not None:
        echo(f"Rule set {what}: version {version} replaces version {added.replaced_version}.")
        echo("Lists closed under the earlier version keep it; closes from now on use this one.")
    else:
        echo(f"Rule set {what} added as version {version}.")
    echo(f"sha256 {digest}")


@rules_app.command("list")
@user_errors
def list_rules(
    fmt: FormatOption = "table",
) -> None:
    """FIDE's built-in rule sets and the current version of every stored one."""
    from ratingdb.rating import RULE_SETS
    from ratingdb.services.rules import stored_rule_sets

    rows: list[list[object]] = [
        [r.name, r.rating_type, str(r.effective_from), str(r.effective_to or ""), "FIDE (built in)", None]
        for r in RULE_SETS
    ]
    with transaction() as session:
        for row in stored_rule_sets(session):
            origin = f"stored, version {row.version}"
            rows.append(
                [
                    row.name,
                    row.rating_type,
                    row.effective_from,
                    row.effective_until or "",
                    origin,
                    row.sha256[:12],
                ]
            )
    render_rows(["name", "rating_type", "from", "until", "origin", "sha256"], rows, fmt, title="Rule sets")


@rules_app.command("show")
@user_errors
def show(
    name: Annotated[
        str,
        typer.Argument(metavar="NAME", help="The rule set's name, e.g. standard-2025-10 or national-2026."),
    ],
    version: Annotated[
        int | None, typer.Option(metavar="N", help="A stored set's earlier version N.")
    ] = None,
) -> None:
    """Print a rule set's file exactly as stored (or as shipped, for FIDE's)."""
    from ratingdb.rating import fide_rule_file

    builtin = fide_rule_file(name)
    if builtin is not None and version is None:
        echo(f"# {name}: FIDE, built in")
        for line in builtin.splitlines():
            echo(line)
        return
    from ratingdb.services.rules import find_rule_set, versions

    with transaction() as session:
        if version is None:
            row = find_rule_set(session, name).stored
        else:
            matching = [r for r in versions(session, name) if r.version == version]
            if not matching:
                raise UnknownRuleSet(f"rule set '{name}' has no version {version}")
            row = matching[0]
        assert row is not None
        state = "current" if row.is_current else "withdrawn"
        header = f"# {row.name}: version {row.version} ({state}), from {row.source}, sha256 {row.sha256}"
        content = row.content
    echo(header)
    for line in content.splitlines():  # a stored file may hold anything: each line made harmless
        echo(line)
