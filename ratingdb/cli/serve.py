"""CLI: `serve` — the site, the JSON API and live ratings from the database; `live` — live ratings.

`serve` parses, makes the app (ratingdb.web, which checks the database) and hands it to uvicorn;
`live` opens one transaction that is always rolled back and calls ratingdb.reports.live. The web
packages are imported only when the commands run.
"""

import os
from typing import Annotated, Final

import typer

from ratingdb.cli.app import LOOKUP, app, database_url
from ratingdb.cli.common import (
    LanguageOption,
    MailFromOption,
    OnlyTypeOption,
    PublicUrlOption,
    SmtpUrlOption,
    check_type,
    engine,
    player_heading,
    render_rows,
    stdout_console,
    user_errors,
    warn_privileges,
)
from ratingdb.errors import ConfigError


@app.command("serve", rich_help_panel=LOOKUP)
@user_errors
def serve_command(
    host: Annotated[str, typer.Option("--host", metavar="HOST", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=1, max=65535, help="Port.")] = 8000,
    workers: Annotated[
        int, typer.Option("--workers", metavar="N", min=1, max=64, help="Worker processes (stateless).")
    ] = 1,
    read_url: Annotated[
        str | None,
        typer.Option(
            "--read-url",
            envvar="RATINGDB_READ_URL",
            metavar="URL",
            help="Read public pages from this database (a PostgreSQL standby); --db stays the primary.",
        ),
    ] = None,
    title: Annotated[
        str,
        typer.Option(
            "--title",
            envvar="RATINGDB_TITLE",
            metavar="TEXT",
            help='The site\'s name, e.g. "Irish Chess Union" (no password may contain it).',
        ),
    ] = "Rating lists",
    rating_types: Annotated[
        list[str] | None,
        typer.Option(
            "--type",
            "-t",
            metavar="TYPE",
            help="Only this rating type (repeatable); by default every type: FIDE's and the rule sets'.",
        ),
    ] = None,
    language: LanguageOption = "en",
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            metavar="IPS",
            help="Take the visitor's address from X-Forwarded-For only when the request comes from one of "
            "these proxy addresses (comma-separated, e.g. 127.0.0.1); by default from no one.",
        ),
    ] = None,
    metrics: Annotated[
        bool,
        typer.Option(
            "--metrics",
            envvar="RATINGDB_METRICS",
            help="Serve /metrics (Prometheus's text format) for the supervisor; by default the address "
            "does not exist. Keep it from the public at the proxy.",
        ),
    ] = False,
    smtp_url: SmtpUrlOption = None,
    mail_from: MailFromOption = None,
    public_url: PublicUrlOption = None,
    access_log: Annotated[
        str,
        typer.Option(
            "--access-log",
            envvar="RATINGDB_ACCESS_LOG",
            metavar="FORMAT",
            help="The access log's lines on standard error: text (the default) or json (one object a "
            "request, for a log collector).",
        ),
    ] = "text",
    require_2fa: Annotated[
        str,
        typer.Option(
            "--require-2fa",
            envvar="RATINGDB_REQUIRE_2FA",
            metavar="WHO",
            help="Who must have a second factor (an authenticator app's codes) before using the desk: "
            "officer (officers and admins), admin, or none (the default).",
        ),
    ] = "none",
) -> None:
    """Serve the federation's site live: the pages `publish` writes, a search box, live (provisional)
    ratings and a JSON API under /api/v1 (OpenAPI at /api/v1/openapi.json).

    The public side only reads (a read-only connection). Behind a reverse proxy with TLS for the internet,
    with --forwarded-allow-ips naming the proxy; `uvicorn ratingdb.web:app` serves the same app,
    configured by RATINGDB_URL and RATINGDB_READ_URL. RATINGDB_SECRET and RATINGDB_INSECURE_COOKIES are
    read with one worker as with many; without RATINGDB_SECRET the workers share one made at start.
    With RATINGDB_SMTP_URL, RATINGDB_MAIL_FROM and RATINGDB_PUBLIC_URL set, the server sends the email
    notices in the background (`ratingdb notices` says more).
    """
    import secrets
    from dataclasses import replace

    import uvicorn

    from ratingdb.i18n import check_language
    from ratingdb.services.second_factor import check_requirement
    from ratingdb.web.app import create_app
    from ratingdb.web.state import WebSettings

    # None chosen: every type the database defines (create_app reads them), a club list's too.
    chosen = tuple(dict.fromkeys(check_type(t) for t in rating_types)) if rating_types else ()
    if not os.environ.get("RATINGDB_SECRET"):
        # One key for every worker: a form one worker made is checked by another (issue 54, L9).
        os.environ["RATINGDB_SECRET"] = secrets.token_urlsafe(32)
    settings = replace(
        WebSettings.from_environment(),  # the secret and RATINGDB_INSECURE_COOKIES, as each worker reads them
        url=database_url(),
        read_url=read_url,
        title=title,
        language=check_language(language),
        rating_types=chosen,
        metrics=metrics,
        smtp_url=smtp_url,
        mail_from=mail_from,
        public_url=public_url,
        require_2fa=check_requirement(require_2fa),
    )
    if access_log not in ACCESS_LOG_FORMATS:
        raise ConfigError(f"--access-log '{access_log[:20]}' is not text or json — choose one of them")
    web_app = create_app(settings)  # checks the database now: a wrong URL is one line, not a traceback
    _warn_about_account()
    _check_address(host, port)
    typer.echo(f"Serving {title} at http://{host}:{port}/ (API: /api/v1/openapi.json; Ctrl-C stops).")
    sending = web_app.state.ratingdb.notices
    if sending is None:
        typer.echo("Email notices wait in the queue: no SMTP server is set (RATINGDB_SMTP_URL).")
    else:
        typer.echo(f"Email notices go through {sending.smtp.shown}, with links to {sending.public_url}.")
    log_config = _log_config(access_log)
    # uvicorn would take X-Forwarded-For from 127.0.0.1 by default: every visitor behind a proxy that
    # passes it could choose their own address (and so escape the sign-in limits), behind one that does
    # not, all would share the proxy's (issue 54, M2). From the proxies named only.
    trusted = forwarded_allow_ips or ""
    try:
        if workers == 1:
            uvicorn.run(
                web_app,
                host=host,
                port=port,
                access_log=False,
                log_config=log_config,
                proxy_headers=bool(trusted),
                forwarded_allow_ips=trusted,
            )
        else:
            # Each worker makes its own app from the environment, as `uvicorn ratingdb.web:app` does.
            os.environ["RATINGDB_URL"] = database_url()
            if read_url:
                os.environ["RATINGDB_READ_URL"] = read_url
            os.environ["RATINGDB_TITLE"] = title
            os.environ["RATINGDB_LANG"] = settings.language
            os.environ["RATINGDB_TYPES"] = ",".join(web_app.state.ratingdb.settings.rating_types)
            os.environ["RATINGDB_METRICS"] = "1" if metrics else ""
            for name, value in (
                ("RATINGDB_SMTP_URL", smtp_url),
                ("RATINGDB_MAIL_FROM", mail_from),
                ("RATINGDB_PUBLIC_URL", public_url),
            ):
                os.environ[name] = value or ""
            os.environ["RATINGDB_REQUIRE_2FA"] = settings.require_2fa
            uvicorn.run(
                "ratingdb.web:app",
                host=host,
                port=port,
                workers=workers,
                access_log=False,
                log_config=log_config,
                proxy_headers=bool(trusted),
                forwarded_allow_ips=trusted,
            )
    except OSError as exc:
        raise ConfigError(f"cannot serve on {host}:{port}: {exc.strerror} — choose another --port") from None


def _warn_about_account() -> None:
    """What the account of --db may do past the guards, said as every writing command says it (the desk
    writes with it: issue 54, L7)."""
    eng = engine()
    try:
        with eng.connect() as conn:
            warn_privileges(conn)
    finally:
        eng.dispose()


def _check_address(host: str, port: int) -> None:
    """Refused in one line before "Serving …" is said: an address this machine does not have, or a port in
    use (uvicorn reports a failed bind with its own lines after the app has started)."""
    import socket

    try:
        family, kind, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror:
        raise ConfigError(
            f"cannot serve on {host}: no such address — give --host an address such as 127.0.0.1"
        ) from None
    with socket.socket(family, kind) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise ConfigError(
                f"cannot serve on {host}:{port}: {exc.strerror} — stop what uses the port, or choose "
                "another with --port"
            ) from None


ACCESS_LOG_FORMATS: Final = ("text", "json")


def _log_config(access_log: str = "text") -> dict[str, object]:
    """uvicorn's logging, plus ratingdb.web's access log and errors on stderr; with `access_log` "json",
    the access log's lines as JSON objects (web.security.JsonAccessFormatter)."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, object] = {**LOGGING_CONFIG}
    loggers = dict(LOGGING_CONFIG["loggers"])
    loggers["ratingdb.web"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    if access_log == "json":
        config["formatters"] = {
            **LOGGING_CONFIG["formatters"],
            "json_access": {"()": "ratingdb.web.security.JsonAccessFormatter"},
        }
        config["handlers"] = {
            **LOGGING_CONFIG["handlers"],
            "json_access": {
                "formatter": "json_access",
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
            },
        }
        loggers["ratingdb.web.access"] = {"handlers": ["json_access"], "level": "INFO", "propagate": False}
    config["loggers"] = loggers
    return config


@app.command("live", rich_help_panel=LOOKUP)
@user_errors
def live_command(
    player: Annotated[
        str | None,
        typer.Argument(metavar="[ID]", help="A player's FIDE ID or national ID; every player if none."),
    ] = None,
    rating_type: OnlyTypeOption = None,
    all_players: Annotated[
        bool, typer.Option("--all", help="Every player of the list, not only those with games since.")
    ] = False,
    fmt: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help="table, csv or json.")
    ] = "table",
) -> None:
    """Live ratings — provisional, not official: the list in force plus the changes of the events already
    imported for periods not yet closed, computed by the close itself and rolled back (nothing is written).
    """
    from ratingdb import db
    from ratingdb.rating import RATING_TYPES
    from ratingdb.reports.live import PROVISIONAL, live_list

    types = [check_type(rating_type)] if rating_type else list(RATING_TYPES)
    eng = engine()
    try:
        with db.session_factory(eng)() as session:
            session.begin()
            try:
                found: int | None = None
                heading = ""
                if player is not None:
                    from ratingdb.reports.lists import find_player

                    chosen = find_player(session, player)
                    found, heading = chosen.id, player_heading(chosen)
                lives = []
                for t in types:
                    from ratingdb.services.lists import latest_list

                    if rating_type is None and latest_list(session, t) is None:
                        continue  # a type without lists: nothing live
                    lives.append(live_list(session, t))
            finally:
                session.rollback()
    finally:
        eng.dispose()
    if not lives:
        raise ConfigError("there is no list yet, so no live ratings: import one with `ratingdb import-list`")
    columns = ["type", "fide_id", "national_id", "name", "official", "live", "change", "games", "events"]
    rows = []
    for live in lives:
        names = {e.event_id: e.name for e in live.events}
        for entry in live.entries:
            if found is not None and entry.player_id != found:
                continue
            if found is None and not all_players and not entry.calculations:
                continue
            events = sorted({ev.event_id for c in entry.calculations for ev in c.events})
            rows.append(
                [live.rating_type, entry.fide_id, entry.national_id, entry.name, entry.official, entry.rating,
                 entry.change, entry.games, "; ".join(names[e] for e in events)]
            )  # fmt: skip
    if fmt == "table":
        out = stdout_console()
        out.print(f"Live ratings: {PROVISIONAL}.", highlight=False, markup=False)
        for live in lives:
            periods = ", ".join(live.periods) or "none"
            out.print(
                f"{live.rating_type}: the list of {live.in_force.isoformat()} plus {len(live.events)} events "
                f"of open periods ({periods})",
                highlight=False,
                markup=False,
            )
        if found is not None:
            out.print(heading, highlight=False, markup=False)
            for live in lives:
                shown = live.entry(found)
                for calc in shown.calculations if shown else []:
                    # The list foreseen, not published (issue 51): named by the close that would publish it.
                    which = "the next close" if calc.period == live.periods[0] else "its close"
                    out.print(
                        f"{live.rating_type}, period {calc.period} (open): the list {which} would publish, "
                        f"dated {calc.list_date.isoformat()} — not published yet:",
                        highlight=False,
                        markup=False,
                    )
                    for line in calc.summary:
                        out.print(f"  {line}", highlight=False, markup=False)
    render_rows(columns, rows, fmt, title=None)
