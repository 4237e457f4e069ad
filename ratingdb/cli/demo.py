"""CLI: `demo` — a new database with the seeded demo federation, built by the real import and close commands.

Imports the other command modules' functions, the demo plan service and the reports; no rules here.
"""

from itertools import islice
from typing import TYPE_CHECKING, Annotated

import typer

from ratingdb.cli.app import TOOLS, app, database_url, using_database
from ratingdb.cli.close import close_period_command
from ratingdb.cli.common import transaction, user_errors
from ratingdb.cli.imports import import_list_command, import_trf_command
from ratingdb.cli.rules import add as rules_add_command
from ratingdb.errors import ConfigError

if TYPE_CHECKING:
    from ratingdb.services.demo import DemoPlan, Highlight

# Where `demo` builds its database unless told otherwise (kept equal to services.demo.DEFAULT_DEMO_URL by
# a test; written out here so that `--help` does not import the service and SQLAlchemy with it).
DEFAULT_DEMO_URL = "sqlite:///demo.sqlite"

TOP = 10


@app.command("demo", rich_help_panel=TOOLS)
@user_errors
def demo_command(
    ctx: typer.Context,
    db_url: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help=f"Where to build the demo database (default {DEFAULT_DEMO_URL}, in the current folder). "
            "RATINGDB_URL is ignored here, so the demo never writes into your configured database.",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing demo SQLite file instead of refusing.")
    ] = False,
) -> None:
    """Build a demo database from the seeded federation and take a short tour of it.

    300 players of a fictional federation, standard and rapid lists dated 2025-09-01, and 16 events of
    September–November 2025 are imported with the real `import-list` and `import-trf`, then every
    period is closed in order with the real `close-period`, each step its own transaction. A third,
    national list follows the federation's own rule set (seeds/national-2025.toml, floor 1000), and a
    club list is rated by Glicko-2 (seeds/club-glicko.toml, from seeds/club-2025-09-01.csv), both fed by
    the same standard tournaments. The tour ends with the top of the newest list and commands to look
    at the rules the seeds exercise.
    """
    from ratingdb import db
    from ratingdb.db_errors import explained
    from ratingdb.reports.lists import find_list, list_lines
    from ratingdb.services.demo import highlights, plan_demo, prepare_database, seeds_path
    from ratingdb.services.lists import earliest_list

    url = _demo_url(ctx, db_url)
    replaced = prepare_database(url, force=force)
    seeds = seeds_path()
    plan = plan_demo(seeds)
    shown = db.display_url(url)
    typer.echo(
        f"ratingdb demo: a fictional federation, {len(plan.lists)} starting lists and "
        f"{plan.event_files} events (September–November 2025), in {shown}."
    )
    if replaced:
        typer.echo(f"Replaced the previous {replaced} (--force).")
    typer.echo(
        f"Each step below is the real command it shows, run in its own transaction, on the files in {seeds}."
    )
    engine = db.make_engine(url)
    try:
        with explained(url):  # the demo's own database, not --db's
            db.upgrade(engine)
            typer.echo(f"Created the ratingdb schema (migration {db.current_revision(engine)}).")
    finally:
        engine.dispose()

    with using_database(url):  # the real commands below read the database from Typer's context
        _run(plan)
        with transaction() as session:
            newest = find_list(session, "standard", None)
            first = earliest_list(session, "standard")
            top = list(islice(list_lines(session, newest, rated_only=True), TOP))
            start = {line.fide_id: line.rating for line in list_lines(session, first)} if first else {}
            newest_date, first_date = (
                newest.list_date.isoformat(),
                first.list_date.isoformat() if first else "",
            )
            found = highlights(session)

    typer.echo("")
    typer.echo(f"Top {TOP} of the newest standard list ({newest_date}), with the change since {first_date}:")
    for rank, line in enumerate(top, 1):
        before = start.get(line.fide_id)
        since = "new" if before is None else f"{(line.rating or 0) - before:+d}"
        typer.echo(
            f"  {rank:2d}. {line.title or '':>3} {line.name:<26} {line.federation or '':3} "
            f"{line.rating:>5} {since:>4}"
        )
    _explore(shown, found)


def _demo_url(ctx: typer.Context, db_url: str | None) -> str:
    """`demo --db` wins; `ratingdb --db URL demo` is honoured too; RATINGDB_URL never is (see --help)."""
    from ratingdb import db

    parent = ctx.parent
    source = parent.get_parameter_source("db") if parent is not None else None
    global_url = database_url() if source is not None and source.name == "COMMANDLINE" else None
    if db_url and global_url and db_url != global_url:
        raise ConfigError(
            f"two databases were given ({db.display_url(global_url)} before `demo`, {db.display_url(db_url)} "
            "after it): give one"
        )
    return db_url or global_url or DEFAULT_DEMO_URL


def _run(plan: "DemoPlan") -> None:
    """The demo proper: each call is the real command with its own transaction and output."""
    for rule_file in plan.rule_files:
        _step(f"ratingdb rules add {rule_file.name}")
        rules_add_command(file=rule_file, reason=None)
    for lst in plan.lists:
        date = lst.list_date.isoformat()
        _step(f"ratingdb import-list {lst.path.name} --date {date} --type {lst.rating_type}")
        import_list_command(file=lst.path, date=date, rating_type=lst.rating_type, fmt="csv")
    for step in plan.steps:
        if step.events:
            files = f"trf/{step.events[0].path.name}" + (
                f" … ({len(step.events)} files, one transaction)" if len(step.events) > 1 else ""
            )
            _step(f"ratingdb import-trf --type {step.rating_type} {files}")
            import_trf_command(
                files=[e.path for e in step.events], rating_type=step.rating_type, official=False, period=None
            )
        _step(f"ratingdb close-period {step.period} --type {step.rating_type}")
        close_period_command(period=str(step.period), rating_type=step.rating_type)


def _step(command: str) -> None:
    typer.echo("")
    typer.echo(f"$ {command}")


def _explore(shown: str, found: "list[Highlight]") -> None:
    prefix = f"ratingdb --db {shown}"
    typer.echo("")
    typer.echo("What the seeds show (each is a player's stored calculation):")
    for h in found:
        typer.echo(f"  {h.rule}: {h.name} ({h.fide_id}), {h.rating_type} period {h.period}: {h.detail}")
    typer.echo("")
    typer.echo(f"Explore further (or set RATINGDB_URL={shown} once and drop the --db):")
    commands = [
        (f"{prefix} list --limit 20", "the newest standard list"),
        (f"{prefix} list --type rapid --limit 10", "the newest rapid list"),
        (f"{prefix} list --type national --limit 10", "the national list (the federation's own rules)"),
        (f"{prefix} rules show national-2025", "the national rule set as stored"),
        (
            f"{prefix} list --type club --limit 10",
            "the club list by Glicko-2 (rating, deviation, volatility)",
        ),
    ]
    for h in found:
        kind = "" if h.rating_type == "standard" else f" --type {h.rating_type}"
        commands.append((f"{prefix} calculation {h.fide_id} {h.period}{kind}", f"the {h.rule}, game by game"))
    if found:
        commands.append((f"{prefix} player {found[0].fide_id}", "one player's lists"))
    for h in found:
        if h.event_id is not None:
            commands.append((f"{prefix} report event {h.event_id}", f"the tournament report of the {h.rule}"))
    commands += [
        (f"{prefix} report period 2025-10", "what the October close did"),
        (f"{prefix} report top --category juniors", "the best juniors"),
        (f"{prefix} events", "the events and their IDs"),
    ]
    for command, why in commands:
        typer.echo(f"  # {why}")
        typer.echo(f"  {command}")
