"""CLI: `publish` — write the static website of lists, players, events and closes; optionally preview it.

Parses, opens one read-only transaction (no write lock: imports and closes go on meanwhile), calls
ratingdb.site.publish and prints what changed. The site package (and Jinja2 with it) is imported only
when the command runs, so other commands do not pay for it.
"""

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from ratingdb.cli.app import LOOKUP, app
from ratingdb.cli.common import check_type, read_transaction, user_errors
from ratingdb.errors import ConfigError


@app.command("publish", rich_help_panel=LOOKUP)
@user_errors
def publish_command(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write the site into.")],
    rating_types: Annotated[
        list[str] | None,
        typer.Option(
            "--type", "-t", metavar="TYPE", help="Only this rating type (repeatable); all by default."
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
        bool, typer.Option("--serve", help="Then serve the folder on 127.0.0.1 for a preview (Ctrl-C stops).")
    ] = False,
    port: Annotated[int, typer.Option("--port", metavar="PORT", help="Port for --serve.")] = 8000,
) -> None:
    """Write the lists as a static website: list pages with filters and downloads, a page per player with
    the history chart and every calculation, event crosstables and a page per close.

    Publishing again into the same folder rewrites only the files that changed and removes pages that no
    longer exist; a folder holding anything else is refused. Any web server, or the folder itself, serves it.
    """
    from ratingdb.rating import RATING_TYPES

    if serve and not 1 <= port <= 65535:
        raise ConfigError(f"--port {port} is not a port a site can be served on — give one from 1 to 65535")
    chosen = tuple(check_type(t) for t in rating_types) if rating_types else RATING_TYPES
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"'{base_url}' is not a web address: give one such as https://ratings.example.org/")
    from ratingdb.site.publish import SiteOptions, publish_site

    options = SiteOptions(title=title, rating_types=tuple(dict.fromkeys(chosen)), base_url=base_url)
    with read_transaction() as session:
        result = publish_site(session, folder, options)
    typer.echo(
        f"Published {result.files} files ({result.bytes / 1_000_000:.1f} MB) to {folder}: "
        f"{len(result.written)} written, {result.unchanged} unchanged, {len(result.removed)} removed."
    )
    if serve:
        _serve(folder, port)


def _serve(folder: Path, port: int) -> None:
    server = preview_server(folder, port)
    typer.echo(f"Serving {folder} at http://127.0.0.1:{port}/ (Ctrl-C stops).")
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            typer.echo("Stopped.")


def preview_server(folder: Path, port: int) -> Any:
    """A ThreadingHTTPServer on 127.0.0.1:`port` serving `folder` for a preview: regular files only, found
    without following a link (a link planted in the folder, to `/` or to a file, is a 404), no folder
    listings (a folder serves its index.html or nothing) and no hidden files (the manifest, temporaries).
    """
    import functools
    import stat
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import unquote, urlsplit

    root = folder.resolve()

    class PreviewHandler(SimpleHTTPRequestHandler):
        def send_head(self) -> Any:
            parts = [p for p in unquote(urlsplit(self.path).path).split("/") if p]
            if not parts or self.path.endswith("/"):
                parts.append("index.html")
            path: Path | None = root
            for part in parts:
                assert path is not None
                if part.startswith(".") or "\\" in part or "\0" in part:
                    path = None
                    break
                path = path / part
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    path = None
                    break
                if stat.S_ISLNK(mode):
                    path = None
                    break
            if path is None or not stat.S_ISREG(os.lstat(path).st_mode):
                self.send_error(404, "File not found")
                return None
            self.path = "/" + "/".join(parts)
            return super().send_head()

        def list_directory(self, path: Any) -> Any:
            self.send_error(404, "File not found")
            return None

    handler = functools.partial(PreviewHandler, directory=str(root))
    try:
        return ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        raise ConfigError(
            f"cannot serve on 127.0.0.1:{port}: {exc.strerror} — choose another --port"
        ) from None
