"""Ed25519 signatures of a bundle's manifest (PyNaCl, libsodium's Ed25519); pure but for the key's text.

The manifest lists the SHA-256 of every other member, so signing its bytes signs the whole bundle. The
signature member (`manifest.sig.json`) holds the algorithm, the public key and the signature, base64;
`check` says whether a bundle is unsigned, signed by the key expected, or not.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Literal

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from ratingdb.bundle.archive import Bundle
from ratingdb.errors import RatingDbError

ALGORITHM = "ed25519"
WELL_KNOWN = ".well-known/ratingdb-bundle-key.json"  # where a site publishes its public key


class SigningKeyError(RatingDbError):
    """A key that cannot be read (the sentence says which and why)."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.strip(), validate=True)
    except ValueError:
        raise SigningKeyError(f"{what} is not base64 text") from None


@dataclass(frozen=True)
class KeyPair:
    private: str  # base64 of the 32-byte seed: secret
    public: str  # base64 of the 32-byte public key


def new_key() -> KeyPair:
    key = SigningKey.generate()
    return KeyPair(_b64(bytes(key)), _b64(bytes(key.verify_key)))


def public_of(private: str) -> str:
    return _b64(bytes(_signing_key(private).verify_key))


def _signing_key(private: str) -> SigningKey:
    seed = _unb64(private, "the signing key")
    if len(seed) != 32:
        raise SigningKeyError("the signing key is not an Ed25519 key (32 bytes in base64)")
    return SigningKey(seed)


def public_key_text(text: str) -> str:
    """A public key given as its base64 text or as a site's .well-known JSON; checked, as base64."""
    text = text.strip()
    if text.startswith("{"):
        try:
            found = json.loads(text)
        except ValueError:
            raise SigningKeyError("the public key file is not JSON") from None
        if not isinstance(found, dict) or found.get("algorithm") != ALGORITHM or "public_key" not in found:
            raise SigningKeyError(f"the public key file does not name an {ALGORITHM} public_key")
        text = str(found["public_key"])
    raw = _unb64(text, "the public key")
    if len(raw) != 32:
        raise SigningKeyError("the public key is not an Ed25519 public key (32 bytes in base64)")
    return _b64(raw)


def well_known(public: str) -> str:
    """The text of the site's .well-known key file."""
    return json.dumps({"algorithm": ALGORITHM, "public_key": public}, indent=2, sort_keys=True) + "\n"


class Signer:
    """Signs manifests with one private key (base64 seed)."""

    def __init__(self, private: str) -> None:
        self.key = _signing_key(private)
        self.public = _b64(bytes(self.key.verify_key))

    def __call__(self, manifest: bytes) -> bytes:
        signature = self.key.sign(manifest).signature
        return _member(self.public, _b64(signature))


def _member(public: str, signature: str) -> bytes:
    """The signature member's bytes: one form only, so that no byte of it can change unnoticed."""
    body = {"algorithm": ALGORITHM, "public_key": public, "signature": signature}
    return (json.dumps(body, indent=2, sort_keys=True) + "\n").encode("utf-8")


Status = Literal["unsigned", "valid", "invalid", "other key"]


@dataclass(frozen=True)
class SignatureCheck:
    """What a bundle's signature says: `valid` (by `public_key`), `invalid` (the manifest or the signature
    changed), `other key` (valid, but not by the key expected), or `unsigned`."""

    status: Status
    public_key: str | None

    @property
    def ok(self) -> bool:
        """Not a failing signature: valid, or none at all (which `verify` says plainly)."""
        return self.status in ("valid", "unsigned")


def check(bundle: Bundle, expected: str | None = None) -> SignatureCheck:
    """Check the bundle's signature of its manifest; against `expected` (base64) when given."""
    if bundle.signature is None:
        return SignatureCheck("unsigned", None)
    try:
        body = json.loads(bundle.signature)
        public = str(body["public_key"])
        signature = _unb64(str(body["signature"]), "the signature")
        key = _unb64(public, "the signature's public key")
        # Base64 can spell the same bytes more than one way (the last character's unused bits): only the
        # form the signer writes counts, or a changed byte of the member could leave it "valid".
        if body.get("algorithm") != ALGORITHM or bundle.signature != _member(_b64(key), _b64(signature)):
            return SignatureCheck("invalid", None)
        VerifyKey(key).verify(bundle.manifest_raw, signature)
    except (ValueError, KeyError, TypeError, SigningKeyError, BadSignatureError):
        return SignatureCheck("invalid", None)
    if expected is not None and public_key_text(expected) != public:
        return SignatureCheck("other key", public)
    return SignatureCheck("valid", public)
