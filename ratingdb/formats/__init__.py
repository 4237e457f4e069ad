"""File readers and writers (TRF, FIDE lists, CSV lists): pure, no database, CLI or SQLAlchemy imports."""

from ratingdb.formats.trf import (
    TrfEvent,
    TrfGame,
    TrfPlayer,
    parse_trf,
    rating_type_for_time_control,
    read_trf,
    write_trf16,
)

__all__ = [
    "TrfEvent",
    "TrfGame",
    "TrfPlayer",
    "parse_trf",
    "rating_type_for_time_control",
    "read_trf",
    "write_trf16",
]
