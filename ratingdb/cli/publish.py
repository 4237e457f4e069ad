"""CLI: `publish` — write the static website of lists, players, events and closes; optionally preview it.

Parses, opens one read-only transaction (no write lock: imports and closes go on meanwhile), calls
ratingdb.site.publish and prints what changed. The site package (and Jinja2 with it) is imported only
when the command runs, so other commands do not pay for it.
"""

from pathlib import Path
from typing import Annotated

import typer

from ratingdb.cli.app import LOOKUP, app
from ratingdb.cli.common import LanguageOption, check_type, read_transaction, user_errors
from ratingdb.errors import ConfigError


@app.command("publish", rich_help_panel=LOOKUP)
@user_errors
def publish_command(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write the site into.")],
    rating_types: Annotated[
        list[str] | None,
        typer.Option(
            "--type",
            "-t",
            metavar="TYPE",
            help="Only this rating type (repeatable); by default every type: FIDE's and the rule sets'.",
        ),
    ] = None,
    title: Annotated[
        str, typer.Option("--title", metavar="TEXT", help='The site\'s name, e.g. "Irish Chess Union".')
    ] = ("Rating lists"),
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            metavar="URL",
            help="Where the site is served: adds canonical links and sitemap.xml.",
        ),
    ] = None,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve",
            help="Then serve the site on 127.0.0.1 for a preview, as `ratingdb serve` does (Ctrl-C stops).",
        ),
    ] = False,
    port: Annotated[int, typer.Option("--port", metavar="PORT", help="Port for --serve.")] = 8000,
    language: LanguageOption = "en",
) -> None:
    """Write the lists as a static website: list pages with filters and downloads, a page per player with
    the history chart and every calculation, event crosstables and a page per close.

    Publishing again into the same folder rewrites only the files that changed and removes pages that no
    longer exist; a folder holding anything else is refused. Any web server, or the folder itself, serves it.
    """
    if serve and not 1 <= port <= 65535:
        raise ConfigError(f"--port {port} is not a port a site can be served on — give one from 1 to 65535")
    chosen = tuple(check_type(t) for t in rating_types) if rating_types else ()
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"'{base_url}' is not a web address: give one such as https://ratings.example.org/")
    from ratingdb.i18n import check_language
    from ratingdb.services.rules import rating_types as defined_types
    from ratingdb.site.publish import SiteOptions, publish_site

    with read_transaction() as session:
        options = SiteOptions(
            title=title,
            # Every type by default: standard, rapid, blitz and the stored rule sets' (a club list).
            rating_types=tuple(dict.fromkeys(chosen or defined_types(session))),
            base_url=base_url,
            language=check_language(language),
        )
        result = publish_site(session, folder, options)
    typer.echo(
        f"Published {result.files} files ({result.bytes / 1_000_000:.1f} MB) to {folder}: "
        f"{len(result.written)} written, {result.unchanged} unchanged, {len(result.removed)} removed."
    )
    if serve:
        # The served pages are the same pages from the same database (ratingdb.web), never files read
        # off the disk: nothing outside the site can be reached through the preview.
        from ratingdb.cli.serve import serve_command

        serve_command(
            host="127.0.0.1",
            port=port,
            title=title,
            rating_types=list(options.rating_types),
            language=options.language,
        )
