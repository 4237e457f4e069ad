"""File readers and writers (TRF, FIDE lists, CSV lists): pure, no database, CLI or SQLAlchemy imports."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ratingdb.formats.lists import (
        CSV_COLUMNS,
        RATING_TYPES,
        ListFormat,
        ListRating,
        ListRow,
        detect_list_format,
        read_list,
        write_csv_list,
        write_fide_txt,
    )
    from ratingdb.formats.trf import (
        MAX_TRF_BYTES,
        TrfEvent,
        TrfGame,
        TrfPlayer,
        as_sex,
        parse_trf,
        rating_type_for_time_control,
        read_trf,
        write_trf16,
    )

__all__ = [
    "CSV_COLUMNS",
    "MAX_TRF_BYTES",
    "RATING_TYPES",
    "ListFormat",
    "ListRating",
    "ListRow",
    "TrfEvent",
    "TrfGame",
    "TrfPlayer",
    "as_sex",
    "detect_list_format",
    "parse_trf",
    "rating_type_for_time_control",
    "read_list",
    "read_trf",
    "write_csv_list",
    "write_fide_txt",
    "write_trf16",
]

# Each name is imported from its module when it is first asked for (PEP 562), not with the package: the
# command line reads `formats.limits` for its defaults, and `ratingdb --help` should not load the readers.
# tests/unit/formats/test_purity.py checks that this table and __all__ name the same things.
_MODULE_OF: dict[str, str] = {
    "CSV_COLUMNS": "lists",
    "MAX_TRF_BYTES": "trf",
    "RATING_TYPES": "lists",
    "ListFormat": "lists",
    "ListRating": "lists",
    "ListRow": "lists",
    "TrfEvent": "trf",
    "TrfGame": "trf",
    "TrfPlayer": "trf",
    "as_sex": "trf",
    "detect_list_format": "lists",
    "parse_trf": "trf",
    "rating_type_for_time_control": "trf",
    "read_list": "lists",
    "read_trf": "trf",
    "write_csv_list": "lists",
    "write_fide_txt": "lists",
    "write_trf16": "trf",
}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value
