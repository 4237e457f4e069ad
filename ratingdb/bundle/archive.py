"""The bundle's zip: deterministic writing, reading with every member's hash checked; stdlib only.

The same members give the same bytes: members sorted by name, every timestamp 1980-01-01 00:00, one
file mode, the creating system fixed, deflate at one level. The manifest lists each member's SHA-256;
its signature, when there is one, is the member `manifest.sig.json` (it covers the manifest's bytes,
so it cannot be listed in it).
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ratingdb.errors import RatingDbError

FORMAT = "ratingdb-list-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig.json"
_MODE = 0o644 << 16  # -rw-r--r--, as the external attribute of a Unix file
MAX_MEMBER_BYTES = 2**32 - 1  # the zip's size fields (no ZIP64): a FIDE-size list is some 100 MB


class BundleError(RatingDbError):
    """A file that is not a readable list bundle (the sentence says what is wrong)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """The manifest as stored: JSON with sorted keys, two-space indent, UTF-8, one final newline."""
    return (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


# The zip is written here rather than by zipfile so that a reader can rebuild it from the compressed bytes
# it holds and compare the whole file (`canonical`): then a change of any byte is found, a date or an
# attribute of the zip's own records included, whichever zlib compressed the members.
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01
_DOS_TIME = 0
_DEFLATE = 8
_NEEDED = 20  # version 2.0: deflate
_MADE_BY = (3 << 8) | _NEEDED  # Unix


def _zip(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of (name, deflated bytes, CRC-32, size) entries in the order given, with fixed records."""
    out = bytearray()
    central = bytearray()
    for name, data, crc, size in entries:
        raw = name.encode("ascii")
        offset = len(out)
        out += _LOCAL.pack(
            0x04034B50, _NEEDED, 0, _DEFLATE, _DOS_TIME, _DOS_DATE, crc, len(data), size, len(raw), 0
        )
        out += raw + data
        central += _CENTRAL.pack(
            0x02014B50, _MADE_BY, _NEEDED, 0, _DEFLATE, _DOS_TIME, _DOS_DATE, crc, len(data), size,
            len(raw), 0, 0, 0, 0, _MODE, offset,
        )  # fmt: skip
        central += raw
    start = len(out)
    out += central
    out += _END.pack(0x06054B50, 0, 0, len(entries), len(entries), len(central), start, 0)
    return bytes(out)


def _deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def _one_stream(raw: bytes) -> bool:
    """Whether `raw` is one whole deflate stream and nothing after it. zipfile stops reading at the
    member's size, so a stream whose last block lost its "final" bit reads as the same bytes."""
    inflater = zlib.decompressobj(-15)
    try:
        inflater.decompress(raw)
    except zlib.error:
        return False
    return inflater.eof and not inflater.unused_data


def write_zip(members: Mapping[str, bytes]) -> bytes:
    """The zip of `members` (name → bytes), byte for byte the same for the same members."""
    for name, data in members.items():
        if len(data) >= MAX_MEMBER_BYTES or not name.isascii():
            raise BundleError(f"member {name} cannot be written to a bundle (too large or not ASCII)")
    return _zip(
        [
            (name, _deflate(members[name]), zlib.crc32(members[name]), len(members[name]))
            for name in sorted(members)
        ]
    )


def canonical(data: bytes) -> bool:
    """Whether `data` is exactly the zip `write_zip` makes of its members' compressed bytes: no byte of
    the zip's own records (dates, attributes, order, comments, extra fields) differs."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = []
        for info in archive.infolist():
            at = info.header_offset
            name_length, extra_length = struct.unpack("<HH", data[at + 26 : at + 30])
            start = at + 30 + name_length + extra_length
            raw = data[start : start + info.compress_size]
            if not _one_stream(raw):
                return False
            entries.append((info.filename, raw, info.CRC, info.file_size))
    except (zipfile.BadZipFile, struct.error, ValueError):
        return False
    return _zip(entries) == data


def build(
    manifest: dict[str, Any], members: Mapping[str, bytes], sign: Callable[[bytes], bytes] | None = None
) -> bytes:
    """The bundle: `members`, the manifest with their hashes added, and, when `sign` is given, the
    signature member it makes of the manifest's bytes."""
    listed = dict(manifest, members={name: sha256(data) for name, data in sorted(members.items())})
    everything = dict(members)
    everything[MANIFEST] = manifest_bytes(listed)
    if sign is not None:
        everything[SIGNATURE] = sign(everything[MANIFEST])
    return write_zip(everything)


@dataclass(frozen=True)
class Bundle:
    """A bundle as read: the manifest (parsed and as bytes) and every member's bytes."""

    manifest: dict[str, Any]
    manifest_raw: bytes
    members: dict[str, bytes]
    signature: bytes | None
    canonical: bool  # the zip is byte for byte as write_zip makes it (`canonical`)

    def text(self, name: str) -> str:
        return self.members[name].decode("utf-8")

    def json(self, name: str) -> Any:
        return json.loads(self.members[name])


@dataclass(frozen=True)
class Tampered:
    """A member whose bytes do not hash to the manifest's figure, or one missing or not listed."""

    member: str
    problem: str  # "changed" | "missing" | "not listed"


# What zipfile raises for a file that is not a well-formed zip (a changed byte can lead it to any of them).
_UNREADABLE = (
    zipfile.BadZipFile, OSError, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError,
    struct.error, UnicodeDecodeError, KeyError, IndexError,
)  # fmt: skip


def read_bundle(data: bytes, source: str = "the bundle") -> Bundle:
    """The members of a bundle's zip (BundleError when it is not one)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _UNREADABLE:
        raise BundleError(f"{source} is not a zip file, so not a list bundle") from None
    members: dict[str, bytes] = {}
    with archive:
        for info in archive.infolist():
            if info.file_size > MAX_MEMBER_BYTES:
                raise BundleError(f"{source}: member {info.filename} is larger than a bundle holds")
            try:
                members[info.filename] = archive.read(info)
            except _UNREADABLE as exc:
                raise BundleError(f"{source}: member {info.filename} cannot be read ({exc})") from None
    raw = members.pop(MANIFEST, None)
    if raw is None:
        raise BundleError(f"{source} has no {MANIFEST}, so it is not a list bundle")
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise BundleError(f"{source}: {MANIFEST} is not JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"{source}: {MANIFEST} does not describe a {FORMAT}")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BundleError(
            f"{source} is bundle format version {manifest.get('format_version')}; this ratingdb reads "
            f"version {FORMAT_VERSION}"
        )
    return Bundle(manifest, raw, members, members.pop(SIGNATURE, None), canonical(data))


def tampered_members(bundle: Bundle) -> list[Tampered]:
    """Members whose bytes differ from the manifest's hash, are missing, or are there but not listed; and
    the zip itself when a byte outside the members changed."""
    listed: dict[str, str] = bundle.manifest.get("members") or {}
    found = [] if bundle.canonical else [Tampered("(the zip's own records)", "changed")]
    for name in sorted(set(listed) | set(bundle.members)):
        if name not in bundle.members:
            found.append(Tampered(name, "missing"))
        elif name not in listed:
            found.append(Tampered(name, "not listed"))
        elif sha256(bundle.members[name]) != listed[name]:
            found.append(Tampered(name, "changed"))
    return found
