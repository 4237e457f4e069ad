"""File readers and writers (TRF, FIDE lists, CSV lists): pure, no database, CLI or SQLAlchemy imports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratingdb.lazy import on_first_use

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

# Each name is imported from its module when it is first asked for (ratingdb.lazy), not with the package:
# the command line reads `formats.limits` for its defaults, and `ratingdb --help` should not load the readers.
__getattr__ = on_first_use(
    __name__,
    {
        "lists": (
            "CSV_COLUMNS",
            "RATING_TYPES",
            "ListFormat",
            "ListRating",
            "ListRow",
            "detect_list_format",
            "read_list",
            "write_csv_list",
            "write_fide_txt",
        ),
        "trf": (
            "MAX_TRF_BYTES",
            "TrfEvent",
            "TrfGame",
            "TrfPlayer",
            "as_sex",
            "parse_trf",
            "rating_type_for_time_control",
            "read_trf",
            "write_trf16",
        ),
    },
)
