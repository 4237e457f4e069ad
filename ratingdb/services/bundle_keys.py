"""The federation's signing key for list bundles: made once, its public half published, its secret on disk.

`create_key` makes an Ed25519 key pair (ratingdb.bundle.signing), writes the private key to a file only
its owner can read and records in the federation's settings the public key and where the file is. The
secret never enters the database: the public site reads the database through a reader role, and
`ratingdb sql` shows any table. `signer` is what `list bundle` and `publish` sign with when a key is set.
Takes a Session and never commits.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session

from ratingdb.bundle.signing import Signer, SigningKeyError, new_key, public_of
from ratingdb.errors import ConfigError
from ratingdb.schema.models import FederationSetting
from ratingdb.services.versions import record_change

PUBLIC_KEY = "bundle_public_key"
KEY_FILE = "bundle_key_file"
SETTING_MAX = 100  # federation_setting.value


@dataclass(frozen=True)
class CreatedKey:
    """The key `create_key` made: its public half (base64), the private key's file, the key it replaced."""

    public_key: str
    path: Path
    replaced: str | None  # the public key it replaced, if there was one


def public_key(session: Session) -> str | None:
    """The federation's public key (base64), if it has made one."""
    row = session.get(FederationSetting, PUBLIC_KEY)
    return None if row is None else row.value


def create_key(
    session: Session, path: Path, *, replace: bool = False, reason: str | None = None
) -> CreatedKey:
    """Make the federation's signing key: the private key to `path` (new, readable by its owner only)."""
    before = public_key(session)
    if before is not None and not replace:
        raise ConfigError(
            "the federation has a signing key already: bundles signed with it verify against its public key; "
            "replace it only if it was lost or exposed (--replace --reason TEXT)"
        )
    if replace and not (reason and reason.strip()):
        raise ConfigError("replacing the signing key needs a reason: give it with --reason TEXT")
    path = path.expanduser().absolute()
    if len(str(path)) > SETTING_MAX:
        raise ConfigError(
            f"the key file's path is longer than {SETTING_MAX} characters: choose a shorter one"
        )
    pair = new_key()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ConfigError(f"{path} exists already: the key is written to a new file only") from None
    except OSError as exc:
        raise ConfigError(f"cannot write the key to {path}: {exc.strerror}") from None
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(pair.private + "\n")
    for name, value in ((PUBLIC_KEY, pair.public), (KEY_FILE, str(path))):
        row = session.get(FederationSetting, name)
        if row is None:
            session.add(FederationSetting(name=name, value=value))
        else:
            row.value = value
    detail = f"made the list bundles' signing key {pair.public} (private key in {path})"
    if before is not None:
        detail += f", replacing {before}"
    record_change(session, "keys-create", detail, reason=reason)
    session.flush()
    return CreatedKey(pair.public, path, before)


def signer(session: Session, key_file: Path | None = None) -> Signer | None:
    """The signer of the federation's key (from `key_file` if given, else the file its settings name);
    None when the federation has no key. Refused when the file is unreadable or holds another key."""
    expected = public_key(session)
    if key_file is None:
        row = session.get(FederationSetting, KEY_FILE)
        if row is None:
            return None
        key_file = Path(row.value)
    try:
        private = key_file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read the signing key {key_file}: {getattr(exc, 'strerror', exc)}"
        ) from None
    try:
        public = public_of(private)
    except SigningKeyError as exc:
        raise ConfigError(f"{key_file}: {exc}") from None
    if expected is not None and public != expected:
        raise ConfigError(
            f"{key_file} holds another key than the federation's ({expected}): bundles signed with it would "
            "not verify against the published key"
        )
    return Signer(private)
