"""ratingdb: a rating-list database for chess federations (FIDE Rating Regulations)."""

__version__ = "0.1.0"
