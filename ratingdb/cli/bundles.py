"""CLI: `verify` (a list bundle recomputed from itself alone, no database) and `keys create` (issue 49)."""

from pathlib import Path
from typing import Annotated

import typer

from ratingdb.cli.app import LOOKUP, SETUP, RatingDbTyper, app
from ratingdb.cli.common import transaction, user_errors
from ratingdb.cli.output import echo
from ratingdb.errors import ConfigError

keys_app = RatingDbTyper(help="The federation's key for signing list bundles.")
app.add_typer(keys_app, name="keys", rich_help_panel=SETUP)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None


def _site_key(site: str) -> str:
    """The public key a site publishes at /.well-known/ (ratingdb.bundle.signing.WELL_KNOWN)."""
    import urllib.error
    import urllib.request

    from ratingdb.bundle.signing import WELL_KNOWN

    if not site.startswith(("https://", "http://")):
        raise ConfigError(f"--site '{site}' is not a web address: write it as https://ratings.example.org")
    url = f"{site.rstrip('/')}/{WELL_KNOWN}"
    try:
        with urllib.request.urlopen(url, timeout=20) as response:  # noqa: S310 — http(s) only, checked above
            return str(response.read(4096).decode("utf-8", "replace"))
    except (urllib.error.URLError, OSError) as exc:
        raise ConfigError(
            f"cannot read the site's public key at {url}: {getattr(exc, 'reason', exc)}"
        ) from None


@app.command("verify", rich_help_panel=LOOKUP)
@user_errors
def verify_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A list bundle (`ratingdb list bundle`).")],
    against: Annotated[
        Path | None,
        typer.Option(
            "--against", metavar="OLD", help="Another bundle of the list: say why the entries differ."
        ),
    ] = None,
    public_key: Annotated[
        str | None,
        typer.Option(
            "--public-key",
            metavar="KEY",
            help="The signer's Ed25519 public key: its base64 text, or a file holding it (a site's "
            ".well-known/ratingdb-bundle-key.json).",
        ),
    ] = None,
    site: Annotated[
        str | None,
        typer.Option(
            "--site", metavar="URL", help="Check the signature against the key this site publishes."
        ),
    ] = None,
) -> None:
    """Recompute a bundled list from the bundle alone (no database: the rules and the file readers) and
    compare it with the published list and its calculation record. Exit 1 naming each player who differs
    and the game or input it traces to, or the member whose SHA-256 does not match, or a signature that
    fails. With --against OLD: per player whose entry changed, the inputs that differ.

    Examples:
      ratingdb verify standard-2025-11-01.zip
      ratingdb verify standard-2025-11-01.zip --site https://ratings.example.org
      ratingdb verify standard-2025-11-01-v2.zip --against standard-2025-11-01-v1.zip
    """
    from ratingdb.bundle import signing
    from ratingdb.bundle.archive import read_bundle
    from ratingdb.bundle.verify import verify

    expected = None
    if public_key is not None:
        candidate = Path(public_key)
        text = candidate.read_text(encoding="utf-8") if candidate.is_file() else public_key
        expected = signing.public_key_text(text)
    elif site is not None:
        expected = signing.public_key_text(_site_key(site))
    bundle = read_bundle(_read(file), str(file))
    result = verify(bundle, expected)
    failed = _say_signature(result.signature, expected is not None)
    for tampered in result.tampered:
        typer.echo(f"tampered: {tampered.member} ({tampered.problem} since the manifest was made)", err=True)
    for difference in result.differences:
        typer.echo(f"player {difference.player} {difference.name}:")
        for line in difference.lines:
            typer.echo(f"  {line}")
    manifest = bundle.manifest
    about = f"{manifest['rating_type']} list {manifest['list_date']} version {manifest['version']}"
    if manifest.get("status") == "withdrawn":
        w = manifest.get("withdrawn") or {}
        by = f" by version {w['by_version']}" if w.get("by_version") else ""
        echo(f"This version was withdrawn{by}: {w.get('reason') or w.get('detail')}.")
    if result.tampered:
        typer.echo(f"not verified: {len(result.tampered)} member(s) of the {about} were altered", err=True)
        raise typer.Exit(1)
    if result.differences:
        typer.echo(
            f"not verified: {len(result.differences)} player(s) of the {about} differ from the recomputation",
            err=True,
        )
        raise typer.Exit(1)
    echo(
        f"verified: the {about}, {result.entries} entries, every rating, K and games count identical "
        f"({result.record_rows} rows of the calculation record)"
    )
    if against is not None:
        _say_comparison(bundle, read_bundle(_read(against), str(against)))
    if failed:
        raise typer.Exit(1)


def _say_signature(check: "object", expected: bool) -> bool:
    from ratingdb.bundle.signing import SignatureCheck

    assert isinstance(check, SignatureCheck)
    if check.status == "unsigned":
        echo("unsigned: the bundle carries no signature, so nothing says who made it")
        if expected:
            typer.echo("signature: none, where the key given expected one", err=True)
        return expected
    if check.status == "invalid":
        typer.echo("signature: INVALID — the manifest or its signature was changed", err=True)
        return True
    if check.status == "other key":
        typer.echo(
            f"signature: valid, but by another key ({check.public_key}), not the one expected", err=True
        )
        return True
    if expected:
        echo(f"signature: valid, by the expected key {check.public_key}")
    else:
        echo(
            f"signature: valid, by key {check.public_key} (not checked against the federation's: give "
            "--public-key or --site)"
        )
    return False


def _say_comparison(new: "object", old: "object") -> None:
    from ratingdb.bundle.archive import Bundle
    from ratingdb.bundle.compare import compare

    assert isinstance(new, Bundle) and isinstance(old, Bundle)
    found = compare(new, old)
    if not found.players:
        echo(f"against {old.manifest['list_date']} version {old.manifest['version']}: no entry differs")
        return
    echo(
        f"against {old.manifest['list_date']} version {old.manifest['version']}: "
        f"{len(found.players)} player(s) changed"
    )
    for player in found.players:
        echo(f"player {player.player} {player.name}: {player.old} → {player.new}")
        for cause in player.causes:
            echo(f"  {cause}")


@keys_app.command("create")
@user_errors
def keys_create_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A new file for the private key.")],
    replace: Annotated[
        bool, typer.Option("--replace", help="Replace the federation's key (it was lost or exposed).")
    ] = False,
    reason: Annotated[
        str | None, typer.Option("--reason", metavar="TEXT", help="Why (kept in the audit log).")
    ] = None,
) -> None:
    """Make the federation's Ed25519 key for signing list bundles: the private key goes to FILE (readable
    by you only; keep a copy offline), the public key into the database, where `publish` and `serve`
    publish it. `list bundle` signs with it from then on.

    Examples:
      ratingdb keys create ~/.config/ratingdb/bundle-key
    """
    from ratingdb.services.bundle_keys import create_key

    with transaction() as session:
        made = create_key(session, file, replace=replace, reason=reason)
    echo(f"Wrote the private key to {made.path}; the public key is {made.public_key}.")
    if made.replaced:
        echo(f"It replaces {made.replaced}: bundles signed before verify against that key only.")
